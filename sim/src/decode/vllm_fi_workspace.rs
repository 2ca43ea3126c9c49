//! vmemtp57 (issue #17): whether a vLLM scenario builds FlashInfer's allreduce + RMSNorm fusion
//! workspace inside its start-up profile, and its bytes per rank (`tpsim_model::vllm_fi_workspace`,
//! which cites the vLLM 0.19.0 and FlashInfer 0.6.6 sources). The bytes count as non-torch growth:
//! the workspace is `cuMemCreate` memory, outside torch's caching allocator, allocated after vLLM's
//! `init_snapshot` (by the compile pass of the profile run's first forward).
//!
//! vLLM builds it when (vLLM 0.19.0 `config/vllm.py` `enable_allreduce_rms_fusion`, the default O2
//! level; the rule is in the 0.17.0 – 0.19.0 wheels, absent before): the V1 engine of a release
//! ≥ 0.17.0, tp > 1 with an entry in the size table (tp 2, 4, 8 on SM 9.0, 10.0, 10.3), an NVIDIA GPU
//! of SM 9.0 or the 10.x family, no pipeline or data parallelism, torch.compile on (not
//! `--enforce-eager`: tpsim reads `cudagraph_mode` NONE as eager), and a GPU that supports multicast.
//! Multicast needs NVSwitch: tpsim reads it as `gpu.nvlink` on a GPU that is not a PCIe / NVL card
//! (the H100 PCIe and H100 NVL presets' NVLink is a bridge, where FlashInfer raises "Device does not
//! support multicasting" and vLLM disables the fusion with a warning).

use crate::scenario::accel::GpuVendor;
use crate::scenario::cudagraph_mode::CudagraphMode;
use crate::scenario::flashinfer_sampler::triple;
use crate::scenario::{EngineKind, Scenario};
use tpsim_model::llm::KvCacheDtype;
use tpsim_model::vllm_fi_workspace::fusion_workspace_bytes;

/// The first vLLM release that enables the fusion by default (0.17.0 `config/vllm.py`).
pub const FIRST_RELEASE: [u64; 3] = [0, 17, 0];

/// The compute capability as major × 10 + minor ("9.0" → 90, "10.3" → 103).
fn capability(cc: &str) -> u32 {
    let mut it = cc.split('.').map(|p| p.trim().parse::<u32>().unwrap_or(0));
    let major = it.next().unwrap_or(0);
    let minor = it.next().unwrap_or(0);
    major * 10 + minor
}

/// Whether the box's GPUs share an NVSwitch (multicast support), as tpsim's presets say it.
fn multicast(s: &Scenario) -> bool {
    let g = &s.hardware.gpu;
    let name = g.name.to_lowercase();
    g.nvlink && !name.contains("pcie") && !name.contains(" nvl")
}

/// The workspace bytes per rank that vLLM allocates in the start-up profile, or 0 where it builds
/// none. `max_num_batched_tokens` is the profile's token budget (vLLM's `scheduler_config`).
pub(super) fn bytes(s: &Scenario, max_num_batched_tokens: u64) -> u64 {
    let e = &s.engine;
    let Some(v) = triple(&e.release().version) else {
        return 0;
    };
    let cap = capability(&s.hardware.gpu.compute_capability);
    let builds = e.kind == EngineKind::Vllm
        && e.v0.is_none()
        && v >= FIRST_RELEASE
        && e.tp > 1
        && e.pp == 1
        && e.vllm_dp.is_none()
        && e.cudagraph_mode != Some(CudagraphMode::None)
        && s.hardware.accel.vendor == GpuVendor::Nvidia
        && (cap == 90 || cap / 10 == 10)
        && multicast(s);
    if !builds {
        return 0;
    }
    let dtype = KvCacheDtype::Auto.bytes(s.model.dtype);
    fusion_workspace_bytes(cap, e.tp, s.model.hidden, dtype, max_num_batched_tokens).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::capability;

    #[test]
    fn capabilities() {
        assert_eq!(capability("9.0"), 90);
        assert_eq!(capability("10.3"), 103);
        assert_eq!(capability("8.9"), 89);
        assert_eq!(capability("12.0"), 120);
    }
}
