//! Allreduce algorithms executed step by step on the flow network ([`crate::fabric`]).
//!
//! Each algorithm lowers to a DAG of sends (flows with dependencies and a per-connection window),
//! which `execute` runs on a [`FlowSim`]. Contention, the posted-write collapse, SHM staging and
//! staged peer loads therefore come out of the network, not out of a fudge factor.
//! - NCCL ring: 2(n − 1) steps; per channel, rank r sends chunk pieces to r + 1; a piece of step k
//!   may leave once piece k − 1 arrived from r − 1; a connection streams its pieces back to back
//!   (cut-through at the protocol's grain); wire bytes = payload / protocol efficiency; each step
//!   adds NCCL's per-step latency (the box's measured Simple step on P2P hops, see
//!   [`NcclPlan::step_latency`]).
//! - NCCL tree (single node = chain): reduce down the chain, broadcast back up, pipelined in slots.
//! - Custom one-shot pull, two-shot, one-shot push, staged push (pcie-collectives.md, "Custom
//!   allreduce algorithms"), with flag barriers whose latency is the real path's.

use crate::fabric::Fabric;
use crate::net::{FlowKind, FlowSim, FlowSpec};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::Arc;
use tpsim_model::nccl::{Algo, Proto};
use tpsim_model::units::Duration;

/// The custom allreduce kernels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CustomAlgo {
    /// vLLM/SGLang one-shot: barrier, every rank pulls the whole buffer from every peer, barrier.
    OneShot,
    /// Luke's PCIe one-shot (`pcie_allreduce.cu`, as embedded in lukealonso/p2pmark 3c39f36
    /// `p2pmark.cu`, `pcie_allreduce_kernel`): the same start barrier and pulls, but **no end
    /// barrier** (double-buffered flags: `peer_counter[val % 2]`). Timed as its benchmarks time it,
    /// one kernel per replayed CUDA graph back to back (`bench_custom_ar`); like every custom
    /// kernel it pays the box's per-kernel gap inside a graph (`kernel_overhead`, the caller's
    /// `launch`); in steady state the next call's start barrier absorbs the skew an end barrier would.
    PcieOneShot,
    /// Reduce-scatter by peer reads, barrier, all-gather by peer reads.
    TwoShot,
    /// Every rank writes its buffer to every peer, then a system-scope barrier.
    Push,
    /// FlashInfer-style PCIe push: one outbound and one inbound stream per rank at a time.
    StagedPush,
    /// Issue #19 point 3: FlashInfer's PCIe-IPC allreduce on its seed policy's kernel
    /// (`crate::custom_kernels::flashinfer_ipc`).
    FlashinferIpc,
    /// Issue #17 point 4: vLLM's QuickReduce on ROCm (`tpsim_model::quick_reduce`): two shots of
    /// peer writes of each 1/n partition, encoded by the regime's codec, with a barrier between.
    /// The codec's compute is not timed (the kernels are bandwidth-bound by design).
    QuickReduce(tpsim_model::quick_reduce::Regime),
}

impl CustomAlgo {
    pub fn as_str(self) -> &'static str {
        match self {
            CustomAlgo::OneShot => "custom one-shot",
            CustomAlgo::PcieOneShot => "custom PCIe one-shot",
            CustomAlgo::TwoShot => "custom two-shot",
            CustomAlgo::Push => "custom push",
            CustomAlgo::StagedPush => "custom staged-push",
            CustomAlgo::FlashinferIpc => "flashinfer pcie-ipc",
            CustomAlgo::QuickReduce(r) => match r {
                tpsim_model::quick_reduce::Regime::Fp => "quick reduce FP",
                tpsim_model::quick_reduce::Regime::Int8 => "quick reduce INT8",
                tpsim_model::quick_reduce::Regime::Int6 => "quick reduce INT6",
                tpsim_model::quick_reduce::Regime::Int4 => "quick reduce INT4",
            },
        }
    }
}

/// How NCCL runs one call (from the tuner): what to execute on the network.
#[derive(Debug, Clone, PartialEq)]
pub struct NcclPlan {
    pub algo: Algo,
    pub proto: Proto,
    pub channels: u32,
    /// Launch and setup cost paid once (NCCL's base latency for the algorithm/protocol).
    pub base_latency: Duration,
    /// Per-step latency on a P2P hop: NCCL's hardware latency per step for the link class, or the
    /// box's measured Simple step (`nccl_simple_step_latency`) for Simple ring steps on PCIe.
    pub step_latency: Duration,
    /// Per-step latency on an SHM hop: always NCCL's figure (the SHM step costs added on top were
    /// calibrated with it).
    pub shm_step_latency: Duration,
    /// Payload bytes per wire byte (LL 8/16, LL128 120/128, Simple 1).
    pub efficiency: f64,
    /// Payload bytes of one slot (buffer / NCCL_STEPS, times efficiency).
    pub slot_bytes: u64,
    /// Per ring hop `r → r + 1` (index `r`, wrapping): whether that connection uses NCCL's SHM
    /// transport rather than P2P. NCCL picks the transport per peer connection (`p2pCanConnect`, then
    /// `shmCanConnect`): on a box where only some pairs pass `NCCL_P2P_LEVEL`, a ring mixes P2P
    /// hops and SHM hops (rtx6kpro hardware/asus-esc8000a-e13p-broadcom-switches.md, "NCCL
    /// Configuration": `0→1 via P2P`, `1→2 via SHM`). A tree hop between neighbours `i`, `i ± 1`
    /// uses the same pair's entry. Shorter than the ring (e.g. empty) = P2P.
    pub shm_hops: Vec<bool>,
    /// Per (channel, rank) connection limits (`Fabric::add_nccl_connections`); may be shorter
    /// than the channel count (then uncapped).
    pub conn_links: Vec<Vec<crate::net::LinkId>>,
}

/// The result of one simulated collective.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub time: Duration,
    /// e.g. "nccl Ring/LL", "custom one-shot".
    pub algorithm: String,
    pub protocol: String,
    pub channels: u32,
    /// Name of the link that was busiest at full capacity.
    pub bottleneck: Option<String>,
    /// Flows simulated.
    pub flows: usize,
    /// Every transfer, in completion order (for traces: which links carried what, when). Shared:
    /// `comm`'s cache hands out a copy of the outcome per call, and a copied `Vec` of every flow
    /// was over half of a run's time on collective-heavy scenarios (wiaperf).
    pub timeline: Arc<[FlowRecord]>,
}

/// Dependencies of a send, without an allocation for the common 0–1 case.
#[derive(Debug, Clone)]
pub(crate) enum Deps {
    One(Option<usize>),
    Many(Arc<[usize]>),
}

impl Deps {
    pub(crate) fn as_slice(&self) -> &[usize] {
        match self {
            Deps::One(o) => o.as_slice(),
            Deps::Many(v) => v,
        }
    }
    pub(crate) fn many(v: &[usize]) -> Deps {
        Deps::Many(Arc::from(v))
    }
}

#[derive(Debug, Clone)]
pub(crate) struct Send {
    /// Shared between the sends of one hop (no copy of the path per send).
    pub(crate) spec: Arc<FlowSpec>,
    pub(crate) deps: Deps,
    /// Connection index for the in-flight window; `usize::MAX` = unlimited.
    pub(crate) conn: usize,
    /// Extra delay after all deps are done before the send may start (barrier software, etc.).
    pub(crate) delay: Duration,
}

/// Per-connection state of [`execute`]: ready sends (a min-heap: lowest index first, so the order
/// is deterministic) and sends in flight.
#[derive(Debug, Default)]
struct Conn {
    ready: BinaryHeap<Reverse<usize>>,
    inflight: usize,
    unlimited: bool,
}

/// Starts the ready sends of one connection while its window allows.
fn drain_conn(
    conn: &mut Conn,
    sends: &[Send],
    ready_at: &[Duration],
    started: &mut [Duration],
    window: usize,
    sim: &mut FlowSim<'_>,
) {
    while let Some(&Reverse(i)) = conn.ready.peek() {
        if !conn.unlimited && conn.inflight >= window {
            break;
        }
        conn.ready.pop();
        let start = ready_at[i].max(sim.now());
        started[i] = start;
        // Specs come from the fabric's own paths; an error here would be a bug in this module, and
        // a send silently dropped would end the collective early with a wrong time.
        if let Err(e) = sim.add_trusted_flow_at(&sends[i].spec, start, i as u64) {
            panic!("allreduce invariant (every send runs): send {i} rejected by the network: {e}");
        }
        conn.inflight += 1;
    }
}

/// One simulated transfer: its path and when it started and completed.
#[derive(Debug, Clone, PartialEq)]
pub struct FlowRecord {
    pub spec: Arc<FlowSpec>,
    pub start: Duration,
    pub end: Duration,
}

/// Runs a DAG of sends; returns the completion time of the last one, the sim (for statistics) and
/// every transfer's record in completion order.
pub(crate) fn execute(
    fab: &Fabric,
    sends: Vec<Send>,
    window: usize,
    start: Duration,
) -> (Duration, FlowSim<'_>, Vec<FlowRecord>) {
    let n = sends.len();
    let mut sim = FlowSim::new(&fab.net);
    sim.reserve(n, sends.iter().map(|s| s.spec.path.len()).sum());
    let mut waiting: Vec<usize> = sends.iter().map(|s| s.deps.as_slice().len()).collect();
    // Dependents as a flat adjacency list (CSR): no allocation per send.
    let mut offsets = vec![0usize; n + 1];
    for s in &sends {
        for &d in s.deps.as_slice() {
            offsets[d + 1] += 1;
        }
    }
    for i in 0..n {
        offsets[i + 1] += offsets[i];
    }
    let mut fill = offsets.clone();
    let mut dependents = vec![0usize; offsets[n]];
    for (i, s) in sends.iter().enumerate() {
        for &d in s.deps.as_slice() {
            dependents[fill[d]] = i;
            fill[d] += 1;
        }
    }
    // Dense connection ids: the sorted distinct connection numbers, looked up by binary search.
    let ids: Vec<usize> = {
        let mut v: Vec<usize> = sends.iter().map(|s| s.conn).collect();
        v.sort_unstable();
        v.dedup();
        v
    };
    let conn_of: Vec<usize> = sends
        .iter()
        .map(|s| ids.binary_search(&s.conn).unwrap_or(0))
        .collect();
    let mut conns: Vec<Conn> = ids
        .iter()
        .map(|&c| Conn {
            unlimited: c == usize::MAX,
            ..Conn::default()
        })
        .collect();
    let mut ready_at: Vec<Duration> = sends.iter().map(|s| start + s.delay).collect();
    let mut started = vec![Duration::ZERO; n];
    let mut records = Vec::with_capacity(n);
    let mut end = start;
    for i in 0..n {
        if waiting[i] == 0 {
            conns[conn_of[i]].ready.push(Reverse(i));
        }
    }
    for c in conns.iter_mut() {
        drain_conn(c, &sends, &ready_at, &mut started, window, &mut sim);
    }
    let mut touched: Vec<usize> = Vec::new();
    while let Some(c) = sim.next_completion() {
        let i = c.tag as usize;
        end = end.max(c.time);
        records.push(FlowRecord {
            spec: Arc::clone(&sends[i].spec),
            start: started[i],
            end: c.time,
        });
        let ci = conn_of[i];
        conns[ci].inflight = conns[ci].inflight.saturating_sub(1);
        touched.clear();
        touched.push(ci);
        for &j in &dependents[offsets[i]..offsets[i + 1]] {
            waiting[j] -= 1;
            ready_at[j] = ready_at[j].max(c.time + sends[j].delay);
            if waiting[j] == 0 {
                conns[conn_of[j]].ready.push(Reverse(j));
                touched.push(conn_of[j]);
            }
        }
        touched.sort_unstable();
        touched.dedup();
        for &t in &touched {
            drain_conn(&mut conns[t], &sends, &ready_at, &mut started, window, &mut sim);
        }
    }
    // O(1): a send whose dependencies never completed (a cycle, a lost completion) would otherwise
    // shorten the collective silently.
    assert_eq!(
        records.len(),
        n,
        "allreduce invariant (every send completes): {} of {n} sends completed",
        records.len()
    );
    (end, sim, records)
}

pub(crate) fn outcome(
    fab: &Fabric,
    end: Duration,
    sim: &FlowSim<'_>,
    timeline: Vec<FlowRecord>,
    algorithm: String,
    protocol: &str,
    channels: u32,
) -> Outcome {
    Outcome {
        time: end,
        algorithm,
        protocol: protocol.to_string(),
        channels,
        bottleneck: sim.bottleneck().map(|l| fab.net.link(l).name.clone()),
        flows: sim.flow_count(),
        timeline: timeline.into(),
    }
}

/// NCCL allreduce of `bytes` over `ranks` (GPU indices in ring order) following `plan`.
pub fn nccl(fab: &Fabric, ranks: &[usize], bytes: u64, plan: &NcclPlan) -> Outcome {
    nccl_ring_steps(fab, ranks, bytes, plan, 2 * ranks.len().saturating_sub(1))
}

/// NCCL ring all-gather ending with `total` bytes per rank: n − 1 steps of total / n per rank.
pub fn nccl_allgather(fab: &Fabric, ranks: &[usize], total: u64, plan: &NcclPlan) -> Outcome {
    let ring = NcclPlan {
        algo: Algo::Ring,
        ..plan.clone()
    };
    nccl_ring_steps(fab, ranks, total, &ring, ranks.len().saturating_sub(1))
}

fn nccl_ring_steps(fab: &Fabric, ranks: &[usize], bytes: u64, plan: &NcclPlan, steps: usize) -> Outcome {
    let n = ranks.len();
    let name = format!("nccl {}/{}", plan.algo.as_str(), plan.proto.as_str());
    if n < 2 || bytes == 0 {
        return Outcome {
            time: Duration::ZERO,
            algorithm: name,
            protocol: plan.proto.as_str().into(),
            channels: 0,
            bottleneck: None,
            flows: 0,
            timeline: Arc::new([]),
        };
    }
    let c = plan.channels.max(1) as usize;
    // Whether the connection between ring neighbours `s` and `d` (either direction) is SHM.
    let is_shm = |s: usize, d: usize| -> bool {
        let lo = if (s + 1) % n == d { s } else { d };
        plan.shm_hops.get(lo).copied().unwrap_or(false)
    };
    let hop = |s: usize, d: usize, payload: u64| -> (FlowSpec, Duration) {
        let wire = (payload as f64 / plan.efficiency).ceil() as u64;
        let shm = is_shm(s, d);
        let mut f = if shm {
            fab.shm_flow(ranks[s], ranks[d], wire, Duration::ZERO, 0)
        } else {
            fab.flow(ranks[s], ranks[d], wire, Duration::ZERO, FlowKind::Write, 0)
        };
        // NCCL's per-step latency stands for the flag/fence protocol of a step on this link class;
        // the SHM path adds its own legs and step cost on top. The latency is paid between a piece's
        // last byte leaving the sender and the receiver forwarding it (a delay on the dependency),
        // so a connection streams its pieces back to back: cut-through pipelining.
        let lat = if shm {
            f.latency + plan.shm_step_latency
        } else {
            plan.step_latency
        };
        f.latency = Duration::ZERO;
        (f, lat)
    };
    let mut sends: Vec<Send> = Vec::new();
    let mut max_lat = Duration::ZERO;
    if plan.algo == Algo::Tree {
        // Chain 0 → 1 → … → n−1 (reduce) then back n−1 → … → 0 (broadcast), per channel S / c,
        // pipelined in slots.
        let per_ch = bytes.div_ceil(c as u64);
        let m = (per_ch / plan.slot_bytes.max(1)).max(1) as usize;
        let piece = per_ch.div_ceil(m as u64);
        let hops: Vec<(usize, usize)> = (0..n - 1)
            .map(|i| (i, i + 1))
            .chain((1..n).rev().map(|i| (i, i - 1)))
            .collect();
        let chain: Vec<(Arc<FlowSpec>, Duration)> = hops
            .iter()
            .map(|&(s, d)| {
                let (f, l) = hop(s, d, piece);
                (Arc::new(f), l)
            })
            .collect();
        for ch in 0..c {
            let mut prev: Vec<Option<usize>> = vec![None; m];
            for (h, (spec, lat)) in chain.iter().enumerate() {
                max_lat = max_lat.max(*lat);
                let delay = if h == 0 { Duration::ZERO } else { chain[h - 1].1 };
                for p in prev.iter_mut() {
                    let idx = sends.len();
                    sends.push(Send {
                        spec: Arc::clone(spec),
                        deps: Deps::One(*p),
                        conn: ch * 2 * n + h,
                        delay,
                    });
                    *p = Some(idx);
                }
            }
        }
    } else {
        let chunk = bytes.div_ceil((c * n) as u64);
        let m = (chunk / plan.slot_bytes.max(1)).max(1) as usize;
        let piece = chunk.div_ceil(m as u64);
        // The hop r → r + 1 of every rank, with its latency, computed once.
        let ring: Vec<(FlowSpec, Duration)> = (0..n).map(|r| hop(r, (r + 1) % n, piece)).collect();
        sends.reserve(c * steps * n * m);
        max_lat = ring.iter().map(|h| h.1).max().unwrap_or(Duration::ZERO);
        // last[r][j]: index of the most recent send from rank r of piece j (per channel).
        for ch in 0..c {
            // This channel's hop specs, each with its connection limit, shared by all its sends.
            let specs: Vec<Arc<FlowSpec>> = (0..n)
                .map(|r| {
                    let mut spec = ring[r].0.clone();
                    if !is_shm(r, (r + 1) % n)
                        && let Some(&l) = plan.conn_links.get(ch).and_then(|v| v.get(r))
                    {
                        spec.path.push(l);
                    }
                    Arc::new(spec)
                })
                .collect();
            // last[r * m + j]: index of the most recent send of piece j from rank r; `before` is
            // the previous step's (two flat buffers swapped per step, no allocation per step).
            let mut last: Vec<Option<usize>> = vec![None; n * m];
            let mut before: Vec<Option<usize>> = vec![None; n * m];
            for _k in 0..steps {
                std::mem::swap(&mut last, &mut before);
                for r in 0..n {
                    let from = (r + n - 1) % n;
                    for j in 0..m {
                        let idx = sends.len();
                        let dep = before[from * m + j];
                        let delay = if dep.is_some() {
                            ring[from].1
                        } else {
                            Duration::ZERO
                        };
                        sends.push(Send {
                            spec: Arc::clone(&specs[r]),
                            deps: Deps::One(dep),
                            conn: ch * n + r,
                            delay,
                        });
                        last[r * m + j] = Some(idx);
                    }
                }
            }
        }
    }
    let (end, sim, timeline) = execute(fab, sends, 1, plan.base_latency);
    // The last pieces still have to arrive.
    outcome(
        fab,
        end + max_lat,
        &sim,
        timeline,
        name,
        plan.proto.as_str(),
        plan.channels,
    )
}

/// A barrier among `ranks` starting after `deps`: every rank writes a flag to every peer; each
/// rank's barrier ends when all flags addressed to it arrived. Returns the per-rank end sends.
fn barrier(fab: &Fabric, ranks: &[usize], sends: &mut Vec<Send>, deps: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let n = ranks.len();
    let mut into: Vec<Vec<usize>> = vec![Vec::new(); n];
    for a in 0..n {
        for (b, slot) in into.iter_mut().enumerate() {
            if a == b {
                continue;
            }
            let mut f = fab.flow(ranks[a], ranks[b], 0, Duration::ZERO, FlowKind::Write, 0);
            f.latency = fab.flag_latency(ranks[a], ranks[b]);
            let idx = sends.len();
            sends.push(Send {
                spec: Arc::new(f),
                deps: Deps::many(&deps[a]),
                conn: usize::MAX,
                delay: Duration::ZERO,
            });
            slot.push(idx);
        }
    }
    into
}

/// Every rank pulls `range` bytes from every peer once its `after` sends are done, as the
/// engines' pull kernels read for a message of `message` bytes (issue #19 point 3,
/// `crate::custom_kernels::pull`): each read takes the round trip, and a reader whose bytes
/// exceed what it keeps in flight shares a Little's-law link (added to `fab`, this call's copy).
/// Returns, per rank, the reads it issued.
fn pull_reads(
    fab: &mut Fabric,
    ranks: &[usize],
    sends: &mut Vec<Send>,
    message: u64,
    range: u64,
    after: &[Vec<usize>],
) -> Vec<Vec<usize>> {
    let n = ranks.len();
    let mut done = vec![Vec::new(); n];
    for (r, slot) in done.iter_mut().enumerate() {
        let reader = ranks[r];
        let peers: Vec<usize> = (0..n).filter(|&p| p != r).map(|p| ranks[p]).collect();
        let plan = crate::custom_kernels::pull::reader_plan(fab, reader, &peers, message, range);
        let cap = plan
            .cap
            .map(|b| fab.net.add_link(format!("kernel peer reads into GPU{reader}"), b));
        let deps = Deps::many(&after[r]);
        for &p in &peers {
            let mut f = fab.peer_read(reader, p, range, Duration::ZERO, 0);
            if !fab.is_staged(reader, p) {
                f.latency = plan.latency;
                if let Some(l) = cap {
                    f.path.push(l);
                }
            }
            slot.push(sends.len());
            sends.push(Send {
                spec: Arc::new(f),
                deps: deps.clone(),
                conn: usize::MAX,
                delay: Duration::ZERO,
            });
        }
    }
    done
}

/// Every rank writes `bytes` into every peer's buffer once `deps[rank]` are done; the writes into
/// each rank, per rank (a peer may go on once all writes into it arrived).
fn all_peer_writes(
    fab: &Fabric,
    ranks: &[usize],
    sends: &mut Vec<Send>,
    bytes: u64,
    deps: &[Vec<usize>],
) -> Vec<Vec<usize>> {
    let n = ranks.len();
    let mut into = vec![Vec::new(); n];
    for r in 0..n {
        for (p, slot) in into.iter_mut().enumerate() {
            if p != r {
                let idx = sends.len();
                let mut f = fab.flow(ranks[r], ranks[p], bytes, Duration::ZERO, FlowKind::Write, 0);
                f.latency = fab.flag_latency(ranks[r], ranks[p]);
                sends.push(Send {
                    spec: Arc::new(f),
                    deps: Deps::many(&deps[r]),
                    conn: usize::MAX,
                    delay: Duration::ZERO,
                });
                slot.push(idx);
            }
        }
    }
    into
}

/// A custom allreduce of `bytes` over `ranks`.
pub fn custom(fab: &Fabric, ranks: &[usize], bytes: u64, algo: CustomAlgo, launch: Duration) -> Outcome {
    let n = ranks.len();
    if n < 2 || bytes == 0 {
        return Outcome {
            time: Duration::ZERO,
            algorithm: algo.as_str().into(),
            protocol: "-".into(),
            channels: 0,
            bottleneck: None,
            flows: 0,
            timeline: Arc::new([]),
        };
    }
    // Issue #19 point 3: the pull kernels add their readers' Little's-law links to a copy.
    let mut own: Option<Fabric> = None;
    let mut sends: Vec<Send> = Vec::new();
    let none: Vec<Vec<usize>> = vec![Vec::new(); n];
    let ready = barrier(fab, ranks, &mut sends, &none);
    let after_data: Vec<Vec<usize>> = match algo {
        CustomAlgo::OneShot | CustomAlgo::PcieOneShot => {
            let f = own.get_or_insert_with(|| fab.clone());
            pull_reads(f, ranks, &mut sends, bytes, bytes, &ready)
        }
        CustomAlgo::TwoShot => {
            let f = own.get_or_insert_with(|| fab.clone());
            let part = bytes.div_ceil(n as u64);
            let rs = pull_reads(f, ranks, &mut sends, bytes, part, &ready);
            let mid = barrier(f, ranks, &mut sends, &rs);
            pull_reads(f, ranks, &mut sends, bytes, part, &mid)
        }
        // Its own schedule, flags included (issue #19 point 3).
        CustomAlgo::FlashinferIpc => {
            return crate::custom_kernels::flashinfer_ipc::run(fab, ranks, bytes, launch);
        }
        CustomAlgo::Push => all_peer_writes(fab, ranks, &mut sends, bytes, &ready),
        CustomAlgo::QuickReduce(regime) => {
            // quick_reduce_impl.cuh: each rank writes every peer's partition, encoded, into that
            // peer's buffer; after the flags, each writes its reduced partition to every peer.
            let part = regime.payload(bytes.div_ceil(n as u64));
            let scatter = all_peer_writes(fab, ranks, &mut sends, part, &ready);
            let mid = barrier(fab, ranks, &mut sends, &scatter);
            all_peer_writes(fab, ranks, &mut sends, part, &mid)
        }
        CustomAlgo::StagedPush => {
            // Round k: rank r writes to r + k (one outbound and one inbound stream per rank).
            let mut prev: Vec<Vec<usize>> = ready.clone();
            let mut into = vec![Vec::new(); n];
            for k in 1..n {
                let mut next = vec![Vec::new(); n];
                for r in 0..n {
                    let p = (r + k) % n;
                    let idx = sends.len();
                    let mut f = fab.flow(ranks[r], ranks[p], bytes, Duration::ZERO, FlowKind::Write, 0);
                    f.latency = fab.flag_latency(ranks[r], ranks[p]);
                    sends.push(Send {
                        spec: Arc::new(f),
                        deps: Deps::many(&prev[r]),
                        conn: usize::MAX,
                        delay: Duration::ZERO,
                    });
                    next[r].push(idx);
                    into[p].push(idx);
                }
                prev = next;
            }
            into
        }
    };
    let fab: &Fabric = own.as_ref().unwrap_or(fab);
    // Luke's kernel has no end barrier (see `CustomAlgo::PcieOneShot`); every kernel pays `launch`,
    // the per-kernel gap of graph replay (`comm::custom_kernel_gap`).
    if algo != CustomAlgo::PcieOneShot {
        barrier(fab, ranks, &mut sends, &after_data);
    }
    let (end, sim, timeline) = execute(fab, sends, usize::MAX, launch);
    outcome(fab, end, &sim, timeline, algo.as_str().into(), "-", 1)
}
