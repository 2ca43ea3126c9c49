//! Issue #19 point 1: NCCL's SHM transport costs from the host's own facts (a hardware preset's
//! `[host]` section) instead of one constant for every host.
//!
//! How NCCL moves a ring step through host memory (NCCL 2.27.7 / 2.28.9 `src/transport/shm.cc`,
//! read for this module; the same in 2.19.3): `NCCL_SHM_LOCALITY` defaults to the receiver side, so
//! each connection's protocol buffers are allocated by the **receiver's** proxy (with CUDA ≥ 12.2
//! through `cuMem` host allocations on the receiver GPU's host NUMA node, otherwise an mmapped
//! `/dev/shm` file it registers). `NCCL_SHM_USE_CUDA_MEMCPY` defaults to 0: no copy engine and no
//! proxy copy. The sender's SMs store into that host buffer (posted writes over its PCIe path,
//! across the socket link when the two GPUs sit on different sockets); the receiver's SMs load from
//! it (non-posted reads of its local host memory). The step's flags follow the same rule: the tail
//! a receiver polls lives in its own host memory and the sender writes it; the head the sender polls
//! lives in the sender's and the receiver writes it. Polls are therefore local reads; what a socket
//! adds is one posted flag write across it per step. vllmfloor: the same in 2.21.5 (vLLM 0.8.5's
//! pin), where without the memcpy mode the SHM connectors carry no `proxyProgress`, so `SaveProxy`
//! queues nothing and a CUDA-graph-captured allreduce gets no host node (`enqueue.cc`): no host
//! cost per call is charged under graphs.
//!
//! What this module derives (all pure arithmetic on the facts):
//! - host DRAM bandwidth per socket: channels × transfer rate × 8 B (a DDR channel is 64 bits wide),
//!   times the achievable fraction the presets already assume (70 %);
//! - the socket link's capacity per direction: links × per-link bandwidth;
//! - the per-step cost of an SHM hop across sockets: the same-socket step plus one flag write across
//!   the socket link (its one-way latency).
//! - shm49: the DRAM of one NUMA node where a socket is split into several (AMD NPS2/NPS4, Intel
//!   SNC): each node interleaves only its own channels (Dell EMC PowerEdge R6525 / R6515 manuals,
//!   Table 42 "Interleaving Options Based on NPSx": on EPYC 7002, NPS4 interleaves the 2 channels of a
//!   quadrant, NPS2 the 4 of a half, NPS1 all 8; EPYC 9004 offers 2- to 12-channel interleaves over its
//!   12 channels, tech2sports.com "AMD EPYC Genoa"), so a node holds `memory_channels / nodes` channels.
//!   NCCL puts an SHM connection's buffers on the receiver GPU's own node (the receiver's proxy
//!   allocates them, `shmRecvProxySetup`, with its thread bound to the GPU's local CPUs; on the cuMem
//!   path at the allocating GPU's `CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID`, NCCL 2.29.7
//!   `src/include/alloc.h` `ncclCuMemHostAlloc`), so that node's DRAM
//!   carries the connection's write into and read out of host memory ([`HostFacts::node_memory_bw`]).
//!
//! - the rate at which the GPUs behind one parent port (switch uplink or root port) load SHM buffers
//!   from host memory: a fraction of that port's link rate ([`shm_read_rate`]), shared by those GPUs
//!   (sim/src/fabric.rs adds one link per port). The fraction (`shm_read_efficiency`) is not a
//!   datasheet figure: non-posted reads of host memory run below the link rate by an amount no
//!   datasheet states. It is a `[params]` value with its source (fitted or derived from a
//!   measurement), and `tpsim-calibrate crossval allreduce` fits it as a shared constant.

use crate::units::{Bandwidth, Duration};

/// Bytes a DDR4/DDR5 channel moves per transfer: 64 data bits (JEDEC DDR4 JESD79-4 and DDR5
/// JESD79-5: a DDR5 DIMM's two 32-bit subchannels make the same 64 bits per channel).
pub const DDR_BYTES_PER_TRANSFER: f64 = 8.0;

/// Achievable fraction of DRAM peak the presets assume (templates/pcie-nccl-host.toml,
/// `host_memory_bw`: "assumed ~70 % achievable"); kept so that a `[host]` preset and the template
/// make the same assumption.
pub const DRAM_ACHIEVABLE: f64 = 0.70;

/// Where NCCL allocates a connection's SHM buffers (`NCCL_SHM_LOCALITY`, shm.cc: 1 = sender side,
/// 2 = receiver side, the default).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShmBuffer {
    Sender,
    Receiver,
}

/// The host facts the SHM costs depend on (a preset's `[host]`, validated).
#[derive(Debug, Clone, PartialEq)]
pub struct HostFacts {
    /// The CPU model as the source names it (documentation; no figure is read off the name).
    pub cpu_model: String,
    pub sockets: u32,
    /// Populated DRAM channels per socket.
    pub memory_channels: u32,
    /// DIMM transfer rate, MT/s.
    pub dimm_mts: u32,
    /// Socket-to-socket links (UPI / xGMI) between two sockets, and each link's bandwidth per
    /// direction. Zero links on one socket.
    pub socket_links: u32,
    pub socket_link_bw: Option<Bandwidth>,
    pub shm_buffer: ShmBuffer,
    /// NUMA nodes per socket (AMD NPS, Intel SNC), ≥ 1; 1 is the whole socket.
    pub numa_nodes_per_socket: u32,
    /// Each GPU's NUMA node (as `nvidia-smi topo -m`'s NUMA Affinity column numbers them: socket s
    /// holds nodes `s × numa_nodes_per_socket` …), given where `numa_nodes_per_socket` > 1; empty
    /// otherwise.
    pub gpu_numa_nodes: Vec<u32>,
}

/// Host DRAM bandwidth of one socket that SHM staging shares (per direction, as `host_memory_bw`):
/// channels × MT/s × 8 B × [`DRAM_ACHIEVABLE`]. `None` for zero channels or rate.
pub fn dram_bw(memory_channels: u32, dimm_mts: u32) -> Option<Bandwidth> {
    let peak = memory_channels as f64 * dimm_mts as f64 * 1e6 * DDR_BYTES_PER_TRANSFER;
    if peak <= 0.0 {
        return None;
    }
    Bandwidth::from_bytes_per_s((peak * DRAM_ACHIEVABLE).round() as u64)
}

/// DRAM bandwidth of one NUMA node of a socket split into `nodes` (NPS / SNC): the node's
/// `channels / nodes` channels at `dimm_mts` (see [`dram_bw`]). `None` for zero nodes, or channels
/// that the nodes do not split evenly (NPS interleaves equal channel sets: the module text).
pub fn node_dram_bw(memory_channels: u32, dimm_mts: u32, nodes: u32) -> Option<Bandwidth> {
    if nodes == 0 || !memory_channels.is_multiple_of(nodes) {
        return None;
    }
    dram_bw(memory_channels / nodes, dimm_mts)
}

/// The socket link's capacity per direction: `links × per_link`. `None` without links.
pub fn socket_link_total(links: u32, per_link: Option<Bandwidth>) -> Option<Bandwidth> {
    let bw = per_link?;
    if links == 0 {
        return None;
    }
    bw.scaled(links as f64)
}

/// The SHM read rate of one parent port: `efficiency × port link rate`. `None` for an efficiency
/// outside (0, 1].
pub fn shm_read_rate(port_link: Bandwidth, efficiency: f64) -> Option<Bandwidth> {
    if !(efficiency.is_finite() && efficiency > 0.0 && efficiency <= 1.0) {
        return None;
    }
    port_link.scaled(efficiency)
}

/// The cost of an SHM step whose two GPUs sit on different sockets: the same-socket step plus one
/// posted flag write across the socket link (the flags are polled locally under either locality,
/// see the module text), i.e. `step + inter_socket_latency`.
pub fn cross_socket_step_cost(same_socket_step: Duration, inter_socket_latency: Duration) -> Duration {
    same_socket_step + inter_socket_latency
}

impl HostFacts {
    /// Host DRAM bandwidth per socket from the facts.
    pub fn memory_bw(&self) -> Option<Bandwidth> {
        dram_bw(self.memory_channels, self.dimm_mts)
    }

    /// DRAM bandwidth of one of the socket's NUMA nodes (the whole socket's with one node).
    pub fn node_memory_bw(&self) -> Option<Bandwidth> {
        node_dram_bw(self.memory_channels, self.dimm_mts, self.numa_nodes_per_socket)
    }

    /// The NUMA node (within its socket, 0-based) holding GPU `gpu`'s SHM buffers, where the socket
    /// is split; `None` with one node per socket.
    pub fn node_within_socket(&self, gpu: usize) -> Option<u32> {
        if self.numa_nodes_per_socket <= 1 {
            return None;
        }
        self.gpu_numa_nodes
            .get(gpu)
            .map(|n| n % self.numa_nodes_per_socket)
    }

    /// Socket link capacity per direction from the facts.
    pub fn socket_bw(&self) -> Option<Bandwidth> {
        socket_link_total(self.socket_links, self.socket_link_bw)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dram_from_channels_and_rate() {
        // 6 channels × 2666 MT/s × 8 B = 127.97 GB/s peak (Xeon Scalable 2nd gen, Intel ARK: 6
        // channels, DDR4-2933 max; 2666 on the Silver/Gold 52xx parts) × 0.7 = 89.58 GB/s.
        let bw = dram_bw(6, 2666).unwrap();
        assert!((bw.as_gbps() - 89.5776).abs() < 1e-3, "{}", bw.as_gbps());
        // 12 × DDR5-6000 × 8 B = 576 GB/s (EPYC 9005, AMD datasheet) × 0.7 = 403.2: the template's
        // 400 GB/s within 1 %.
        let turin = dram_bw(12, 6000).unwrap();
        assert!((turin.as_gbps() - 403.2).abs() < 1e-6);
        assert_eq!(dram_bw(0, 3200), None);
    }

    /// shm49: a NUMA node's DRAM under NPS. EPYC 9B14 (12 × DDR5-4800) in NPS4: 12 / 4 = 3 channels
    /// × 4800 MT/s × 8 B = 115.2 GB/s × 0.7 = 80.64 GB/s; NPS2: 6 channels, 161.28; NPS1: 322.56.
    /// EPYC 7542 (8 × DDR4-3200) in NPS4: 2 × 3200 × 8 × 0.7 = 35.84 GB/s. 12 channels do not split
    /// over 5 nodes.
    #[test]
    fn numa_node_dram_is_its_share_of_the_channels() {
        let gb = |c, m, n| node_dram_bw(c, m, n).map(|b| b.as_gbps());
        assert!((gb(12, 4800, 4).unwrap() - 80.64).abs() < 1e-6);
        assert!((gb(12, 4800, 2).unwrap() - 161.28).abs() < 1e-6);
        assert!((gb(12, 4800, 1).unwrap() - 322.56).abs() < 1e-6);
        assert!((gb(8, 3200, 4).unwrap() - 35.84).abs() < 1e-6);
        assert_eq!(node_dram_bw(12, 4800, 5), None);
        assert_eq!(node_dram_bw(12, 4800, 0), None);
        let h = HostFacts {
            cpu_model: "AMD EPYC 9B14".into(),
            sockets: 1,
            memory_channels: 12,
            dimm_mts: 4800,
            socket_links: 0,
            socket_link_bw: None,
            shm_buffer: ShmBuffer::Receiver,
            numa_nodes_per_socket: 4,
            gpu_numa_nodes: vec![3, 3, 2, 0],
        };
        assert_eq!(h.node_within_socket(1), Some(3));
        assert_eq!(h.node_within_socket(3), Some(0));
        assert_eq!(h.node_within_socket(4), None);
        let one = HostFacts {
            numa_nodes_per_socket: 1,
            gpu_numa_nodes: vec![],
            ..h
        };
        assert_eq!(one.node_within_socket(0), None);
    }

    #[test]
    fn read_rate_is_a_fraction_of_the_port() {
        // ASUS ESC8000A-E13P: busbw 30.3 GB/s over SHM with one receiver per Gen5 x16 partition
        // uplink of 53.6 GB/s → 30.3 / 53.6 = 0.5653; back: 53.6 × 0.5653 = 30.3.
        let port = Bandwidth::from_gbps(53.6).unwrap();
        let r = shm_read_rate(port, 30.3 / 53.6).unwrap();
        assert!((r.as_gbps() - 30.3).abs() < 1e-6, "{}", r.as_gbps());
        assert_eq!(shm_read_rate(port, 0.0), None);
        assert_eq!(shm_read_rate(port, 1.5), None);
        assert_eq!(shm_read_rate(port, f64::NAN), None);
    }

    #[test]
    fn socket_link_and_cross_step() {
        // 2 UPI links × 20.8 GB/s (10.4 GT/s × 2 B per direction, Intel Xeon Scalable datasheet) = 41.6.
        let l = socket_link_total(2, Bandwidth::from_gbps(20.8)).unwrap();
        assert!((l.as_gbps() - 41.6).abs() < 1e-6);
        assert_eq!(socket_link_total(0, Bandwidth::from_gbps(20.8)), None);
        assert_eq!(socket_link_total(2, None), None);
        // 0.2 µs step + 0.2 µs crossing = 0.4 µs.
        let c = cross_socket_step_cost(Duration::from_us_f64(0.2), Duration::from_us_f64(0.2));
        assert_eq!(c, Duration::from_us_f64(0.4));
    }
}
