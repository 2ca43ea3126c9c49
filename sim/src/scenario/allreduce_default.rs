//! Issues #17 point 3 and #19 point 3: the TP allreduce a scenario gets when `engine.allreduce` is
//! not set — the engine's own default, as its communicator decides at start-up.
//!
//! Both engines build their custom allreduce unless `--disable-custom-all-reduce` is given, and the
//! communicator then disables itself, with a logged warning, in this order (vLLM
//! `vllm/distributed/device_communicators/custom_all_reduce.py` `CustomAllreduce.__init__` and
//! `finalize_p2p`, main at commit 00d618aa, the same checks as the 0.11.0 file the rest of tpsim
//! cites; SGLang `python/sglang/srt/distributed/device_communicators/custom_all_reduce.py`, adapted
//! from vLLM v0.6.4.post1, main at commit 004e6561):
//!
//! 1. the group spans nodes: "Custom allreduce is disabled because this process group spans across
//!    nodes.";
//! 2. world size 1: no allreduce at all;
//! 3. world size not in `_SUPPORTED_WORLD_SIZES = [2, 4, 6, 8]`: "… due to an unsupported world size";
//! 4. world size > 2 and the GPUs not fully NVLink-connected (vLLM `is_fully_connected`, SGLang
//!    `is_full_nvlink`: NVML's NVLink P2P status for every pair; on ROCm the xGMI link type): "… it's
//!    not supported on more than two PCIe-only GPUs.";
//! 5. CUDA only: the P2P test fails (`gpu_p2p_access_check` between every pair; SGLang skips it on
//!    ROCm, where xGMI peers always have access): "… your platform lacks GPU P2P capability or P2P
//!    test failed.".
//!
//! Otherwise the custom allreduce is on, and `should_custom_ar` takes every message that is a
//! multiple of 16 bytes below `max_size` (world size 2 or fully connected); larger ones go to
//! vLLM's symmetric-memory allreduce where it applies (costed as NCCL) or NCCL
//! (`cuda_communicator.py` `all_reduce`: quick reduce, then custom, then symmetric memory, then
//! pynccl). tpsim's [`crate::comm::Comm::custom_dispatch`] applies those size rules.
//!
//! tpsim reads "fully NVLink-connected" as `gpu.nvlink = true` (an NVSwitch box: every preset with
//! NVLink has one) or an `[xgmi]` mesh, and the P2P test as `gpu.p2p` (GeForce cards on the stock
//! driver: false; data-center and RTX PRO cards: true). A pair of PCIe GPUs whose P2P test would fail
//! for platform reasons (ACS, IOMMU) while the template says `p2p = true` is not detected: set
//! `engine.allreduce = "nccl"` there.

use super::{EngineKind, Hardware};
use crate::scenario::AllreduceBackend;

/// The engine's default for a TP group of `tp` ranks on one box of `hw`, and the reason in words
/// (the report prints it as "custom (engine default: …)").
pub fn engine_default(kind: EngineKind, tp: u32, hw: &Hardware) -> (AllreduceBackend, String) {
    let engine = match kind {
        EngineKind::Sglang => "SGLang",
        EngineKind::Vllm => "vLLM",
    };
    let fully_connected = hw.gpu.nvlink || hw.accel.xgmi.is_some();
    let amd = hw.accel.vendor == super::accel::GpuVendor::Amd;
    let off = |why: &str| {
        (
            AllreduceBackend::Nccl,
            format!("{engine} disables its custom allreduce: {why}"),
        )
    };
    if tp as usize > hw.topology.gpu_count() {
        return off("the group spans across nodes");
    }
    if tp <= 1 {
        return off("one rank, no allreduce");
    }
    if !matches!(tp, 2 | 4 | 6 | 8) {
        return off(&format!("unsupported world size {tp} (2, 4, 6, 8)"));
    }
    if tp > 2 && !fully_connected {
        return off(&format!("{tp} > 2 PCIe-only GPUs"));
    }
    // SGLang skips the P2P test on ROCm; vLLM's ROCm path completes without it as well.
    if !amd && !hw.gpu.p2p {
        return off("no GPU P2P (the P2P test fails)");
    }
    let how = if fully_connected {
        format!("{tp} fully connected GPUs")
    } else {
        "2 GPUs with P2P".into()
    };
    (
        AllreduceBackend::Custom,
        format!("{engine} custom allreduce, {how}"),
    )
}
