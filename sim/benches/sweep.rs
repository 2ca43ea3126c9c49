//! Benchmark of `tpsim sweep` over the bundled seed scenario: 16 points (concurrency 1, 2, 4, 8 ×
//! allreduce nccl/custom × acceptance α 0.7/0.9), on one thread and on two, and the 1,000-point
//! grid of book/src/sweep.md ("Speed and determinism": concurrency 1–10 × mem_fraction_static
//! 0.80–0.89 × nccl/custom × α 0.6–0.95) on two threads. Issue #8 asks for a 1,000-point sweep "in
//! seconds" on two cores. Collective outcomes (`comm`) and iteration shape costs
//! (`decode::shape_cache`) are cached for the whole process, so iterations after the first measure
//! a sweep's steady state (every shape cached); a cold `tpsim sweep` process builds each shape
//! once more: time it with `/usr/bin/time` (book/src/sweep.md, sweepfast). speed64 adds a 16-point
//! MoE grid (DeepSeek-R1 under SGLang on 8× H200), whose points are dominated by the serving loop.

use criterion::{Criterion, criterion_group, criterion_main};
use std::path::PathBuf;
use std::time::Duration as WallDuration;
use tpsim::sweep::Sweep;

fn bench(c: &mut Criterion) {
    let file = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scenarios/seed/baseline.toml");
    let grid = [
        "workload.concurrency=1:10:1",
        "engine.mem_fraction_static=0.80:0.89:0.01",
        "engine.allreduce=nccl,custom",
        "speculative.acceptance.alpha=0.6,0.7,0.8,0.9,0.95",
    ]
    .map(String::from);
    let big = Sweep::new(&file, &grid, &[]).expect("bundled scenario");
    assert_eq!(big.len(), 1000);
    let sets = [
        "workload.concurrency=1,2,4,8",
        "engine.allreduce=nccl,custom",
        "speculative.acceptance.alpha=0.7,0.9",
    ]
    .map(String::from);
    let sw = Sweep::new(&file, &sets, &[]).expect("bundled scenario");
    assert_eq!(sw.len(), 16);
    let mut g = c.benchmark_group("sweep");
    g.sample_size(10).measurement_time(WallDuration::from_secs(10));
    for threads in [1, 2] {
        g.bench_function(format!("seed_16_points_{threads}_threads"), |b| {
            b.iter(|| sw.run(None, threads, &|| ()).expect("sweep"))
        });
    }
    g.bench_function("seed_1000_points_2_threads", |b| {
        b.iter(|| big.run(None, 2, &|| ()).expect("sweep"))
    });
    // speed64: a MoE grid, where the serving loop rather than shape building dominates (640
    // requests of 819–1,024 + 819–1,024 tokens per point): DeepSeek-R1 FP8 under SGLang 0.5.7 on
    // 8× H200, concurrency 16/32/64/128 × nccl/custom × mem_fraction_static 0.82/0.86.
    let moe_file = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../scenarios/validation/deepseek-r1-fp8-h200x8-sglang-tp8-c64.toml");
    let moe_sets = [
        "workload.concurrency=16,32,64,128",
        "engine.allreduce=nccl,custom",
        "engine.mem_fraction_static=0.82,0.86",
    ]
    .map(String::from);
    let moe = Sweep::new(&moe_file, &moe_sets, &[]).expect("bundled scenario");
    assert_eq!(moe.len(), 16);
    g.bench_function("deepseek_r1_sglang_h200_16_points_2_threads", |b| {
        b.iter(|| moe.run(None, 2, &|| ()).expect("sweep"))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
