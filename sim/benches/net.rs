//! Benchmarks of the flow-level network (DESIGN.md §2.6: collectives run as flows thousands of
//! times per sweep, so one collective must cost microseconds).
//!
//! - `net/ring_allreduce_56KB_8gpu`: 8 GPUs, each with an uplink and a downlink at 53.6 GB/s
//!   (Gen5 x16 measured P2P, reference/pcie-collectives.md). Ring allreduce of 56 KB over 2 channels
//!   (channel 0 sends to the next rank, channel 1 to the previous): 2(n − 1) = 14 steps of 16 flows
//!   of 56 KB / 16 = 3,584 B each, path = sender's uplink + receiver's downlink, 0.7 µs latency.
//!   The flow of rank r on channel c at step s + 1 starts when r has received its step-s chunk on
//!   channel c: each completion, returned by `next_completion`, adds the next step's flow.
//! - `net/alltoall_56flows`: the same 8 GPUs behind 2 switches, each with a collapse port; every GPU
//!   writes 56 KB to each of the 7 others at once (56 flows, one-shot push). Flows leaving a switch
//!   cross its port and are tagged with the destination's root (GPU pairs share a root), so the
//!   collapse rule is exercised.

use std::hint::black_box;
use std::time::Duration as WallDuration;

use criterion::{Criterion, criterion_group, criterion_main};
use tpsim::net::{CollapseGroup, CollapseTag, FlowKind, FlowSim, FlowSpec, LinkId, Network};
use tpsim_model::units::{Bandwidth, Duration};

const GPUS: u32 = 8;
const CHANNELS: u32 = 2;
const MSG: u64 = 56 * 1024;

struct Box8 {
    net: Network,
    up: Vec<LinkId>,
    down: Vec<LinkId>,
    ports: Vec<LinkId>,
}

fn box8() -> Box8 {
    let bw = Bandwidth::from_gbps(53.6).expect("rate");
    let mut net = Network::new();
    let up: Vec<LinkId> = (0..GPUS)
        .map(|g| net.add_link(format!("gpu{g}.up"), bw))
        .collect();
    let down: Vec<LinkId> = (0..GPUS)
        .map(|g| net.add_link(format!("gpu{g}.down"), bw))
        .collect();
    let mut ports = Vec::new();
    for s in 0..2 {
        let port = net.add_link(format!("sw{s}.port"), Bandwidth::from_gbps(52.5).expect("rate"));
        net.add_collapse_group(CollapseGroup {
            name: format!("sw{s}"),
            port,
            normal_bps: 52.5e9,
            collapsed_bps: 13.5e9,
            min_dest_roots: 2,
            min_sources: 2,
        })
        .expect("group");
        ports.push(port);
    }
    Box8 { net, up, down, ports }
}

/// Runs one ring allreduce on `sim` (reset first); returns the completion time of the last flow.
fn ring(b: &Box8, sim: &mut FlowSim) -> Duration {
    sim.reset();
    let steps = 2 * (GPUS - 1);
    let chunk = MSG / u64::from(GPUS * CHANNELS);
    let latency = Duration::from_ns(700);
    // tag = step × 64 + channel × 8 + sender
    let spec = |step: u32, ch: u32, from: u32, start: Duration| {
        let to = if ch == 0 {
            (from + 1) % GPUS
        } else {
            (from + GPUS - 1) % GPUS
        };
        FlowSpec {
            path: vec![b.up[from as usize], b.down[to as usize]],
            bytes: chunk,
            start,
            kind: FlowKind::Write,
            collapse: None,
            latency,
            tag: u64::from(step * 64 + ch * 8 + from),
        }
    };
    for ch in 0..CHANNELS {
        for r in 0..GPUS {
            sim.add_flow(spec(0, ch, r, Duration::ZERO)).expect("flow");
        }
    }
    let mut last = Duration::ZERO;
    while let Some(c) = sim.next_completion() {
        last = c.time;
        let (step, ch, from) = ((c.tag / 64) as u32, (c.tag / 8 % 8) as u32, (c.tag % 8) as u32);
        if step + 1 < steps {
            let to = if ch == 0 {
                (from + 1) % GPUS
            } else {
                (from + GPUS - 1) % GPUS
            };
            sim.add_flow(spec(step + 1, ch, to, c.time)).expect("flow");
        }
    }
    assert_eq!(sim.completed_count(), (steps * CHANNELS * GPUS) as usize);
    last
}

/// Runs one 56-flow all-to-all push on `sim` (reset first); returns the completion time of the
/// last flow.
fn alltoall(b: &Box8, sim: &mut FlowSim) -> Duration {
    sim.reset();
    let latency = Duration::from_ns(1_200);
    for from in 0..GPUS {
        for to in 0..GPUS {
            if from == to {
                continue;
            }
            let (sw_from, sw_to) = (from / 4, to / 4);
            let mut path = vec![b.up[from as usize]];
            let mut collapse = None;
            if sw_from != sw_to {
                path.push(b.ports[sw_from as usize]);
                collapse = Some(CollapseTag {
                    group: tpsim::net::GroupId(sw_from),
                    source: from,
                    dest_root: to / 2,
                });
            }
            path.push(b.down[to as usize]);
            sim.add_flow(FlowSpec {
                path,
                bytes: MSG,
                start: Duration::ZERO,
                kind: FlowKind::Write,
                collapse,
                latency,
                tag: u64::from(from * 8 + to),
            })
            .expect("flow");
        }
    }
    let mut last = Duration::ZERO;
    while let Some(c) = sim.next_completion() {
        last = c.time;
    }
    last
}

fn bench_net(c: &mut Criterion) {
    let b = box8();
    let mut sim = FlowSim::new(&b.net);
    eprintln!(
        "ring allreduce 56 KB, 8 GPUs: {:.3} µs simulated; all-to-all 56 × 56 KB: {:.3} µs simulated",
        ring(&b, &mut sim).as_us_f64(),
        alltoall(&b, &mut sim).as_us_f64()
    );
    let mut g = c.benchmark_group("net");
    g.sample_size(20)
        .measurement_time(WallDuration::from_secs(2))
        .warm_up_time(WallDuration::from_millis(500));
    // Reusing one simulator (FlowSim::reset), as a sweep would.
    g.bench_function("ring_allreduce_56KB_8gpu", |bch| {
        bch.iter(|| black_box(ring(black_box(&b), &mut sim)))
    });
    g.bench_function("alltoall_56flows", |bch| {
        bch.iter(|| black_box(alltoall(black_box(&b), &mut sim)))
    });
    // A fresh simulator per run (includes growing its buffers).
    g.bench_function("ring_allreduce_56KB_8gpu_fresh", |bch| {
        bch.iter(|| black_box(ring(black_box(&b), &mut FlowSim::new(&b.net))))
    });
    g.finish();
}

criterion_group!(benches, bench_net);
criterion_main!(benches);
