//! Hardware: GPU specifications and the PCIe topology tree of a box, with the per-pair path class
//! NCCL assigns (PIX / PXB / PHB / SYS) and the transport NCCL then uses (P2P or SHM through host
//! memory).
//!
//! A topology is written as one path per GPU from its CPU socket down to the GPU's parent, e.g.
//! `"socket0/root2"` (direct-attach on root port 2) or `"socket0/root0/switch0"` (behind a switch).
//! Segment kinds come from their prefixes: `socket…`, `root…`, `switch…`. Facts from
//! reference/pcie-collectives.md ("NCCL's tuner", path classes and P2P level).

use crate::units::Bandwidth;
use serde::Deserialize;

/// One GPU model's datasheet figures (reference/hardware-and-models.md), overridable by profiles.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GpuSpec {
    /// Marketing name, e.g. "RTX PRO 6000 Blackwell Server".
    pub name: String,
    /// `nvidia-smi --query-gpu=memory.total` in MiB (SGLang reads this for its default fraction).
    pub memory_total_mib: u64,
    /// Device memory bandwidth (datasheet).
    pub memory_bandwidth: Bandwidth,
    /// Dense bf16 tensor throughput in TFLOP/s (datasheet, *lead*).
    pub bf16_tflops: f64,
    /// Streaming multiprocessors.
    pub sm_count: u32,
    /// Compute capability as "major.minor" (NCCL picks its speed arrays by it).
    pub compute_capability: String,
    /// PCIe generation of the GPU's own link (4 or 5).
    pub pcie_gen: u32,
    /// PCIe lanes of the GPU's own link.
    pub pcie_width: u32,
    /// Whether the stock driver allows peer-to-peer (false on GeForce 4090/5090).
    pub p2p: bool,
    /// Whether the GPUs are joined by NVLink (then every pair is NVLink, path class NVL).
    #[serde(default)]
    pub nvlink: bool,
}

impl GpuSpec {
    /// NCCL's model of one PCIe link: width × per-lane speed / 80, with lane speeds
    /// Gen4 = 120 and Gen5 = 240 (NCCL `topo.h`, reference/pcie-collectives.md) → 24 / 48 GB/s at x16.
    pub fn nccl_pci_bandwidth_gbps(&self) -> f64 {
        let lane = match self.pcie_gen {
            0..=3 => 60.0, // Gen3: NCCL's PCI_BW 12 GB/s at x16 → 60 per lane.
            4 => 120.0,
            _ => 240.0,
        };
        self.pcie_width as f64 * lane / 80.0
    }
}

/// The kind of a node in the PCIe tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum NodeKind {
    Socket,
    RootPort,
    Switch,
}

/// Path class between two GPUs, ordered from closest to farthest as NCCL orders them
/// (`topo.h`: LOC < NVL < PIX < PXB < PHB < SYS). nvidia-smi's "NODE" is PHB within one socket.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum PathClass {
    Loc,
    Nvl,
    Pix,
    Pxb,
    Phb,
    Sys,
}

impl PathClass {
    /// The name NCCL and `nvidia-smi topo -m` print.
    pub fn as_str(self) -> &'static str {
        match self {
            PathClass::Loc => "LOC",
            PathClass::Nvl => "NVL",
            PathClass::Pix => "PIX",
            PathClass::Pxb => "PXB",
            PathClass::Phb => "PHB",
            PathClass::Sys => "SYS",
        }
    }
    /// Parses an `NCCL_P2P_LEVEL` value (LOC, NVL, PIX, PXB, PHB, SYS; NODE is accepted as PHB as
    /// NCCL does). `None` for anything else.
    pub fn parse_level(s: &str) -> Option<PathClass> {
        Some(match s.trim().to_ascii_uppercase().as_str() {
            "LOC" => PathClass::Loc,
            "NVL" => PathClass::Nvl,
            "PIX" => PathClass::Pix,
            "PXB" => PathClass::Pxb,
            "PHB" | "NODE" => PathClass::Phb,
            "SYS" => PathClass::Sys,
            _ => return None,
        })
    }
}

/// The transport NCCL uses between two ranks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Transport {
    /// Direct peer access over PCIe (or NVLink).
    P2p,
    /// NCCL's SHM transport: staged through host DRAM.
    Shm,
}

/// Errors in a topology description.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TopologyError {
    #[error("GPU {gpu}: empty path; expected e.g. \"socket0/root0\" or \"socket0/root0/switch0\"")]
    EmptyPath { gpu: usize },
    #[error(
        "GPU {gpu}: path segment `{segment}` has no known kind; expected a name starting with socket, root or switch"
    )]
    UnknownSegment { gpu: usize, segment: String },
    #[error("GPU {gpu}: path `{path}` must start with a socket segment (e.g. socket0)")]
    NoSocket { gpu: usize, path: String },
    #[error("GPU {gpu}: path `{path}` has a socket below another node; sockets are only at the top")]
    NestedSocket { gpu: usize, path: String },
    #[error("the topology lists no GPUs")]
    NoGpus,
}

/// A PCIe tree: sockets at the top, root ports and (possibly nested) switches below, GPUs at the leaves.
#[derive(Debug, Clone, PartialEq)]
pub struct Topology {
    /// For each GPU, the chain of node names from its socket to its parent.
    paths: Vec<Vec<String>>,
    kinds: Vec<Vec<NodeKind>>,
}

impl Topology {
    /// Builds a topology from one path string per GPU (index = GPU index).
    pub fn from_paths<S: AsRef<str>>(paths: &[S]) -> Result<Topology, TopologyError> {
        if paths.is_empty() {
            return Err(TopologyError::NoGpus);
        }
        let mut out = Topology {
            paths: Vec::new(),
            kinds: Vec::new(),
        };
        for (gpu, p) in paths.iter().enumerate() {
            let p = p.as_ref();
            let segs: Vec<String> = p
                .split('/')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(String::from)
                .collect();
            if segs.is_empty() {
                return Err(TopologyError::EmptyPath { gpu });
            }
            let mut kinds = Vec::with_capacity(segs.len());
            for s in &segs {
                let k = if s.starts_with("socket") {
                    NodeKind::Socket
                } else if s.starts_with("root") {
                    NodeKind::RootPort
                } else if s.starts_with("switch") {
                    NodeKind::Switch
                } else {
                    return Err(TopologyError::UnknownSegment {
                        gpu,
                        segment: s.clone(),
                    });
                };
                kinds.push(k);
            }
            if kinds[0] != NodeKind::Socket {
                return Err(TopologyError::NoSocket {
                    gpu,
                    path: p.to_string(),
                });
            }
            if kinds[1..].contains(&NodeKind::Socket) {
                return Err(TopologyError::NestedSocket {
                    gpu,
                    path: p.to_string(),
                });
            }
            out.paths.push(segs);
            out.kinds.push(kinds);
        }
        Ok(out)
    }

    /// Number of GPUs.
    pub fn gpu_count(&self) -> usize {
        self.paths.len()
    }

    /// Number of distinct CPU sockets that have GPUs.
    pub fn socket_count(&self) -> usize {
        let mut s: Vec<&str> = self.paths.iter().map(|p| p[0].as_str()).collect();
        s.sort_unstable();
        s.dedup();
        s.len()
    }

    /// The path string of a GPU, as written.
    pub fn path_of(&self, gpu: usize) -> String {
        self.paths[gpu].join("/")
    }

    /// NCCL's path class between two GPUs (`paths.cc` semantics, simplified to a tree):
    /// same GPU → LOC; different sockets → SYS; lowest common node a switch that is the direct
    /// parent of both → PIX; a switch higher up → PXB; a root port or socket → PHB.
    pub fn path_class(&self, a: usize, b: usize, nvlink: bool) -> PathClass {
        if a == b {
            return PathClass::Loc;
        }
        if nvlink {
            return PathClass::Nvl;
        }
        let (pa, pb) = (&self.paths[a], &self.paths[b]);
        let common = pa.iter().zip(pb.iter()).take_while(|(x, y)| x == y).count();
        if common == 0 {
            return PathClass::Sys;
        }
        let lca_kind = self.kinds[a][common - 1];
        match lca_kind {
            NodeKind::Switch if common == pa.len() && common == pb.len() => PathClass::Pix,
            NodeKind::Switch => PathClass::Pxb,
            NodeKind::RootPort | NodeKind::Socket => PathClass::Phb,
        }
    }

    /// The transport NCCL chooses for a pair: P2P if the GPUs support it, P2P is not disabled and
    /// the path class is at most the P2P level; otherwise SHM through host memory.
    pub fn nccl_transport(&self, a: usize, b: usize, gpu: &GpuSpec, p2p_level: PathClass) -> Transport {
        let class = self.path_class(a, b, gpu.nvlink);
        if gpu.p2p && class <= p2p_level {
            Transport::P2p
        } else {
            Transport::Shm
        }
    }

    /// The worst transport on NCCL's ring in index order (0 → 1 → … → n−1 → 0) over the first
    /// `n` GPUs. First cut: the real ring search (issue #3) may reorder ranks.
    pub fn ring_transport(&self, n: usize, gpu: &GpuSpec, p2p_level: PathClass) -> Transport {
        (0..n)
            .map(|i| self.nccl_transport(i, (i + 1) % n, gpu, p2p_level))
            .max()
            .unwrap_or(Transport::P2p)
    }
}

/// NCCL's default P2P level (`paths.cc`): PXB, except SYS on AMD hosts with at most 2 GPUs
/// (reference/pcie-collectives.md, "Transport").
pub fn nccl_default_p2p_level(cpu_vendor_amd: bool, gpus: usize) -> PathClass {
    if cpu_vendor_amd && gpus <= 2 {
        PathClass::Sys
    } else {
        PathClass::Pxb
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rtx() -> GpuSpec {
        GpuSpec {
            name: "RTX PRO 6000".into(),
            memory_total_mib: 97_887,
            memory_bandwidth: Bandwidth::from_gbps(1790.0).unwrap(),
            bf16_tflops: 500.0,
            sm_count: 188,
            compute_capability: "12.0".into(),
            pcie_gen: 5,
            pcie_width: 16,
            p2p: true,
            nvlink: false,
        }
    }

    #[test]
    fn path_classes_of_a_dual_socket_switch_box() {
        let t = Topology::from_paths(&[
            "socket0/root0/switch0",
            "socket0/root0/switch0",
            "socket0/root0/switch0/switch1",
            "socket0/root1",
            "socket1/root4",
        ])
        .unwrap();
        assert_eq!(t.path_class(0, 1, false), PathClass::Pix);
        assert_eq!(t.path_class(0, 2, false), PathClass::Pxb);
        assert_eq!(t.path_class(0, 3, false), PathClass::Phb);
        assert_eq!(t.path_class(3, 4, false), PathClass::Sys);
        assert_eq!(t.path_class(2, 2, false), PathClass::Loc);
        assert_eq!(t.socket_count(), 2);
    }

    #[test]
    fn default_p2p_level_sends_direct_attach_pairs_to_shm() {
        // Seed box: 4 + 4 GPUs on their own root ports of two sockets (pcie-collectives.md: NCCL's
        // default level PXB stops short of PHB/SYS → SHM).
        let paths: Vec<String> = (0..8).map(|i| format!("socket{}/root{}", i / 4, i)).collect();
        let t = Topology::from_paths(&paths).unwrap();
        let g = rtx();
        let level = nccl_default_p2p_level(true, 8);
        assert_eq!(level, PathClass::Pxb);
        assert_eq!(t.ring_transport(8, &g, level), Transport::Shm);
        assert_eq!(t.ring_transport(8, &g, PathClass::Sys), Transport::P2p);
        let mut no_p2p = g.clone();
        no_p2p.p2p = false;
        assert_eq!(t.ring_transport(8, &no_p2p, PathClass::Sys), Transport::Shm);
    }

    #[test]
    fn nccl_link_model() {
        assert!((rtx().nccl_pci_bandwidth_gbps() - 48.0).abs() < 1e-9);
    }

    #[test]
    fn bad_paths_are_errors() {
        assert!(matches!(
            Topology::from_paths(&["rack0/root0"]),
            Err(TopologyError::UnknownSegment { .. })
        ));
        assert!(matches!(
            Topology::from_paths(&["root0"]),
            Err(TopologyError::NoSocket { .. })
        ));
        assert!(matches!(
            Topology::from_paths::<&str>(&[]),
            Err(TopologyError::NoGpus)
        ));
        assert_eq!(PathClass::parse_level("node"), Some(PathClass::Phb));
        assert_eq!(PathClass::parse_level("bogus"), None);
    }
}
