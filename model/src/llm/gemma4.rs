//! Google Gemma 4 (`Gemma4ForCausalLM`, `Gemma4ForConditionalGeneration`); families30, issue #17.
//!
//! The text decoder of the sizes people serve on multi-GPU boxes (31B dense, 26B-A4B MoE):
//! `num_hidden_layers` layers, each a GQA attention of the kind `layer_types[i]` names —
//! `"sliding_attention"` over `sliding_window` tokens or `"full_attention"` — then a gated GELU-tanh MLP
//! of `intermediate_size`, with Gemma's four RMSNorms a layer, per-head q/k RMSNorms, a weightless v
//! norm and a one-element `layer_scalar`. The two kinds differ in their widths: a sliding layer has `num_key_value_heads` KV
//! heads of `head_dim`; a full layer has heads of `global_head_dim` (transformers' default 512) and,
//! with `attention_k_eq_v`, `num_global_key_value_heads` KV heads whose keys serve as values (the
//! checkpoint ships no `v_proj` there). Embeddings are tied; the logits are soft-capped.
//!
//! Sources, read from the PyPI wheels:
//! - transformers 5.25.0 `models/gemma4/configuration_gemma4.py` `Gemma4TextConfig.__post_init__`:
//!   a full layer's `head_dim` = `global_head_dim` (popped, default 512) and its KV heads =
//!   `num_global_key_value_heads` when `attention_k_eq_v`; the last layer forced to
//!   `full_attention` (warning "Last layer must use `full_attention`, …"); defaults
//!   `hidden_size_per_layer_input` = 256, `tie_word_embeddings` = true.
//! - SGLang 0.5.23 `srt/models/gemma4_causal.py` (`Gemma4Attention`: `QKVParallelLinear(hidden,
//!   head_dim, heads, kv_heads)` — the V slot allocated on k_eq_v layers too, filled from `k_proj` by
//!   `load_weights` —, `q_norm` / `k_norm` of `head_dim`, `v_norm` without weight; `Gemma4DecoderLayer`:
//!   `Gemma4MLP = Gemma3MLP`, four norms, `layer_scalar`; PLE, KV sharing and the MoE block),
//!   `srt/utils/hf_transformers/config.py` `_apply_gemma4_attention_overrides` (full shape as SGLang's
//!   `head_dim` / `num_key_value_heads`, sliding as `swa_head_dim` / `swa_num_key_value_heads`),
//!   `srt/configs/model_config.py` (`Gemma4ForConditionalGeneration` in the hybrid-SWA list, its
//!   `swa_attention_layer_ids` / `full_attention_layer_ids` from `layer_types`).
//! - vLLM 0.34.0 `model_executor/models/gemma4.py` (`Gemma4Attention`: `QKVParallelLinear` with K
//!   weights loaded into both K and V slots on k_eq_v layers, `per_layer_config` widths); families39:
//!   0.19.0's the same (K copied to `v_proj` in `load_weights`, one `Attention` a layer of its kind's
//!   KV heads and head size, so the page holds K and V of that width), served under vLLM from 0.19.0
//!   with its vision tower whole on every rank (`llm::gemma4_vit`).
//!
//! The model is lowered onto MiMo-V2-Flash's two-kind attention (`llm::mimo_v2`): the spec's GQA is
//! the full kind, the `swa_` fields the sliding kind, values as wide as keys, plus the per-head q/k
//! norms and Gemma's two further norms and `layer_scalar` ([`MimoV2Attention::gemma_norms`]).
//!
//! With `enable_moe_block` (26B-A4B) every layer adds a MoE block beside its dense MLP ([`moe_shape`]):
//! the dense MLP is lowered as shared experts of the expert width, and the two are all-reduced apart
//! (`ModelSpec::split_moe_allreduce`); the router's RMSNorm-and-scale is costed as the generic router.
//!
//! Refused (not modelled): per-layer embeddings (`hidden_size_per_layer_input` > 0: E2B / E4B), KV
//! sharing across layers (`num_kv_shared_layers` > 0: E2B / E4B). SGLang 0.5.11
//! `utils/hf_transformers/config.py` (model_type `gemma4`) takes the full layers' KV heads from
//! `num_global_key_value_heads` whether or not `attention_k_eq_v` is set, 0.5.23 only with it (through
//! transformers); the published 31B and 26B-A4B set it, so both agree there.
//!
//! KNOWN MISSES: the vision (and audio) towers of `Gemma4ForConditionalGeneration` are not counted
//! (Gemma 4 31B's is about 550M parameters by public model pages), nor SGLang's reduction of the
//! default `mem_fraction_static` for a multimodal model, which reads the tower's layers and width
//! (0.5.23 `arg_groups/memory_hook.py` `adjust_mem_fraction_for_vlm`); the full layers' partial rotary
//! (`partial_rotary_factor` 0.25) is costed as a full-width rotary kernel (its cache is full-width in
//! SGLang too); the v norm, the post-norms and the `layer_scalar` multiply are not counted as kernels
//! (as for Gemma 3).

use super::config::ModelConfig;
use super::hybrid::Mixer;
use super::mimo_v2::{Blocks, MimoV2Attention};
use super::nemotron_h::bounded;
use super::{Ffn, ModelError, MoeShape};

/// transformers 5.25.0 `Gemma4TextConfig.__post_init__`: `kwargs.pop("global_head_dim", 512)`.
pub const DEFAULT_GLOBAL_HEAD_DIM: u64 = 512;

/// The full kind's GQA shape: (KV heads, head width) ([module doc](self)).
pub(crate) fn full_shape(text: &ModelConfig, an: &str) -> Result<(u64, u64), ModelError> {
    let kv = bounded(text.num_key_value_heads, "num_key_value_heads", an)?;
    let kv = match (
        text.attention_k_eq_v.unwrap_or(false),
        text.num_global_key_value_heads,
    ) {
        (true, Some(g)) => bounded(Some(g), "num_global_key_value_heads", an)?,
        _ => kv,
    };
    let hd = bounded(
        text.global_head_dim.or(Some(DEFAULT_GLOBAL_HEAD_DIM)),
        "global_head_dim",
        an,
    )?;
    Ok((kv, hd))
}

/// What tpsim does not model, with the key that asks for it.
fn refuse(field: &str, value: String, what: &str) -> ModelError {
    ModelError::InvalidField {
        field: field.into(),
        value,
        expected: format!(
            "{what} (not modelled by tpsim: the text decoders of Gemma 4 31B and 26B-A4B only)"
        ),
    }
}

/// The MoE block of `enable_moe_block` (26B-A4B: 128 experts of 704, top-8): `num_experts` experts of
/// `moe_intermediate_size`, `top_k_experts` a token, softmax-routed through a replicated router; the
/// layer's dense MLP beside it (`intermediate_size`, 2,112 = 3 × 704) lowered as shared experts of
/// the expert width, as tpsim's shared experts are — exact in weights and FLOPs, refused where the
/// width is not whole experts. SGLang 0.5.23 `gemma4_causal.py` `Gemma4MoE` / `Gemma4Router`.
fn moe_shape(text: &ModelConfig, dense: u64, an: &str) -> Result<MoeShape, ModelError> {
    let width = bounded(text.moe_intermediate_size, "moe_intermediate_size", an)?;
    if !dense.is_multiple_of(width) {
        return Err(refuse(
            "intermediate_size",
            dense.to_string(),
            &format!(
                "a multiple of moe_intermediate_size = {width}: the dense MLP beside the MoE block lowered as shared experts"
            ),
        ));
    }
    Ok(MoeShape {
        n_routed_experts: bounded(text.num_experts, "num_experts", an)?,
        num_experts_per_tok: bounded(text.top_k_experts, "top_k_experts", an)?,
        moe_intermediate: width,
        n_shared_experts: dense / width,
    })
}

/// The layers of a Gemma 4 config ([module doc](self)).
pub(crate) fn blocks(text: &ModelConfig, num_layers: u64, an: &str) -> Result<Blocks, ModelError> {
    if let Some(p) = text.hidden_size_per_layer_input.filter(|&p| p > 0) {
        return Err(refuse(
            "hidden_size_per_layer_input",
            p.to_string(),
            "0: per-layer embeddings (E2B / E4B)",
        ));
    }
    if let Some(k) = text.num_kv_shared_layers.filter(|&k| k > 0) {
        return Err(refuse(
            "num_kv_shared_layers",
            k.to_string(),
            "0: KV sharing across layers (E2B / E4B)",
        ));
    }
    let n = usize::try_from(num_layers).unwrap_or(usize::MAX);
    let mut mixers = super::step3p5::mixers_from_layer_types(text, n, an)?;
    // transformers forces the last layer to full attention (module doc), and the engines build
    // their layers from the config it returns.
    if let Some(last) = mixers.last_mut() {
        *last = Mixer::Attention;
    }
    let dense = bounded(text.intermediate_size, "intermediate_size", an)?;
    let moe = if text.enable_moe_block == Some(true) {
        Some(moe_shape(text, dense, an)?)
    } else {
        None
    };
    let heads = bounded(text.num_attention_heads, "num_attention_heads", an)?;
    let swa_kv = bounded(text.num_key_value_heads, "num_key_value_heads", an)?;
    let swa_hd = bounded(text.head_dim, "head_dim", an)?;
    let (_, full_hd) = full_shape(text, an)?;
    let attn = MimoV2Attention {
        v_head_dim: full_hd,
        swa_heads: heads,
        swa_kv_heads: swa_kv,
        swa_head_dim: swa_hd,
        swa_v_head_dim: swa_hd,
        swa_sink: false,
        full_sink: false,
        v_scale: false,
        // Two cos/sin caches: SGLang's `get_rope` keys its `_ROPE_DICT` by head size and base, which
        // differ between the kinds (512 / 1e6 full, 256 / 1e4 sliding); the full kind's
        // `Gemma4RotaryEmbedding` (0.5.23 `layers/rotary_embedding/rope_variant.py`) builds its cache
        // over the whole head, its unrotated angles at frequency 0 (`rope_cache::rope_cache_tensors`).
        two_rope_bases: true,
        full_rotary_dim: None,
        head_gate: false,
        qk_norms: true,
        gemma_norms: true,
        gemma_moe_experts: moe.map_or(0, |m| m.n_routed_experts),
        fused_qkv_chunks: 0,
        v2_class: false,
    };
    Ok(Blocks {
        mixers,
        layers: vec![moe.map_or(Ffn::Dense { intermediate: dense }, Ffn::Moe); n],
        moe,
        dense_intermediate: dense,
        first_k_dense_replace: if moe.is_some() {
            0
        } else {
            u32::try_from(n).unwrap_or(u32::MAX)
        },
        sliding_window: bounded(text.sliding_window, "sliding_window", an)?,
        attn,
    })
}
