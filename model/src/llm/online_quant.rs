//! Issue #17 (onlinequant): `--quantization fp8` on an unquantized (bf16/fp16) checkpoint. Both
//! engines quantize the decoder's linear layers and routed experts to fp8 e4m3 while loading; what
//! each keeps, by engine and GPU:
//!
//! - **vLLM 0.11.0** (`quantization/fp8.py`, `Fp8Config(is_checkpoint_fp8_serialized=False)`):
//!   `Fp8LinearMethod.create_weights` makes the `[out, in]` weight in the model dtype and no scale;
//!   `process_weights_after_loading` calls `ops.scaled_fp8_quant(layer.weight, scale=None)` — one
//!   fp32 scale for the whole (merged) tensor — and replaces the weight by the fp8 result.
//!   `Fp8MoEMethod` quantizes each expert of `w13_weight` / `w2_weight` with its own fp32 scale.
//!   The same scheme per tensor as a serialized per-tensor fp8 checkpoint.
//! - **SGLang 0.5.9** (`layers/quantization/fp8.py`, `Fp8LinearMethod.process_weights_after_loading`,
//!   the not-serialized branch): when `cutlass_fp8_supported()` or Marlin is on (every CUDA GPU it
//!   serves fp8 on) it quantizes per output channel — `per_token_group_quant_fp8(weight,
//!   weight.shape[-1])`, one fp32 scale per row — and per tensor (`input_to_float8`) otherwise
//!   (ROCm). Its `Fp8MoEMethod` quantizes each expert per tensor, as vLLM.
//! - **GPUs without fp8 tensor cores** (CUDA compute capability below 8.9): both engines run fp8
//!   weight-only through Marlin (vLLM `Fp8LinearMethod.use_marlin = not
//!   has_device_capability(89)`; SGLang `can_auto_enable_marlin_fp8`), and
//!   `prepare_fp8_layer_for_marlin` expands the scale to one per output channel in the model dtype
//!   ("Marlin doesn't support per-tensor scales, so we expand it to channelwise"); the same for the
//!   experts (`prepare_moe_fp8_layer_for_marlin`). Not on ROCm (Marlin is disabled there).
//!
//! What stays in the model dtype is what stays there in an fp8 checkpoint (`quant`): embeddings,
//! the LM head (`ParallelLMHead` is built without the fp8 method), norms and the MoE router (built
//! with `quant_config=None` in the MoE models).

use super::load_order::LoadGpu;
use super::quant::{Quantization, ScaleDtype, WeightDtype, WeightFormat};

/// The engine that quantizes (their schemes differ; see the module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnlineEngine {
    /// vLLM 0.11.0.
    Vllm,
    /// SGLang 0.5.9.
    Sglang,
}

/// The lowest CUDA compute capability with fp8 tensor cores (Ada, SM 8.9): below it the engines
/// use Marlin (vLLM `has_device_capability(89)`).
pub const FP8_TENSOR_CORE_SM: u32 = 89;

/// The lowest compute capability either engine serves fp8 on (`Fp8Config.get_min_capability`:
/// 80 in vLLM 0.11.0 and SGLang 0.5.9).
pub const FP8_MIN_CAPABILITY: u32 = 80;

/// Whether `gpu` runs fp8 weight-only through Marlin (CUDA below SM 8.9).
pub fn uses_marlin(gpu: &LoadGpu) -> bool {
    gpu.cuda && gpu.sm_version < FP8_TENSOR_CORE_SM
}

/// The formats `engine` holds after quantizing an unquantized checkpoint in `model_dtype`
/// (bf16/fp16) on `gpu`: `(linear layers, routed experts)`.
pub fn online_fp8_formats(
    engine: OnlineEngine,
    gpu: &LoadGpu,
    model_dtype: WeightDtype,
) -> (WeightFormat, WeightFormat) {
    let per_tensor = WeightFormat::plain(WeightDtype::Fp8);
    let per_channel = |scale: ScaleDtype| WeightFormat {
        per_channel: true,
        scale_dtype: Some(scale),
        ..per_tensor
    };
    if uses_marlin(gpu) {
        let scale = if model_dtype == WeightDtype::Fp16 {
            ScaleDtype::Fp16
        } else {
            ScaleDtype::Bf16
        };
        return (per_channel(scale), per_channel(scale));
    }
    match engine {
        OnlineEngine::Vllm => (per_tensor, per_tensor),
        OnlineEngine::Sglang if gpu.cuda => (per_channel(ScaleDtype::Fp32), per_tensor),
        OnlineEngine::Sglang => (per_tensor, per_tensor),
    }
}

impl Quantization {
    /// `q` (an unquantized checkpoint's description) with its float linear layers, experts and
    /// MTP layer quantized to fp8 as `engine` does it on `gpu` ([`online_fp8_formats`]), marked
    /// [`Quantization::online`]. Formats already quantized are kept; the KV cache dtype is
    /// unchanged (`--quantization` does not touch it).
    pub fn online_fp8(&self, engine: OnlineEngine, gpu: &LoadGpu, model_dtype: WeightDtype) -> Quantization {
        let (linear, experts) = online_fp8_formats(engine, gpu, model_dtype);
        let float = |f: &WeightFormat| f.dtype.float_bytes().is_some();
        let mut q = *self;
        if float(&q.weights) {
            q.weights = linear;
        }
        // Experts are quantized by the MoE method (per expert), not the linear one.
        if float(&self.expert_format()) {
            q.experts = Some(experts);
        }
        if q.mtp.as_ref().is_some_and(float) {
            q.mtp = Some(linear);
        }
        q.online = true;
        q
    }
}
