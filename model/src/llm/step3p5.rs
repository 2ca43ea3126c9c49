//! StepFun Step-3.5-Flash (`Step3p5ForCausalLM`, 196B total / 11B active); families28, issue #17.
//!
//! 45 decoder layers, each a GQA attention of the kind `layer_types[i]` names (`"full_attention"` or
//! `"sliding_attention"` over `sliding_window` = 512 tokens, three sliding layers to one full), then
//! a SwiGLU MLP (`intermediate_size`) or a MoE where `moe_layers_enum` (a comma-separated list of
//! layer ids) names the layer: 288 routed experts of 1,280, top-8, a sigmoid router through an fp32
//! `gate` with an fp32 router bias, and ONE shared expert of `share_expert_dim` = 1,280. The sliding
//! layers take their query heads from `attention_other_setting.num_attention_heads` (96 against the
//! full layers' 64); both kinds keep `num_attention_groups` = 8 KV heads of `head_dim` = 128. Three
//! MTP layers ship with the checkpoint (`layer_types` has 48 entries): the target skips them.
//!
//! Sources, read from the PyPI wheels: SGLang 0.5.9 `srt/models/step3p5.py`
//! (`Step3p5DecoderLayer.__init__`: `moe_layers_list = [int(x) for x in
//! config.moe_layers_enum.split(",")]`, sliding layers `num_attention_heads` /
//! `num_attention_groups` from `config.attention_other_setting`, `share_expert_dim`;
//! `Step3p5MoEMLP`: "Tensor parallel size … is greater than the number of experts …", fp32 router
//! bias of `moe_num_experts`), `srt/configs/model_config.py` (`Step3p5ForCausalLM` in the hybrid
//! SWA list); vLLM 0.34.0 `model_executor/models/step3p5.py` (`_get_layer_type`,
//! `_get_num_attention_heads`, `_is_moe_layer`). The SGLang file is absent from the 0.5.8.post1
//! wheel and present from 0.5.9; vLLM's from 0.15.1 (absent from 0.15.0). vllmnew53: vLLM 0.15.1 …
//! 0.34.0 shard it as SGLang does (`Step3p5Attention`: `QKVParallelLinear`, `g_proj` a
//! `ColumnParallelLinear(hidden, heads)` — without `quant_config` in 0.15.1 / 0.16.0, with it from
//! 0.17.0 — `GemmaRMSNorm(head_dim)` q/k norms; `FusedMoEBlock`: fp32 `gate` and `router_bias`,
//! `SharedFusedMoE` with the shared expert) and give both kinds a plain `Attention` (sliding:
//! `per_layer_sliding_window`), V at the q/k width: `ModelSpec::mimo_v2_vllm_cell` holds.
//!
//! The model is lowered onto MiMo-V2-Flash's two-kind attention (`llm::mimo_v2`): the sliding
//! kind's own query heads, the same KV heads and widths, no sink bias, no `v_scale`, plus the
//! head-wise attention gate's weights (`use_head_wise_attn_gate`: a `g_proj` of hidden × heads, 262,144
//! / 393,216 parameters in a full / sliding layer) and the per-head q/k norms.
//! KNOWN MISSES: the gate's sigmoid-multiply at decode is not counted as a kernel (its `g_proj`
//! weights are read with the layer's); the second RoPE base (`rope_theta` per layer) is not read, only the
//! first; sglmem54: the full layers' partial rotary factor 0.5 (`partial_rotary_factors`) is, so both
//! engines' two `get_rope` caches are counted (64 and 128 wide: SGLang's float32 64 + 128 MiB, vLLM's
//! bf16 32 + 64 MiB a rank over 262,144 positions) while the attention still rotates the whole head; the
//! swiglu clamps (`swiglu_limits`) are not costed.

use super::config::ModelConfig;
use super::hybrid::Mixer;
use super::mimo_v2::{Blocks, MimoV2Attention};
use super::nemotron_h::bounded;
use super::{ModelError, MoeShape};

/// The layer ids `moe_layers_enum` names ("3,4,…,44"), each below `n`.
fn moe_layers(list: Option<&str>, n: usize, an: &str) -> Result<Vec<bool>, ModelError> {
    let list = list.ok_or_else(|| ModelError::MissingField {
        field: "moe_layers_enum".into(),
        architecture: an.into(),
    })?;
    let mut out = vec![false; n];
    for id in list.split(',') {
        let bad = || ModelError::InvalidField {
            field: "moe_layers_enum".into(),
            value: list.into(),
            expected: format!("comma-separated layer ids below num_hidden_layers = {n}"),
        };
        let i: usize = id.trim().parse().map_err(|_| bad())?;
        *out.get_mut(i).ok_or_else(bad)? = true;
    }
    Ok(out)
}

/// Each layer's attention kind from `layer_types` (its first `n` entries: Step-3.5's further entries
/// are its MTP layers'): `"full_attention"` or `"sliding_attention"`. Shared with Gemma 4
/// (`llm::gemma4`).
pub(super) fn mixers_from_layer_types(
    text: &ModelConfig,
    n: usize,
    an: &str,
) -> Result<Vec<Mixer>, ModelError> {
    let types = text
        .layer_types
        .as_deref()
        .ok_or_else(|| ModelError::MissingField {
            field: "layer_types".into(),
            architecture: an.into(),
        })?;
    let kinds = types.get(..n).ok_or_else(|| ModelError::InvalidField {
        field: "layer_types".into(),
        value: format!("{} entries", types.len()),
        expected: format!("at least num_hidden_layers = {n} entries"),
    })?;
    let mut mixers = Vec::with_capacity(n);
    for k in kinds {
        mixers.push(match k.as_str() {
            "full_attention" => Mixer::Attention,
            "sliding_attention" => Mixer::SlidingAttention,
            other => {
                return Err(ModelError::InvalidField {
                    field: "layer_types".into(),
                    value: other.into(),
                    expected: "\"full_attention\" or \"sliding_attention\"".into(),
                });
            }
        });
    }
    Ok(mixers)
}

/// sglmem54: the full layers' rotary width, `int(head_dim × partial_rotary_factors[i])` of the first
/// full layer (SGLang `get_rope`: 0.5.9 `layers/rotary_embedding.py`, 0.5.23
/// `layers/rotary_embedding/factory.py`; vLLM 0.19.0 `rotary_embedding/__init__.py`), `head_dim`
/// without the list or when the sliding layers rotate the same share (one cache then). The sliding
/// layers rotate the whole head in the published config (1.0); a config where they do not keeps
/// `head_dim` (one cache, as before).
fn full_rotary_dim(text: &ModelConfig, mixers: &[Mixer], head_dim: u64) -> u64 {
    let factors = text.partial_rotary_factors.as_deref().unwrap_or(&[]);
    let first = |kind: Mixer| {
        mixers
            .iter()
            .position(|&m| m == kind)
            .and_then(|i| factors.get(i).copied())
            .unwrap_or(1.0)
    };
    let (full, sliding) = (first(Mixer::Attention), first(Mixer::SlidingAttention));
    if full < 1.0 && full > 0.0 && sliding >= 1.0 {
        (head_dim as f64 * full) as u64
    } else {
        head_dim
    }
}

/// The layers of a Step-3.5 config (module doc): `layer_types` (its first `num_layers` entries; the
/// rest are the MTP layers'), `moe_layers_enum`, the sliding kind's heads.
pub(crate) fn blocks(text: &ModelConfig, num_layers: u64, an: &str) -> Result<Blocks, ModelError> {
    let n = usize::try_from(num_layers).unwrap_or(usize::MAX);
    let mixers = mixers_from_layer_types(text, n, an)?;
    let moe_flags = moe_layers(text.moe_layers_enum.as_deref(), n, an)?;
    let dense = bounded(text.intermediate_size, "intermediate_size", an)?;
    let moe_intermediate = bounded(text.moe_intermediate_size, "moe_intermediate_size", an)?;
    // `share_expert_dim` must be one expert's width: tpsim's shared experts are `moe_intermediate` wide.
    let shared = bounded(text.share_expert_dim, "share_expert_dim", an)?;
    if shared != moe_intermediate {
        return Err(ModelError::InvalidField {
            field: "share_expert_dim".into(),
            value: shared.to_string(),
            expected: format!("moe_intermediate_size = {moe_intermediate} (one shared expert)"),
        });
    }
    let moe = moe_flags.iter().any(|&m| m).then_some(());
    let moe = match moe {
        Some(()) => Some(MoeShape {
            n_routed_experts: bounded(text.moe_num_experts, "moe_num_experts", an)?,
            num_experts_per_tok: bounded(text.moe_top_k, "moe_top_k", an)?,
            moe_intermediate,
            n_shared_experts: 1,
        }),
        None => None,
    };
    let layers = super::mimo_v2::ffn_layers(&moe_flags, moe, dense);
    let head_dim = bounded(text.head_dim, "head_dim", an)?;
    let full_dim = full_rotary_dim(text, &mixers, head_dim);
    let other = text.attention_other_setting.as_ref();
    let attn = MimoV2Attention {
        v_head_dim: head_dim,
        swa_heads: bounded(
            other.and_then(|o| o.num_attention_heads),
            "attention_other_setting.num_attention_heads",
            an,
        )?,
        swa_kv_heads: bounded(
            other
                .and_then(|o| o.num_attention_groups)
                .or(text.num_attention_groups),
            "attention_other_setting.num_attention_groups",
            an,
        )?,
        swa_head_dim: head_dim,
        swa_v_head_dim: head_dim,
        swa_sink: false,
        full_sink: false,
        v_scale: false,
        // Per-layer bases (`rope_theta` a list, 5e6 full / 1e4 sliding in the published config) and
        // partial rotary factors (0.5 full / 1.0 sliding). sglmem54: a cos/sin cache per kind when
        // their rotary widths differ (`rope_dims`); the bases are not read (only the first).
        two_rope_bases: full_dim != head_dim,
        full_rotary_dim: (full_dim != head_dim).then_some(full_dim),
        head_gate: text.use_head_wise_attn_gate.unwrap_or(false),
        qk_norms: true,
        gemma_norms: false,
        gemma_moe_experts: 0,
        fused_qkv_chunks: 0,
        v2_class: false,
    };
    let first_dense = moe_flags.iter().take_while(|&&m| !m).count();
    Ok(Blocks {
        mixers,
        layers,
        moe,
        dense_intermediate: dense,
        first_k_dense_replace: u32::try_from(first_dense).unwrap_or(u32::MAX),
        sliding_window: bounded(text.sliding_window, "sliding_window", an)?,
        attn,
    })
}
