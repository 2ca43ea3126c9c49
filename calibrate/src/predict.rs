//! tpsim's predictions of the single-GPU and GPU-pair records, shared by `fit` and `check`:
//!
//! - a GEMM through the kernel cost the decode passes use (`Hardware::compute_rates`,
//!   `tpsim_model::compute`), class `default` of the efficiency curves;
//! - a copy within one GPU (`d2d`, counted read + write as `bench` and CUDA's bandwidthTest count it)
//!   as a kernel moving 2 × size bytes through the same kernel cost (class `default`);
//! - a peer copy as one write flow between the pair on the box's flow network (`tpsim::fabric`,
//!   `tpsim::net`): the bottleneck link's bandwidth plus the path's one-way latency;
//! - a flag ping-pong's one-way latency as the fabric's flag latency (what custom allreduce barriers
//!   cost), or the staged latency when peer access is off (pcie-collectives.md, "P2P disabled
//!   (staged through the host) ≈ 14 µs").

use tpsim::fabric::Fabric;
use tpsim::net::{FlowKind, FlowSim};
use tpsim::scenario::Hardware;
use tpsim_model::units::Duration;

/// Bytes moved and FLOPs done by one GEMM C[m×n] = A[m×k] · B[k×n] in a 2-byte dtype: each operand
/// read once and the result written once, 2·m·n·k FLOPs.
pub fn gemm_bytes_flops(m: u64, n: u64, k: u64) -> (f64, f64) {
    let bytes = 2.0 * (m as f64 * k as f64 + k as f64 * n as f64 + m as f64 * n as f64);
    (bytes, 2.0 * m as f64 * n as f64 * k as f64)
}

/// Predicted time of one bf16/fp16 GEMM on `hw`, µs (never below 1 ps).
pub fn gemm_us(hw: &Hardware, m: u64, n: u64, k: u64) -> f64 {
    let (bytes, flops) = gemm_bytes_flops(m, n, k);
    hw.compute_rates().op_time(bytes, flops, 1).as_us_f64().max(1e-6)
}

/// Predicted time of one memory-bound kernel reading `bytes` (`bench`'s streaming read), µs: the
/// kernel cost at zero FLOPs, so an empty kernel (0 bytes) costs `kernel_overhead` alone.
pub fn stream_us(hw: &Hardware, bytes: u64) -> f64 {
    hw.compute_rates()
        .op_time(bytes as f64, 0.0, 1)
        .as_us_f64()
        .max(1e-6)
}

/// Predicted bandwidth of a device-to-device copy of `bytes` within one GPU, GB/s counted as
/// 2 × bytes ÷ time: a kernel that reads and writes `bytes` each, at the kernel cost.
pub fn d2d_gbps(hw: &Hardware, bytes: u64) -> f64 {
    let moved = 2.0 * bytes as f64;
    let s = hw.compute_rates().op_time(moved, 0.0, 1).as_us_f64().max(1e-6) / 1e6;
    moved / s / 1e9
}

/// Why a pair record cannot be predicted.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PairError {
    #[error("GPU {gpu}: the hardware has {have} GPUs")]
    NoSuchGpu { gpu: u32, have: usize },
    #[error("source and destination are both GPU {0}")]
    SameGpu(u32),
    #[error("size 0 B")]
    Empty,
    #[error("flow simulation: {0}")]
    Flow(String),
}

fn pair(hw: &Hardware, src: u32, dst: u32) -> Result<(usize, usize), PairError> {
    let have = hw.topology.gpu_count();
    for g in [src, dst] {
        if g as usize >= have {
            return Err(PairError::NoSuchGpu { gpu: g, have });
        }
    }
    if src == dst {
        return Err(PairError::SameGpu(src));
    }
    Ok((src as usize, dst as usize))
}

/// Predicted bandwidth of one peer copy of `bytes` from GPU `src` to GPU `dst` with peer access on,
/// GB/s (10⁹ B/s): bytes ÷ the flow's completion time (drain at the bottleneck + path latency).
pub fn p2p_copy_gbps(hw: &Hardware, src: u32, dst: u32, bytes: u64) -> Result<f64, PairError> {
    let (a, b) = pair(hw, src, dst)?;
    if bytes == 0 {
        return Err(PairError::Empty);
    }
    let fabric = Fabric::new(hw);
    let mut sim = FlowSim::new(&fabric.net);
    sim.add_flow(fabric.flow(a, b, bytes, Duration::ZERO, FlowKind::Write, 0))
        .map_err(|e| PairError::Flow(e.to_string()))?;
    let done = sim
        .next_completion()
        .ok_or_else(|| PairError::Flow("the flow never completed".into()))?;
    let s = done.time.as_us_f64() / 1e6;
    Ok(bytes as f64 / s / 1e9)
}

/// Predicted one-way latency of a flag written by GPU `src` and polled by GPU `dst`, µs: the path
/// latency (or the staged latency where kernel peer loads are staged), and the staged latency when
/// peer access is off or the GPUs cannot do P2P at all.
pub fn p2p_latency_us(
    hw: &Hardware,
    src: u32,
    dst: u32,
    peer_access: Option<bool>,
) -> Result<f64, PairError> {
    let (a, b) = pair(hw, src, dst)?;
    if peer_access == Some(false) || !hw.gpu.p2p {
        return Ok(hw.params.staged_latency.as_us_f64());
    }
    Ok(Fabric::new(hw).flag_latency(a, b).as_us_f64())
}
