//! Xiaomi MiMo-V2-Flash (`MiMoV2FlashForCausalLM`, 309B total / 15B active); families23, issue #17.
//!
//! 48 decoder layers, each a GQA attention of one of two kinds per `hybrid_layer_pattern` (0 = global,
//! 1 = sliding window of `sliding_window_size` = 128 tokens), then a SwiGLU MLP or a MoE per
//! `moe_layer_freq` (a per-layer 0/1 list: the published config makes layer 0 dense and the 47 others
//! MoE). The two attention kinds differ in their KV heads (global `num_key_value_heads` = 4, sliding
//! `swa_num_key_value_heads` = 8) and both keep q/k heads of `head_dim` = 192 and values of
//! `v_head_dim` = 128; the sliding layers carry a per-head `attention_sink_bias`
//! (`add_swa_attention_sink_bias`). The MoE: 256 routed experts of 2,048, top-8, sigmoid `noaux_tc`
//! routing through an fp32 `gate` with an fp32 `e_score_correction_bias`, no shared expert. Three MTP
//! layers ship with the checkpoint (`num_nextn_predict_layers`): the target skips them.
//!
//! families40 (issue #17): `MiMoV2ForCausalLM` (MiMo-V2.5-Pro 1.02T, V2.6) is the same model under the
//! class both engines added later (SGLang 0.5.23 `models/mimo_v2.py` `EntryClass = [MiMoV2ForCausalLM,
//! MiMoV2FlashForCausalLM]`; vLLM 0.34.0 `MiMoV2ForCausalLM(MiMoV2FlashForCausalLM)`), lowered here with
//! [`MimoV2Attention::v2_class`] set. Its checkpoints store q/k/v as one `qkv_proj` interleaved in
//! `num_key_value_heads` tensor-parallel chunks ([`MimoV2Attention::fused_qkv_chunks`]): a rank's
//! parameters are the split layout's shard, the loadable tp is the engines' rule
//! (`sim::scenario::vllm_diffkv::fused_qkv`).
//!
//! Sources, read from the PyPI wheels: SGLang 0.5.7 / 0.5.8 / 0.5.9 / 0.5.10
//! `srt/models/mimo_v2_flash.py` (`MiMoV2Attention`: `QKVParallelLinear(head_dim, heads, kv_heads,
//! v_head_size = v_head_dim)`, `o_proj` `RowParallelLinear(heads × v_head_dim, hidden)`,
//! `attention_sink_bias` of `heads / tp`, `v = v * v_scale` before attention; `MoEGate` weight and
//! correction bias float32; `MiMoV2MoE` refuses tp > n_routed_experts and a non-silu activation;
//! `MiMoV2DecoderLayer.is_swa_layer` / `is_moe_layer`), `srt/configs/model_config.py`
//! (`is_hybrid_swa_model`, `get_hybrid_layer_ids`, `get_swa_num_kv_heads`),
//! `srt/model_executor/model_runner_kv_cache_mixin.py` (`get_cell_size_per_token`,
//! `set_num_tokens_hybrid_swa`). The checkpoint's `o_proj`s are bf16 in its FP8 release (two public
//! fixtures reproducing the hub checkpoint: an `o_proj` kept in BF16 beside FP8 q/k/v, find_string id
//! 70134028966, and an `ignored_layers` list of every layer's `self_attn.o_proj`, id 69548607207; the
//! checkpoint's own `quantization_config` was not read): [`attention_pieces`] stores them at the
//! model dtype.
//!
//! | piece (per layer, per rank) | shape | TP rule |
//! |---|---|---|
//! | `input_layernorm`, `post_attention_layernorm` | hidden each | replicated |
//! | `qkv_proj` | heads/tp × 192 + n_kv × 192 + n_kv × 128 rows × hidden, n_kv = max(1, kv/tp) | column-parallel |
//! | `o_proj` | hidden × heads/tp × 128, bf16 | row-parallel |
//! | `attention_sink_bias` (sliding layers) | heads / tp | sharded with the heads |
//! | MLP / MoE | DeepSeek-V3's pieces (router fp32, no shared expert) | as `weights` |
//!
//! KV per token and layer, per rank: max(1, kv / tp) × (192 + 128) elements (global 4 heads, sliding
//! 8). SGLang sizes the profile's cell by release ([`MimoV2Attention::sglang_cell`]) and splits the
//! tokens between its two pools (`tpsim_model::memory::sglang_swa_split`) with the two layer cells.

use serde::Serialize;

use super::config::ModelConfig;
use super::hybrid::Mixer;
use super::nemotron_h::bounded;
use super::piece::{Fmt, Piece};
use super::{Ffn, ModelError, MoeShape};

/// families40 (issue #17): the architecture name of MiMo-V2.5, V2.5-Pro and V2.6 (SGLang 0.5.11 on,
/// vLLM 0.21.0 on), lowered as MiMo-V2-Flash.
pub const V2_CLASS: &str = "MiMoV2ForCausalLM";

/// Kernels MiMo-V2-Flash's attention launches beyond the generic attention layer at decode: the
/// `v = v * v_scale` multiply (`attention_value_scale` = 0.707 in the published config; SGLang
/// 0.5.8 `mimo_v2_flash.py` `MiMoV2Attention.forward`).
pub const V_SCALE_KERNELS: u32 = 1;

/// The two attention kinds of a MiMo-V2-Flash model (the global kind's heads are the spec's `Gqa`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct MimoV2Attention {
    /// Value width of a global head (`v_head_dim`).
    pub v_head_dim: u64,
    /// Query heads of a sliding layer (`swa_num_attention_heads`).
    pub swa_heads: u64,
    /// KV heads of a sliding layer (`swa_num_key_value_heads`).
    pub swa_kv_heads: u64,
    /// q/k width of a sliding head (`swa_head_dim`).
    pub swa_head_dim: u64,
    /// Value width of a sliding head (`swa_v_head_dim`).
    pub swa_v_head_dim: u64,
    /// The sliding layers carry `attention_sink_bias` (`add_swa_attention_sink_bias`).
    pub swa_sink: bool,
    /// The global layers carry it (`add_full_attention_sink_bias`).
    pub full_sink: bool,
    /// `v = v * v_scale` runs (`attention_value_scale` set).
    pub v_scale: bool,
    /// The sliding layers rotate with their own base (`swa_rope_theta` ≠ `rope_theta`): SGLang's
    /// `get_rope` builds one cos/sin cache per base (its `_ROPE_DICT` key holds the base).
    /// families30: Gemma 4's kinds differ in base and head size (a cache each, the sliding one
    /// `swa_head_dim` wide under full rotation).
    pub two_rope_bases: bool,
    /// sglmem54: the full kind's rotary width when it rotates part of its head and the sliding kind
    /// does not (Step-3.5: `partial_rotary_factors` 0.5 → 64 of 128); `None`: as `rope_cache` reads it.
    pub full_rotary_dim: Option<u64>,
    /// families28 (issue #17): a head-wise output gate (Step-3.5's `use_head_wise_attn_gate`: a
    /// column-parallel `g_proj` of hidden → heads, one sigmoid scalar a head); false for MiMo.
    pub head_gate: bool,
    /// families28 (issue #17): per-head `q_norm` / `k_norm` of the q/k width, replicated (Step-3.5);
    /// false for MiMo.
    pub qk_norms: bool,
    /// families30 (issue #17): Gemma 4's two further norms a layer (`pre_feedforward_layernorm`,
    /// `post_feedforward_layernorm`, hidden each) and its `layer_scalar` (one element), replicated;
    /// false for MiMo and Step-3.5.
    pub gemma_norms: bool,
    /// families30 (issue #17): Gemma 4's MoE block (26B-A4B) beyond the generic MoE pieces: its three
    /// further norms (`pre_feedforward_layernorm_2`, `post_feedforward_layernorm_1` / `_2`), the
    /// router's `scale` (hidden) and `per_expert_scale` (this many experts), replicated; 0 without it.
    pub gemma_moe_experts: u64,
    /// families40 (issue #17): the checkpoint stores q/k/v as one `qkv_proj` interleaved in this many
    /// tensor-parallel chunks (`attention_projection_layout = "fused_qkv"`: SGLang 0.5.23
    /// `configs/model_config.py` `get_mimo_v2_fused_qkv_expected_tp_size` = `num_key_value_heads`;
    /// MiMo-V2.5-Pro: 8); 0 for split q/k/v (MiMo-V2-Flash, Step-3.5, Gemma 4). A rank's parameters
    /// are the same `QKVParallelLinear` shard either way; what the chunks constrain is the tp the
    /// engines load them at (`sim::scenario::mimo_v2`).
    pub fused_qkv_chunks: u64,
    /// families40 (issue #17): the config names `MiMoV2ForCausalLM` (MiMo-V2.5, V2.5-Pro, V2.6), the
    /// class both engines added after `MiMoV2FlashForCausalLM` (SGLang 0.5.11, vLLM 0.21.0:
    /// `sim::scenario::first_release`); false for `MiMoV2FlashForCausalLM` and the families lowered
    /// onto this struct.
    pub v2_class: bool,
}

/// What [`blocks`] reads: the layers, their feed-forwards and the attention kinds.
pub(crate) struct Blocks {
    pub mixers: Vec<Mixer>,
    pub layers: Vec<Ffn>,
    pub moe: Option<MoeShape>,
    pub dense_intermediate: u64,
    pub first_k_dense_replace: u32,
    pub sliding_window: u64,
    pub attn: MimoV2Attention,
}

impl Blocks {
    /// Writes the layers, their feed-forwards, the sliding window and the two attention kinds into
    /// `spec` (MiMo-V2-Flash, and Step-3.5-Flash and Gemma 4 lowered onto it).
    pub(crate) fn apply(self, spec: &mut super::ModelSpec) {
        spec.moe = self.moe;
        spec.dense_intermediate = self.dense_intermediate;
        spec.first_k_dense_replace = self.first_k_dense_replace;
        spec.mixers = self.mixers;
        spec.layers = self.layers;
        spec.sliding_window = Some(self.sliding_window);
        spec.mimo_v2 = Some(self.attn);
    }
}

/// A per-layer 0/1 list of `num_layers` entries (`hybrid_layer_pattern`, `moe_layer_freq`).
fn flags(list: Option<&[u64]>, field: &str, n: usize, an: &str) -> Result<Vec<bool>, ModelError> {
    let list = list.ok_or_else(|| ModelError::MissingField {
        field: field.into(),
        architecture: an.into(),
    })?;
    if list.len() != n || list.iter().any(|&x| x > 1) {
        return Err(ModelError::InvalidField {
            field: field.into(),
            value: format!("{list:?}"),
            expected: format!("one 0 or 1 per layer ({n} entries)"),
        });
    }
    Ok(list.iter().map(|&x| x == 1).collect())
}

/// The layers of a MiMo-V2-Flash config. SGLang reads `hybrid_layer_pattern[i] == 1` as sliding and
/// `moe_layer_freq[i]` as MoE (an integer `moe_layer_freq` makes no layer MoE, `is_moe_layer`); tpsim
/// requires the lists (every published config has them).
pub(crate) fn blocks(text: &ModelConfig, num_layers: u64, an: &str) -> Result<Blocks, ModelError> {
    let n = usize::try_from(num_layers).unwrap_or(usize::MAX);
    let sliding = flags(
        text.hybrid_layer_pattern.as_deref(),
        "hybrid_layer_pattern",
        n,
        an,
    )?;
    let moe_list = text
        .moe_layer_freq
        .as_ref()
        .and_then(super::config::LayerFreq::per_layer);
    let moe_layers = match moe_list {
        Some(l) => flags(Some(l), "moe_layer_freq", n, an)?,
        None => vec![false; n],
    };
    // SGLang `MiMoV2MLP` / `MiMoV2MoE`: "Unsupported activation: … Only silu is supported for now."
    if let Some(act) = text.hidden_act.as_deref().filter(|a| *a != "silu") {
        return Err(ModelError::InvalidField {
            field: "hidden_act".into(),
            value: act.into(),
            expected: "\"silu\" (SGLang mimo_v2_flash.py: Only silu is supported for now.)".into(),
        });
    }
    let dense = bounded(text.intermediate_size, "intermediate_size", an)?;
    let moe = if moe_layers.iter().any(|&m| m) {
        Some(MoeShape {
            n_routed_experts: bounded(text.n_routed_experts, "n_routed_experts", an)?,
            num_experts_per_tok: bounded(text.num_experts_per_tok, "num_experts_per_tok", an)?,
            moe_intermediate: bounded(text.moe_intermediate_size, "moe_intermediate_size", an)?,
            // `MiMoV2MoE` builds no shared expert (`n_shared_experts` is null in the config).
            n_shared_experts: 0,
        })
    } else {
        None
    };
    let layers = ffn_layers(&moe_layers, moe, dense);
    let head_dim = bounded(text.head_dim, "head_dim", an)?;
    let attn = MimoV2Attention {
        v_head_dim: bounded(text.v_head_dim.or(Some(head_dim)), "v_head_dim", an)?,
        swa_heads: bounded(text.swa_num_attention_heads, "swa_num_attention_heads", an)?,
        swa_kv_heads: bounded(text.swa_num_key_value_heads, "swa_num_key_value_heads", an)?,
        swa_head_dim: bounded(text.swa_head_dim, "swa_head_dim", an)?,
        swa_v_head_dim: bounded(text.swa_v_head_dim.or(text.swa_head_dim), "swa_v_head_dim", an)?,
        swa_sink: text.add_swa_attention_sink_bias.unwrap_or(false),
        full_sink: text.add_full_attention_sink_bias.unwrap_or(false),
        v_scale: text.attention_value_scale.is_some(),
        // `MiMoV2DecoderLayer`: `getattr(config, "rope_theta", 1000000)`, sliding
        // `getattr(config, "swa_rope_theta", rope_theta)`.
        // The dict key compares the bases exactly, as their bits do.
        full_rotary_dim: None,
        two_rope_bases: text
            .swa_rope_theta
            .is_some_and(|b| b.to_bits() != text.rope_theta.unwrap_or(1_000_000.0).to_bits()),
        head_gate: false,
        qk_norms: false,
        gemma_norms: false,
        gemma_moe_experts: 0,
        fused_qkv_chunks: fused_qkv_chunks(text, an)?,
        // Set by `llm::config` from the architecture's name.
        v2_class: false,
    };
    let first_dense = moe_layers.iter().take_while(|&&m| !m).count();
    Ok(Blocks {
        mixers: sliding
            .iter()
            .map(|&s| {
                if s {
                    Mixer::SlidingAttention
                } else {
                    Mixer::Attention
                }
            })
            .collect(),
        layers,
        moe,
        dense_intermediate: dense,
        first_k_dense_replace: u32::try_from(first_dense).unwrap_or(u32::MAX),
        sliding_window: bounded(
            text.sliding_window_size.or(text.sliding_window),
            "sliding_window_size",
            an,
        )?,
        attn,
    })
}

/// families40 (issue #17): the chunks a fused `qkv_proj` is interleaved in (0: split q/k/v). SGLang
/// 0.5.23 `configs/model_config.py` `get_mimo_v2_fused_qkv_expected_tp_size`: `None` or `"split"` →
/// none, `"fused_qkv"` → `num_key_value_heads`, any other layout → its ValueError.
fn fused_qkv_chunks(text: &ModelConfig, an: &str) -> Result<u64, ModelError> {
    match text.attention_projection_layout.as_deref() {
        None | Some("split") => Ok(0),
        Some("fused_qkv") => bounded(text.num_key_value_heads, "num_key_value_heads", an),
        Some(other) => Err(ModelError::InvalidField {
            field: "attention_projection_layout".into(),
            value: other.into(),
            expected: "'fused_qkv', 'split' or unset (SGLang 0.5.23 get_mimo_v2_fused_qkv_expected_tp_size: \
                       MiMoV2 hf_config has unsupported attention_projection_layout)"
                .into(),
        }),
    }
}

impl MimoV2Attention {
    /// KV bytes of one token in one layer on one rank: max(1, kv / tp) × (k + v width) × `dtype`
    /// (global: `kv_heads`, `head_dim`, `v_head_dim`; sliding: the `swa_` ones). MiMo-V2-Flash at tp 4,
    /// bf16: global 1 × 320 × 2 = 640 B, sliding 2 × 320 × 2 = 1,280 B.
    pub fn layer_cell(&self, sliding: bool, kv_heads: u64, head_dim: u64, tp: u64, dtype: u64) -> u64 {
        if sliding {
            (self.swa_kv_heads / tp).max(1) * (self.swa_head_dim + self.swa_v_head_dim) * dtype
        } else {
            (kv_heads / tp).max(1) * (head_dim + self.v_head_dim) * dtype
        }
    }

    /// grok52 (issue #17): vLLM 0.14 – 0.19's KV bytes of one token in one layer on one rank (from
    /// 0.20 vLLM keeps V at its width: [`Self::layer_cell`], `ModelSpec::mimo_v2_vllm_cell`):
    /// `models/mimo_v2_flash.py` pads V to the q/k width before the attention (`torch.nn.functional.pad(v,
    /// [0, head_dim - v_head_dim])`) and builds `Attention(num_heads, head_dim, num_kv_heads = max(1,
    /// kv / tp))`, so the page holds K and V of `head_dim` each: max(1, kv / tp) × 2 × head_dim ×
    /// `dtype`. MiMo-V2-Flash bf16 at tp 4: global 1 × 384 × 2 = 768 B, sliding 2 × 384 × 2 = 1,536 B.
    pub fn vllm_layer_cell(&self, sliding: bool, kv_heads: u64, head_dim: u64, tp: u64, dtype: u64) -> u64 {
        if sliding {
            (self.swa_kv_heads / tp).max(1) * 2 * self.swa_head_dim * dtype
        } else {
            (kv_heads / tp).max(1) * 2 * head_dim * dtype
        }
    }

    /// SGLang's cell per token (`get_cell_size_per_token`), by release:
    /// - 0.5.7 – 0.5.8.post1: the global layer's cell over **all** `num_hidden_layers`, plus the
    ///   sliding layer's cell over the sliding layers (the MiMo branch adds the sliding part to the
    ///   plain GQA cell, which counts every layer);
    /// - 0.5.9 on: global × global layers + sliding × sliding layers (the hybrid-SWA branch).
    pub fn sglang_cell(&self, before_0_5_9: bool, full: u64, swa: u64, layers: (u64, u64)) -> u64 {
        let (n_full, n_swa) = layers;
        let full_layers = if before_0_5_9 { n_full + n_swa } else { n_full };
        full * full_layers + swa * n_swa
    }
}

/// The attention pieces of one layer (`mixer`: sliding or global) on a rank of `t`.
pub(crate) fn attention_pieces(
    a: &MimoV2Attention,
    sliding: bool,
    (hidden, heads, kv_heads, head_dim): (u64, u64, u64, u64),
    t: u64,
) -> Vec<Piece> {
    let (heads, kv, qk, v, sink) = if sliding {
        (
            a.swa_heads,
            a.swa_kv_heads,
            a.swa_head_dim,
            a.swa_v_head_dim,
            a.swa_sink,
        )
    } else {
        (heads, kv_heads, head_dim, a.v_head_dim, a.full_sink)
    };
    let local = heads / t;
    let n_kv = (kv / t).max(1);
    let mut ps = vec![
        Piece::vec(hidden),
        Piece::vec(hidden),
        Piece::new(local * qk + n_kv * (qk + v), hidden, Fmt::Linear).gemm("qkv_proj"),
        // bf16 in the published FP8 checkpoint (module doc).
        Piece::new(hidden, local * v, Fmt::Model).gemm("o_proj"),
    ];
    if sink {
        ps.push(Piece::vec(local));
    }
    // families28 (issue #17): Step-3.5's `g_proj` (SGLang 0.5.9 `step3p5.py`: `ColumnParallelLinear(
    // hidden_size, total_num_heads)`) and its per-head q/k norms (`GemmaRMSNorm(head_dim)`).
    if a.head_gate {
        ps.push(Piece::new(local, hidden, Fmt::Linear).gemm("g_proj"));
    }
    if a.qk_norms {
        ps.push(Piece::vec(qk));
        ps.push(Piece::vec(qk));
    }
    // families30 (issue #17): SGLang 0.5.23 `gemma4_causal.py` `Gemma4DecoderLayer` (vLLM 0.34.0
    // `gemma4.py` likewise): `pre_feedforward_layernorm`, `post_feedforward_layernorm` and the
    // `layer_scalar` buffer of one element, loaded from the checkpoint.
    if a.gemma_norms {
        ps.extend([Piece::vec(hidden), Piece::vec(hidden), Piece::vec(1)]);
    }
    // families30 (issue #17): SGLang 0.5.23 `gemma4_causal.py` `Gemma4DecoderLayer` with
    // `enable_moe_block`: three more norms, `Gemma4Router.scale` and `Gemma4MoE.per_expert_scale`.
    if a.gemma_moe_experts > 0 {
        ps.extend([Piece::vec(hidden); 4]);
        ps.push(Piece::vec(a.gemma_moe_experts));
    }
    ps
}

/// SGLang's refusals beyond the generic TP checks: the sliding layers' heads divide as the global
/// ones must (`MiMoV2Attention`: `assert total_num_heads % attn_tp_size == 0`, and the KV heads
/// divisible by tp or tp by them), and tp ≤ the routed experts (`MiMoV2MoE`: "Tensor parallel size
/// {tp} is greater than the number of experts {E}.").
pub(crate) fn check_tp(a: &MimoV2Attention, moe: Option<&MoeShape>, tp: u64) -> Option<String> {
    if !a.swa_heads.is_multiple_of(tp) {
        return Some(format!(
            "{} sliding-window attention heads (swa_num_attention_heads) are not divisible by tp {tp}",
            a.swa_heads
        ));
    }
    if !(a.swa_kv_heads.is_multiple_of(tp) || tp.is_multiple_of(a.swa_kv_heads)) {
        return Some(format!(
            "{} sliding-window KV heads (swa_num_key_value_heads) neither divide nor are divided by tp {tp}",
            a.swa_kv_heads
        ));
    }
    match moe {
        Some(m) if tp > m.n_routed_experts => Some(format!(
            "Tensor parallel size {tp} is greater than the number of experts {}. (SGLang mimo_v2_flash.py)",
            m.n_routed_experts
        )),
        _ => None,
    }
}

/// The FFN of each layer from its MoE flag: `moe`'s shape where the flag is set (and a shape exists),
/// a dense MLP of `dense` elsewhere. Shared by MiMo-V2-Flash and Step-3.5-Flash (`llm::step3p5`).
pub(super) fn ffn_layers(moe_flags: &[bool], moe: Option<MoeShape>, dense: u64) -> Vec<Ffn> {
    moe_flags
        .iter()
        .map(|&m| match (m, moe) {
            (true, Some(shape)) => Ffn::Moe(shape),
            _ => Ffn::Dense { intermediate: dense },
        })
        .collect()
}
