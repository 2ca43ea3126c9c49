//! Grok-1 / Grok-2 (`Grok1ForCausalLM`, alias `Grok1ModelForCausalLM`; helper families24, issue #17).
//! Source: SGLang 0.5.8 `python/sglang/srt/models/grok.py` (read from the released wheel; the 0.5.1
//! and 0.5.2 wheels build the same blocks).
//!
//! | piece | SGLang | per rank |
//! |---|---|---|
//! | attention | `QKVParallelLinear(hidden, head_dim, heads, kv_heads, bias=False)`, `RowParallelLinear` o_proj; `head_dim` from the config (default 128); tanh logit cap `attn_logit_softcapping` (default 30) | generic GQA pieces |
//! | router | `Grok1MoE.gate = ReplicatedLinear(hidden, num_experts, bias=False, params_dtype=torch.float32)`; logits capped at 30 (`router_logit_softcapping`), top-k not renormalized | replicated, fp32 |
//! | routed experts | `FusedMoE(num_local_experts, num_experts_per_tok, moe_intermediate_size else intermediate_size, activation="gelu")` | 1/tp of every expert |
//! | residual MLP | only with `residual_moe`: `Grok1MLP(intermediate_size)`, merged gate/up column-parallel, down row-parallel; `(mlp + moe) / sqrt(2)`, one all-reduce for both | column/row-parallel |
//! | LM head | `ParallelLMHead` (not tied; `replicate_lm_head` defaults to false) | generic |
//!
//! Every layer is MoE (`Grok1DecoderLayer`: `num_experts > 0`, else `NotImplementedError`). tpsim's
//! MoE shape has shared experts of the routed experts' width, so the residual MLP is lowered as
//! `intermediate_size / moe_intermediate_size` shared experts (Grok-2: 32,768 / 16,384 = 2, the same
//! weights and GEMM widths as one `Grok1MLP`); a width that is not a whole multiple is refused. The
//! residual MLP first appears in SGLang 0.5.1's `grok.py` (`residual_moe`; the 0.4.3, 0.4.6, 0.4.9 and
//! 0.4.10.post2 wheels never read the key: `sim::scenario::first_release`). GELU instead of SiLU
//! and the logit caps change no byte and no kernel count tpsim costs.
//!
//! grok52 (issue #17): the RoPE caches. `Grok1Attention.__init__` first asks the shared
//! `get_rope(head_dim, rotary_dim, max_position = context_len or max_position_embeddings)` (one
//! float32 cache a rank, `rope_cache`), then, when `get_rope_scaling(config)` finds a top-level
//! `rope_type`, replaces `self.rotary_emb` with a `ScalingRotaryEmbedding` built directly — not
//! through `get_rope`'s cache dict — so **every layer** holds its own cache:
//! `torch.arange(original_max_position_embeddings × scaling_factor)` rows × `rotary_dim` (head_dim,
//! half of it with `rope_rotate_half_dims`), float32 on CUDA (`RotaryEmbedding.__init__` keeps
//! float32 there; elsewhere `get_rope_scaling`'s dtype: `torch.float` to 0.5.5, `torch.bfloat16`
//! from 0.5.6, `rope_cache::grok_layer_rope_elem`), built on the GPU with its
//! float32 temporaries (`freqs`, `cos`, `sin` of half the width, freed on return) between the
//! layer's `o_proj` and its MoE. Grok-2 (`rope_type` "original", 8,192 × 16 = 131,072 rows × 128):
//! 64 MiB a layer, 4 GiB a rank over 64 layers. Read in the 0.5.1, 0.5.2, 0.5.3, 0.5.5, 0.5.8, 0.5.9,
//! 0.5.10, 0.5.11 and 0.5.23 wheels' `grok.py` (the same construction in each).

use super::config::{FeedForward, ModelConfig, moe_where};
use super::{ModelError, MoeShape, missing_field, refuse};

/// Every layer's MoE block: routed experts plus, with `residual_moe`, the residual MLP as shared
/// experts of the routed width.
pub(crate) fn feed_forward(text: &ModelConfig, num_layers: u64, an: &str) -> Result<FeedForward, ModelError> {
    let missing = |field: &str| missing_field(field, an);
    let e = text
        .num_local_experts
        .ok_or_else(|| missing("num_local_experts"))?;
    if !(1..=4096).contains(&e) {
        return Err(refuse(
            "num_local_experts",
            e.to_string(),
            "1 to 4,096 experts (SGLang's Grok1DecoderLayer raises NotImplementedError without experts)",
        ));
    }
    // `getattr(config, "num_experts_per_tok", 2)` in `Grok1DecoderLayer`.
    let k = text.num_experts_per_tok.unwrap_or(2);
    if k == 0 || k > e {
        return Err(refuse(
            "num_experts_per_tok",
            k.to_string(),
            &format!("1 to num_local_experts ({e})"),
        ));
    }
    let inter = text.intermediate_size;
    // `getattr(config, "moe_intermediate_size", getattr(config, "intermediate_size", None))`.
    let mi = text
        .moe_intermediate_size
        .or(inter)
        .ok_or_else(|| missing("moe_intermediate_size"))?;
    if mi == 0 || mi > 1 << 20 {
        return Err(refuse(
            "moe_intermediate_size",
            mi.to_string(),
            "a positive expert width no larger than 1,048,576",
        ));
    }
    let n_shared = if text.residual_moe.unwrap_or(false) {
        let w = inter.ok_or_else(|| missing("intermediate_size"))?;
        if w == 0 || !w.is_multiple_of(mi) || w / mi > 64 {
            return Err(refuse(
                "intermediate_size",
                w.to_string(),
                &format!(
                    "a residual MLP width that is 1 to 64 whole moe_intermediate_size ({mi}) widths: tpsim's \
                     shared experts have the routed width"
                ),
            ));
        }
        w / mi
    } else {
        0
    };
    let shape = MoeShape::new(e, k, mi, n_shared);
    // Every layer MoE, no dense width, no leading dense layers.
    Ok(moe_where(num_layers, shape, 0, |_| true))
}

/// grok52: the (rows, width) of the float32 cache each Grok layer's `ScalingRotaryEmbedding`
/// holds (module doc); `None` without a `rope_type` (SGLang then keeps only `get_rope`'s shared
/// cache). Refuses what makes the engine raise while it builds the layer: a `rope_type` that
/// `_compute_inv_freq` does not know (`ValueError("Unknown extrapolation method")`) and a missing
/// `original_max_position_embeddings` or `scaling_factor` (`None × None`: TypeError).
pub(crate) fn layer_rope(text: &ModelConfig, head_dim: u64) -> Result<Option<(u64, u64)>, ModelError> {
    let Some(kind) = text.rope_type.as_deref().filter(|k| !k.is_empty()) else {
        return Ok(None);
    };
    const METHODS: [&str; 5] = ["original", "yarn", "yarn_linear", "yarn_log", "theta_scale"];
    if !METHODS.contains(&kind) {
        return Err(refuse(
            "rope_type",
            kind.into(),
            "one of original, yarn, yarn_linear, yarn_log, theta_scale (SGLang grok.py \
             ScalingRotaryEmbedding: ValueError: Unknown extrapolation method)",
        ));
    }
    let missing = |field: &str| ModelError::MissingField {
        field: field.into(),
        architecture: "Grok1ForCausalLM with rope_type (SGLang grok.py get_rope_scaling)".into(),
    };
    let orig = text
        .original_max_position_embeddings
        .ok_or_else(|| missing("original_max_position_embeddings"))?;
    let factor = text.scaling_factor.ok_or_else(|| missing("scaling_factor"))?;
    let rows = (orig as f64 * factor).ceil();
    if !(factor > 0.0 && rows >= 1.0 && rows <= (1u64 << 32) as f64) {
        return Err(refuse(
            "scaling_factor",
            factor.to_string(),
            &format!(
                "a positive factor giving 1 to 4294967296 cache rows with original_max_position_embeddings {orig}"
            ),
        ));
    }
    let width = if text.rope_rotate_half_dims.unwrap_or(false) {
        head_dim / 2
    } else {
        head_dim
    };
    Ok(Some((rows as u64, width)))
}
