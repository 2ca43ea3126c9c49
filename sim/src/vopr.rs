//! Seeded randomized tests of the engine, in the habit of TigerBeetle's VOPR: every seed builds a
//! random world (a random network or PCIe tree with random capacities and latencies, random flows
//! and follow-up chains, random collectives, random task graphs), runs it with the engine's own
//! invariants armed (they run in every build) and checks end-to-end properties that can be stated
//! exactly: every flow completes once; rates are positive, respect every link's capacity and are
//! max-min fair; bytes are conserved on every link; a flow alone (or k identical flows) finishes at
//! `start + ⌈k × bytes ÷ bottleneck⌉ + latency` to the rounding `net` documents; a task never starts
//! before its dependencies end or its `not_before`, resources never overlap, each resource serves
//! in key order without idling; and the same seed gives the identical result twice.
//!
//! Run: `cargo test -p tpsim --lib vopr` (seeds `0..DEFAULT_SEEDS` per test). On failure the panic
//! names the seed; `TPSIM_VOPR_SEED=<n>` runs only seed `n`, `TPSIM_VOPR_SEEDS=<count>` runs seeds
//! `0..count` (e.g. 10 000 in a release build: `cargo test --release -p tpsim --lib vopr`).
//!
//! All randomness is a ChaCha8 stream per (seed, test) from [`RngStreams`]; nothing depends on the
//! wall clock or on hash order.

use std::panic::{AssertUnwindSafe, catch_unwind};

use rand::RngExt;
use rand_chacha::ChaCha8Rng;
use tpsim_model::hw::GpuSpec;
use tpsim_model::nccl::{Algo, Proto};
use tpsim_model::topo::{NodeAttrs, Topology};
use tpsim_model::units::{Bandwidth, Bytes, Duration, PS_PER_S};

use crate::allreduce::{self, CustomAlgo, NcclPlan};
use crate::engine::RngStreams;
use crate::exec::{self, Category, ResourceId, ResourceKind, Resources, Schedule, Task, TaskGraph, TaskId};
use crate::fabric::Fabric;
use crate::net::{
    CollapseGroup, CollapseTag, Completion, FlowId, FlowKind, FlowSim, FlowSpec, GroupId, LinkId, LinkStats,
    Network,
};
use crate::scenario::HwParams;

/// Seeds per test when no environment variable is set: enough to cover every topology shape
/// several times, small enough for a debug build on two cores (see the architecture chapter).
const DEFAULT_SEEDS: u64 = 200;

/// The seeds to run: `TPSIM_VOPR_SEED=<n>` alone, else `0..TPSIM_VOPR_SEEDS`, else
/// `0..DEFAULT_SEEDS`.
fn seeds() -> std::ops::Range<u64> {
    let var = |name: &str| {
        std::env::var(name).ok().map(|v| {
            v.trim()
                .parse::<u64>()
                .unwrap_or_else(|_| panic!("{name}={v:?}: expected a non-negative integer"))
        })
    };
    if let Some(s) = var("TPSIM_VOPR_SEED") {
        return s..s.saturating_add(1);
    }
    0..var("TPSIM_VOPR_SEEDS").unwrap_or(DEFAULT_SEEDS)
}

/// Runs `check(seed, rng)` for every seed; a failure is re-raised naming the seed and how to rerun
/// just that seed.
fn for_each_seed(test: &str, check: impl Fn(u64, &mut ChaCha8Rng)) {
    for seed in seeds() {
        let mut rng = RngStreams::new(seed).stream(&format!("vopr/{test}"));
        if let Err(e) = catch_unwind(AssertUnwindSafe(|| check(seed, &mut rng))) {
            let msg = e
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| e.downcast_ref::<&str>().copied())
                .unwrap_or("(non-string panic)");
            panic!(
                "VOPR {test}: seed {seed} failed: {msg}\n  rerun just this seed: \
                 TPSIM_VOPR_SEED={seed} cargo test -p tpsim --lib vopr::{test}"
            );
        }
    }
}

/// A roughly log-uniform integer in `[lo, hi]` (capacities and sizes spanning decades): a uniform
/// power of two, then uniform within it. Integer only, so a seed draws the same world on every
/// machine (no libm).
fn log_uniform(rng: &mut ChaCha8Rng, lo: u64, hi: u64) -> u64 {
    let (a, b) = (lo.max(1).ilog2(), hi.ilog2());
    let e = rng.random_range(a..=b);
    let base = 1u64 << e;
    let top = base.saturating_mul(2).saturating_sub(1);
    rng.random_range(base.max(lo)..=top.min(hi).max(base.max(lo)))
}

fn bw(bps: u64) -> Bandwidth {
    Bandwidth::from_bytes_per_s(bps).expect("test capacities are > 0")
}

fn ps(rng: &mut ChaCha8Rng, max: u64) -> Duration {
    Duration::from_ps(rng.random_range(0..=max))
}

// ---------------------------------------------------------------------------------------------
// The flow network
// ---------------------------------------------------------------------------------------------

/// A flow of a random run: at `spec.start` (`after == None`), or `delay` after flow `after`'s
/// completion (a chain: a ring step's end starts the next).
#[derive(Debug, Clone)]
struct Job {
    spec: FlowSpec,
    after: Option<usize>,
    delay: Duration,
}

/// Everything observable of one run, compared between two runs of the same seed.
#[derive(Debug, Clone, PartialEq)]
struct NetRun {
    completions: Vec<Completion>,
    /// Per job: when it was started (its spec's start, or its parent's completion + delay).
    starts: Vec<Duration>,
    stats: Vec<LinkStats>,
    collapsed: Vec<Duration>,
    end: Duration,
    bottleneck: Option<LinkId>,
}

/// The capacity a flow can get on `l` at best: a collapse port's normal rate (collapse only
/// lowers it), any other link's capacity.
fn best_capacity(net: &Network, l: LinkId) -> f64 {
    net.link(l).capacity_bps
}

/// Whether `l` is the port of a collapse group (its capacity varies with the group's state).
fn group_of_port(net: &Network, l: LinkId) -> Option<(GroupId, &CollapseGroup)> {
    net.groups()
        .iter()
        .enumerate()
        .find(|(_, g)| g.port == l)
        .map(|(i, g)| (GroupId(i as u32), g))
}

/// Checks the state the simulator exposes after a completion: positive finite rates, the capacity
/// of every link, max-min fairness (every transmitting flow has a saturated link on which no flow
/// is faster), and each collapse group's state recomputed from the transmitting tagged writes.
/// `specs[f]` is the spec of flow id `f`.
fn check_rates(net: &Network, sim: &FlowSim<'_>, specs: &[&FlowSpec]) {
    let nl = net.links().len();
    let mut load = vec![0.0f64; nl];
    let mut fastest = vec![0.0f64; nl];
    let mut active = Vec::new();
    for (f, spec) in specs.iter().enumerate() {
        let Some(r) = sim.rate(FlowId(f as u32)) else {
            continue;
        };
        let path = &spec.path;
        assert!(
            r.is_finite() && r > 0.0,
            "flow {f}: rate {r} is not a positive rate"
        );
        for l in path {
            load[l.0 as usize] += r;
            fastest[l.0 as usize] = fastest[l.0 as usize].max(r);
        }
        active.push((f, r));
    }
    for (l, &x) in load.iter().enumerate() {
        let cap = sim.capacity(LinkId(l as u32));
        assert!(
            x <= cap * (1.0 + 1e-9),
            "link {} carries {x} B/s > capacity {cap} B/s",
            net.links()[l].name
        );
    }
    for &(f, r) in &active {
        let bottlenecked = specs[f].path.iter().any(|l| {
            let i = l.0 as usize;
            load[i] >= sim.capacity(*l) * (1.0 - 1e-9) && r >= fastest[i] * (1.0 - 1e-9)
        });
        assert!(
            bottlenecked,
            "flow {f} at {r} B/s has no saturated link on which it is the fastest: not max-min fair"
        );
    }
    for (g, grp) in net.groups().iter().enumerate() {
        let mut roots = Vec::new();
        let mut sources = Vec::new();
        for &(f, _) in &active {
            if let (FlowKind::Write, Some(t)) = (specs[f].kind, specs[f].collapse)
                && t.group.0 as usize == g
            {
                if !roots.contains(&t.dest_root) {
                    roots.push(t.dest_root);
                }
                if !sources.contains(&t.source) {
                    sources.push(t.source);
                }
            }
        }
        let want = roots.len() >= grp.min_dest_roots as usize && sources.len() >= grp.min_sources as usize;
        assert_eq!(
            sim.is_collapsed(GroupId(g as u32)),
            want,
            "group {}: collapse state with roots {roots:?}, sources {sources:?}",
            grp.name
        );
        let cap = sim.capacity(grp.port);
        let expect = if want { grp.collapsed_bps } else { grp.normal_bps };
        assert!(
            cap.to_bits() == expect.to_bits(),
            "group {}: port capacity {cap}, expected {expect}",
            grp.name
        );
    }
}

/// Runs `jobs` on a fresh simulator (or `sim` after a reset), checking the rate invariants after
/// every completion and the end-to-end properties at the end.
fn drive(net: &Network, sim: &mut FlowSim<'_>, jobs: &[Job]) -> NetRun {
    sim.reset();
    let n = jobs.len();
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut starts = vec![Duration::ZERO; n];
    // Per flow id (order of add_flow): its job and spec, for the state checks.
    let mut job_of: Vec<usize> = Vec::with_capacity(n);
    let mut specs: Vec<&FlowSpec> = Vec::with_capacity(n);
    let add = |sim: &mut FlowSim<'_>, j: usize, start: Duration, job_of: &mut Vec<usize>| {
        let id = sim
            .add_flow_at(&jobs[j].spec, start, j as u64)
            .unwrap_or_else(|e| panic!("job {j}: add_flow rejected a valid flow: {e}"));
        assert_eq!(id.0 as usize, job_of.len(), "flow ids are dense in add order");
        job_of.push(j);
    };
    for (j, job) in jobs.iter().enumerate() {
        match job.after {
            None => {
                starts[j] = job.spec.start;
                add(sim, j, job.spec.start, &mut job_of);
                specs.push(&job.spec);
            }
            Some(p) => children[p].push(j),
        }
    }
    let mut completions = Vec::with_capacity(n);
    let mut last = Duration::ZERO;
    while let Some(c) = sim.next_completion() {
        assert!(
            c.time >= last,
            "completions out of time order: {c:?} after {last:?}"
        );
        assert_eq!(sim.now(), c.time, "the clock is not at the completion");
        last = c.time;
        let j = c.tag as usize;
        assert_eq!(
            job_of[c.flow.0 as usize], j,
            "completion tag does not match its flow"
        );
        check_rates(net, sim, &specs);
        for &k in &children[j] {
            starts[k] = c.time + jobs[k].delay;
            add(sim, k, starts[k], &mut job_of);
            specs.push(&jobs[k].spec);
        }
        completions.push(c);
    }

    // Every flow completed exactly once.
    assert_eq!(completions.len(), n, "not every flow completed");
    assert_eq!(sim.flow_count(), n);
    assert_eq!(sim.completed_count(), n);
    let mut seen = vec![false; n];
    for c in &completions {
        assert!(!seen[c.flow.0 as usize], "flow {:?} completed twice", c.flow);
        seen[c.flow.0 as usize] = true;
    }
    assert_eq!(sim.active_count(), 0);

    // Per flow: a 0-byte flow takes exactly its latency; any other is no faster than its path's
    // narrowest link allows.
    for c in &completions {
        let j = c.tag as usize;
        let s = &jobs[j].spec;
        let earliest = starts[j] + s.latency;
        if s.bytes == 0 {
            assert_eq!(
                c.time, earliest,
                "0-byte job {j} must complete at start + latency"
            );
            continue;
        }
        let narrowest = s
            .path
            .iter()
            .map(|&l| best_capacity(net, l))
            .fold(f64::INFINITY, f64::min);
        let min_ps = (s.bytes as f64 * PS_PER_S as f64 / narrowest) as u64;
        assert!(
            c.time.as_ps() + 1 >= earliest.as_ps() + min_ps,
            "job {j}: {} bytes done at {} ps, faster than its narrowest link allows ({} ps)",
            s.bytes,
            c.time.as_ps(),
            earliest.as_ps() + min_ps
        );
    }

    // Conservation per link: the bytes counted are exactly the bytes of the flows crossing it; its
    // busy time is their bytes at capacity (a collapse port's capacity varies: a lower bound).
    let now = sim.now();
    let nl = net.links().len();
    let mut bytes = vec![0u64; nl];
    let mut crossing = vec![0u64; nl];
    for job in jobs {
        for l in &job.spec.path {
            bytes[l.0 as usize] += job.spec.bytes;
            crossing[l.0 as usize] += 1;
        }
    }
    let stats: Vec<LinkStats> = (0..nl).map(|l| sim.link_stats(LinkId(l as u32))).collect();
    for (l, st) in stats.iter().enumerate() {
        let name = &net.links()[l].name;
        assert_eq!(st.bytes, bytes[l], "link {name}: bytes not conserved");
        assert!(
            st.busy <= now,
            "link {name}: busy {:?} beyond the clock {now:?}",
            st.busy
        );
        assert!(
            (0.0..=1.0).contains(&st.utilisation),
            "link {name}: utilisation {}",
            st.utilisation
        );
        let at_cap = bytes[l] as f64 * PS_PER_S as f64 / best_capacity(net, LinkId(l as u32));
        let slack = 1e-6 * at_cap + crossing[l] as f64 + 2.0;
        let busy = st.busy.as_ps() as f64;
        if group_of_port(net, LinkId(l as u32)).is_some() {
            assert!(
                busy >= at_cap - slack,
                "port {name}: busy {busy} ps < {at_cap} ps at full rate"
            );
        } else {
            assert!(
                (busy - at_cap).abs() <= slack,
                "link {name}: busy {busy} ps, its bytes at capacity take {at_cap} ps"
            );
        }
    }
    let bottleneck = sim.bottleneck();
    if let Some(b) = bottleneck {
        let top = stats[b.0 as usize].busy;
        assert!(
            stats.iter().all(|s| s.busy <= top),
            "bottleneck {b:?} is not the busiest link"
        );
    } else {
        assert!(stats.iter().all(|s| s.busy == Duration::ZERO));
    }
    let collapsed: Vec<Duration> = (0..net.groups().len())
        .map(|g| sim.collapsed_time(GroupId(g as u32)))
        .collect();
    assert!(
        collapsed.iter().all(|&t| t <= now),
        "a group collapsed longer than the run"
    );
    NetRun {
        completions,
        starts,
        stats,
        collapsed,
        end: now,
        bottleneck,
    }
}

/// The drain time of `k` identical flows of `bytes` sharing a bottleneck of integer capacity
/// `cap` alone, as `net` rounds it: `⌈k × bytes × 10¹² ÷ cap⌉` ps, except that a fraction below
/// 10⁻³ ps is dropped. Returns the accepted values: one, or both neighbours when the exact fraction
/// is so close to the 10⁻³ threshold that float noise may decide.
fn expected_drain(bytes: u64, k: u64, cap: u64) -> Vec<u64> {
    let num = u128::from(bytes) * u128::from(k) * u128::from(PS_PER_S);
    let cap = u128::from(cap);
    let (q, rem) = ((num / cap) as u64, num % cap);
    if rem == 0 || rem * 1000 < cap * 9 / 10 {
        vec![q]
    } else if rem * 1000 > cap * 11 / 10 {
        vec![q + 1]
    } else {
        vec![q, q + 1]
    }
}

/// The capacity a lone group of identical flows sees on `l`: a port is collapsed when a single
/// source writing to a single root meets the group's thresholds.
fn lone_capacity(net: &Network, l: LinkId, spec: &FlowSpec) -> f64 {
    if let Some((gid, g)) = group_of_port(net, l) {
        let tagged = spec.kind == FlowKind::Write && spec.collapse.is_some_and(|t| t.group == gid);
        if tagged && g.min_dest_roots <= 1 && g.min_sources <= 1 {
            return g.collapsed_bps;
        }
        return g.normal_bps;
    }
    net.link(l).capacity_bps
}

/// `k` copies of `spec` alone on `sim`: all complete at the closed-form time.
fn check_lone(net: &Network, sim: &mut FlowSim<'_>, spec: &FlowSpec, k: u64) {
    let jobs: Vec<Job> = (0..k)
        .map(|_| Job {
            spec: spec.clone(),
            after: None,
            delay: Duration::ZERO,
        })
        .collect();
    let run = drive(net, sim, &jobs);
    let base = spec.start.as_ps() + spec.latency.as_ps();
    let accepted: Vec<u64> = if spec.bytes == 0 {
        vec![base]
    } else {
        let cap = spec
            .path
            .iter()
            .map(|&l| lone_capacity(net, l, spec))
            .fold(f64::INFINITY, f64::min);
        if cap.fract() <= 0.0 && cap < 2f64.powi(53) {
            expected_drain(spec.bytes, k, cap as u64)
                .into_iter()
                .map(|d| base + d)
                .collect()
        } else {
            // A non-integer capacity (a collapsed port at a fractional factor): ±1 ps.
            let d = spec.bytes as f64 * k as f64 * PS_PER_S as f64 / cap;
            let d = d as u64;
            vec![base + d - 1.min(d), base + d, base + d + 1]
        }
    };
    for c in &run.completions {
        assert!(
            accepted.contains(&c.time.as_ps()),
            "{k} × {} bytes alone over {:?} from {} ps (+{} ps latency): done at {} ps, expected one of {accepted:?}",
            spec.bytes,
            spec.path,
            spec.start.as_ps(),
            spec.latency.as_ps(),
            c.time.as_ps()
        );
    }
}

/// A random network: 1–12 links with capacities from 100 MB/s to 1 TB/s, 0–3 collapse groups on
/// distinct links.
fn random_network(rng: &mut ChaCha8Rng) -> Network {
    let mut net = Network::new();
    let nl = rng.random_range(1..=12usize);
    for i in 0..nl {
        let cap = log_uniform(rng, 100_000_000, 1_000_000_000_000);
        net.add_link(format!("l{i}"), bw(cap));
    }
    let ng = rng.random_range(0..=3usize).min(nl);
    let mut ports: Vec<u32> = (0..nl as u32).collect();
    for g in 0..ng {
        let port = ports.swap_remove(rng.random_range(0..ports.len()));
        let normal = log_uniform(rng, 1_000_000_000, 100_000_000_000);
        let collapsed = rng.random_range(1..=normal);
        net.add_collapse_group(CollapseGroup {
            name: format!("g{g}"),
            port: LinkId(port),
            normal_bps: normal as f64,
            collapsed_bps: collapsed as f64,
            min_dest_roots: rng.random_range(1..=3),
            min_sources: rng.random_range(1..=3),
        })
        .expect("a valid group");
    }
    net
}

/// A random flow over `net`: 1–4 distinct links (or none for a 0-byte flow), a size from 1 B to
/// 4 MB (1 in 10 empty), a start within 200 µs, a latency up to 5 µs, read or write, tagged with a
/// collapse group (a tagged write crosses its port) half the time.
fn random_flow(rng: &mut ChaCha8Rng, net: &Network) -> FlowSpec {
    let nl = net.links().len() as u32;
    let bytes = if rng.random_bool(0.1) {
        0
    } else {
        log_uniform(rng, 1, 4_000_000)
    };
    let mut path: Vec<LinkId> = Vec::new();
    if bytes > 0 || rng.random_bool(0.5) {
        let len = rng.random_range(1..=4u32.min(nl));
        while path.len() < len as usize {
            let l = LinkId(rng.random_range(0..nl));
            if !path.contains(&l) {
                path.push(l);
            }
        }
    }
    let kind = if rng.random_bool(0.5) {
        FlowKind::Write
    } else {
        FlowKind::Read
    };
    let mut collapse = None;
    if !net.groups().is_empty() && rng.random_bool(0.5) {
        let g = rng.random_range(0..net.groups().len());
        let port = net.groups()[g].port;
        if kind == FlowKind::Write && !path.contains(&port) {
            let at = rng.random_range(0..=path.len());
            path.insert(at, port);
        }
        collapse = Some(CollapseTag {
            group: GroupId(g as u32),
            source: rng.random_range(0..4),
            dest_root: rng.random_range(0..3),
        });
    }
    FlowSpec {
        path,
        bytes,
        start: ps(rng, 200_000_000),
        kind,
        collapse,
        latency: ps(rng, 5_000_000),
        tag: 0,
    }
}

/// 1–40 flows, each a root (at its own start) or, one time in three, a follow-up of an earlier flow
/// (started up to 3 µs after its completion).
fn random_jobs(rng: &mut ChaCha8Rng, mut flow: impl FnMut(&mut ChaCha8Rng) -> FlowSpec) -> Vec<Job> {
    let n = rng.random_range(1..=40usize);
    (0..n)
        .map(|j| {
            let after = (j > 0 && rng.random_bool(1.0 / 3.0)).then(|| rng.random_range(0..j));
            Job {
                spec: flow(rng),
                after,
                delay: if rng.random_bool(0.5) {
                    Duration::ZERO
                } else {
                    ps(rng, 3_000_000)
                },
            }
        })
        .collect()
}

/// One seed of the network test: the run of random jobs (twice: identical), then lone flows.
fn net_seed(rng: &mut ChaCha8Rng) -> NetRun {
    let net = random_network(rng);
    let jobs = random_jobs(rng, |rng| random_flow(rng, &net));
    let mut sim = FlowSim::new(&net);
    let first = drive(&net, &mut sim, &jobs);
    // The same jobs on a fresh simulator and on the reused one (after `reset`): identical.
    let mut fresh = FlowSim::new(&net);
    assert_eq!(
        drive(&net, &mut fresh, &jobs),
        first,
        "a fresh simulator disagrees"
    );
    assert_eq!(drive(&net, &mut sim, &jobs), first, "a reset simulator disagrees");
    for _ in 0..4 {
        let spec = random_flow(rng, &net);
        let k = rng.random_range(1..=4);
        check_lone(&net, &mut sim, &spec, k);
    }
    first
}

#[test]
fn net() {
    for_each_seed("net", |seed, rng| {
        let a = net_seed(rng);
        let mut again = RngStreams::new(seed).stream("vopr/net");
        assert_eq!(net_seed(&mut again), a, "same seed, different run");
    });
}

// ---------------------------------------------------------------------------------------------
// Random PCIe boxes: the fabric's flows and the collectives
// ---------------------------------------------------------------------------------------------

/// A random PCIe tree: 1–2 sockets, optional root complexes, root ports (sometimes none: a GPU
/// under its socket or root complex), 0–2 levels of switches with random generation, width and
/// ACS, 2–8 GPUs; random link parameters; NVLink one time in eight.
fn random_box(rng: &mut ChaCha8Rng) -> (Topology, GpuSpec, HwParams) {
    let gpus = rng.random_range(2..=8usize);
    let sockets = rng.random_range(1..=2u32);
    let mut paths = Vec::with_capacity(gpus);
    let mut attrs = std::collections::BTreeMap::new();
    for _ in 0..gpus {
        let s = rng.random_range(0..sockets);
        let mut segs = vec![format!("socket{s}")];
        let mut id = format!("{s}");
        if rng.random_bool(0.5) {
            id += &format!("x{}", rng.random_range(0..2));
            segs.push(format!("rc{id}"));
        }
        if rng.random_bool(0.9) {
            id += &format!("y{}", rng.random_range(0..3));
            segs.push(format!("root{id}"));
        }
        for _ in 0..rng.random_range(0..=2) {
            id += &format!("z{}", rng.random_range(0..2));
            let name = format!("switch{id}");
            attrs.entry(name.clone()).or_insert_with(|| NodeAttrs {
                pcie_gen: rng.random_bool(0.5).then(|| rng.random_range(3..=5)),
                width: rng.random_bool(0.5).then(|| [4, 8, 16][rng.random_range(0..3)]),
                acs: Some(rng.random_bool(0.3)),
            });
            segs.push(name);
        }
        paths.push(segs.join("/"));
    }
    let topology = Topology::new(&paths, &attrs).expect("generated paths are valid");
    let nvlink = rng.random_bool(0.125);
    let gpu = GpuSpec {
        name: "vopr".into(),
        memory_total_mib: 98_304,
        memory_bandwidth: bw(1_800_000_000_000),
        bf16_tflops: 500.0,
        fp8_tflops: None,
        fp4_tflops: None,
        fp32_tflops: None,
        sm_count: 188,
        compute_capability: "12.0".into(),
        pcie_gen: rng.random_range(3..=5),
        pcie_width: [4, 8, 16][rng.random_range(0..3)],
        p2p: rng.random_bool(0.8),
        nvlink,
        torch_total_gib: None,
        device_name: None,
        dram_latency_ns: None,
    };
    let gbs =
        |rng: &mut ChaCha8Rng, lo: u64, hi: u64| bw(log_uniform(rng, lo * 1_000_000_000, hi * 1_000_000_000));
    let params = HwParams {
        context_overhead: Bytes(1 << 30),
        mem_efficiency: 0.8,
        flops_efficiency: 0.6,
        kernel_overhead: Duration::from_ns(2_000),
        pcie_gen5_x16_bw: gbs(rng, 20, 64),
        pcie_gen4_x16_bw: gbs(rng, 10, 32),
        // Not drawn: the draws after it keep their sequence (Gen3 links take half of Gen4).
        pcie_gen3_x16_bw: None,
        pcie_hop_latency: ps(rng, 1_000_000),
        root_complex_latency: ps(rng, 2_000_000),
        root_complex_bw: gbs(rng, 10, 200),
        inter_socket_bw: gbs(rng, 10, 200),
        inter_socket_latency: ps(rng, 2_000_000),
        host_memory_bw: gbs(rng, 20, 400),
        shm_copy_bw: gbs(rng, 2, 50),
        nccl_channel_bw: gbs(rng, 5, 50),
        nccl_simple_step_latency: ps(rng, 6_000_000),
        shm_step_cost: ps(rng, 10_000_000),
        shm_cross_socket_step_cost: ps(rng, 10_000_000),
        collapse_min_roots: rng.random_range(1..=3),
        collapse_min_sources: rng.random_range(1..=4),
        collapse_factor: rng.random_range(0.05..=1.0),
        collapse_reads: rng.random_bool(0.3),
        staged_peer_read_factor: rng.random_range(1.0..=8.0),
        staged_latency: ps(rng, 20_000_000),
        force_p2p: rng.random_bool(0.3),
        nvlink_bw: nvlink.then(|| gbs(rng, 50, 450)),
        nvlink_latency: nvlink.then(|| ps(rng, 1_000_000)),
        nccl_eager_launch: ps(rng, 10_000_000),
        // Issue #19 point 1: no `[host]` in these boxes; no draw, so the streams stay as they were.
        shm_read_efficiency: None,
        kernel_read_outstanding: rng
            .random_bool(0.5)
            .then(|| tpsim_model::units::Bytes(rng.random_range(4_096..=1_048_576))),
    };
    (topology, gpu, params)
}

/// A random transfer between two distinct GPUs of the box, as the collectives build them: a write
/// or read (`Fabric::flow`), a kernel peer load (`peer_read`) or an SHM copy (`shm_flow`).
fn random_box_flow(rng: &mut ChaCha8Rng, fab: &Fabric) -> FlowSpec {
    let g = fab.topology.gpu_count();
    let a = rng.random_range(0..g);
    let b = (a + rng.random_range(1..g)) % g;
    let bytes = if rng.random_bool(0.1) {
        0
    } else {
        log_uniform(rng, 1, 4_000_000)
    };
    let start = ps(rng, 200_000_000);
    match rng.random_range(0..4) {
        0 => fab.flow(a, b, bytes, start, FlowKind::Write, 0),
        1 => fab.flow(a, b, bytes, start, FlowKind::Read, 0),
        2 => fab.peer_read(a, b, bytes, start, 0),
        _ => fab.shm_flow(a, b, bytes, start, 0),
    }
}

/// Structural facts of the fabric: every GPU pair has a non-empty path of distinct links whose
/// latency the builders use.
fn check_fabric(fab: &Fabric) {
    let g = fab.topology.gpu_count();
    for a in 0..g {
        for b in 0..g {
            let p = fab.path(a, b);
            if a == b {
                continue;
            }
            assert!(!p.links.is_empty(), "GPU{a} → GPU{b}: empty path");
            for (i, l) in p.links.iter().enumerate() {
                assert!(!p.links[..i].contains(l), "GPU{a} → GPU{b}: link {l:?} twice");
            }
            let f = fab.flow(a, b, 1, Duration::ZERO, FlowKind::Write, 0);
            assert_eq!(
                f.latency, p.latency,
                "GPU{a} → GPU{b}: flow latency is not the path's"
            );
        }
    }
}

#[test]
fn fabric() {
    for_each_seed("fabric", |seed, rng| {
        let (topology, gpu, params) = random_box(rng);
        let fab = Fabric::build(&topology, &gpu, &params);
        check_fabric(&fab);
        let jobs = random_jobs(rng, |rng| random_box_flow(rng, &fab));
        let mut sim = FlowSim::new(&fab.net);
        let a = drive(&fab.net, &mut sim, &jobs);
        // Same seed, rebuilt from scratch: the same box and the same run.
        let mut again = RngStreams::new(seed).stream("vopr/fabric");
        let (t2, g2, p2) = random_box(&mut again);
        let fab2 = Fabric::build(&t2, &g2, &p2);
        let jobs2 = random_jobs(&mut again, |rng| random_box_flow(rng, &fab2));
        assert_eq!(
            drive(&fab2.net, &mut FlowSim::new(&fab2.net), &jobs2),
            a,
            "same seed, different run"
        );
        for _ in 0..4 {
            let spec = random_box_flow(rng, &fab);
            let k = rng.random_range(1..=3);
            check_lone(&fab.net, &mut sim, &spec, k);
        }
    });
}

/// Runs every custom algorithm and a random NCCL plan on a random box and group; checks that every
/// send completed, the records' times, a lower bound from the bytes into each rank, and that a
/// second run is identical.
#[test]
fn collectives() {
    for_each_seed("collectives", |_seed, rng| {
        let (topology, gpu, params) = random_box(rng);
        let mut fab = Fabric::build(&topology, &gpu, &params);
        let g = topology.gpu_count();
        let mut ranks: Vec<usize> = (0..g).collect();
        for i in (1..g).rev() {
            ranks.swap(i, rng.random_range(0..=i));
        }
        ranks.truncate(rng.random_range(2..=g));
        let n = ranks.len() as u64;
        let bytes = log_uniform(rng, 1, 1 << 20);
        let channels = rng.random_range(1..=4u32);
        let conn_links = if rng.random_bool(0.5) {
            fab.add_nccl_connections(&ranks, channels)
        } else {
            Vec::new()
        };
        let (proto, efficiency) = [
            (Proto::Ll, 0.5),
            (Proto::Ll128, 120.0 / 128.0),
            (Proto::Simple, 1.0),
        ][rng.random_range(0..3)];
        let plan = NcclPlan {
            algo: if rng.random_bool(0.5) {
                Algo::Ring
            } else {
                Algo::Tree
            },
            proto,
            channels,
            base_latency: ps(rng, 10_000_000),
            step_latency: ps(rng, 6_000_000),
            shm_step_latency: ps(rng, 6_000_000),
            efficiency,
            slot_bytes: log_uniform(rng, 16 << 10, 1 << 20),
            shm_hops: (0..ranks.len()).map(|_| rng.random_bool(0.3)).collect(),
            conn_links,
        };
        let launch = ps(rng, 10_000_000);
        let check = |o: &allreduce::Outcome, start: Duration| {
            assert_eq!(
                o.flows,
                o.timeline.len(),
                "{}: a send never completed",
                o.algorithm
            );
            for r in o.timeline.iter() {
                assert!(
                    r.start >= start && r.end >= r.start,
                    "{}: record {r:?}",
                    o.algorithm
                );
                assert!(
                    o.time >= r.end,
                    "{}: ends at {:?} before a send {r:?}",
                    o.algorithm,
                    o.time
                );
            }
            assert!(o.time >= start);
        };
        for algo in [
            CustomAlgo::OneShot,
            CustomAlgo::PcieOneShot,
            CustomAlgo::TwoShot,
            CustomAlgo::Push,
            CustomAlgo::StagedPush,
        ] {
            let o = allreduce::custom(&fab, &ranks, bytes, algo, launch);
            check(&o, launch);
            assert_eq!(
                allreduce::custom(&fab, &ranks, bytes, algo, launch),
                o,
                "{algo:?} twice"
            );
            // Every byte a rank receives crosses the last link into it: (n − 1) × bytes (two-shot:
            // twice (n − 1) × ⌈bytes / n⌉) at that link's capacity at best.
            let inbound = match algo {
                CustomAlgo::TwoShot => 2 * (n - 1) * bytes.div_ceil(n),
                _ => (n - 1) * bytes,
            };
            for (i, &r) in ranks.iter().enumerate() {
                let from = ranks[(i + 1) % ranks.len()];
                let last = *fab.path(from, r).links.last().expect("a path");
                let min_ps = (inbound as f64 * PS_PER_S as f64 / fab.net.link(last).capacity_bps) as u64;
                assert!(
                    o.time.as_ps() + 1 >= launch.as_ps() + min_ps,
                    "{algo:?}: {} ps for {inbound} bytes into GPU{r}, below {min_ps} ps at capacity",
                    o.time.as_ps()
                );
            }
        }
        let o = allreduce::nccl(&fab, &ranks, bytes, &plan);
        check(&o, plan.base_latency);
        assert_eq!(allreduce::nccl(&fab, &ranks, bytes, &plan), o, "NCCL twice");
        let o = allreduce::nccl_allgather(&fab, &ranks, bytes, &plan);
        check(&o, plan.base_latency);
    });
}

// ---------------------------------------------------------------------------------------------
// The executor
// ---------------------------------------------------------------------------------------------

/// A random task graph: 1–8 resources of every kind, 1–150 tasks on 0–3 distinct resources (gangs),
/// durations up to 50 µs (one in five zero), up to 3 dependencies on earlier tasks, a `not_before`
/// one time in five.
fn random_graph(rng: &mut ChaCha8Rng) -> (TaskGraph, Resources) {
    let mut res = Resources::new();
    let nres = rng.random_range(1..=8u32);
    for i in 0..nres {
        let kind = match i % 4 {
            0 => ResourceKind::GpuStream { gpu: i, stream: 0 },
            1 => ResourceKind::Host { thread: i },
            2 => ResourceKind::CopyEngine {
                gpu: i,
                dir: exec::CopyDir::PeerToPeer,
            },
            _ => ResourceKind::Link { id: i },
        };
        res.add(kind, format!("r{i}"));
    }
    let mut g = TaskGraph::new();
    let n = rng.random_range(1..=150u32);
    for t in 0..n {
        let mut on: Vec<ResourceId> = Vec::new();
        for _ in 0..rng.random_range(0..=3u32.min(nres)) {
            let r = ResourceId(rng.random_range(0..nres));
            if !on.contains(&r) {
                on.push(r);
            }
        }
        let mut deps = Vec::new();
        if t > 0 {
            for _ in 0..rng.random_range(0..=3) {
                deps.push(TaskId(rng.random_range(0..t)));
            }
        }
        let duration = if rng.random_bool(0.2) {
            Duration::ZERO
        } else {
            ps(rng, 50_000_000)
        };
        let category = Category::ALL[rng.random_range(0..Category::ALL.len() - 1)];
        let task = Task::new(format!("t{t}"), category, duration).on(on).after(deps);
        let nb = if rng.random_bool(0.2) {
            ps(rng, 500_000_000)
        } else {
            Duration::ZERO
        };
        g.add_not_before(task, nb).expect("a valid task");
    }
    (g, res)
}

/// The schedule obeys the module's scheduling rule, checked from the outside.
fn check_schedule(g: &TaskGraph, res: &Resources, s: &Schedule) {
    let n = g.len();
    assert_eq!(s.records.len(), n, "not every task ran");
    let key = |t: usize| (s.ready_time(TaskId(t as u32)).unwrap_or_default(), t);
    let mut busy = vec![Duration::ZERO; res.len()];
    let mut per_res: Vec<Vec<usize>> = vec![Vec::new(); res.len()];
    for (id, task) in g.iter() {
        let t = id.index();
        let rec = s.records[t];
        assert_eq!(
            rec.end,
            rec.start + task.duration,
            "task {t}: end ≠ start + duration"
        );
        // Ready = the latest of its dependencies' ends and its not_before, exactly.
        let nb = g.not_before(id).unwrap_or_default();
        let ready = task
            .deps
            .iter()
            .map(|d| s.records[d.index()].end)
            .fold(nb, Duration::max);
        assert_eq!(s.ready_time(id), Some(ready), "task {t}: ready time");
        assert!(
            rec.start >= ready,
            "task {t} started before its dependencies ended"
        );
        if task.resources.is_empty() {
            assert_eq!(
                rec.start, ready,
                "task {t} without resources must start when ready"
            );
        }
        for r in &task.resources {
            busy[r.index()] += task.duration;
            per_res[r.index()].push(t);
        }
    }
    for (r, ts) in per_res.iter_mut().enumerate() {
        assert_eq!(
            s.busy_time(ResourceId(r as u32)),
            busy[r],
            "resource {r}: busy time"
        );
        // Mutual exclusion: sorted by start, no interval begins before the previous one ends.
        ts.sort_by_key(|&t| (s.records[t].start, s.records[t].end));
        for w in ts.windows(2) {
            let (a, b) = (s.records[w[0]], s.records[w[1]]);
            assert!(
                a.end <= b.start,
                "resource {r}: tasks {} and {} overlap",
                w[0],
                w[1]
            );
        }
        // FIFO by key, no backfilling: of two tasks on one resource, the one with the smaller key
        // never starts later (zero-duration tasks included: their ends are events of their instant).
        for (i, &a) in ts.iter().enumerate() {
            for &b in &ts[i + 1..] {
                let (a, b) = if key(a) < key(b) { (a, b) } else { (b, a) };
                let (sa, sb) = (s.records[a].start, s.records[b].start);
                assert!(
                    sa <= sb,
                    "resource {r}: task {a} (key {:?}) started at {sa:?}, after task {b} (key {:?}) at {sb:?}",
                    key(a),
                    key(b)
                );
            }
        }
    }
    // No needless idling: while a task waits, at every instant one of its resources is held by
    // another task or has a waiter with a smaller key.
    for (id, task) in g.iter() {
        let t = id.index();
        let (ready, start) = (key(t).0, s.records[t].start);
        if start == ready {
            continue;
        }
        let mut instants = vec![ready];
        for r in &task.resources {
            for &u in &per_res[r.index()] {
                for x in [s.records[u].start, s.records[u].end, key(u).0] {
                    if x > ready && x < start {
                        instants.push(x);
                    }
                }
            }
        }
        // Between two such instants nothing changes: checking each and the picosecond after it
        // covers the whole wait.
        for x in instants.clone() {
            if x + Duration::from_ps(1) < start {
                instants.push(x + Duration::from_ps(1));
            }
        }
        for x in instants {
            let blocked = task.resources.iter().any(|r| {
                per_res[r.index()].iter().any(|&u| {
                    let ru = s.records[u];
                    u != t
                        && ((ru.start <= x && x < ru.end)
                            || (key(u) < key(t) && key(u).0 <= x && x <= ru.start))
                })
            });
            assert!(
                blocked,
                "task {t} idled at {x:?} with every resource free and first in line"
            );
        }
    }
    // The breakdown sums to the makespan (asserted inside), which is the last end.
    let by_cat = s.critical_path_by_category();
    let total = by_cat.values().fold(Duration::ZERO, |a, &d| a + d);
    assert_eq!(total, s.makespan);
    let last = s.records.iter().map(|r| r.end).max().unwrap_or_default();
    assert_eq!(s.makespan, last);
}

#[test]
fn executor() {
    for_each_seed("executor", |_seed, rng| {
        let (g, res) = random_graph(rng);
        let s = exec::run(&g, &res).expect("a valid graph runs");
        check_schedule(&g, &res, &s);
        assert_eq!(
            exec::run(&g, &res).expect("runs"),
            s,
            "same graph, different schedule"
        );
    });
}
