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

mod envlist;
mod graph_file;
mod hostpath;
mod intercpu;
mod limits;
mod multinode;
mod search;
mod tuner;
mod tuner_plugin;
mod versions;

pub use envlist::{ListError, PROTO_NAMES, algo_names, allreduce_row};
pub use graph_file::{GraphFile, parse_graph_file};
pub use hostpath::{INTEL_P2P_OVERHEAD, hop_bw_gbps, nccl_path_class};
pub use intercpu::{
    AMD_BW_GBPS, CPU_GENERATION_NAMES, CpuGeneration, INTEL_UNKNOWN_GENERATION_GBPS, amd_per_generation,
    inter_cpu_bw_gbps,
};
pub use multinode::{NetEntry, NetTuneInput, choose_net, net_time_us, tune_net};
pub use tuner_plugin::{TunerPlugin, TunerRow, parse_tuner_rows};
pub use versions::{ListSyntax, NcclVersion, VersionError, engine_pinned_nccl};

pub use limits::{
    ALLREDUCE_CHUNKSTEPS, ALLREDUCE_SLICESTEPS, LL_BUFF_BYTES, LL_PAYLOAD_EFFICIENCY, LL128_BUFF_BYTES,
    LL128_PAYLOAD_EFFICIENCY, MAXCHANNELS, NCCL_LL_MAX_NTHREADS, NCCL_LL_THREAD_THRESHOLD,
    NCCL_LL128_MAX_NTHREADS, NCCL_LL128_THREAD_THRESHOLD, NCCL_MAX_NTHREADS, NCCL_SIMPLE_MAX_NTHREADS,
    NCCL_SIMPLE_THREAD_THRESHOLD, NCCL_STEPS, PCI_BW_GBPS, RING_SEARCH_MAX_CHANNELS, SIMPLE_BUFF_BYTES,
    SIMPLE_ORDER_BW_GBPS, WARP_SIZE, buff_bytes, p2p_level, p2p_ring_channel_device_bytes,
    ring_allreduce_chunk_bytes, slot_bytes, transport,
};
pub use search::{Pattern, RingGraph, SearchResult, search_graph, search_ring, speed_array};
pub use tuner::{
    ArchCaps, Choice, TunerEntry, TunerTable, arch_caps, base_latency_us, get_nthreads, hw_latency_us,
    hw_latency_us_for, tree_correction_factor, tune,
};

use crate::hw::PathClass;

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

    /// The algorithm `NCCL_ALGO` names, case-insensitively as NCCL reads it (`Ring`, `ring`, `TREE`).
    pub fn parse(name: &str) -> Option<Algo> {
        Algo::ALL
            .into_iter()
            .find(|a| a.as_str().eq_ignore_ascii_case(name))
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

    /// The protocol `NCCL_PROTO` names, case-insensitively as NCCL reads it (`LL128`, `simple`).
    pub fn parse(name: &str) -> Option<Proto> {
        Proto::ALL
            .into_iter()
            .find(|p| p.as_str().eq_ignore_ascii_case(name))
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
    /// width × lane rate / 80, the inter-CPU link by release and CPU generation: [`inter_cpu_bw_gbps`]), with
    /// Intel's P2P-through-host-bridge overhead (each channel charged 6/5 of its speed on PHB paths
    /// only) folded in as bandwidth ÷ 1.2 ([`hop_bw_gbps`]).
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

/// The NCCL environment variables this module honours, and the NCCL release. `Default` = none
/// set, NCCL 2.30.7.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct NcclEnv {
    /// `NCCL_P2P_LEVEL` (LOC, NVL, PIX, PXB, PHB, SYS).
    pub p2p_level: Option<PathClass>,
    /// `NCCL_P2P_DISABLE=1` (wins over `NCCL_P2P_LEVEL`, as in `paths.cc` `ncclGetLevel`).
    pub p2p_disable: bool,
    /// `NCCL_PROTO`'s allreduce row (LL, LL128, Simple; [`allreduce_row`]): exactly the protocols
    /// on — LL128 included even on PCIe. `None`: NCCL's defaults.
    pub proto_enable: Option<[bool; 3]>,
    /// `NCCL_ALGO`'s allreduce row for (Tree, Ring). `None`: both.
    pub algo_enable: Option<[bool; 2]>,
    /// `NCCL_MIN_NCHANNELS` (runtime channels, `connect.cc` `ncclMinNchannels`).
    pub min_nchannels: Option<u32>,
    /// `NCCL_MAX_NCHANNELS` (runtime channels, `connect.cc` `ncclMaxNchannels`).
    pub max_nchannels: Option<u32>,
    // Collective options as users set them (issue #17, 3):
    /// `NCCL_NTHREADS` as given (`tuning.cc` `getNthreads` clamps it per protocol).
    pub nthreads: Option<i64>,
    /// `NCCL_LL128_NTHREADS` as given.
    pub ll128_nthreads: Option<i64>,
    /// `NCCL_LL_BUFFSIZE`, `NCCL_LL128_BUFFSIZE`, `NCCL_BUFFSIZE` (bytes per connection buffer, in
    /// protocol order; `init.cc` `computeBuffSizes`).
    pub buffsize: [Option<u64>; 3],
    /// The NCCL release whose tables apply.
    pub version: NcclVersion,
    /// A tuner plugin's table (NCCL's example plugin, `ext-tuner/example`), rows in file order.
    pub tuner: Option<TunerPlugin>,
    /// `NCCL_GRAPH_FILE`: the channels and per-channel bandwidth a graph file fixes.
    pub graph: Option<GraphFile>,
}

/// What an `NCCL_GRAPH_FILE` fixes for one graph.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GraphGiven {
    /// Channels (`<channel>` elements of the ring graph).
    pub channels: u32,
    /// Per-channel bandwidth (`speedintra`), in MB/s (10⁻³ GB/s) so the struct stays `Eq`.
    pub bw_mbps: u64,
    /// The graph's intra-node path type (`typeintra`).
    pub type_intra: PathClass,
}

impl NcclEnv {
    /// Only protocol `p` (what `NCCL_PROTO=<p>` gives).
    pub fn only_proto(p: Proto) -> NcclEnv {
        let mut row = [false; 3];
        row[p.index()] = true;
        NcclEnv {
            proto_enable: Some(row),
            ..NcclEnv::default()
        }
    }

    /// Only algorithm `a` (what `NCCL_ALGO=<a>` gives).
    pub fn only_algo(a: Algo) -> NcclEnv {
        let mut row = [false; 2];
        row[a.index()] = true;
        NcclEnv {
            algo_enable: Some(row),
            ..NcclEnv::default()
        }
    }

    /// The connection buffer of a protocol, bytes on the wire: the variable's value or NCCL's
    /// default ([`buff_bytes`]).
    pub fn buff_bytes(&self, proto: Proto) -> u64 {
        self.buffsize[proto.index()]
            .unwrap_or_else(|| buff_bytes(proto))
            .max(1)
    }

    /// One of the `NCCL_STEPS` slots of a protocol's buffer (`enqueue.cc`: `stepSize = buffSize /
    /// NCCL_STEPS`).
    pub fn slot_bytes(&self, proto: Proto) -> u64 {
        (self.buff_bytes(proto) / NCCL_STEPS as u64).max(1)
    }
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

/// Inputs shared by the tests of the submodules.
#[cfg(test)]
mod test_inputs {
    use super::*;

    pub(super) fn input(ranks: u32, sm: u32, hops: &[(PathClass, f64)]) -> NcclTopoInput {
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

    pub(super) fn uniform(ranks: u32, sm: u32, class: PathClass, bw: f64) -> NcclTopoInput {
        input(ranks, sm, &vec![(class, bw); ranks as usize])
    }

    /// The reference's 8-rank Gen5 P2P box with the graph it states: 2 × 22.5 GB/s.
    pub(super) fn reference_table(env: &NcclEnv) -> TunerTable {
        let inp = uniform(8, 120, PathClass::Pxb, 48.0);
        tune(&RingGraph::given(2, 22.5, PathClass::Pxb), 8, &inp, env)
    }

    pub(super) fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use test_inputs::uniform;

    #[test]
    fn names() {
        assert_eq!(Algo::Ring.as_str(), "Ring");
        assert_eq!(Algo::Tree.as_str(), "Tree");
        assert_eq!(Proto::Ll.as_str(), "LL");
        assert_eq!(Proto::Ll128.as_str(), "LL128");
        assert_eq!(Proto::Simple.as_str(), "Simple");
        for a in Algo::ALL {
            assert_eq!(Algo::parse(a.as_str()), Some(a));
            assert_eq!(Algo::parse(&a.as_str().to_ascii_uppercase()), Some(a));
        }
        for p in Proto::ALL {
            assert_eq!(Proto::parse(p.as_str()), Some(p));
            assert_eq!(Proto::parse(&p.as_str().to_ascii_lowercase()), Some(p));
        }
        assert_eq!(Algo::parse("CollnetDirect"), None);
        assert_eq!(Proto::parse("LL64"), None);
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
}
