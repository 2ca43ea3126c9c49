//! The PCIe tree of a box: sockets (joined by the inter-socket link), optional root complexes, root
//! ports, nested PCIe switches and GPUs at the leaves — and what follows from it per GPU pair: the
//! path class NCCL assigns, the directed edges a transfer crosses, and whether kernel peer loads are
//! staged through system memory.
//!
//! Written as one path per GPU from its socket to its parent, e.g. `"socket0/rc1/root2/switch0"`.
//! Segment kinds come from name prefixes: `socket…`, `rc…` (root complex, optional: without it each
//! root port counts as its own root complex), `root…` (root port), `switch…` (nest them for
//! virtual-switch partitions). Facts: reference/pcie-collectives.md, "PCIe" and "NCCL's tuner".

use crate::hw::PathClass;
use std::collections::BTreeMap;

/// The kind of an interior node of the tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum NodeKind {
    Socket,
    RootComplex,
    RootPort,
    Switch,
}

impl NodeKind {
    fn of(segment: &str) -> Option<NodeKind> {
        // `root` must be tested after `rc`; both are distinct prefixes.
        if segment.starts_with("socket") {
            Some(NodeKind::Socket)
        } else if segment.starts_with("rc") {
            Some(NodeKind::RootComplex)
        } else if segment.starts_with("root") {
            Some(NodeKind::RootPort)
        } else if segment.starts_with("switch") {
            Some(NodeKind::Switch)
        } else {
            None
        }
    }
}

/// Optional attributes of a node (`[hardware.topology.nodes.<name>]`).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeAttrs {
    /// PCIe generation of the node's uplink (switches; default: the GPUs').
    #[serde(rename = "gen")]
    pub pcie_gen: Option<u32>,
    /// Lanes of the node's uplink (default 16).
    pub width: Option<u32>,
    /// ACS redirect on a switch: peer traffic between its ports is sent up to the root complex
    /// (pcie-collectives.md: switch-local P2P roughly halves).
    pub acs: Option<bool>,
}

/// One interior node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    pub name: String,
    pub kind: NodeKind,
    pub parent: Option<usize>,
    pub pcie_gen: Option<u32>,
    pub width: Option<u32>,
    pub acs: bool,
}

/// One end of a tree edge.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Endpoint {
    Gpu(usize),
    Node(usize),
}

/// A directed edge a transfer crosses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Edge {
    /// From `child` up to its parent.
    Up(Endpoint),
    /// From the parent down to `child`.
    Down(Endpoint),
    /// Across the inter-socket link, from socket node `from` to socket node `to`.
    InterSocket { from: usize, to: usize },
    /// Into (`write = true`) or out of the host DRAM of socket node `socket` (SHM legs).
    Dram { socket: usize, write: bool },
}

/// Errors in a topology description.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TopologyError {
    #[error("GPU {gpu}: empty path; expected e.g. \"socket0/root0\" or \"socket0/rc0/root0/switch0\"")]
    EmptyPath { gpu: usize },
    #[error(
        "GPU {gpu}: path segment `{segment}` has no known kind; expected a name starting with socket, rc, root or switch"
    )]
    UnknownSegment { gpu: usize, segment: String },
    #[error("GPU {gpu}: path `{path}` must start with a socket segment (e.g. socket0)")]
    NoSocket { gpu: usize, path: String },
    #[error(
        "GPU {gpu}: path `{path}`: `{segment}` cannot sit below `{parent}` (order is socket / rc / root / switch…)"
    )]
    BadNesting {
        gpu: usize,
        path: String,
        segment: String,
        parent: String,
    },
    #[error("node `{name}` appears under two different parents (`{a}` and `{b}`); node names must be unique")]
    TwoParents { name: String, a: String, b: String },
    #[error("attributes given for `{name}`, which is not a node of the topology")]
    UnknownNode { name: String },
    #[error("node `{name}`: {message}")]
    BadAttr { name: String, message: String },
    #[error("the topology lists no GPUs")]
    NoGpus,
}

/// A PCIe tree with GPUs at the leaves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Topology {
    nodes: Vec<Node>,
    /// Parent node of each GPU.
    gpu_parent: Vec<usize>,
}

fn rank(k: NodeKind) -> u8 {
    match k {
        NodeKind::Socket => 0,
        NodeKind::RootComplex => 1,
        NodeKind::RootPort => 2,
        NodeKind::Switch => 3,
    }
}

impl Topology {
    /// Builds the tree from one path per GPU (index = GPU index) and optional node attributes.
    pub fn new<S: AsRef<str>>(
        paths: &[S],
        attrs: &BTreeMap<String, NodeAttrs>,
    ) -> Result<Topology, TopologyError> {
        if paths.is_empty() {
            return Err(TopologyError::NoGpus);
        }
        let mut t = Topology {
            nodes: Vec::new(),
            gpu_parent: Vec::new(),
        };
        let mut by_name: BTreeMap<String, usize> = BTreeMap::new();
        for (gpu, p) in paths.iter().enumerate() {
            let p = p.as_ref();
            let segs: Vec<&str> = p.split('/').map(str::trim).filter(|s| !s.is_empty()).collect();
            if segs.is_empty() {
                return Err(TopologyError::EmptyPath { gpu });
            }
            let mut parent: Option<usize> = None;
            for (i, s) in segs.iter().enumerate() {
                let kind = NodeKind::of(s).ok_or_else(|| TopologyError::UnknownSegment {
                    gpu,
                    segment: s.to_string(),
                })?;
                if i == 0 && kind != NodeKind::Socket {
                    return Err(TopologyError::NoSocket {
                        gpu,
                        path: p.to_string(),
                    });
                }
                if let Some(pi) = parent {
                    let pk = t.nodes[pi].kind;
                    let ok = rank(kind) > rank(pk) || (kind == NodeKind::Switch && pk == NodeKind::Switch);
                    if !ok {
                        return Err(TopologyError::BadNesting {
                            gpu,
                            path: p.to_string(),
                            segment: s.to_string(),
                            parent: t.nodes[pi].name.clone(),
                        });
                    }
                }
                let id = match by_name.get(*s) {
                    Some(&id) => {
                        if t.nodes[id].parent != parent {
                            let name_of =
                                |o: Option<usize>| o.map_or("(top)".to_string(), |x| t.nodes[x].name.clone());
                            return Err(TopologyError::TwoParents {
                                name: s.to_string(),
                                a: name_of(t.nodes[id].parent),
                                b: name_of(parent),
                            });
                        }
                        id
                    }
                    None => {
                        t.nodes.push(Node {
                            name: s.to_string(),
                            kind,
                            parent,
                            pcie_gen: None,
                            width: None,
                            acs: false,
                        });
                        by_name.insert(s.to_string(), t.nodes.len() - 1);
                        t.nodes.len() - 1
                    }
                };
                parent = Some(id);
            }
            t.gpu_parent.push(parent.unwrap_or(0));
        }
        for (name, a) in attrs {
            let &id = by_name
                .get(name)
                .ok_or_else(|| TopologyError::UnknownNode { name: name.clone() })?;
            if let Some(g) = a.pcie_gen
                && !(3..=6).contains(&g)
            {
                return Err(TopologyError::BadAttr {
                    name: name.clone(),
                    message: format!("gen {g}: expected 3 to 6"),
                });
            }
            if let Some(w) = a.width
                && ![1, 2, 4, 8, 16].contains(&w)
            {
                return Err(TopologyError::BadAttr {
                    name: name.clone(),
                    message: format!("width x{w}: expected 1, 2, 4, 8 or 16"),
                });
            }
            let n = &mut t.nodes[id];
            n.pcie_gen = a.pcie_gen;
            n.width = a.width;
            n.acs = a.acs.unwrap_or(false);
        }
        Ok(t)
    }

    /// Shorthand for [`Topology::new`] without attributes.
    pub fn from_paths<S: AsRef<str>>(paths: &[S]) -> Result<Topology, TopologyError> {
        Topology::new(paths, &BTreeMap::new())
    }

    /// Number of GPUs.
    pub fn gpu_count(&self) -> usize {
        self.gpu_parent.len()
    }

    /// All interior nodes (index = node id).
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// Issue #19 point 4 (`identify`'s ACS hypothesis): sets ACS redirect on every switch.
    pub fn set_switch_acs(&mut self, on: bool) {
        for n in self.nodes.iter_mut().filter(|n| n.kind == NodeKind::Switch) {
            n.acs = on;
        }
    }

    /// Parent node of a GPU.
    pub fn gpu_parent(&self, gpu: usize) -> usize {
        self.gpu_parent[gpu]
    }

    /// Ancestors of an endpoint, nearest first (node ids).
    fn ancestors(&self, e: Endpoint) -> Vec<usize> {
        let mut v = Vec::new();
        let mut cur = match e {
            Endpoint::Gpu(g) => Some(self.gpu_parent[g]),
            Endpoint::Node(n) => self.nodes[n].parent,
        };
        while let Some(c) = cur {
            v.push(c);
            cur = self.nodes[c].parent;
        }
        v
    }

    /// The socket node of a GPU.
    pub fn socket_of(&self, gpu: usize) -> usize {
        *self.ancestors(Endpoint::Gpu(gpu)).last().unwrap_or(&0)
    }

    /// Socket nodes that have GPUs, in node order.
    pub fn sockets(&self) -> Vec<usize> {
        let mut s: Vec<usize> = (0..self.gpu_count()).map(|g| self.socket_of(g)).collect();
        s.sort_unstable();
        s.dedup();
        s
    }

    /// Number of distinct CPU sockets that have GPUs.
    pub fn socket_count(&self) -> usize {
        self.sockets().len()
    }

    /// The root complex a GPU sits behind: its `rc…` ancestor, else its root port, else its socket.
    pub fn root_complex_of(&self, gpu: usize) -> usize {
        let anc = self.ancestors(Endpoint::Gpu(gpu));
        anc.iter()
            .find(|&&n| self.nodes[n].kind == NodeKind::RootComplex)
            .or_else(|| anc.iter().find(|&&n| self.nodes[n].kind == NodeKind::RootPort))
            .or(anc.last())
            .copied()
            .unwrap_or(0)
    }

    /// Whether the GPU hangs directly off a CPU root port (no switch).
    pub fn is_direct_attach(&self, gpu: usize) -> bool {
        self.nodes[self.gpu_parent[gpu]].kind == NodeKind::RootPort
    }

    /// The path as written for a GPU.
    pub fn path_of(&self, gpu: usize) -> String {
        let mut a = self.ancestors(Endpoint::Gpu(gpu));
        a.reverse();
        a.iter()
            .map(|&n| self.nodes[n].name.as_str())
            .collect::<Vec<_>>()
            .join("/")
    }

    /// Lowest common ancestor of two GPUs (node id), `None` when they are on different sockets.
    fn lca(&self, a: usize, b: usize) -> Option<usize> {
        let aa = self.ancestors(Endpoint::Gpu(a));
        let bb = self.ancestors(Endpoint::Gpu(b));
        aa.into_iter().find(|x| bb.contains(x))
    }

    /// NCCL's path class between two GPUs (`paths.cc`, on a tree): same GPU → LOC; NVLink → NVL;
    /// different sockets → SYS; lowest common node a switch that is the direct parent of both → PIX;
    /// a switch higher up → PXB; a root port, root complex or socket → PHB (nvidia-smi: NODE).
    pub fn path_class(&self, a: usize, b: usize, nvlink: bool) -> PathClass {
        if a == b {
            return PathClass::Loc;
        }
        if nvlink {
            return PathClass::Nvl;
        }
        match self.lca(a, b) {
            None => PathClass::Sys,
            Some(l) => match self.nodes[l].kind {
                NodeKind::Switch if self.gpu_parent[a] == l && self.gpu_parent[b] == l => PathClass::Pix,
                NodeKind::Switch => PathClass::Pxb,
                _ => PathClass::Phb,
            },
        }
    }

    /// How `nvidia-smi topo -m` prints a pair: X, NV#, PIX, PXB, then, for a pair that meets at or
    /// above a CPU, by its NUMA nodes (nccl60): SYS when `same_numa_node` is false ("the SMP
    /// interconnect between NUMA nodes": two sockets, or two NPS2 / NPS4 / SNC quadrants of one
    /// socket), PHB when the pair's lowest common node is an `rc…` root complex (one host bridge),
    /// NODE otherwise ("between PCIe Host Bridges within a NUMA node", an NPS0 node spanning both
    /// sockets included). The legend's text is NVML's (`nvmlGpuTopologyLevel_t`: NODE "connected to
    /// the same NUMA node but possibly multiple host bridges", SYSTEM "all devices in the system");
    /// box B of tests/data/allreduce.tsv lines 206-225 (one EPYC 9B14 in NPS4) prints SYS between
    /// its quadrants. `same_numa_node` is the caller's (the box's NUMA layout is not in the tree).
    pub fn smi_label(&self, a: usize, b: usize, nvlink: bool, same_numa_node: bool) -> &'static str {
        match self.path_class(a, b, nvlink) {
            PathClass::Loc => "X",
            PathClass::Nvl => "NV",
            PathClass::Pix => "PIX",
            PathClass::Pxb => "PXB",
            PathClass::Phb | PathClass::Sys if !same_numa_node => "SYS",
            PathClass::Phb
                if self
                    .lca(a, b)
                    .is_some_and(|l| self.nodes[l].kind == NodeKind::RootComplex) =>
            {
                "PHB"
            }
            PathClass::Phb | PathClass::Sys => "NODE",
        }
    }

    /// The directed edges from GPU `a` to GPU `b`: up to the lowest common node (past any switch
    /// with ACS redirect, up to its root port or root complex), across the inter-socket link when the
    /// sockets differ, then down.
    pub fn route(&self, a: usize, b: usize) -> Vec<Edge> {
        if a == b {
            return Vec::new();
        }
        let aa = self.ancestors(Endpoint::Gpu(a));
        let bb = self.ancestors(Endpoint::Gpu(b));
        let mut turn = aa.iter().copied().find(|x| bb.contains(x));
        // ACS: peer traffic under a redirecting switch turns at the nearest root port/complex above it.
        while let Some(l) = turn {
            let n = &self.nodes[l];
            if n.kind == NodeKind::Switch && n.acs {
                turn = n.parent;
            } else {
                break;
            }
        }
        let mut up = vec![Edge::Up(Endpoint::Gpu(a))];
        let top_a = turn.unwrap_or(*aa.last().unwrap_or(&0));
        for &x in aa.iter().take_while(|&&x| x != top_a) {
            up.push(Edge::Up(Endpoint::Node(x)));
        }
        let mut down = vec![Edge::Down(Endpoint::Gpu(b))];
        let top_b = turn.unwrap_or(*bb.last().unwrap_or(&0));
        for &x in bb.iter().take_while(|&&x| x != top_b) {
            down.push(Edge::Down(Endpoint::Node(x)));
        }
        if turn.is_none() {
            up.push(Edge::InterSocket {
                from: top_a,
                to: top_b,
            });
        }
        down.reverse();
        up.extend(down);
        up
    }

    /// Edges from GPU `gpu` into the host DRAM of socket node `socket` (write) or back (read): the
    /// two legs of NCCL's SHM transport.
    pub fn route_host(&self, gpu: usize, socket: usize, to_host: bool) -> Vec<Edge> {
        let anc = self.ancestors(Endpoint::Gpu(gpu));
        let own = *anc.last().unwrap_or(&0);
        let mut v = vec![if to_host {
            Edge::Up(Endpoint::Gpu(gpu))
        } else {
            Edge::Down(Endpoint::Gpu(gpu))
        }];
        for &x in anc.iter().take_while(|&&x| x != own) {
            v.push(if to_host {
                Edge::Up(Endpoint::Node(x))
            } else {
                Edge::Down(Endpoint::Node(x))
            });
        }
        if own != socket {
            v.push(if to_host {
                Edge::InterSocket {
                    from: own,
                    to: socket,
                }
            } else {
                Edge::InterSocket {
                    from: socket,
                    to: own,
                }
            });
        }
        if to_host {
            v.push(Edge::Dram { socket, write: true });
        } else {
            v.reverse();
            v.insert(0, Edge::Dram { socket, write: false });
        }
        v
    }

    /// Whether kernel peer loads between two GPUs are staged through system memory: on paths
    /// through a CPU root complex when either GPU is direct-attached, unless the driver's ForceP2P
    /// mode is set (pcie-collectives.md, "Driver P2P mode on direct-attach paths").
    pub fn staged_peer_loads(&self, a: usize, b: usize, force_p2p: bool) -> bool {
        !force_p2p
            && self.path_class(a, b, false) >= PathClass::Phb
            && (self.is_direct_attach(a) || self.is_direct_attach(b))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seed_box() -> Topology {
        let paths: Vec<String> = (0..8).map(|i| format!("socket{}/root{}", i / 4, i)).collect();
        Topology::from_paths(&paths).unwrap()
    }

    #[test]
    fn path_classes_of_a_dual_socket_switch_box() {
        let t = Topology::from_paths(&[
            "socket0/rc0/root0/switch0",
            "socket0/rc0/root0/switch0",
            "socket0/rc0/root0/switch0/switch1",
            "socket0/rc1/root1",
            "socket1/root4",
        ])
        .unwrap();
        assert_eq!(t.path_class(0, 1, false), PathClass::Pix);
        assert_eq!(t.path_class(0, 2, false), PathClass::Pxb);
        assert_eq!(t.path_class(0, 3, false), PathClass::Phb);
        assert_eq!(t.path_class(3, 4, false), PathClass::Sys);
        assert_eq!(t.smi_label(0, 3, false, true), "NODE");
        assert_eq!(t.smi_label(3, 4, false, false), "SYS");
        // GPU0 and GPU3 of a box with root0 and root1 both under rc0 share a host bridge.
        let shared = Topology::from_paths(&["socket0/rc0/root0/switch0", "socket0/rc0/root1"]).unwrap();
        assert_eq!(shared.smi_label(0, 1, false, true), "PHB");
        assert_eq!(t.socket_count(), 2);
        assert_eq!(t.path_of(2), "socket0/rc0/root0/switch0/switch1");
        assert_ne!(t.root_complex_of(0), t.root_complex_of(3));
        assert_eq!(t.root_complex_of(0), t.root_complex_of(2));
    }

    /// nccl60: nvidia-smi's labels above the switches follow the NUMA nodes. Box B of
    /// tests/data/allreduce.tsv lines 206-225 (one EPYC 9B14 socket in NPS4; ChaoyuWang04/
    /// Syncopate_Async_AgenticRL docs/syncopate/08-machine-and-environment.md at 4dcc00c, "硬件画像"):
    /// GPUs 0/1 under one host bridge on node 3 (PHB), GPU 2 on node 2, GPU 3 on node 0, "跨 NUMA 走
    /// SYS". One socket in the tree, so the quadrants are the caller's `same_numa_node`. Two sockets
    /// on one NPS0 node: NODE (the legend: between host bridges within a NUMA node).
    #[test]
    fn labels_above_the_switches_follow_the_numa_nodes() {
        let b = Topology::from_paths(&[
            "socket0/rc0/root0",
            "socket0/rc0/root1",
            "socket0/rc1/root2",
            "socket0/rc2/root3",
        ])
        .unwrap();
        let node = [3, 3, 2, 0];
        let label = |i: usize, j: usize| b.smi_label(i, j, false, node[i] == node[j]);
        assert_eq!(label(0, 1), "PHB");
        for (i, j) in [(0, 2), (0, 3), (1, 2), (1, 3), (2, 3)] {
            assert_eq!(label(i, j), "SYS", "GPU{i}-GPU{j}");
        }
        // The same tree as one NUMA node (NPS1): NODE between host bridges, as before nccl60.
        assert_eq!(b.smi_label(0, 2, false, true), "NODE");
        // Two sockets, one NPS0 node: NODE; under a common switch the node does not matter.
        let two = seed_box();
        assert_eq!(two.smi_label(3, 4, false, true), "NODE");
        assert_eq!(two.smi_label(3, 4, false, false), "SYS");
        let sw = Topology::from_paths(&["socket0/root0/switch0", "socket0/root0/switch0"]).unwrap();
        assert_eq!(sw.smi_label(0, 1, false, false), "PIX");
    }

    #[test]
    fn routes_go_up_across_and_down() {
        let t = seed_box();
        // GPU 0 → GPU 5: up its link, up root0, across socket0→socket1, down root5, down into GPU 5.
        let r = t.route(0, 5);
        assert_eq!(r.len(), 5, "{r:?}");
        assert!(matches!(r[2], Edge::InterSocket { .. }));
        // Same socket: up GPU, up root, down root, down GPU.
        assert_eq!(t.route(0, 1).len(), 4);
        assert!(t.staged_peer_loads(0, 1, false));
        assert!(!t.staged_peer_loads(0, 1, true));
        // SHM legs: GPU 5 to socket0's DRAM crosses the inter-socket link.
        let w = t.route_host(5, t.socket_of(0), true);
        assert!(w.iter().any(|e| matches!(e, Edge::InterSocket { .. })));
        assert!(matches!(w.last(), Some(Edge::Dram { write: true, .. })));
    }

    #[test]
    fn acs_sends_switch_local_traffic_up() {
        let mut attrs = BTreeMap::new();
        attrs.insert(
            "switch0".to_string(),
            NodeAttrs {
                acs: Some(true),
                ..NodeAttrs::default()
            },
        );
        let paths = ["socket0/root0/switch0", "socket0/root0/switch0"];
        let plain = Topology::from_paths(&paths).unwrap();
        let acs = Topology::new(&paths, &attrs).unwrap();
        assert_eq!(plain.route(0, 1).len(), 2);
        assert_eq!(acs.route(0, 1).len(), 4); // up GPU, up switch0, down switch0, down GPU
        assert_eq!(acs.path_class(0, 1, false), PathClass::Pix);
        assert!(!plain.staged_peer_loads(0, 1, false));
    }

    #[test]
    fn bad_descriptions_are_errors() {
        assert!(matches!(
            Topology::from_paths(&["rack0/root0"]),
            Err(TopologyError::UnknownSegment { .. })
        ));
        assert!(matches!(
            Topology::from_paths(&["root0"]),
            Err(TopologyError::NoSocket { .. })
        ));
        assert!(matches!(
            Topology::from_paths(&["socket0/switch0/root0"]),
            Err(TopologyError::BadNesting { .. })
        ));
        assert!(matches!(
            Topology::from_paths(&["socket0/root0/switch0", "socket1/root1/switch0"]),
            Err(TopologyError::TwoParents { .. })
        ));
        assert!(matches!(
            Topology::from_paths::<&str>(&[]),
            Err(TopologyError::NoGpus)
        ));
        let mut attrs = BTreeMap::new();
        attrs.insert("switch9".to_string(), NodeAttrs::default());
        assert!(matches!(
            Topology::new(&["socket0/root0"], &attrs),
            Err(TopologyError::UnknownNode { .. })
        ));
    }
}
