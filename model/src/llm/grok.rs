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
