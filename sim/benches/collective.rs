//! Benchmark of one collective as `tpsim run` and `tpsim collective` simulate it: NCCL's choice for
//! 56 KB (a 4-token verify allreduce of Kimi-K2.5, 4 × 7168 × 2 B) executed step by step on the flow
//! network of an 8× RTX PRO 6000 switch box with P2P (issue #3: well under 50 µs of wall time).

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use std::time::Duration as WallDuration;
use tpsim::comm::{Comm, Request};
use tpsim::scenario::{hardware_from_preset, nccl_env_from_args};

fn bench(c: &mut Criterion) {
    let hw = hardware_from_preset("rtx-pro-6000-8x-2switch-trpro").expect("bundled preset");
    let env = nccl_env_from_args(&["NCCL_P2P_LEVEL=SYS".to_string()]).expect("valid env");
    let comm = Comm::new(&hw, 8, &env);
    let mut g = c.benchmark_group("collective");
    g.sample_size(30).measurement_time(WallDuration::from_secs(3));
    g.bench_function("ring_allreduce_56KB_8gpu", |b| {
        b.iter(|| comm.simulate(black_box(57_344), Request::Nccl))
    });
    let seed = hardware_from_preset("rtx-pro-6000-8x-dual-turin-direct").expect("bundled preset");
    let shm = Comm::new(&seed, 8, &Default::default());
    g.bench_function("seed_shm_allreduce_56KB_8gpu", |b| {
        b.iter(|| shm.simulate(black_box(57_344), Request::Nccl))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
