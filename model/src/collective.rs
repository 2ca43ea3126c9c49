//! Collective costs. This module holds NCCL's own analytic tuner model for a single node
//! (reference/pcie-collectives.md, "NCCL's tuner", from NCCL 2.30 `src/graph/tuning.cc`) and a
//! first-cut custom one-shot allreduce. Issue #3 replaces both with step-by-step execution on a flow
//! network; the analytic model stays available as `--model nccl-analytic`.
//!
//! NCCL's estimate: time (µs) = latency + bytes / (1000 × algBw), with
//! latency = base[algo][proto] + steps × hw[link][algo][proto] and busBw = channels × per-channel
//! bandwidth, scaled per algorithm and protocol, algBw derived from busBw.

use crate::units::{Bytes, Duration};

/// NCCL algorithm.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Algo {
    Tree,
    Ring,
}

/// NCCL protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Proto {
    Ll,
    Ll128,
    Simple,
}

impl Algo {
    pub fn as_str(self) -> &'static str {
        match self {
            Algo::Tree => "Tree",
            Algo::Ring => "Ring",
        }
    }
}
impl Proto {
    pub fn as_str(self) -> &'static str {
        match self {
            Proto::Ll => "LL",
            Proto::Ll128 => "LL128",
            Proto::Simple => "Simple",
        }
    }
}

/// Link class for NCCL's hardware latency table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkClass {
    Pci,
    NvLink,
}

/// Base latency (µs) by algorithm and protocol (tuning.cc `baseLat`; pcie-collectives.md table).
fn base_latency_us(algo: Algo, proto: Proto) -> f64 {
    match (algo, proto) {
        (Algo::Tree, Proto::Ll) => 6.8,
        (Algo::Tree, Proto::Ll128) => 14.0,
        (Algo::Tree, Proto::Simple) => 8.4,
        (Algo::Ring, Proto::Ll) => 6.6,
        (Algo::Ring, Proto::Ll128) => 14.0,
        (Algo::Ring, Proto::Simple) => 8.4,
    }
}

/// Per-step hardware latency (µs) (tuning.cc `hwLat`; pcie-collectives.md table, NCCL ≥ 2.22 value
/// 4.0 for PCI Tree/Simple).
fn hw_latency_us(link: LinkClass, algo: Algo, proto: Proto) -> f64 {
    match (link, algo, proto) {
        (LinkClass::Pci, Algo::Tree, Proto::Ll) => 1.0,
        (LinkClass::Pci, Algo::Tree, Proto::Ll128) => 1.9,
        (LinkClass::Pci, Algo::Tree, Proto::Simple) => 4.0,
        (LinkClass::Pci, Algo::Ring, Proto::Ll) => 1.0,
        (LinkClass::Pci, Algo::Ring, Proto::Ll128) => 2.5,
        (LinkClass::Pci, Algo::Ring, Proto::Simple) => 5.7,
        (LinkClass::NvLink, Algo::Tree, Proto::Ll) | (LinkClass::NvLink, Algo::Ring, Proto::Ll) => 0.6,
        (LinkClass::NvLink, Algo::Tree, Proto::Ll128) => 1.25,
        (LinkClass::NvLink, Algo::Ring, Proto::Ll128) => 1.9,
        (LinkClass::NvLink, Algo::Tree, Proto::Simple) => 4.0,
        (LinkClass::NvLink, Algo::Ring, Proto::Simple) => 3.4,
    }
}

/// Blackwell single-node caps (pcie-collectives.md "Bandwidth"): Ring-LL busBw cap (`llMaxBw`),
/// LL128 per-channel cap and Tree per-channel cap (`perChMaxTreeBw`), all GB/s.
const BLACKWELL_LL_MAX_BW: f64 = 282.0;
const BLACKWELL_LL128_PER_CHANNEL: f64 = 40.0;
const BLACKWELL_TREE_PER_CHANNEL: f64 = 70.0;

/// Inputs of NCCL's analytic allreduce estimate.
#[derive(Debug, Clone, PartialEq)]
pub struct NcclAnalytic {
    /// Ranks in the communicator.
    pub ranks: u32,
    /// Channels found by the topology search (e.g. 2 on Gen5 x16).
    pub channels: u32,
    /// Per-channel bandwidth from the search, GB/s (e.g. 22.5 on Gen5 x16).
    pub channel_bw_gbps: f64,
    /// Link class for the latency table.
    pub link: LinkClass,
    /// Per-step hardware latency override in µs (first cut for SHM; `None` = NCCL's table).
    pub step_latency_us: Option<f64>,
    /// Whether LL128 may be used (NCCL disables it on PCIe unless `NCCL_PROTO` names it).
    pub ll128_enabled: bool,
    /// Restriction from `NCCL_ALGO` (`None` = all).
    pub algo: Option<Algo>,
    /// Restriction from `NCCL_PROTO` (`None` = all enabled).
    pub proto: Option<Proto>,
}

/// One analytic estimate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CollectiveEstimate {
    pub algo: Algo,
    pub proto: Proto,
    pub channels: u32,
    /// Latency term in µs.
    pub latency_us: f64,
    /// Algorithm bandwidth in GB/s (bytes / time at infinite size).
    pub algbw_gbps: f64,
    /// Total time.
    pub time: Duration,
}

impl NcclAnalytic {
    /// NCCL's estimate for one (algo, proto), or `None` if it is disabled.
    pub fn estimate_with(&self, bytes: Bytes, algo: Algo, proto: Proto) -> Option<CollectiveEstimate> {
        if self.algo.is_some_and(|a| a != algo) || self.proto.is_some_and(|p| p != proto) {
            return None;
        }
        if proto == Proto::Ll128 && !self.ll128_enabled && self.proto != Some(Proto::Ll128) {
            return None;
        }
        let n = self.ranks.max(1) as f64;
        if self.ranks < 2 {
            return Some(CollectiveEstimate {
                algo,
                proto,
                channels: 0,
                latency_us: 0.0,
                algbw_gbps: f64::INFINITY,
                time: Duration::ZERO,
            });
        }
        let ch = self.channels.max(1) as f64;
        let bus = ch * self.channel_bw_gbps;
        let hw = self
            .step_latency_us
            .unwrap_or_else(|| hw_latency_us(self.link, algo, proto));
        let (latency, algbw) = match algo {
            Algo::Ring => {
                let steps = 2.0 * (n - 1.0);
                let bus = match proto {
                    Proto::Ll => (bus * 0.5).min(BLACKWELL_LL_MAX_BW),
                    Proto::Ll128 => (bus * 0.92).min(ch * BLACKWELL_LL128_PER_CHANNEL),
                    Proto::Simple => bus,
                };
                (
                    base_latency_us(algo, proto) + steps * hw,
                    bus * n / (2.0 * (n - 1.0)),
                )
            }
            Algo::Tree => {
                // Single node: the tree is a chain; 2 × (n − 1) × hw (pcie-collectives.md).
                let bus = (bus * 0.92).min(ch * BLACKWELL_TREE_PER_CHANNEL);
                let bus = match proto {
                    Proto::Ll => bus / 3.8,
                    Proto::Ll128 => bus * 7.0 / 9.0,
                    Proto::Simple => bus,
                };
                (base_latency_us(algo, proto) + 2.0 * (n - 1.0) * hw, bus * 0.5)
            }
        };
        let us = latency + bytes.0 as f64 / (1000.0 * algbw);
        Some(CollectiveEstimate {
            algo,
            proto,
            channels: self.channels.max(1),
            latency_us: latency,
            algbw_gbps: algbw,
            time: Duration::from_us_f64(us),
        })
    }

    /// The tuner's choice: the fastest enabled (algo, proto); ties go to the earlier of
    /// Tree < Ring and LL < LL128 < Simple, as NCCL's loop order does.
    pub fn allreduce(&self, bytes: Bytes) -> Option<CollectiveEstimate> {
        let mut best: Option<CollectiveEstimate> = None;
        for algo in [Algo::Tree, Algo::Ring] {
            for proto in [Proto::Ll, Proto::Ll128, Proto::Simple] {
                if let Some(e) = self.estimate_with(bytes, algo, proto)
                    && best.is_none_or(|b| e.time < b.time)
                {
                    best = Some(e);
                }
            }
        }
        best
    }
}

impl NcclAnalytic {
    /// NCCL's estimate for a ring all-gather where each rank ends with `total` bytes: (n − 1) steps,
    /// algBw = busBw × n / (n − 1) (nccl-tests' busbw convention for all-gather), Ring only, the
    /// fastest enabled protocol.
    pub fn allgather(&self, total: Bytes) -> Option<CollectiveEstimate> {
        if self.ranks < 2 {
            return self.estimate_with(total, Algo::Ring, Proto::Simple);
        }
        let n = self.ranks as f64;
        let ch = self.channels.max(1) as f64;
        let mut best: Option<CollectiveEstimate> = None;
        for proto in [Proto::Ll, Proto::Ll128, Proto::Simple] {
            if self.algo == Some(Algo::Tree) || self.proto.is_some_and(|p| p != proto) {
                continue;
            }
            if proto == Proto::Ll128 && !self.ll128_enabled && self.proto != Some(Proto::Ll128) {
                continue;
            }
            let bus = ch * self.channel_bw_gbps;
            let bus = match proto {
                Proto::Ll => (bus * 0.5).min(BLACKWELL_LL_MAX_BW),
                Proto::Ll128 => (bus * 0.92).min(ch * BLACKWELL_LL128_PER_CHANNEL),
                Proto::Simple => bus,
            };
            let hw = self
                .step_latency_us
                .unwrap_or_else(|| hw_latency_us(self.link, Algo::Ring, proto));
            let latency = base_latency_us(Algo::Ring, proto) + (n - 1.0) * hw;
            let algbw = bus * n / (n - 1.0);
            let time = Duration::from_us_f64(latency + total.0 as f64 / (1000.0 * algbw));
            let e = CollectiveEstimate {
                algo: Algo::Ring,
                proto,
                channels: self.channels.max(1),
                latency_us: latency,
                algbw_gbps: algbw,
                time,
            };
            if best.is_none_or(|b| e.time < b.time) {
                best = Some(e);
            }
        }
        best
    }
}

/// First-cut custom one-shot allreduce (vLLM/SGLang pull kernel): two flag barriers, each a round
/// trip over the path, plus each rank pulling (n − 1) × S bytes from its peers at `read_gbps`.
/// Contention, the posted-write collapse and system-memory staging as a flow effect come with
/// issue #3; `read_gbps` carries the staging slowdown for now.
pub fn custom_oneshot_first_cut(
    ranks: u32,
    bytes: Bytes,
    one_way_latency_us: f64,
    read_gbps: f64,
) -> Duration {
    if ranks < 2 {
        return Duration::ZERO;
    }
    let barriers = 2.0 * 2.0 * one_way_latency_us;
    let pull = (ranks - 1) as f64 * bytes.0 as f64 / (1000.0 * read_gbps);
    Duration::from_us_f64(barriers + pull)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gen5_p2p(ranks: u32) -> NcclAnalytic {
        NcclAnalytic {
            ranks,
            channels: 2,
            channel_bw_gbps: 22.5,
            link: LinkClass::Pci,
            step_latency_us: None,
            ll128_enabled: false,
            algo: None,
            proto: None,
        }
    }

    #[test]
    fn reference_worked_numbers_for_8_ranks_gen5() {
        // pcie-collectives.md: 8 ranks, 2 × 22.5 GB/s → latency 6.6 + 14 × 1.0 = 20.6 µs,
        // algBw = 22.5 × 8 / 14 = 12.857 GB/s; 14 KB (14,336 B) → 21.715 µs; 115 KB (114,688 B) → 29.52 µs.
        let m = gen5_p2p(8);
        let e = m.allreduce(Bytes(14_336)).unwrap();
        assert_eq!((e.algo, e.proto), (Algo::Ring, Proto::Ll));
        assert!((e.latency_us - 20.6).abs() < 1e-9);
        assert!((e.algbw_gbps - 12.857_142_857).abs() < 1e-6);
        assert!((e.time.as_us_f64() - 21.715).abs() < 0.001, "{}", e.time);
        let e = m.allreduce(Bytes(114_688)).unwrap();
        assert!((e.time.as_us_f64() - 29.52).abs() < 0.01, "{}", e.time);
    }

    #[test]
    fn ll128_only_when_named() {
        let mut m = gen5_p2p(8);
        assert!(
            m.estimate_with(Bytes(1 << 20), Algo::Ring, Proto::Ll128)
                .is_none()
        );
        m.proto = Some(Proto::Ll128);
        assert!(
            m.estimate_with(Bytes(1 << 20), Algo::Ring, Proto::Ll128)
                .is_some()
        );
    }

    #[test]
    fn large_messages_pick_simple() {
        // 256 MiB: Ring/Simple algBw 45 × 8/14 = 25.7 GB/s beats LL's 12.9 despite 88.2 µs latency.
        let e = gen5_p2p(8).allreduce(Bytes(256 << 20)).unwrap();
        assert_eq!(e.proto, Proto::Simple);
    }

    #[test]
    fn allgather_ring_ll() {
        // 8 ranks, Gen5 2 × 22.5: LL latency 6.6 + 7 × 1.0 = 13.6 µs; algBw 22.5 × 8/7 = 25.714 GB/s;
        // 1 MiB of logits → 13.6 + 1,048,576 / 25,714.3 = 54.378 µs; Simple: 8.4 + 7 × 5.7 = 48.3 µs +
        // 1,048,576 / 51,428.6 = 68.69 µs → LL wins.
        let e = gen5_p2p(8).allgather(Bytes(1 << 20)).unwrap();
        assert_eq!(e.proto, Proto::Ll);
        assert!((e.time.as_us_f64() - 54.378).abs() < 0.001, "{}", e.time);
    }

    #[test]
    fn custom_first_cut_arithmetic() {
        // 8 ranks, 14,336 B, 1.3 µs one way, 3.5 GB/s: 4 × 1.3 + 7 × 14,336 / 3,500 = 5.2 + 28.672 µs.
        let t = custom_oneshot_first_cut(8, Bytes(14_336), 1.3, 3.5);
        assert!((t.as_us_f64() - 33.872).abs() < 1e-6);
    }
}
