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

/// When the engine quantizes, which sets how much of the unquantized checkpoint a rank holds while
/// loading (`load_order`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnlineLoad {
    /// Every parameter is allocated in the model dtype when the model is built and quantized module
    /// by module once all weights are loaded: vLLM 0.11.0 (`model_loader/base_loader.py`
    /// `load_model`: `load_weights`, then `process_weights_after_loading`); 0.12/0.13's streaming
    /// post-processing (vLLM PR #29196) kept the same peak, "because the linear|moe weights were
    /// created in bf16 and references to them were held for the entire `load_weights` loop" (PR
    /// #31914). SGLang 0.5.9 the same (`DefaultModelLoader.load_weights_and_postprocess`).
    AfterLoading,
    /// vLLM PR #31914 (merged 2026-01-07; from 0.14): `create_weights` puts the linear and MoE
    /// weights on device `meta`; each is materialized in the model dtype when its first chunk is
    /// loaded and quantized as soon as all of it is, after the rest of the model was built.
    JustInTime,
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
    /// [`Quantization::online`] with `load`. Formats already quantized are kept; the KV cache dtype
    /// is unchanged (`--quantization` does not touch it).
    pub fn online_fp8(
        &self,
        engine: OnlineEngine,
        gpu: &LoadGpu,
        model_dtype: WeightDtype,
        load: OnlineLoad,
    ) -> Quantization {
        let (linear, experts) = online_fp8_formats(engine, gpu, model_dtype);
        let float = |f: &WeightFormat| f.dtype.float_bytes().is_some();
        let mut q = *self;
        if float(&q.weights) {
            q.weights = linear;
        }
        // Issue #17 (attnquant17): dense MLPs and shared experts stored apart are linear layers too.
        for f in [&mut q.dense_mlp, &mut q.shared_experts].into_iter().flatten() {
            if float(f) {
                *f = linear;
            }
        }
        // Experts are quantized by the MoE method (per expert), not the linear one.
        if float(&self.expert_format()) {
            q.experts = Some(experts);
        }
        if q.mtp.as_ref().is_some_and(float) {
            q.mtp = Some(linear);
        }
        q.online = Some(load);
        q
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::ModelSpec;

    const LLAMA_8B: &str = include_str!("../../../scenarios/models/llama-3.1-8b/config.json");

    fn gpu(sm_version: u32) -> LoadGpu {
        LoadGpu {
            sm_version,
            sm_count: 132,
            cuda: true,
            int4: crate::llm::vllm_w4a16::Int4Rules::default(),
        }
    }

    fn llama_8b(engine: OnlineEngine, sm: u32) -> ModelSpec {
        let mut m = ModelSpec::from_config_json(LLAMA_8B, Quantization::bf16()).expect("preset parses");
        m.quantization = m
            .quantization
            .online_fp8(engine, &gpu(sm), m.dtype, OnlineLoad::AfterLoading);
        m
    }

    /// Llama-3.1-8B (scenarios/models/llama-3.1-8b/config.json: hidden 4096, 32 layers, 32/8 heads of
    /// 128, MLP 14336, vocabulary 128256, untied) under vLLM's `--quantization fp8` on an H100
    /// (SM 9.0), by hand. Per layer the four merged linears hold (6144 + 4096 + 28672) × 4096 +
    /// 4096 × 14336 = 218,103,808 fp8 bytes and one fp32 scale each (16 B); embedding and LM head
    /// stay bf16 (128256 × 4096 × 2 B each, split over tp), the 65 norms of 4096 bf16 are whole on
    /// every rank (532,480 B). Exact: no tolerance.
    #[test]
    fn vllm_llama_8b_weights_per_rank_by_hand() {
        let m = llama_8b(OnlineEngine::Vllm, 90);
        let linear = 218_103_808u64 * 32;
        let vocab = 128_256u64 * 4096 * 2;
        for (tp, want) in [(1u32, 9_081_201_152u64), (2, 4_540_867_072), (4, 2_270_700_032)] {
            let t = u64::from(tp);
            assert_eq!(
                want,
                linear / t + 16 * 32 + 2 * vocab / t + 532_480,
                "tp {tp} hand sum"
            );
            assert_eq!(m.weight_bytes_per_rank(tp).0, want, "tp {tp}");
        }
        // Against bf16: the linears halve, the rest is unchanged.
        let bf16 = ModelSpec::from_config_json(LLAMA_8B, Quantization::bf16()).expect("parses");
        assert_eq!(
            bf16.weight_bytes_per_rank(1).0 - m.weight_bytes_per_rank(1).0,
            linear - 16 * 32
        );
    }

    /// SGLang keeps one fp32 scale per output row on CUDA: per layer at tp 1, 6144 + 4096 + 28672 +
    /// 4096 = 43,008 rows × 4 B; at tp 2 the column-parallel qkv and gate_up rows halve (3072 and
    /// 14336) while the row-parallel o and down keep 4096 rows: 25,600 × 4 B. Exact.
    #[test]
    fn sglang_llama_8b_per_channel_scales_by_hand() {
        let m = llama_8b(OnlineEngine::Sglang, 90);
        assert_eq!(m.weight_bytes_per_rank(1).0, 9_081_200_640 + 43_008 * 4 * 32);
        assert_eq!(m.weight_bytes_per_rank(2).0, 4_540_866_560 + 25_600 * 4 * 32);
    }

    /// On Ampere (SM 8.0) both engines go through Marlin: per-channel scales in the model dtype
    /// (43,008 rows × 2 B per layer at tp 1).
    #[test]
    fn marlin_keeps_per_channel_model_dtype_scales() {
        for e in [OnlineEngine::Vllm, OnlineEngine::Sglang] {
            let m = llama_8b(e, 80);
            assert!(uses_marlin(&gpu(80)) && !uses_marlin(&gpu(89)));
            assert_eq!(
                m.weight_bytes_per_rank(1).0,
                9_081_200_640 + 43_008 * 2 * 32,
                "{e:?}"
            );
        }
    }

    /// vLLM's load order for the online path: every linear is first allocated in bf16, so the
    /// allocator's peak is at least the bf16 checkpoint's bytes (16,060,522,496 B at tp 1: the
    /// linears at 2 B plus the same embedding, LM head and norms) and below it plus the largest
    /// fp8 layer (gate_up, 28672 × 4096 B) and 2 MiB-segment rounding of each tensor.
    #[test]
    fn vllm_online_load_peak_holds_the_bf16_checkpoint() {
        let m = llama_8b(OnlineEngine::Vllm, 90);
        let bf16 = 218_103_808u64 * 2 * 32 + 2 * 128_256 * 4096 * 2 + 532_480;
        assert_eq!(bf16, 16_060_522_496);
        let peak = m.vllm_load_peak(1, &[], 2, &gpu(90));
        assert!(peak >= bf16, "{peak}");
        let slack = 28_672u64 * 4096 + (32 * 4 + 2) * (2 << 20);
        assert!(peak <= bf16 + slack, "{peak} > {}", bf16 + slack);
    }

    /// Just in time (vLLM ≥ 0.14): each layer is materialized in bf16 and quantized before the next,
    /// so the peak is the fp8 weights (9,081,201,152 B at tp 1, the scales in the small pool) plus
    /// about one bf16 layer (gate_up: 28672 × 4096 × 2 B), far below the bf16 checkpoint.
    #[test]
    fn vllm_just_in_time_peak_is_the_fp8_weights_and_one_layer() {
        let mut m = ModelSpec::from_config_json(LLAMA_8B, Quantization::bf16()).expect("parses");
        m.quantization =
            m.quantization
                .online_fp8(OnlineEngine::Vllm, &gpu(90), m.dtype, OnlineLoad::JustInTime);
        let peak = m.vllm_load_peak(1, &[], 2, &gpu(90));
        let fp8 = 9_081_201_152u64;
        assert!(peak >= fp8, "{peak}");
        let slack = 28_672u64 * 4096 * 2 + (32 * 4 + 2) * (2 << 20);
        assert!(peak <= fp8 + slack, "{peak} > {}", fp8 + slack);
    }
}
