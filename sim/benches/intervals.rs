//! Issue #19 point 6: the cost of `tpsim run` with prediction intervals — the prediction, its report
//! and the 2 reruns per fitted parameter (one parameter here: kernel_overhead of the bundled
//! throughput profile) — against the prediction alone. A what-if must stay well under a second.

use criterion::{Criterion, criterion_group, criterion_main};
use std::path::PathBuf;
use std::time::Duration as WallDuration;

fn bench(c: &mut Criterion) {
    let file = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../scenarios/examples/minimax-m2.5-fp8-tp4-fitted-profile.toml");
    let s = tpsim::scenario::load(&file).expect("bundled scenario");
    let mut g = c.benchmark_group("intervals");
    g.sample_size(10).measurement_time(WallDuration::from_secs(5));
    g.bench_function("run_without_intervals", |b| {
        b.iter(|| {
            let p = tpsim::decode::predict(&s).expect("predict");
            tpsim::report::build(&s, &p)
        })
    });
    g.bench_function("run_with_intervals", |b| {
        b.iter(|| {
            let p = tpsim::decode::predict(&s).expect("predict");
            let mut r = tpsim::report::build(&s, &p);
            tpsim::intervals::attach(&s, &mut r).expect("intervals");
            r
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
