//! Issue #17 point 4: the TP allreduce when the TP group spans the boxes of a `[hardware.cluster]`
//! (tp 16 on two 8-GPU boxes). Ranks are laid out box by box (global GPU g = GPU g % box of box
//! g / box). NCCL's multi-node tuner ([`tpsim_model::nccl::tune_net`]) picks ring or tree per message;
//! the ring enters and leaves every box once per channel, the inter-box hop over the NICs
//! ([`crate::internode::ring_allreduce`]); the tree chains each box's ranks and joins the boxes by
//! NCCL's two binary trees ([`crate::internode::tree_allreduce`]).
//!
//! The box's own leg is taken from the simulated single-box communicator over the box's GPUs:
//! - its streaming busbw: a 256 MiB NCCL allreduce (bandwidth-bound on every preset box),
//!   busbw = 2 (l − 1) / l × bytes / time (nccl-tests `doc/PERFORMANCE.md` definition);
//! - its per-step latency: an 8-byte NCCL allreduce divided by its 2 (l − 1) ring steps.

use crate::comm::{Comm, Request};
use crate::scenario::{Hardware, Scenario};
use tpsim_model::hw::PathClass;
use tpsim_model::nccl::{Algo, NetEntry, NetTuneInput, Proto, choose_net, tune_net};
use tpsim_model::units::Duration;

/// The message (bytes per rank) whose time gives the box's streaming busbw.
const STREAM_PROBE: u64 = 256 << 20;
/// The message whose time gives the box's per-step latency (the smallest fp32 element count 2).
const LATENCY_PROBE: u64 = 8;

/// A TP group spanning `nodes` boxes of `per_node` ranks.
#[derive(Debug, Clone)]
pub struct TpNet {
    hw: Hardware,
    pub per_node: usize,
    pub nodes: usize,
    intra_bytes_per_s: f64,
    intra_step: Duration,
    /// NCCL's multi-node table and what it was built from.
    tune: NetTuneInput,
    entries: Vec<NetEntry>,
}

/// The cross-box TP group of `s`, when tp is larger than one box (`None` otherwise).
pub fn tp_net(s: &Scenario, comm: &Comm) -> Option<TpNet> {
    let box_gpus = s.hardware.topology.gpu_count().max(1);
    let tp = s.engine.tp as usize;
    if tp <= box_gpus {
        return None;
    }
    let l = comm.ranks.len().max(1);
    let ring = 2.0 * (l as f64 - 1.0) / l as f64;
    let stream = comm
        .allreduce(STREAM_PROBE, Request::Nccl)
        .time
        .as_us_f64()
        .max(1e-3);
    let intra_bytes_per_s = if l > 1 {
        ring * STREAM_PROBE as f64 / (stream * 1e-6)
    } else {
        f64::INFINITY
    };
    let small = comm.allreduce(LATENCY_PROBE, Request::Nccl).time.as_us_f64();
    let steps = (2 * (l - 1)).max(1) as f64;
    let nodes = tp.div_ceil(box_gpus);
    let tune = net_tune_input(&s.hardware, comm, tp, nodes);
    let entries = tune_net(&tune, &comm.env);
    Some(TpNet {
        hw: s.hardware.clone(),
        per_node: box_gpus,
        nodes,
        intra_bytes_per_s,
        intra_step: Duration::from_us_f64(small / steps),
        tune,
        entries,
    })
}

/// What NCCL's multi-node tuner reads of this TP group: the box's graph (its channels and per-channel
/// `bwIntra`, NVLink-class or not), the GPUs' compute capability, the host CPU vendor; `bwInter` (used
/// beyond two boxes) is the box's NICs shared over the channels, at most `bwIntra` (NCCL's search
/// never gives a channel more across boxes than inside one).
fn net_tune_input(hw: &Hardware, comm: &Comm, tp: usize, nodes: usize) -> NetTuneInput {
    let g = &comm.graph;
    let channels = g.channels.max(1);
    let nic = crate::internode::transfer(hw, 0, hw.topology.gpu_count()).map_or(0.0, |t| t.bytes_per_s / 1e9);
    let nics = hw.accel.cluster.as_ref().map_or(1, |c| c.nics_per_node.max(1));
    NetTuneInput {
        ranks: tp as u32,
        nodes: nodes as u32,
        sm: crate::comm::sm_of(&hw.gpu.compute_capability),
        cpu_amd: hw.cpu_amd,
        nvlink: hw.gpu.nvlink && g.type_intra <= PathClass::Nvl,
        channels,
        comm_channels: g.comm_channels.max(1),
        bw_intra_gbps: g.bw_per_channel_gbps,
        bw_inter_gbps: (nic * f64::from(nics) / f64::from(channels)).min(g.bw_per_channel_gbps),
    }
}

impl TpNet {
    /// The algorithm and protocol NCCL runs an allreduce of `bytes` with across the boxes (Ring/Simple
    /// when the environment enables nothing NCCL could run, as its fallback does).
    pub fn choice(&self, bytes: u64) -> (Algo, Proto) {
        choose_net(&self.entries, &self.tune, bytes).unwrap_or((Algo::Ring, Proto::Simple))
    }

    /// NCCL's allreduce of `bytes` per rank across the boxes, with the algorithm and protocol its tuner
    /// picks ([`TpNet::choice`]) and the time of that algorithm.
    pub fn allreduce(&self, bytes: u64) -> (Duration, Algo, Proto) {
        let (algo, proto) = self.choice(bytes);
        let f = match algo {
            Algo::Ring => crate::internode::ring_allreduce,
            Algo::Tree => crate::internode::tree_allreduce,
        };
        let t = f(
            &self.hw,
            self.per_node,
            self.nodes,
            bytes,
            self.intra_bytes_per_s,
            self.intra_step,
        )
        .unwrap_or(Duration::ZERO);
        (t, algo, proto)
    }
}
