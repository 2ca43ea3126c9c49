//! Benchmark of `tpsim sweep` over the bundled seed scenario: 16 points (concurrency 1, 2, 4, 8 ×
//! allreduce nccl/custom × acceptance α 0.7/0.9), on one thread and on two. Issue #8 asks for a
//! 1,000-point sweep "in seconds" on two cores; ms per point here × 1,000 ÷ 2 is that figure.
//! Collective outcomes are cached for the whole process (`comm`), so iterations after the first
//! measure a sweep's steady state, with every collective already simulated.

use criterion::{Criterion, criterion_group, criterion_main};
use std::path::PathBuf;
use std::time::Duration as WallDuration;
use tpsim::sweep::Sweep;

fn bench(c: &mut Criterion) {
    let file = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scenarios/seed/baseline.toml");
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
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
