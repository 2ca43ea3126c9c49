//! Benchmark of a whole `tpsim run` of the bundled seed scenario (memory plan, EAGLE-3 decode loop of
//! 1,024 output tokens, the no-speculation comparison, every collective simulated on the network):
//! issue #4 asks for well under 200 ms on one core.

use criterion::{Criterion, criterion_group, criterion_main};
use std::path::PathBuf;
use std::time::Duration as WallDuration;

fn bench(c: &mut Criterion) {
    let file = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scenarios/seed/baseline.toml");
    let s = tpsim::scenario::load(&file).expect("bundled scenario");
    let mut g = c.benchmark_group("run");
    g.sample_size(10).measurement_time(WallDuration::from_secs(5));
    g.bench_function("seed_baseline", |b| {
        b.iter(|| {
            let p = tpsim::decode::predict(&s).expect("predict");
            tpsim::report::build(&s, &p)
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
