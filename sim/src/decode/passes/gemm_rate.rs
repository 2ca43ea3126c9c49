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
//! Block-scaled fp8 (128 × 128, DeepSeek-style `weight_block_size`) is decided by engine, kernel and
//! SM, as measured:
//! - SGLang on SM 9.0, dense linears (attention projections, dense MLPs, shared experts):
//!   `dispatch_w8a8_block_fp8_linear` picks DeepGEMM (`deepgemm_w8a8_block_fp8_linear_with_fallback`,
//!   `ENABLE_JIT_DEEPGEMM` on by default on Hopper; SGLang 0.5.3–0.5.7 `layers/quantization/fp8_utils.py`,
//!   `llm::act_quant`), whose README times its normal GEMMs at up to 1,550 TFLOPS on H800
//!   (deepseek-ai/DeepGEMM) → the FP8 rate. Releases before 0.5.3 were not read; tpsim assumes the same.
//! - Everything else block-scaled — vLLM's `W8A8BlockFp8LinearOp` (CUTLASS blockwise or triton
//!   `w8a8_block_fp8_matmul`), SGLang's triton fallback off SM 9.0, and the block-FP8 fused-MoE triton
//!   kernels of both engines — stays at the **bf16** rate: vLLM's own H100 benchmark of its block-FP8
//!   dense GEMM at DeepSeek-V3 shapes, M 4,096–16,384 (vllm PR 23280, book/src/validation.md,
//!   newdeploys3) gives 245–406 TFLOPS for the triton kernel and 208–490 for CUTLASS against torch bf16's
//!   650–715: no FP8 speed-up at all. The fused-MoE triton kernel is not measured; it is the same
//!   triton block-scaled `tl.dot` loop. Under `engine.moe_backend = "deep_gemm"` with SGLang on SM 9.0
//!   the experts take the FP8 rate too.
//!
//! Per-tensor / per-channel fp8 (`cutlass_scaled_mm`, `torch._scaled_mm`; measured on an H200 at 1.8×
//! the bf16 rate, measurements/h200-prefill.tsv) and NVFP4 (W4A4) take their rates wherever the GPU has
//! them. The other exception: a weight-only MoE kernel backend — `marlin` (SGLang
//! `--moe-runner-backend marlin`, vLLM's `NvFp4MoeBackend.MARLIN` and fp8 Marlin MoE) and
//! `experimental_sgl_marlin` — dequantizes the experts to bf16 and multiplies at the bf16 rate, so the
//! routed experts' FLOPs leave the low-precision part (its measured `flops_efficiency` ceiling, a
//! fraction of the bf16 peak, still applies in `passes::ffn_time`).

use tpsim_model::llm::{LayerWork, LowFlops};

use super::Builder;
use crate::scenario::EngineKind;

/// MoE kernel backends (`scenario::moe_backend::MOE_BACKENDS`) that run quantized experts
/// weight-only (W4A16 / W8A16 Marlin kernels).
const WEIGHT_ONLY_MOE_BACKENDS: &[&str] = &["marlin", "experimental_sgl_marlin"];

/// Whether MoE kernel backend `name` runs the experts weight-only (at the bf16 rate).
pub(super) fn weight_only_moe(name: Option<&str>) -> bool {
    name.is_some_and(|n| WEIGHT_ONLY_MOE_BACKENDS.contains(&n))
}

/// Whether `engine` on compute capability `cc` runs block-scaled fp8 dense linears through DeepGEMM
/// (module doc): SGLang on SM 9.0.
pub(super) fn deepgemm_block_fp8(engine: EngineKind, cc: &str) -> bool {
    engine == EngineKind::Sglang && tpsim_model::hw::sm_version(cc) == 90
}

/// `low` with its block-scaled fp8 FLOPs moved to the FP8 rate when `fast`, else left at bf16.
fn resolve_block(low: LowFlops, fast: bool) -> LowFlops {
    if fast {
        LowFlops {
            fp8: low.fp8 + low.fp8_block,
            fp8_block: 0.0,
            fp4: low.fp4,
        }
    } else {
        low
    }
}

impl Builder<'_> {
    /// Whether this deployment's dense block-FP8 linears run through DeepGEMM.
    fn deepgemm_dense(&self) -> bool {
        deepgemm_block_fp8(self.s.engine.kind, &self.s.hardware.gpu.compute_capability)
    }

    /// The low-precision FLOPs of dense linears (`low`: an attention half, a dense MLP, shared
    /// experts) that run at their format's rate.
    pub(super) fn dense_low_flops(&self, low: LowFlops) -> LowFlops {
        resolve_block(low, self.deepgemm_dense())
    }

    /// The routed experts' low-precision FLOPs of layer `l` that run at their format's rate: none
    /// under a weight-only MoE backend; block-scaled fp8 only under SGLang's `deep_gemm` backend on
    /// SM 9.0.
    pub(super) fn expert_low_flops(&self, l: &LayerWork) -> LowFlops {
        let backend = self.s.engine.moe_backend.as_deref();
        if weight_only_moe(backend) {
            return LowFlops::NONE;
        }
        resolve_block(
            l.expert_low_flops,
            backend == Some("deep_gemm") && self.deepgemm_dense(),
        )
    }

    /// The FFN half's low-precision FLOPs: the dense MLP's (or the router's and shared experts')
    /// plus the routed experts' ([`Builder::expert_low_flops`]).
    pub(super) fn ffn_low_flops(&self, l: &LayerWork) -> LowFlops {
        self.dense_low_flops(l.ffn_low_flops)
            .plus(self.expert_low_flops(l))
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
        for n in WEIGHT_ONLY_MOE_BACKENDS.iter().chain(&["deep_gemm"]) {
            assert!(crate::scenario::moe_backend::MOE_BACKENDS.contains(n), "{n}");
        }
    }

    #[test]
    fn block_fp8_takes_the_fp8_rate_only_through_deepgemm() {
        assert!(deepgemm_block_fp8(EngineKind::Sglang, "9.0"));
        assert!(!deepgemm_block_fp8(EngineKind::Vllm, "9.0"));
        assert!(!deepgemm_block_fp8(EngineKind::Sglang, "12.0"));
        assert!(!deepgemm_block_fp8(EngineKind::Sglang, "8.9"));
        let low = LowFlops {
            fp8: 1.0,
            fp8_block: 2.0,
            fp4: 4.0,
        };
        let fast = resolve_block(low, true);
        assert_eq!((fast.fp8, fast.fp8_block, fast.fp4), (3.0, 0.0, 4.0));
        assert_eq!(resolve_block(low, false), low);
    }
}
