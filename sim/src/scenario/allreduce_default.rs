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
//! driver: false; data-center and RTX PRO cards: true) on every pair of the group, except across the
//! sockets of an Intel host (below). A pair of PCIe GPUs whose P2P test would fail for other platform
//! reasons (ACS, IOMMU) while the template says `p2p = true` is not detected: set
//! `engine.allreduce = "nccl"` there.
//!
//! The P2P test is the driver's report: vLLM's `VLLM_SKIP_P2P_CHECK` defaults to "1" (`envs.py`,
//! main at commit 00d618aa and since 0.5), so `_can_p2p` returns `torch.cuda.can_device_access_peer`,
//! i.e. `cudaDeviceCanAccessPeer`. Across the two sockets of an Intel host (path SYS, the
//! QPI/UPI link) that report is "no": PCIe peer-to-peer does not cross the sockets of an Intel system
//! (ROCm/rocm_bandwidth_test issue 18, the AMD engineer's diagnosis of a two-socket Intel host whose
//! GPUs found no peer path: "On Intel systems it is not possible to communicate across sockets";
//! 1Cat-vLLM PR 88: 2× V100 PCIe "cross-socket with no GPU↔GPU P2P, so vLLM auto-disables custom
//! all-reduce at init"). On AMD hosts the driver reports peer access across sockets (openucx/ucx issue
//! 7462: two A100 PCIe at bus IDs 0x21 and 0x81, "Device=0 CAN Access Peer Device=1"). The box that
//! shows it end to end: cssnoeasy/a100-vllm-benchmark-blog's 2× A100 PCIe, one per socket (SYS),
//! whose NCCL busbw is the same with P2P allowed and disabled (11.4508 vs 11.4480 GB/s: NCCL never took
//! P2P) and whose vLLM TP 2 runs 1.45× TP 1 at c 32 (tests/data/throughput.tsv lines 58-59), which the
//! NCCL fallback gives and a custom kernel staging its peer loads through host memory cannot
//! (book/src/validation.md, "Prefill-heavy serving on A100 PCIe").

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
    if !amd && !fully_connected && !hw.cpu_amd && crosses_sockets(tp, hw) {
        return off("no GPU P2P across the sockets of an Intel host (the P2P test fails)");
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

/// Whether the TP group (GPUs `0..tp`, as the communicator takes them) has GPUs on more than one
/// socket.
fn crosses_sockets(tp: u32, hw: &Hardware) -> bool {
    let t = &hw.topology;
    let n = (tp as usize).min(t.gpu_count());
    (1..n).any(|g| t.socket_of(g) != t.socket_of(0))
}
