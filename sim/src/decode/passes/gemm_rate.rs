//! fp8rate (issue #17 point 4): which of a layer's GEMM FLOPs run at a low-precision tensor-core
//! rate (`gpu.fp8_tflops`, `gpu.fp4_tflops`; `tpsim_model::compute::ComputeRates::flop_time_s`).
//!
//! The model counts the FLOPs of GEMMs on fp8 and NVFP4 weights (`tpsim_model::llm::LowFlops`). The
//! GPU decides whether the format has tensor cores: the rates are set only where the template gives
//! them, which the scenario check allows from SM 8.9 (FP8) and SM 10.0 (FP4); below, both engines run
//! those checkpoints weight-only through Marlin at the bf16 rate (vLLM `Fp8LinearMethod.use_marlin =
//! not has_device_capability(89)`, SGLang `can_auto_enable_marlin_fp8`; `llm::online_quant`). Where
//! the rate exists, SGLang and vLLM run W8A8 / W4A4 kernels by default: per-tensor or per-channel
//! fp8 through CUTLASS `cutlass_scaled_mm` / `torch._scaled_mm`, block fp8 through DeepGEMM, CUTLASS
//! blockwise or triton `w8a8_block_fp8_matmul` (each quantizing the activations first:
//! `llm::act_quant`), the fused MoE kernels with `use_fp8_w8a8`, NVFP4 through CUTLASS / FlashInfer
//! FP4 GEMMs (vLLM 0.17–0.19 `select_nvfp4_moe_backend`, `scenario::moe_backend`).
//!
//! The exception handled here: a MoE kernel backend that is weight-only — `marlin` (SGLang
//! `--moe-runner-backend marlin`, vLLM's `NvFp4MoeBackend.MARLIN` and fp8 Marlin MoE) and
//! `experimental_sgl_marlin` — dequantizes the experts to bf16 and multiplies at the bf16 rate, so
//! the routed experts' FLOPs leave the low-precision part. (Its measured `flops_efficiency` ceiling,
//! a fraction of the bf16 peak, still applies in `passes::ffn_time`.)

use tpsim_model::llm::{LayerWork, LowFlops};

use super::Builder;

/// MoE kernel backends (`scenario::moe_backend::MOE_BACKENDS`) that run quantized experts
/// weight-only (W4A16 / W8A16 Marlin kernels).
const WEIGHT_ONLY_MOE_BACKENDS: &[&str] = &["marlin", "experimental_sgl_marlin"];

/// Whether MoE kernel backend `name` runs the experts weight-only (at the bf16 rate).
pub(super) fn weight_only_moe(name: Option<&str>) -> bool {
    name.is_some_and(|n| WEIGHT_ONLY_MOE_BACKENDS.contains(&n))
}

impl Builder<'_> {
    /// The routed experts' low-precision FLOPs of layer `l` that run at their format's rate: none
    /// under a weight-only MoE backend.
    pub(super) fn expert_low_flops(&self, l: &LayerWork) -> LowFlops {
        if weight_only_moe(self.s.engine.moe_backend.as_deref()) {
            LowFlops::NONE
        } else {
            l.expert_low_flops
        }
    }

    /// The FFN half's low-precision FLOPs: the dense MLP's (or the router's and shared experts')
    /// plus the routed experts' ([`Builder::expert_low_flops`]).
    pub(super) fn ffn_low_flops(&self, l: &LayerWork) -> LowFlops {
        l.ffn_low_flops.plus(self.expert_low_flops(l))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marlin_backends_are_weight_only() {
        assert!(weight_only_moe(Some("marlin")));
        assert!(weight_only_moe(Some("experimental_sgl_marlin")));
        assert!(!weight_only_moe(Some("flashinfer_cutlass")));
        assert!(!weight_only_moe(Some("b12x")));
        assert!(!weight_only_moe(None));
        // Every name is one `engine.moe_backend` accepts.
        for n in WEIGHT_ONLY_MOE_BACKENDS {
            assert!(crate::scenario::moe_backend::MOE_BACKENDS.contains(n), "{n}");
        }
    }
}
