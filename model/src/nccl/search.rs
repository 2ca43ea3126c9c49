//! NCCL's ring and tree channel search on one node (`search.cc` `ncclTopoCompute`), reconciled
//! and duplicated into the runtime channel count as `init.cc` and `connect.cc` do.

use super::limits::{MAXCHANNELS, RING_SEARCH_MAX_CHANNELS, SIMPLE_ORDER_BW_GBPS};
use super::{NcclEnv, NcclTopoInput, NcclVersion, PathInfo};
use crate::hw::PathClass;

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
    search_graph_for(input, pattern, min_channels, max_channels, NcclVersion::LATEST)
}

/// [`search_graph`] with the speed array of NCCL release `version` ([`NcclVersion::speed_array`]).
pub fn search_graph_for(
    input: &NcclTopoInput,
    pattern: Pattern,
    min_channels: u32,
    max_channels: u32,
    version: NcclVersion,
) -> SearchResult {
    let n = input.ranks as usize;
    let speeds = version.speed_array(input.sm);
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
    let hops = hop_speeds(path);
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

    let Some((ch, bw)) = first_pass(
        speeds,
        &hops,
        max_bw,
        start_total_bw,
        system_total_bw,
        min_ch,
        max_ch,
    ) else {
        return fallback;
    };
    let (ch, bw) = dup_channels(input.sm, ch, bw, max_ch);
    let (ch, bw) = second_pass(pattern, speeds, &hops, ch, bw, max_ch);
    SearchResult {
        channels: ch,
        bw_gbps: bw,
        type_intra,
        simple_order_fallback: false,
    }
}

/// Each hop's bandwidth, GB/s (not finite or negative: 0).
fn hop_speeds(path: &[PathInfo]) -> Vec<f64> {
    path.iter()
        .map(|h| {
            if h.bw_gbps.is_finite() {
                h.bw_gbps.max(0.0)
            } else {
                0.0
            }
        })
        .collect()
}

/// Whether `c` channels at `s` GB/s, at least `min`, beat `best` (more total bandwidth).
fn better(best: Option<(u32, f64)>, c: u32, s: f64, min: u32) -> bool {
    c >= min && c > 0 && best.is_none_or(|(bc, bs)| c as f64 * s > bc as f64 * bs)
}

/// Pass 1: from the first speed that fits the best hop and the GPU's link, down the speed array
/// while the next speed is > 0.49 × the best found, until `max_ch` channels or the system's
/// bandwidth is reached. `None`: no speed gives `min_ch` channels.
fn first_pass(
    speeds: &[f64],
    hops: &[f64],
    max_bw: f64,
    start_total_bw: f64,
    system_total_bw: f64,
    min_ch: u32,
    max_ch: u32,
) -> Option<(u32, f64)> {
    let last = speeds.len() - 1;
    let mut idx = 0;
    while idx < last && (speeds[idx] > max_bw || speeds[idx] * min_ch as f64 > start_total_bw) {
        idx += 1;
    }
    let mut best: Option<(u32, f64)> = None;
    loop {
        let s = speeds[idx];
        let c = channels_at(hops, s, max_ch);
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
    best
}

/// Channel doubling (ncclTopoDupChannels): twice the channels (within `max_ch`) at the speed split
/// between them, when the speed is ≥ 25 GB/s (not on SM > 80 below 50 GB/s with > 4 channels).
fn dup_channels(sm: u32, ch: u32, bw: f64, max_ch: u32) -> (u32, f64) {
    let (mut ch, mut bw) = (ch, bw);
    if bw >= 25.0 && !(sm > 80 && bw < 50.0 && ch > 4) {
        let dup = (ch * 2).min(max_ch);
        bw /= dup.div_ceil(ch) as f64;
        ch = dup;
    }
    (ch, bw)
}

/// Pass 2: try to raise the speed with at least the channels found. Rings try every higher speed
/// and keep any better total; trees raise the speed step by step while it improves and stays < 2×
/// the start.
fn second_pass(pattern: Pattern, speeds: &[f64], hops: &[f64], ch: u32, bw: f64, max_ch: u32) -> (u32, f64) {
    let (mut ch, mut bw) = (ch, bw);
    let last = speeds.len() - 1;
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
                let c = channels_at(hops, s, max_ch);
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
                let c = channels_at(hops, intra, max_ch);
                if better(Some((ch, bw)), c, intra, min2) {
                    ch = c;
                    bw = intra;
                }
            }
        }
    }
    (ch, bw)
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
    let v = env.version;
    // NCCL_GRAPH_FILE: a graph the file gives replaces its search (`search.cc` `ncclTopoCompute`
    // returns the graph `ncclTopoGetGraphFromXml` read when it has channels).
    let given = |g: super::GraphGiven| SearchResult {
        channels: g.channels.clamp(1, RING_SEARCH_MAX_CHANNELS),
        bw_gbps: g.bw_mbps as f64 / 1000.0,
        type_intra: g.type_intra,
        simple_order_fallback: false,
    };
    let file = env.graph.unwrap_or(super::GraphFile {
        ring: None,
        tree: None,
    });
    let ring = match file.ring {
        Some(g) => given(g),
        None => search_graph_for(input, Pattern::Ring, 1, RING_SEARCH_MAX_CHANNELS, v),
    };
    let tree = match file.tree {
        Some(g) => given(g),
        None if input.ranks <= 1 => ring,
        None => search_graph_for(input, Pattern::Tree, ring.channels, ring.channels, v),
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

#[cfg(test)]
// Speeds are exact constants copied through unchanged: exact equality is the point of those
// assertions.
#[allow(clippy::float_cmp)]
mod tests {
    use super::*;
    use crate::nccl::test_inputs::{input, uniform};
    use crate::nccl::{Algo, Proto, tune};
    use crate::units::Bytes;

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
}
