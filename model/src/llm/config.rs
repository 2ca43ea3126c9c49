//! Reading a HuggingFace `config.json` and lowering it to a [`ModelSpec`].
//!
//! Parsing is permissive (unknown keys are ignored: real configs carry dozens of training-only
//! fields) but every field the cost model needs is required by name, per architecture.

use serde::Deserialize;

use super::quant::{Quantization, WeightDtype};
use super::{
    Architecture, Attention, Eagle3, Ffn, GatedDeltaNet, Mixer, ModelError, ModelSpec, MoeShape, VisionTower,
};

/// The subset of a HuggingFace `config.json` tpsim reads. Every field is optional here; the lowering
/// decides per architecture which ones are required.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct ModelConfig {
    /// Model class names, e.g. `["DeepseekV3ForCausalLM"]`; the first one decides the architecture.
    #[serde(default)]
    pub architectures: Option<Vec<String>>,
    /// HuggingFace `model_type` (informational).
    #[serde(default)]
    pub model_type: Option<String>,
    /// Hub id or path the config was saved from, if recorded (used as the model name).
    #[serde(default, rename = "_name_or_path")]
    pub name_or_path: Option<String>,
    /// Nested language-model config of multimodal wrappers (Kimi-K2.5).
    #[serde(default)]
    pub text_config: Option<Box<ModelConfig>>,
    /// Vision tower config of multimodal wrappers (kept as raw JSON: its keys vary by family).
    #[serde(default)]
    pub vision_config: Option<serde_json::Value>,
    /// families41 (issue #17): Qwen3-Omni's thinker (`text_config`, `vision_config`, `audio_config`;
    /// `llm::qwen3_omni`).
    #[serde(default)]
    pub thinker_config: Option<Box<ModelConfig>>,
    /// families14 (issue #17): the language model of `InternVLChatModel` (`llm::internvl`).
    #[serde(default)]
    pub llm_config: Option<Box<ModelConfig>>,
    /// families14: InternVL's pixel-shuffle ratio (`downsample_ratio`, 0.5 in every published config).
    #[serde(default)]
    pub downsample_ratio: Option<f64>,
    /// families14: the InternViT block whose output InternVL projects (`select_layer`, -1).
    #[serde(default)]
    pub select_layer: Option<i64>,
    /// Weight dtype of the release (`torch_dtype`, renamed `dtype` by transformers ≥ 4.56).
    #[serde(default)]
    pub torch_dtype: Option<String>,
    /// Newer spelling of `torch_dtype`.
    #[serde(default)]
    pub dtype: Option<String>,
    /// Residual-stream width.
    #[serde(default)]
    pub hidden_size: Option<u64>,
    /// Decoder layers (excluding MTP/NextN layers).
    #[serde(default)]
    pub num_hidden_layers: Option<u64>,
    /// Query heads.
    #[serde(default)]
    pub num_attention_heads: Option<u64>,
    /// KV heads (GQA); defaults to `num_attention_heads`.
    #[serde(default)]
    pub num_key_value_heads: Option<u64>,
    /// Per-head width; defaults to `hidden_size / num_attention_heads`.
    #[serde(default)]
    pub head_dim: Option<u64>,
    /// Dense MLP intermediate width.
    #[serde(default)]
    pub intermediate_size: Option<u64>,
    /// Vocabulary size.
    #[serde(default)]
    pub vocab_size: Option<u64>,
    /// LM head shares the embedding matrix.
    #[serde(default)]
    pub tie_word_embeddings: Option<bool>,
    /// Bias on the attention projections (Llama-style configs; Qwen2 always has a QKV bias).
    #[serde(default)]
    pub attention_bias: Option<bool>,
    /// Per-head RMSNorm on q and k (GLM-4.5 `use_qk_norm`; Qwen3 always has it).
    #[serde(default)]
    pub use_qk_norm: Option<bool>,
    /// MLA query compression rank (`null` = no compression, DeepSeek-V2-Lite style).
    #[serde(default)]
    pub q_lora_rank: Option<u64>,
    /// MLA latent KV rank.
    #[serde(default)]
    pub kv_lora_rank: Option<u64>,
    /// MLA per-head non-rotary q/k width.
    #[serde(default)]
    pub qk_nope_head_dim: Option<u64>,
    /// MLA rotary q/k width (shared rotary key).
    #[serde(default)]
    pub qk_rope_head_dim: Option<u64>,
    /// MLA per-head value width.
    #[serde(default)]
    pub v_head_dim: Option<u64>,
    /// Routed experts (DeepSeek/GLM spelling).
    #[serde(default)]
    pub n_routed_experts: Option<u64>,
    /// Routed experts (Qwen MoE spelling).
    #[serde(default)]
    pub num_experts: Option<u64>,
    /// Routed experts (Mixtral/MiniMax spelling).
    #[serde(default)]
    pub num_local_experts: Option<u64>,
    /// MiniMax-M2: shared-expert width (0 in every published MiniMax-M2.x config; tpsim accepts only 0).
    #[serde(default)]
    pub shared_intermediate_size: Option<u64>,
    /// MiniMax-M2: the router adds an fp32 `e_score_correction_bias` (SGLang `use_routing_bias`,
    /// default false).
    #[serde(default)]
    pub use_routing_bias: Option<bool>,
    /// MiniMax-M2: `"per_layer"` = one RMSNorm over all heads' q (and all k) at once, the only type
    /// SGLang's `minimax_m2.py` accepts (default `"per_layer"`).
    #[serde(default)]
    pub qk_norm_type: Option<String>,
    /// Experts each token is routed to.
    #[serde(default)]
    pub num_experts_per_tok: Option<u64>,
    /// Per-expert intermediate width. families6 (issue #17): Hunyuan writes it as one value per
    /// layer; a list whose values are all equal is read as that value (`uniform_u64`).
    #[serde(default, deserialize_with = "uniform_u64")]
    pub moe_intermediate_size: Option<u64>,
    /// Shared experts (each of `moe_intermediate_size`).
    #[serde(default)]
    pub n_shared_experts: Option<u64>,
    /// Leading dense layers before the MoE layers (DeepSeek/GLM).
    #[serde(default)]
    pub first_k_dense_replace: Option<u64>,
    /// Every how many layers a MoE layer appears (DeepSeek; 1 = all after the dense prefix); families23
    /// (issue #17): MiMo-V2-Flash gives a 0/1 per layer instead (`LayerFreq`).
    #[serde(default)]
    pub moe_layer_freq: Option<LayerFreq>,
    /// Qwen MoE: every how many layers a MoE layer appears.
    #[serde(default)]
    pub decoder_sparse_step: Option<u64>,
    /// Qwen MoE: layers forced dense.
    #[serde(default)]
    pub mlp_only_layers: Option<Vec<u64>>,
    /// MTP/NextN layers shipped with the checkpoint (not loaded by the target).
    #[serde(default)]
    pub num_nextn_predict_layers: Option<u64>,
    /// Longest sequence the model was trained for; SGLang's default `context_len`.
    #[serde(default)]
    pub max_position_embeddings: Option<u64>,
    /// EAGLE-3: reduced draft vocabulary of the LM head (defaults to `vocab_size`).
    #[serde(default)]
    pub draft_vocab_size: Option<u64>,
    /// EAGLE-3: hidden size of the target whose features the draft fuses (defaults to `hidden_size`).
    #[serde(default)]
    pub target_hidden_size: Option<u64>,
    /// Hybrid models (Qwen3.5): each layer's mixer, `"full_attention"` or `"linear_attention"`.
    #[serde(default)]
    pub layer_types: Option<Vec<String>>,
    /// Hybrid models: every how many layers a full-attention layer appears (used without
    /// `layer_types`: layer i is full attention when (i + 1) % interval == 0).
    #[serde(default)]
    pub full_attention_interval: Option<u64>,
    /// Gated DeltaNet key heads.
    #[serde(default)]
    pub linear_num_key_heads: Option<u64>,
    /// Gated DeltaNet value heads.
    #[serde(default)]
    pub linear_num_value_heads: Option<u64>,
    /// Gated DeltaNet key head width.
    #[serde(default)]
    pub linear_key_head_dim: Option<u64>,
    /// Gated DeltaNet value head width.
    #[serde(default)]
    pub linear_value_head_dim: Option<u64>,
    /// Gated DeltaNet causal-conv kernel width.
    #[serde(default)]
    pub linear_conv_kernel_dim: Option<u64>,
    /// Recurrent-state dtype (`"float32"`, `"bfloat16"`); SGLang's default is float32.
    #[serde(default)]
    pub mamba_ssm_dtype: Option<String>,
    /// Qwen MoE: intermediate width of the (single) shared expert.
    #[serde(default)]
    pub shared_expert_intermediate_size: Option<u64>,
    /// Qwen3.5: sigmoid output gate on full attention (q_proj twice as wide); SGLang's default true.
    #[serde(default)]
    pub attn_output_gate: Option<bool>,
    /// Qwen3.5 spelling of the MTP layer count.
    #[serde(default)]
    pub mtp_num_hidden_layers: Option<u64>,
    /// Tokens a sliding-window attention layer attends to (gpt-oss: 128).
    #[serde(default)]
    pub sliding_window: Option<u64>,
    // h3: vision-language wrappers (Mistral-3).
    /// Mistral-3: patches merged per side by the projector's patch merger (2 → 2×2).
    #[serde(default)]
    pub spatial_merge_size: Option<u64>,
    /// Mistral-3: biases on the projector's `linear_1` / `linear_2` (default false).
    #[serde(default)]
    pub multimodal_projector_bias: Option<bool>,
    /// LLaVA-style: which vision layer's output feeds the projector (−1 = last).
    #[serde(default)]
    pub vision_feature_layer: Option<i64>,
    /// Mllama text tower: ids of the cross-attention layers among `num_hidden_layers`.
    #[serde(default)]
    pub cross_attention_layers: Option<Vec<u64>>,
    // Local/global attention families (issue #16):
    /// Gemma-3: every how many layers a global layer appears (layer i global iff (i + 1) % p == 0).
    /// families5 (issue #17): EXAONE 4 configs spell it as letters (`"LLLG"`), whose length is the
    /// period (SGLang 0.5.9 `exaone4.py`: `len(self.sliding_window_pattern)`).
    #[serde(default)]
    pub sliding_window_pattern: Option<SlidingPattern>,
    /// Llama-4: positions per chunk of the chunked local attention layers.
    #[serde(default)]
    pub attention_chunk_size: Option<u64>,
    /// Llama-4: one flag per layer, 0 = no rotary embedding (NoPE).
    #[serde(default)]
    pub no_rope_layers: Option<Vec<u64>>,
    /// Llama-4: every how many layers a MoE layer appears.
    #[serde(default)]
    pub interleave_moe_layer_step: Option<u64>,
    /// Llama-4: width of the dense (non-MoE) layers' MLP.
    #[serde(default)]
    pub intermediate_size_mlp: Option<u64>,
    // h2 (issue #16): DeepSeek DSA (V3.2, GLM-5) indexer and DeepSeek-V2 routing keys.
    /// DSA indexer query heads (DeepSeek-V3.2: 64, GLM-5: 32).
    #[serde(default)]
    pub index_n_heads: Option<u64>,
    /// DSA indexer head width, also the cached indexer key width (128).
    #[serde(default)]
    pub index_head_dim: Option<u64>,
    /// DSA: tokens each query attends to (2048).
    #[serde(default)]
    pub index_topk: Option<u64>,
    /// presets62 (issue #17): GLM-5.2's per-layer indexer kinds (`full`, `shared`); only an all-`full`
    /// list (every layer its own indexer, as DeepSeek-V3.2 / GLM-5) is modelled.
    #[serde(default)]
    pub indexer_types: Option<Vec<String>>,
    /// DeepSeek routing (`greedy`, `group_limited_greedy`, `noaux_tc`): only `noaux_tc` carries the
    /// fp32 `e_score_correction_bias` (SGLang `models/deepseek_v2.py` `MoEGate`).
    #[serde(default)]
    pub topk_method: Option<String>,
    // fam (issue #16): Phi-3.5-MoE and LLaVA-NeXT keys.
    /// Phi-3.5-MoE: the LM head carries a bias (SGLang 0.5.9 / vLLM 0.11.0 `models/phimoe.py` build
    /// `ParallelLMHead(..., bias=True)` whatever the config says).
    #[serde(default)]
    pub lm_head_bias: Option<bool>,
    /// Set by [`ModelConfig::from_json`] on a nested `text_config` that names `sliding_window` (even
    /// as null): LLaVA-NeXT fills transformers' `MistralConfig` default (4096) only when the key is
    /// absent, and JSON null and absence both read as `None` above.
    #[serde(skip)]
    pub names_sliding_window: bool,
    // families6 (issue #17): Hunyuan MoE keys (`llm::hunyuan`).
    /// Hunyuan: experts per token, one value or one per layer (all equal: `uniform_u64`).
    #[serde(default, deserialize_with = "uniform_u64")]
    pub moe_topk: Option<u64>,
    /// Hunyuan: shared MLPs of `intermediate_size` each, one value or one per layer.
    #[serde(default, deserialize_with = "uniform_u64")]
    pub num_shared_expert: Option<u64>,
    /// Hunyuan: a shared MLP beside the routed experts (`use_mixed_mlp_moe > 0` in the engines).
    #[serde(default)]
    pub use_mixed_mlp_moe: Option<bool>,
    /// families24 (issue #17): Grok-2's residual MLP beside the routed experts (SGLang `grok.py`
    /// `Grok1DecoderLayer`: `getattr(config, "residual_moe", False)`; `llm::grok`).
    #[serde(default)]
    pub residual_moe: Option<bool>,
    // families25 (issue #17): LongCat-Flash's keys (SGLang 0.5.8 `configs/longcat_flash.py`
    // `LongcatFlashConfig`; `llm::longcat`).
    /// LongCat-Flash: decoder layers (each with two attention blocks) when `num_hidden_layers` is absent.
    #[serde(default)]
    pub num_layers: Option<u64>,
    /// LongCat-Flash: the dense MLPs' width (`intermediate_size` when that is absent).
    #[serde(default)]
    pub ffn_hidden_size: Option<u64>,
    /// LongCat-Flash: each real expert's width (`moe_intermediate_size`).
    #[serde(default)]
    pub expert_ffn_hidden_size: Option<u64>,
    /// LongCat-Flash: identity experts the router may pick beside `n_routed_experts`.
    #[serde(default)]
    pub zero_expert_num: Option<u64>,
    /// LongCat-Flash: what a zero expert computes (`"identity"`).
    #[serde(default)]
    pub zero_expert_type: Option<String>,
    /// LongCat-Flash: the router's dtype, spelled so in the config (`"float32"` by default, SGLang's
    /// `LongcatFlashConfig`).
    #[serde(default)]
    pub rounter_params_dtype: Option<String>,
    /// families27 (issue #17): MiniMax-Text-01 / M1's mixer per layer, 0 = lightning (linear) attention,
    /// 1 = softmax attention (vLLM 0.11.0 `minimax_text_01.py` reads `attn_type_list`, else
    /// `decoder_attention_types`; `llm::minimax01`).
    #[serde(default, alias = "decoder_attention_types")]
    pub attn_type_list: Option<Vec<u64>>,
    /// grok52 (issue #17): Grok's top-level RoPE scaling keys (SGLang `grok.py` `get_rope_scaling`:
    /// `getattr(config, "rope_type", None)`, then `scaling_factor`, with
    /// `original_max_position_embeddings` as the cache's base length; `llm::grok::layer_rope`).
    #[serde(default)]
    pub rope_type: Option<String>,
    /// grok52: Grok's RoPE scaling factor (`getattr(config, "scaling_factor", None)`; Grok-2: 16).
    #[serde(default)]
    pub scaling_factor: Option<f64>,
    /// grok52: Grok rotates half of each head (`getattr(config, "rope_rotate_half_dims", False)`).
    #[serde(default)]
    pub rope_rotate_half_dims: Option<bool>,
    /// Hunyuan: per-head width when `head_dim` is absent.
    #[serde(default)]
    pub attention_head_dim: Option<u64>,
    /// Hunyuan: cross-layer attention (KV shared by `cla_share_factor` layers).
    #[serde(default)]
    pub use_cla: Option<bool>,
    /// families6 (issue #17): `DeciLMForCausalLM` (Llama-Nemotron NAS): one `{"attention": {…},
    /// "ffn": {…}}` object per decoder layer, kept as raw JSON (`llm::nemotron_nas`).
    #[serde(default)]
    pub block_configs: Option<serde_json::Value>,
    // nemotronh (issue #17): Nemotron-H keys (`llm::nemotron_h`).
    /// Nemotron-H: one character per block, `M` Mamba-2, `*` attention, `-` MLP, `E` MoE.
    #[serde(default)]
    pub hybrid_override_pattern: Option<String>,
    /// Nemotron-H: Mamba-2 heads.
    #[serde(default)]
    pub mamba_num_heads: Option<u64>,
    /// Nemotron-H: Mamba-2 head width.
    #[serde(default)]
    pub mamba_head_dim: Option<u64>,
    /// Nemotron-H: Mamba-2 B/C groups.
    #[serde(default)]
    pub n_groups: Option<u64>,
    /// Nemotron-H: Mamba-2 state width.
    #[serde(default)]
    pub ssm_state_size: Option<u64>,
    /// Nemotron-H: Mamba-2 causal-conv width.
    #[serde(default)]
    pub conv_kernel: Option<u64>,
    /// Nemotron-H: the Mamba-2 conv1d carries a bias (default true).
    #[serde(default)]
    pub use_conv_bias: Option<bool>,
    /// Nemotron-H MoE: the shared expert's width (per shared expert).
    #[serde(default)]
    pub moe_shared_expert_intermediate_size: Option<u64>,
    /// Nemotron-H latent MoE (Nemotron-3-Super): the experts' latent width (not lowered).
    #[serde(default)]
    pub moe_latent_size: Option<u64>,
    // families (issue #17): Granite-4.0-H keys (`llm::granite_hybrid`).
    /// Granite-4.0-H: Mamba-2 heads.
    #[serde(default)]
    pub mamba_n_heads: Option<u64>,
    /// Granite-4.0-H: Mamba-2 head width.
    #[serde(default)]
    pub mamba_d_head: Option<u64>,
    /// Granite-4.0-H: Mamba-2 B/C groups.
    #[serde(default)]
    pub mamba_n_groups: Option<u64>,
    /// Granite-4.0-H: Mamba-2 state width.
    #[serde(default)]
    pub mamba_d_state: Option<u64>,
    /// Granite-4.0-H: Mamba-2 causal-conv width.
    #[serde(default)]
    pub mamba_d_conv: Option<u64>,
    /// Granite-4.0-H: Mamba-2 inner width over `hidden_size`.
    #[serde(default)]
    pub mamba_expand: Option<u64>,
    /// Granite-4.0-H: the Mamba-2 conv1d carries a bias (default true).
    #[serde(default)]
    pub mamba_conv_bias: Option<bool>,
    /// Granite-4.0-H: the Mamba-2 in/out projections carry biases (default false).
    #[serde(default)]
    pub mamba_proj_bias: Option<bool>,
    // families20 (issue #17): Falcon-H1 keys (`llm::falcon_h1`).
    /// Falcon-H1: the Mamba-2 inner width (null: `mamba_expand × hidden_size`).
    #[serde(default)]
    pub mamba_d_ssm: Option<u64>,
    /// Falcon-H1: the Mamba-2 gated norm carries a weight (default false).
    #[serde(default)]
    pub mamba_rms_norm: Option<bool>,
    // families22 (issue #17): LFM2 / LFM2-MoE keys (`llm::lfm2`).
    /// LFM2: the short conv's kernel length L (it keeps L − 1 past inputs).
    #[serde(default, rename = "conv_L_cache")]
    pub conv_l_cache: Option<u64>,
    /// LFM2: the short conv's in/out projections and conv1d carry biases.
    #[serde(default)]
    pub conv_bias: Option<bool>,
    /// LFM2: the short conv's width (vLLM's `ShortConv(dim=conv_dim)`; SGLang uses `hidden_size`).
    #[serde(default)]
    pub conv_dim: Option<u64>,
    /// LFM2: the MLP's model width (vLLM's `Lfm2MLP(dim=block_dim)`; SGLang uses `hidden_size`).
    #[serde(default)]
    pub block_dim: Option<u64>,
    /// LFM2: the MLP width before `block_auto_adjust_ff_dim` (HF `Lfm2Config`: it replaces
    /// `intermediate_size` when present).
    #[serde(default)]
    pub block_ff_dim: Option<u64>,
    /// LFM2: the MLP width is ⌈int(int(2 · ff / 3) × multiplier) / multiple_of⌉ × multiple_of.
    #[serde(default)]
    pub block_auto_adjust_ff_dim: Option<bool>,
    /// LFM2: the multiplier of the auto-adjusted MLP width.
    #[serde(default)]
    pub block_ffn_dim_multiplier: Option<f64>,
    /// LFM2: the rounding of the auto-adjusted MLP width.
    #[serde(default)]
    pub block_multiple_of: Option<u64>,
    /// LFM2: the attention layers when `layer_types` is absent (HF `Lfm2Config`).
    #[serde(default)]
    pub full_attn_idxs: Option<Vec<u64>>,
    /// LFM2-MoE: the leading layers with a dense MLP.
    #[serde(default)]
    pub num_dense_layers: Option<u64>,
    /// LFM2-MoE: the router's fp32 expert bias.
    #[serde(default)]
    pub use_expert_bias: Option<bool>,
    // families23 (issue #17): MiMo-V2-Flash keys (`llm::mimo_v2`).
    /// MiMo-V2-Flash: 1 for a sliding-window layer, 0 for a global one, per layer.
    #[serde(default)]
    pub hybrid_layer_pattern: Option<Vec<u64>>,
    /// MiMo-V2-Flash: the sliding layers' query heads.
    #[serde(default)]
    pub swa_num_attention_heads: Option<u64>,
    /// MiMo-V2-Flash: the sliding layers' KV heads.
    #[serde(default)]
    pub swa_num_key_value_heads: Option<u64>,
    /// MiMo-V2-Flash: the sliding layers' q/k head width.
    #[serde(default)]
    pub swa_head_dim: Option<u64>,
    /// MiMo-V2-Flash: the sliding layers' value head width.
    #[serde(default)]
    pub swa_v_head_dim: Option<u64>,
    /// MiMo-V2-Flash: the sliding layers carry a per-head attention sink bias.
    #[serde(default)]
    pub add_swa_attention_sink_bias: Option<bool>,
    /// MiMo-V2-Flash: the global layers carry one.
    #[serde(default)]
    pub add_full_attention_sink_bias: Option<bool>,
    /// MiMo-V2-Flash: the window SGLang reads (`config.sliding_window_size`). families24 (issue #17):
    /// Grok-2's config says -1 (no window; SGLang's `grok.py` never reads the key), read as absent.
    #[serde(default, deserialize_with = "negative_as_none")]
    pub sliding_window_size: Option<u64>,
    /// MiMo-V2-Flash: the factor `v` is multiplied by before attention (a kernel of its own).
    #[serde(default)]
    pub attention_value_scale: Option<f64>,
    /// families40 (issue #17): MiMo-V2.5 / V2.5-Pro store q/k/v as one `qkv_proj` (`"fused_qkv"`,
    /// interleaved in `num_key_value_heads` tensor-parallel chunks; `llm::mimo_v2`); `"split"` or
    /// absent: separate projections.
    #[serde(default)]
    pub attention_projection_layout: Option<String>,
    /// families40 (issue #17): MiMo-V2.5's audio encoder (with `vision_config`, SGLang builds both
    /// encoders on every rank); read only to refuse it. families41: Qwen3-Omni's thinker's audio
    /// encoder (`llm::qwen3_omni::audio_tower`).
    #[serde(default)]
    pub audio_config: Option<serde_json::Value>,
    /// MiMo-V2-Flash: the sliding layers' RoPE base (the global layers' is `rope_theta`).
    #[serde(default)]
    pub swa_rope_theta: Option<f64>,
    /// The RoPE base (read for MiMo-V2-Flash, whose two kinds differ). families28 (issue #17):
    /// Step-3.5-Flash spells it one per layer; the first entry is read.
    #[serde(default, deserialize_with = "number_or_first")]
    pub rope_theta: Option<f64>,
    // families28 (issue #17): Step-3.5-Flash keys (`llm::step3p5`; SGLang 0.5.9 `models/step3p5.py`).
    /// Step-3.5: the MoE layers' ids, comma-separated.
    #[serde(default)]
    pub moe_layers_enum: Option<String>,
    /// Step-3.5: the sliding layers' own attention shape.
    #[serde(default)]
    pub attention_other_setting: Option<AttentionOtherSetting>,
    /// Step-3.5: the shared expert's intermediate width.
    #[serde(default)]
    pub share_expert_dim: Option<u64>,
    /// Step-3.5: experts per token.
    #[serde(default)]
    pub moe_top_k: Option<u64>,
    /// Step-3.5: a head-wise sigmoid gate on the attention output (`g_proj`).
    #[serde(default)]
    pub use_head_wise_attn_gate: Option<bool>,
    /// Step-3.5: the KV heads (read where `num_key_value_heads` is absent).
    #[serde(default)]
    pub num_attention_groups: Option<u64>,
    /// sglmem54: Step-3.5's rotated share of the head per layer (0.5 full / 1.0 sliding in the
    /// published config): the engines' `get_rope` builds a cos/sin cache per distinct width.
    #[serde(default)]
    pub partial_rotary_factors: Option<Vec<f64>>,
    // families30 (issue #17): Gemma 4 keys (`llm::gemma4`; transformers 5.25.0
    // `models/gemma4/configuration_gemma4.py` `Gemma4TextConfig`).
    /// Gemma 4: the full-attention layers' head width (transformers' default 512).
    #[serde(default)]
    pub global_head_dim: Option<u64>,
    /// Gemma 4: the full-attention layers' KV heads (read where `attention_k_eq_v` is set).
    #[serde(default)]
    pub num_global_key_value_heads: Option<u64>,
    /// Gemma 4: the full-attention layers reuse the key projection as values.
    #[serde(default)]
    pub attention_k_eq_v: Option<bool>,
    /// Gemma 4: the last layers that read an earlier layer's KV (E2B / E4B; refused).
    #[serde(default)]
    pub num_kv_shared_layers: Option<u64>,
    /// Gemma 4: the per-layer-embedding width (E2B / E4B; transformers' default 256; refused > 0).
    #[serde(default)]
    pub hidden_size_per_layer_input: Option<u64>,
    /// Gemma 4: a MoE block beside the dense MLP in every layer (26B-A4B).
    #[serde(default)]
    pub enable_moe_block: Option<bool>,
    /// Gemma 4: experts per token of the MoE block.
    #[serde(default)]
    pub top_k_experts: Option<u64>,
    /// Granite-4.0-H: `"nope"` (no rotary embedding) or `"rope"`.
    #[serde(default)]
    pub position_embedding_type: Option<String>,
    // families (issue #17): ERNIE-4.5 MoE keys (`llm::ernie`).
    /// ERNIE-4.5: routed experts.
    #[serde(default)]
    pub moe_num_experts: Option<u64>,
    /// ERNIE-4.5: experts per token.
    #[serde(default)]
    pub moe_k: Option<u64>,
    /// ERNIE-4.5: shared experts, each `moe_intermediate_size` wide.
    #[serde(default)]
    pub moe_num_shared_experts: Option<u64>,
    /// ERNIE-4.5: first MoE layer.
    #[serde(default)]
    pub moe_layer_start_index: Option<u64>,
    /// ERNIE-4.5: last MoE layer (inclusive).
    #[serde(default)]
    pub moe_layer_end_index: Option<u64>,
    /// ERNIE-4.5: every how many layers a MoE layer appears.
    #[serde(default)]
    pub moe_layer_interval: Option<u64>,
    /// ERNIE-4.5, Bailing: biases on the attention and MLP projections (default false).
    #[serde(default)]
    pub use_bias: Option<bool>,
    // families2 (issue #17): Bailing MoE V2 keys (`llm::bailing`).
    /// Activation of the MLPs (Bailing: only `"silu"` is accepted by SGLang).
    #[serde(default)]
    pub hidden_act: Option<String>,
    /// families5 (issue #17): EXAONE 4: biases on gate_up / down (vLLM 0.19.0 `exaone4.py` reads it).
    #[serde(default)]
    pub mlp_bias: Option<bool>,
    /// families5 (issue #17): EXAONE 4: vLLM 0.19.0 `exaone4.py` biases the attention projections with
    /// `attention_bias or bias`.
    #[serde(default)]
    pub bias: Option<bool>,
    /// Bailing: shared experts, each `moe_shared_expert_intermediate_size` wide.
    #[serde(default)]
    pub num_shared_experts: Option<u64>,
    /// Bailing: a bias on the fused `query_key_value` projection only.
    #[serde(default)]
    pub use_qkv_bias: Option<bool>,
    /// Bailing: `"fp32"` keeps the router weight in fp32 (both engines).
    #[serde(default)]
    pub router_dtype: Option<String>,
    /// Bailing: the router carries an fp32 `expert_bias` (the sigmoid router's correction bias).
    #[serde(default)]
    pub moe_router_enable_expert_bias: Option<bool>,
    /// Bailing: `"sigmoid"` (with the expert bias) or `"softmax"` (without).
    #[serde(default)]
    pub score_function: Option<String>,
    /// Grouped top-k routing: expert groups (Bailing, DeepSeek-V3).
    #[serde(default)]
    pub n_group: Option<u64>,
    /// Grouped top-k routing: groups kept per token.
    #[serde(default)]
    pub topk_group: Option<u64>,
    /// Bailing: the rotary width before `partial_rotary_factor` (vLLM: `getattr(config,
    /// "rotary_dim", head_dim)`).
    #[serde(default)]
    pub rotary_dim: Option<u64>,
    /// Share of the head that is rotated (Bailing: 0.5; Qwen3-Next/3.5 0.25; `llm::partial_rotary`).
    #[serde(default)]
    pub partial_rotary_factor: Option<f64>,
    /// The transformers-v5 RoPE block (Qwen3.5's published configs keep `partial_rotary_factor`
    /// there, not at the top level); read only for that factor (`llm::partial_rotary`).
    #[serde(default)]
    pub rope_parameters: Option<serde_json::Value>,
    /// mem49 (issue #17 point 5): the RoPE scaling block, read only for LongRoPE (`type` /
    /// `rope_type` = `"longrope"`, Phi-3 family: `llm::partial_rotary::longrope_original`).
    #[serde(default)]
    pub rope_scaling: Option<serde_json::Value>,
    /// mem49: the context LongRoPE's short factors cover (Phi-3.5-mini, Phi-4-mini: 4,096).
    #[serde(default)]
    pub original_max_position_embeddings: Option<u64>,
    /// rope51: GLM-5 / DeepSeek-V3.2 — whether the MLA rotary is interleaved (SGLang 0.5.9
    /// `deepseek_v2.py`: `is_neox_style = not rope_interleave`, default True; `llm::mla_rope`).
    #[serde(default)]
    pub rope_interleave: Option<bool>,
    /// rope51: whether the DSA indexer's rotary is interleaved (SGLang 0.5.9, default False).
    #[serde(default)]
    pub indexer_rope_interleave: Option<bool>,
    // families19 (issue #17): Kimi-Linear keys (`llm::kimi_linear`).
    /// Kimi-Linear: experts each token is routed to (its name for `num_experts_per_tok`).
    #[serde(default)]
    pub num_experts_per_token: Option<u64>,
    /// Kimi-Linear: the KDA layers (1-indexed), the full-attention layers and the KDA shape.
    #[serde(default)]
    pub linear_attn_config: Option<LinearAttnConfig>,
    /// Kimi-Linear: the MLA layers apply no rotary embedding (vLLM asserts it is true).
    #[serde(default)]
    pub mla_use_nope: Option<bool>,
    /// Kimi-Linear: the trained context (SGLang's `get_context_length` reads `model_max_length`
    /// before `max_position_embeddings`).
    #[serde(default)]
    pub model_max_length: Option<u64>,
    /// families29 (issue #17): DeepSeek-V4's per-layer KV compression (0 sliding window only, 4 CSA
    /// with an indexer, 128 HCA), one entry per decoder layer then the MTP layers (`llm::deepseek_v4`).
    #[serde(default)]
    pub compress_ratios: Option<Vec<u64>>,
    /// dsv4run55 (issue #17): DeepSeek-V4's routed-expert dtype (`"fp4"` in the Flash and Pro
    /// checkpoints; SGLang 0.5.16 `Fp8MoEMethod` reads it as `is_fp4_expert`).
    #[serde(default)]
    pub expert_dtype: Option<String>,
    /// families29: DeepSeek-V4's hyper-connection residual streams (mHC, `hc_mult`).
    #[serde(default)]
    pub hc_mult: Option<u64>,
    /// families29: DeepSeek-V4's low-rank grouped output projection: rank a group (`o_lora_rank`).
    #[serde(default)]
    pub o_lora_rank: Option<u64>,
    /// families29: DeepSeek-V4's output-projection groups (`o_groups`).
    #[serde(default)]
    pub o_groups: Option<u64>,
    /// families29: DeepSeek-V4's leading layers routed by token hash, without a correction bias
    /// (`num_hash_layers`).
    #[serde(default)]
    pub num_hash_layers: Option<u64>,
    // families32 (issue #17): Kimi-K3 keys (`llm::kimi_k3`; SGLang 0.5.23 `configs/kimi_linear.py`).
    /// Kimi-K3: layers per attention-residual block (an RMSNorm and a 1-row projection before each
    /// half of every layer, one pair before the final norm).
    #[serde(default)]
    pub attn_res_block_size: Option<u64>,
    /// Kimi-K3: the latent width the routed experts run in (replicated down / up projections).
    #[serde(default)]
    pub routed_expert_hidden_size: Option<u64>,
    /// Kimi-K3: an RMSNorm over the latent routed output.
    #[serde(default)]
    pub latent_moe_use_norm: Option<bool>,
    /// Kimi-K3: a sigmoid output gate (`g_proj`) on the MLA layers.
    #[serde(default)]
    pub mla_use_output_gate: Option<bool>,
    // families34 (issue #17): Qwen4-Exp keys (`llm::qwen4_exp`; SGLang 0.5.23 `configs/qwen4_exp.py`
    // `Qwen4ExpTextConfig`, `layers/attention/qsa/config.py`).
    /// Qwen4-Exp: gated-residual streams (`hc_count`; the engine's default 4).
    #[serde(default)]
    pub hc_count: Option<u64>,
    /// Qwen4-Exp: the gated read's low rank (`hc_lowrank`; default 320).
    #[serde(default)]
    pub hc_lowrank: Option<u64>,
    /// Qwen4-Exp: the layers (1-indexed) that add the n-gram embedding (`ple_layer_ids`).
    #[serde(default)]
    pub ple_layer_ids: Option<Vec<u64>>,
    /// Qwen4-Exp: width of one n-gram embedding lookup, all heads (`ple_embed_dim`; default hidden).
    #[serde(default)]
    pub ple_embed_dim: Option<u64>,
    /// Qwen4-Exp: the n-gram layer's depthwise conv kernel (`ple_conv_kernel_size`; default 4).
    #[serde(default)]
    pub ple_conv_kernel_size: Option<u64>,
    /// Qwen4-Exp: n of the n-grams (`ngram_size`; default 3: bigrams and trigrams).
    #[serde(default)]
    pub ngram_size: Option<u64>,
    /// Qwen4-Exp: hash heads per n-gram order (`heads_per_ngram`; default 8).
    #[serde(default)]
    pub heads_per_ngram: Option<u64>,
    /// Qwen4-Exp: the n-gram table's per-head modulus starts at the first prime ≥ this
    /// (`ngram_vocab_size_base`; default 20,000,000).
    #[serde(default)]
    pub ngram_vocab_size_base: Option<u64>,
    /// Qwen4-Exp: the n-gram table's rows are padded to a multiple of this
    /// (`make_ngram_vocab_size_divisible_by`; default 128).
    #[serde(default)]
    pub make_ngram_vocab_size_divisible_by: Option<u64>,
    /// Qwen4-Exp QSA: index query heads (`indexer_n_heads`; absent: no QSA indexer).
    #[serde(default)]
    pub indexer_n_heads: Option<u64>,
    /// Qwen4-Exp QSA: index key heads (`indexer_kv_heads`; the engine requires 1).
    #[serde(default)]
    pub indexer_kv_heads: Option<u64>,
    /// Qwen4-Exp QSA: index head width (`indexer_head_dim`).
    #[serde(default)]
    pub indexer_head_dim: Option<u64>,
    /// Qwen4-Exp QSA: tokens a query attends to (`indexer_budget`).
    #[serde(default)]
    pub indexer_budget: Option<u64>,
    /// Qwen4-Exp QSA: tokens a compressed index key stands for (`indexer_compress_ratio`).
    #[serde(default)]
    pub indexer_compress_ratio: Option<u64>,
    /// families34: Hunyuan V3's per-head q/k RMSNorm switch (`qk_norm`; SGLang 0.5.23
    /// `hunyuan_v3.py` reads `use_qk_norm` first, then this).
    #[serde(default)]
    pub qk_norm: Option<bool>,
    /// families36: Hunyuan V3's routed and shared expert width as vLLM reads it (`expert_hidden_dim`;
    /// vLLM 0.20.0 – 0.34.0 `hy_v3.py`; SGLang reads `moe_intermediate_size`).
    #[serde(default)]
    pub expert_hidden_dim: Option<u64>,
    // families37 (issue #17): MiniMax-M3 keys (`llm::minimax_m3`; SGLang 0.5.23 `models/minimax_m3.py`).
    /// MiniMax-M3: the dense MLP width of the layers `moe_layer_freq` marks 0
    /// (`dense_intermediate_size`; `MiniMaxM3DecoderLayer`).
    #[serde(default)]
    pub dense_intermediate_size: Option<u64>,
    /// MiniMax-M3: which layers use MiniMax sparse attention and its indexer shape
    /// (`sparse_attention_config`).
    #[serde(default)]
    pub sparse_attention_config: Option<MiniMaxSparseConfig>,
    /// MiniMax-M3: MTP modules the checkpoint carries (`num_mtp_modules`; not loaded by the target).
    #[serde(default)]
    pub num_mtp_modules: Option<u64>,
}

/// families37 (issue #17): MiniMax-M3's `sparse_attention_config`, as SGLang 0.5.23 reads it
/// (`configs/model_config.py` `get_minimax_sparse_layer_ids`,
/// `get_minimax_sparse_disable_value_layer_ids`; `models/minimax_m3.py` `MiniMaxM3Attention`).
#[derive(Debug, Clone, Default, Deserialize)]
pub struct MiniMaxSparseConfig {
    /// Whether sparse attention is on (`use_sparse_attention`).
    #[serde(default)]
    pub use_sparse_attention: Option<bool>,
    /// Index head width (`sparse_index_dim`).
    #[serde(default)]
    pub sparse_index_dim: Option<u64>,
    /// Index query heads (`sparse_num_index_heads`; one index key head).
    #[serde(default)]
    pub sparse_num_index_heads: Option<u64>,
    /// KV blocks a query reads (`sparse_topk_blocks`).
    #[serde(default)]
    pub sparse_topk_blocks: Option<u64>,
    /// Tokens a KV block holds (`sparse_block_size`).
    #[serde(default)]
    pub sparse_block_size: Option<u64>,
    /// Leading blocks always read (`sparse_init_block`).
    #[serde(default)]
    pub sparse_init_block: Option<u64>,
    /// Trailing (local) blocks always read (`sparse_local_block`).
    #[serde(default)]
    pub sparse_local_block: Option<u64>,
    /// Per layer, non-zero where the layer is sparse (`sparse_attention_freq`).
    #[serde(default)]
    pub sparse_attention_freq: Option<Vec<u64>>,
    /// Per layer, non-zero where a sparse layer has no index value / output branch
    /// (`sparse_disable_index_value`; absent: every sparse layer has one).
    #[serde(default)]
    pub sparse_disable_index_value: Option<Vec<u64>>,
}

/// families19 (issue #17): Kimi-Linear's `linear_attn_config` (vLLM 0.19.0 / SGLang 0.5.8
/// `configs/kimi_linear.py`: `kda_layers` and `full_attn_layers` must be present; a layer `i` is KDA
/// when `i + 1` is in `kda_layers`).
#[derive(Debug, Clone, Default, Deserialize)]
pub struct LinearAttnConfig {
    /// The KDA layers, 1-indexed.
    #[serde(default)]
    pub kda_layers: Option<Vec<u64>>,
    /// The MLA layers, 1-indexed (only checked present, as the engines do).
    #[serde(default)]
    pub full_attn_layers: Option<Vec<u64>>,
    /// KDA heads.
    #[serde(default)]
    pub num_heads: Option<u64>,
    /// KDA head width (keys, values and the recurrent state's two sides).
    #[serde(default)]
    pub head_dim: Option<u64>,
    /// The q/k/v short convolutions' width.
    #[serde(default)]
    pub short_conv_kernel_size: Option<u64>,
    /// families32 (issue #17): Kimi-K3's full-rank output gate (`g_proj`, hidden → heads × head_dim)
    /// in place of Kimi-Linear's low-rank `g_a_proj` / `g_b_proj` (SGLang 0.5.23 `kimi_k3.py`
    /// `KimiK3DeltaAttention`).
    #[serde(default)]
    pub use_full_rank_gate: Option<bool>,
}

/// families6 (issue #17): a width or count written either as one integer or as one integer per
/// layer (Hunyuan's `moe_topk`, `num_shared_expert`, `moe_intermediate_size`): a list whose values
/// are all equal is that value; a list of different values is refused (per-layer MoE shapes are not
/// lowered), as is an empty list.
fn uniform_u64<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    use serde::de::Error;
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum OneOrList {
        One(u64),
        List(Vec<u64>),
    }
    match Option::<OneOrList>::deserialize(d)? {
        None => Ok(None),
        Some(OneOrList::One(x)) => Ok(Some(x)),
        Some(OneOrList::List(v)) => match v.split_first() {
            Some((first, rest)) if rest.iter().all(|x| x == first) => Ok(Some(*first)),
            _ => Err(D::Error::custom(format!(
                "a per-layer list {v:?} must hold one value repeated (per-layer MoE shapes are not modelled)"
            ))),
        },
    }
}

/// families24 (issue #17): an optional non-negative integer where a negative one means "none"
/// (Grok-2's `sliding_window_size: -1`).
fn negative_as_none<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    let v: Option<i64> = Option::deserialize(d)?;
    Ok(v.and_then(|x| u64::try_from(x).ok()))
}

/// families28 (issue #17): a number, or a list of them of which the first is read (Step-3.5-Flash's
/// per-layer `rope_theta`).
fn number_or_first<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum NumOrList {
        One(f64),
        Many(Vec<f64>),
    }
    let v: Option<NumOrList> = Option::deserialize(d)?;
    Ok(match v {
        Some(NumOrList::One(x)) => Some(x),
        Some(NumOrList::Many(l)) => l.first().copied(),
        None => None,
    })
}

/// families28 (issue #17): Step-3.5's `attention_other_setting` (the sliding layers' shape).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct AttentionOtherSetting {
    /// Query heads of a sliding layer.
    #[serde(default)]
    pub num_attention_heads: Option<u64>,
    /// KV heads of a sliding layer.
    #[serde(default)]
    pub num_attention_groups: Option<u64>,
}

/// `moe_layer_freq` as configs spell it: a period (DeepSeek, Kimi-Linear: an integer) or, families23
/// (issue #17), one 0/1 per layer (MiMo-V2-Flash).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(untagged)]
pub enum LayerFreq {
    /// Every how many layers a MoE layer appears.
    Every(u64),
    /// 1 where the layer is MoE.
    PerLayer(Vec<u64>),
}

impl LayerFreq {
    /// The period; `None` for a per-layer list.
    pub fn every(&self) -> Option<u64> {
        match self {
            LayerFreq::Every(p) => Some(*p),
            LayerFreq::PerLayer(_) => None,
        }
    }

    /// The per-layer list; `None` for a period.
    pub fn per_layer(&self) -> Option<&[u64]> {
        match self {
            LayerFreq::Every(_) => None,
            LayerFreq::PerLayer(l) => Some(l),
        }
    }
}

/// `sliding_window_pattern` as configs spell it: a layer period (Gemma-3, Cohere2: an integer) or
/// one letter per layer of the period (EXAONE 4: `"LLLG"`, L local, G global).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(untagged)]
pub enum SlidingPattern {
    /// Every how many layers a global layer appears.
    Period(u64),
    /// Letters of one period (SGLang 0.5.9 `exaone4.py` reads only their count).
    Letters(String),
}

impl SlidingPattern {
    /// The layer period: the integer, or the number of letters.
    pub fn period(&self) -> u64 {
        match self {
            SlidingPattern::Period(p) => *p,
            SlidingPattern::Letters(l) => l.chars().count() as u64,
        }
    }
}

impl ModelConfig {
    /// families5 (issue #17): the period of a letter-spelled `sliding_window_pattern`, if it is one.
    pub fn sliding_pattern_letters(&self) -> Option<u64> {
        match &self.sliding_window_pattern {
            Some(SlidingPattern::Letters(l)) => Some(l.chars().count() as u64),
            _ => None,
        }
    }

    /// Parse `config.json` text. Unknown keys are ignored; a key tpsim reads with the wrong JSON type
    /// is an error.
    pub fn from_json(text: &str) -> Result<ModelConfig, ModelError> {
        // nemotronh (issue #17): Python's `Infinity`/`NaN` (Nemotron-H's `time_step_limit`) read as null.
        let text: &str = &super::nemotron_h::non_finite_to_null(text);
        // cfgfuzz: the error names the key path (`text_config.num_attention_heads`) as well as the
        // line and column, so a wrong type in a long config.json is found by name.
        let de = &mut serde_json::Deserializer::from_str(text);
        let mut cfg: ModelConfig = serde_path_to_error::deserialize(de).map_err(|e| {
            // serde_path_to_error writes `?` for a key not read yet (a syntax error at the end of a
            // map) and `.` for the top level: those name no key, the line and column do.
            let path = e.path().to_string();
            let key = path.trim_end_matches('?').trim_end_matches('.');
            let message = if key.is_empty() {
                e.into_inner().to_string()
            } else {
                format!("key `{key}`: {}", e.into_inner())
            };
            ModelError::Json { message }
        })?;
        // fam (issue #16): whether `text_config` names `sliding_window` (LLaVA-NeXT defaults).
        if let Some(t) = cfg.text_config.as_mut() {
            let v: serde_json::Value = serde_json::from_str(text).unwrap_or_default();
            t.names_sliding_window = v
                .get("text_config")
                .and_then(|t| t.get("sliding_window"))
                .is_some();
        }
        Ok(cfg)
    }

    fn first_arch(&self) -> Option<&str> {
        self.architectures
            .as_ref()
            .and_then(|a| a.first())
            .map(String::as_str)
    }

    fn weight_dtype(&self) -> Result<WeightDtype, ModelError> {
        match self.torch_dtype.as_deref().or(self.dtype.as_deref()) {
            None => Ok(WeightDtype::Bf16),
            Some(s) => WeightDtype::from_torch(s).ok_or_else(|| ModelError::InvalidField {
                field: "torch_dtype".into(),
                value: s.into(),
                expected: "bfloat16, float16 or float32".into(),
            }),
        }
    }
}

/// Architectures tpsim can lower (the first entry of `architectures`).
pub const SUPPORTED_ARCHITECTURES: [&str; 94] = [
    "LlamaForCausalLM",
    "Qwen2ForCausalLM",
    "Qwen3ForCausalLM",
    "Qwen3MoeForCausalLM",
    "DeepseekV3ForCausalLM",
    "KimiK25ForConditionalGeneration",
    "Glm4MoeForCausalLM",
    "LlamaForCausalLMEagle3",
    "Eagle3LlamaForCausalLM",
    "Qwen3_5MoeForCausalLM",
    "Qwen3_5MoeForConditionalGeneration",
    "MiniMaxM2ForCausalLM",
    "GptOssForCausalLM",
    // h3: Qwen2.5-VL, Qwen2-MoE, Phi-3, Granite, GLM-4 dense.
    "Qwen2_5_VLForConditionalGeneration",
    "Qwen2MoeForCausalLM",
    "Phi3ForCausalLM",
    "GraniteForCausalLM",
    "GlmForCausalLM",
    "Glm4ForCausalLM",
    "Mistral3ForConditionalGeneration",
    "MllamaForConditionalGeneration",
    // Local/global attention families (issue #16):
    "GemmaForCausalLM",
    "Gemma2ForCausalLM",
    "Gemma3ForCausalLM",
    "Gemma3ForConditionalGeneration",
    "MistralForCausalLM",
    "MixtralForCausalLM",
    "Llama4ForConditionalGeneration",
    // h2 (issue #16): DeepSeek-V2, DSA (V3.2, GLM-5), Kimi-VL.
    "DeepseekV2ForCausalLM",
    "DeepseekV32ForCausalLM",
    "GlmMoeDsaForCausalLM",
    "KimiVLForConditionalGeneration",
    // fam (issue #16): GraniteMoE, Phi-3.5-MoE, LLaVA-NeXT.
    "GraniteMoeForCausalLM",
    "PhiMoEForCausalLM",
    "LlavaNextForConditionalGeneration",
    // phi2 (issue #17): phi-1/1.5/2.
    "PhiForCausalLM",
    // nemotronh (issue #17): Nemotron-H, Nemotron-Nano-v2.
    "NemotronHForCausalLM",
    // qwenhyb (issue #17): dense Qwen3.5 and Qwen3-Next hybrids.
    "Qwen3_5ForCausalLM",
    "Qwen3_5ForConditionalGeneration",
    "Qwen3NextForCausalLM",
    "Qwen3VLForConditionalGeneration",
    "Qwen3VLMoeForConditionalGeneration",
    // families41 (issue #17): Qwen3-Omni MoE (the thinker; `llm::qwen3_omni`).
    "Qwen3OmniMoeForConditionalGeneration",
    // families (issue #17): Granite-4.0-H, Seed-OSS.
    "GraniteMoeHybridForCausalLM",
    "SeedOssForCausalLM",
    // families (issue #17): ERNIE-4.5 MoE.
    "Ernie4_5_MoeForCausalLM",
    // families2 (issue #17): Ling 2.0 / Ring 2.0.
    "BailingMoeV2ForCausalLM",
    // families2 (issue #17): Command R7B / Command A.
    "Cohere2ForCausalLM",
    // families3 (issue #17): OLMo-2, OLMoE.
    "Olmo2ForCausalLM",
    "OlmoeForCausalLM",
    // families4 (issue #17): MiMo-7B.
    "MiMoForCausalLM",
    // families6 (issue #17): Llama-Nemotron NAS (Super-49B, Ultra-253B), Hunyuan-A13B.
    "DeciLMForCausalLM",
    "HunYuanMoEV1ForCausalLM",
    // families5 (issue #17): EXAONE 4.0.
    "Exaone4ForCausalLM",
    // families7 (issue #17): GLM-4.5V / GLM-4.6V.
    "Glm4vMoeForConditionalGeneration",
    // families8 (issue #17): Command R / R+.
    "CohereForCausalLM",
    // families9 (issue #17): OLMo-3, built as OLMo-2 by both engines (`llm::olmo2`).
    "Olmo3ForCausalLM",
    // families10 (issue #17): GLM-4.7-Flash (MLA + GLM MoE).
    "Glm4MoeLiteForCausalLM",
    // families10 (issue #17): InternLM3, built as Llama by both engines.
    "InternLM3ForCausalLM",
    // families11 (issue #17): InternLM2 / 2.5 (packed wqkv; vLLM all-gathers qkv per layer).
    "InternLM2ForCausalLM",
    // families13 (issue #17): StarCoder2 (biased LayerNorm layer, non-gated GELU MLP, sliding window).
    "Starcoder2ForCausalLM",
    // families15 (issue #17): dots.llm1 (DeepSeek-V3-style MoE, Qwen3-style attention; vLLM only).
    "Dots1ForCausalLM",
    // families14 (issue #17): InternVL 2.5 / 3 / 3.5 (lowered as its `llm_config` tower, `llm::internvl`).
    "InternVLChatModel",
    // families16 (issue #17): Qwen2-VL (Qwen2 text tower + the Qwen2-VL ViT, `llm::vlm`).
    "Qwen2VLForConditionalGeneration",
    // families17 (issue #17): dense ERNIE-4.5 (both names the engines register) and dense Hunyuan.
    "Ernie4_5ForCausalLM",
    "Ernie4_5_ForCausalLM",
    "HunYuanDenseV1ForCausalLM",
    // families19 (issue #17): Kimi-Linear (MLA + KDA linear attention, MoE; `llm::kimi_linear`).
    "KimiLinearForCausalLM",
    // families18 (issue #17): GLM-4.1V (GLM-4-0414's dense text tower + the GLM-4V ViT, `llm::glm4v`).
    "Glm4vForConditionalGeneration",
    // families18 (issue #17): Arcee AFM (the Llama layer with a non-gated ReLU² MLP, `llm::arcee`).
    "ArceeForCausalLM",
    // families20 (issue #17): Falcon-H1 (Mamba-2 and attention side by side in every layer,
    // `llm::falcon_h1`).
    "FalconH1ForCausalLM",
    // families21 (issue #17): Apertus (xIELU MLP, q/k norms, `llm::apertus`), MiniCPM and MiniCPM3
    // (`llm::minicpm`).
    "ApertusForCausalLM",
    "MiniCPMForCausalLM",
    "MiniCPM3ForCausalLM",
    // families22 (issue #17): LFM2 and LFM2-MoE (short-conv and GQA layers, `llm::lfm2`).
    "Lfm2ForCausalLM",
    "Lfm2MoeForCausalLM",
    // families23 (issue #17): MiMo-V2-Flash (global and sliding GQA kinds, MoE, `llm::mimo_v2`).
    "MiMoV2FlashForCausalLM",
    // families24 (issue #17): Grok-1 / Grok-2 (every layer MoE, Grok-2's residual MLP, `llm::grok`).
    "Grok1ForCausalLM",
    "Grok1ModelForCausalLM",
    // families25 (issue #17): Meituan LongCat-Flash (two MLA blocks, two dense MLPs and one MoE with
    // zero experts a layer, `llm::longcat`).
    "LongcatFlashForCausalLM",
    // families27 (issue #17): MiniMax-Text-01 / MiniMax-M1 (lightning attention with a softmax layer
    // every 8th, every layer MoE, `llm::minimax01`).
    "MiniMaxText01ForCausalLM",
    "MiniMaxM1ForCausalLM",
    "MiniMaxForCausalLM",
    // families28 (issue #17): StepFun Step-3.5-Flash (full and sliding GQA kinds, MoE with one shared
    // expert, `llm::step3p5`).
    "Step3p5ForCausalLM",
    // families30 (issue #17): Google Gemma 4 (full and sliding GQA kinds of their own widths,
    // `llm::gemma4`).
    "Gemma4ForCausalLM",
    "Gemma4ForConditionalGeneration",
    // families32 (issue #17): Moonshot Kimi-K3 (KDA + gated MLA, latent MoE, attention residuals;
    // `llm::kimi_k3`): the multimodal wrapper and its text-only entry class.
    "KimiK3ForConditionalGeneration",
    "KimiK3LinearForCausalLM",
    // families31 (issue #17): Mistral Large 3 (DeepSeek-V3's layers; `Architecture::MistralLarge3`).
    "MistralLarge3ForCausalLM",
    // families31 (issue #17): Ministral 3's text model on its own (the Llama layout, `ModelSpec::ministral3`).
    "Ministral3ForCausalLM",
    // families36 (issue #17): Hunyuan V3 / Hy3 (GQA + q/k norms, dense first layer, sigmoid-routed MoE
    // with an fp32 router, expert bias and a shared expert; `Architecture::Hy3`, `llm::hy3`).
    "HYV3ForCausalLM",
    // dsv4run55 (issue #17): DeepSeek-V4 (`Architecture::DeepseekV4`, `llm::deepseek_v4`).
    "DeepseekV4ForCausalLM",
    // families38 (issue #17): MiniMax-M3's text model (`Architecture::MiniMaxM3`, `llm::minimax_m3`).
    "MiniMaxM3SparseForCausalLM",
    // families40 (issue #17): MiMo-V2.5-Pro / V2.6 (`MiMoV2ForCausalLM`, lowered as MiMo-V2-Flash:
    // `llm::mimo_v2`); MiMo-V2.5's vision and audio encoders refused.
    "MiMoV2ForCausalLM",
];

/// families5 (issue #17): architectures that neither engine implements natively, so that both would
/// serve them through their Transformers backends (not modelled by tpsim), with what each does.
pub(crate) const TRANSFORMERS_BACKEND_ONLY: [(&str, &str); 1] = [(
    "SmolLM3ForCausalLM",
    "vLLM 0.19.0 registers it only as (\"transformers\", \"TransformersForCausalLM\") \
     (model_executor/models/registry.py) and SGLang 0.5.9 has no model file for it (it would log \"SmolLM3ForCausalLM \
     has no SGLang implementation, falling back to Transformers implementation\"): both serve it through their \
     Transformers backends, which tpsim does not model",
)];

/// The architecture an `architectures` entry names, if tpsim lowers it.
pub fn architecture_of(name: &str) -> Option<Architecture> {
    Some(match name {
        "LlamaForCausalLM" => Architecture::Llama,
        "Qwen2ForCausalLM" => Architecture::Qwen2,
        "Qwen3ForCausalLM" => Architecture::Qwen3,
        "Qwen3MoeForCausalLM" => Architecture::Qwen3Moe,
        "DeepseekV3ForCausalLM" => Architecture::DeepseekV3,
        "KimiK25ForConditionalGeneration" => Architecture::KimiK25,
        "Glm4MoeForCausalLM" => Architecture::Glm4Moe,
        "LlamaForCausalLMEagle3" | "Eagle3LlamaForCausalLM" => Architecture::Eagle3Llama,
        "Qwen3_5MoeForCausalLM" | "Qwen3_5MoeForConditionalGeneration" => Architecture::Qwen35Moe,
        "MiniMaxM2ForCausalLM" => Architecture::MiniMaxM2,
        "GptOssForCausalLM" => Architecture::GptOss,
        // h3: Qwen2.5-VL, Qwen2-MoE, Phi-3, Granite, GLM-4 dense.
        "Qwen2_5_VLForConditionalGeneration" => Architecture::Qwen25Vl,
        "Qwen2MoeForCausalLM" => Architecture::Qwen2Moe,
        "Phi3ForCausalLM" => Architecture::Phi3,
        "GraniteForCausalLM" => Architecture::Granite,
        "GlmForCausalLM" => Architecture::Glm,
        "Glm4ForCausalLM" => Architecture::Glm4,
        "Mistral3ForConditionalGeneration" => Architecture::Mistral3,
        "MllamaForConditionalGeneration" => Architecture::Mllama,
        // Local/global attention families (issue #16):
        "GemmaForCausalLM" => Architecture::Gemma,
        "Gemma2ForCausalLM" => Architecture::Gemma2,
        "Gemma3ForCausalLM" | "Gemma3ForConditionalGeneration" => Architecture::Gemma3,
        "MistralForCausalLM" => Architecture::Mistral,
        "MixtralForCausalLM" => Architecture::Mixtral,
        "Llama4ForConditionalGeneration" => Architecture::Llama4,
        // h2 (issue #16): DeepSeek-V2, DSA (V3.2, GLM-5), Kimi-VL.
        "DeepseekV2ForCausalLM" => Architecture::DeepseekV2,
        "DeepseekV32ForCausalLM" => Architecture::DeepseekV32,
        "GlmMoeDsaForCausalLM" => Architecture::GlmMoeDsa,
        "KimiVLForConditionalGeneration" => Architecture::KimiVl,
        // fam (issue #16): GraniteMoE, Phi-3.5-MoE, LLaVA-NeXT.
        "GraniteMoeForCausalLM" => Architecture::GraniteMoe,
        "PhiMoEForCausalLM" => Architecture::PhiMoe,
        "LlavaNextForConditionalGeneration" => Architecture::LlavaNext,
        // phi2 (issue #17): phi-1/1.5/2.
        "PhiForCausalLM" => Architecture::Phi,
        // nemotronh (issue #17).
        "NemotronHForCausalLM" => Architecture::NemotronH,
        // qwenhyb (issue #17): dense Qwen3.5 and Qwen3-Next hybrids.
        "Qwen3_5ForCausalLM" | "Qwen3_5ForConditionalGeneration" => Architecture::Qwen35,
        "Qwen3NextForCausalLM" => Architecture::Qwen3Next,
        "Qwen3VLForConditionalGeneration" => Architecture::Qwen3Vl,
        "Qwen3VLMoeForConditionalGeneration" => Architecture::Qwen3VlMoe,
        // families41 (issue #17): SGLang 0.5.9 `Qwen3OmniMoeThinkerForConditionalGeneration` subclasses
        // `Qwen3VLMoeForConditionalGeneration` (`llm::qwen3_omni`).
        "Qwen3OmniMoeForConditionalGeneration" => Architecture::Qwen3VlMoe,
        // families (issue #17): Granite-4.0-H.
        "GraniteMoeHybridForCausalLM" => Architecture::GraniteMoeHybrid,
        "SeedOssForCausalLM" => Architecture::SeedOss,
        "Ernie4_5_MoeForCausalLM" => Architecture::Ernie45Moe,
        "BailingMoeV2ForCausalLM" => Architecture::BailingMoeV2,
        "Cohere2ForCausalLM" => Architecture::Cohere2,
        "Olmo2ForCausalLM" => Architecture::Olmo2,
        // families9 (issue #17): vLLM 0.19.0 `registry.py` maps `Olmo3ForCausalLM` to
        // ("olmo2", "Olmo2ForCausalLM"); SGLang 0.5.9 `configs/olmo3.py` `Olmo3Config` rewrites the name
        // to `Olmo2ForCausalLM` (registered in `utils/hf_transformers_utils.py` `_CONFIG_REGISTRY`).
        "Olmo3ForCausalLM" => Architecture::Olmo2,
        "OlmoeForCausalLM" => Architecture::Olmoe,
        "MiMoForCausalLM" => Architecture::Mimo,
        "DeciLMForCausalLM" => Architecture::NemotronNas,
        "HunYuanMoEV1ForCausalLM" => Architecture::HunYuanMoeV1,
        "Exaone4ForCausalLM" => Architecture::Exaone4,
        "Glm4vMoeForConditionalGeneration" => Architecture::Glm4vMoe,
        "CohereForCausalLM" => Architecture::Cohere,
        // families10 (issue #17): vLLM `registry.py` `"Glm4MoeLiteForCausalLM": ("glm4_moe_lite",
        // "Glm4MoeLiteForCausalLM")`; SGLang `models/glm4_moe_lite.py` (`EntryClass`).
        "Glm4MoeLiteForCausalLM" => Architecture::Glm4MoeLite,
        // families10 (issue #17): vLLM `registry.py` maps `InternLM3ForCausalLM` to ("llama",
        // "LlamaForCausalLM"); SGLang `models/llama.py` `class InternLM3ForCausalLM(LlamaForCausalLM)`
        // (in its `EntryClass`). Llama reads `attention_bias` / `mlp_bias` (absent: none); the
        // InternLM3 configs' own `qkv_bias` / `bias` are false.
        "InternLM3ForCausalLM" => Architecture::Llama,
        // families11 (issue #17): vLLM 0.19.0 `registry.py` `"InternLM2ForCausalLM": ("internlm2",
        // "InternLM2ForCausalLM")`; SGLang 0.5.8 `models/internlm2.py` (`EntryClass`).
        "InternLM2ForCausalLM" => Architecture::InternLM2,
        // families13 (issue #17): vLLM 0.19.0 `registry.py` `"Starcoder2ForCausalLM": ("starcoder2",
        // "Starcoder2ForCausalLM")`; SGLang 0.5.8 `models/starcoder2.py` (`EntryClass`).
        "Starcoder2ForCausalLM" => Architecture::Starcoder2,
        // families15 (issue #17): vLLM 0.19.0 `registry.py` `"Dots1ForCausalLM": ("dots1",
        // "Dots1ForCausalLM")` (from 0.9.2); SGLang has no model file (`sim::scenario::first_release`).
        "Dots1ForCausalLM" => Architecture::Dots1,
        // families14 (issue #17): InternVL's wrapper has no language model of its own: `lower` reads the
        // tower from `llm_config.architectures` (`llm::internvl::tower_arch`). By name alone it is
        // listed with its most common tower, Qwen2 (InternVL 2.5 / 3), whose coverage row names it.
        "InternVLChatModel" => Architecture::Qwen2,
        // families16 (issue #17): SGLang 0.5.8 `models/qwen2_vl.py` (`EntryClass`), vLLM 0.11.0
        // `registry.py` `"Qwen2VLForConditionalGeneration": ("qwen2_vl", ...)`.
        "Qwen2VLForConditionalGeneration" => Architecture::Qwen2Vl,
        // families17 (issue #17): vLLM 0.19.0 `registry.py` `"Ernie4_5ForCausalLM": ("ernie45",
        // "Ernie4_5ForCausalLM")` (from 0.10.1; 0.9.2 and 0.10.0 register `Ernie4_5_ForCausalLM`
        // instead); SGLang 0.5.9 `models/ernie4.py` `EntryClass` has only `Ernie4_5_ForCausalLM`
        // (`sim::scenario::ernie45`).
        "Ernie4_5ForCausalLM" | "Ernie4_5_ForCausalLM" => Architecture::Ernie45,
        // families17 (issue #17): vLLM 0.19.0 `registry.py` `"HunYuanDenseV1ForCausalLM":
        // ("hunyuan_v1", "HunYuanDenseV1ForCausalLM")` (from 0.10.0); SGLang 0.5.9 `models/hunyuan.py`
        // `EntryClass` (from 0.4.9.post3).
        "HunYuanDenseV1ForCausalLM" => Architecture::HunYuanDenseV1,
        // families19 (issue #17): vLLM 0.19.0 `registry.py` `"KimiLinearForCausalLM": ("kimi_linear",
        // "KimiLinearForCausalLM")` (from 0.11.1); SGLang `models/kimi_linear.py` (from 0.5.4.post2).
        "KimiLinearForCausalLM" => Architecture::KimiLinear,
        // families18 (issue #17): vLLM 0.11.0 `registry.py` `"Glm4vForConditionalGeneration":
        // ("glm4_1v", "Glm4vForConditionalGeneration")` (from 0.9.2); SGLang 0.5.9 `models/glm4v.py`
        // `EntryClass` (from 0.5.0rc1; `sim::scenario::glm4v`).
        "Glm4vForConditionalGeneration" => Architecture::Glm4v,
        // families18 (issue #17): vLLM 0.11.0 `registry.py` `"ArceeForCausalLM": ("arcee",
        // "ArceeForCausalLM")` (from 0.10.0); SGLang 0.5.9 `models/arcee.py` `EntryClass` (from 0.4.10;
        // `sim::scenario::arcee`).
        "ArceeForCausalLM" => Architecture::Arcee,
        // families20 (issue #17): vLLM 0.19.0 `registry.py` `"FalconH1ForCausalLM": ("falcon_h1",
        // "FalconH1ForCausalLM")` (from 0.9.0); SGLang 0.5.8 `models/falcon_h1.py` `EntryClass` (from
        // 0.5.3; `sim::scenario::first_release`).
        "FalconH1ForCausalLM" => Architecture::FalconH1,
        // families21 (issue #17): vLLM 0.11.0 `registry.py` `"ApertusForCausalLM": ("apertus",
        // "ApertusForCausalLM")` (from 0.10.2); SGLang 0.5.9 `models/apertus.py` `EntryClass` (from
        // 0.5.3rc0).
        "ApertusForCausalLM" => Architecture::Apertus,
        // families21 (issue #17): vLLM 0.11.0 `registry.py` `("minicpm", "MiniCPMForCausalLM")` (from
        // 0.4.1) and `("minicpm3", "MiniCPM3ForCausalLM")` (from 0.6.2); SGLang 0.5.9
        // `models/minicpm.py` (from 0.1.19) and `models/minicpm3.py` (from 0.3.1).
        "MiniCPMForCausalLM" => Architecture::MiniCpm,
        "MiniCPM3ForCausalLM" => Architecture::MiniCpm3,
        // families22 (issue #17): vLLM 0.11.1 `registry.py` `("lfm2", "Lfm2ForCausalLM")` (from
        // 0.10.2) and `("lfm2_moe", "Lfm2MoeForCausalLM")` (from 0.11.1); SGLang 0.5.9 `models/lfm2.py`
        // and `models/lfm2_moe.py` `EntryClass` (both from 0.5.9; `sim::scenario::first_release`).
        "Lfm2ForCausalLM" => Architecture::Lfm2,
        "Lfm2MoeForCausalLM" => Architecture::Lfm2Moe,
        // families23 (issue #17): SGLang `models/mimo_v2_flash.py` `EntryClass` from 0.5.7
        // (`sim::scenario::first_release`).
        "MiMoV2FlashForCausalLM" => Architecture::MiMoV2Flash,
        // families40 (issue #17): SGLang 0.5.23 `models/mimo_v2.py` `EntryClass = [MiMoV2ForCausalLM,
        // MiMoV2FlashForCausalLM]` (the Flash name a subclass kept loadable); vLLM 0.34.0
        // `models/mimo_v2.py` `MiMoV2ForCausalLM(MiMoV2FlashForCausalLM)`: one model.
        "MiMoV2ForCausalLM" => Architecture::MiMoV2Flash,
        // families28 (issue #17): SGLang `models/step3p5.py` `EntryClass` from 0.5.9, vLLM
        // `models/step3p5.py` from 0.15.1 (`sim::scenario::first_release`).
        "Step3p5ForCausalLM" => Architecture::Step3p5,
        // families30 (issue #17): SGLang `models/gemma4_causal.py` / `gemma4_mm.py` from 0.5.11, vLLM
        // `models/gemma4.py` / `gemma4_mm.py` from 0.19.0 (`sim::scenario::first_release`).
        "Gemma4ForCausalLM" | "Gemma4ForConditionalGeneration" => Architecture::Gemma4,
        // families32 (issue #17): SGLang `models/kimi_k3.py` `EntryClass = [KimiK3ForConditionalGeneration,
        // KimiK3LinearForCausalLM]` from 0.5.17; vLLM's registry lists the wrapper from 0.27.0
        // (`sim::scenario::first_release`).
        "KimiK3ForConditionalGeneration" | "KimiK3LinearForCausalLM" => Architecture::KimiK3,
        // families31 (issue #17): SGLang `models/mistral_large_3.py` `EntryClass` from 0.5.6.post1, vLLM
        // `models/mistral_large_3.py` (registry) from 0.12.0 (`sim::scenario::first_release`).
        "MistralLarge3ForCausalLM" => Architecture::MistralLarge3,
        // families36 (issue #17): SGLang `models/hunyuan_v3.py` `EntryClass` from 0.5.11, vLLM registry
        // `"HYV3ForCausalLM": ("hy_v3", …)` from 0.20.0 (`llm::hy3`, `sim::scenario::first_release`).
        "HYV3ForCausalLM" => Architecture::Hy3,
        // dsv4run55 (issue #17): SGLang `models/deepseek_v4.py` `EntryClass` from 0.5.12, vLLM registry
        // from 0.20.0 (`llm::deepseek_v4`, `sim::scenario::first_release`).
        "DeepseekV4ForCausalLM" => Architecture::DeepseekV4,
        // families38 (issue #17): SGLang `models/minimax_m3.py` `EntryClass` from 0.5.16, vLLM
        // `vllm.models.minimax_m3` from 0.24.0 (`llm::minimax_m3`, `sim::scenario::first_release`).
        "MiniMaxM3SparseForCausalLM" => Architecture::MiniMaxM3,
        // families31 (issue #17): Ministral 3 without its vision tower: SGLang `models/ministral3.py`
        // `EntryClass = [Ministral3ForCausalLM]` (a `LlamaForCausalLM`) from 0.5.6.post1; vLLM registers
        // `"Ministral3ForCausalLM": ("mistral", "MistralForCausalLM")` from 0.20.0 (`models/mistral.py`,
        // `LlamaForCausalLM` with `LlamaDecoderLayer`s). The Llama layout of Mistral
        // (`sim::scenario::first_release`).
        "Ministral3ForCausalLM" => Architecture::Mistral,
        // families24 (issue #17): SGLang `models/grok.py` `EntryClass = [Grok1ForCausalLM,
        // Grok1ModelForCausalLM]` (the second "an alias for backward-compatibility"); Grok-2's residual
        // MLP from 0.5.1 (`sim::scenario::first_release`).
        "Grok1ForCausalLM" | "Grok1ModelForCausalLM" => Architecture::Grok1,
        // families25 (issue #17): SGLang `models/longcat_flash.py` `EntryClass` from 0.5.2, vLLM
        // `models/longcat_flash.py` from 0.11.0 (`sim::scenario::first_release`).
        "LongcatFlashForCausalLM" => Architecture::LongcatFlash,
        // families27 (issue #17): vLLM 0.11.0 `registry.py` maps all three to
        // `("minimax_text_01", "MiniMaxText01ForCausalLM")` (V1 from 0.10.2; removed from the
        // registry by 0.26.0); no SGLang release registers them (`sim::scenario::first_release`).
        "MiniMaxText01ForCausalLM" | "MiniMaxM1ForCausalLM" | "MiniMaxForCausalLM" => {
            Architecture::MiniMaxText01
        }
        _ => return None,
    })
}

/// Largest width, count or vocabulary accepted (2^20 = 1,048,576; the largest real vocabulary is
/// ≈ 262 k). Keeps every shape product far from u64 overflow.
pub(crate) const MAX_DIM: u64 = 1 << 20;
/// Largest layer count accepted (real models have ≤ 126).
const MAX_LAYERS: u64 = 10_000;

pub(crate) fn req(v: Option<u64>, field: &str, arch: &str) -> Result<u64, ModelError> {
    match v {
        None => Err(super::missing_field(field, arch)),
        Some(x) => positive(x, field),
    }
}

/// A positive width within [`MAX_DIM`] (layer counts within [`MAX_LAYERS`]).
fn positive(x: u64, field: &str) -> Result<u64, ModelError> {
    let max = if field == "num_hidden_layers" {
        MAX_LAYERS
    } else {
        MAX_DIM
    };
    if x == 0 || x > max {
        return Err(ModelError::InvalidField {
            field: field.into(),
            value: x.to_string(),
            expected: format!("a positive integer no larger than {max}"),
        });
    }
    Ok(x)
}

/// An optional width: absent stays absent, present must be within bounds (0 allowed when `zero_ok`).
fn opt(v: Option<u64>, field: &str, zero_ok: bool) -> Result<Option<u64>, ModelError> {
    match v {
        Some(0) if zero_ok => Ok(Some(0)),
        Some(x) => positive(x, field).map(Some),
        None => Ok(None),
    }
}

/// Largest `max_position_embeddings` accepted: 2^32 tokens, a bound of tpsim's (no engine states
/// one), 400× the longest bundled context (Llama-4-Scout's 10,485,760,
/// `scenarios/models/llama-4-scout/config.json`). It keeps vLLM's RoPE cache size (positions × 8
/// rows × rotary dim ≤ 2^20 × 4 B, `vllm_startup::rope_cache_bytes`) far from u64 overflow
/// (cfgfuzz: `i64::MAX` there overflowed it).
const MAX_CONTEXT: u64 = 1 << 32;

/// `max_position_embeddings` when given: 1 to [`MAX_CONTEXT`] tokens (cfgfuzz: a 0 here was
/// reported as the scenario's `engine.context_length`, a key the user never wrote).
fn context_len(v: Option<u64>) -> Result<Option<u64>, ModelError> {
    match v {
        Some(x) if x == 0 || x > MAX_CONTEXT => Err(ModelError::InvalidField {
            field: "max_position_embeddings".into(),
            value: x.to_string(),
            expected: format!("a context length of 1 to {MAX_CONTEXT} tokens"),
        }),
        _ => Ok(v),
    }
}

/// Lower a parsed config. `quant` is attached to the spec and checked against the model.
pub(crate) fn lower(cfg: &ModelConfig, quant: Quantization) -> Result<ModelSpec, ModelError> {
    let arch_name = cfg.first_arch().ok_or(ModelError::NoArchitecture)?;
    if let Some((_, why)) = TRANSFORMERS_BACKEND_ONLY.iter().find(|(a, _)| *a == arch_name) {
        return Err(ModelError::TransformersBackendOnly {
            found: arch_name.to_string(),
            why,
        });
    }
    // families29 (issue #17): DeepSeek-V4 is read and counted; dsv4run55: lowered
    // (`Architecture::DeepseekV4`), its geometry read first so that a bad key is named as before.
    let dsv4 = if arch_name == super::deepseek_v4::DEEPSEEK_V4 {
        Some(super::deepseek_v4::Geometry::read(cfg)?)
    } else {
        None
    };
    // families34 (issue #17): Qwen4-Exp is read and counted, then refused as not modelled.
    if super::qwen4_exp::ARCHITECTURES.contains(&arch_name) {
        return Err(super::qwen4_exp::refusal(cfg, arch_name));
    }
    // families37 (issue #17): MiniMax-M3 is read and counted; families38: its text model is lowered
    // (`Architecture::MiniMaxM3`), the vision-language wrapper still refused (`minimax_m3::refusal`).
    let mm3 = if super::minimax_m3::ARCHITECTURES.contains(&arch_name) {
        if arch_name != super::minimax_m3::TEXT {
            return Err(super::minimax_m3::refusal(cfg, arch_name));
        }
        Some(super::minimax_m3::Geometry::read(cfg, arch_name)?)
    } else {
        None
    };
    // families34 (issue #17): Hunyuan V4, Mistral Large 4 refused by name (`llm::refused_2026`).
    if let Some(why) = super::refused_2026::why(arch_name) {
        return Err(ModelError::NotModelled {
            found: arch_name.to_string(),
            why: why.to_string(),
        });
    }
    // families29 (issue #17): GLM-5-Next is refused by name (no public config to read).
    if super::glm5_next::ARCHITECTURES.contains(&arch_name) {
        return Err(ModelError::NotModelled {
            found: arch_name.to_string(),
            why: super::glm5_next::WHY.to_string(),
        });
    }
    let arch = architecture_of(arch_name).ok_or_else(|| ModelError::UnsupportedArchitecture {
        found: arch_name.to_string(),
        supported: SUPPORTED_ARCHITECTURES.to_vec(),
    })?;
    // families14 (issue #17): InternVL is lowered as the language model its `llm_config` names.
    let arch = if arch_name == super::internvl::INTERNVL {
        super::internvl::tower_arch(cfg)?
    } else {
        arch
    };
    // fam (issue #16): LLaVA-NeXT's published text_config omits the widths transformers fills in.
    let filled: ModelConfig;
    let cfg: &ModelConfig = if arch == Architecture::LlavaNext {
        filled = super::llava_next::with_text_defaults(cfg, arch_name)?;
        &filled
    } else if arch == Architecture::LongcatFlash {
        // families25 (issue #17): LongCat-Flash's keys read as SGLang's config class reads them, its
        // layers as two blocks each (`llm::longcat`).
        filled = super::longcat::filled(cfg, arch_name)?;
        &filled
    } else {
        cfg
    };
    let name = cfg
        .name_or_path
        .clone()
        .filter(|s| !s.is_empty())
        .or_else(|| cfg.model_type.clone().filter(|s| !s.is_empty()))
        .unwrap_or_else(|| arch_name.to_string());

    // Multimodal wrapper: the language model lives in `text_config`.
    let (text, has_vision, vision) = text_and_vision(cfg, arch, arch_name)?;
    let an = arch_name;

    let hidden = req(text.hidden_size, "hidden_size", an)?;
    let num_layers = req(text.num_hidden_layers, "num_hidden_layers", an)?;
    let heads = req(text.num_attention_heads, "num_attention_heads", an)?;
    // Gemma-3 configs may leave the vocabulary to HF's `Gemma3TextConfig` default.
    let vocab = match (arch, text.vocab_size) {
        (Architecture::Gemma3, None) => super::local_attention::GEMMA3_DEFAULT_VOCAB,
        _ => req(text.vocab_size, "vocab_size", an)?,
    };
    let dtype = match text.torch_dtype.as_deref().or(text.dtype.as_deref()) {
        Some(_) => text.weight_dtype()?,
        None => cfg.weight_dtype()?,
    };
    let num_layers_u32 = u32::try_from(num_layers).map_err(|_| ModelError::InvalidField {
        field: "num_hidden_layers".into(),
        value: num_layers.to_string(),
        expected: "fewer than 2^32 layers".into(),
    })?;

    let (attention, kv_heads, head_dim) = attention_of(text, arch, hidden, heads, an)?;

    // Feed-forward, layer by layer.
    let (layers, moe, dense_intermediate, first_k_dense_replace) =
        feed_forward(text, arch, num_layers, num_layers_u32, an)?;

    let eagle3 = if arch == Architecture::Eagle3Llama {
        Some(Eagle3 {
            target_hidden: opt(text.target_hidden_size, "target_hidden_size", false)?.unwrap_or(hidden),
            draft_vocab: opt(text.draft_vocab_size, "draft_vocab_size", false)?.unwrap_or(vocab),
        })
    } else {
        None
    };

    let (attention_bias, qk_norm, qk_norm_full_width, routing_bias) = biases_and_norms(text, arch)?;
    let (mixers, linear_attention, sliding_window, attention_chunk_size) =
        mixers_of(text, arch, num_layers, num_layers_u32, an)?;
    let nope_layers = if arch == Architecture::Exaone4 {
        // families5 (issue #17): no rotary on EXAONE 4's full layers when any layer slides.
        super::exaone4::check(text, (hidden, heads), &mixers, an)?;
        super::exaone4::nope_layers(&mixers)
    } else {
        super::local_attention::nope_layers(arch, text, num_layers)?
    };
    // SGLang `qwen3_next.py` `Qwen3HybridAttentionDecoderLayer`: `getattr(config, "attn_output_gate",
    // True)` for Qwen3-Next and both Qwen3.5 variants.
    let attn_output_gate = arch.is_qwen_hybrid() && text.attn_output_gate.unwrap_or(true);
    let spec = ModelSpec {
        name,
        arch,
        dtype,
        num_layers: num_layers_u32,
        hidden,
        vocab,
        heads,
        kv_heads,
        head_dim,
        attention,
        layers,
        moe,
        dense_intermediate,
        first_k_dense_replace,
        // qwenhyb: Qwen3-Next ships its MTP layer as `mtp.*` tensors with no count in config.json;
        // both engines take one (vLLM `qwen3_next_mtp.py`: `getattr(config,
        // "num_nextn_predict_layers", 1)`; SGLang `configs/model_config.py` sets 1 on the draft).
        num_nextn_predict_layers: text
            .num_nextn_predict_layers
            .or(text.mtp_num_hidden_layers)
            .unwrap_or(u64::from(arch == Architecture::Qwen3Next))
            .min(u64::from(u32::MAX)) as u32,
        context_len: context_len(text.max_position_embeddings.or(cfg.max_position_embeddings))?
            .or((arch == Architecture::Gemma3).then_some(super::local_attention::GEMMA3_DEFAULT_CONTEXT)),
        // Gemma ties its embeddings by default (HF `GemmaConfig`/`Gemma2Config`/`Gemma3TextConfig`
        // `tie_word_embeddings=True`; SGLang's Gemma models have no separate LM head).
        tie_word_embeddings: text
            .tie_word_embeddings
            .or(cfg.tie_word_embeddings)
            .unwrap_or(matches!(
                arch,
                // families2 (issue #17): HF `Cohere2Config` `tie_word_embeddings=True`; SGLang's
                // `commandr.py` has no LM head of its own (logits from `embed_tokens`).
                // families8: HF `CohereConfig` `tie_word_embeddings=True` likewise.
                Architecture::Gemma
                    | Architecture::Gemma2
                    | Architecture::Gemma3
                    // families30 (issue #17): transformers 5.25.0 `Gemma4TextConfig`
                    // `tie_word_embeddings: bool = True`.
                    | Architecture::Gemma4
                    | Architecture::Cohere2
                    | Architecture::Cohere
                    // families13 (issue #17): HF `Starcoder2Config` passes `tie_word_embeddings` on to
                    // `PretrainedConfig`, whose default is true; the published configs omit the key.
                    | Architecture::Starcoder2
                    // families21 (issue #17): the remote `MiniCPM3Config` (openbmb/MiniCPM3-4B
                    // `configuration_minicpm.py`) defaults `tie_word_embeddings=True`; the published
                    // config omits the key.
                    | Architecture::MiniCpm3
            )),
        has_vision,
        sglang_multimodal: arch_name.ends_with("ForConditionalGeneration")
            || arch_name == super::internvl::INTERNVL,
        vision,
        attention_bias,
        qk_norm,
        qk_norm_full_width,
        routing_bias,
        // moeroute62 (issue #17): grouped top-k's groups as `config.json` states them.
        expert_groups: match (text.n_group, text.topk_group) {
            (Some(n), Some(k)) if n > 0 && k > 0 => Some((n, k)),
            _ => None,
        },
        eagle3,
        mixers,
        linear_attention,
        mamba2: None,
        short_conv: None,
        mimo_v2: None,
        attn_output_gate,
        sliding_window,
        attention_chunk_size,
        nope_layers,
        indexer: dsa_indexer(text, arch, an)?,
        quantization: quant,
        // families10 (issue #17): GLM-4.7-Flash's gate is fp32 in both engines (SGLang
        // `models/glm4_moe_lite.py` `Glm4MoeLiteGate`: `torch.empty(..., dtype=torch.float32)`; vLLM
        // `models/glm4_moe.py` `Glm4MoE`: `nn.Linear(..., dtype=torch.float32)`).
        // families24 (issue #17): Grok's likewise (SGLang 0.5.8 `grok.py` `Grok1MoE.gate =
        // ReplicatedLinear(..., params_dtype=torch.float32)`).
        // families25 (issue #17): LongCat-Flash's with `rounter_params_dtype` "float32", SGLang's
        // default (0.5.8 `longcat_flash.py` `LongcatFlashMoE`: `torch.float32` when the config says
        // "float32", else bf16).
        router_fp32: (arch == Architecture::BailingMoeV2 && super::bailing::router_fp32(text))
            || arch == Architecture::Glm4MoeLite
            || arch == Architecture::Grok1
            || (arch == Architecture::LongcatFlash
                && text
                    .rounter_params_dtype
                    .as_deref()
                    .is_none_or(|d| d == "float32"))
            // families27 (issue #17): vLLM 0.11.0 `minimax_text_01.py` `MiniMaxText01MoE.gate =
            // ReplicatedLinear(..., params_dtype=torch.float32, quant_config=None)`.
            || arch == Architecture::MiniMaxText01
            // families36 (issue #17): Hunyuan V3's gate in both engines (SGLang 0.5.11 – 0.5.23
            // `hunyuan_v3.py` `HYV3MoEFused.gate = ReplicatedLinear(..., params_dtype=torch.float32)`;
            // vLLM 0.20.0 – 0.34.0 `hy_v3.py` `GateLinear(..., params_dtype=torch.float32)`).
            || arch == Architecture::Hy3,
        // rope17 (issue #17 point 5): vLLM's RoPE cache shape (`llm::partial_rotary`).
        rotary_dim: super::partial_rotary::vllm_rotary_dim(arch, text, head_dim)?,
        vllm_mrope: super::partial_rotary::vllm_mrope(arch_name),
        // mem49 (issue #17 point 5): LongRoPE's short and long caches (`llm::partial_rotary`).
        longrope_original: super::partial_rotary::longrope_original(text)?,
        // rope51 (issue #17): SGLang's DeepSeek-MLA RoPE cache rows and the DSA indexer's own cache
        // (`llm::mla_rope`).
        deepseek_yarn_rows: if is_deepseek_mla(arch) {
            super::mla_rope::deepseek_yarn_rows(text)?
        } else {
            None
        },
        indexer_rope_apart_0_5_9: super::mla_rope::indexer_rope_apart_0_5_9(text),
        // grok52: vLLM's indexer rotary (`rope_cache`).
        indexer_rope_apart_vllm: !text.indexer_rope_interleave.unwrap_or(false),
        // grok52 (issue #17): Grok's per-layer `ScalingRotaryEmbedding` (`llm::grok::layer_rope`).
        grok_layer_rope: if arch == Architecture::Grok1 {
            super::grok::layer_rope(text, head_dim)?
        } else {
            None
        },
        rotary_extra_kernels: 0,
        // families12 (issue #17): Ministral 3's text tower (`mistral3_text_type`).
        // families31: or the text model under its own class (`Ministral3ForCausalLM`).
        ministral3: (arch == Architecture::Mistral3 && text.model_type.as_deref() == Some(MINISTRAL3))
            || arch_name == MINISTRAL3_CLASS,
        // families17 (issue #17): which of dense ERNIE-4.5's two names the config uses (`llm::ernie45`).
        ernie45_legacy_name: arch == Architecture::Ernie45 && arch_name == super::ernie45::LEGACY_NAME,
        // families21 (issue #17): SGLang's MLA layout as lowered; vLLM's set by `sim::scenario`.
        mla_as_mha: false,
        // families27 (issue #17): vLLM 0.11.0 `MiniMaxText01ForCausalLM.__init__`: `self.lm_head.float()`.
        lm_head_fp32: arch == Architecture::MiniMaxText01,
        unused_qk_norms: false,
        conv_proj_unquantized: false,
        sglang_mup: false,
        // families25 (issue #17): LongCat-Flash's identity experts, columns of its router (`llm::longcat`).
        zero_experts: if arch == Architecture::LongcatFlash {
            super::longcat::zero_experts(text)?
        } else {
            0
        },
        // families32 (issue #17): set for Kimi-K3 below (`llm::kimi_k3`).
        kimi_k3: None,
        // dsv4run55 (issue #17): DeepSeek-V4's geometry (`llm::deepseek_v4`).
        deepseek_v4: dsv4.clone(),
        // families38 (issue #17): MiniMax-M3's geometry (`llm::minimax_m3`).
        minimax_m3: mm3.clone(),
        cross_attention_layers: if arch == Architecture::Mllama {
            mllama_cross_layers(text, num_layers, an)?
        } else {
            Vec::new()
        },
    };
    // nemotronh (issue #17): Nemotron-H's blocks and Mamba-2 shape (`llm::nemotron_h`).
    let mut spec = spec;
    if arch == Architecture::NemotronH {
        let (mixers, layers, m) = super::nemotron_h::blocks(text, num_layers, an)?;
        spec.moe = layers.iter().find_map(|f| match f {
            Ffn::Moe(shape) => Some(*shape),
            _ => None,
        });
        spec.routing_bias = spec.moe.is_some();
        spec.dense_intermediate = if layers.iter().any(|f| matches!(f, Ffn::Dense { .. })) {
            spec.dense_intermediate
        } else {
            0
        };
        spec.mixers = mixers;
        spec.layers = layers;
        spec.mamba2 = Some(m);
        spec.first_k_dense_replace = 0;
    }
    // families (issue #17): Granite-4.0-H's layers and Mamba-2 shape (`llm::granite_hybrid`).
    if arch == Architecture::GraniteMoeHybrid {
        let b = super::granite_hybrid::blocks(text, hidden, num_layers, an)?;
        spec.moe = b.moe;
        spec.dense_intermediate = b.dense_intermediate;
        spec.first_k_dense_replace = if b.moe.is_some() { 0 } else { num_layers_u32 };
        spec.mixers = b.mixers;
        spec.layers = b.layers;
        spec.mamba2 = Some(b.mamba2);
    }
    // families20 (issue #17): Falcon-H1's layers as Mamba-2 and attention + MLP blocks
    // (`llm::falcon_h1`).
    if arch == Architecture::FalconH1 {
        let b = super::falcon_h1::blocks(text, hidden, num_layers, spec.dense_intermediate, an)?;
        spec.num_layers = b.blocks;
        spec.first_k_dense_replace = b.blocks;
        spec.mixers = b.mixers;
        spec.layers = b.layers;
        spec.mamba2 = Some(b.mamba2);
    }
    // families22 (issue #17): LFM2's and LFM2-MoE's short-conv / attention layers, dense / MoE
    // feed-forwards and short-conv shape (`llm::lfm2`).
    if matches!(arch, Architecture::Lfm2 | Architecture::Lfm2Moe) {
        let b = super::lfm2::blocks(text, arch == Architecture::Lfm2Moe, hidden, heads, num_layers, an)?;
        spec.short_conv = Some(b.apply(&mut spec));
        // HF `Lfm2MoeConfig` `use_expert_bias` default true: the router's fp32 bias.
        spec.routing_bias = spec.moe.is_some() && text.use_expert_bias.unwrap_or(true);
        // vLLM 0.11.1 ties the head whatever the config says (`lm_head.tie_weights(embed_tokens)`);
        // SGLang's own head is set by `sim::scenario` (module doc).
        spec.tie_word_embeddings = true;
    }
    // families23 (issue #17): MiMo-V2-Flash's global / sliding layers, dense / MoE feed-forwards and
    // the sliding kind's heads (`llm::mimo_v2`).
    if arch == Architecture::MiMoV2Flash {
        super::mimo_v2::blocks(text, num_layers, an)?.apply(&mut spec);
        // families40 (issue #17): the newer class name, and MiMo-V2.5's encoders (SGLang 0.5.23
        // `MiMoV2ForCausalLM.__init__` builds the vision and audio encoders when the config has both).
        if arch_name == super::mimo_v2::V2_CLASS {
            if let Some(a) = spec.mimo_v2.as_mut() {
                a.v2_class = true;
            }
            if cfg.vision_config.is_some() || cfg.audio_config.is_some() {
                return Err(ModelError::InvalidField {
                    field: "vision_config".into(),
                    value: "present".into(),
                    expected:
                        "none: tpsim lowers MiMoV2ForCausalLM's text model only (MiMo-V2.5-Pro, V2.6); \
                               MiMo-V2.5's vision and audio encoders (SGLang 0.5.23 models/mimo_v2.py \
                               MiMoVLVisionConfig, MiMoAudioEncoderConfig) are not modelled"
                            .into(),
                });
            }
        }
        // SGLang's `get_rope`: `rotary_dim = int(head_dim × partial_rotary_factor)` (192 × 0.334 → 64).
        spec.rotary_dim = text
            .partial_rotary_factor
            .filter(|f| *f > 0.0 && *f < 1.0)
            .map(|f| (spec.head_dim as f64 * f).trunc() as u64);
        // `MoEGate`: float32 weight, float32 `e_score_correction_bias` with `topk_method = "noaux_tc"`.
        spec.router_fp32 = true;
        spec.routing_bias = spec.moe.is_some() && text.topk_method.as_deref() == Some("noaux_tc");
    }
    // families28 (issue #17): Step-3.5-Flash's full / sliding layers, dense / MoE feed-forwards and
    // the sliding kind's heads (`llm::step3p5`, lowered onto `llm::mimo_v2`).
    if arch == Architecture::Step3p5 {
        super::step3p5::blocks(text, num_layers, an)?.apply(&mut spec);
        // `Step3p5MoEMLP`: the gate in fp32 (`need_fp32_gate`) and an fp32 router bias
        // (`use_moe_router_bias`).
        spec.router_fp32 = true;
        spec.routing_bias = spec.moe.is_some();
    }
    // families30 (issue #17): Gemma 4's sliding / full layers of their own widths (`llm::gemma4`,
    // lowered onto `llm::mimo_v2`): the spec's GQA is the full kind.
    if arch == Architecture::Gemma4 {
        let b = super::gemma4::blocks(text, num_layers, an)?;
        let (kv_heads, head_dim) = super::gemma4::full_shape(text, an)?;
        if !heads.is_multiple_of(kv_heads) {
            return Err(ModelError::InvalidField {
                field: "num_global_key_value_heads".into(),
                value: kv_heads.to_string(),
                expected: format!("a divisor of num_attention_heads = {heads}"),
            });
        }
        spec.attention = Attention::Gqa {
            heads,
            kv_heads,
            head_dim,
        };
        spec.kv_heads = kv_heads;
        spec.head_dim = head_dim;
        b.apply(&mut spec);
    }
    // families19 (issue #17): Kimi-Linear's KDA / MLA layers, dense / MoE feed-forwards and KDA shape
    // (`llm::kimi_linear`).
    if arch == Architecture::KimiLinear {
        let b = super::kimi_linear::blocks(text, num_layers, an, false)?;
        spec.linear_attention = Some(b.apply(&mut spec));
        spec.context_len = context_len(text.model_max_length.or(text.max_position_embeddings))?;
    }
    // families32 (issue #17): Kimi-K3 on Kimi-Linear's layers, with its own pieces (`llm::kimi_k3`):
    // a full-rank KDA gate, an MLA output gate, attention residuals and a latent MoE. SGLang's
    // `MoEGate` (0.5.23 `deepseek_v2.py`): the router at the model dtype, the `noaux_tc` correction
    // bias float32.
    if arch == Architecture::KimiK3 {
        let b = super::kimi_linear::blocks(text, num_layers, an, true)?;
        spec.linear_attention = Some(b.apply(&mut spec));
        spec.kimi_k3 = Some(super::kimi_k3::read(text, an)?);
        spec.routing_bias = spec.moe.is_some() && text.topk_method.as_deref() == Some("noaux_tc");
        spec.context_len = context_len(text.model_max_length.or(text.max_position_embeddings))?;
    }
    // families27 (issue #17): MiniMax-Text-01 / M1's lightning and softmax layers and the lightning
    // state (`llm::minimax01`).
    if arch == Architecture::MiniMaxText01 {
        let bytes = spec.dtype.float_bytes().unwrap_or(2);
        let b = super::minimax01::blocks(text, num_layers, heads, head_dim, bytes, an)?;
        spec.mixers = b.mixers;
        spec.linear_attention = Some(b.lightning);
    }
    // families6 (issue #17): Llama-Nemotron NAS blocks (`llm::nemotron_nas`): per-layer attention
    // (or none) with one KV head count, per-layer MLP widths (or none).
    if arch == Architecture::NemotronNas {
        let b = super::nemotron_nas::blocks(text, hidden, heads, num_layers, an)?;
        spec.kv_heads = b.kv_heads;
        spec.attention = Attention::Gqa {
            heads,
            kv_heads: b.kv_heads,
            head_dim,
        };
        spec.mixers = b.mixers;
        spec.layers = b.layers;
        spec.dense_intermediate = b.widest;
    }
    // families6 (issue #17): what Hunyuan refuses (`llm::hunyuan::check`); families17: the dense one too.
    if matches!(arch, Architecture::HunYuanMoeV1 | Architecture::HunYuanDenseV1) {
        super::hunyuan::check(text, arch == Architecture::HunYuanDenseV1)?;
    }
    // families8 (issue #17): what Command R / R+ and Command R7B / A refuse (`llm::cohere::check`).
    if matches!(arch, Architecture::Cohere | Architecture::Cohere2) {
        super::cohere::check(text, spec.tie_word_embeddings, hidden, heads, an)?;
    }
    // families11 (issue #17): what InternLM2 refuses (`llm::internlm2::check`).
    if arch == Architecture::InternLM2 {
        super::internlm2::check(text, spec.tie_word_embeddings, hidden, heads, an)?;
    }
    // families13 (issue #17): what StarCoder2 refuses (`llm::starcoder2::check`).
    if arch == Architecture::Starcoder2 {
        super::starcoder2::check(text, hidden, heads, an)?;
    }
    // families15 (issue #17): what dots.llm1 refuses (`llm::dots1::check`).
    if arch == Architecture::Dots1 {
        super::dots1::check(text)?;
    }
    // families18 (issue #17): what GLM-4.1V's text tower refuses (`llm::glm4v::check_dense`).
    if arch == Architecture::Glm4v {
        super::glm4v::check_dense(text)?;
    }
    // families18 (issue #17): what Arcee refuses (`llm::arcee::check`).
    if arch == Architecture::Arcee {
        super::arcee::check(text, spec.tie_word_embeddings)?;
    }
    // families21 (issue #17): what Apertus and MiniCPM / MiniCPM3 refuse (`llm::apertus::check`,
    // `llm::minicpm::check`).
    if arch == Architecture::Apertus {
        super::apertus::check(text)?;
    }
    if matches!(arch, Architecture::MiniCpm | Architecture::MiniCpm3) {
        super::minicpm::check(text, arch == Architecture::MiniCpm3, hidden, heads)?;
    }
    // families17 (issue #17): what dense ERNIE-4.5 refuses (`llm::ernie45::check`).
    if arch == Architecture::Ernie45 {
        super::ernie45::check(text)?;
    }
    // families3 (issue #17): what OLMo-2 refuses (`llm::olmo2::check`).
    if arch.whole_width_qk_norm() {
        super::olmo2::check(text, hidden, heads, an)?;
    }
    // families3 (issue #17): both engines build OLMoE's own LM head (`models/olmoe.py`).
    if arch == Architecture::Olmoe && spec.tie_word_embeddings {
        return Err(ModelError::InvalidField {
            field: "tie_word_embeddings".into(),
            value: "true".into(),
            expected: format!(
                "false: SGLang 0.5.9 and vLLM 0.19.0 build {an}'s own ParallelLMHead and never tie it"
            ),
        });
    }
    // phi2 (issue #17): vLLM refuses a tied Phi.
    if arch == Architecture::Phi {
        super::phi::check_untied(spec.tie_word_embeddings, an)?;
    }
    if spec.moe.is_none() && quant.experts.is_some() {
        return Err(ModelError::InvalidQuantization {
            field: "experts".into(),
            expected: format!("no `experts` override: {} has no routed experts", spec.name),
        });
    }
    Ok(spec)
}

/// The language model's config (`text_config` of a multimodal wrapper, else the config itself), whether
/// the model has a vision tower, and the tower.
fn text_and_vision<'a>(
    cfg: &'a ModelConfig,
    arch: Architecture,
    arch_name: &str,
) -> Result<(&'a ModelConfig, bool, Option<VisionTower>), ModelError> {
    Ok(if matches!(arch, Architecture::KimiK25 | Architecture::KimiVl) {
        let text = required_text_config(cfg, arch_name)?;
        let text_hidden = text.hidden_size;
        // Without a `vision_config`, Kimi-K2.5's published MoonViT sizes are assumed (flagged).
        let vision = Some(VisionTower::from_json(
            cfg.vision_config.as_ref().unwrap_or(&serde_json::Value::Null),
            text_hidden.unwrap_or(0),
        ));
        (text, true, vision)
    } else if arch == Architecture::KimiK3 {
        // families32 (issue #17): the wrapper's language model is `text_config` (SGLang 0.5.23
        // `configs/kimi_k3.py` `KimiK3Config`); the text-only `KimiK3LinearForCausalLM` keeps the keys
        // at the top level. vision54: the wrapper's MoonViT3d tower and projector
        // (`llm::kimi_k3_vit`; SGLang's config class fills absent keys with its defaults).
        let multimodal = arch_name == "KimiK3ForConditionalGeneration";
        if multimodal {
            let text = required_text_config(cfg, arch_name)?;
            let th = req(text.hidden_size, "text_config.hidden_size", arch_name)?;
            let v = cfg.vision_config.as_ref().unwrap_or(&serde_json::Value::Null);
            (
                text,
                true,
                Some(super::kimi_k3_vit::kimi_k3_vit(v, th, arch_name)?),
            )
        } else {
            (cfg.text_config.as_deref().unwrap_or(cfg), false, None)
        }
    } else if arch_name == "Qwen3_5ForConditionalGeneration" {
        // qwenhyb: the dense Qwen3.5 wrapper: `text_config` plus, when the config has one, the
        // Qwen3-VL tower of `vision_config` (`vlm::qwen3_vit`).
        let text = required_text_config(cfg, arch_name)?;
        match cfg.vision_config.as_ref() {
            None => (text, false, None),
            Some(v) => {
                let th = req(text.hidden_size, "text_config.hidden_size", arch_name)?;
                (
                    text,
                    true,
                    Some(super::vlm::qwen3_vit(Some(v), th, arch_name, false)?),
                )
            }
        }
    } else if arch_name == super::internvl::INTERNVL {
        // families14 (issue #17): the language model in `llm_config` plus InternViT and `mlp1`.
        let text = super::internvl::llm_config(cfg)?;
        let th = req(text.hidden_size, "llm_config.hidden_size", arch_name)?;
        (text, true, Some(super::internvl::internvit(cfg, th)?))
    } else if arch == Architecture::Glm4vMoe {
        // families7 (issue #17): the GLM-4.5-Air text tower in `text_config` plus the GLM-4V ViT.
        let text = required_text_config(cfg, arch_name)?;
        let th = req(text.hidden_size, "text_config.hidden_size", arch_name)?;
        let tower = super::glm4v::glm4v_vit(cfg.vision_config.as_ref(), th, arch_name)?;
        (text, true, Some(tower))
    } else if arch == Architecture::Glm4v {
        // families18 (issue #17): GLM-4.1V's published config keeps the text keys at the top level
        // (transformers 4.53); re-saves nest them under `text_config`. Either is read, as for Qwen2-VL.
        let text = cfg.text_config.as_deref().unwrap_or(cfg);
        let th = req(text.hidden_size, "hidden_size", arch_name)?;
        let tower = super::glm4v::glm4v_vit(cfg.vision_config.as_ref(), th, arch_name)?;
        (text, true, Some(tower))
    } else if arch_name == super::qwen3_omni::QWEN3_OMNI {
        // families41 (issue #17): the thinker's Qwen3-MoE text model and Qwen3-VL tower, plus its audio
        // encoder; the talker and code2wav are not built (`llm::qwen3_omni`).
        let thinker = cfg
            .thinker_config
            .as_deref()
            .ok_or_else(|| ModelError::MissingField {
                field: "thinker_config".into(),
                architecture: arch_name.into(),
            })?;
        let text = thinker
            .text_config
            .as_deref()
            .ok_or_else(|| ModelError::MissingField {
                field: "thinker_config.text_config".into(),
                architecture: arch_name.into(),
            })?;
        let th = req(
            text.hidden_size,
            "thinker_config.text_config.hidden_size",
            arch_name,
        )?;
        let tower = super::vlm::qwen3_vit(thinker.vision_config.as_ref(), th, arch_name, true)?;
        let audio = super::qwen3_omni::audio_tower(thinker.audio_config.as_ref())?;
        (
            text,
            true,
            Some(VisionTower {
                audio: Some(audio),
                ..tower
            }),
        )
    } else if matches!(arch, Architecture::Qwen3Vl | Architecture::Qwen3VlMoe) {
        // qwenhyb: Qwen3-VL: a Qwen3 / Qwen3-MoE text tower in `text_config` and the Qwen3-VL ViT
        // with its DeepStack mergers (SGLang `models/qwen3_vl.py`, `qwen3_vl_moe.py`).
        let text = required_text_config(cfg, arch_name)?;
        let th = req(text.hidden_size, "text_config.hidden_size", arch_name)?;
        let tower = super::vlm::qwen3_vit(cfg.vision_config.as_ref(), th, arch_name, true)?;
        (text, true, Some(tower))
    } else if arch_name == "Qwen3_5MoeForConditionalGeneration" {
        // Same wrapper layout as Kimi-K2.5: the language model is `text_config`. Its vision tower is
        // not modelled (documented in the preset README).
        let text = required_text_config(cfg, arch_name)?;
        (text, false, None)
    } else if matches!(arch, Architecture::Qwen35Moe | Architecture::Qwen35) {
        (cfg.text_config.as_deref().unwrap_or(cfg), false, None)
    } else if arch == Architecture::Qwen25Vl {
        // h3: the published Qwen2.5-VL files keep the text keys at the top level; transformers ≥ 4.53
        // re-saves them under `text_config`. Either is read (SGLang `hf_text_config`).
        let text = cfg.text_config.as_deref().unwrap_or(cfg);
        let tower = super::vlm::qwen_vit(
            cfg.vision_config.as_ref(),
            text.hidden_size.unwrap_or(0),
            arch_name,
        )?;
        (text, true, Some(tower))
    } else if arch == Architecture::Qwen2Vl {
        // families16 (issue #17): as Qwen2.5-VL, text keys at the top level (or under `text_config`
        // in transformers ≥ 4.53 re-saves), plus the Qwen2-VL ViT.
        let text = cfg.text_config.as_deref().unwrap_or(cfg);
        let th = req(text.hidden_size, "hidden_size", arch_name)?;
        let tower = super::vlm::qwen2_vit(cfg.vision_config.as_ref(), th, arch_name)?;
        (text, true, Some(tower))
    } else if arch == Architecture::Mistral3 {
        // h3: Mistral-3 = Pixtral ViT + patch-merger projector + a Mistral (Llama-layout) text tower.
        let text = required_text_config(cfg, arch_name)?;
        mistral3_text_type(text)?;
        let tower = super::vlm::pixtral(cfg, text.hidden_size.unwrap_or(0), arch_name)?;
        (text, true, Some(tower))
    } else if arch == Architecture::Mllama {
        // h3: Llama-3.2-Vision: text tower (self- and cross-attention layers) in `text_config`.
        let text = required_text_config(cfg, arch_name)?;
        let tower = super::vlm::mllama(
            cfg.vision_config.as_ref(),
            text.hidden_size.unwrap_or(0),
            arch_name,
        )?;
        (text, true, Some(tower))
    } else if arch == Architecture::LlavaNext {
        // fam (issue #16): CLIP tower + projector + image_newline (`llava_next`).
        let text = required_text_config(cfg, arch_name)?;
        let th = req(text.hidden_size, "text_config.hidden_size", arch_name)?;
        (text, true, Some(super::llava_next::clip(cfg, th, arch_name)?))
    } else if arch_name == "Gemma4ForConditionalGeneration" {
        // families30 (issue #17): the language model in `text_config`; vision54: the vision tower of
        // `vision_config` (`llm::gemma4_vit`; without one the tower is not counted).
        let text = required_text_config(cfg, arch_name)?;
        let th = req(text.hidden_size, "text_config.hidden_size", arch_name)?;
        let tower = match cfg.vision_config.as_ref() {
            Some(v) => Some(super::gemma4_vit::gemma4_vit(v, th, arch_name)?),
            None => None,
        };
        (text, true, tower)
    } else if arch_name == "Gemma3ForConditionalGeneration" || arch == Architecture::Llama4 {
        // Local/global attention families (issue #16): text_config + a SigLIP / Llama-4 vision tower.
        let text = required_text_config(cfg, arch_name)?;
        let th = req(text.hidden_size, "text_config.hidden_size", arch_name)?;
        let v = super::local_attention::vision_tower(arch, cfg.vision_config.as_ref(), th, arch_name)?;
        (text, true, Some(v))
    } else {
        (cfg, false, None)
    })
}

/// families12 (issue #17): the text `model_type` of Ministral 3 (transformers ≥ 5 `Ministral3Config`).
const MINISTRAL3: &str = "ministral3";
/// families31 (issue #17): Ministral 3's text model class (transformers ≥ 5, SGLang `models/ministral3.py`).
const MINISTRAL3_CLASS: &str = "Ministral3ForCausalLM";

/// families12 (issue #17): the text towers a `Mistral3ForConditionalGeneration` may carry: Mistral
/// (`"mistral"`, Mistral-Small-3.1/3.2) or Ministral 3 (`"ministral3"`: Ministral 3, Devstral Small 2),
/// both the Llama layout in both engines (SGLang `models/ministral3.py` `Ministral3ForCausalLM(
/// LlamaForCausalLM)`; vLLM `models/mistral3.py` builds `text_config` through its registry). A config
/// without a text `model_type` is read as Mistral. Any other type is refused: its layers are not the
/// Llama layout tpsim would cost.
fn mistral3_text_type(text: &ModelConfig) -> Result<(), ModelError> {
    match text.model_type.as_deref() {
        None | Some("mistral") | Some(MINISTRAL3) => Ok(()),
        Some(other) => Err(ModelError::InvalidField {
            field: "text_config.model_type".into(),
            value: other.into(),
            expected: format!(
                "\"mistral\" or \"{MINISTRAL3}\" (the Llama-layout text towers of \
                 Mistral3ForConditionalGeneration tpsim lowers)"
            ),
        }),
    }
}

/// `text_config`, which `arch_name` requires.
fn required_text_config<'a>(cfg: &'a ModelConfig, arch_name: &str) -> Result<&'a ModelConfig, ModelError> {
    cfg.text_config
        .as_deref()
        .ok_or_else(|| ModelError::MissingField {
            field: "text_config".into(),
            architecture: arch_name.into(),
        })
}

/// The attention layout, KV heads and head width (MLA for the DeepSeek family, GQA otherwise).
fn attention_of(
    text: &ModelConfig,
    arch: Architecture,
    hidden: u64,
    heads: u64,
    an: &str,
) -> Result<(Attention, u64, u64), ModelError> {
    // families19 (issue #17): Kimi-Linear's full-attention layers are MLA without q compression
    // (`llm::kimi_linear`).
    // families21 (issue #17): MiniCPM3's attention is MLA with q compression (`llm::minicpm`).
    // families32 (issue #17): Kimi-K3's, with q compression (`llm::kimi_k3`).
    let mla = is_deepseek_mla(arch)
        || matches!(
            arch,
            Architecture::KimiLinear | Architecture::MiniCpm3 | Architecture::KimiK3
        );
    Ok(if mla {
        let kv_lora_rank = req(text.kv_lora_rank, "kv_lora_rank", an)?;
        let qk_nope_head_dim = req(text.qk_nope_head_dim, "qk_nope_head_dim", an)?;
        let qk_rope_head_dim = req(text.qk_rope_head_dim, "qk_rope_head_dim", an)?;
        // families21 (issue #17): MiniCPM3Config defaults `v_head_dim` to `qk_nope_head_dim`.
        let v_head_dim = if arch == Architecture::MiniCpm3 {
            req(super::minicpm::v_head_dim(text), "v_head_dim", an)?
        } else {
            req(text.v_head_dim, "v_head_dim", an)?
        };
        let q_lora_rank = match opt(text.q_lora_rank, "q_lora_rank", true)? {
            Some(0) => None,
            other => other,
        };
        (
            Attention::Mla {
                q_lora_rank,
                kv_lora_rank,
                qk_nope_head_dim,
                qk_rope_head_dim,
                v_head_dim,
            },
            heads,
            qk_nope_head_dim + qk_rope_head_dim,
        )
    } else {
        // families28 (issue #17): Step-3.5 names them `num_attention_groups`.
        let kv_heads = opt(
            text.num_key_value_heads.or(text.num_attention_groups),
            "num_key_value_heads",
            false,
        )?
        .unwrap_or(heads);
        if !heads.is_multiple_of(kv_heads) {
            return Err(ModelError::InvalidField {
                field: "num_key_value_heads".into(),
                value: kv_heads.to_string(),
                expected: format!("a divisor of num_attention_heads ({heads})"),
            });
        }
        // families6 (issue #17): Hunyuan reads `head_dim`, else `attention_head_dim` (SGLang 0.5.9
        // `hunyuan.py` `_get_head_dim`; vLLM 0.19.0 `hunyuan_v1.py` `HunYuanAttention`).
        let explicit = match (arch, text.head_dim) {
            (Architecture::HunYuanMoeV1 | Architecture::HunYuanDenseV1, None) => text.attention_head_dim,
            (_, d) => d,
        };
        let head_dim = match opt(explicit, "head_dim", false)? {
            Some(d) => d,
            // h5 (issue #16): Gemma-3 configs may leave `head_dim` to HF `Gemma3TextConfig`'s default
            // 256 (google/gemma-3-12b-it's text_config does: 256, not 3840 / 16 = 240; vLLM reads the
            // HF config object, so it uses 256 too).
            None if arch == Architecture::Gemma3 => super::local_attention::GEMMA3_DEFAULT_HEAD_DIM,
            None if hidden.is_multiple_of(heads) => hidden / heads,
            None => {
                return Err(ModelError::MissingField {
                    field: "head_dim (hidden_size is not a multiple of num_attention_heads)".into(),
                    architecture: an.into(),
                });
            }
        };
        (
            Attention::Gqa {
                heads,
                kv_heads,
                head_dim,
            },
            kv_heads,
            head_dim,
        )
    })
}

/// The feed-forward block of each layer, the MoE shape, the dense MLP width and the leading dense
/// layers, by family.
fn feed_forward(
    text: &ModelConfig,
    arch: Architecture,
    num_layers: u64,
    num_layers_u32: u32,
    an: &str,
) -> Result<FeedForward, ModelError> {
    Ok(match arch {
        // families25 (issue #17): LongCat-Flash, two blocks a layer (`llm::longcat`); before the MLA
        // families' arm (its attention is DeepSeek's, its layers are not).
        Architecture::LongcatFlash => super::longcat::feed_forward(text, num_layers, an)?,
        // families7 (issue #17): GLM-4.5V's text tower is GLM-4.5-Air's (`llm::glm4v`).
        a if matches!(a, Architecture::Glm4Moe | Architecture::Glm4vMoe) || is_deepseek_mla(a) => {
            deepseek_style_ffn(text, num_layers, an)?
        }
        // families15 (issue #17): dots.llm1's `Dots1DecoderLayer` picks MoE by the same rule (vLLM
        // 0.19.0 `dots1.py`: `layer_idx >= first_k_dense_replace and layer_idx % moe_layer_freq == 0`).
        Architecture::Dots1 => deepseek_style_ffn(text, num_layers, an)?,
        // families36 (issue #17): Hunyuan V3's dense prefix then MoE, its own keys (`llm::hy3`).
        Architecture::Hy3 => super::hy3::feed_forward(text, num_layers)?,
        // families38 (issue #17): MiniMax-M3, dense where `moe_layer_freq` is 0 (`llm::minimax_m3`).
        Architecture::MiniMaxM3 => super::minimax_m3::feed_forward(&super::minimax_m3::Geometry::read(
            text,
            super::minimax_m3::TEXT,
        )?),
        // dsv4run55 (issue #17): DeepSeek-V4, a MoE with shared experts in every layer
        // (`llm::deepseek_v4::feed_forward`).
        Architecture::DeepseekV4 => {
            super::deepseek_v4::feed_forward(&super::deepseek_v4::Geometry::read(text)?)
        }
        // h3: Qwen2-MoE shares Qwen3-MoE's layer pattern and adds one shared expert (SGLang 0.5.9 /
        // vLLM 0.11.0 `models/qwen2_moe.py`: a layer is sparse when it is not in `mlp_only_layers`
        // and (i + 1) % decoder_sparse_step == 0; `Qwen2MoeMLP(shared_expert_intermediate_size)`).
        Architecture::Qwen3Moe | Architecture::Qwen2Moe => qwen_moe_ffn(text, arch, num_layers, an)?,
        // qwenhyb: Qwen3-VL-MoE's text tower is Qwen3-MoE's (SGLang `qwen3_vl_moe.py` builds
        // `Qwen3MoeModel`); Qwen3-VL's dense one falls through to `dense_ffn`.
        Architecture::Qwen3VlMoe => qwen_moe_ffn(text, arch, num_layers, an)?,
        // qwenhyb: Qwen3-Next builds the same block in every layer (SGLang `qwen3_next.py`:
        // "Qwen3Next all layers are sparse", `Qwen2MoeSparseMoeBlock` with its shared expert).
        Architecture::Qwen35Moe | Architecture::Qwen3Next => qwen35_ffn(text, num_layers, an)?,
        // The dense Qwen3.5 (9B, 27B, …): `Qwen3_5MLP(intermediate_size)` in every layer (SGLang
        // `models/qwen3_5.py`), falling through to `dense_ffn`.
        // MiniMax-M2: every layer is MoE; `intermediate_size` is the expert width (SGLang
        // `minimax_m2.py` builds `FusedMoE(intermediate_size=config.intermediate_size)`, no dense MLP).
        // gpt-oss: the same, no shared expert (vLLM `models/gpt_oss.py` `MLPBlock`:
        // `FusedMoE(num_experts=num_local_experts, top_k=num_experts_per_tok,
        // intermediate_size=intermediate_size)`).
        Architecture::MiniMaxM2 | Architecture::GptOss => all_moe_ffn(text, arch, num_layers, an)?,
        // families27 (issue #17): MiniMax-Text-01 / M1, the same: vLLM 0.11.0 `minimax_text_01.py`
        // builds `MiniMaxText01MoE(num_local_experts, num_experts_per_tok, intermediate_size)` in
        // every layer (`llm::minimax01`).
        Architecture::MiniMaxText01 => all_moe_ffn(text, arch, num_layers, an)?,
        // fam (issue #16): GraniteMoE and Phi-3.5-MoE: every layer `FusedMoE(num_local_experts,
        // num_experts_per_tok, intermediate_size)` behind a bias-free replicated router, no shared
        // expert (SGLang 0.5.9 / vLLM 0.11.0 `models/granitemoe.py`, `models/phimoe.py`).
        Architecture::GraniteMoe | Architecture::PhiMoe => all_moe_ffn(text, arch, num_layers, an)?,
        // families3 (issue #17): OLMoE, every layer `FusedMoE(num_experts, num_experts_per_tok,
        // intermediate_size)` behind a bias-free `ReplicatedLinear` router, no shared expert
        // (SGLang 0.5.9 / vLLM 0.19.0 `models/olmoe.py` `OlmoeMoE`).
        Architecture::Olmoe => all_moe_ffn(text, arch, num_layers, an)?,
        // Local/global attention families (issue #16): Mixtral (every layer MoE, experts of
        // `intermediate_size`, SGLang `mixtral.py` `MixtralMoE`) and Llama-4 (MoE iff (i + 1) %
        // interleave_moe_layer_step == 0 with one shared expert of `intermediate_size`, dense layers
        // of `intermediate_size_mlp`: SGLang `llama4.py` `_is_moe_layer`, `Llama4MoE.shared_expert`).
        Architecture::Mixtral | Architecture::Llama4 => local_moe_ffn(text, arch, num_layers, an)?,
        // families (issue #17): Granite-4.0-H's feed-forward is set by `granite_hybrid::blocks`.
        Architecture::GraniteMoeHybrid => (Vec::new(), None, 0, 0),
        // families19 (issue #17): Kimi-Linear's is set by `kimi_linear::blocks`.
        // families32 (issue #17): Kimi-K3's likewise (`llm::kimi_k3`).
        Architecture::KimiLinear | Architecture::KimiK3 => (Vec::new(), None, 0, 0),
        // families22 (issue #17): LFM2's and LFM2-MoE's by `lfm2::blocks`.
        Architecture::Lfm2 | Architecture::Lfm2Moe => (Vec::new(), None, 0, 0),
        // families23 (issue #17): MiMo-V2-Flash's by `mimo_v2::blocks`.
        // families28 (issue #17): Step-3.5's by `step3p5::blocks`.
        Architecture::MiMoV2Flash | Architecture::Step3p5 => (Vec::new(), None, 0, 0),
        // families (issue #17): ERNIE-4.5 MoE (`llm::ernie`).
        Architecture::Ernie45Moe => super::ernie::feed_forward(text, num_layers, an)?,
        // families2 (issue #17): Bailing MoE V2 (`llm::bailing`).
        Architecture::BailingMoeV2 => super::bailing::feed_forward(text, num_layers, an)?,
        // families6 (issue #17): per-layer widths from `block_configs` (`llm::nemotron_nas`), set in
        // `lower`; `intermediate_size` is null in the published configs.
        Architecture::NemotronNas => (Vec::new(), None, 0, num_layers_u32),
        // families6 (issue #17): Hunyuan-A13B, every layer MoE with a shared MLP (`llm::hunyuan`).
        Architecture::HunYuanMoeV1 => super::hunyuan::feed_forward(text, num_layers, an)?,
        // families24 (issue #17): Grok-1 / Grok-2, every layer MoE, Grok-2's residual MLP as shared
        // experts (`llm::grok`).
        Architecture::Grok1 => super::grok::feed_forward(text, num_layers, an)?,
        _ => dense_ffn(text, num_layers, num_layers_u32, an)?,
    })
}

/// DeepSeek-style MoE (DeepSeek, Kimi, GLM-MoE, DSA): a dense prefix of `first_k_dense_replace` layers, then MoE every `moe_layer_freq` layers with shared experts.
fn deepseek_style_ffn(text: &ModelConfig, num_layers: u64, an: &str) -> Result<FeedForward, ModelError> {
    let dense = req(text.intermediate_size, "intermediate_size", an)?;
    let e = req(text.n_routed_experts, "n_routed_experts", an)?;
    let k = req(text.num_experts_per_tok, "num_experts_per_tok", an)?;
    let mi = req(text.moe_intermediate_size, "moe_intermediate_size", an)?;
    let shared =
        opt(text.n_shared_experts, "n_shared_experts", true)?.ok_or_else(|| ModelError::MissingField {
            field: "n_shared_experts".into(),
            architecture: an.into(),
        })?;
    let first_k = text
        .first_k_dense_replace
        .ok_or_else(|| ModelError::MissingField {
            field: "first_k_dense_replace".into(),
            architecture: an.into(),
        })?;
    let freq = text
        .moe_layer_freq
        .as_ref()
        .and_then(LayerFreq::every)
        .unwrap_or(1)
        .max(1);
    check_k(k, e)?;
    let shape = MoeShape::new(e, k, mi, shared);
    let layers = (0..num_layers)
        .map(|i| {
            if i >= first_k && i.is_multiple_of(freq) {
                Ffn::Moe(shape)
            } else {
                Ffn::Dense { intermediate: dense }
            }
        })
        .collect();
    Ok((layers, Some(shape), dense, first_k.min(num_layers) as u32))
}

/// Qwen3-MoE and Qwen2-MoE: MoE unless in `mlp_only_layers` or off the `decoder_sparse_step` (Qwen2-MoE adds a shared expert).
fn qwen_moe_ffn(
    text: &ModelConfig,
    arch: Architecture,
    num_layers: u64,
    an: &str,
) -> Result<FeedForward, ModelError> {
    let e = req(text.num_experts, "num_experts", an)?;
    let k = req(text.num_experts_per_tok, "num_experts_per_tok", an)?;
    let mi = req(text.moe_intermediate_size, "moe_intermediate_size", an)?;
    check_k(k, e)?;
    let step = text.decoder_sparse_step.unwrap_or(1).max(1);
    let dense_only = text.mlp_only_layers.clone().unwrap_or_default();
    let dense = text.intermediate_size.unwrap_or(0);
    let n_shared = if arch == Architecture::Qwen2Moe {
        qwen2_moe_shared(text, mi)?
    } else {
        0
    };
    let shape = MoeShape::new(e, k, mi, n_shared);
    let mut layers = Vec::new();
    for i in 0..num_layers {
        if !dense_only.contains(&i) && (i + 1).is_multiple_of(step) {
            layers.push(Ffn::Moe(shape));
        } else {
            // A dense layer needs its width.
            let d = req(text.intermediate_size, "intermediate_size", an)?;
            layers.push(Ffn::Dense { intermediate: d });
        }
    }
    let first_k = layers
        .iter()
        .take_while(|l| matches!(l, Ffn::Dense { .. }))
        .count() as u32;
    Ok((layers, Some(shape), dense, first_k))
}

/// Qwen3.5 MoE: every layer MoE with one shared expert of `shared_expert_intermediate_size`.
fn qwen35_ffn(text: &ModelConfig, num_layers: u64, an: &str) -> Result<FeedForward, ModelError> {
    let e = req(text.num_experts, "num_experts", an)?;
    let k = req(text.num_experts_per_tok, "num_experts_per_tok", an)?;
    let mi = req(text.moe_intermediate_size, "moe_intermediate_size", an)?;
    let si = req(
        text.shared_expert_intermediate_size,
        "shared_expert_intermediate_size",
        an,
    )?;
    let shape = moe_shape(
        (e, k, mi, si),
        [
            "num_experts_per_tok",
            "moe_intermediate_size",
            "shared_expert_intermediate_size",
        ],
    )?;
    // Every layer is sparse (SGLang `qwen3_next.py`: `is_layer_sparse = True`).
    let layers = (0..num_layers).map(|_| Ffn::Moe(shape)).collect();
    Ok((layers, Some(shape), text.intermediate_size.unwrap_or(0), 0))
}

/// MiniMax-M2 and gpt-oss: every layer MoE of `intermediate_size`, no shared expert.
fn all_moe_ffn(
    text: &ModelConfig,
    arch: Architecture,
    num_layers: u64,
    an: &str,
) -> Result<FeedForward, ModelError> {
    // families3 (issue #17): OLMoE spells the expert count `num_experts` (HF `OlmoeConfig`).
    let e = if arch == Architecture::Olmoe {
        req(text.num_experts, "num_experts", an)?
    } else {
        req(text.num_local_experts, "num_local_experts", an)?
    };
    let k = req(text.num_experts_per_tok, "num_experts_per_tok", an)?;
    let mi = req(text.intermediate_size, "intermediate_size", an)?;
    check_k(k, e)?;
    if let Some(s) = text
        .shared_intermediate_size
        .filter(|&s| s != 0 && arch == Architecture::MiniMaxM2)
    {
        return Err(ModelError::InvalidField {
            field: "shared_intermediate_size".into(),
            value: s.to_string(),
            expected: "0 (MiniMax-M2 has no shared expert; SGLang's minimax_m2.py builds none)".into(),
        });
    }
    let shape = MoeShape::new(e, k, mi, 0);
    Ok(moe_where(num_layers, shape, 0, |_| true))
}

/// Mixtral (every layer MoE) and Llama-4 (MoE every `interleave_moe_layer_step` layers, a shared expert, dense layers of `intermediate_size_mlp`).
fn local_moe_ffn(
    text: &ModelConfig,
    arch: Architecture,
    num_layers: u64,
    an: &str,
) -> Result<FeedForward, ModelError> {
    let e = req(text.num_local_experts, "num_local_experts", an)?;
    let k = req(text.num_experts_per_tok, "num_experts_per_tok", an)?;
    let mi = req(text.intermediate_size, "intermediate_size", an)?;
    check_k(k, e)?;
    let llama4 = arch == Architecture::Llama4;
    let shape = MoeShape::new(e, k, mi, u64::from(llama4));
    let step = if llama4 {
        req(text.interleave_moe_layer_step, "interleave_moe_layer_step", an)?
    } else {
        1
    };
    let dense = if step > 1 {
        req(text.intermediate_size_mlp, "intermediate_size_mlp", an)?
    } else {
        0
    };
    Ok(moe_where(num_layers, shape, dense, |i| {
        (i + 1).is_multiple_of(step)
    }))
}

/// Layer `i` MoE of `shape` where `is_moe(i)`, else a dense MLP of `dense`; the MoE shape when any
/// layer is MoE, and the leading dense layers.
pub(crate) fn moe_where(
    num_layers: u64,
    shape: MoeShape,
    dense: u64,
    is_moe: impl Fn(u64) -> bool,
) -> FeedForward {
    let layers: Vec<Ffn> = (0..num_layers)
        .map(|i| {
            if is_moe(i) {
                Ffn::Moe(shape)
            } else {
                Ffn::Dense { intermediate: dense }
            }
        })
        .collect();
    let first_k = layers
        .iter()
        .take_while(|l| matches!(l, Ffn::Dense { .. }))
        .count() as u32;
    let moe = layers.iter().any(|l| matches!(l, Ffn::Moe(_))).then_some(shape);
    (layers, moe, dense, first_k)
}

/// Dense models: one MLP of `intermediate_size` per layer.
fn dense_ffn(
    text: &ModelConfig,
    num_layers: u64,
    num_layers_u32: u32,
    an: &str,
) -> Result<FeedForward, ModelError> {
    let dense = req(text.intermediate_size, "intermediate_size", an)?;
    Ok((
        (0..num_layers)
            .map(|_| Ffn::Dense { intermediate: dense })
            .collect(),
        None,
        dense,
        num_layers_u32,
    ))
}

/// Each layer's feed-forward block, the MoE shape if any, the dense MLP width and the leading dense
/// layers.
pub(crate) type FeedForward = (Vec<Ffn>, Option<MoeShape>, u64, u32);

/// Each layer's token mixer, the linear-attention shape of hybrids, and the window / chunk of local
/// layers (`local_attention`; gpt-oss included).
fn mixers_of(
    text: &ModelConfig,
    arch: Architecture,
    num_layers: u64,
    num_layers_u32: u32,
    an: &str,
) -> Result<Mixers, ModelError> {
    let (mixers, linear_attention) = if arch.is_qwen_hybrid() {
        (
            hybrid_mixers(text, num_layers, an)?,
            Some(gated_delta_net(text, an)?),
        )
    } else {
        (Vec::new(), None)
    };
    // Sliding-window / chunked local layers (`local_attention`; gpt-oss included).
    let local = matches!(
        arch,
        Architecture::GptOss
            | Architecture::Gemma
            | Architecture::Gemma2
            | Architecture::Gemma3
            | Architecture::Mistral
            | Architecture::Mixtral
            | Architecture::Llama4
            | Architecture::Cohere2
            | Architecture::Exaone4
            // families9 (issue #17): OLMo-2/3 read `layer_types` (`llm::olmo2`).
            | Architecture::Olmo2
            // families13 (issue #17): every StarCoder2 layer slides under vLLM (`llm::starcoder2`).
            | Architecture::Starcoder2
    );
    // fam (issue #16): LLaVA-NeXT's Mistral text tower slides when its `sliding_window` is set.
    let (arch, local) = if arch == Architecture::LlavaNext {
        (Architecture::Mistral, true)
    } else {
        (arch, local)
    };
    let (mixers, sliding_window, attention_chunk_size) = if !local {
        let n = num_layers_u32 as usize;
        (
            if mixers.is_empty() {
                vec![Mixer::Attention; n]
            } else {
                mixers
            },
            None,
            None,
        )
    } else {
        if arch == Architecture::GptOss {
            req(text.sliding_window, "sliding_window", an)?;
        }
        super::local_attention::mixers(arch, text, num_layers, an)?
    };
    Ok((mixers, linear_attention, sliding_window, attention_chunk_size))
}

/// Each layer's mixer, the Gated DeltaNet shape of hybrids, the sliding window and the chunk size.
type Mixers = (Vec<Mixer>, Option<GatedDeltaNet>, Option<u64>, Option<u64>);

/// Biases and norms beside the projections: `(attention_bias, qk_norm, qk_norm_full_width,
/// routing_bias)`.
fn biases_and_norms(text: &ModelConfig, arch: Architecture) -> Result<(bool, bool, bool, bool), ModelError> {
    let attention_bias = match arch {
        // gpt-oss: `QKVParallelLinear` / `RowParallelLinear` with their default bias (vLLM `gpt_oss.py`).
        // families4 (issue #17): MiMo's decoder layers are SGLang 0.5.9 / vLLM 0.19.0
        // `qwen2.Qwen2DecoderLayer` (`models/mimo.py`), whose `qkv_proj` has `bias=True`.
        Architecture::Qwen2 | Architecture::Mimo | Architecture::GptOss => true,
        // h3: Qwen2.5-VL's text tower is Qwen2 (bias on q/k/v); Qwen2-MoE reads `qkv_bias`, default
        // true (SGLang 0.5.9 `qwen2_moe.py`); GLM/GLM-4 read `attention_bias`.
        Architecture::Qwen25Vl | Architecture::Qwen2Moe => true,
        // families16 (issue #17): Qwen2-VL's text tower is Qwen2 too (vLLM 0.11.0 builds
        // `Qwen2ForCausalLM` for it; SGLang 0.5.8 `Qwen2Model`).
        Architecture::Qwen2Vl => true,
        // fam (issue #16): GraniteMoE's projections never carry a bias (SGLang 0.5.9 / vLLM 0.11.0
        // `models/granitemoe.py`: `bias=False`); Phi-3.5-MoE reads `attention_bias` (SGLang; vLLM
        // 0.11.0 hard-codes `bias=True`, as the published config says).
        Architecture::GraniteMoe => false,
        // phi2 (issue #17): vLLM 0.19.0 `models/phi.py` `PhiAttention`: `QKVParallelLinear(..., bias=True)`.
        Architecture::Phi => true,
        // families (issue #17): Seed-OSS's q/k/v carry biases (SGLang `models/seed_oss.py`:
        // `getattr(config, "attention_bias", True)`; vLLM `models/seed_oss.py` hard-codes
        // `bias=True`); o_proj never does in either engine, whatever `attention_out_bias` says.
        Architecture::SeedOss => text.attention_bias.unwrap_or(true),
        // families (issue #17): ERNIE-4.5's projections carry biases only with `use_bias`, which
        // `llm::ernie` refuses (every published config says false).
        Architecture::Ernie45Moe => false,
        // families17 (issue #17): dense ERNIE-4.5 likewise (`use_bias` refused by `llm::ernie45`).
        Architecture::Ernie45 => false,
        // families18 (issue #17): GLM-4.1V reads `attention_bias`, which `llm::glm4v::check_dense`
        // requires (the engines' defaults differ).
        Architecture::Glm4v => text.attention_bias == Some(true),
        // families18 (issue #17): Arcee's biases are refused by `llm::arcee::check`.
        Architecture::Arcee => false,
        // families20 (issue #17): Falcon-H1's q/k/v and o are built with `bias=False` in both engines
        // (SGLang 0.5.8 / vLLM 0.19.0 `models/falcon_h1.py`), whatever `projectors_bias` says.
        Architecture::FalconH1 => false,
        // families21 (issue #17): Apertus's biases are refused by `llm::apertus::check`; MiniCPM's and
        // MiniCPM3's projections are built with `bias=False` in both engines (`models/minicpm.py`,
        // `models/minicpm3.py`), whatever the config says.
        Architecture::Apertus | Architecture::MiniCpm | Architecture::MiniCpm3 => false,
        // families22 (issue #17): LFM2's q/k/v and out_proj are built with `bias=False` in both engines
        // (vLLM 0.11.1 / SGLang 0.5.9 `lfm2.py`, `lfm2_moe.py`).
        Architecture::Lfm2 | Architecture::Lfm2Moe => false,
        // families2 (issue #17): Bailing's fused `query_key_value` is biased with `use_bias or
        // use_qkv_bias` (SGLang / vLLM `models/bailing_moe.py`); `use_bias` is refused by
        // `llm::bailing`, and `dense` (o_proj) is biased only with `use_bias`.
        Architecture::BailingMoeV2 => text.use_qkv_bias.unwrap_or(false),
        // families2 (issue #17): Cohere's projections are built with `bias=False` in both engines
        // (`models/commandr.py`), whatever `attention_bias` says.
        Architecture::Cohere2 | Architecture::Cohere => false,
        // families3 (issue #17): OLMo-2's projections carry no bias (vLLM 0.19.0 `olmo2.py` hard-codes
        // `bias=False`; `attention_bias = true` is refused by `llm::olmo2::check`).
        Architecture::Olmo2 | Architecture::Olmoe => false,
        // families5 (issue #17): SGLang 0.5.9 `exaone4.py` never biases the projections (a biased
        // config is refused by `llm::exaone4::check`).
        Architecture::Exaone4 => false,
        // families13 (issue #17): StarCoder2's `qkv_proj` is biased with `use_bias` (HF default true;
        // SGLang 0.5.8 / vLLM 0.19.0 `models/starcoder2.py`).
        Architecture::Starcoder2 => super::starcoder2::use_bias(text),
        _ => text.attention_bias.unwrap_or(false),
    };
    let qk_norm = match arch {
        Architecture::Qwen3 | Architecture::Qwen3Moe => true,
        // Qwen3-VL's text towers are Qwen3 / Qwen3-MoE.
        Architecture::Qwen3Vl | Architecture::Qwen3VlMoe => true,
        // Qwen3-Next / Qwen3.5: `q_norm` / `k_norm` per head (`Qwen3HybridAttentionDecoderLayer`).
        a if a.is_qwen_hybrid() => true,
        // Gemma-3: per-head q/k RMSNorm; Llama-4's `use_qk_norm` is an L2 norm without weights.
        Architecture::Gemma3 => true,
        Architecture::Llama4 => false,
        // families3 (issue #17): OLMo-2's q/k norms span the whole projection (`llm::olmo2`).
        Architecture::Olmo2 | Architecture::Olmoe => true,
        // families5 (issue #17): EXAONE 4's per-head `q_norm` / `k_norm` (`llm::exaone4`).
        Architecture::Exaone4 => true,
        // families15 (issue #17): dots.llm1 always builds per-head `q_norm` / `k_norm` (`llm::dots1`).
        Architecture::Dots1 => true,
        // families21 (issue #17): Apertus always builds per-head `q_norm` / `k_norm` (SGLang 0.5.9 /
        // vLLM 0.11.0 `apertus.py`; the config's `qk_norm` is not read).
        Architecture::Apertus => true,
        // families22 (issue #17): LFM2's per-head `q_layernorm` / `k_layernorm` (`llm::lfm2`).
        Architecture::Lfm2 | Architecture::Lfm2Moe => true,
        // families28 (issue #17): Step-3.5 always builds per-head `q_norm` / `k_norm` (SGLang 0.5.9
        // `step3p5.py` `Step3p5Attention`, vLLM 0.34.0 `GemmaRMSNorm(head_dim)`).
        Architecture::Step3p5 => true,
        // families30 (issue #17): Gemma 4 always builds per-head `q_norm` / `k_norm` (SGLang 0.5.23
        // `gemma4_causal.py` `Gemma4Attention`, vLLM 0.34.0 `gemma4.py`).
        Architecture::Gemma4 => true,
        // families36 (issue #17): Hunyuan V3's per-head norms: SGLang 0.5.11 – 0.5.23 `hunyuan_v3.py`
        // reads `use_qk_norm`, else `qk_norm`; vLLM 0.20.0 – 0.34.0 `hy_v3.py` reads `qk_norm` (the
        // published config sets `qk_norm` only, so both agree on it).
        Architecture::Hy3 => text.use_qk_norm.or(text.qk_norm).unwrap_or(false),
        _ => text.use_qk_norm.unwrap_or(false),
    };
    // MiniMax-M2's q/k norm spans all heads (SGLang `MiniMaxM2RMSNormTP`); any other type is refused
    // by the engine ("Unsupported qk_norm_type").
    let qk_norm_full_width = arch == Architecture::MiniMaxM2 && qk_norm;
    if qk_norm_full_width && let Some(t) = text.qk_norm_type.as_deref().filter(|t| *t != "per_layer") {
        return Err(ModelError::InvalidField {
            field: "qk_norm_type".into(),
            value: t.into(),
            expected: "\"per_layer\" (the only type SGLang's minimax_m2.py supports)".into(),
        });
    }
    // fp32 `e_score_correction_bias` beside the router: DeepSeek/GLM noaux_tc routing always,
    // MiniMax-M2 when `use_routing_bias` (SGLang default false).
    let routing_bias = match arch {
        Architecture::DeepseekV3 | Architecture::KimiK25 | Architecture::Glm4Moe | Architecture::Glm4vMoe => {
            true
        }
        // families31 (issue #17): both engines' `adapt_config_dict` write `topk_method = None` for
        // Mistral Large 3 (SGLang 0.5.9 `utils/mistral_utils.py`, vLLM 0.13.0
        // `transformers_utils/configs/mistral.py` `_remap_moe_args`), and `DeepseekV2MoE` makes the
        // bias only for "noaux_tc" (SGLang 0.5.9 / vLLM 0.13.0 `models/deepseek_v2.py`).
        Architecture::MistralLarge3 => text.topk_method.as_deref() == Some("noaux_tc"),
        // h2: DeepSeek-V2 (`greedy`/`group_limited_greedy`) has none; the others say `noaux_tc`.
        a if is_deepseek_mla(a) => text.topk_method.as_deref().is_none_or(|m| m == "noaux_tc"),
        Architecture::MiniMaxM2 => text.use_routing_bias.unwrap_or(false),
        // families38 (issue #17): MiniMax-M3's fp32 `e_score_correction_bias` when `use_routing_bias`
        // (SGLang 0.5.23 `minimax_m3.py` `MiniMaxM3MoE`: `torch.empty(num_local_experts,
        // dtype=torch.float32)`).
        Architecture::MiniMaxM3 => text.use_routing_bias.unwrap_or(false),
        // families2 (issue #17): Bailing's fp32 `expert_bias` (`llm::bailing`).
        Architecture::BailingMoeV2 => text.moe_router_enable_expert_bias.unwrap_or(false),
        // families15 (issue #17): dots.llm1's with `topk_method = "noaux_tc"` (`llm::dots1`).
        Architecture::Dots1 => super::dots1::routing_bias(text),
        // families36 (issue #17): Hunyuan V3's `expert_bias`, always built, fp32 (SGLang 0.5.11 –
        // 0.5.23 `hunyuan_v3.py` `HYV3MoEFused`: `torch.empty(num_experts, dtype=torch.float32)`).
        Architecture::Hy3 => true,
        _ => false,
    };

    Ok((attention_bias, qk_norm, qk_norm_full_width, routing_bias))
}

// h2 (issue #16): DeepSeek MLA families and the DSA indexer.
/// Architectures with DeepSeek's MLA attention and DeepSeek-style MoE (`first_k_dense_replace`,
/// shared experts): SGLang treats them all as MLA (`configs/model_config.py` `_derive_model_shapes`).
fn is_deepseek_mla(arch: Architecture) -> bool {
    matches!(
        arch,
        Architecture::DeepseekV3
            | Architecture::KimiK25
            | Architecture::DeepseekV2
            | Architecture::DeepseekV32
            | Architecture::GlmMoeDsa
            | Architecture::KimiVl
            // families10 (issue #17): GLM-4.7-Flash's attention is `DeepseekV2MLAAttention` (vLLM
            // `models/glm4_moe_lite.py`; its `ModelConfig.is_deepseek_mla` lists `glm4_moe_lite`) /
            // `DeepseekV2AttentionMLA` (SGLang `models/glm4_moe_lite.py`).
            | Architecture::Glm4MoeLite
            // families25 (issue #17): LongCat-Flash's two attention blocks a layer are
            // `DeepseekV2AttentionMLA` (SGLang `models/longcat_flash.py`; `configs/model_config.py`
            // lists `LongcatFlashForCausalLM` with the MLA models).
            | Architecture::LongcatFlash
            // families31 (issue #17): Mistral Large 3 is `DeepseekV3ForCausalLM` under another name
            // (SGLang `configs/model_config.py` lists `MistralLarge3ForCausalLM` with the MLA models).
            | Architecture::MistralLarge3
    )
}

/// The DSA indexer of DeepSeek-V3.2 / GLM-5 (all three `index_*` keys required; SGLang's
/// `is_deepseek_nsa` requires `index_topk`, and its pool asserts `index_head_dim` = 128) — `None`
/// for other architectures. The indexer's query comes from the compressed query, so `q_lora_rank`
/// is required too.
fn dsa_indexer(
    text: &ModelConfig,
    arch: Architecture,
    an: &str,
) -> Result<Option<super::Indexer>, ModelError> {
    if !matches!(arch, Architecture::DeepseekV32 | Architecture::GlmMoeDsa) {
        return Ok(None);
    }
    let head_dim = req(text.index_head_dim, "index_head_dim", an)?;
    if head_dim != super::dsa::NSA_QUANT_BLOCK {
        return Err(ModelError::InvalidField {
            field: "index_head_dim".into(),
            value: head_dim.to_string(),
            expected: "128 (SGLang's NSATokenToKVPool asserts index_head_dim == 128)".into(),
        });
    }
    if text.q_lora_rank.unwrap_or(0) == 0 {
        return Err(ModelError::MissingField {
            field: "q_lora_rank".into(),
            architecture: an.into(),
        });
    }
    // presets62 (issue #17): zai-org/GLM-5.2's config.json (ai-dynamo/aiconfigurator 095f58a5,
    // model_configs/zai-org--GLM-5.2_config.json) lists `indexer_types` with `shared` layers (and
    // `index_topk_freq`, `index_skip_topk_offset`, `head_dim` 192): layers that reuse another layer's
    // token selection. tpsim gives every DSA layer its own indexer, weights and cache; it refuses rather
    // than count indexers the checkpoint does not have.
    if let Some(kinds) = &text.indexer_types
        && let Some(other) = kinds.iter().find(|k| k.as_str() != "full")
    {
        let shared = kinds.iter().filter(|k| k.as_str() != "full").count();
        return Err(ModelError::NotModelled {
            found: an.to_string(),
            why: format!(
                "config.json `indexer_types` gives {shared} of {} layers an indexer kind `{other}` (not \
                 `full`): tpsim models DSA with an indexer of its own in every layer (DeepSeek-V3.2, GLM-5) \
                 and does not model shared indexers (GLM-5.2)",
                kinds.len()
            ),
        });
    }
    Ok(Some(super::Indexer {
        n_heads: req(text.index_n_heads, "index_n_heads", an)?,
        head_dim,
        topk: req(text.index_topk, "index_topk", an)?,
    }))
}

/// A MoE shape from (routed experts, experts per token, expert width, shared width) and the config
/// keys of (experts per token, expert width, shared width): at most `e` experts per token, and a
/// shared width that is a whole number of expert widths (tpsim's [`MoeShape`] counts shared experts
/// in expert widths; 0 = none).
pub(crate) fn moe_shape(
    (e, k, inter, shared): (u64, u64, u64, u64),
    keys: [&str; 3],
) -> Result<MoeShape, ModelError> {
    if k > e {
        return Err(ModelError::InvalidField {
            field: keys[0].into(),
            value: k.to_string(),
            expected: format!("at most the number of routed experts ({e})"),
        });
    }
    // cfgfuzz: the shared width is a product of two keys on some families (Bailing's count ×
    // width): bounded as any width ([`MAX_DIM`]), or the layer's byte sums overflowed.
    if !shared.is_multiple_of(inter) || shared > MAX_DIM {
        return Err(ModelError::InvalidField {
            field: keys[2].into(),
            value: shared.to_string(),
            expected: format!("a multiple of {} ({inter}) no larger than {MAX_DIM}", keys[1]),
        });
    }
    Ok(MoeShape::new(e, k, inter, shared / inter))
}

fn check_k(k: u64, e: u64) -> Result<(), ModelError> {
    if k > e {
        return Err(ModelError::InvalidField {
            field: "num_experts_per_tok".into(),
            value: k.to_string(),
            expected: format!("at most the number of routed experts ({e})"),
        });
    }
    Ok(())
}

/// Each layer's mixer from `layer_types` (checked against the layer count), else from
/// `full_attention_interval` (layer i is full attention when (i + 1) % interval == 0).
pub(crate) fn hybrid_mixers(text: &ModelConfig, num_layers: u64, an: &str) -> Result<Vec<Mixer>, ModelError> {
    if let Some(types) = &text.layer_types {
        if types.len() as u64 != num_layers {
            return Err(ModelError::InvalidField {
                field: "layer_types".into(),
                value: format!("{} entries", types.len()),
                expected: format!("one entry per layer (num_hidden_layers = {num_layers})"),
            });
        }
        return types
            .iter()
            .map(|t| match t.as_str() {
                "full_attention" => Ok(Mixer::Attention),
                "linear_attention" => Ok(Mixer::Linear),
                other => Err(ModelError::InvalidField {
                    field: "layer_types".into(),
                    value: format!("\"{other}\""),
                    expected: "\"full_attention\" or \"linear_attention\"".into(),
                }),
            })
            .collect();
    }
    let interval = req(text.full_attention_interval, "full_attention_interval", an)?;
    Ok((0..num_layers)
        .map(|i| {
            if (i + 1).is_multiple_of(interval) {
                Mixer::Attention
            } else {
                Mixer::Linear
            }
        })
        .collect())
}

/// The Gated DeltaNet shape; every `linear_*` key is required.
pub(crate) fn gated_delta_net(text: &ModelConfig, an: &str) -> Result<GatedDeltaNet, ModelError> {
    let ssm_state_bytes = match text.mamba_ssm_dtype.as_deref() {
        // SGLang's default SGLANG_MAMBA_SSM_DTYPE = float32 (`configs/qwen3_next.py` mamba2_cache_params).
        None | Some("float32") | Some("torch.float32") => 4,
        Some("bfloat16") | Some("float16") | Some("torch.bfloat16") | Some("torch.float16") => 2,
        Some(other) => {
            return Err(ModelError::InvalidField {
                field: "mamba_ssm_dtype".into(),
                value: other.into(),
                expected: "float32, bfloat16 or float16".into(),
            });
        }
    };
    let g = GatedDeltaNet {
        num_k_heads: req(text.linear_num_key_heads, "linear_num_key_heads", an)?,
        num_v_heads: req(text.linear_num_value_heads, "linear_num_value_heads", an)?,
        head_k_dim: req(text.linear_key_head_dim, "linear_key_head_dim", an)?,
        head_v_dim: req(text.linear_value_head_dim, "linear_value_head_dim", an)?,
        conv_kernel: req(text.linear_conv_kernel_dim, "linear_conv_kernel_dim", an)?,
        ssm_state_bytes,
        declared_ssm_state_bytes: text.mamba_ssm_dtype.is_some().then_some(ssm_state_bytes),
    };
    if !g.num_v_heads.is_multiple_of(g.num_k_heads) {
        return Err(ModelError::InvalidField {
            field: "linear_num_value_heads".into(),
            value: g.num_v_heads.to_string(),
            expected: format!("a multiple of linear_num_key_heads ({})", g.num_k_heads),
        });
    }
    Ok(g)
}

/// h3: Qwen2-MoE's shared expert, as a count of `moe_intermediate_size`-wide experts (tpsim's
/// [`MoeShape`] holds shared experts that way). Absent or 0 = no shared expert (SGLang 0.5.9
/// `qwen2_moe.py` builds it only when `shared_expert_intermediate_size > 0`); otherwise it must be a
/// multiple of the expert width (Qwen1.5-MoE-A2.7B: 5632 = 4 × 1408; Qwen2-57B-A14B: 20480 = 8 × 2560).
fn qwen2_moe_shared(text: &ModelConfig, mi: u64) -> Result<u64, ModelError> {
    match opt(
        text.shared_expert_intermediate_size,
        "shared_expert_intermediate_size",
        true,
    )? {
        None | Some(0) => Ok(0),
        Some(si) if si.is_multiple_of(mi) => Ok(si / mi),
        Some(si) => Err(ModelError::InvalidField {
            field: "shared_expert_intermediate_size".into(),
            value: si.to_string(),
            expected: format!("0 or a multiple of moe_intermediate_size ({mi})"),
        }),
    }
}

/// h3: Mllama's cross-attention layer ids: required, each below `num_hidden_layers`.
fn mllama_cross_layers(text: &ModelConfig, num_layers: u64, an: &str) -> Result<Vec<u32>, ModelError> {
    let ids = text
        .cross_attention_layers
        .as_ref()
        .ok_or_else(|| ModelError::MissingField {
            field: "text_config.cross_attention_layers".into(),
            architecture: an.into(),
        })?;
    ids.iter()
        .map(|&i| {
            if i < num_layers {
                Ok(i as u32)
            } else {
                Err(ModelError::InvalidField {
                    field: "text_config.cross_attention_layers".into(),
                    value: i.to_string(),
                    expected: format!("layer ids below num_hidden_layers ({num_layers})"),
                })
            }
        })
        .collect()
}
