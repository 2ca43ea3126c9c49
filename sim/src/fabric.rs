//! The box as a flow network: every directed edge of the PCIe tree (see `tpsim_model::topo`) becomes
//! a link with a capacity and a one-way latency taken from the hardware parameters, and every GPU's
//! parent (switch or root port) gets a posted-write collapse group.

use crate::net::{CollapseGroup, CollapseTag, FlowKind, FlowSpec, GroupId, LinkId, Network};
use crate::scenario::{Hardware, HwParams};
use std::collections::BTreeMap;
use tpsim_model::hw::GpuSpec;
use tpsim_model::topo::{Edge, Endpoint, Node, NodeKind, Topology};
use tpsim_model::units::{Bandwidth, Duration};

/// A path: the links a transfer crosses and their summed one-way latency.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Path {
    pub links: Vec<LinkId>,
    pub latency: Duration,
}

/// The network of one box.
#[derive(Debug, Clone)]
pub struct Fabric {
    pub net: Network,
    pub topology: Topology,
    pub params: HwParams,
    edges: BTreeMap<Edge, (LinkId, Duration)>,
    /// Collapse group of each GPU-parent node, with its virtual port link.
    groups: BTreeMap<usize, (GroupId, LinkId)>,
    /// Per ordered GPU pair: the SHM connection's copy limit.
    shm_conn: BTreeMap<(usize, usize), LinkId>,
    /// Per reading GPU: the limit of its peer loads staged through system memory.
    staged: BTreeMap<usize, LinkId>,
    /// Per GPU, its NVLink port into and out of the NVSwitch fabric (NVLink boxes only).
    nvlink: BTreeMap<usize, (LinkId, LinkId)>,
    /// Issue #17 point 4: the xGMI mesh's one link per ordered GPU pair (what a point-to-point send
    /// between two GPUs is limited to; collectives spread over every link through the ports above).
    xgmi_pairs: BTreeMap<(usize, usize), LinkId>,
    /// `pair_paths[a * gpus + b]`: the GPU → GPU path, computed once (collectives ask for the same
    /// few pairs on every call).
    pair_paths: Vec<Path>,
    // Host-aware SHM (issue #19 point 1): set by `add_host_shm` when the preset has a `[host]`.
    /// Per GPU-parent node: the SHM read link its GPUs share (replaces the per-pair limits).
    shm_ports: BTreeMap<usize, LinkId>,
    /// NCCL's SHM buffers sit in the receiver's host memory (`NCCL_SHM_LOCALITY` default).
    shm_at_receiver: bool,
    /// shm49: per GPU, the DRAM write and read links of the NUMA node holding the SHM buffers it
    /// owns (NPS / SNC hosts with `gpu_numa_nodes`; empty otherwise).
    shm_node_dram: BTreeMap<usize, (LinkId, LinkId)>,
}

/// Per-direction bandwidth of a PCIe link of `gen` × `width` from the measured x16 figures.
fn pcie_bw(p: &HwParams, pcie_gen: u32, width: u32) -> Bandwidth {
    let gen4 = p.pcie_gen4_x16_bw;
    let x16 = match pcie_gen {
        5.. => p.pcie_gen5_x16_bw,
        4 => gen4,
        // Gen3 and below: the preset's measured Gen3 figure where it has one, else half of Gen4
        // per lane (PCIe spec: 8 vs 16 GT/s).
        _ => p
            .pcie_gen3_x16_bw
            .unwrap_or_else(|| gen4.scaled(0.5).unwrap_or(gen4)),
    };
    x16.scaled(width.clamp(1, 16) as f64 / 16.0).unwrap_or(x16)
}

/// The per-direction bandwidth of a GPU's own PCIe link (issue #17 point 4: what a NIC reaching it
/// over PCIe, or a host-staged copy, is limited to).
pub fn gpu_link_bw(p: &HwParams, gpu: &GpuSpec) -> Bandwidth {
    pcie_bw(p, gpu.pcie_gen, gpu.pcie_width)
}

impl Fabric {
    /// Builds the network for the hardware of a scenario.
    pub fn new(hw: &Hardware) -> Fabric {
        let mut f = Self::build(&hw.topology, &hw.gpu, &hw.params);
        if let Some(x) = &hw.accel.xgmi {
            f.add_xgmi(x);
        }
        if let Some(h) = &hw.host {
            f.add_host_shm(h, &hw.gpu);
        }
        f
    }

    /// Issue #19 point 1 (host facts): NCCL's SHM receivers load their buffers from host memory
    /// through their parent port (switch uplink or root port) at `shm_read_efficiency` of that
    /// port's link rate, shared by the GPUs behind it; the buffers sit on the receiver's socket
    /// under NCCL's default locality (tpsim_model::shm). The per-pair limits go.
    fn add_host_shm(&mut self, h: &tpsim_model::shm::HostFacts, gpu: &GpuSpec) {
        self.shm_at_receiver = h.shm_buffer == tpsim_model::shm::ShmBuffer::Receiver;
        // Resolution requires the efficiency with a `[host]`; without one the per-pair limits stay.
        let Some(eff) = self.params.shm_read_efficiency else {
            return;
        };
        self.shm_conn.clear();
        let gpu_bw = pcie_bw(&self.params, gpu.pcie_gen, gpu.pcie_width);
        for n in self.gpu_parents() {
            let node = &self.topology.nodes()[n];
            // A switch's port is its uplink; a root port's is the GPU's own link.
            let link = match node.kind {
                NodeKind::Switch => pcie_bw(
                    &self.params,
                    node.pcie_gen.unwrap_or(gpu.pcie_gen),
                    node.width.unwrap_or(16),
                ),
                _ => gpu_bw,
            };
            let rate = tpsim_model::shm::shm_read_rate(link, eff).unwrap_or(link);
            let id = self.net.add_link(format!("SHM reads into {}", node.name), rate);
            self.shm_ports.insert(n, id);
        }
        self.add_numa_node_dram(h);
    }

    /// shm49: on a socket split into NUMA nodes (NPS / SNC), one DRAM write and one read link per
    /// node that holds SHM buffers, each its `memory_channels / numa_nodes_per_socket` channels'
    /// bandwidth ([`tpsim_model::shm::HostFacts::node_memory_bw`]; the socket's own DRAM links stay,
    /// their sum). A GPU's buffers sit on its own node (tpsim_model::shm).
    fn add_numa_node_dram(&mut self, h: &tpsim_model::shm::HostFacts) {
        let Some(bw) = h.node_memory_bw() else {
            return;
        };
        if h.numa_nodes_per_socket <= 1 {
            return;
        }
        let mut by_node: BTreeMap<u32, (LinkId, LinkId)> = BTreeMap::new();
        for (g, &node) in h.gpu_numa_nodes.iter().enumerate() {
            if g >= self.topology.gpu_count() {
                break;
            }
            let links = *by_node.entry(node).or_insert_with(|| {
                (
                    self.net.add_link(format!("NUMA node {node} DRAM write"), bw),
                    self.net.add_link(format!("NUMA node {node} DRAM read"), bw),
                )
            });
            self.shm_node_dram.insert(g, links);
        }
    }

    /// Issue #17 point 4: AMD's fully connected xGMI mesh. Each GPU gets a port into and out of the
    /// mesh with all of its links' bandwidth (`links × link_bw`): RCCL lays its channels' rings over
    /// different links of the mesh, so a collective's traffic out of one GPU spreads over all of
    /// them, as NCCL's over an NVSwitch port. Each ordered pair also gets its own link (`link_bw`),
    /// which a point-to-point send ([`Fabric::send_flow`]) is limited to. GPU → GPU paths then take
    /// the mesh (latency `xgmi.latency`), like NVLink's.
    fn add_xgmi(&mut self, x: &crate::scenario::accel::Xgmi) {
        let n = self.topology.gpu_count();
        let port = x.port_bw();
        for g in 0..n {
            let up = self.net.add_link(format!("GPU{g}→xGMI"), port);
            let down = self.net.add_link(format!("xGMI→GPU{g}"), port);
            self.nvlink.insert(g, (up, down));
        }
        for a in 0..n {
            for b in 0..n {
                if a != b {
                    let id = self.net.add_link(format!("xGMI link GPU{a}→GPU{b}"), x.link_bw);
                    self.xgmi_pairs.insert((a, b), id);
                }
            }
        }
        self.params.nvlink_latency = Some(x.latency);
        self.pair_paths = (0..n * n).map(|i| self.route_path(i / n, i % n)).collect();
    }

    /// A point-to-point send of `bytes` from GPU `src` to GPU `dst` (a pipeline stage's activations,
    /// a KV transfer): the collective path plus, on an xGMI mesh, the one link joining the pair.
    pub fn send_flow(&self, src: usize, dst: usize, bytes: u64, start: Duration, tag: u64) -> FlowSpec {
        let mut f = self.flow(src, dst, bytes, start, FlowKind::Write, tag);
        if let Some(&l) = self.xgmi_pairs.get(&(src, dst)) {
            f.path.push(l);
        }
        f
    }

    /// Builds the network from its parts.
    pub fn build(topology: &Topology, gpu: &GpuSpec, p: &HwParams) -> Fabric {
        let mut f = Fabric {
            net: Network::new(),
            topology: topology.clone(),
            params: p.clone(),
            edges: BTreeMap::new(),
            groups: BTreeMap::new(),
            shm_conn: BTreeMap::new(),
            staged: BTreeMap::new(),
            nvlink: BTreeMap::new(),
            xgmi_pairs: BTreeMap::new(),
            pair_paths: Vec::new(),
            shm_ports: BTreeMap::new(),
            shm_at_receiver: false,
            shm_node_dram: BTreeMap::new(),
        };
        let gpu_bw = pcie_bw(p, gpu.pcie_gen, gpu.pcie_width);
        let nodes = topology.nodes().to_vec();
        f.add_gpu_links(&nodes, gpu_bw);
        f.add_tree_links(&nodes, gpu);
        f.add_socket_links(&nodes);
        f.add_collapse_groups(&nodes, gpu, gpu_bw);
        if gpu.nvlink
            && let Some(bw) = p.nvlink_bw
        {
            for g in 0..topology.gpu_count() {
                let up = f.net.add_link(format!("GPU{g}→NVLink"), bw);
                let down = f.net.add_link(format!("NVLink→GPU{g}"), bw);
                f.nvlink.insert(g, (up, down));
            }
        }
        f.add_shm_and_staged_links(gpu_bw);
        let g = topology.gpu_count();
        f.pair_paths = (0..g * g).map(|i| f.route_path(i / g, i % g)).collect();
        f
    }

    /// One link of the PCIe tree (or of the host) for edge `e`.
    fn add_edge(&mut self, e: Edge, name: String, bw: Bandwidth, lat: Duration) {
        let id = self.net.add_link(name, bw);
        self.edges.insert(e, (id, lat));
    }

    /// Each GPU's link to its parent, up and down.
    fn add_gpu_links(&mut self, nodes: &[Node], gpu_bw: Bandwidth) {
        let hop = self.params.pcie_hop_latency;
        for g in 0..self.topology.gpu_count() {
            let parent = &nodes[self.topology.gpu_parent(g)].name;
            self.add_edge(
                Edge::Up(Endpoint::Gpu(g)),
                format!("GPU{g}→{parent}"),
                gpu_bw,
                hop,
            );
            self.add_edge(
                Edge::Down(Endpoint::Gpu(g)),
                format!("{parent}→GPU{g}"),
                gpu_bw,
                hop,
            );
        }
    }

    /// Each node's link to its parent (switch uplinks, root ports, root complexes), up and down.
    fn add_tree_links(&mut self, nodes: &[Node], gpu: &GpuSpec) {
        for (i, n) in nodes.iter().enumerate() {
            let Some(parent) = n.parent else { continue };
            let p = &self.params;
            let pname = &nodes[parent].name;
            let (bw, lat) = match n.kind {
                NodeKind::Switch => (
                    pcie_bw(p, n.pcie_gen.unwrap_or(gpu.pcie_gen), n.width.unwrap_or(16)),
                    p.pcie_hop_latency,
                ),
                // Turning through the root complex costs its latency once: half on the way up, half down.
                NodeKind::RootPort => (
                    p.root_complex_bw,
                    Duration::from_ps(p.root_complex_latency.as_ps() / 2),
                ),
                NodeKind::RootComplex | NodeKind::Socket => (p.root_complex_bw, Duration::ZERO),
            };
            self.add_edge(
                Edge::Up(Endpoint::Node(i)),
                format!("{}→{pname}", n.name),
                bw,
                lat,
            );
            self.add_edge(
                Edge::Down(Endpoint::Node(i)),
                format!("{pname}→{}", n.name),
                bw,
                lat,
            );
        }
    }

    /// The links between sockets and each socket's DRAM (write and read).
    fn add_socket_links(&mut self, nodes: &[Node]) {
        let p = self.params.clone();
        let sockets: Vec<usize> = (0..nodes.len())
            .filter(|&i| nodes[i].kind == NodeKind::Socket)
            .collect();
        for &a in &sockets {
            for &b in &sockets {
                if a != b {
                    let name = format!("{}→{}", nodes[a].name, nodes[b].name);
                    self.add_edge(
                        Edge::InterSocket { from: a, to: b },
                        name,
                        p.inter_socket_bw,
                        p.inter_socket_latency,
                    );
                }
            }
            for write in [true, false] {
                let name = format!("{} DRAM {}", nodes[a].name, if write { "write" } else { "read" });
                self.add_edge(
                    Edge::Dram { socket: a, write },
                    name,
                    p.host_memory_bw,
                    Duration::ZERO,
                );
            }
        }
    }

    /// The nodes that have GPUs as children (switches and root ports), each once, in index order.
    fn gpu_parents(&self) -> Vec<usize> {
        let mut parents: Vec<usize> = (0..self.topology.gpu_count())
            .map(|g| self.topology.gpu_parent(g))
            .collect();
        parents.sort_unstable();
        parents.dedup();
        parents
    }

    /// One collapse group per node that has GPUs as children (a switch or a root port): its write
    /// port is normally its uplink's capacity, `collapse_factor` of it once the rule fires.
    fn add_collapse_groups(&mut self, nodes: &[Node], gpu: &GpuSpec, gpu_bw: Bandwidth) {
        let p = self.params.clone();
        for n in self.gpu_parents() {
            let node = &nodes[n];
            let normal = match node.kind {
                NodeKind::Switch => pcie_bw(
                    &p,
                    node.pcie_gen.unwrap_or(gpu.pcie_gen),
                    node.width.unwrap_or(16),
                ),
                _ => gpu_bw,
            };
            let port = self.net.add_link(format!("{} write port", node.name), normal);
            let normal_bps = normal.bytes_per_s() as f64;
            let group = self.net.add_collapse_group(CollapseGroup {
                name: node.name.clone(),
                port,
                normal_bps,
                collapsed_bps: normal_bps * p.collapse_factor,
                min_dest_roots: p.collapse_min_roots,
                min_sources: p.collapse_min_sources,
            });
            if let Ok(g) = group {
                self.groups.insert(n, (g, port));
            }
        }
    }

    /// Per ordered GPU pair an SHM connection link; per GPU the link its staged peer loads share.
    fn add_shm_and_staged_links(&mut self, gpu_bw: Bandwidth) {
        let p = &self.params;
        let (shm_copy_bw, staged_bw) = (
            p.shm_copy_bw,
            gpu_bw.scaled(1.0 / p.staged_peer_read_factor).unwrap_or(gpu_bw),
        );
        for a in 0..self.topology.gpu_count() {
            for b in 0..self.topology.gpu_count() {
                if a != b {
                    let id = self
                        .net
                        .add_link(format!("SHM connection GPU{a}→GPU{b}"), shm_copy_bw);
                    self.shm_conn.insert((a, b), id);
                }
            }
            // The staging path is the reader's: a custom allreduce took 242 µs at 114 KB on 8 GPUs
            // (pcie-collectives.md), i.e. ≈ 7 × 114 KB / 200 µs ≈ 4 GB/s per reader in total.
            let id = self
                .net
                .add_link(format!("staged peer loads into GPU{a}"), staged_bw);
            self.staged.insert(a, id);
        }
    }

    /// Adds one connection link per (channel, rank) for NCCL's ring: rank `ranks[r]` sending to
    /// its successor on channel `ch` is capped at `nccl_channel_bw`. Returns `[ch][r]`.
    pub fn add_nccl_connections(&mut self, ranks: &[usize], channels: u32) -> Vec<Vec<LinkId>> {
        let bw = self.params.nccl_channel_bw;
        (0..channels)
            .map(|ch| {
                ranks
                    .iter()
                    .map(|&g| self.net.add_link(format!("NCCL channel {ch} GPU{g}→next"), bw))
                    .collect()
            })
            .collect()
    }

    /// A flow of NCCL's SHM transport from `src` to `dst` through the DRAM of the sender's socket:
    /// the write leg and the read leg share one connection limit (`shm_copy_bw`), pipelined, so it
    /// is modelled as one flow over the union of both legs' links. Latency: both legs plus the SHM
    /// step cost (cross-socket when the two GPUs are on different sockets).
    pub fn shm_flow(&self, src: usize, dst: usize, bytes: u64, start: Duration, tag: u64) -> FlowSpec {
        // With host facts the buffer is on the receiver's socket (NCCL's default locality).
        let socket = if self.shm_at_receiver {
            self.topology.socket_of(dst)
        } else {
            self.topology.socket_of(src)
        };
        let w = self.host_path(src, socket, true);
        let r = self.host_path(dst, socket, false);
        let mut links = w.links;
        for l in r.links {
            if !links.contains(&l) {
                links.push(l);
            }
        }
        if let Some(&c) = self.shm_conn.get(&(src, dst)) {
            links.push(c);
        }
        if let Some(&p) = self.shm_ports.get(&self.topology.gpu_parent(dst)) {
            links.push(p);
        }
        // shm49: the buffer's NUMA node (the receiver's under NCCL's default locality) takes the
        // write in and the read out.
        let owner = if self.shm_at_receiver { dst } else { src };
        if let Some(&(w, r)) = self.shm_node_dram.get(&owner) {
            links.push(w);
            links.push(r);
        }
        let cross = self.topology.socket_of(dst) != self.topology.socket_of(src);
        let step = if cross {
            self.params.shm_cross_socket_step_cost
        } else {
            self.params.shm_step_cost
        };
        FlowSpec {
            path: links,
            bytes,
            start,
            kind: FlowKind::Write,
            collapse: None,
            latency: w.latency + r.latency + step,
            tag,
        }
    }

    /// Whether kernel peer loads from `owner` by `reader` are staged through system memory.
    pub fn is_staged(&self, reader: usize, owner: usize) -> bool {
        // Issue #17 point 4: on an xGMI mesh a peer load crosses the pair's link, never the host.
        if self.xgmi_pairs.contains_key(&(owner, reader)) {
            return false;
        }
        // newdeploys15: on an NVLink pair (a bridge between two direct-attached PCIe cards, or an
        // NVSwitch port) a peer load takes the link, as [`Fabric::path`] routes it, never host memory:
        // tests/data/allreduce.tsv's bridged H100 PCIe pair runs NCCL as "P2P/direct pointer".
        if self.nvlink.contains_key(&reader) && self.nvlink.contains_key(&owner) {
            return false;
        }
        self.topology
            .staged_peer_loads(reader, owner, self.params.force_p2p)
    }

    /// A kernel peer load (custom allreduce): `reader` pulls `bytes` from `owner`. Staged loads are
    /// limited to `1 / staged_peer_read_factor` of the link and take `staged_latency`.
    pub fn peer_read(&self, reader: usize, owner: usize, bytes: u64, start: Duration, tag: u64) -> FlowSpec {
        let mut f = self.flow(owner, reader, bytes, start, FlowKind::Read, tag);
        if self.is_staged(reader, owner) {
            if let Some(&l) = self.staged.get(&reader) {
                f.path.push(l);
            }
            f.latency = self.params.staged_latency;
        }
        f
    }

    /// The one-way latency of a flag write from `a` to `b` (a barrier's unit): the path latency, or
    /// the staged latency on staged paths.
    pub fn flag_latency(&self, a: usize, b: usize) -> Duration {
        if self.is_staged(b, a) {
            self.params.staged_latency
        } else {
            self.path(a, b).latency
        }
    }

    fn path_of(&self, edges: &[Edge]) -> Path {
        let mut links = Vec::with_capacity(edges.len());
        let mut latency = Duration::ZERO;
        for e in edges {
            if let Some(&(id, lat)) = self.edges.get(e) {
                links.push(id);
                latency += lat;
            }
        }
        Path { links, latency }
    }

    /// The path data takes from GPU `a` to GPU `b`: over NVLink when the box has it (through the
    /// NVSwitch fabric: the sender's port out, the receiver's port in), else the PCIe tree.
    pub fn path(&self, a: usize, b: usize) -> Path {
        let g = self.topology.gpu_count();
        match self.pair_paths.get(a * g + b) {
            Some(p) if a < g && b < g => p.clone(),
            _ => self.route_path(a, b),
        }
    }

    /// [`Fabric::path`] computed from the topology (what the cache holds).
    fn route_path(&self, a: usize, b: usize) -> Path {
        if let (Some(&(up, _)), Some(&(_, down))) = (self.nvlink.get(&a), self.nvlink.get(&b))
            && a != b
        {
            let latency = self.params.nvlink_latency.unwrap_or(Duration::ZERO);
            return Path {
                links: vec![up, down],
                latency,
            };
        }
        self.path_of(&self.topology.route(a, b))
    }

    /// Issue #19 point 3: the capacity (bytes/s) of GPU `g`'s own link from its parent (what a
    /// reader's peer reads arrive over), or `None` for a GPU outside the box.
    pub fn gpu_in_capacity(&self, g: usize) -> Option<f64> {
        let &(id, _) = self.edges.get(&Edge::Down(Endpoint::Gpu(g)))?;
        Some(self.net.link(id).capacity_bps)
    }

    /// Whether GPU pairs talk over NVLink.
    pub fn has_nvlink(&self) -> bool {
        !self.nvlink.is_empty()
    }

    /// The path from GPU `gpu` into (or out of) the DRAM of `socket`.
    pub fn host_path(&self, gpu: usize, socket: usize, to_host: bool) -> Path {
        self.path_of(&self.topology.route_host(gpu, socket, to_host))
    }

    /// A flow carrying `bytes` from GPU `src` to GPU `dst`. Writes that leave the source's parent
    /// node pass its collapse port and are tagged for the collapse rule. Reads (data in the same
    /// direction, as completions) are tagged too when the platform's `collapse_reads` says their
    /// completions collapse like posted writes; otherwise they never trigger it.
    pub fn flow(
        &self,
        src: usize,
        dst: usize,
        bytes: u64,
        start: Duration,
        kind: FlowKind,
        tag: u64,
    ) -> FlowSpec {
        let mut path = self.path(src, dst);
        let parent = self.topology.gpu_parent(src);
        let leaves = self.topology.gpu_parent(dst) != parent;
        let mut collapse = None;
        let counts = kind == FlowKind::Write || self.params.collapse_reads;
        if counts
            && !self.has_nvlink()
            && leaves
            && let Some(&(group, port)) = self.groups.get(&parent)
        {
            path.links.insert(1, port);
            collapse = Some(CollapseTag {
                group,
                source: src as u32,
                dest_root: self.topology.root_complex_of(dst) as u32,
            });
        }
        FlowSpec {
            path: path.links,
            bytes,
            start,
            // The network counts write-kind flows only: a read whose completions count is one.
            kind: if collapse.is_some() { FlowKind::Write } else { kind },
            collapse,
            latency: path.latency,
            tag,
        }
    }
}
