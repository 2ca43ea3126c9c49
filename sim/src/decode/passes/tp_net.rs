//! Issue #17 point 4: the TP allreduce when the TP group spans the boxes of a `[hardware.cluster]`
//! (tp 16 on two 8-GPU boxes). Ranks are laid out box by box (global GPU g = GPU g % box of box
//! g / box), so NCCL's ring enters and leaves every box once per channel; the inter-box hop goes
//! over the NICs ([`crate::internode::ring_allreduce`]). Only NCCL's ring is modelled across boxes
//! (its tree, which NCCL's tuner may pick on two nodes at mid sizes, is not).
//!
//! The box's own leg is taken from the simulated single-box communicator over the box's GPUs:
//! - its streaming busbw: a 256 MiB NCCL allreduce (bandwidth-bound on every preset box),
//!   busbw = 2 (l − 1) / l × bytes / time (nccl-tests `doc/PERFORMANCE.md` definition);
//! - its per-step latency: an 8-byte NCCL allreduce divided by its 2 (l − 1) ring steps.

use crate::comm::{Comm, Request};
use crate::scenario::{Hardware, Scenario};
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
    Some(TpNet {
        hw: s.hardware.clone(),
        per_node: box_gpus,
        nodes: tp.div_ceil(box_gpus),
        intra_bytes_per_s,
        intra_step: Duration::from_us_f64(small / steps),
    })
}

impl TpNet {
    /// NCCL's ring allreduce of `bytes` per rank across the boxes.
    pub fn allreduce(&self, bytes: u64) -> Duration {
        crate::internode::ring_allreduce(
            &self.hw,
            self.per_node,
            self.nodes,
            bytes,
            self.intra_bytes_per_s,
            self.intra_step,
        )
        .unwrap_or(Duration::ZERO)
    }
}
