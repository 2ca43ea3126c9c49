//! NCCL's tuner for allreduce on one node (`tuning.cc` `ncclTopoTuneModel`, `ncclTopoGetAlgoTime`)
//! and the per-call choice with channel and thread trimming (`enqueue.cc` `topoGetAlgoInfo`).

use super::limits::{
    NCCL_LL_MAX_NTHREADS, NCCL_LL_THREAD_THRESHOLD, NCCL_LL128_MAX_NTHREADS, NCCL_LL128_THREAD_THRESHOLD,
    NCCL_MAX_NTHREADS, NCCL_SIMPLE_MAX_NTHREADS, NCCL_SIMPLE_THREAD_THRESHOLD, PCI_BW_GBPS, WARP_SIZE,
};
use super::search::RingGraph;
use super::{Algo, NcclEnv, NcclError, NcclTopoInput, Proto};
use crate::hw::PathClass;
use crate::units::Bytes;

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
    super::NcclVersion::LATEST.arch_caps(sm)
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
    /// A tuner plugin's table (issue #17, 3), consulted per call.
    pub plugin: Option<super::TunerPlugin>,
}

/// `NCCL_NTHREADS` / `NCCL_LL128_NTHREADS` as `tuning.cc` `getNthreads` reads them: a value ≤ 0
/// (or unset) keeps the default; one that is not a multiple of 32 gives the maximum; above the
/// maximum the maximum, below the minimum the minimum.
pub fn get_nthreads(env: Option<i64>, min: u32, max: u32, def: u32) -> u32 {
    match env {
        Some(nt) if nt > 0 => {
            if nt % i64::from(WARP_SIZE) != 0 || nt > i64::from(max) {
                max
            } else if nt < i64::from(min) {
                min
            } else {
                nt as u32
            }
        }
        _ => def,
    }
}

/// Per-step latency of the hardware class for an NCCL release: [`hw_latency_us`], except PCI
/// Tree/Simple, 28 µs through 2.22 ([`super::NcclVersion::pci_tree_simple_latency_us`]).
pub fn hw_latency_us_for(v: super::NcclVersion, nvlink: bool, algo: Algo, proto: Proto) -> f64 {
    if !nvlink && algo == Algo::Tree && proto == Proto::Simple {
        v.pci_tree_simple_latency_us()
    } else {
        hw_latency_us(nvlink, algo, proto)
    }
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
/// - busBw = channels × bwIntra, then Ring-LL min(×0.5, llMaxBw) (×1/4 through NCCL 2.20,
///   [`super::NcclVersion::ring_ll_allreduce_factor`]); Ring-LL128 min(×0.92, ch ×
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
    let caps = env.version.arch_caps(input.sm);
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
                    Proto::Ll => bus = (bus * env.version.ring_ll_allreduce_factor()).min(caps.ll_max_bw),
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
            let hw = hw_latency_us_for(env.version, nvl, algo, proto);
            let latency = base_latency_us(algo, proto) + 2.0 * (n - 1.0) * hw;

            let proto_on = match env.proto_enable {
                Some(row) => row[proto.index()] && !(proto == Proto::Ll128 && input.sm < 70),
                None => proto != Proto::Ll128 || (type_intra <= PathClass::Nvl && input.sm >= 70),
            };
            let algo_on = env.algo_enable.is_none_or(|row| row[algo.index()]);
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
    let ring_simple_default = if graph.bw_per_channel_gbps * ch <= PCI_BW_GBPS {
        256
    } else {
        NCCL_SIMPLE_MAX_NTHREADS
    };
    // `tuning.cc` `ncclTopoTuneModel`: NCCL_NTHREADS for LL and Simple (minimum 2 warps),
    // NCCL_LL128_NTHREADS for LL128 (minimum a quarter of its maximum).
    let nt = |max: u32, def: u32| get_nthreads(env.nthreads, 2 * WARP_SIZE, max, def);
    let ll = nt(NCCL_LL_MAX_NTHREADS, NCCL_LL_MAX_NTHREADS);
    let ll128 = get_nthreads(
        env.ll128_nthreads,
        NCCL_LL128_MAX_NTHREADS / 4,
        NCCL_LL128_MAX_NTHREADS,
        NCCL_LL128_MAX_NTHREADS,
    );
    let max_threads = [
        [ll, ll128, nt(NCCL_SIMPLE_MAX_NTHREADS, NCCL_SIMPLE_MAX_NTHREADS)],
        [ll, ll128, nt(NCCL_SIMPLE_MAX_NTHREADS, ring_simple_default)],
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
        plugin: env.tuner.clone(),
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
        let Some((mut e, mut time_us, mut algbw)) = best else {
            return Err(NcclError::NoAlgorithm(String::new()));
        };
        // A tuner plugin's row gives its pair cost 0 (ext-tuner/example `pluginGetCollInfo`).
        let row = self
            .plugin
            .as_ref()
            .and_then(|pl| pl.choose(bytes.0, self.ranks, |a, p| self.entry(a, p).enabled));
        if let Some(r) = row {
            e = self.entry(r.algo, r.proto);
            (time_us, algbw) = self.time(e, bytes);
        }
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
        // With a plugin loaded its channel count replaces NCCL's: the row's, else the example's
        // initial 1 (`enqueue.cc` `getAlgoInfo`), within the communicator's channels.
        if self.plugin.is_some() {
            nc = row
                .and_then(|r| r.channels)
                .unwrap_or(1)
                .clamp(1, self.comm_channels.max(1));
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
    use crate::nccl::search_ring;
    use crate::nccl::test_inputs::{close, reference_table, uniform};

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
        let env = NcclEnv::only_proto(Proto::Ll128);
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
        let env = NcclEnv::only_algo(Algo::Tree);
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
        let env = NcclEnv::only_proto(Proto::Ll128);
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

    /// `NCCL_NTHREADS` through `getNthreads` (tuning.cc): 256 → Simple ring 256 + 1 sync warp at
    /// 256 MiB; 100 (not a multiple of 32) → the maximum 512 (+32); 32 (< 2 warps) → 64 (+32).
    #[test]
    fn nccl_nthreads_is_clamped_like_nccl() {
        for (given, want) in [(256, 288), (100, 544), (32, 96)] {
            let env = NcclEnv {
                nthreads: Some(given),
                ..NcclEnv::default()
            };
            let c = reference_table(&env).select(Bytes(256 << 20)).unwrap();
            assert_eq!(c.nthreads, want, "NCCL_NTHREADS={given}");
        }
        assert_eq!(get_nthreads(Some(96), 160, 640, 640), 160);
        assert_eq!(get_nthreads(Some(-2), 64, 512, 256), 256);
    }
}
