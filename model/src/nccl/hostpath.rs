//! NCCL's view of the host between two GPUs (issue #19, ncclhost59): which CPU node a GPU hangs off,
//! the path class that follows from it, and the bandwidth one hop offers the channel search.
//!
//! What NVIDIA/nccl does, read at the tags v2.18.3-1, v2.19.3-1, v2.21.5-1, v2.23.4-1, v2.25.1-1,
//! v2.26.2-1, v2.27.3-1, v2.28.3-1, v2.29.7-1, v2.30.7-1 and on `dev` (2.31.0a7, June 2026), the same
//! in each:
//!
//! - **CPU nodes are NUMA nodes.** `src/graph/xml.cc` `ncclTopoGetXmlFromSys` walks a GPU's sysfs path
//!   up to the CPU root complex and files it under the `<cpu>` whose `numaid` is the `numa_node` of
//!   that path (no `/sys` information: one `cpu` of `numaid` −1 for every GPU). `src/graph/topo.cc`
//!   `ncclTopoAddCpu` makes one CPU node per `numaid`, and `ncclTopoConnectCpus` joins every pair of
//!   them with a `LINK_SYS` of `ncclTopoGetInterCpuBw`'s bandwidth ([`super::inter_cpu_bw_gbps`]), the
//!   same figure for two nodes of one socket as for two sockets. So two GPUs on one NUMA node meet
//!   at their CPU node (PHB, whatever sockets the memory fabric spans: AMD's NPS0 makes both sockets
//!   one node), and two GPUs on different nodes cross a SYS link (two quadrants of one socket in
//!   NPS4, or SNC on Intel, included). Pairs below a common PCIe switch never reach a CPU node (PIX,
//!   PXB): the node does not matter to them.
//! - **Intel's P2P overhead is charged on PHB paths only.** `src/graph/search.cc` `followPath`: when
//!   the path's type is `PATH_PHB`, it starts at a GPU and passes an x86 Intel CPU node, every PCI
//!   link of the path is charged `INTEL_P2P_OVERHEAD(bw)` = `bw * 6 / 5` (`src/graph/topo.h`) of the
//!   channel's speed; other links (the SYS link) and other path types (SYS included) are charged the
//!   speed itself. A PHB hop of link `L` thus carries channels up to `L × 5/6` in all; a SYS hop
//!   `min(L, inter-CPU)`.

use super::{CpuGeneration, NcclVersion, inter_cpu_bw_gbps};
use crate::hw::PathClass;

/// `INTEL_P2P_OVERHEAD(bw)` = `bw * 6 / 5` (`src/graph/topo.h`, every tag from v2.18.3-1 to v2.30.7-1
/// and `dev`): what a channel of speed `bw` takes of each PCI link of a PHB path through an Intel CPU.
pub const INTEL_P2P_OVERHEAD: f64 = 6.0 / 5.0;

/// NCCL's path class for a GPU pair whose PCIe route has class `physical` (from the box's PCIe
/// tree, sockets as tpsim draws them), given whether NCCL files both GPUs under one CPU (NUMA) node:
/// a pair that meets at or above a CPU is PHB on one node and SYS across two (module doc); PIX, PXB,
/// NVL and LOC are unchanged.
pub fn nccl_path_class(physical: PathClass, same_cpu_node: bool) -> PathClass {
    match physical {
        PathClass::Phb | PathClass::Sys if same_cpu_node => PathClass::Phb,
        PathClass::Phb | PathClass::Sys => PathClass::Sys,
        other => other,
    }
}

/// The bandwidth, GB/s, one ring hop of NCCL class `class` offers the search: the GPU's link
/// `link_gbps`, ÷ [`INTEL_P2P_OVERHEAD`] on an Intel host's PHB hops (`search.cc` `followPath`), and
/// at most the inter-CPU link ([`inter_cpu_bw_gbps`] for `version`, vendor and generation) on SYS
/// hops, with no Intel overhead there (module doc).
pub fn hop_bw_gbps(
    class: PathClass,
    link_gbps: f64,
    cpu_amd: bool,
    generation: Option<CpuGeneration>,
    version: NcclVersion,
) -> f64 {
    match class {
        PathClass::Phb if !cpu_amd => link_gbps / INTEL_P2P_OVERHEAD,
        PathClass::Sys => link_gbps.min(inter_cpu_bw_gbps(version, cpu_amd, generation)),
        _ => link_gbps,
    }
}

#[cfg(test)]
#[allow(clippy::float_cmp)]
mod tests {
    use super::*;

    #[test]
    fn the_cpu_node_decides_phb_or_sys_above_the_switches() {
        for same in [true, false] {
            for c in [PathClass::Loc, PathClass::Nvl, PathClass::Pix, PathClass::Pxb] {
                assert_eq!(nccl_path_class(c, same), c);
            }
        }
        // NPS0: two sockets, one node → PHB. NPS4: one socket, two quadrants → SYS.
        assert_eq!(nccl_path_class(PathClass::Sys, true), PathClass::Phb);
        assert_eq!(nccl_path_class(PathClass::Phb, false), PathClass::Sys);
        assert_eq!(nccl_path_class(PathClass::Phb, true), PathClass::Phb);
        assert_eq!(nccl_path_class(PathClass::Sys, false), PathClass::Sys);
    }

    /// search.cc `followPath` (v2.30.7-1 lines 87-91): the overhead is charged when `path->type ==
    /// PATH_PHB` only. Gen4 x16 (24 GB/s in NCCL's model) on an Intel host of unknown generation
    /// (22 GB/s across the CPUs): PHB 24 / 1.2 = 20; SYS min(24, 22) = 22 (it was 20 before
    /// ncclhost59, which divided SYS hops too). Gen3 x16 (12) on Skylake at 2.19 (10): SYS 10 both
    /// ways. AMD: no overhead. Exact (tolerance 0).
    #[test]
    fn intel_overhead_on_phb_hops_only() {
        let v = NcclVersion::new(30, 7);
        assert_eq!(hop_bw_gbps(PathClass::Phb, 24.0, false, None, v), 20.0);
        assert_eq!(hop_bw_gbps(PathClass::Sys, 24.0, false, None, v), 22.0);
        assert_eq!(hop_bw_gbps(PathClass::Pxb, 24.0, false, None, v), 24.0);
        let old = NcclVersion::new(19, 3);
        let skl = Some(CpuGeneration::IntelSkylake);
        assert_eq!(hop_bw_gbps(PathClass::Sys, 12.0, false, skl, old), 10.0);
        let erp = Some(CpuGeneration::IntelEmeraldRapids);
        assert_eq!(hop_bw_gbps(PathClass::Sys, 48.0, false, erp, v), 40.0);
        assert_eq!(hop_bw_gbps(PathClass::Sys, 24.0, false, erp, v), 24.0);
        assert_eq!(hop_bw_gbps(PathClass::Phb, 48.0, true, None, v), 48.0);
        assert_eq!(hop_bw_gbps(PathClass::Sys, 48.0, true, None, v), 16.0);
    }
}
