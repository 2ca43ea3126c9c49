//! Transfers between boxes of a `[hardware.cluster]` (issue #17 point 4): NCCL's net transport over
//! the NICs, with or without GPUDirect RDMA, for any rank-to-rank transfer (a pipeline stage's send,
//! one hop of a ring that spans boxes) and NCCL's ring allreduce across boxes. Analytic (no flow
//! network): a box's own links are the fabric's ([`crate::fabric`]); these functions add what lies
//! between boxes.
//!
//! Ranks are numbered box by box: global GPU `g` is GPU `g % gpus` of box `g / gpus`.

use crate::scenario::Hardware;
use crate::scenario::accel::Cluster;
use tpsim_model::units::Duration;

/// How bytes cross from one GPU to a GPU of another box.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NetPath {
    /// Both in one box: the box's fabric carries it.
    SameBox,
    /// Across boxes inside one NVLink domain (GB200 NVL72): NVLink, as within a box.
    NvlinkDomain,
    /// NIC with GPUDirect RDMA: the NIC reads the sender's GPU memory and writes the receiver's.
    NetGdr,
    /// NIC without GPUDirect RDMA: each side stages through a host buffer (GPU → DRAM → NIC and
    /// NIC → DRAM → GPU).
    NetHostStaged,
}

/// The cost of one transfer: its path, its one-way latency and the rate it streams at.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TransferCost {
    pub path: NetPath,
    pub latency: Duration,
    /// Bytes per second the transfer streams at once started.
    pub bytes_per_s: f64,
}

impl TransferCost {
    /// Latency plus `bytes` at the streaming rate.
    pub fn time(&self, bytes: u64) -> Duration {
        self.latency + Duration::from_us_f64(bytes as f64 / self.bytes_per_s.max(1.0) * 1e6)
    }
}

/// The box of global GPU `g`.
pub fn node_of(hw: &Hardware, g: usize) -> usize {
    g / hw.topology.gpu_count().max(1)
}

/// The cost of sending from global GPU `src` to global GPU `dst` when they are in different boxes
/// (`None` within one box: use the fabric, [`crate::fabric::Fabric::send_flow`]).
///
/// - NVLink domain: the NVLink port (`nvlink_bw`, `nvlink_latency`), as within a box.
/// - GPUDirect RDMA: the NIC streams from GPU memory: the rate is the slower of the NIC line rate and
///   the GPU's PCIe link (both sides cross one), the latency the NIC's plus a PCIe hop each side.
/// - Host-staged (no GDR): NCCL's proxy moves the data through a host buffer on both sides (NCCL
///   `transport/net.cc`: without GDR the receive and send buffers live in host memory, and the GPU
///   kernel copies into and out of them). The stream is pipelined in slices, so the rate is the
///   slowest stage: the NIC, the GPU's PCIe link, or the socket's DRAM, which takes every byte
///   twice on each side (written by one agent, read by the other) → `host_memory_bw / 2`. The
///   latency adds each side's host path (GPU ↔ DRAM through the PCIe tree) and the staged-copy
///   latency the box measured (`staged_latency`, its "through system memory" figure).
pub fn transfer(hw: &Hardware, src: usize, dst: usize) -> Option<TransferCost> {
    let c = hw.accel.cluster.as_ref()?;
    if node_of(hw, src) == node_of(hw, dst) {
        return None;
    }
    let gpus = hw.topology.gpu_count().max(1) as u32;
    let domain = (c.nvlink_domain_gpus / gpus).max(1) as usize;
    if node_of(hw, src) / domain == node_of(hw, dst) / domain
        && let (Some(bw), Some(lat)) = (hw.params.nvlink_bw, hw.params.nvlink_latency)
    {
        return Some(TransferCost {
            path: NetPath::NvlinkDomain,
            latency: lat,
            bytes_per_s: bw.bytes_per_s() as f64,
        });
    }
    let p = &hw.params;
    let pcie = crate::fabric::gpu_link_bw(p, &hw.gpu).bytes_per_s() as f64;
    let nic = c.nic_bw.bytes_per_s() as f64;
    if c.gpudirect_rdma {
        Some(TransferCost {
            path: NetPath::NetGdr,
            latency: c.nic_latency + p.pcie_hop_latency + p.pcie_hop_latency,
            bytes_per_s: nic.min(pcie),
        })
    } else {
        let dram = p.host_memory_bw.bytes_per_s() as f64 / 2.0;
        let host_leg = p.pcie_hop_latency + p.root_complex_latency + p.staged_latency;
        Some(TransferCost {
            path: NetPath::NetHostStaged,
            latency: c.nic_latency + host_leg + host_leg,
            bytes_per_s: nic.min(pcie).min(dram),
        })
    }
}

/// The NIC hop between two boxes ([`transfer`] from box 0 to box 1) and the NICs of a box that a
/// collective over `nodes` boxes of `per_node` ranks uses (one per rank at most); `None` without a
/// cluster or within one box.
fn net_hop(hw: &Hardware, per_node: usize, nodes: usize) -> Option<(TransferCost, f64)> {
    let c: &Cluster = hw.accel.cluster.as_ref()?;
    if nodes < 2 || per_node == 0 {
        return None;
    }
    let hop = transfer(hw, 0, hw.topology.gpu_count())?;
    Some((hop, f64::from(c.nics_per_node.min(per_node as u32).max(1))))
}

/// NCCL's ring allreduce of `bytes` per rank over `nodes` boxes of `per_node` ranks each, with
/// `intra_bytes_per_s` the busbw a ring inside one box reaches and `intra_step` its per-step
/// latency: the ring enters and leaves every box once per channel, and NCCL runs one ring per NIC
/// (its net channels), so the inter-box hop moves `2 (N − 1) / N × bytes / nics` per NIC. The time
/// is the slower of the two hop kinds' streaming plus the ring's 2 (N − 1) steps of latency, split
/// as NCCL's tuner splits them (NCCL `src/graph/tuning.cc` `ncclTopoTuneModel`, ring branch, v2.27:
/// `nInterSteps` = 2 (nodes − 1) steps at the net latency, the other steps at the intra-box one):
/// here the net step is the NIC hop's one-way latency ([`transfer`]) and the intra step the box's
/// (at least the NIC hop's is not imposed: NCCL's `getNetOverhead` floor is not modelled). `None`
/// when the hardware has no cluster or the ranks fit in one box.
pub fn ring_allreduce(
    hw: &Hardware,
    per_node: usize,
    nodes: usize,
    bytes: u64,
    intra_bytes_per_s: f64,
    intra_step: Duration,
) -> Option<Duration> {
    let (hop, nics) = net_hop(hw, per_node, nodes)?;
    let n = (per_node * nodes) as f64;
    let moved = 2.0 * (n - 1.0) / n * bytes as f64;
    let inter = hop.bytes_per_s * nics;
    let rate = intra_bytes_per_s.max(1.0).min(inter);
    let steps = 2.0 * (n - 1.0);
    let inter_steps = 2.0 * (nodes as f64 - 1.0);
    let latency = (steps - inter_steps) * intra_step.as_us_f64() + inter_steps * hop.latency.as_us_f64();
    Some(Duration::from_us_f64(moved / rate * 1e6 + latency))
}

/// NCCL's tree allreduce of `bytes` per rank over `nodes` boxes of `per_node` ranks (NCCL
/// `src/device/all_reduce.h` `runTreeUpDown`/`runTreeSplit`; the trees of `src/graph/trees.cc`): inside
/// a box the ranks form a chain, the data reduced up it and broadcast down it, so each GPU sends every
/// byte twice (once up, once down) at the box's per-link rate; across boxes NCCL's two binary trees
/// each carry half the data, so a box's NICs send `bytes` on two nodes (each node the other's child in
/// one tree) and 2 × `bytes` beyond (a node interior in one tree: half up, both halves down to two
/// children, half up as a leaf of the other). The streaming is the slower of the two; the latency is
/// NCCL's tree shape: 2 ((per_node − 1) intra steps + log2(nodes) network hops), a hop being the NIC
/// path's one-way latency ([`transfer`]). `None` without a cluster or within one box.
pub fn tree_allreduce(
    hw: &Hardware,
    per_node: usize,
    nodes: usize,
    bytes: u64,
    intra_bytes_per_s: f64,
    intra_step: Duration,
) -> Option<Duration> {
    let (hop, nics) = net_hop(hw, per_node, nodes)?;
    let b = bytes as f64;
    let chain = if per_node > 1 {
        2.0 * b / intra_bytes_per_s.max(1.0)
    } else {
        0.0
    };
    let net = if nodes == 2 { b } else { 2.0 * b } / (hop.bytes_per_s * nics).max(1.0);
    let log2_nodes = f64::from(usize::BITS - 1 - nodes.leading_zeros());
    let latency =
        2.0 * ((per_node as f64 - 1.0) * intra_step.as_us_f64() + log2_nodes * hop.latency.as_us_f64());
    Some(Duration::from_us_f64(chain.max(net) * 1e6 + latency))
}
