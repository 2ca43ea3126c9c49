//! Benchmarks of the event core and the task-graph executor (DESIGN.md §2.6: a decode iteration must
//! be cheap enough to simulate thousands of times in a sweep).
//!
//! - `engine/events`: 1 M pop + push pairs through an [`EventQueue`] holding 1,024 pending events,
//!   with pseudo-random times from a seeded ChaCha stream; throughput in events.
//! - `engine/events_bulk`: push 200 k such events, then pop them all (cache-bound worst case).
//! - `exec/decode_like_graph`: one decode pass shaped like a 61-layer MoE model on 8 GPUs — per
//!   layer, 8 attention kernels (one per GPU stream), a gang allreduce over the 8 streams, 8 MoE
//!   kernels, a gang allreduce — ≈ 2,000 tasks through [`exec::run`].
//!
//! Measurement times are short so `cargo bench -p tpsim` stays under a minute on two cores.

use std::hint::black_box;
use std::time::Duration as WallDuration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use rand_chacha::rand_core::Rng;
use tpsim::engine::{EventQueue, RngStreams};
use tpsim::exec::{self, Category, ResourceKind, Resources, Task, TaskGraph, TaskId};
use tpsim_model::units::Duration;

const EVENTS: u64 = 1_000_000;
const PENDING: usize = 1_024;
/// Events pending at once in `engine/events_bulk` (kept below 1 M so the whole bench stays short).
const BULK: usize = 200_000;
const GPUS: u32 = 8;
const LAYERS: u32 = 61;

fn bench_events(c: &mut Criterion) {
    // Random times and delays drawn once, so the bench measures only the queue.
    let mut rng = RngStreams::new(1).stream("bench-events");
    let times: Vec<Duration> = (0..EVENTS)
        .map(|_| Duration::from_ps(rng.next_u64() % 1_000_000_000_000))
        .collect();
    let mut g = c.benchmark_group("engine");
    g.sample_size(10)
        .measurement_time(WallDuration::from_secs(3))
        .warm_up_time(WallDuration::from_secs(1));
    g.throughput(Throughput::Elements(EVENTS));
    // The shape of a simulation: a small pending set (here 1,024 events, more than the executor ever
    // holds) where each popped event schedules one more at a random delay.
    g.bench_function("events", |b| {
        b.iter(|| {
            let mut q = EventQueue::with_capacity(PENDING);
            for (i, t) in times.iter().take(PENDING).enumerate() {
                q.push(Duration::from_ps(t.as_ps() % 1_000_000), i as u32);
            }
            let mut acc = 0u64;
            for t in &times {
                if let Some((now, e)) = q.pop() {
                    acc = acc.wrapping_add(now.as_ps() ^ u64::from(e));
                    q.push(now + Duration::from_ps(t.as_ps() % 1_000_000), e);
                }
            }
            black_box(acc)
        })
    });
    // Worst case: 200 k events pending at once. The heap (24 B per event) outgrows the caches, so this
    // is memory-bound (several times slower per event than `events`); kept to watch for regressions.
    g.throughput(Throughput::Elements(BULK as u64));
    g.bench_function("events_bulk", |b| {
        b.iter(|| {
            let mut q = EventQueue::with_capacity(BULK);
            for (i, &t) in times.iter().take(BULK).enumerate() {
                q.push(t, i as u32);
            }
            let mut acc = 0u64;
            while let Some((t, e)) = q.pop() {
                acc = acc.wrapping_add(t.as_ps() ^ u64::from(e));
            }
            black_box(acc)
        })
    });
    g.finish();
}

/// Builds the decode-like graph: returns the graph, its resources and the number of tasks.
fn decode_like_graph() -> (TaskGraph, Resources) {
    let mut res = Resources::new();
    let streams: Vec<_> = (0..GPUS)
        .map(|gpu| res.add(ResourceKind::GpuStream { gpu, stream: 0 }, "compute".to_string()))
        .collect();
    let mut g = TaskGraph::new();
    // Kernel costs vary a little per GPU so the allreduces genuinely wait for the slowest rank.
    let kernel = |base_ns: u64, gpu: u32, layer: u32| {
        Duration::from_ns(base_ns + u64::from((gpu * 7 + layer) % 5) * 100)
    };
    let mut prev: Vec<TaskId> = Vec::new();
    for layer in 0..LAYERS {
        for (base, coll) in [(9_000u64, "attn"), (14_000, "moe")] {
            let ks: Vec<TaskId> = streams
                .iter()
                .zip(0..)
                .map(|(&s, gpu)| {
                    let t = Task::new(
                        format!("L{layer}.{coll}"),
                        Category::Compute,
                        kernel(base, gpu, layer),
                    )
                    .on([s])
                    .after(prev.iter().copied());
                    g.add(t).expect("deps are earlier tasks")
                })
                .collect();
            let ar = Task::new(
                format!("L{layer}.{coll}.allreduce"),
                Category::Collective,
                Duration::from_us(20),
            )
            .on(streams.iter().copied())
            .after(ks);
            prev = vec![g.add(ar).expect("deps are earlier tasks")];
        }
    }
    (g, res)
}

fn bench_exec(c: &mut Criterion) {
    let (graph, res) = decode_like_graph();
    let mut g = c.benchmark_group("exec");
    g.sample_size(20)
        .measurement_time(WallDuration::from_secs(3))
        .warm_up_time(WallDuration::from_secs(1));
    g.throughput(Throughput::Elements(graph.len() as u64));
    g.bench_function("decode_like_graph", |b| {
        b.iter(|| black_box(exec::run(black_box(&graph), &res).expect("valid graph").makespan))
    });
    g.finish();
}

criterion_group!(benches, bench_events, bench_exec);
criterion_main!(benches);
