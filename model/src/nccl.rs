//! NCCL's single-node decision logic as pure functions: which transport a GPU pair gets, how many
//! channels the topology search finds at which per-channel bandwidth, what the tuner estimates for each
//! (algorithm, protocol), and what one call finally runs on (algorithm, protocol, channels, threads).
//!
//! Everything here is a summary, in our own words, of NVIDIA/nccl 2.30 (commit 5067397, June 2026):
//!
//! - `src/graph/paths.cc` `ncclTopoCheckP2p`, `ncclGetLevel`: the P2P level (PXB by default, SYS on AMD
//!   hosts with at most two GPUs, `NCCL_P2P_DISABLE=1` → LOC, `NCCL_P2P_LEVEL` overrides).
//! - `src/graph/search.cc` `ncclTopoCompute`, `ncclTopoSearchRec*`, `followPath`, `ncclTopoCompareGraphs`,
//!   `ncclTopoDupChannels`: the per-SM speed arrays, the two passes of the search, the bandwidth
//!   accounting (every channel subtracts its speed from every link it crosses), the channel doubling
//!   and the "simple order" fallback.
//! - `src/init.cc` (graph set-up, `ringGraph->maxChannels = MAXCHANNELS/2`, tree min = max = ring
//!   channels, both graphs trimmed to the smaller channel count) and `src/graph/connect.cc`
//!   `ncclTopoPostset` (runtime channels = 2 × graph channels, then `NCCL_MIN/MAX_NCHANNELS`).
//! - `src/graph/tuning.cc` `ncclTopoTuneModel`, `ncclTopoGetAlgoTime`: latency and bandwidth tables,
//!   per-architecture caps, LL128 enabling, `NCCL_ALGO`/`NCCL_PROTO`, the tree correction factors.
//! - `src/enqueue.cc` `topoGetAlgoInfo`, `calcCollChunking`: the per-call choice, channel and thread
//!   trimming for small messages, chunk sizes; `src/include/device.h`, `src/include/comm.h`,
//!   `src/include/collectives.h`: thread counts, thresholds, `NCCL_STEPS`, LL/LL128 line formats.
//!
//! Our search works on the ring order the caller gives (NCCL tries that "PCI order" first) and on one
//! bottleneck bandwidth per hop, instead of NCCL's full link graph and permutation search; see
//! [`search_ring`] for what that changes.

use crate::hw::{PathClass, Transport};
use crate::units::Bytes;

/// NCCL algorithm (the two that exist on a single PCIe box; NVLS/CollNet/PAT do not apply).
/// Ordered as NCCL indexes them (`NCCL_ALGO_TREE` = 0, `NCCL_ALGO_RING` = 1), which is also the
/// tuner's tie-break order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Algo {
    /// Tree (on one node: a chain, reduce up then broadcast down).
    Tree,
    /// Ring.
    Ring,
}

impl Algo {
    /// Both algorithms in NCCL's index order.
    pub const ALL: [Algo; 2] = [Algo::Tree, Algo::Ring];

    /// The name NCCL prints and accepts in `NCCL_ALGO`.
    pub fn as_str(self) -> &'static str {
        match self {
            Algo::Tree => "Tree",
            Algo::Ring => "Ring",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// NCCL protocol, in NCCL's index order (`NCCL_PROTO_LL` = 0, `LL128` = 1, `SIMPLE` = 2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Proto {
    /// Low latency: 16-byte lines of 8 data bytes + flags.
    Ll,
    /// LL128: 128-byte lines of 120 data bytes + one flag word.
    Ll128,
    /// Simple: raw data plus step flags.
    Simple,
}

impl Proto {
    /// All protocols in NCCL's index order.
    pub const ALL: [Proto; 3] = [Proto::Ll, Proto::Ll128, Proto::Simple];

    /// The name NCCL prints and accepts in `NCCL_PROTO`.
    pub fn as_str(self) -> &'static str {
        match self {
            Proto::Ll => "LL",
            Proto::Ll128 => "LL128",
            Proto::Simple => "Simple",
        }
    }

    /// Fraction of the bytes on the wire that are payload (dimensionless): LL 8/16 (a 16 B
    /// `ncclLLFifoLine` carries two 4 B data words and two 4 B flags, `device.h`), LL128 120/128
    /// (`NCCL_LL128_DATAELEMS` = 15 of `NCCL_LL128_LINEELEMS` = 16 eight-byte words, `device.h`),
    /// Simple 1.
    pub fn payload_efficiency(self) -> f64 {
        match self {
            Proto::Ll => LL_PAYLOAD_EFFICIENCY,
            Proto::Ll128 => LL128_PAYLOAD_EFFICIENCY,
            Proto::Simple => 1.0,
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// One GPU→GPU hop of the ring, as NCCL's topology sees it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PathInfo {
    /// NCCL's path class of the hop (PIX/PXB/PHB/SYS…), after any diversion through the CPU for
    /// pairs that do not use P2P (`paths.cc` `ncclTopoComputePaths`).
    pub class: PathClass,
    /// NCCL's bandwidth of that path in GB/s: the minimum over its links in NCCL's model (PCIe
    /// width × lane rate / 80, the inter-CPU link: AMD 16, Intel 6/10/22/40 by generation), with
    /// Intel's P2P-through-host-bridge overhead (each channel charged 6/5 of its speed) folded in
    /// as bandwidth ÷ 1.2.
    pub bw_gbps: f64,
}

/// What NCCL knows about a single-node communicator when it searches and tunes.
#[derive(Debug, Clone, PartialEq)]
pub struct NcclTopoInput {
    /// Ranks (GPUs) in the communicator.
    pub ranks: u32,
    /// Compute capability × 10 of the GPUs (e.g. 120 for SM 12.0 Blackwell RTX, 90 Hopper, 80 Ampere).
    pub sm: u32,
    /// Whether the host CPU is AMD x86 (`paths.cc`: P2P level SYS for ≤ 2 GPUs).
    pub cpu_amd: bool,
    /// The GPU's own PCIe link bandwidth in NCCL's model, GB/s (width × lane rate / 80: 48 for Gen5
    /// x16, 24 for Gen4 x16). NCCL's `system->totalBw` (`search.cc` `getTotalBw`).
    pub gpu_link_gbps: f64,
    /// Hops between consecutive ranks around the ring: 0→1, 1→2, …, n−1→0 (length `ranks`).
    pub ring_path: Vec<PathInfo>,
    /// Whether the GPUs are joined by NVLink (selects NCCL's NVLink latency table when the graph's
    /// path type is NVL).
    pub nvlink: bool,
}

impl NcclTopoInput {
    /// Checks the input: at least one rank, `ring_path` of length `ranks` when `ranks ≥ 2`, finite
    /// non-negative bandwidths, a positive GPU link bandwidth.
    pub fn validate(&self) -> Result<(), NcclError> {
        if self.ranks == 0 {
            return Err(NcclError::Invalid("ranks must be at least 1".into()));
        }
        if self.ranks >= 2 && self.ring_path.len() != self.ranks as usize {
            return Err(NcclError::Invalid(format!(
                "ring_path has {} hops; expected one per rank ({})",
                self.ring_path.len(),
                self.ranks
            )));
        }
        if !(self.gpu_link_gbps.is_finite() && self.gpu_link_gbps > 0.0) {
            return Err(NcclError::Invalid(format!(
                "gpu_link_gbps = {}; expected a positive number of GB/s",
                self.gpu_link_gbps
            )));
        }
        for (i, h) in self.ring_path.iter().enumerate() {
            if !(h.bw_gbps.is_finite() && h.bw_gbps >= 0.0) {
                return Err(NcclError::Invalid(format!(
                    "ring_path[{i}].bw_gbps = {}; expected a non-negative number of GB/s",
                    h.bw_gbps
                )));
            }
        }
        Ok(())
    }
}

/// The NCCL environment variables this module honours. `Default` = none set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct NcclEnv {
    /// `NCCL_P2P_LEVEL` (LOC, NVL, PIX, PXB, PHB, SYS).
    pub p2p_level: Option<PathClass>,
    /// `NCCL_P2P_DISABLE=1` (wins over `NCCL_P2P_LEVEL`, as in `paths.cc` `ncclGetLevel`).
    pub p2p_disable: bool,
    /// `NCCL_PROTO` naming exactly one protocol: only that one is enabled (and LL128 is then
    /// enabled even on PCIe).
    pub proto: Option<Proto>,
    /// `NCCL_ALGO` naming exactly one algorithm: only that one is enabled.
    pub algo: Option<Algo>,
    /// `NCCL_MIN_NCHANNELS` (runtime channels, `connect.cc` `ncclMinNchannels`).
    pub min_nchannels: Option<u32>,
    /// `NCCL_MAX_NCHANNELS` (runtime channels, `connect.cc` `ncclMaxNchannels`).
    pub max_nchannels: Option<u32>,
}

/// Errors of this module.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NcclError {
    /// The topology input is inconsistent.
    #[error("NCCL topology input: {0}")]
    Invalid(String),
    /// No (algorithm, protocol) is enabled; NCCL fails the call with this situation
    /// (`enqueue.cc` `topoGetAlgoInfo`).
    #[error("No algorithm/protocol available for AllReduce.{0}")]
    NoAlgorithm(String),
}

// ---------------------------------------------------------------------------------------------
// Constants (each with its source)
// ---------------------------------------------------------------------------------------------

/// Pipeline depth of every connection's buffer: 8 slots (`device.h` `NCCL_STEPS`).
pub const NCCL_STEPS: u32 = 8;
/// Most channels a communicator can have (`device.h` `MAXCHANNELS`).
pub const MAXCHANNELS: u32 = 64;
/// Most channels the ring search may find (`init.cc`: `ringGraph->maxChannels = MAXCHANNELS / 2`).
pub const RING_SEARCH_MAX_CHANNELS: u32 = MAXCHANNELS / 2;
/// Threads of a warp (`device.h` `WARP_SIZE`).
pub const WARP_SIZE: u32 = 32;
/// Most threads per block for Simple (`device.h` `NCCL_SIMPLE_MAX_NTHREADS`).
pub const NCCL_SIMPLE_MAX_NTHREADS: u32 = 512;
/// Most threads per block for LL (`device.h` `NCCL_LL_MAX_NTHREADS`).
pub const NCCL_LL_MAX_NTHREADS: u32 = 512;
/// Most threads per block for LL128 (`device.h` `NCCL_LL128_MAX_NTHREADS`).
pub const NCCL_LL128_MAX_NTHREADS: u32 = 640;
/// Most threads per block of any kernel; trees always use it (`device.h` `NCCL_MAX_NTHREADS`).
pub const NCCL_MAX_NTHREADS: u32 = 640;
/// Bytes per thread before another channel/thread is worth it, LL (`comm.h` `NCCL_LL_THREAD_THRESHOLD`;
/// multiplied by the rank count for ring LL in `tuning.cc`).
pub const NCCL_LL_THREAD_THRESHOLD: u64 = 8;
/// Same for LL128 (`comm.h` `NCCL_LL128_THREAD_THRESHOLD`).
pub const NCCL_LL128_THREAD_THRESHOLD: u64 = 8;
/// Same for Simple (`comm.h` `NCCL_SIMPLE_THREAD_THRESHOLD`).
pub const NCCL_SIMPLE_THREAD_THRESHOLD: u64 = 64;
/// NCCL's "PCI Gen3 x16" bandwidth, GB/s: ring Simple gets 256 threads when the ring's total
/// bandwidth is at most this (`topo.h` `PCI_BW`, `tuning.cc`).
pub const PCI_BW_GBPS: f64 = 12.0;
/// Per-channel bandwidth NCCL assigns the "simple order" fallback graph, GB/s (`search.cc`).
pub const SIMPLE_ORDER_BW_GBPS: f64 = 0.1;

/// LL payload fraction: 8 data bytes per 16-byte line (`device.h` `union ncclLLFifoLine`).
pub const LL_PAYLOAD_EFFICIENCY: f64 = 8.0 / 16.0;
/// LL128 payload fraction: 120 of 128 bytes (`device.h` `NCCL_LL128_DATAELEMS / NCCL_LL128_LINEELEMS`).
pub const LL128_PAYLOAD_EFFICIENCY: f64 = 120.0 / 128.0;

/// LL connection buffer, bytes: 8 lines/thread × 512 threads × 8 steps × 16 B = 512 KiB
/// (`init.cc` `DEFAULT_LL_BUFFSIZE`).
pub const LL_BUFF_BYTES: u64 = 8 * NCCL_LL_MAX_NTHREADS as u64 * NCCL_STEPS as u64 * 16;
/// LL128 connection buffer, bytes: 120 elements/thread × 640 threads × 8 steps × 8 B = 4,915,200
/// (≈ 4.69 MiB; `init.cc` `DEFAULT_LL128_BUFFSIZE`).
pub const LL128_BUFF_BYTES: u64 = 120 * NCCL_LL128_MAX_NTHREADS as u64 * NCCL_STEPS as u64 * 8;
/// Simple connection buffer, bytes: 4 MiB (`init.cc` `DEFAULT_BUFFSIZE`).
pub const SIMPLE_BUFF_BYTES: u64 = 1 << 22;
/// Buffer slots a ring allreduce chunk spans with Simple (`collectives.h` `ALLREDUCE_CHUNKSTEPS`).
pub const ALLREDUCE_CHUNKSTEPS: u32 = NCCL_STEPS / 2;
/// Buffer slots per slice with Simple (`collectives.h` `ALLREDUCE_SLICESTEPS`).
pub const ALLREDUCE_SLICESTEPS: u32 = NCCL_STEPS / 4;

/// The connection buffer of a protocol, bytes on the wire (`init.cc` `computeBuffSizes` defaults).
pub fn buff_bytes(proto: Proto) -> u64 {
    match proto {
        Proto::Ll => LL_BUFF_BYTES,
        Proto::Ll128 => LL128_BUFF_BYTES,
        Proto::Simple => SIMPLE_BUFF_BYTES,
    }
}

/// One of the `NCCL_STEPS` slots of a connection buffer, bytes on the wire: LL 64 KiB, LL128
/// 614,400 B, Simple 512 KiB (`enqueue.cc` `calcCollChunking`: `stepSize = buffSize / NCCL_STEPS`).
pub fn slot_bytes(proto: Proto) -> u64 {
    buff_bytes(proto) / NCCL_STEPS as u64
}

/// Payload bytes one channel moves per ring-allreduce chunk (`enqueue.cc` `calcCollChunking`):
/// Simple a chunk is `ALLREDUCE_CHUNKSTEPS` slots = 2 MiB (sent in slices of 2 slots); LL half a
/// slot = 32 KiB (the rest is flags); LL128 15/16 of a slot = 576,000 B. This is the buffer ceiling;
/// the last chunk of a message is smaller.
pub fn ring_allreduce_chunk_bytes(proto: Proto) -> u64 {
    let step = slot_bytes(proto);
    match proto {
        Proto::Simple => step * ALLREDUCE_CHUNKSTEPS as u64,
        Proto::Ll => step / 2,
        Proto::Ll128 => step / 16 * 15,
    }
}

// ---------------------------------------------------------------------------------------------
// Transport
// ---------------------------------------------------------------------------------------------

/// The P2P level in force (`paths.cc` `ncclTopoCheckP2p`): PXB by default; SYS on an AMD host with
/// at most two GPUs; `NCCL_P2P_LEVEL` replaces either; `NCCL_P2P_DISABLE=1` gives LOC, which no pair
/// of distinct GPUs satisfies, i.e. never P2P (`ncclGetLevel` checks it first).
pub fn p2p_level(env: &NcclEnv, cpu_amd: bool, ranks: u32) -> PathClass {
    if env.p2p_disable {
        return PathClass::Loc;
    }
    if let Some(level) = env.p2p_level {
        return level;
    }
    if cpu_amd && ranks <= 2 {
        PathClass::Sys
    } else {
        PathClass::Pxb
    }
}

/// The transport between two GPUs: P2P when the hardware/driver supports peer access and the
/// path class is within the P2P level, otherwise NCCL's SHM transport through host memory
/// (`paths.cc` `ncclTopoCheckP2p`, `transport/p2p.cc` `canConnect`).
pub fn transport(class: PathClass, p2p_supported: bool, level: PathClass) -> Transport {
    if p2p_supported && class <= level {
        Transport::P2p
    } else {
        Transport::Shm
    }
}

// ---------------------------------------------------------------------------------------------
// Channel search
// ---------------------------------------------------------------------------------------------

/// Per-channel speeds the intra-node search tries, GB/s, highest first (`search.cc`).
const SPEEDS_SM100: [f64; 12] = [
    90.0, 80.0, 70.0, 60.0, 50.0, 45.0, 40.0, 30.0, 24.0, 20.0, 19.0, 18.0,
];
const SPEEDS_SM90: [f64; 11] = [60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 15.0, 12.0, 11.0, 6.0, 3.0];
const SPEEDS_OLDER: [f64; 13] = [
    40.0, 30.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0, 4.0, 3.0,
];

/// The intra-node speed array for a compute capability (`search.cc` `sm100SpeedArrayIntra` for
/// SM ≥ 100 — which includes SM 12.0 —, `sm90SpeedArrayIntra`, `speedArrayIntra`).
pub fn speed_array(sm: u32) -> &'static [f64] {
    if sm >= 100 {
        &SPEEDS_SM100
    } else if sm >= 90 {
        &SPEEDS_SM90
    } else {
        &SPEEDS_OLDER
    }
}

/// Result of NCCL's topology search for one communicator (ring graph, with what the tuner needs of
/// the tree graph).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RingGraph {
    /// Channels of the ring (and tree) graph: what the tuner multiplies by the per-channel
    /// bandwidth. Both graphs are trimmed to the smaller of the two counts (`init.cc`).
    pub channels: u32,
    /// The ring graph's per-channel bandwidth (`bwIntra`), GB/s.
    pub bw_per_channel_gbps: f64,
    /// Whether no ring was feasible and NCCL fell back to the "simple order" (1 channel at
    /// 0.1 GB/s, path SYS).
    pub simple_order_fallback: bool,
    /// The ring graph's path type (`typeIntra`): the farthest hop class it needed.
    pub type_intra: PathClass,
    /// The tree graph's per-channel bandwidth, GB/s.
    pub tree_bw_per_channel_gbps: f64,
    /// The tree graph's path type.
    pub tree_type_intra: PathClass,
    /// Channels (CTAs) the communicator actually runs: twice the graph channels (`connect.cc`
    /// `ncclTopoPostset` duplicates every channel), then `NCCL_MAX_NCHANNELS` and
    /// `NCCL_MIN_NCHANNELS` applied; per-call trimming starts from this.
    pub comm_channels: u32,
}

impl RingGraph {
    /// A graph given directly (ring and tree alike), e.g. a known `NCCL_DEBUG=INFO` result;
    /// runtime channels = 2 × `channels` as NCCL's post-setup does, no environment limits.
    pub fn given(channels: u32, bw_per_channel_gbps: f64, type_intra: PathClass) -> RingGraph {
        let channels = channels.max(1);
        RingGraph {
            channels,
            bw_per_channel_gbps,
            simple_order_fallback: false,
            type_intra,
            tree_bw_per_channel_gbps: bw_per_channel_gbps,
            tree_type_intra: type_intra,
            comm_channels: (2 * channels).min(MAXCHANNELS),
        }
    }
}

/// One pattern's search result before the two graphs are reconciled.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SearchResult {
    /// Channels found (0 never: the fallback has 1).
    pub channels: u32,
    /// Per-channel bandwidth, GB/s.
    pub bw_gbps: f64,
    /// Path type of the graph.
    pub type_intra: PathClass,
    /// Whether this is the "simple order" fallback.
    pub simple_order_fallback: bool,
}

/// Search pattern (`graph.h` `NCCL_TOPO_PATTERN_RING`, `…_BALANCED_TREE`: on one node a chain).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pattern {
    /// GPU 0 → 1 → … → n−1 → 0.
    Ring,
    /// GPU 0 → 1 → … → n−1 (no closing hop).
    Tree,
}

/// NCCL rounds remaining link bandwidth to 1/1000 GB/s after each subtraction (`search.cc`
/// `SUB_ROUND`), so that repeated float subtraction does not make a fitting channel fail.
fn sub_round(a: f64, b: f64) -> f64 {
    ((a - b) * 1000.0).round() / 1000.0
}

/// How many channels at speed `s` fit on the hops, at most `max`: each channel subtracts `s` from
/// every hop it crosses and needs `s` left on each (`search.cc` `followPath`). Each hop stands for the
/// links of its path; hops are assumed not to share a link in the same direction (true for a ring
/// that crosses each switch uplink or socket link once per direction).
fn channels_at(hops: &[f64], s: f64, max: u32) -> u32 {
    let mut rem = hops.to_vec();
    let mut n = 0;
    while n < max && rem.iter().all(|&r| r >= s) {
        for r in rem.iter_mut() {
            *r = sub_round(*r, s);
        }
        n += 1;
    }
    n
}

/// NCCL's search (`search.cc` `ncclTopoCompute`) for one pattern on the ring order of `input`, with
/// NCCL's channel bounds. Summary of what is reproduced:
///
/// 1. Start at the first speed of [`speed_array`] that is ≤ the best path bandwidth (`maxBw`, here the
///    best hop) and whose `speed × minChannels` is ≤ the GPU's link bandwidth (`totalBw`, scaled by
///    n/(n−1) for trees).
/// 2. Pass 1: search at that speed; keep a result only if it has ≥ `minChannels` channels and more
///    total bandwidth (channels × speed) than the best so far (`ncclTopoCompareGraphs`). Stop when
///    `maxChannels` is reached or channels × speed ≥ the GPU's link bandwidth; otherwise try the next
///    lower speed while there is no solution yet or the next speed is > 0.49 × the best speed.
/// 3. `ncclTopoDupChannels`: a solution at ≥ 25 GB/s per channel is split into twice the channels
///    at half the speed (unless SM > 80, < 50 GB/s and > 4 channels), within `maxChannels`.
/// 4. Pass 2 with `minChannels` = the channels found: rings try every higher speed and keep any
///    better total; trees raise the speed step by step while it improves and stays < 2× the start.
/// 5. No solution: "simple order", 1 channel at 0.1 GB/s, path SYS.
///
/// Not reproduced: the permutation search (only the given order is tried, which is NCCL's first
/// try), the path-type stepping (with one order the result's type is its farthest hop), the
/// search time-outs, and links shared by several hops.
pub fn search_graph(
    input: &NcclTopoInput,
    pattern: Pattern,
    min_channels: u32,
    max_channels: u32,
) -> SearchResult {
    let n = input.ranks as usize;
    let speeds = speed_array(input.sm);
    let fallback = SearchResult {
        channels: 1,
        bw_gbps: SIMPLE_ORDER_BW_GBPS,
        type_intra: PathClass::Sys,
        simple_order_fallback: true,
    };
    if n <= 1 {
        // One GPU: nothing to cross; NCCL's maxBw is LOC_BW and every speed fits.
        return SearchResult {
            channels: 1,
            bw_gbps: speeds[0],
            type_intra: PathClass::Loc,
            simple_order_fallback: false,
        };
    }
    let used = match pattern {
        Pattern::Ring => input.ring_path.len().min(n),
        Pattern::Tree => input.ring_path.len().min(n - 1),
    };
    let path = &input.ring_path[..used];
    let hops: Vec<f64> = path
        .iter()
        .map(|h| {
            if h.bw_gbps.is_finite() {
                h.bw_gbps.max(0.0)
            } else {
                0.0
            }
        })
        .collect();
    let type_intra = path.iter().map(|h| h.class).max().unwrap_or(PathClass::Loc);
    let max_bw = input
        .ring_path
        .iter()
        .map(|h| h.bw_gbps)
        .filter(|b| b.is_finite())
        .fold(0.0_f64, f64::max);
    let system_total_bw = input.gpu_link_gbps;
    // Non-ring patterns need not close the loop, so NCCL lets them use n/(n−1) of the GPU's link.
    let start_total_bw = match pattern {
        Pattern::Ring => system_total_bw,
        Pattern::Tree => system_total_bw * n as f64 / (n as f64 - 1.0),
    };
    let min_ch = min_channels.max(1);
    let max_ch = max_channels.max(min_ch);

    let last = speeds.len() - 1;
    let mut idx = 0;
    while idx < last && (speeds[idx] > max_bw || speeds[idx] * min_ch as f64 > start_total_bw) {
        idx += 1;
    }

    // Pass 1.
    let mut best: Option<(u32, f64)> = None;
    let better = |best: Option<(u32, f64)>, c: u32, s: f64, min: u32| {
        c >= min && c > 0 && best.is_none_or(|(bc, bs)| c as f64 * s > bc as f64 * bs)
    };
    loop {
        let s = speeds[idx];
        let c = channels_at(&hops, s, max_ch);
        if better(best, c, s, min_ch) {
            best = Some((c, s));
        }
        if let Some((bc, bs)) = best
            && (bc == max_ch || bc as f64 * bs >= system_total_bw)
        {
            break;
        }
        if idx < last && best.is_none_or(|(_, bs)| speeds[idx + 1] / bs > 0.49) {
            idx += 1;
            continue;
        }
        break;
    }
    let Some((mut ch, mut bw)) = best else {
        return fallback;
    };

    // Channel doubling (ncclTopoDupChannels).
    if bw >= 25.0 && !(input.sm > 80 && bw < 50.0 && ch > 4) {
        let dup = (ch * 2).min(max_ch);
        bw /= dup.div_ceil(ch) as f64;
        ch = dup;
    }

    // Pass 2: try to raise the speed with at least the channels found.
    let mut idx = 0;
    while idx < last && speeds[idx] > bw {
        idx += 1;
    }
    let min2 = ch;
    match pattern {
        Pattern::Ring => {
            while idx > 0 {
                idx -= 1;
                let s = speeds[idx];
                let c = channels_at(&hops, s, max_ch);
                if better(Some((ch, bw)), c, s, min2) {
                    ch = c;
                    bw = s;
                }
            }
        }
        Pattern::Tree => {
            let inter = speeds[idx];
            let mut intra = speeds[idx];
            while idx > 0 && (intra - bw).abs() < 1e-9 && intra < inter * 2.0 {
                idx -= 1;
                intra = speeds[idx];
                let c = channels_at(&hops, intra, max_ch);
                if better(Some((ch, bw)), c, intra, min2) {
                    ch = c;
                    bw = intra;
                }
            }
        }
    }
    SearchResult {
        channels: ch,
        bw_gbps: bw,
        type_intra,
        simple_order_fallback: false,
    }
}

/// NCCL's ring and tree searches for a single node, reconciled as `init.cc` does, with the runtime
/// channel count (`connect.cc` `ncclTopoPostset`: doubled, then `NCCL_MAX_NCHANNELS` caps it and
/// `NCCL_MIN_NCHANNELS` raises it by copying channels, all within [`MAXCHANNELS`]).
///
/// Ring: minChannels 1, maxChannels 32. Tree: minChannels = maxChannels = the ring's channels. Both
/// graphs then keep min(ring, tree) channels. See [`search_graph`] for the search itself.
///
/// On 8 GPUs whose hops all have 48 GB/s (Gen5 x16 P2P), NCCL 2.30's algorithm finds 1 × 45 first,
/// then keeps looking at lower speeds (40, 30, 24: each > 0.49 × 45) and 2 × 24 = 48 beats 45, so the
/// result is **2 × 24** (24 < 25: no split). The reference's "2 × 22.5" (1 × 45 split in two) is what
/// the same algorithm gives when 2 × 24 does not fit, i.e. when the best hop is in [45, 48) GB/s;
/// the tests pin both.
pub fn search_ring(input: &NcclTopoInput, env: &NcclEnv) -> RingGraph {
    let ring = search_graph(input, Pattern::Ring, 1, RING_SEARCH_MAX_CHANNELS);
    let tree = if input.ranks <= 1 {
        ring
    } else {
        search_graph(input, Pattern::Tree, ring.channels, ring.channels)
    };
    let channels = ring.channels.min(tree.channels).max(1);
    let mut comm = (2 * channels).min(MAXCHANNELS);
    if let Some(max) = env.max_nchannels {
        comm = comm.min(max.clamp(1, MAXCHANNELS));
    }
    if let Some(min) = env.min_nchannels {
        comm = comm.max(min.min(MAXCHANNELS));
    }
    RingGraph {
        channels,
        bw_per_channel_gbps: ring.bw_gbps,
        simple_order_fallback: ring.simple_order_fallback,
        type_intra: ring.type_intra,
        tree_bw_per_channel_gbps: tree.bw_gbps,
        tree_type_intra: tree.type_intra,
        comm_channels: comm,
    }
}

// ---------------------------------------------------------------------------------------------
// Tuner
// ---------------------------------------------------------------------------------------------

/// Base latency, µs, by algorithm and protocol (`tuning.cc` `baseLatencies`).
pub fn base_latency_us(algo: Algo, proto: Proto) -> f64 {
    match (algo, proto) {
        (Algo::Tree, Proto::Ll) => 6.8,
        (Algo::Tree, Proto::Ll128) => 14.0,
        (Algo::Tree, Proto::Simple) => 8.4,
        (Algo::Ring, Proto::Ll) => 6.6,
        (Algo::Ring, Proto::Ll128) => 14.0,
        (Algo::Ring, Proto::Simple) => 8.4,
    }
}

/// Per-step latency, µs, of the NVLink or PCI hardware class (`tuning.cc` `hwLatencies`).
pub fn hw_latency_us(nvlink: bool, algo: Algo, proto: Proto) -> f64 {
    match (nvlink, algo, proto) {
        (true, _, Proto::Ll) => 0.6,
        (true, Algo::Tree, Proto::Ll128) => 1.25,
        (true, Algo::Ring, Proto::Ll128) => 1.9,
        (true, Algo::Tree, Proto::Simple) => 4.0,
        (true, Algo::Ring, Proto::Simple) => 3.4,
        (false, _, Proto::Ll) => 1.0,
        (false, Algo::Tree, Proto::Ll128) => 1.9,
        (false, Algo::Ring, Proto::Ll128) => 2.5,
        (false, Algo::Tree, Proto::Simple) => 4.0,
        (false, Algo::Ring, Proto::Simple) => 5.7,
    }
}

/// Single-node bandwidth caps of one GPU generation, GB/s (`tuning.cc`, column "N1").
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ArchCaps {
    /// Ring-LL (and Tree-LL) busBw cap (`llMaxBws`).
    pub ll_max_bw: f64,
    /// Ring-LL128 per-channel cap (`perChMaxRingLL128Bws`).
    pub per_ch_max_ring_ll128_bw: f64,
    /// Tree-LL128 per-channel cap (`perChMaxTreeLL128Bws`).
    pub per_ch_max_tree_ll128_bw: f64,
    /// Tree per-channel cap (`perChMaxTreeBws`).
    pub per_ch_max_tree_bw: f64,
}

/// The caps for a compute capability: Volta (< 80), Ampere (80–89), Hopper (90–99), Blackwell
/// (≥ 100, including SM 12.0), single node (`tuning.cc` `compCapIndex`, `index2 = 0`).
pub fn arch_caps(sm: u32) -> ArchCaps {
    let (ll, ring128, tree128, tree) = if sm >= 100 {
        (2.0 * 141.0, 40.0, 55.6, 70.0)
    } else if sm >= 90 {
        (141.0, 36.7, 36.7, 38.7)
    } else if sm >= 80 {
        (87.7, 20.0, 20.0, 24.0)
    } else {
        (39.0, 20.0, 20.0, 26.5)
    };
    ArchCaps {
        ll_max_bw: ll,
        per_ch_max_ring_ll128_bw: ring128,
        per_ch_max_tree_ll128_bw: tree128,
        per_ch_max_tree_bw: tree,
    }
}

/// Tree allreduce bandwidth correction by message size, for sizes 64 B × 2^i, i = 0…23, per
/// protocol LL, LL128, Simple (`tuning.cc` `treeCorrectionFactor`; NCCL applies entries 0…22).
const TREE_CORRECTION: [[f64; 24]; 3] = [
    [
        1.0, 1.0, 1.0, 1.0, 0.9, 0.8, 0.7, 0.7, 0.7, 0.7, 0.6, 0.5, 0.4, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0,
        1.0, 1.0, 1.0, 1.0,
    ],
    [
        1.0, 1.0, 1.0, 1.0, 1.0, 0.9, 0.8, 0.8, 0.8, 0.7, 0.6, 0.6, 0.6, 0.6, 0.6, 0.6, 0.8, 0.9, 0.9, 0.9,
        0.9, 1.0, 1.0, 1.0,
    ],
    [
        0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.8, 0.7, 0.6, 0.6, 0.5, 0.5, 0.5, 0.5, 0.6, 0.7, 0.8, 0.7, 0.7,
        0.8, 0.9, 0.9, 0.9,
    ],
];

/// The tree correction factor NCCL applies to the tree allreduce bandwidth for a message of
/// `bytes` (`tuning.cc` `ncclTopoGetAlgoTime`: index = floor(log2(bytes / 64)), used for 0…22, else 1).
pub fn tree_correction_factor(proto: Proto, bytes: Bytes) -> f64 {
    let q = bytes.0 >> 6;
    if q == 0 {
        return 1.0;
    }
    let log = 63 - q.leading_zeros() as usize;
    if log < 23 {
        TREE_CORRECTION[proto.index()][log]
    } else {
        1.0
    }
}

/// The tuner's model of one (algorithm, protocol) for allreduce.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TunerEntry {
    /// Algorithm.
    pub algo: Algo,
    /// Protocol.
    pub proto: Proto,
    /// Whether the tuner may pick it (NCCL: bandwidth left non-zero).
    pub enabled: bool,
    /// Latency, µs: base + steps × per-step hardware latency.
    pub latency_us: f64,
    /// Bus bandwidth after NCCL's refinements, GB/s.
    pub busbw_gbps: f64,
    /// Algorithm bandwidth (message bytes per second at infinite size), GB/s, before the tree
    /// per-size correction.
    pub algbw_gbps: f64,
}

/// NCCL's allreduce tuning table for one communicator (`tuning.cc` `ncclTopoTuneModel`), with what
/// the per-call choice needs.
#[derive(Debug, Clone, PartialEq)]
pub struct TunerTable {
    /// Ranks.
    pub ranks: u32,
    /// Entries in NCCL's order: Tree LL, LL128, Simple, then Ring LL, LL128, Simple.
    pub entries: Vec<TunerEntry>,
    /// Runtime channels per-call trimming starts from ([`RingGraph::comm_channels`]).
    pub comm_channels: u32,
    /// Most threads per block, `[algo][proto]` (`tuning.cc` `maxThreads`).
    pub max_threads: [[u32; 3]; 2],
    /// Bytes per thread thresholds, `[algo][proto]` (`tuning.cc` `threadThresholds`).
    pub thread_thresholds: [[u64; 3]; 2],
}

/// What one allreduce call runs on, as NCCL decides it (`enqueue.cc` `topoGetAlgoInfo`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Choice {
    /// Algorithm.
    pub algo: Algo,
    /// Protocol.
    pub proto: Proto,
    /// Channels (CTAs) after per-call trimming.
    pub channels: u32,
    /// Threads per block after trimming and extra warps.
    pub nthreads: u32,
    /// Latency term, µs.
    pub latency_us: f64,
    /// Algorithm bandwidth used for this size (tree: after the correction factor), GB/s.
    pub algbw_gbps: f64,
    /// Estimated time, µs.
    pub time_us: f64,
}

/// Builds NCCL's tuning table for allreduce on one node (`tuning.cc` `ncclTopoTuneModel`):
///
/// - latency = `base[algo][proto] + 2(n−1) × hw[link][algo][proto]` for ring (`nsteps` = 2(n−1), no
///   network steps) and 2 × (n−1) × hw for the tree (`2 × ((nRanks/nNodes − 1) × intraLat +
///   log2(1) × interLat)`); link = NVLink when the graph's type is NVL, else PCI;
/// - busBw = channels × bwIntra, then Ring-LL min(×0.5, llMaxBw); Ring-LL128 min(×0.92, ch ×
///   perChMaxRingLL128Bw); Tree min(×0.92, ch × perChMaxTreeBw), then Tree-LL min(÷3.8, llMaxBw),
///   Tree-LL128 min(×7/9, ch × perChMaxTreeLL128Bw) (single-node trees keep NCCL's balanced-tree
///   pattern, so no extra ×0.85);
/// - algBw = busBw × n / (2(n−1)) for ring, × 0.5 for tree;
/// - LL128 is enabled by default only when the graph's path type is NVLink-class (`typeIntra ≤
///   NVB`; on PCIe never) and SM ≥ 70; `NCCL_PROTO` naming one protocol enables only it (LL128
///   included); `NCCL_ALGO` naming one algorithm enables only it;
/// - max threads: Simple ring 256 when ring bw × channels ≤ 12 GB/s else 512, Simple tree 512, LL 512,
///   LL128 640; thresholds LL 8, LL128 8, Simple 64 bytes/thread, ring LL × n.
pub fn tune(graph: &RingGraph, ranks: u32, input: &NcclTopoInput, env: &NcclEnv) -> TunerTable {
    let n = ranks.max(1) as f64;
    let ch = graph.channels.max(1) as f64;
    let caps = arch_caps(input.sm);
    let mut entries = Vec::with_capacity(6);
    for algo in Algo::ALL {
        let (bw_intra, type_intra) = match algo {
            Algo::Ring => (graph.bw_per_channel_gbps, graph.type_intra),
            Algo::Tree => (graph.tree_bw_per_channel_gbps, graph.tree_type_intra),
        };
        let nvl = input.nvlink && type_intra <= PathClass::Nvl;
        for proto in Proto::ALL {
            let mut bus = ch * bw_intra;
            match algo {
                Algo::Ring => match proto {
                    Proto::Ll => bus = (bus * 0.5).min(caps.ll_max_bw),
                    Proto::Ll128 => bus = (bus * 0.92).min(ch * caps.per_ch_max_ring_ll128_bw),
                    Proto::Simple => {}
                },
                Algo::Tree => {
                    bus = (bus * 0.92).min(ch * caps.per_ch_max_tree_bw);
                    match proto {
                        Proto::Ll => bus = (bus / 3.8).min(caps.ll_max_bw),
                        Proto::Ll128 => bus = (bus * 7.0 / 9.0).min(ch * caps.per_ch_max_tree_ll128_bw),
                        Proto::Simple => {}
                    }
                }
            }
            let algbw = match algo {
                Algo::Ring if ranks >= 2 => bus * n / (2.0 * (n - 1.0)),
                Algo::Ring => bus,
                Algo::Tree => bus * 0.5,
            };
            let hw = hw_latency_us(nvl, algo, proto);
            let latency = base_latency_us(algo, proto) + 2.0 * (n - 1.0) * hw;

            let proto_on = match env.proto {
                Some(p) => p == proto && !(proto == Proto::Ll128 && input.sm < 70),
                None => proto != Proto::Ll128 || (type_intra <= PathClass::Nvl && input.sm >= 70),
            };
            let algo_on = env.algo.is_none_or(|a| a == algo);
            let enabled = proto_on && algo_on && bus > 0.0 && ranks >= 2;
            entries.push(TunerEntry {
                algo,
                proto,
                enabled,
                latency_us: latency,
                busbw_gbps: bus,
                algbw_gbps: algbw,
            });
        }
    }
    let ring_simple_threads = if graph.bw_per_channel_gbps * ch <= PCI_BW_GBPS {
        256
    } else {
        NCCL_SIMPLE_MAX_NTHREADS
    };
    let max_threads = [
        [
            NCCL_LL_MAX_NTHREADS,
            NCCL_LL128_MAX_NTHREADS,
            NCCL_SIMPLE_MAX_NTHREADS,
        ],
        [NCCL_LL_MAX_NTHREADS, NCCL_LL128_MAX_NTHREADS, ring_simple_threads],
    ];
    let base = [
        NCCL_LL_THREAD_THRESHOLD,
        NCCL_LL128_THREAD_THRESHOLD,
        NCCL_SIMPLE_THREAD_THRESHOLD,
    ];
    let mut thread_thresholds = [base, base];
    thread_thresholds[Algo::Ring.index()][Proto::Ll.index()] *= ranks.max(1) as u64;
    TunerTable {
        ranks,
        entries,
        comm_channels: graph.comm_channels.max(1),
        max_threads,
        thread_thresholds,
    }
}

impl TunerTable {
    /// The entry for (algo, proto).
    pub fn entry(&self, algo: Algo, proto: Proto) -> &TunerEntry {
        &self.entries[algo.index() * 3 + proto.index()]
    }

    /// NCCL's time for one entry and size (`tuning.cc` `ncclTopoGetAlgoTime`, one pipelined op):
    /// latency + bytes / (1000 × algBw) µs, the tree's algBw scaled by the per-size correction.
    /// Returns (time µs, algBw used GB/s).
    fn time(&self, e: &TunerEntry, bytes: Bytes) -> (f64, f64) {
        let mut bw = e.algbw_gbps;
        if e.algo == Algo::Tree {
            bw *= tree_correction_factor(e.proto, bytes);
        }
        (e.latency_us + bytes.0 as f64 / (1000.0 * bw), bw)
    }

    /// Estimated time, µs, of every enabled (algo, proto) for an allreduce of `bytes`, in NCCL's
    /// order.
    pub fn estimate(&self, bytes: Bytes) -> Vec<(Algo, Proto, f64)> {
        self.entries
            .iter()
            .filter(|e| e.enabled)
            .map(|e| (e.algo, e.proto, self.time(e, bytes).0))
            .collect()
    }

    /// NCCL's choice for an allreduce of `bytes` (`enqueue.cc` `topoGetAlgoInfo`): the enabled pair
    /// with the smallest estimated time (the first in Tree < Ring, LL < LL128 < Simple order on a
    /// tie); then channels are removed one at a time while bytes < channels × threads × threshold
    /// (down to 1), threads halved while that still holds and they are a multiple of 128, Simple
    /// gets one extra warp on rings and four on trees, at least 3 warps, trees always 640 threads.
    /// One rank: Ring/Simple at zero time (`updateCollCostTable`).
    pub fn select(&self, bytes: Bytes) -> Result<Choice, NcclError> {
        if self.ranks <= 1 {
            return Ok(Choice {
                algo: Algo::Ring,
                proto: Proto::Simple,
                channels: 1,
                nthreads: NCCL_SIMPLE_MAX_NTHREADS,
                latency_us: 0.0,
                algbw_gbps: 0.0,
                time_us: 0.0,
            });
        }
        let mut best: Option<(&TunerEntry, f64, f64)> = None;
        for e in self.entries.iter().filter(|e| e.enabled) {
            let (t, bw) = self.time(e, bytes);
            if t.is_finite() && t >= 0.0 && best.is_none_or(|(_, bt, _)| t < bt) {
                best = Some((e, t, bw));
            }
        }
        let Some((e, time_us, algbw)) = best else {
            return Err(NcclError::NoAlgorithm(String::new()));
        };
        let a = e.algo.index();
        let p = e.proto.index();
        let threshold = self.thread_thresholds[a][p];
        let mut nc = self.comm_channels.max(1);
        let mut nt = self.max_threads[a][p];
        let b = bytes.0;
        while b < nc as u64 * nt as u64 * threshold && nc >= 2 {
            nc -= 1;
        }
        while b < nc as u64 * nt as u64 * threshold && nt.is_multiple_of(128) {
            nt /= 2;
        }
        if e.proto == Proto::Simple {
            match e.algo {
                Algo::Ring => nt += WARP_SIZE,
                Algo::Tree => nt += 4 * WARP_SIZE,
            }
        }
        if nt / WARP_SIZE < 3 {
            nt = 3 * WARP_SIZE;
        }
        if e.algo == Algo::Tree {
            nt = NCCL_MAX_NTHREADS;
        }
        Ok(Choice {
            algo: e.algo,
            proto: e.proto,
            channels: nc,
            nthreads: nt,
            latency_us: e.latency_us,
            algbw_gbps: algbw,
            time_us,
        })
    }
}

#[cfg(test)]
// Speeds, caps and correction factors are exact constants copied through unchanged: exact equality
// is the point of those assertions.
#[allow(clippy::float_cmp)]
mod tests {
    use super::*;

    fn input(ranks: u32, sm: u32, hops: &[(PathClass, f64)]) -> NcclTopoInput {
        NcclTopoInput {
            ranks,
            sm,
            cpu_amd: false,
            gpu_link_gbps: 48.0,
            ring_path: hops
                .iter()
                .map(|&(class, bw_gbps)| PathInfo { class, bw_gbps })
                .collect(),
            nvlink: false,
        }
    }

    fn uniform(ranks: u32, sm: u32, class: PathClass, bw: f64) -> NcclTopoInput {
        input(ranks, sm, &vec![(class, bw); ranks as usize])
    }

    /// The reference's 8-rank Gen5 P2P box with the graph it states: 2 × 22.5 GB/s.
    fn reference_table(env: &NcclEnv) -> TunerTable {
        let inp = uniform(8, 120, PathClass::Pxb, 48.0);
        tune(&RingGraph::given(2, 22.5, PathClass::Pxb), 8, &inp, env)
    }

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn names() {
        assert_eq!(Algo::Ring.as_str(), "Ring");
        assert_eq!(Algo::Tree.as_str(), "Tree");
        assert_eq!(Proto::Ll.as_str(), "LL");
        assert_eq!(Proto::Ll128.as_str(), "LL128");
        assert_eq!(Proto::Simple.as_str(), "Simple");
    }

    #[test]
    fn p2p_level_and_transport() {
        let env = NcclEnv::default();
        assert_eq!(p2p_level(&env, false, 8), PathClass::Pxb);
        assert_eq!(p2p_level(&env, true, 8), PathClass::Pxb);
        assert_eq!(p2p_level(&env, true, 2), PathClass::Sys);
        assert_eq!(p2p_level(&env, false, 2), PathClass::Pxb);
        let lvl = NcclEnv {
            p2p_level: Some(PathClass::Sys),
            ..env
        };
        assert_eq!(p2p_level(&lvl, false, 8), PathClass::Sys);
        let off = NcclEnv {
            p2p_disable: true,
            ..lvl
        };
        assert_eq!(p2p_level(&off, true, 2), PathClass::Loc);
        assert_eq!(transport(PathClass::Pix, true, PathClass::Loc), Transport::Shm);

        assert_eq!(transport(PathClass::Pxb, true, PathClass::Pxb), Transport::P2p);
        assert_eq!(transport(PathClass::Phb, true, PathClass::Pxb), Transport::Shm);
        assert_eq!(transport(PathClass::Pix, false, PathClass::Sys), Transport::Shm);
    }

    #[test]
    fn gen5_uniform_48_gives_2x24_as_search_cc_does() {
        // Start: first SM100 speed ≤ 48 with 45 × 1 ≤ 48 → 45: 1 channel (48 − 45 = 3 left).
        // 1 × 45 < 48 → lower speeds while next/45 > 0.49: 40 (1 ch), 30 (1 ch), 24: 2 channels
        // (48 − 24 − 24 = 0) → 2 × 24 = 48 > 45, kept, and 48 ≥ totalBw 48 ends pass 1.
        // 24 < 25 → no split; pass 2 finds nothing with ≥ 2 channels above 24.
        let g = search_ring(&uniform(8, 120, PathClass::Pxb, 48.0), &NcclEnv::default());
        assert_eq!((g.channels, g.bw_per_channel_gbps), (2, 24.0));
        assert!(!g.simple_order_fallback);
        assert_eq!(g.type_intra, PathClass::Pxb);
        // Tree: start speed with 2 × s ≤ 48 × 8/7 = 54.9 → 24; 2 chains fit → 2 × 24.
        assert_eq!(g.tree_bw_per_channel_gbps, 24.0);
        assert_eq!(g.comm_channels, 4);
    }

    #[test]
    fn best_hop_below_48_gives_reference_2x22_5() {
        // Hops of 47 GB/s: 1 × 45 at the start; 40, 30 give 1 channel; 24 gives 1 (47 < 48);
        // 20 / 45 = 0.44 ≤ 0.49 stops pass 1 at 1 × 45. 45 ≥ 25 → split: 2 × 22.5 (DupChannels).
        // Pass 2 from 20 upwards never fits 2 channels above 22.5 (2 × 24 = 48 > 47).
        let g = search_ring(&uniform(8, 120, PathClass::Phb, 47.0), &NcclEnv::default());
        assert_eq!((g.channels, g.bw_per_channel_gbps), (2, 22.5));
        assert_eq!(g.type_intra, PathClass::Phb);
        // Tree (min = max = 2 channels): 24 fits once only, 20 twice → 2 × 20.
        assert_eq!(g.tree_bw_per_channel_gbps, 20.0);
        assert_eq!(g.comm_channels, 4);
    }

    #[test]
    fn intel_host_bridge_overhead_gives_2x20() {
        // PHB through an Intel root complex: 48 / 1.2 = 40 GB/s per hop. 1 × 40, then 20 (0.5 > 0.49):
        // 2 × 20 = 40 is not better; 19/40 < 0.49 stops. 40 ≥ 25 → split 2 × 20.
        let g = search_ring(&uniform(8, 120, PathClass::Phb, 40.0), &NcclEnv::default());
        assert_eq!((g.channels, g.bw_per_channel_gbps), (2, 20.0));
    }

    #[test]
    fn dual_amd_cross_socket_is_degenerate() {
        // Dual Turin, 4 + 4 GPUs direct-attached: two hops cross the inter-socket link, which NCCL
        // models at AMD_BW = 16 GB/s, below the SM ≥ 100 array's minimum 18 → no speed is feasible
        // → simple order: 1 channel at 0.1 GB/s, path SYS.
        let mut hops = vec![(PathClass::Phb, 48.0); 8];
        hops[3] = (PathClass::Sys, 16.0);
        hops[7] = (PathClass::Sys, 16.0);
        let mut inp = input(8, 120, &hops);
        inp.cpu_amd = true;
        let g = search_ring(&inp, &NcclEnv::default());
        assert!(g.simple_order_fallback);
        assert_eq!(
            (g.channels, g.bw_per_channel_gbps, g.type_intra),
            (1, 0.1, PathClass::Sys)
        );
        assert_eq!(g.comm_channels, 2);
        // The tuner then sees busBw 0.1: Ring/Simple gets 256 threads (0.1 ≤ 12 GB/s).
        let t = tune(&g, 8, &inp, &NcclEnv::default());
        assert_eq!(t.max_threads[Algo::Ring.index()][Proto::Simple.index()], 256);
        // Same hops on Hopper (array down to 3 GB/s): 16 → 15 fits once → 1 × 15, no split.
        inp.sm = 90;
        let g = search_ring(&inp, &NcclEnv::default());
        assert!(!g.simple_order_fallback);
        assert_eq!(
            (g.channels, g.bw_per_channel_gbps, g.type_intra),
            (1, 15.0, PathClass::Sys)
        );
    }

    #[test]
    fn min_max_nchannels() {
        let inp = uniform(8, 120, PathClass::Pxb, 48.0);
        let max1 = NcclEnv {
            max_nchannels: Some(1),
            ..NcclEnv::default()
        };
        let g = search_ring(&inp, &max1);
        assert_eq!((g.channels, g.comm_channels), (2, 1));
        let min16 = NcclEnv {
            min_nchannels: Some(16),
            ..NcclEnv::default()
        };
        assert_eq!(search_ring(&inp, &min16).comm_channels, 16);
        let both = NcclEnv {
            min_nchannels: Some(100),
            max_nchannels: Some(0),
            ..NcclEnv::default()
        };
        // MAX is clamped to ≥ 1 and MIN to ≤ MAXCHANNELS; MIN is applied last (copies channels).
        assert_eq!(search_ring(&inp, &both).comm_channels, 64);
        // Trimming starts from the runtime channels: 1 MiB Ring/LL with MAX=1 stays on 1 channel.
        let t = tune(&g, 8, &inp, &max1);
        assert_eq!(t.select(Bytes(1 << 20)).unwrap().channels, 1);
    }

    #[test]
    fn reference_worked_numbers_8_ranks_gen5() {
        // Ring/LL: latency 6.6 + 2 × 7 × 1.0 = 20.6 µs; busBw = 2 × 22.5 × 0.5 = 22.5 (≤ 282);
        // algBw = 22.5 × 8 / 14 = 12.857 GB/s.
        // 14 KB = 14,336 B → 20.6 + 14,336 / 12,857.14 = 21.715 µs;
        // 115 KB = 114,688 B → 20.6 + 8.920 = 29.520 µs.
        let t = reference_table(&NcclEnv::default());
        let e = t.entry(Algo::Ring, Proto::Ll);
        assert!(close(e.latency_us, 20.6, 1e-9));
        assert!(close(e.algbw_gbps, 12.857_142_857, 1e-6));
        let c = t.select(Bytes(14_336)).unwrap();
        assert_eq!((c.algo, c.proto), (Algo::Ring, Proto::Ll));
        assert!(close(c.time_us, 21.715, 0.001), "{}", c.time_us);
        // Ring LL threshold 8 × 8 = 64 B/thread × 512 threads: 14,336 < 2 × 32,768 → 1 channel;
        // then 14,336 < 1 × 512 × 64 → 256 threads, < 256 × 64 = 16,384 → 128, < 128 × 64 = 8,192
        // is false → 128 threads (4 warps ≥ 3).
        assert_eq!(c.channels, 1);
        assert_eq!(c.nthreads, 128);
        let c = t.select(Bytes(114_688)).unwrap();
        assert_eq!((c.algo, c.proto), (Algo::Ring, Proto::Ll));
        assert!(close(c.time_us, 29.520, 0.001), "{}", c.time_us);
        // 114,688 ≥ 65,536 (2 channels × 32,768) but < 98,304? no: < 3 × 32,768 = 98,304 is false,
        // < 4 × 32,768 = 131,072 is true → 4 − 1 = 3 channels.
        assert_eq!(c.channels, 3);
        // Under 64 KiB ring/LL always runs on one channel.
        assert_eq!(t.select(Bytes(65_535)).unwrap().channels, 1);
        assert_eq!(t.select(Bytes(65_536)).unwrap().channels, 2);
    }

    #[test]
    fn other_entries_reference_graph() {
        let t = reference_table(&NcclEnv::default());
        // Ring/Simple: 8.4 + 14 × 5.7 = 88.2 µs; algBw 45 × 8/14 = 25.714.
        let e = t.entry(Algo::Ring, Proto::Simple);
        assert!(close(e.latency_us, 88.2, 1e-9));
        assert!(close(e.algbw_gbps, 25.714_285_714, 1e-6));
        // Tree/LL: 6.8 + 2 × 7 × 1.0 = 20.8 µs; busBw min(45 × 0.92, 2 × 70) = 41.4 → / 3.8 =
        // 10.895; algBw × 0.5 = 5.447 GB/s.
        let e = t.entry(Algo::Tree, Proto::Ll);
        assert!(close(e.latency_us, 20.8, 1e-9));
        assert!(close(e.algbw_gbps, 41.4 / 3.8 * 0.5, 1e-9));
        // Tree/Simple: 8.4 + 14 × 4.0 = 64.4 µs, algBw 41.4 × 0.5 = 20.7.
        let e = t.entry(Algo::Tree, Proto::Simple);
        assert!(close(e.latency_us, 64.4, 1e-9));
        assert!(close(e.algbw_gbps, 20.7, 1e-9));
        // Tree correction at 14,336 B: 14,336 / 64 = 224 → log2 7 → LL 0.7.
        assert_eq!(tree_correction_factor(Proto::Ll, Bytes(14_336)), 0.7);
        assert_eq!(tree_correction_factor(Proto::Simple, Bytes(63)), 1.0);
        assert_eq!(tree_correction_factor(Proto::Simple, Bytes(64)), 0.9);
        assert_eq!(tree_correction_factor(Proto::Simple, Bytes(256 << 20)), 0.9);
        assert_eq!(tree_correction_factor(Proto::Simple, Bytes(512 << 20)), 1.0);
        let est = t.estimate(Bytes(14_336));
        assert_eq!(est.len(), 4); // LL128 excluded twice
        // Tree/LL at 14,336 B: 20.8 + 14,336 / (5,447.4 × 0.7) = 24.56 µs.
        let tl = est
            .iter()
            .find(|x| (x.0, x.1) == (Algo::Tree, Proto::Ll))
            .unwrap()
            .2;
        assert!(close(
            tl,
            20.8 + 14_336.0 / (1000.0 * 41.4 / 3.8 * 0.5 * 0.7),
            1e-9
        ));
    }

    #[test]
    fn ll128_only_when_named_on_pcie() {
        let t = reference_table(&NcclEnv::default());
        assert!(!t.entry(Algo::Ring, Proto::Ll128).enabled);
        assert!(!t.entry(Algo::Tree, Proto::Ll128).enabled);
        let env = NcclEnv {
            proto: Some(Proto::Ll128),
            ..NcclEnv::default()
        };
        let t = reference_table(&env);
        let e = t.entry(Algo::Ring, Proto::Ll128);
        assert!(e.enabled);
        // 14 + 14 × 2.5 = 49 µs; busBw min(45 × 0.92, 2 × 40) = 41.4.
        assert!(close(e.latency_us, 49.0, 1e-9));
        assert!(close(e.busbw_gbps, 41.4, 1e-9));
        assert!(!t.entry(Algo::Ring, Proto::Ll).enabled);
        let c = t.select(Bytes(1 << 20)).unwrap();
        assert_eq!(c.proto, Proto::Ll128);
        // NVLink-class graphs get LL128 by default.
        let mut inp = uniform(8, 90, PathClass::Nvl, 40.0);
        inp.nvlink = true;
        let t = tune(
            &RingGraph::given(4, 40.0, PathClass::Nvl),
            8,
            &inp,
            &NcclEnv::default(),
        );
        assert!(t.entry(Algo::Ring, Proto::Ll128).enabled);
        // NVLink latency table: Ring/LL 6.6 + 14 × 0.6 = 15.0 µs.
        assert!(close(t.entry(Algo::Ring, Proto::Ll).latency_us, 15.0, 1e-9));
    }

    #[test]
    fn nccl_algo_tree_is_honoured() {
        let env = NcclEnv {
            algo: Some(Algo::Tree),
            ..NcclEnv::default()
        };
        let t = reference_table(&env);
        for bytes in [4_096, 14_336, 1 << 20, 256 << 20] {
            let c = t.select(Bytes(bytes)).unwrap();
            assert_eq!(c.algo, Algo::Tree);
            assert_eq!(c.nthreads, NCCL_MAX_NTHREADS);
        }
        assert!(t.estimate(Bytes(1024)).iter().all(|x| x.0 == Algo::Tree));
    }

    #[test]
    fn large_sizes_pick_simple() {
        // 256 MiB: Ring/Simple 88.2 + 268,435,456 / 25,714.3 = 10,527 µs vs Ring/LL 20.6 + 20,878 µs
        // and Tree/Simple (20.7 × 0.9 correction) 64.4 + 14,409 µs.
        let t = reference_table(&NcclEnv::default());
        let c = t.select(Bytes(256 << 20)).unwrap();
        assert_eq!((c.algo, c.proto), (Algo::Ring, Proto::Simple));
        assert!(close(c.time_us, 88.2 + 268_435_456.0 / 25_714.285_714, 0.01));
        // Simple ring: 4 channels × 512 threads × 64 B ≪ 256 MiB: no trimming; +1 sync warp.
        assert_eq!((c.channels, c.nthreads), (4, 544));
    }

    #[test]
    fn no_algorithm_is_an_error_not_a_panic() {
        let mut inp = uniform(8, 60, PathClass::Pxb, 12.0);
        inp.gpu_link_gbps = 12.0;
        let env = NcclEnv {
            proto: Some(Proto::Ll128),
            ..NcclEnv::default()
        };
        let t = tune(&RingGraph::given(1, 12.0, PathClass::Pxb), 8, &inp, &env);
        assert!(matches!(t.select(Bytes(1024)), Err(NcclError::NoAlgorithm(_))));
    }

    #[test]
    fn single_rank_is_free() {
        let inp = uniform(1, 120, PathClass::Loc, 48.0);
        let g = search_ring(&inp, &NcclEnv::default());
        let c = tune(&g, 1, &inp, &NcclEnv::default())
            .select(Bytes(1 << 20))
            .unwrap();
        assert_eq!(c.time_us, 0.0);
    }

    #[test]
    fn validate_catches_bad_input() {
        let mut inp = uniform(8, 120, PathClass::Pxb, 48.0);
        assert!(inp.validate().is_ok());
        inp.ring_path.pop();
        assert!(inp.validate().is_err());
        let mut inp = uniform(8, 120, PathClass::Pxb, f64::NAN);
        assert!(inp.validate().is_err());
        inp.ring_path[0].bw_gbps = -1.0;
        assert!(inp.validate().is_err());
    }

    #[test]
    fn protocol_facts() {
        assert_eq!(NCCL_STEPS, 8);
        assert_eq!(buff_bytes(Proto::Ll), 512 * 1024);
        assert_eq!(buff_bytes(Proto::Ll128), 4_915_200); // ≈ 4.69 MiB
        assert_eq!(buff_bytes(Proto::Simple), 4 << 20);
        assert_eq!(slot_bytes(Proto::Ll), 65_536);
        assert_eq!(slot_bytes(Proto::Ll128), 614_400);
        assert_eq!(slot_bytes(Proto::Simple), 524_288);
        assert_eq!(ring_allreduce_chunk_bytes(Proto::Simple), 2 << 20);
        assert_eq!(ring_allreduce_chunk_bytes(Proto::Ll), 32_768);
        assert_eq!(ring_allreduce_chunk_bytes(Proto::Ll128), 576_000);
        assert_eq!(Proto::Ll.payload_efficiency(), 0.5);
        assert_eq!(Proto::Ll128.payload_efficiency(), 0.9375);
        assert_eq!(Proto::Simple.payload_efficiency(), 1.0);
    }
}
