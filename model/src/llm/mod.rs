//! # LLM architectures lowered for tensor parallelism
//!
//! A model enters tpsim as its HuggingFace `config.json` plus a [`Quantization`] description. This
//! module reads the config ([`ModelConfig`]), lowers it to the facts the cost model needs
//! ([`ModelSpec`]) and answers, per TP rank:
//!
//! - does this TP size work at all ([`ModelSpec::validate_tp`]),
//! - how many bytes of weights each rank loads ([`ModelSpec::weight_bytes_per_rank`], broken down by
//!   [`ModelSpec::weight_breakdown`]), following SGLang's sharding rules,
//! - how many bytes of KV cache one token costs per rank ([`ModelSpec::kv_cell_bytes`],
//!   `reference/engine-memory.md` "Cell size"),
//! - what one forward pass over `tokens` tokens reads, computes and communicates
//!   ([`ModelSpec::forward_pass`]), including the expected number of distinct MoE experts touched
//!   ([`expected_distinct_experts`]).
//!
//! Everything is a pure function of the config text and the quantization: no I/O.

mod act_quant; // fp8decode: per-token-group fp8 quantization before block-FP8 GEMMs
mod config;
pub mod coverage;
mod dsa;
mod forward;
mod gpt_oss;
mod hybrid;
mod load_order; // vrows4 (issue #17): vLLM's weight tensors in allocation order
mod local_attention;
mod low_flops; // fp8rate: GEMM FLOPs on fp8 / NVFP4 weights
pub mod online_quant; // issue #17 (onlinequant): `--quantization fp8` on a bf16 checkpoint
mod piece;
mod quant;
pub mod vllm_w4a16; // w4a16_60 (issue #17): vLLM's AWQ / GPTQ method and kernel by release
pub mod w4a16_cost; // w4a16cost61 (issue #17): the W4A16 kernels' weight-streaming factor by M
pub mod w4a16_moe_cost; // moew4a16_62 (issue #17): vLLM's fused Marlin MoE call cost (fixed part + streaming rate)
// h3: generic vision towers (Qwen2.5-VL, …) and the h3 GQA dense/MoE families.
mod vlm;
// Issue #16 (h4): the quantization a checkpoint declares (config.json / hf_quant_config.json).
pub mod quant_hf;
// fam (issue #16): GraniteMoE / Phi-3.5-MoE extras and LLaVA-NeXT's text defaults and CLIP tower.
mod llava_next;
mod moe_families;
// nemotronh (issue #17): NemotronHForCausalLM (Mamba-2 / attention / MLP blocks).
mod nemotron_h;
// phi2 (issue #17): PhiForCausalLM (phi-1/1.5/2).
mod phi;
// families (issue #17): GraniteMoeHybridForCausalLM (Granite-4.0-H), Ernie4_5_MoeForCausalLM.
mod ernie;
// families2 (issue #17): BailingMoeV2ForCausalLM (Ling / Ring 2.0).
mod bailing;
mod granite_hybrid;
// families3 (issue #17): Olmo2ForCausalLM.
mod olmo2;
// families6 (issue #17): DeciLMForCausalLM (Llama-Nemotron NAS), HunYuanMoEV1ForCausalLM.
mod hunyuan;
// families24 (issue #17): Grok1ForCausalLM (Grok-1, Grok-2: MoE with a residual MLP).
mod grok;
// families25 (issue #17): LongcatFlashForCausalLM (LongCat-Flash: two MLA blocks and a zero-expert MoE a layer).
mod longcat;
mod nemotron_nas;
// families5 (issue #17): Exaone4ForCausalLM.
mod exaone4;
mod glm4v;
mod partial_rotary; // rope17 (issue #17 point 5): vLLM's RoPE cache width and M-RoPE rows // families7 (issue #17): GLM-4.5V / GLM-4.6V vision tower
// families8 (issue #17): CohereForCausalLM (Command R, Command R+) and Cohere's q/k LayerNorms.
mod cohere;
// families11 (issue #17): InternLM2ForCausalLM (packed wqkv, vLLM's per-layer qkv all-gather).
mod internlm2;
// families13 (issue #17): Starcoder2ForCausalLM (LayerNorms with biases, non-gated biased MLP).
mod starcoder2;
// families15 (issue #17): Dots1ForCausalLM (DeepSeek-V3-style MoE behind Qwen3-style attention).
mod dots1;
// families17 (issue #17): Ernie4_5ForCausalLM / Ernie4_5_ForCausalLM (dense ERNIE-4.5, Llama layers).
mod ernie45;
// families18 (issue #17): ArceeForCausalLM (the Llama layer with a non-gated ReLU² MLP).
mod arcee;
// families21 (issue #17): ApertusForCausalLM (Arcee's non-gated MLP with xIELU, per-head q/k norms).
mod apertus;
// families21 (issue #17): MiniCPMForCausalLM / MiniCPM3ForCausalLM (muP Llama; MLA for MiniCPM3).
mod minicpm;
mod mla_rope; // rope51 (issue #17): SGLang's DeepSeek-MLA RoPE cache rows
// families14 (issue #17): InternVLChatModel (InternViT + mlp1 + the llm_config tower).
mod internvl;
// families19 (issue #17): KimiLinearForCausalLM (KDA linear attention + MLA, DeepSeek-style MoE).
mod kimi_linear;
// families27 (issue #17): MiniMaxText01ForCausalLM / MiniMaxM1ForCausalLM (lightning attention + GQA, MoE).
mod minimax01;
// families20 (issue #17): FalconH1ForCausalLM (Mamba-2 and attention side by side in every layer).
mod falcon_h1;
// families22 (issue #17): Lfm2ForCausalLM / Lfm2MoeForCausalLM (short-conv and GQA layers).
mod lfm2;
// families23 (issue #17): MiMoV2FlashForCausalLM (global and sliding GQA kinds, MoE).
mod mimo_v2;
mod router_fp32; // h200gl51 (issue #18): fp32 MoE router gates (vLLM's GLM-4.x MoE)
// families28 (issue #17): Step3p5ForCausalLM (full and sliding GQA kinds, MoE with a shared expert).
mod step3p5;
// families29 (issue #17): DeepseekV4ForCausalLM, read and counted, refused as not modelled.
pub mod deepseek_v4;
// families33 (issue #17): SGLang's DeepSeek-V4 KV pool sizing by release (0.5.12 – 0.5.20).
pub mod deepseek_v4_pools;
// families33 (issue #17): DeepSeek-V4's decode KV reads and TP all-reduces under SGLang.
pub mod deepseek_v4_decode;
// dsv4dec55 (issue #17): DeepSeek-V4's decode layer in the iteration graph.
pub mod deepseek_v4_layer;
// families35 (issue #17): DeepSeek-V4's weight bytes a rank in SGLang's formats.
pub mod deepseek_v4_weights;
// families29 (issue #17): Glm5NextForConditionalGeneration / Glm5NextForCausalLM, refused by name.
mod glm5_next;
// families30 (issue #17): Gemma 4 (full and sliding GQA kinds of their own widths, `llm::gemma4`).
mod gemma4;
// families32 (issue #17): KimiK3ForConditionalGeneration (Kimi-Linear's KDA + MLA layers with a
// full-rank KDA gate, an MLA output gate, attention residuals and a latent MoE).
pub mod kimi_k3;
// families34 (issue #17): Qwen4ExpForConditionalGeneration / Qwen4ExpForCausalLM, read and counted,
// refused as not modelled.
pub mod qwen3_omni;
pub mod qwen4_exp;
// families37 (issue #17): MiniMax-M3 read and counted, refused.
pub mod minimax_m3;
// families34 (issue #17): Hunyuan V4 and Mistral Large 4 refused by name (MiniMax-M3 until families37).
mod refused_2026;
// families34 (issue #17): HYV3ForCausalLM (Hy3), read and counted; families36: lowered
// (`Architecture::Hy3`).
pub mod hy3;
// vision54 (issue #17): the vision towers of Gemma 4 and Kimi-K3.
mod gemma4_vit;
mod kimi_k3_vit;
mod weights;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_local;
#[cfg(test)]
mod tests_minimax;
// h3: Qwen2.5-VL, Qwen2-MoE, Phi-3, Granite, GLM-4 dense.
#[cfg(test)]
mod tests_h3;
// fam (issue #16): GraniteMoE, Phi-3.5-MoE, LLaVA-NeXT.
#[cfg(test)]
mod tests_fam;
// phi2 (issue #17): phi-2.
#[cfg(test)]
mod tests_phi;
// nemotronh (issue #17): Nemotron-H.
#[cfg(test)]
mod tests_nemotron_h;
// qwenhyb (issue #17): dense Qwen3.5 and Qwen3-Next.
#[cfg(test)]
mod tests_qwenhyb;
// families (issue #17): Granite-4.0-H.
#[cfg(test)]
mod tests_families;
// families3 (issue #17): OLMo-2.
#[cfg(test)]
mod tests_olmo2;
// families5 (issue #17): EXAONE 4.
#[cfg(test)]
mod tests_exaone4;
// families4 (issue #17): MiMo.
#[cfg(test)]
mod tests_mimo;
// families6 (issue #17): Llama-Nemotron NAS.
#[cfg(test)]
mod tests_nemotron_nas;
// families6 (issue #17): Hunyuan-A13B.
#[cfg(test)]
mod tests_cohere;
#[cfg(test)]
mod tests_glm4_moe_lite;
#[cfg(test)]
mod tests_glm4v;
#[cfg(test)]
mod tests_hunyuan;
#[cfg(test)]
mod tests_internlm3;
// families11 (issue #17): InternLM2 / 2.5.
#[cfg(test)]
mod tests_internlm2;
#[cfg(test)]
mod tests_ministral3;
// families13 (issue #17): StarCoder2.
#[cfg(test)]
mod tests_starcoder2;
// families15 (issue #17): dots.llm1.
#[cfg(test)]
mod tests_dots1;
// families17 (issue #17): dense ERNIE-4.5 and Hunyuan.
#[cfg(test)]
mod tests_families17;
// families19 (issue #17): Kimi-Linear.
#[cfg(test)]
mod tests_kimi_linear;
// families20 (issue #17): Falcon-H1.
#[cfg(test)]
mod tests_falcon_h1;
// families18 (issue #17): GLM-4.1V and Arcee AFM.
#[cfg(test)]
mod tests_families18;
// families21 (issue #17): Apertus, MiniCPM and MiniCPM3.
#[cfg(test)]
mod tests_families21;
// mend52: scaffolding the family tests share.
#[cfg(test)]
mod test_util;
// families22 (issue #17): LFM2 and LFM2-MoE.
#[cfg(test)]
mod tests_families22;
// families23 (issue #17): MiMo-V2-Flash.
#[cfg(test)]
mod tests_families23;
// families24 (issue #17): Grok-2.
#[cfg(test)]
mod tests_families24;
// families25 (issue #17): LongCat-Flash.
#[cfg(test)]
mod tests_families25;
// families27 (issue #17): MiniMax-M1 / MiniMax-Text-01.
#[cfg(test)]
mod tests_families27;
// families28 (issue #17): Step-3.5-Flash.
#[cfg(test)]
mod tests_families28;
// families29 (issue #17): DeepSeek-V4.
#[cfg(test)]
mod tests_families29;
// families30 (issue #17): Gemma 4.
#[cfg(test)]
mod tests_families30;
#[cfg(test)]
mod tests_families31;
// families14 (issue #17): InternVL.
#[cfg(test)]
mod tests_internvl;
// families26 (issue #17): InternVL3-78B / InternVL3.5-38B, InternViT-6B by engine, MoE towers.
#[cfg(test)]
mod tests_families26;
// families34 (issue #17): Qwen4-Exp.
#[cfg(test)]
mod tests_families34;
// families36 (issue #17): Hunyuan V3 / Hy3 lowered.
#[cfg(test)]
mod tests_families36;
// families16 (issue #17): Qwen2-VL.
#[cfg(test)]
mod tests_qwen2_vl;
// rope17 (issue #17 point 5): vLLM's RoPE cache width and M-RoPE rows.
#[cfg(test)]
mod tests_partial_rotary;

use serde::Serialize;

use crate::units::Bytes;

pub use act_quant::NormFedQuant;
pub use config::{ModelConfig, SUPPORTED_ARCHITECTURES, SlidingPattern, architecture_of};
pub use dsa::{Indexer, NSA_PAGE_SIZE, NsaBudgetRule, NsaKv};
pub use forward::{ForwardPass, LayerWork, Projection, expected_distinct_experts, qk_norm_stats_bytes};
pub use hybrid::{GatedDeltaNet, Mixer};
// families19 (issue #17): Kimi-Linear's KDA decode kernels and vLLM state page.
pub use kimi_linear::{KDA_KERNELS, vllm_state_page as kda_vllm_state_page};
pub use lfm2::{SHORT_CONV_KERNELS, ShortConv};
pub use load_order::{Int4Kernel, LoadGpu, LoadStep, LoadTensors};
pub use local_attention::local_kv_tokens;
pub use low_flops::LowFlops;
pub use mimo_v2::MimoV2Attention;
pub use minimax01::{LIGHTNING_KERNELS, vllm_state_page as lightning_vllm_state_page};
pub use nemotron_h::{Mamba2, VLLM_KERNEL_BLOCK_ALIGNMENT, non_finite_to_null, vllm_attention_block_size};
pub use partial_rotary::MROPE_ROWS_FACTOR;
pub use quant::{
    AttnProjection, ExpertRelayout, KvCacheDtype, MXFP4_BLOCK, NVFP4_BLOCK, ProjectionFormats, Quantization,
    ScaleDtype, WeightDtype, WeightFormat,
};
pub use vlm::VisionFamily;
pub use weights::WeightBreakdown;

/// The most weight bytes (unsharded) a model may have: 2^50 = 1 PiB, tpsim's own bound (no engine
/// states one), about 700× the largest bundled checkpoint (GLM-5 in bf16, ≈ 1.4 TiB: 16 ranks × 92,586.5 MiB of
/// target weights in `tpsim memory` at tp 16). Each width is
/// bounded alone (2^20, 10^4 layers), but their products are not: cfgfuzz found a 2^20-expert,
/// 2^20-wide, 10^4-layer model (each key in bounds) overflowing vLLM's load-order replay of the
/// caching allocator (`torch_alloc`) and the weights-plus-RoPE sum.
pub const MAX_MODEL_BYTES: u64 = 1 << 50;

/// Everything that can be wrong with a model description or a TP size. Each message says what was
/// expected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ModelError {
    /// The text is not JSON, or a field tpsim reads has the wrong JSON type.
    #[error("config.json could not be parsed: {message} (expected a HuggingFace config.json object)")]
    Json {
        /// The JSON parser's message (with line and column).
        message: String,
    },
    /// The shapes are each in bounds but their weights together pass [`MAX_MODEL_BYTES`].
    #[error(
        "config.json describes {bytes} bytes of weights (unsharded); tpsim models at most {max} bytes \
         (1 PiB; check hidden_size, intermediate sizes, the expert count and num_hidden_layers)"
    )]
    TooLarge {
        /// The unsharded checkpoint's bytes (saturating).
        bytes: u64,
        /// [`MAX_MODEL_BYTES`].
        max: u64,
    },
    /// `architectures` is absent or empty.
    #[error(
        "config.json has no `architectures` entry (expected e.g. \"architectures\": [\"LlamaForCausalLM\"]; \
         supported: {})",
        SUPPORTED_ARCHITECTURES.join(", ")
    )]
    NoArchitecture,
    /// The first `architectures` entry is not one tpsim can lower.
    #[error("unsupported architecture `{found}` (expected one of: {})", supported.join(", "))]
    UnsupportedArchitecture {
        /// The architecture named by the config.
        found: String,
        /// The architectures tpsim supports.
        supported: Vec<&'static str>,
    },
    /// families5 (issue #17): an architecture both engines serve only through their Transformers
    /// backends, which tpsim does not model (`config::TRANSFORMERS_BACKEND_ONLY`).
    #[error("architecture `{found}` is not lowered: {why}")]
    TransformersBackendOnly {
        /// The architecture named by the config.
        found: String,
        /// What each engine does with it, with the source.
        why: &'static str,
    },
    /// families29 (issue #17): an architecture the engines serve natively but tpsim does not model
    /// yet; `why` says which releases serve it and what is missing (`qwen4_exp::refusal`; families29's DeepSeek-V4 refusal was lowered away in dsv4run55).
    #[error("architecture `{found}` is not modelled: {why}")]
    NotModelled {
        /// The architecture named by the config.
        found: String,
        /// What was read, which engine releases serve it and what tpsim lacks, with the sources.
        why: String,
    },
    /// A field required by this architecture is missing.
    #[error("config.json is missing `{field}`, which {architecture} requires")]
    MissingField {
        /// The missing key.
        field: String,
        /// The architecture that needs it.
        architecture: String,
    },
    /// A field has an impossible value.
    #[error("config.json field `{field}` = {value} is invalid (expected {expected})")]
    InvalidField {
        /// The key.
        field: String,
        /// Its value as written.
        value: String,
        /// What would have been accepted.
        expected: String,
    },
    /// The quantization description is inconsistent or does not fit the model.
    #[error("quantization `{field}` is invalid (expected {expected})")]
    InvalidQuantization {
        /// The quantization key (`experts.group_size`, …).
        field: String,
        /// What would have been accepted.
        expected: String,
    },
    /// A TP size the engine would refuse.
    #[error("tp = {tp} does not work for {model}: {reason}")]
    InvalidTp {
        /// The requested tensor-parallel size.
        tp: u32,
        /// The model's name.
        model: String,
        /// Which numbers do not divide, and what would.
        reason: String,
    },
}

/// A [`ModelError::InvalidField`] for config key `field` with its `value` as written and what was
/// `expected` (the families' modules share it).
pub(crate) fn invalid(field: &str, value: String, expected: String) -> ModelError {
    ModelError::InvalidField {
        field: field.into(),
        value,
        expected,
    }
}

/// [`invalid`] with `expected` borrowed (the families' modules that word it with `format!` or a
/// literal).
pub(crate) fn refuse(field: &str, value: String, expected: &str) -> ModelError {
    invalid(field, value, expected.into())
}

/// A [`ModelError::MissingField`]: config key `field`, which architecture `architecture` needs, is
/// absent.
pub(crate) fn missing_field(field: &str, architecture: &str) -> ModelError {
    ModelError::MissingField {
        field: field.into(),
        architecture: architecture.into(),
    }
}

/// The architecture family, which decides the layer layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub enum Architecture {
    /// `LlamaForCausalLM` (Llama 2/3.x): GQA, SwiGLU MLP.
    Llama,
    /// `Qwen2ForCausalLM` (Qwen2.5, QwQ): Llama layout plus a QKV bias.
    Qwen2,
    /// `Qwen3ForCausalLM`: Llama layout plus per-head q/k RMSNorm.
    Qwen3,
    /// `Qwen3MoeForCausalLM`: Qwen3 attention, routed experts without shared experts.
    Qwen3Moe,
    /// `DeepseekV3ForCausalLM` (DeepSeek-V3/R1, Kimi-K2): MLA attention, dense prefix then MoE with a
    /// shared expert.
    DeepseekV3,
    /// `KimiK25ForConditionalGeneration`: a DeepSeek-V3 text model inside a multimodal wrapper with a
    /// MoonViT vision tower.
    KimiK25,
    /// `Glm4MoeForCausalLM` (GLM-4.5/4.6): GQA attention, dense prefix then MoE with a shared expert.
    Glm4Moe,
    /// EAGLE-3 draft (`LlamaForCausalLMEagle3` / `Eagle3LlamaForCausalLM`): one Llama layer over
    /// [embedding ‖ fused target features], its own LM head, the target's embedding.
    Eagle3Llama,
    /// `Qwen3_5MoeForCausalLM` / `Qwen3_5MoeForConditionalGeneration` (Qwen3.5 MoE): a hybrid of
    /// Gated DeltaNet linear-attention layers and gated full-attention layers (every
    /// `full_attention_interval`-th), MoE with one shared expert in every layer. See the `hybrid` module.
    Qwen35Moe,
    /// `MiniMaxM2ForCausalLM` (MiniMax-M2, M2.5, M2.7): GQA with partial rotary and a q/k RMSNorm over
    /// all heads at once (statistics all-reduced across TP ranks), every layer MoE with sigmoid
    /// routing, an fp32 router and no shared expert.
    MiniMaxM2,
    /// `GptOssForCausalLM` (gpt-oss-20b/120b): GQA with q/k/v/o biases and per-head attention sinks,
    /// even layers sliding-window, MoE with a biased router and biased MXFP4 experts in every layer.
    /// See the `gpt_oss` module.
    GptOss,
    // h3 families: Qwen2.5-VL, Qwen2-MoE, Phi-3, Granite, GLM-4 dense.
    /// `Qwen2_5_VLForConditionalGeneration`: a Qwen2 text tower (QKV bias) plus the Qwen2.5 ViT
    /// (window attention, SwiGLU, 2×2 patch merger). See the `vlm` module.
    Qwen25Vl,
    /// families16 (issue #17): `Qwen2VLForConditionalGeneration` (Qwen2-VL-2B/7B/72B): the same Qwen2
    /// text tower with M-RoPE plus the Qwen2-VL ViT (LayerNorm, QuickGELU MLP of `embed_dim ×
    /// mlp_ratio`, no window attention, 2×2 merger). See the `vlm` module.
    Qwen2Vl,
    /// `Qwen2MoeForCausalLM` (Qwen1.5-MoE, Qwen2-57B-A14B): QKV bias, routed experts plus one shared
    /// expert of `shared_expert_intermediate_size` with a sigmoid `shared_expert_gate`.
    Qwen2Moe,
    /// `Phi3ForCausalLM` (Phi-3/3.5/4): Llama layout with fused `qkv_proj` / `gate_up_proj`.
    Phi3,
    /// `GraniteForCausalLM` (Granite 3.x): Llama layout; its multipliers are scalars.
    Granite,
    /// `GlmForCausalLM` (glm-4-9b-chat-hf): Llama layout with a QKV bias and fused gate_up.
    Glm,
    /// `Glm4ForCausalLM` (GLM-4-0414): as `Glm` plus post-attention and post-MLP norms.
    Glm4,
    /// `Mistral3ForConditionalGeneration` (Mistral-Small-3.1/3.2): a Mistral (Llama-layout) text
    /// tower in `text_config` plus a Pixtral ViT and a patch-merger projector. See the `vlm` module.
    /// families12: Ministral 3 (`text_config.model_type = "ministral3"`) is the same architecture
    /// ([`ModelSpec::ministral3`]).
    Mistral3,
    /// `MllamaForConditionalGeneration` (Llama-3.2-Vision): a Llama text tower whose
    /// `cross_attention_layers` attend to the image (q/k norms and two tanh gates each) plus the Mllama
    /// ViT (local + gated global encoder, tile embeddings) and a linear projector. SGLang keeps one
    /// ordinary KV pool over all text layers; vLLM ≥ 0.11 refuses the architecture.
    Mllama,
    // Local/global attention families (issue #16, `local_attention` module):
    /// `GemmaForCausalLM` (Gemma 1): Llama layout with explicit `head_dim`, tied embeddings, GeGLU.
    Gemma,
    /// `Gemma2ForCausalLM`: Gemma plus pre/post feed-forward norms, even layers sliding-window.
    Gemma2,
    /// `Gemma3ForCausalLM` / `Gemma3ForConditionalGeneration`: Gemma-2 norms plus per-head q/k norms,
    /// 5 of 6 layers sliding-window; the multimodal wrapper adds a SigLIP tower.
    Gemma3,
    /// `MistralForCausalLM`: Llama layout; every layer sliding-window when `sliding_window` is set.
    Mistral,
    /// `MixtralForCausalLM`: Mistral attention, every layer MoE without shared experts.
    Mixtral,
    /// `Llama4ForConditionalGeneration` (Scout, Maverick): chunked local attention with every 4th
    /// layer global NoPE, MoE every `interleave_moe_layer_step` layers with a shared expert, vision
    /// tower.
    Llama4,
    // h2 (issue #16): DeepSeek MLA families — V2/V2-Lite, DSA (V3.2, GLM-5), Kimi-VL.
    /// `DeepseekV2ForCausalLM` (DeepSeek-V2, V2-Lite): MLA like V3 (`q_lora_rank` null on Lite),
    /// dense prefix then MoE with shared experts; softmax routing without a score-correction bias
    /// unless `topk_method` is `noaux_tc`.
    DeepseekV2,
    /// `DeepseekV32ForCausalLM` (DeepSeek-V3.2/-Exp): DeepSeek-V3 plus the DSA lightning indexer in
    /// every layer (`llm::dsa`).
    DeepseekV32,
    /// `GlmMoeDsaForCausalLM` (GLM-5): the DeepSeek-V3.2 layout with GLM's widths (SGLang
    /// `models/glm4_moe.py` subclasses `DeepseekV2ForCausalLM`).
    GlmMoeDsa,
    /// `KimiVLForConditionalGeneration` (Kimi-VL-A3B): a DeepSeek-V3-style MLA MoE text tower in
    /// `text_config` plus a MoonViT vision tower (as Kimi-K2.5).
    KimiVl,
    // fam (issue #16): GraniteMoE, Phi-3.5-MoE, LLaVA-NeXT (`moe_families`, `llava_next` modules).
    /// `GraniteMoeForCausalLM` (Granite 3.x MoE: 1B-A400M, 3B-A800M): Llama attention without biases,
    /// every layer MoE of `intermediate_size` without a shared expert; the four multipliers are scalars.
    GraniteMoe,
    /// `PhiMoEForCausalLM` (Phi-3.5-MoE): GQA with q/k/v/o biases, LayerNorms with biases, every layer
    /// MoE (16 experts, top-2) of `intermediate_size`, an LM head with a bias.
    PhiMoe,
    /// `LlavaNextForConditionalGeneration` (llava-hf LLaVA-v1.6): a Mistral or Llama text tower in
    /// `text_config` (transformers' defaults for the keys it omits), a CLIP ViT built up to
    /// `vision_feature_layer`, a two-layer projector and the `image_newline` vector.
    LlavaNext,
    // phi2 (issue #17): Phi-1/1.5/2 (`phi` module).
    /// `PhiForCausalLM` (phi-1, phi-1.5, phi-2): attention and a non-gated GELU MLP in parallel off
    /// one LayerNorm (with bias), QKV / dense / fc1 / fc2 all biased, partial rotary, final LayerNorm
    /// and an LM head with a bias, untied embeddings. See the `phi` module.
    Phi,
    // nemotronh (issue #17): Nemotron-H (`nemotron_h` module).
    /// `NemotronHForCausalLM` (Nemotron-H-8B/47B/56B, NVIDIA-Nemotron-Nano-9B/12B-v2): single-purpose
    /// blocks from `hybrid_override_pattern` — Mamba-2 (`M`), GQA attention without RoPE (`*`),
    /// squared-ReLU MLP (`-`) — each one residual unit with one all-reduce.
    NemotronH,
    // qwenhyb (issue #17): the dense Qwen3.5 and Qwen3-Next, the hybrids beside `Qwen35Moe`.
    /// `Qwen3_5ForCausalLM` / `Qwen3_5ForConditionalGeneration` (Qwen3.5-9B, -27B, …): the Qwen3.5
    /// hybrid of Gated DeltaNet and gated full attention with a dense SwiGLU MLP of
    /// `intermediate_size` in every layer (SGLang / vLLM `models/qwen3_5.py`).
    Qwen35,
    /// `Qwen3NextForCausalLM` (Qwen3-Next-80B-A3B): the same hybrid mixers as Qwen3.5 (Qwen3.5 reuses
    /// its layers), MoE with one gated shared expert in every layer (SGLang `models/qwen3_next.py`).
    Qwen3Next,
    /// `Qwen3VLForConditionalGeneration` (Qwen3-VL-8B, …): a Qwen3 text tower in `text_config` plus
    /// the Qwen3-VL ViT with three DeepStack mergers (`vlm::qwen3_vit`).
    Qwen3Vl,
    /// `Qwen3VLMoeForConditionalGeneration` (Qwen3-VL-30B-A3B, -235B-A22B): a Qwen3-MoE text tower in
    /// `text_config` plus the Qwen3-VL ViT.
    Qwen3VlMoe,
    // families (issue #17): Granite-4.0-H (`granite_hybrid` module).
    /// `GraniteMoeHybridForCausalLM` (Granite-4.0-H-Micro/Tiny/Small): Mamba-2 or NoPE GQA attention
    /// per layer from `layer_types`, each layer followed by a MoE of `num_local_experts` SwiGLU experts
    /// plus a shared SwiGLU MLP of `shared_intermediate_size` (or that MLP alone when there are no
    /// experts). See the `granite_hybrid` module.
    GraniteMoeHybrid,
    /// `SeedOssForCausalLM` (ByteDance Seed-OSS-36B): the Llama layer with an explicit `head_dim`
    /// (80 × 128 = 2 × hidden) and biases on q/k/v only (SGLang / vLLM `models/seed_oss.py`).
    SeedOss,
    /// `Ernie4_5_MoeForCausalLM` (Baidu ERNIE-4.5-21B-A3B, -300B-A47B): Llama attention, dense MLP
    /// layers outside `moe_layer_start_index..=moe_layer_end_index` (every `moe_layer_interval`-th
    /// inside), MoE layers with `moe_num_shared_experts` shared experts and a router score-correction
    /// bias. See the `ernie` module.
    Ernie45Moe,
    /// `BailingMoeV2ForCausalLM` (inclusionAI Ling-mini-2.0, Ling-flash-2.0, Ring 2.0): GQA with a
    /// fused QKV, per-head q/k RMSNorm and partial rotary; `first_k_dense_replace` dense layers,
    /// then MoE with shared experts behind a sigmoid router with an fp32 expert bias (grouped
    /// top-k). See the `bailing` module.
    BailingMoeV2,
    /// `Cohere2ForCausalLM` (Cohere Command R7B, Command A): the Cohere "parallel block" — one
    /// LayerNorm (weight only) feeds attention and the SwiGLU MLP side by side, both added to the
    /// residual — with 3 sliding-window layers to 1 global one (`layer_types`, else
    /// `sliding_window_pattern`) and tied embeddings. See `local_attention`.
    Cohere2,
    // families3 (issue #17): OLMo-2 (`olmo2` module).
    /// `Olmo2ForCausalLM` (AllenAI OLMo-2 1B/7B/13B/32B): the Llama projections without biases, but
    /// post-norm (RMSNorm on the attention and MLP outputs before each residual add, no input norm)
    /// and one q RMSNorm over the whole q projection (and one k RMSNorm over all of k), which under
    /// TP all-gathers q and k in every layer (SGLang 0.5.9 / vLLM 0.19.0 `models/olmo2.py`). See the
    /// `olmo2` module.
    Olmo2,
    /// `OlmoeForCausalLM` (AllenAI OLMoE-1B-7B): pre-norm Llama attention without biases with
    /// OLMo-2's whole-width q/k RMSNorms (all-gathered under vLLM at tp > 1), every layer MoE of
    /// `num_experts` SwiGLU experts of `intermediate_size`, top-`num_experts_per_tok` without
    /// renormalisation, a bias-free replicated router, no shared expert, an untied LM head (SGLang
    /// 0.5.9 / vLLM 0.19.0 `models/olmoe.py`). See the `olmo2` module.
    Olmoe,
    // families4 (issue #17): MiMo.
    /// `MiMoForCausalLM` (Xiaomi MiMo-7B Base/SFT/RL): the Qwen2 decoder (QKV bias, SwiGLU, untied
    /// head) plus `num_nextn_predict_layers` MTP layers (`model.mtp_layers.*`) that the target model
    /// of both engines skips when loading (SGLang 0.5.9 and vLLM 0.19.0 `models/mimo.py`
    /// `load_weights`: `if "mtp_layers" in name: continue`); they are weights of the separate
    /// `MiMoMTP` draft (`models/mimo_mtp.py`; under SGLang tpsim's MTP draft, under vLLM refused).
    /// Lowered as `Qwen2`.
    Mimo,
    // families6 (issue #17): Llama-Nemotron NAS (`nemotron_nas` module).
    /// `DeciLMForCausalLM` (`model_type` `nemotron-nas`: Llama-3.3-Nemotron-Super-49B v1/v1.5,
    /// Llama-3.1-Nemotron-Ultra-253B): Llama decoder layers whose attention (with its KV heads) and
    /// MLP width `block_configs` sets per layer, either of them possibly a no-op (SGLang 0.5.9 /
    /// vLLM 0.19.0 `models/nemotron_nas.py`). See the `nemotron_nas` module.
    NemotronNas,
    /// `HunYuanMoEV1ForCausalLM` (Tencent Hunyuan-A13B): GQA with per-head q/k RMSNorm, every layer
    /// MoE (`num_experts` experts, top-`moe_topk`, a bias-free replicated router) plus a shared MLP of
    /// `intermediate_size × num_shared_expert` (SGLang 0.5.9 `models/hunyuan.py`, vLLM 0.19.0
    /// `models/hunyuan_v1.py`). See the `hunyuan` module.
    HunYuanMoeV1,
    // families24 (issue #17): Grok-1 / Grok-2 (`grok` module).
    /// `Grok1ForCausalLM` / `Grok1ModelForCausalLM` (xAI Grok-1, Grok-2): GQA without biases, every
    /// layer a top-k MoE of GELU experts behind an fp32 router, plus (Grok-2, `residual_moe`) a
    /// residual MLP of `intermediate_size` (SGLang `models/grok.py`; the residual MLP from 0.5.1).
    /// See the `grok` module.
    Grok1,
    // families25 (issue #17): LongCat-Flash (`longcat` module).
    /// `LongcatFlashForCausalLM` (Meituan LongCat-Flash-Chat, 560B): each layer two DeepSeek MLA
    /// attention blocks, two dense SwiGLU MLPs and one shortcut-connected MoE whose fp32 router picks
    /// among real and zero (identity) experts (SGLang `models/longcat_flash.py` from 0.5.2, vLLM from
    /// 0.11.0). Lowered as two blocks a layer. See the `longcat` module.
    LongcatFlash,
    // families5 (issue #17): EXAONE 4 (`exaone4` module).
    /// `Exaone4ForCausalLM` (LG EXAONE-4.0-32B and 1.2B): the Llama projections without biases,
    /// post-norm (RMSNorm on the attention and MLP outputs before separate residual adds, no input
    /// norm), per-head q/k RMSNorm, 3 sliding-window layers to 1 full one (`layer_types`, else
    /// `sliding_window_pattern`) with no rotary embedding on the full layers when any layer slides
    /// (SGLang 0.5.9 / vLLM 0.19.0 `models/exaone4.py`). See the `exaone4` module.
    Exaone4,
    // families7 (issue #17): GLM-4.5V / GLM-4.6V (`glm4v` module).
    /// `Glm4vMoeForConditionalGeneration` (GLM-4.5V, GLM-4.6V): the GLM-4.5-Air text tower of
    /// `Glm4MoeForCausalLM` in `text_config` (SGLang 0.5.9 `models/glm4v_moe.py` builds
    /// `Glm4MoeModel`; vLLM 0.11.0 `models/glm4_1v.py` builds the registered `Glm4MoeForCausalLM`)
    /// plus the GLM-4V ViT (`vlm::glm4v_vit`). Decode runs the text tower only. See the `glm4v` module.
    Glm4vMoe,
    // families8 (issue #17): Command R / R+ (`cohere` module).
    /// `CohereForCausalLM` (Cohere Command R v01 and 08-2024, Command R+ and R+ 08-2024): the Cohere
    /// parallel block of `Cohere2` with every layer full attention, tied embeddings, and with
    /// `use_qk_norm` (the R+ configs) per-head q/k LayerNorms sharded with the heads (SGLang 0.5.9 /
    /// vLLM 0.19.0 `models/commandr.py`). See the `cohere` module.
    Cohere,
    // families10 (issue #17): GLM-4.7-Flash.
    /// `Glm4MoeLiteForCausalLM` (GLM-4.7-Flash, 30B-A3B): DeepSeek-V2 MLA attention (`q_lora_rank`,
    /// `kv_lora_rank`, one latent KV head) with GLM-4.5's MoE block (dense `first_k_dense_replace`
    /// prefix, sigmoid `noaux_tc` routing through an fp32 gate, one shared expert). vLLM
    /// `models/glm4_moe_lite.py` builds `DeepseekV2MLAAttention` + `Glm4MoE`; SGLang
    /// `models/glm4_moe_lite.py` builds `DeepseekV2AttentionMLA` + its own `Glm4MoeLiteSparseMoeBlock`.
    Glm4MoeLite,
    // families11 (issue #17): InternLM2 / 2.5 (`internlm2` module).
    /// `InternLM2ForCausalLM` (InternLM2 / InternLM2.5 7B, 20B): the Llama layer (GQA without biases,
    /// SwiGLU, untied head) whose checkpoint packs q, k and v per KV group in one `wqkv`. SGLang
    /// 0.5.8 `models/internlm2.py` reorders the packed rows at load (a Llama at run time); vLLM 0.19.0
    /// `models/internlm2.py` loads them as they are and all-gathers the qkv output in every layer at
    /// tp > 1 (`InternLM2Attention.split_qkv`). See the `internlm2` module.
    InternLM2,
    // families13 (issue #17): StarCoder2 (`starcoder2` module).
    /// `Starcoder2ForCausalLM` (StarCoder2 3B / 7B / 15B): GQA with RoPE, two LayerNorms with
    /// biases, every projection biased with `use_bias`, a non-gated `c_fc` → GELU → `c_proj` MLP,
    /// tied embeddings by default. vLLM 0.19.0 slides every layer over `sliding_window`; SGLang 0.5.8
    /// applies no window (`models/starcoder2.py` in both). See the `starcoder2` module.
    Starcoder2,
    // families15 (issue #17): dots.llm1 (`dots1` module).
    /// `Dots1ForCausalLM` (rednote-hilab dots.llm1, 142B-A14B): GQA with per-head q/k RMSNorms and no
    /// biases (Qwen3's attention), a dense `first_k_dense_replace` prefix, then DeepSeek-V3's MoE
    /// (sigmoid `noaux_tc` routing, routed experts of `moe_intermediate_size`, `n_shared_experts`
    /// shared), untied head. vLLM `models/dots1.py` from 0.9.2; no SGLang release has it. See the
    /// `dots1` module.
    Dots1,
    // families17 (issue #17): dense ERNIE-4.5 (`ernie45` module).
    /// `Ernie4_5ForCausalLM` / `Ernie4_5_ForCausalLM` (Baidu ERNIE-4.5-0.3B): the Llama layer (GQA with
    /// an explicit `head_dim`, SwiGLU of `intermediate_size`, no biases: `use_bias` is refused), tied
    /// embeddings. vLLM 0.19.0 `models/ernie45.py` subclasses `LlamaForCausalLM` (non-neox RoPE, no
    /// o_proj bias); SGLang `models/ernie4.py` builds it with the MoE model's layers, none of them MoE.
    /// The two engines register different names (`ModelSpec::ernie45_legacy_name`, `sim::scenario`).
    Ernie45,
    // families17 (issue #17): dense Hunyuan (`hunyuan` module).
    /// `HunYuanDenseV1ForCausalLM` (Tencent Hunyuan-0.5B … 7B, Hy-MT): Hunyuan-A13B's attention (GQA,
    /// per-head q/k RMSNorm with `use_qk_norm`, `head_dim` else `attention_head_dim`) with a dense
    /// SwiGLU of `intermediate_size` in every layer (SGLang `models/hunyuan.py`, a subclass of the MoE
    /// class that builds `HunYuanMLP` when `num_experts` is not > 1; vLLM `models/hunyuan_v1.py`).
    HunYuanDenseV1,
    // families19 (issue #17): Kimi-Linear (`kimi_linear` module).
    /// `KimiLinearForCausalLM` (Kimi-Linear-48B-A3B): KDA linear-attention layers (the
    /// `linear_attn_config.kda_layers`, 1-indexed) and MLA layers without q compression or rotary
    /// embedding, a dense SwiGLU prefix then DeepSeek-style MoE (sigmoid router with a model-dtype
    /// correction bias, shared experts). vLLM `models/kimi_linear.py` from 0.11.1, SGLang from
    /// 0.5.4.post2. See the `kimi_linear` module.
    KimiLinear,
    // families27 (issue #17): MiniMax-Text-01 / MiniMax-M1 (`minimax01` module).
    /// `MiniMaxText01ForCausalLM` / `MiniMaxM1ForCausalLM` / `MiniMaxForCausalLM` (MiniMax-Text-01,
    /// MiniMax-M1-40k / 80k): lightning (linear) attention layers with a per-request state of heads ×
    /// head_dim × head_dim, a GQA softmax layer every 8th (`attn_type_list`), every layer 32 SiLU
    /// experts top-2 behind an fp32 router, an fp32 LM head (vLLM `models/minimax_text_01.py`, V1 from
    /// 0.10.2; no SGLang release). See the `minimax01` module.
    MiniMaxText01,
    // families18 (issue #17): GLM-4.1V (`glm4v` module).
    /// `Glm4vForConditionalGeneration` (GLM-4.1V-9B-Thinking / -Base): GLM-4-0414's dense text tower
    /// (`Glm4ForCausalLM`: QKV bias, post-attention and post-MLP norms, half-rotary M-RoPE; SGLang
    /// 0.5.9 `models/glm4v.py` builds `Glm4Model`, vLLM 0.11.0 `models/glm4_1v.py` the registered
    /// `Glm4ForCausalLM` on `text_config`) plus the GLM-4V ViT of GLM-4.5V (`glm4v::glm4v_vit`).
    /// Decode runs the text tower only. See the `glm4v` module.
    Glm4v,
    // families18 (issue #17): Arcee AFM (`arcee` module).
    /// `ArceeForCausalLM` (Arcee AFM-4.5B, -Base): the Llama attention (GQA, no biases) with a
    /// non-gated `up_proj` → ReLU² → `down_proj` MLP of `intermediate_size`, two RMSNorms a layer, an
    /// untied head (SGLang `models/arcee.py` from 0.4.10, vLLM `models/arcee.py` from 0.10.0).
    Arcee,
    // families20 (issue #17): Falcon-H1 (`falcon_h1` module).
    /// `FalconH1ForCausalLM` (Falcon-H1 0.5B … 34B): a Mamba-2 mixer and a GQA attention (RoPE,
    /// explicit `head_dim`) side by side on each layer's `input_layernorm`, then a SwiGLU MLP; lowered
    /// as two blocks per layer (SGLang `models/falcon_h1.py` from 0.5.3, vLLM from 0.9.0). See the
    /// `falcon_h1` module.
    FalconH1,
    // families21 (issue #17): Apertus (`apertus` module).
    /// `ApertusForCausalLM` (swiss-ai Apertus-8B / -70B): the Llama attention with per-head q/k
    /// RMSNorms and a non-gated `up_proj` → xIELU → `down_proj` MLP with two learned scalars a layer
    /// (SGLang `models/apertus.py` from 0.5.3rc0, vLLM `models/apertus.py` from 0.10.2).
    Apertus,
    // families21 (issue #17): MiniCPM (`minicpm` module).
    /// `MiniCPMForCausalLM` (MiniCPM 1B/2B, MiniCPM4 0.5B/8B): the Llama layer (GQA, SwiGLU, no
    /// biases, `head_dim = hidden / heads`) with muP scalings that change no size (SGLang
    /// `models/minicpm.py` from 0.1.19, vLLM from 0.4.1).
    MiniCpm,
    /// `MiniCPM3ForCausalLM` (MiniCPM3-4B): DeepSeek-V2's MLA with q compression and a dense SwiGLU
    /// in every layer; SGLang caches the latent, vLLM materialised per-head K/V (`minicpm` module;
    /// SGLang `models/minicpm3.py` from 0.3.1, vLLM from 0.6.2).
    MiniCpm3,
    // families22 (issue #17): LFM2 and LFM2-MoE (`lfm2` module).
    /// `Lfm2ForCausalLM` (LFM2-350M … 2.6B): gated short-conv or GQA (per-head q/k RMSNorm, RoPE)
    /// layers per `layer_types`, each with a SwiGLU MLP (SGLang `models/lfm2.py` from 0.5.9, vLLM from
    /// 0.10.2).
    Lfm2,
    /// `Lfm2MoeForCausalLM` (LFM2-8B-A1B): LFM2's layers with a dense MLP in the first
    /// `num_dense_layers` and a sigmoid-routed MoE with an fp32 expert bias after (SGLang
    /// `models/lfm2_moe.py` from 0.5.9, vLLM from 0.11.1).
    Lfm2Moe,
    // families23 (issue #17): MiMo-V2-Flash (`mimo_v2` module).
    /// `MiMoV2FlashForCausalLM` (Xiaomi MiMo-V2-Flash, 309B-A15B): GQA layers of two kinds per
    /// `hybrid_layer_pattern` — global (`num_key_value_heads`) and 128-token sliding window
    /// (`swa_num_key_value_heads`, per-head sink bias) — with q/k heads wider than v heads, a dense
    /// SwiGLU or a sigmoid-routed MoE (fp32 router and bias, no shared expert) per `moe_layer_freq`
    /// (SGLang `models/mimo_v2_flash.py` from 0.5.7).
    MiMoV2Flash,
    // families28 (issue #17): Step-3.5-Flash (`step3p5` module).
    /// `Step3p5ForCausalLM` (StepFun Step-3.5-Flash, 196B-A11B): GQA layers of two kinds per
    /// `layer_types` — full and 512-token sliding window with more query heads — and a dense SwiGLU
    /// or a sigmoid-routed MoE with one shared expert per `moe_layers_enum` (SGLang
    /// `models/step3p5.py` from 0.5.9, vLLM from 0.15.1).
    Step3p5,
    // families30 (issue #17): Gemma 4 (`gemma4` module).
    /// `Gemma4ForCausalLM` / `Gemma4ForConditionalGeneration` (Google Gemma 4): GQA layers of two
    /// kinds per `layer_types` — 5 sliding-window layers of `head_dim` wide heads to one full layer of
    /// `global_head_dim` wide heads with its own KV heads (`num_global_key_value_heads`), keys reused
    /// as values (`attention_k_eq_v`) — each with a gated GELU MLP and Gemma's four norms (SGLang
    /// `models/gemma4_causal.py` from 0.5.11, vLLM `models/gemma4.py` from 0.19.0).
    Gemma4,
    // families32 (issue #17): Kimi-K3 (`kimi_k3` module).
    /// `KimiK3ForConditionalGeneration` / `KimiK3LinearForCausalLM` (Moonshot Kimi-K3): Kimi-Linear's
    /// layerwise KDA / MLA hybrid with a full-rank KDA output gate, a sigmoid output gate on MLA (with
    /// q compression), block attention residuals, and a MoE whose routed experts run in a narrower
    /// latent space behind replicated projections (SGLang `models/kimi_k3.py` from 0.5.17).
    KimiK3,
    // families31 (issue #17): Mistral Large 3, DeepSeek-V3's layers under another name.
    /// `MistralLarge3ForCausalLM` (Mistral Large 3, 675B): both engines subclass their
    /// `DeepseekV3ForCausalLM` and only rename the checkpoint's tensors (SGLang 0.5.9 and vLLM 0.13.0
    /// `models/mistral_large_3.py`), so it is lowered as DeepSeek-V3 (MLA, dense prefix, routed
    /// experts with a shared one). A class of its own because the engines' rules name it apart:
    /// first releases, SGLang's shared-expert fusion (DeepSeek-V3 only), no `e_score_correction_bias`
    /// (its config's `topk_method` is null).
    MistralLarge3,
    // families36 (issue #17): Hunyuan V3 (Hy3), GLM-4.5's layer shapes under its own engine rules.
    /// `HYV3ForCausalLM` (tencent/Hy3, 295B-A21B; `llm::hy3`): GQA with per-head q/k RMSNorm, the
    /// first `first_k_dense_replace` layers a dense SwiGLU, then a MoE of `num_experts` routed experts
    /// behind an fp32 router with an fp32 `expert_bias` and `num_shared_experts` × the expert width as
    /// one shared MLP (SGLang 0.5.11 – 0.5.23 `models/hunyuan_v3.py`, vLLM 0.20.0 – 0.34.0
    /// `models/hy_v3.py`). Lowered like GLM-4.5 (`Glm4Moe`) but a class of its own: first releases,
    /// config keys (`num_experts`, `qk_norm`) and the fp32 router differ.
    Hy3,
    // dsv4run55 (issue #17): DeepSeek-V4 (`deepseek_v4` module and its `_pools`, `_weights`,
    // `_decode` companions).
    /// `DeepseekV4ForCausalLM` (DeepSeek-V4-Flash 284B-A13B, -Pro 1.6T): one 512-wide KV head read
    /// sparsely by FlashMLA over a 128-token window plus compressed (ratio 4 with the C4 indexer, or
    /// 128) slots, mHC residual streams, a grouped low-rank output and a MoE in every layer, the first
    /// `num_hash_layers` hash-routed (SGLang `models/deepseek_v4.py` from 0.5.12). Lowered with the
    /// GQA shape of its query heads over one KV head; its own weights, pools and kernels come from
    /// [`ModelSpec::deepseek_v4`].
    DeepseekV4,
    // families38 (issue #17): MiniMax-M3's text model (`minimax_m3`).
    /// `MiniMaxM3SparseForCausalLM` (MiniMax-M3 428B-A23B's text model): GQA (64 query / 4 KV heads
    /// of 128) with per-head q/k norms, MiniMax sparse attention (an indexer choosing 16 KV blocks of
    /// 128 tokens) on the layers `sparse_attention_freq` marks, a dense SwiGLU where `moe_layer_freq`
    /// is 0 and elsewhere 128 sigmoid-routed experts top-4 with one shared MLP (SGLang
    /// `models/minimax_m3.py` from 0.5.16). Lowered as GQA + MoE; its index pieces, cell and sparse
    /// reads come from [`ModelSpec::minimax_m3`].
    MiniMaxM3,
}

impl Architecture {
    /// families3 (issue #17): OLMo-2 and OLMoE normalise q and k over the whole projection with
    /// replicated norm weights, gathering q and k across the TP group (`llm::olmo2`).
    pub fn whole_width_qk_norm(self) -> bool {
        matches!(self, Architecture::Olmo2 | Architecture::Olmoe)
    }
}

impl Architecture {
    /// The Qwen hybrids of Gated DeltaNet and gated full attention (Qwen3-Next, Qwen3.5 dense and
    /// MoE): their layers come from `qwen3_next.py` in both engines.
    pub fn is_qwen_hybrid(self) -> bool {
        matches!(
            self,
            Architecture::Qwen35Moe | Architecture::Qwen35 | Architecture::Qwen3Next
        )
    }
}

/// Attention layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Attention {
    /// Multi-head latent attention (DeepSeek-V2/V3, Kimi-K2/K2.5).
    Mla {
        /// Query compression rank (`None`: queries projected directly from the hidden state).
        q_lora_rank: Option<u64>,
        /// Latent KV rank (the cached latent width).
        kv_lora_rank: u64,
        /// Per-head non-rotary q/k width.
        qk_nope_head_dim: u64,
        /// Rotary q/k width (one shared rotary key per token, cached).
        qk_rope_head_dim: u64,
        /// Per-head value width.
        v_head_dim: u64,
    },
    /// Grouped-query (or multi-head, when `kv_heads == heads`) attention.
    Gqa {
        /// Query heads.
        heads: u64,
        /// Key/value heads.
        kv_heads: u64,
        /// Width of each head (keys and values alike).
        head_dim: u64,
    },
}

/// Shape of a MoE feed-forward block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct MoeShape {
    /// Routed experts E.
    pub n_routed_experts: u64,
    /// Experts per token k.
    pub num_experts_per_tok: u64,
    /// Intermediate width of each expert.
    pub moe_intermediate: u64,
    /// Always-active shared experts, each `moe_intermediate` wide (DeepSeek/GLM; 0 for Qwen3-MoE).
    pub n_shared_experts: u64,
}

impl MoeShape {
    /// The shape of `n_routed_experts` routed experts, `num_experts_per_tok` of them a token, each
    /// `moe_intermediate` wide, plus `n_shared_experts` always-active experts of that width (the
    /// config readers' one spelling of it).
    pub const fn new(
        n_routed_experts: u64,
        num_experts_per_tok: u64,
        moe_intermediate: u64,
        n_shared_experts: u64,
    ) -> MoeShape {
        MoeShape {
            n_routed_experts,
            num_experts_per_tok,
            moe_intermediate,
            n_shared_experts,
        }
    }
}

/// The feed-forward block of one decoder layer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Ffn {
    /// SwiGLU MLP (gate, up, down).
    Dense {
        /// Intermediate width.
        intermediate: u64,
    },
    /// Router + routed experts + shared experts.
    Moe(MoeShape),
    /// No feed-forward: a Nemotron-H Mamba or attention block (`llm::nemotron_h`).
    Absent,
}

/// EAGLE-3 draft specifics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Eagle3 {
    /// Hidden size of the target; the fusion layer maps 3 × this to the draft hidden size.
    pub target_hidden: u64,
    /// Rows of the draft's own LM head (32,000 for the reference drafters; the full vocabulary for the
    /// public Kimi-K2.5 drafter).
    pub draft_vocab: u64,
}

/// The vision tower of a multimodal model (MoonViT for Kimi-K2.5, SigLIP for Gemma-3, Llama-4's),
/// sized from `vision_config`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct VisionTower {
    /// Encoder blocks.
    pub layers: u64,
    /// Encoder width.
    pub hidden: u64,
    /// Encoder MLP width.
    pub intermediate: u64,
    /// Encoder attention heads.
    pub heads: u64,
    /// Patch edge in pixels.
    pub patch: u64,
    /// Learned position-embedding grid (height × width).
    pub pos_emb_cells: u64,
    /// Patches merged into one token by the projector (2×2 = 4).
    pub merge: u64,
    /// Width the projector maps to (the text hidden size).
    pub text_hidden: u64,
    /// True when `vision_config` lacked the sizes and the MoonViT defaults of Kimi-K2.5
    /// (27 × 1152, MLP 4304, 16 heads, ≈ 0.47 B parameters) were assumed.
    pub assumed: bool,
    /// Which encoder layout the pieces follow (see `llm::vlm`).
    pub family: VisionFamily,
    /// Frames folded into one patch (Qwen2.5-VL `temporal_patch_size` 2; 1 for image-only encoders).
    pub temporal_patch: u64,
    /// (layers, hidden) as SGLang's `ServerArgs.adjust_mem_fraction_for_vlm` reads them:
    /// `vision_config.num_hidden_layers` (default 24) and `vision_config.hidden_size` (default 1024).
    pub sglang_fraction_dims: (u64, u64),
    /// The projector's linears carry biases (Mistral-3 `multimodal_projector_bias`).
    pub projector_bias: bool,
    /// Mllama: gated global encoder layers after the local ones (`num_global_layers`), else 0.
    pub global_layers: u64,
    /// Mllama: tiles per image (`max_num_tiles`) and aspect-ratio ids (`supported_aspect_ratios`),
    /// else 0; the projector input width is `vision_output_dim`.
    pub tiles: u64,
    /// Mllama: aspect-ratio ids (`supported_aspect_ratios` entries).
    pub aspect_ratios: u64,
    /// Mllama: the projector's input width (`vision_output_dim`).
    pub projector_in: u64,
    /// qwenhyb: Qwen3-VL's DeepStack mergers (one per `deepstack_visual_indexes` entry), else 0.
    pub deepstack_mergers: u64,
    /// Llama-4: `projector_input_dim` of the pixel-shuffle MLP; families7: the GLM-4V merger's
    /// SwiGLU width (`vision_config.intermediate_size`); 0 otherwise.
    pub projector_input: u64,
    /// Llama-4: `vision_output_dim`, the projector's input (0 otherwise).
    pub projector_output: u64,
    /// families41: Qwen3-Omni's audio encoder beside the vision tower (`llm::qwen3_omni`), else
    /// `None`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub audio: Option<qwen3_omni::AudioTower>,
}

impl VisionTower {
    /// An encoder of `layers` blocks of width `hidden` (MLP `intermediate`, `heads` heads, square
    /// patches of `patch` pixels) projecting to `text_hidden`, with every optional part absent: no
    /// learned position grid, no patch merging, one input plane a patch, no projector bias, no
    /// Mllama tiles or Llama-4 / GLM-4V projector widths, no DeepStack mergers; SGLang's
    /// `adjust_mem_fraction_for_vlm` dims are the tower's own. Builders override what their
    /// config has (`VisionTower { merge: 4, ..VisionTower::encoder(..) }`).
    pub const fn encoder(
        family: VisionFamily,
        layers: u64,
        hidden: u64,
        intermediate: u64,
        heads: u64,
        patch: u64,
        text_hidden: u64,
    ) -> VisionTower {
        VisionTower {
            layers,
            hidden,
            intermediate,
            heads,
            patch,
            pos_emb_cells: 0,
            merge: 1,
            text_hidden,
            assumed: false,
            family,
            temporal_patch: 1,
            sglang_fraction_dims: (layers, hidden),
            projector_bias: false,
            global_layers: 0,
            tiles: 0,
            aspect_ratios: 0,
            projector_in: 0,
            deepstack_mergers: 0,
            projector_input: 0,
            projector_output: 0,
            audio: None,
        }
    }

    /// Kimi-K2.5's MoonViT as published (`vision_config` of moonshotai/Kimi-K2.5): used for any
    /// field the config leaves out.
    const KIMI_DEFAULT: VisionTower = VisionTower {
        pos_emb_cells: 64 * 64,
        merge: 4,
        assumed: true,
        projector_bias: true,
        ..VisionTower::encoder(VisionFamily::MoonVit, 27, 1152, 4304, 16, 14, 7168)
    };

    fn from_json(v: &serde_json::Value, text_hidden: u64) -> VisionTower {
        // Sizes outside (0, 2^20] are ignored (defaults used) so no shape product can overflow.
        let get = |keys: &[&str]| {
            keys.iter()
                .find_map(|k| v.get(*k).and_then(serde_json::Value::as_u64))
                .filter(|&x| x > 0 && x <= 1 << 20)
        };
        let d = Self::KIMI_DEFAULT;
        let layers = get(&["vt_num_hidden_layers", "num_hidden_layers", "depth"]);
        let hidden = get(&["vt_hidden_size", "hidden_size"]);
        let intermediate = get(&["vt_intermediate_size", "intermediate_size"]);
        let heads = get(&["vt_num_attention_heads", "num_attention_heads", "num_heads"]);
        let assumed = layers.is_none() || hidden.is_none() || intermediate.is_none();
        let merge = v
            .get("merge_kernel_size")
            .and_then(serde_json::Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(serde_json::Value::as_u64)
                    .fold(1u64, u64::saturating_mul)
            })
            .filter(|&m| m > 0 && m <= 64)
            .unwrap_or(d.merge);
        let pos = match (get(&["init_pos_emb_height"]), get(&["init_pos_emb_width"])) {
            (Some(h), Some(w)) if h <= 4096 && w <= 4096 => h * w,
            _ => d.pos_emb_cells,
        };
        VisionTower {
            layers: layers.filter(|&x| x <= 1024).unwrap_or(d.layers),
            hidden: hidden.unwrap_or(d.hidden),
            intermediate: intermediate.unwrap_or(d.intermediate),
            heads: heads.unwrap_or(d.heads),
            patch: get(&["patch_size"]).filter(|&x| x <= 1024).unwrap_or(d.patch),
            pos_emb_cells: pos,
            merge,
            text_hidden: get(&["text_hidden_size"]).unwrap_or(if text_hidden > 0 && text_hidden <= 1 << 20 {
                text_hidden
            } else {
                d.text_hidden
            }),
            assumed,
            // The rest (MoonViT family, projector bias, no tiles) as Kimi-K2.5's; the fraction dims
            // are the tower's own (below), as the logged default fraction used them (engine-memory.tsv).
            ..d
        }
        .with_own_fraction_dims()
    }

    fn with_own_fraction_dims(mut self) -> VisionTower {
        self.sglang_fraction_dims = (self.layers, self.hidden);
        self
    }
}

/// The lowered, validated facts of one model: what the cost and memory models read.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelSpec {
    /// Name (`_name_or_path`, else `model_type`, else the architecture).
    pub name: String,
    /// Architecture family.
    pub arch: Architecture,
    /// Release dtype of unquantized weights and activations (`torch_dtype`; bf16 if absent).
    #[serde(skip)]
    pub dtype: WeightDtype,
    /// Decoder layers loaded by the engine (MTP/NextN layers excluded).
    pub num_layers: u32,
    /// Residual-stream width.
    pub hidden: u64,
    /// Vocabulary size (embedding rows).
    pub vocab: u64,
    /// Query heads.
    pub heads: u64,
    /// KV heads (for MLA: equal to `heads`, informational).
    pub kv_heads: u64,
    /// Query/key head width (for MLA: qk_nope + qk_rope).
    pub head_dim: u64,
    /// Attention layout.
    pub attention: Attention,
    /// Feed-forward block of each decoder layer, in order.
    pub layers: Vec<Ffn>,
    /// MoE shape if any layer is MoE.
    pub moe: Option<MoeShape>,
    /// Dense MLP width (`intermediate_size`; 0 when no layer uses it).
    pub dense_intermediate: u64,
    /// Leading dense layers before the first MoE layer (= `num_layers` for dense models).
    pub first_k_dense_replace: u32,
    /// MTP/NextN layers in the checkpoint; not loaded by the target (they are a draft).
    pub num_nextn_predict_layers: u32,
    /// `max_position_embeddings` of the (text) config: SGLang's default `context_len`, which sizes
    /// its request pool (`max_num_reqs`). `None` when the config does not say.
    pub context_len: Option<u64>,
    /// LM head shares the embedding matrix.
    pub tie_word_embeddings: bool,
    /// Multimodal model with a vision tower.
    pub has_vision: bool,
    /// The checkpoint's architecture is one SGLang lists as multimodal (`configs/model_config.py`
    /// `multimodal_model_archs`: every `…ForConditionalGeneration` tpsim reads, and
    /// `InternVLChatModel`), whether or not tpsim models its tower (`has_vision`): SGLang's
    /// prefill-graph rules key on the name (`tpsim_model::sglang_reserve`).
    pub sglang_multimodal: bool,
    /// The vision tower's size, when `has_vision`.
    pub vision: Option<VisionTower>,
    /// Attention projections carry a bias (Qwen2 QKV bias, `attention_bias`).
    pub attention_bias: bool,
    /// q/k RMSNorm (Qwen3, GLM `use_qk_norm`: per head; MiniMax-M2: over all heads).
    pub qk_norm: bool,
    /// The q/k norm spans all heads (MiniMax-M2 `qk_norm_type = "per_layer"`): each rank holds its
    /// heads' slice of the norm weights and, at tp > 1, the per-token sums of squares are all-reduced
    /// before normalising (SGLang `models/minimax_m2.py` `MiniMaxM2QKRMSNorm`; vLLM
    /// `MiniMaxText01RMSNormTP.forward_qkv`).
    pub qk_norm_full_width: bool,
    /// MoE routers carry an fp32 `e_score_correction_bias` (DeepSeek/GLM noaux_tc; MiniMax-M2
    /// `use_routing_bias`).
    pub routing_bias: bool,
    /// moeroute62 (issue #17): grouped top-k routing's `(n_group, topk_group)` from `config.json`
    /// (DeepSeek-V3 / R1: `(8, 4)`; Kimi-K2, GLM-4.x MoE: `(1, 1)`); `None` where the config states
    /// neither. `sim::decode::passes::moe_route` picks each engine's routing kernels from it.
    pub expert_groups: Option<(u64, u64)>,
    /// EAGLE-3 draft specifics, for draft models.
    pub eagle3: Option<Eagle3>,
    /// Token mixer of each decoder layer, in order (all [`Mixer::Attention`] except in hybrids).
    pub mixers: Vec<Mixer>,
    /// The linear-attention (Gated DeltaNet) shape of hybrid models' [`Mixer::Linear`] layers.
    pub linear_attention: Option<GatedDeltaNet>,
    /// nemotronh (issue #17): the Mamba-2 shape of a Nemotron-H or (families) Granite-4.0-H model's
    /// [`Mixer::Linear`] layers (`llm::nemotron_h`, `llm::granite_hybrid`); `None` for other models.
    pub mamba2: Option<Mamba2>,
    /// families22 (issue #17): the short-conv shape of an LFM2 / LFM2-MoE model's [`Mixer::Linear`]
    /// layers (`llm::lfm2`); `None` for other models.
    pub short_conv: Option<ShortConv>,
    /// families23 (issue #17): MiMo-V2-Flash's two attention kinds (`llm::mimo_v2`): the global kind's
    /// heads are [`ModelSpec::attention`]'s, this holds the value width and the sliding kind's heads;
    /// `None` for other models.
    pub mimo_v2: Option<MimoV2Attention>,
    /// Full attention multiplies its output by a sigmoid gate that `q_proj` produces alongside the
    /// queries (Qwen3.5 `attn_output_gate`): the query projection is twice as wide.
    pub attn_output_gate: bool,
    /// Tokens a [`Mixer::SlidingAttention`] layer attends to (`sliding_window`, gpt-oss: 128); `None`
    /// for models without sliding layers.
    pub sliding_window: Option<u64>,
    /// Positions per chunk of a [`Mixer::ChunkedAttention`] layer (Llama-4 `attention_chunk_size`,
    /// 8192); `None` for models without chunked layers.
    pub attention_chunk_size: Option<u64>,
    /// Layers without rotary embedding (Llama-4's global layers, from `no_rope_layers` or every 4th);
    /// informational: NoPE changes no cost.
    pub nope_layers: Vec<u32>,
    /// DeepSeek sparse attention (DSA/NSA: DeepSeek-V3.2, GLM-5): the lightning indexer every layer
    /// carries (`llm::dsa`); `None` for other models.
    pub indexer: Option<Indexer>,
    /// How the weights and the KV cache are stored.
    #[serde(skip)]
    pub quantization: Quantization,
    /// h3: Mllama's cross-attention layer ids (`text_config.cross_attention_layers`); empty elsewhere.
    /// They hold KV like the other layers in SGLang's single pool (per request: the image tokens plus
    /// the sequence); their q/k RMSNorms and two tanh gates are extra weights.
    pub cross_attention_layers: Vec<u32>,
    /// families2 (issue #17): the MoE router weight is fp32 whatever the checkpoint stores (Bailing
    /// `router_dtype = "fp32"`, `llm::bailing`); MiniMax-M2's always is (by architecture).
    #[serde(skip)]
    pub router_fp32: bool,
    /// families2 (issue #17): the rotary width vLLM's RoPE cache is built for, when it is not
    /// `head_dim` (`head_dim × partial_rotary_factor` and the like, `llm::partial_rotary`); `None` =
    /// `head_dim`.
    #[serde(skip)]
    pub rotary_dim: Option<u64>,
    /// rope17 (issue #17 point 5): vLLM builds an M-RoPE cache of 4 × `max_position_embeddings`
    /// rows (`llm::partial_rotary`).
    #[serde(skip)]
    pub vllm_mrope: bool,
    /// mem49 (issue #17 point 5): a LongRoPE model (`rope_scaling.type = "longrope"`, the Phi-3
    /// family) and its `original_max_position_embeddings`: both engines build a short-factor cache of
    /// these rows beside the long-factor cache of `max_position_embeddings` rows
    /// (`llm::partial_rotary`); `None` elsewhere.
    #[serde(skip)]
    pub longrope_original: Option<u64>,
    /// rope51 (issue #17): the rows of SGLang's `DeepseekScalingRotaryEmbedding` cache for a
    /// DeepSeek-MLA model with `rope_scaling` (`original_max_position_embeddings × factor`,
    /// `llm::mla_rope`); `None` for other models and an MLA model without scaling.
    #[serde(skip)]
    pub deepseek_yarn_rows: Option<u64>,
    /// rope51: SGLang 0.5.9 builds the DSA indexer a RoPE cache of its own (its `is_neox_style`
    /// differs from the attention's, `llm::mla_rope`). Read only for DSA models.
    #[serde(skip)]
    pub indexer_rope_apart_0_5_9: bool,
    /// grok52: vLLM ≥ 0.13.0 builds the DSA indexer a RoPE cache of its own (`is_neox_style = not
    /// indexer_rope_interleave` against the attention's False, `rope_cache`): true unless the config
    /// sets `indexer_rope_interleave`. Read only for DSA models.
    #[serde(skip)]
    pub indexer_rope_apart_vllm: bool,
    /// grok52 (issue #17): the cos/sin cache (float32 on CUDA) SGLang's Grok attention builds in **every
    /// layer** (`grok.py` `Grok1Attention`: a `ScalingRotaryEmbedding` per layer when the config has
    /// `rope_type`, outside `get_rope`'s shared cache), as (rows, width): rows
    /// `original_max_position_embeddings × scaling_factor`, width the rotary dim
    /// (`llm::grok::layer_rope`). `None` for other models and a Grok config without `rope_type`.
    #[serde(skip)]
    pub grok_layer_rope: Option<(u64, u64)>,
    /// rope51 (issue #17): kernels a full-attention layer's rotary launches beyond the template's one
    /// fused kernel (`forward::attention_kernels`): SGLang's LongRoPE in PyTorch ops
    /// (`llm::partial_rotary::sglang_longrope_kernels`), set by [`ModelSpec::serve_as_sglang`]; 0 as lowered.
    #[serde(skip)]
    pub rotary_extra_kernels: u32,
    /// families12 (issue #17): the text tower of a `Mistral3ForConditionalGeneration` is Ministral 3
    /// (`text_config.model_type = "ministral3"`: Ministral 3 3B/8B/14B, Devstral Small 2). Same weights
    /// and KV as the Mistral text tower (SGLang `models/ministral3.py` subclasses `LlamaForCausalLM`;
    /// vLLM maps it to its Mistral/Llama model); only the engine releases that know the model type
    /// differ (`sim::scenario::first_release`). families31: also the text model under its own class
    /// (`Ministral3ForCausalLM`, lowered as [`Architecture::Mistral`]). `false` for every other model.
    #[serde(skip)]
    pub ministral3: bool,
    /// families17 (issue #17): a dense ERNIE-4.5 whose config names `Ernie4_5_ForCausalLM` (the
    /// checkpoints' first, remote-code name: SGLang's only one, vLLM's until 0.10.0) rather than
    /// `Ernie4_5ForCausalLM` (transformers' name, vLLM's from 0.10.1). Same weights; only the engine
    /// releases that serve it differ (`sim::scenario::ernie45`). `false` for every other model.
    #[serde(skip)]
    pub ernie45_legacy_name: bool,
    /// families21 (issue #17): a MiniCPM3 model as vLLM builds it (`llm::minicpm`): plain attention
    /// over per-head K/V of `qk_nope + qk_rope` instead of the MLA latent (the cell is
    /// [`ModelSpec::vllm_minicpm3_kv_cell`]), no absorbed `w_kc` / `w_vc` copies, `kv_b_proj` read
    /// every step. Set by `sim::scenario` under vLLM ([`ModelSpec::serve_minicpm3_as_vllm`]); `false`
    /// as lowered (SGLang's layout) and for every other model.
    #[serde(skip)]
    pub mla_as_mha: bool,
    /// hybrid50 (issue #17): the LM head is held (and multiplied) in float32: SGLang's
    /// `self.lm_head = self.lm_head.float()` in `FalconH1ForCausalLM` (0.5.3 – 0.5.23 wheels) and
    /// `Qwen3NextForCausalLM` (0.5.2 – 0.5.5.post3; gone in 0.5.6). A tied head is the embedding
    /// module, so the embedding turns float32 with it. Set by `sim::scenario` under SGLang
    /// ([`ModelSpec::serve_as_sglang`]); `false` as lowered and under vLLM.
    #[serde(skip)]
    pub lm_head_fp32: bool,
    /// hybrid50 (issue #17): Falcon-H1's attention block also holds `q_norm` / `k_norm`
    /// (`RMSNorm(head_dim)` each, SGLang `models/falcon_h1.py` `FalconH1HybridAttentionDecoderLayer`,
    /// 0.5.3 – 0.5.9), built but never loaded nor called. Set with [`ModelSpec::lm_head_fp32`] under
    /// SGLang; vLLM's `falcon_h1.py` builds none.
    #[serde(skip)]
    pub unused_qk_norms: bool,
    /// hybrids51 (issue #17): LFM2's short-conv `in_proj` / `out_proj` are held at the model dtype
    /// whatever the quantization: vLLM's `ShortConv` before 0.27.0 builds them without
    /// `quant_config`. Set by `sim::scenario` under vLLM ([`ModelSpec::serve_lfm2_as_vllm`]); `false`
    /// as lowered (SGLang quantizes them) and for every other model.
    #[serde(skip)]
    pub conv_proj_unquantized: bool,
    /// hybrids51 (issue #17): MiniCPM / MiniCPM3 as SGLang runs them: the muP scalings (`scale_emb`,
    /// `scale_depth`, `scale_width`) as separate elementwise kernels and MiniCPM's float casts around
    /// the rotary (`llm::minicpm`). Set by `sim::scenario` under SGLang
    /// ([`ModelSpec::serve_as_sglang`]); `false` as lowered and under vLLM.
    #[serde(skip)]
    pub sglang_mup: bool,
    /// families25 (issue #17): identity experts beside the routed ones (LongCat-Flash's
    /// `zero_expert_num`, `llm::longcat`): extra router columns and correction-bias entries, no
    /// expert weights; 0 for other models.
    #[serde(skip)]
    pub zero_experts: u64,
    /// families32 (issue #17): Kimi-K3's own pieces beside Kimi-Linear's layers (`llm::kimi_k3`);
    /// `None` for other models.
    #[serde(skip)]
    pub kimi_k3: Option<kimi_k3::KimiK3>,
    /// dsv4run55 (issue #17): DeepSeek-V4's geometry as read (`llm::deepseek_v4`); the memory plan
    /// sizes its weights (`deepseek_v4_weights`) and pools (`deepseek_v4_pools`) from it.
    pub deepseek_v4: Option<deepseek_v4::Geometry>,
    /// families38 (issue #17): MiniMax-M3's geometry as read (`llm::minimax_m3`): its MSA index
    /// pieces a rank, its SGLang cell (`MiniMaxSparseKVPool`) and its sparse reads; `None` for other
    /// models.
    #[serde(skip)]
    pub minimax_m3: Option<minimax_m3::Geometry>,
}

impl ModelSpec {
    /// Parse a HuggingFace `config.json` and lower it with the given quantization.
    ///
    /// Errors: invalid JSON, no/unsupported architecture (listing the supported ones), a missing or
    /// zero required field (named), an `experts` quantization override on a dense model.
    pub fn from_config_json(text: &str, quant: Quantization) -> Result<ModelSpec, ModelError> {
        let cfg = ModelConfig::from_json(text)?;
        Self::from_config(&cfg, quant)
    }

    /// Lower an already parsed config; a model past [`MAX_MODEL_BYTES`] of weights is refused.
    pub fn from_config(cfg: &ModelConfig, quant: Quantization) -> Result<ModelSpec, ModelError> {
        let spec = config::lower(cfg, quant)?;
        let bytes = spec.weight_breakdown(1).total();
        if bytes > MAX_MODEL_BYTES {
            return Err(ModelError::TooLarge {
                bytes,
                max: MAX_MODEL_BYTES,
            });
        }
        Ok(spec)
    }

    /// Whether this is an EAGLE-3 draft model.
    pub fn is_eagle3_draft(&self) -> bool {
        self.eagle3.is_some()
    }

    /// Bytes of one activation element (bf16/fp16: 2), the unit of allreduce and logits messages.
    pub fn activation_bytes(&self) -> u64 {
        self.dtype.float_bytes().unwrap_or(2)
    }

    /// Check that SGLang would accept this TP size.
    ///
    /// - `tp ≥ 1`;
    /// - attention heads divisible by `tp` (heads are split across ranks, SGLang `linear.py`
    ///   `QKVParallelLinear` / MLA `num_local_heads = num_heads // tp`);
    /// - GQA: `kv_heads % tp == 0`, or `tp % kv_heads == 0` (then SGLang replicates each KV head on
    ///   `tp / kv_heads` ranks, `QKVParallelLinear.num_kv_head_replicas`);
    /// - dense MLP, expert and shared-expert intermediate widths divisible by `tp`
    ///   (`MergedColumnParallelLinear` / `FusedMoE` shard the intermediate dimension);
    /// - quantized shards hold whole scale groups/blocks: `intermediate / tp` a multiple of the int4
    ///   group, the fp8 block or the NVFP4 block (SGLang `fp8.py` raises "… is not divisible by weight
    ///   quantization block_n"; group-quantized MoE kernels need whole groups);
    /// - vision tower heads divisible by `tp` (SGLang `VisionAttention` with `use_qkv_parallel`),
    ///   except InternViT's (families26: the engines pad or replicate, `llm::internvl`).
    pub fn validate_tp(&self, tp: u32) -> Result<(), ModelError> {
        self.validate_parallel(tp, 1)
    }

    /// [`ModelSpec::validate_tp`] with expert parallelism: at `ep_size > 1` (SGLang `--ep-size`, equal
    /// to tp) each rank holds `E / ep_size` whole experts instead of `1/tp` of every expert, so the
    /// expert width is not split and need not divide into quantization blocks per rank; instead the
    /// routed experts must divide evenly over the ranks (SGLang `FusedMoE`:
    /// `num_local_experts = num_experts // ep_size`).
    pub fn validate_parallel(&self, tp: u32, ep_size: u32) -> Result<(), ModelError> {
        let fail = |reason: String| {
            Err(ModelError::InvalidTp {
                tp,
                model: self.name.clone(),
                reason,
            })
        };
        if tp == 0 {
            return fail("tp must be at least 1".into());
        }
        let t = u64::from(tp);
        // dsv4run55 (issue #17): DeepSeek-V4 splits its heads, `o_groups`, the expert width and the
        // padded vocabulary by tp (`deepseek_v4::Geometry::sglang_rank_params`, its error text).
        if let Some(g) = &self.deepseek_v4 {
            g.sglang_rank_params(t)?;
            // dsv4_64: SGLang's quantized-MoE check on the checkpoint's `weight_block_size`, skipped
            // with `SGLANG_SHARED_EXPERT_TP1`; the routed experts' own width rule is their MoE method's,
            // by backend (`sim::scenario::dsv4`), so the generic widths below are not applied.
            let block_n = self.quantization.weights.output_granule();
            if let Err(reason) = g.sglang_quantized_moe_check(t, u64::from(ep_size), block_n) {
                return fail(reason);
            }
        }
        if !self.heads.is_multiple_of(t) {
            return fail(format!(
                "{} attention heads are not divisible by tp {tp} (expected a tp that divides {})",
                self.heads, self.heads
            ));
        }
        if let Attention::Gqa { kv_heads, .. } = self.attention
            && !kv_heads.is_multiple_of(t)
            && !t.is_multiple_of(kv_heads)
        {
            return fail(format!(
                "{kv_heads} KV heads: tp {tp} neither divides them nor is a multiple of them \
                 (expected kv_heads % tp == 0 or tp % kv_heads == 0)"
            ));
        }
        // families3 (issue #17): OLMo-2 / OLMoE gather k across the ranks and normalise it with a
        // `kv_heads × head_dim`-wide norm (`llm::olmo2`); with replicated KV heads (tp > kv_heads)
        // the gathered k is tp × head_dim wide and the norm does not fit it.
        if let Attention::Gqa { kv_heads, .. } = self.attention
            && self.arch.whole_width_qk_norm()
            && t > kv_heads
        {
            return fail(format!(
                "{kv_heads} KV heads: the whole-width k norm of {:?} does not fit k gathered from tp {tp} \
                 ranks holding replicated KV heads (olmo2.py / olmoe.py `_apply_qk_norm`; expected tp <= {kv_heads})",
                self.arch
            ));
        }
        // families19 (issue #17): Kimi-Linear's KDA heads (`kda.py`: `assert self.num_heads % self.tp_size
        // == 0`).
        if let Some(g) = self.linear_attention
            && matches!(self.arch, Architecture::KimiLinear | Architecture::KimiK3)
            && !g.num_v_heads.is_multiple_of(t)
        {
            return fail(format!(
                "the KDA layers' {} heads are not divisible by tp {tp} (vLLM / SGLang kimi_linear KimiDeltaAttention \
                 asserts num_heads % tp_size == 0; expected a tp that divides {})",
                g.num_v_heads, g.num_v_heads
            ));
        }
        // families27 (issue #17): MiniMax's lightning heads (vLLM 0.11.0 `linear_attn.py`
        // `MiniMaxText01LinearAttention`: `assert self.total_num_heads % self.tp_size == 0`).
        if let Some(g) = self.linear_attention
            && self.arch == Architecture::MiniMaxText01
            && !g.num_v_heads.is_multiple_of(t)
        {
            return fail(format!(
                "the lightning-attention layers' {} heads are not divisible by tp {tp} (vLLM linear_attn.py \
                 MiniMaxText01LinearAttention asserts total_num_heads % tp_size == 0; expected a tp that divides {})",
                g.num_v_heads, g.num_v_heads
            ));
        }
        if let Some(g) = self.linear_attention
            && (!g.num_k_heads.is_multiple_of(t) || !g.num_v_heads.is_multiple_of(t))
        {
            return fail(format!(
                "the linear-attention layers' {} key heads and {} value heads must both be divisible by tp {tp} \
                 (SGLang `qwen3_next.py` shards them with `divide`)",
                g.num_k_heads, g.num_v_heads
            ));
        }
        if let Some(reason) = self.mamba2.as_ref().and_then(|m| nemotron_h::check_tp(m, tp)) {
            return fail(reason);
        }
        // families23 (issue #17): MiMo-V2-Flash's sliding heads and experts (`llm::mimo_v2::check_tp`).
        if let Some(reason) = self
            .mimo_v2
            .as_ref()
            .and_then(|a| mimo_v2::check_tp(a, self.moe.as_ref(), t))
        {
            return fail(reason);
        }
        // families22 (issue #17): LFM2's conv width and LFM2-MoE's experts (`llm::lfm2::check_tp`).
        if let Some(reason) = self
            .short_conv
            .as_ref()
            .and_then(|sc| lfm2::check_tp(sc, self.moe.as_ref(), tp))
        {
            return fail(reason);
        }
        let q = &self.quantization;
        let mut widths: Vec<(&str, u64, WeightFormat)> = Vec::new();
        if self.layers.iter().any(|l| matches!(l, Ffn::Dense { .. })) {
            widths.push((
                "dense MLP intermediate_size",
                self.dense_intermediate,
                q.dense_format(),
            ));
        }
        // families6 (issue #17): Llama-Nemotron NAS layers each have their own MLP width
        // (`llm::nemotron_nas`); every one is column-parallel.
        if self.arch == Architecture::NemotronNas {
            let mut per_layer: Vec<u64> = self
                .layers
                .iter()
                .filter_map(|l| match l {
                    Ffn::Dense { intermediate } => Some(*intermediate),
                    _ => None,
                })
                .collect();
            per_layer.sort_unstable();
            per_layer.dedup();
            for w in per_layer {
                widths.push((
                    "a layer's MLP width (block_configs ffn_mult)",
                    w,
                    q.dense_format(),
                ));
            }
        }
        // families6 (issue #17): both engines' Hunyuan MoE block raises "Tensor parallel size {tp} is
        // greater than the number of experts" (`hunyuan.py` / `hunyuan_v1.py` `HunYuanSparseMoeBlock`).
        if let Some(m) = self.moe
            && self.arch == Architecture::HunYuanMoeV1
            && t > m.n_routed_experts
        {
            return fail(format!(
                "Tensor parallel size {tp} is greater than the number of experts {} (SGLang / vLLM                  HunYuanSparseMoeBlock; expected tp <= {})",
                m.n_routed_experts, m.n_routed_experts
            ));
        }
        if let Some(m) = self.moe.filter(|_| self.deepseek_v4.is_none()) {
            if ep_size > 1 {
                if !m.n_routed_experts.is_multiple_of(u64::from(ep_size)) {
                    return fail(format!(
                        "{} routed experts do not divide over ep_size {ep_size} (expected an ep_size \
                         that divides {})",
                        m.n_routed_experts, m.n_routed_experts
                    ));
                }
            } else {
                widths.push(("moe_intermediate_size", m.moe_intermediate, q.expert_format()));
            }
            if m.n_shared_experts > 0 {
                widths.push((
                    "shared-expert intermediate",
                    m.moe_intermediate * m.n_shared_experts,
                    q.shared_format(),
                ));
            }
        }
        for (what, width, fmt) in widths {
            if !width.is_multiple_of(t) {
                return fail(format!("{what} {width} is not divisible by tp {tp}"));
            }
            let shard = width / t;
            for g in [fmt.input_granule(), fmt.output_granule()].into_iter().flatten() {
                if g > 0 && !shard.is_multiple_of(g) {
                    // Routed experts need not be split: expert parallelism keeps them whole.
                    let or_ep = if what == "moe_intermediate_size" {
                        ", or expert parallelism: ep_size = tp"
                    } else {
                        ""
                    };
                    return fail(format!(
                        "{what} {width} / tp {tp} = {shard} per rank is not a multiple of the {} \
                         quantization group/block of {g} (expected a tp with {width} / tp divisible by {g}{or_ep})",
                        fmt.dtype.name()
                    ));
                }
            }
        }
        // families26 (issue #17): InternViT's heads need not divide: SGLang pads dummy heads, vLLM
        // replicates the attention (`llm::internvl`; SGLang < 0.4.10's refusal: `sim::scenario::internvl`).
        // vision54: Kimi-K3's MoonViT3d is replicated (`llm::kimi_k3_vit`), neither check applies.
        if let Some(v) = self.vision
            && !v.heads.is_multiple_of(t)
            && !matches!(
                v.family,
                VisionFamily::InternVit { .. } | VisionFamily::MoonVit3d { .. }
            )
        {
            return fail(format!(
                "the vision tower's {} heads are not divisible by tp {tp} (SGLang shards vision attention \
                 by heads)",
                v.heads
            ));
        }
        // h3: the generic towers' MLP is column-parallel too: vLLM 0.11.0 `layers/linear.py`
        // `MergedColumnParallelLinear` asserts every output size divides by tp (Qwen2.5-VL's 3420 fails
        // at tp 8), and SGLang shards it the same way.
        if let Some(v) = self.vision
            && !matches!(v.family, VisionFamily::MoonVit | VisionFamily::MoonVit3d { .. })
            && !v.intermediate.is_multiple_of(t)
        {
            return fail(format!(
                "the vision tower's MLP width {} is not divisible by tp {tp} (the engines shard it with \
                 MergedColumnParallelLinear / ColumnParallelLinear)",
                v.intermediate
            ));
        }
        // families7 (issue #17): the GLM-4V merger's SwiGLU (`llm::glm4v`) is column-parallel too.
        if let Some(v) = self.vision
            && v.family == VisionFamily::Glm4vVit
            && !v.projector_input.is_multiple_of(t)
        {
            return fail(format!(
                "the vision merger's MLP width {} is not divisible by tp {tp} (both engines shard it with \
                 MergedColumnParallelLinear)",
                v.projector_input
            ));
        }
        Ok(())
    }

    /// KV-cache bytes per token per rank ("cell size", `reference/engine-memory.md`):
    ///
    /// - MLA: `(kv_lora_rank + qk_rope_head_dim) × layers × dtype bytes`, **not** divided by TP (the
    ///   latent cache is replicated on every rank). Kimi-K2.5 bf16: 576 × 61 × 2 = 70,272.
    /// - GQA: `max(1, kv_heads / tp) × (head_dim + v_head_dim) × layers × dtype bytes`
    ///   (v_head_dim = head_dim). Llama-3.1-8B at tp 1: 8 × 256 × 32 × 2 = 131,072.
    ///
    /// `layers` is this model's own count of KV-holding layers ([`ModelSpec::kv_layers`]: all of
    /// `num_hidden_layers` except in hybrids, whose linear-attention layers hold no KV; an EAGLE-3
    /// draft: 1). gpt-oss's sliding-window layers count like full ones (vLLM reports its KV capacity
    /// that way, `memory::vllm_kv_groups`): gpt-oss-20b at tp 1: 8 × 128 × 24 × 2 = 49,152. Qwen3.5-397B at tp 4: 1 × 2 × 256 × 15 × 2 = 15,360. The dtype is the
    /// quantization's `kv_cache_dtype` (`auto` = model dtype). `tp = 0` is treated as 1.
    pub fn kv_cell_bytes(&self, tp: u32) -> u64 {
        let t = u64::from(tp.max(1));
        let fp4 = self.quantization.kv_cache_dtype == super::llm::quant::KvCacheDtype::Fp4E2m1;
        let dt = self.quantization.kv_cache_dtype.bytes(self.dtype);
        let layers = u64::from(self.kv_layers());
        // fp4 (SGLang's MLATokenToKVPoolFP4 / MHATokenToKVPoolFP4 sizing, engine-memory.md "Cell size"):
        // half the 1-byte cell for the packed values, plus one 1-byte scale per 16 elements.
        // families21 (issue #17): vLLM's MiniCPM3 stores per-head K/V (`llm::minicpm`).
        if self.mla_as_mha
            && let Some(cell) = self.vllm_minicpm3_kv_cell(tp)
        {
            return cell;
        }
        // families38 (issue #17): MiniMax-M3's cell is SGLang's `MiniMaxSparseKVPool` budget (main K/V
        // of every layer plus the sparse layers' index keys; `llm::minimax_m3`, bf16 KV only).
        if let Some(g) = &self.minimax_m3 {
            return g.sglang_kv_bytes_per_token(t);
        }
        // families23 (issue #17): MiMo-V2-Flash's global and sliding layers each at their own cell
        // (`llm::mimo_v2`; SGLang's own count by release is `ModelSpec::mimo_v2_sglang_cell`).
        if let Some((full, swa)) = self.mimo_v2_layer_cells(tp) {
            let n_swa = u64::from(self.sliding_layers());
            return full * (layers - n_swa) + swa * n_swa;
        }
        match self.attention {
            Attention::Mla {
                kv_lora_rank,
                qk_rope_head_dim,
                ..
            } => {
                let dim = kv_lora_rank + qk_rope_head_dim;
                let cell = dim.saturating_mul(layers).saturating_mul(dt);
                if fp4 {
                    cell / 2 + (dim / 16).saturating_mul(layers).saturating_mul(dt)
                } else {
                    cell
                }
            }
            Attention::Gqa {
                kv_heads, head_dim, ..
            } => {
                let n = (kv_heads / t).max(1);
                let cell = n
                    .saturating_mul(2 * head_dim)
                    .saturating_mul(layers)
                    .saturating_mul(dt);
                if fp4 {
                    // Scales for K and V: n × head_dim × layers × 2 × 1 B / 16. (Spring-2026 builds add
                    // a shared fp8 dequant workspace of n × head_dim × 2 B per token: not included.)
                    cell / 2
                        + n.saturating_mul(head_dim)
                            .saturating_mul(layers)
                            .saturating_mul(2 * dt)
                            / 16
                } else {
                    cell
                }
            }
        }
    }

    /// families23 (issue #17): MiMo-V2-Flash's KV bytes per token in one global and one sliding layer
    /// on a rank of `tp` (`llm::mimo_v2`); `None` for other models.
    pub fn mimo_v2_layer_cells(&self, tp: u32) -> Option<(u64, u64)> {
        let a = self.mimo_v2?;
        let t = u64::from(tp.max(1));
        let dt = self.quantization.kv_cache_dtype.bytes(self.dtype);
        Some((
            a.layer_cell(false, self.kv_heads, self.head_dim, t, dt),
            a.layer_cell(true, self.kv_heads, self.head_dim, t, dt),
        ))
    }

    /// grok52 (issue #17): vLLM's cell per token for MiMo-V2-Flash (and Step-3.5-Flash, lowered onto
    /// it) on a rank of `tp`. `pad_v`: 0.14 – 0.19 pad V to the q/k width
    /// ([`MimoV2Attention::vllm_layer_cell`]); vllmnew53: from 0.20 (`models/mimo_v2_flash.py` 0.20.0,
    /// `models/mimo_v2.py` 0.21.0 … 0.34.0) the layer passes `head_size_v = v_head_dim` to
    /// `Attention` and the DiffKV backends' page holds K and V at their own widths
    /// (`v1/kv_cache_interface.py` `FullAttentionSpec` / `SlidingWindowSpec.real_page_size_bytes`:
    /// block × kv heads × (head_size + head_size_v) × dtype), i.e. [`MimoV2Attention::layer_cell`].
    /// With the hybrid KV-cache manager (`hybrid`) the global and sliding pages differ at tp < 8
    /// (1 against 2 KV heads a rank, …): `v1/core/kv_cache_utils.py` `unify_kv_cache_spec_page_size`
    /// multiplies the smaller page's block size, so every layer's page is the larger one's: layers ×
    /// the larger per-token bytes (vLLM's groups then split them). Without it
    /// (`--disable-hybrid-kv-cache-manager`: every layer full attention, one
    /// `UniformTypeKVCacheSpecs` group) each layer keeps its own page: the sum. `None` for other models.
    pub fn mimo_v2_vllm_cell(&self, tp: u32, hybrid: bool, pad_v: bool) -> Option<u64> {
        let (full, swa) = self.mimo_v2_vllm_layer_cells(tp, pad_v)?;
        let n_swa = u64::from(self.sliding_layers());
        let n_full = u64::from(self.kv_layers()) - n_swa;
        Some(if hybrid {
            (n_full + n_swa) * full.max(swa)
        } else {
            n_full * full + n_swa * swa
        })
    }

    /// families39 (issue #17): the tokens a block holds in vLLM's full and sliding layers, as multiples
    /// of `--block-size`, once `unify_kv_cache_spec_page_size` has raised the smaller page's block size
    /// to the largest page (vLLM 0.19.0 `v1/core/kv_cache_utils.py`, 0.34.0
    /// `v1/core/kv_cache_planning.py`): (largest ÷ full layer's bytes a token, largest ÷ sliding
    /// layer's), the page sizes of the two kinds ([`ModelSpec::mimo_v2_vllm_cell`]'s). Gemma 4 31B at
    /// tp 2: 4,096 and 8,192 B a token → (2, 1). `None` for other models, or where the larger is not a
    /// whole multiple of the smaller (vLLM raises `NotImplementedError` there; tpsim keeps 1).
    pub fn mimo_v2_vllm_block_mults(&self, tp: u32, pad_v: bool) -> Option<(u64, u64)> {
        let (full, swa) = self.mimo_v2_vllm_layer_cells(tp, pad_v)?;
        let (full, swa) = (full.max(1), swa.max(1));
        let max = full.max(swa);
        (max % full == 0 && max % swa == 0).then_some((max / full, max / swa))
    }

    /// vLLM's KV bytes a token of one full and one sliding layer on a rank of `tp` for a two-kind
    /// model (`llm::mimo_v2`), V padded to the q/k width where `pad_v` (grok52: MiMo-V2-Flash under
    /// 0.14 – 0.19); `None` for other models.
    fn mimo_v2_vllm_layer_cells(&self, tp: u32, pad_v: bool) -> Option<(u64, u64)> {
        let a = self.mimo_v2?;
        let t = u64::from(tp.max(1));
        let dt = self.quantization.kv_cache_dtype.bytes(self.dtype);
        let cell = |sliding| {
            if pad_v {
                a.vllm_layer_cell(sliding, self.kv_heads, self.head_dim, t, dt)
            } else {
                a.layer_cell(sliding, self.kv_heads, self.head_dim, t, dt)
            }
        };
        Some((cell(false), cell(true)))
    }

    /// families23 (issue #17): SGLang's cell per token for MiMo-V2-Flash by release
    /// ([`MimoV2Attention::sglang_cell`]: before 0.5.9 the global cell counts every layer); `None`
    /// for other models.
    pub fn mimo_v2_sglang_cell(&self, tp: u32, before_0_5_9: bool) -> Option<u64> {
        let a = self.mimo_v2?;
        let (full, swa) = self.mimo_v2_layer_cells(tp)?;
        let n_swa = u64::from(self.sliding_layers());
        let n_full = u64::from(self.kv_layers()) - n_swa;
        Some(a.sglang_cell(before_0_5_9, full, swa, (n_full, n_swa)))
    }

    /// Bytes of weights one TP rank loads (SGLang sharding; see [`ModelSpec::weight_breakdown`] for the
    /// rules and their sources). `tp = 0` is treated as 1; call [`ModelSpec::validate_tp`] first.
    pub fn weight_bytes_per_rank(&self, tp: u32) -> Bytes {
        Bytes(self.weight_breakdown(tp).total())
    }
}

// h2 (issue #16): DeepSeek-V2 / DSA / Kimi-VL tests.
#[cfg(test)]
mod tests_dsa;
