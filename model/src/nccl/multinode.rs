//! NCCL's allreduce tuning when the communicator spans nodes (issue #17 point 4: a TP group over the
//! boxes of a cluster): `tuning.cc` `ncclTopoTuneModel` with nNodes > 1 and `ncclTopoGetAlgoTime`,
//! read at v2.21.5, v2.23.4, v2.25.1, v2.27.5, v2.28.9 and v2.29.7. It says which algorithm (ring or
//! tree) and protocol NCCL runs for a message; the time itself is the simulator's
//! (`tpsim::internode`).
//!
//! What differs from one node ([`super::tune`]):
//! - latencies: the ring takes 2 (n − 1) steps of which `nInterSteps` cross the network (2 (nodes − 1)
//!   from 2.23, 2 nodes before) at `hwLat[NET][ring][p]`, the others at max(intra latency, the CPU's
//!   net overhead: 2 µs AMD, 1 µs otherwise, ×3 for Simple); the tree 2 ((n / nodes − 1) × intra +
//!   log2(nodes) × `hwLat[NET][tree][p]`); with one rank per node the network latency is the tree's;
//! - bandwidth caps: column N2 (two nodes) or N4 (more) of `llMaxBws` (indexed by the CPU vendor:
//!   AMD → row 1, else row 0), `perChMaxRingLL128Bws`, `perChMaxTreeLL128Bws`, `perChMaxTreeBws`,
//!   per release; the tree's LL128 factor is 120/128 instead of 7/9; the bandwidth is the graph's
//!   `bwIntra` on two nodes and `bwInter` beyond;
//! - the ring/Simple "plateau": its latency × 1.4 (× 1.9 before SM 8.0) once a message gives each
//!   channel and rank at least 64 bytes.
//!
//! Assumed, not read from a topology: LL128 follows NCCL's default only as far as the intra-node
//! path (NVLink-class and SM ≥ 7.0); the NIC is taken to sit within `PATH_PXB` of its GPUs (NCCL's
//! `typeInter` condition), as in NVLink servers with a NIC per PCIe switch. `graph.latencyInter` is 0
//! (NCCL's IB and socket plugins report no latency: `net_ib.cc`, `net_socket.cc`).

use super::tuner::{base_latency_us, hw_latency_us_for, tree_correction_factor};
use super::{Algo, NcclEnv, NcclVersion, Proto};

/// What the tuner reads of a communicator that spans nodes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NetTuneInput {
    /// Ranks in all.
    pub ranks: u32,
    /// Nodes (boxes); ranks are spread evenly.
    pub nodes: u32,
    /// Compute capability × 10.
    pub sm: u32,
    /// Whether the host CPUs are AMD x86 (`llMaxBws` row, `getNetOverhead`).
    pub cpu_amd: bool,
    /// Whether the intra-node graph is NVLink-class (NCCL's `typeIntra == LINK_NVL`).
    pub nvlink: bool,
    /// Channels of the graphs (`graphs[a]->nChannels`: the bandwidth's multiplier).
    pub channels: u32,
    /// Channels the communicator runs (`comm->nChannels`: the ring plateau's divisor).
    pub comm_channels: u32,
    /// Per-channel bandwidth inside a node (`bwIntra`), GB/s: used on two nodes.
    pub bw_intra_gbps: f64,
    /// Per-channel bandwidth across nodes (`bwInter`), GB/s: used beyond two nodes.
    pub bw_inter_gbps: f64,
}

/// One (algorithm, protocol) of the multi-node table.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NetEntry {
    pub algo: Algo,
    pub proto: Proto,
    /// Whether NCCL may pick it (environment and LL128 rules).
    pub enabled: bool,
    /// Latency, µs.
    pub latency_us: f64,
    /// Algorithm bandwidth, GB/s (before the tree's per-size correction).
    pub algbw_gbps: f64,
}

/// Bandwidth caps of a multi-node communicator, GB/s.
#[derive(Debug, Clone, Copy, PartialEq)]
struct NetCaps {
    ll_max_bw: f64,
    per_ch_ring_ll128: f64,
    per_ch_tree_ll128: f64,
    per_ch_tree: f64,
}

/// The N2 (`two = true`) or N4 column of NCCL's cap tables for a release and GPU generation. The
/// Blackwell row exists from 2.25 (earlier releases index SM ≥ 10.0 as Hopper, as
/// [`NcclVersion::arch_caps`] does); 2.28 and 2.29 changed its values.
fn net_caps(v: NcclVersion, sm: u32, two: bool, cpu_amd: bool) -> NetCaps {
    let col = |n2: f64, n4: f64| if two { n2 } else { n4 };
    // llMaxBws rows 0 (Intel/other: 39.0, 20.4) and 1 (AMD: 22.5, 19.0), Blackwell ×2 not used
    // across nodes (the row is the CPU's there).
    let ll_max_bw = if cpu_amd { col(22.5, 19.0) } else { col(39.0, 20.4) };
    let (ring128, tree128, tree) = if sm >= 100 && v.minor >= 25 {
        match v.minor {
            25..=27 => (col(73.4, 73.4), col(73.4, 58.0), col(82.8, 72.0)),
            28 => (col(34.6, 73.4), col(31.67, 20.0), col(42.8, 24.0)),
            _ => (col(40.0, 40.0), col(31.67, 20.0), col(42.8, 24.0)),
        }
    } else if sm >= 90 {
        (col(36.7, 36.7), col(36.7, 29.0), col(41.4, 36.0))
    } else if sm >= 80 {
        (col(20.0, 20.0), col(20.0, 20.0), col(23.6, 17.8))
    } else {
        (col(20.0, 20.0), col(20.0, 20.0), col(18.5, 10.0))
    };
    NetCaps {
        ll_max_bw,
        per_ch_ring_ll128: ring128,
        per_ch_tree_ll128: tree128,
        per_ch_tree: tree,
    }
}

/// `hwLat[NET]`, µs: Tree {5.0, 8.5, 14 (28 through 2.22)}, Ring {2.7, 4.0, 14.0}.
fn net_latency_us(v: NcclVersion, algo: Algo, proto: Proto) -> f64 {
    match (algo, proto) {
        (Algo::Tree, Proto::Ll) => 5.0,
        (Algo::Tree, Proto::Ll128) => 8.5,
        (Algo::Tree, Proto::Simple) => {
            if v.minor <= 22 {
                28.0
            } else {
                14.0
            }
        }
        (Algo::Ring, Proto::Ll) => 2.7,
        (Algo::Ring, Proto::Ll128) => 4.0,
        (Algo::Ring, Proto::Simple) => 14.0,
    }
}

/// NCCL's allreduce table for a communicator over `input.nodes` nodes, in NCCL's order (Tree LL,
/// LL128, Simple, then Ring LL, LL128, Simple).
pub fn tune_net(input: &NetTuneInput, env: &NcclEnv) -> Vec<NetEntry> {
    let v = env.version;
    let n = f64::from(input.ranks.max(2));
    let nodes = input.nodes.max(2);
    let ppn = input.ranks / nodes;
    let ch = f64::from(input.channels.max(1));
    let caps = net_caps(v, input.sm, nodes <= 2, input.cpu_amd);
    let bw = if nodes <= 2 {
        input.bw_intra_gbps
    } else {
        input.bw_inter_gbps
    };
    let log2_nodes = f64::from(31 - nodes.leading_zeros());
    let net_overhead = if input.cpu_amd { 2.0 } else { 1.0 };
    let nsteps = 2.0 * (n - 1.0);
    let inter_steps = if v.minor <= 22 {
        2.0 * f64::from(nodes)
    } else {
        2.0 * f64::from(nodes - 1)
    };
    let mut out = Vec::with_capacity(6);
    for algo in Algo::ALL {
        for proto in Proto::ALL {
            let mut bus = ch * bw;
            match (algo, proto) {
                (Algo::Ring, Proto::Ll) => bus = caps.ll_max_bw.min(bus * v.ring_ll_allreduce_factor()),
                (Algo::Ring, Proto::Ll128) => bus = (bus * 0.92).min(ch * caps.per_ch_ring_ll128),
                (Algo::Ring, Proto::Simple) => {}
                (Algo::Tree, p) => {
                    bus = (bus * 0.92).min(ch * caps.per_ch_tree);
                    match p {
                        Proto::Ll => bus = (bus / 3.8).min(caps.ll_max_bw),
                        Proto::Ll128 => bus = (bus * 120.0 / 128.0).min(ch * caps.per_ch_tree_ll128),
                        Proto::Simple => {}
                    }
                }
            }
            let algbw = match algo {
                Algo::Ring => bus * n / nsteps,
                Algo::Tree => bus * 0.5,
            };
            let intra = hw_latency_us_for(v, input.nvlink, algo, proto);
            let inter = if ppn == 1 {
                net_latency_us(v, Algo::Tree, proto)
            } else {
                net_latency_us(v, algo, proto)
            };
            let latency = base_latency_us(algo, proto)
                + match algo {
                    Algo::Ring => {
                        let o = if proto == Proto::Simple {
                            3.0 * net_overhead
                        } else {
                            net_overhead
                        };
                        (nsteps - inter_steps) * intra.max(o) + inter_steps * inter
                    }
                    Algo::Tree => 2.0 * (f64::from(ppn.saturating_sub(1)) * intra + log2_nodes * inter),
                };
            let ll128_default = input.nvlink && input.sm >= 70;
            let proto_on = match env.proto_enable {
                Some(row) => row[proto.index()] && !(proto == Proto::Ll128 && input.sm < 70),
                None => proto != Proto::Ll128 || ll128_default,
            };
            let algo_on = env.algo_enable.is_none_or(|row| row[algo.index()]);
            out.push(NetEntry {
                algo,
                proto,
                enabled: proto_on && algo_on && bus > 0.0,
                latency_us: latency,
                algbw_gbps: algbw,
            });
        }
    }
    out
}

/// NCCL's estimated time, µs, of `e` for an allreduce of `bytes` (`ncclTopoGetAlgoTime`, one op).
pub fn net_time_us(e: &NetEntry, input: &NetTuneInput, bytes: u64) -> f64 {
    let mut bw = e.algbw_gbps;
    let mut lat = e.latency_us;
    if e.algo == Algo::Tree {
        bw *= tree_correction_factor(e.proto, crate::units::Bytes(bytes));
    }
    let per = u64::from(input.comm_channels.max(1)) * u64::from(input.ranks.max(1));
    if e.algo == Algo::Ring && e.proto == Proto::Simple && bytes / per >= 64 {
        lat *= if input.sm < 80 { 1.9 } else { 1.4 };
    }
    lat + bytes as f64 / (1000.0 * bw)
}

/// The (algorithm, protocol) NCCL runs an allreduce of `bytes` with across nodes: the enabled entry
/// with the smallest estimate (the first in NCCL's order on a tie); `None` when none is enabled.
pub fn choose_net(entries: &[NetEntry], input: &NetTuneInput, bytes: u64) -> Option<(Algo, Proto)> {
    let mut best: Option<(&NetEntry, f64)> = None;
    for e in entries.iter().filter(|e| e.enabled) {
        let t = net_time_us(e, input, bytes);
        if t.is_finite() && best.is_none_or(|(_, bt)| t < bt) {
            best = Some((e, t));
        }
    }
    best.map(|(e, _)| (e.algo, e.proto))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two 8-GPU PCIe boxes of SM 12.0 on AMD hosts, 2 channels of 24 GB/s, NCCL 2.27.
    fn pcie_two_boxes() -> (NetTuneInput, NcclEnv) {
        let input = NetTuneInput {
            ranks: 16,
            nodes: 2,
            sm: 120,
            cpu_amd: true,
            nvlink: false,
            channels: 2,
            comm_channels: 4,
            bw_intra_gbps: 24.0,
            bw_inter_gbps: 24.0,
        };
        let env = NcclEnv {
            version: NcclVersion { minor: 27, patch: 5 },
            ..NcclEnv::default()
        };
        (input, env)
    }

    #[test]
    fn latencies_by_hand() {
        let (input, env) = pcie_two_boxes();
        let t = tune_net(&input, &env);
        // Ring LL: base 6.6 + (30 − 2) × max(PCI 1.0, AMD overhead 2.0) + 2 × NET 2.7 = 68.0 µs.
        assert!((t[3].latency_us - 68.0).abs() < 1e-9, "{}", t[3].latency_us);
        // Ring Simple: 8.4 + 28 × max(5.7, 3 × 2.0) + 2 × 14.0 = 204.4 µs.
        assert!((t[5].latency_us - 204.4).abs() < 1e-9, "{}", t[5].latency_us);
        // Tree LL: 6.8 + 2 × (7 × 1.0 + log2(2) × 5.0) = 30.8 µs.
        assert!((t[0].latency_us - 30.8).abs() < 1e-9, "{}", t[0].latency_us);
        // Tree Simple: 8.4 + 2 × (7 × 4.0 + 14) = 92.4 µs.
        assert!((t[2].latency_us - 92.4).abs() < 1e-9, "{}", t[2].latency_us);
        // LL128 is off on PCIe (typeIntra above NVB).
        assert!(!t[1].enabled && !t[4].enabled);
    }

    #[test]
    fn bandwidths_by_hand() {
        let (input, env) = pcie_two_boxes();
        let t = tune_net(&input, &env);
        // Ring LL: min(AMD N2 22.5, 48 × 0.5 = 24) = 22.5 busBw → × 16 / 30 = 12.0 GB/s algBw.
        assert!((t[3].algbw_gbps - 12.0).abs() < 1e-9, "{}", t[3].algbw_gbps);
        // Tree Simple: min(48 × 0.92, 2 × 82.8) = 44.16 → × 0.5 = 22.08 GB/s.
        assert!((t[2].algbw_gbps - 22.08).abs() < 1e-9, "{}", t[2].algbw_gbps);
        // Tree LL: 44.16 / 3.8 = 11.621 (under 22.5) → × 0.5 = 5.8105 GB/s.
        assert!((t[0].algbw_gbps - 44.16 / 3.8 * 0.5).abs() < 1e-9);
    }

    #[test]
    fn the_tree_wins_small_messages_and_the_ring_large_ones() {
        let (input, env) = pcie_two_boxes();
        let t = tune_net(&input, &env);
        // 8 KiB: Tree LL 30.8 + 8192 / (1000 × 5.8105 × 0.7, the LL correction at 8 KiB) = 32.81 µs
        // against Ring LL 68.0 + 8192 / (1000 × 12.0) = 68.68 µs.
        assert_eq!(choose_net(&t, &input, 8192), Some((Algo::Tree, Proto::Ll)));
        // 256 MiB: Ring Simple 204.4 × 1.4 + 268,435,456 / (1000 × 25.6) = 10,772 µs; Tree Simple
        // 92.4 + 268,435,456 / (1000 × 22.08 × 0.9) = 13,600 µs.
        assert_eq!(
            choose_net(&t, &input, 256 << 20),
            Some((Algo::Ring, Proto::Simple))
        );
        // NCCL_ALGO=Ring leaves the ring only.
        let ring_only = NcclEnv {
            algo_enable: Some([false, true]),
            ..env
        };
        let t = tune_net(&input, &ring_only);
        assert_eq!(choose_net(&t, &input, 8192), Some((Algo::Ring, Proto::Ll)));
    }

    #[test]
    fn releases_before_2_23_count_2_nodes_network_steps() {
        let (input, mut env) = pcie_two_boxes();
        env.version = NcclVersion { minor: 21, patch: 5 };
        let t = tune_net(&input, &env);
        // Ring LL: 6.6 + (30 − 4) × 2.0 + 4 × 2.7 = 69.4 µs; Tree Simple's NET step 28 µs.
        assert!((t[3].latency_us - 69.4).abs() < 1e-9, "{}", t[3].latency_us);
        // Tree Simple, 2.21: PCI Tree/Simple 28 µs: 8.4 + 2 × (7 × 28 + 28) = 456.4 µs.
        assert!((t[2].latency_us - 456.4).abs() < 1e-9, "{}", t[2].latency_us);
    }
}
