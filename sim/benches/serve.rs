//! Issue #18 point 6: the serving loop at scale — 1,000,000 requests at concurrency 256 and 4,096
//! (sim/benches/serve/*.toml); the target is under 10 s each on one core with a peak RSS under
//! 256 MB (RSS measured with `/usr/bin/time -v`, book/src/serving.md).

use criterion::{Criterion, criterion_group, criterion_main};
use std::path::PathBuf;
use std::time::Duration as WallDuration;

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("serve");
    g.sample_size(10).measurement_time(WallDuration::from_secs(30));
    for name in ["sglang-1m-c256", "sglang-1m-c4096"] {
        let file = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("benches/serve/{name}.toml"));
        let s = tpsim::scenario::load(&file).expect("bench scenario");
        g.bench_function(name, |b| b.iter(|| tpsim::decode::predict(&s).expect("predict")));
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
