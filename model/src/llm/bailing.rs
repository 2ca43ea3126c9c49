//! inclusionAI Ling 2.0 / Ring 2.0 (`BailingMoeV2ForCausalLM`: Ling-mini-2.0, Ling-flash-2.0,
//! Ring-mini-2.0, Ring-flash-2.0; families2, issue #17).
//!
//! Both engines build the same layer (SGLang `models/bailing_moe.py`, commit b0f07a5, where
//! `BailingMoeV2ForCausalLM` is an alias of `BailingMoEForCausalLM`; vLLM `models/bailing_moe.py`,
//! the release that registers `BailingMoeV2ForCausalLM`):
//!
//! - attention: one fused `query_key_value` (`QKVParallelLinear`, GQA) with a bias only when
//!   `use_bias` or `use_qkv_bias`, a per-head q/k RMSNorm when `use_qk_norm`, partial rotary
//!   (`partial_rotary_factor`, half the head in Ling 2.0) and the output projection `dense`;
//! - feed-forward: layer `i` is a dense SwiGLU MLP of `intermediate_size` when
//!   `i < first_k_dense_replace`, else MoE (SGLang `_is_layer_sparse`: `layer_id >=
//!   first_k_dense_replace`; vLLM `BailingMoeBlock`: `layer_idx < first_k_dense_replace` → MLP): `num_experts` SwiGLU experts of
//!   `moe_intermediate_size` (top `num_experts_per_tok`, TP-MoE), a shared MLP of
//!   `num_shared_experts × moe_shared_expert_intermediate_size` (`moe_intermediate_size` without
//!   that key; column / row-parallel) and a replicated router;
//! - the router (`gate`, num_experts × hidden) is fp32 when `router_dtype = "fp32"`, else at the
//!   model dtype (SGLang `BailingMoEGate(params_dtype=router_dtype)`; vLLM `nn.Linear(dtype=
//!   router_dtype)`), and carries an fp32 `expert_bias` when `moe_router_enable_expert_bias`
//!   (both engines: `torch.empty((num_experts,), dtype=torch.float32)`), used as the sigmoid
//!   router's correction bias, grouped top-k over `n_group` groups (`topk_group` kept).
//!
//! Refusals are the engines': SGLang raises "Unsupported activation: {hidden_act}. Only silu is
//! supported for now." and both assert "score_function and correction_bias should be in 2
//! combination (softmax, None) or (sigmoid, not None)"; SGLang asserts `n_group > 0 and 0 <
//! topk_group <= n_group` when either is set. `use_bias = true` (biased dense / MLP projections) is
//! not lowered (every Ling 2.0 config says false). The MTP layer (`num_nextn_predict_layers`) is a
//! draft and not loaded by the target. Partial rotary changes no weight, only the width of vLLM's
//! RoPE cos/sin cache ([`vllm_rotary_dim`]). tpsim does not gate the architecture by
//! `engine.version`: which SGLang and vLLM releases first registered `BailingMoeV2ForCausalLM` was
//! not established (both register it in the sources read).

use super::{ModelConfig, ModelError};

/// `router_dtype = "fp32"`: the router weight is kept in fp32 by both engines.
pub(crate) fn router_fp32(text: &ModelConfig) -> bool {
    text.router_dtype.as_deref() == Some("fp32")
}

/// The rotary width vLLM builds its cos/sin cache for: `getattr(config, "rotary_dim", head_dim)`
/// (vLLM `models/bailing_moe.py` `BailingAttention`) scaled by `partial_rotary_factor` in
/// `get_rope` (`rotary_embedding/__init__.py`: `if partial_rotary_factor < 1.0: rotary_dim =
/// int(rotary_dim * partial_rotary_factor)`). Ling 2.0: 128 × 0.5 = 64.
///
/// Errors: a factor outside (0, 1].
pub(crate) fn vllm_rotary_dim(text: &ModelConfig, head_dim: u64) -> Result<u64, ModelError> {
    let base = text.rotary_dim.unwrap_or(head_dim);
    match text.partial_rotary_factor {
        None => Ok(base),
        Some(f) if f > 0.0 && f <= 1.0 => Ok(((base as f64) * f).floor().max(1.0) as u64),
        Some(f) => Err(ModelError::InvalidField {
            field: "partial_rotary_factor".into(),
            value: f.to_string(),
            expected: "a share of the head in (0, 1]".into(),
        }),
    }
}

/// Each layer's feed-forward, the MoE shape, the dense width and the leading dense layers, after
/// the engines' checks (see the module doc).
pub(crate) fn feed_forward(
    text: &ModelConfig,
    num_layers: u64,
    an: &str,
) -> Result<super::config::FeedForward, ModelError> {
    let need = |v: Option<u64>, field: &str| super::nemotron_h::bounded(v, field, an);
    if let Some(act) = text.hidden_act.as_deref().filter(|a| *a != "silu") {
        return Err(ModelError::InvalidField {
            field: "hidden_act".into(),
            value: act.into(),
            expected: format!(
                "\"silu\" (SGLang bailing_moe.py: \"Unsupported activation: {act}. Only silu is supported for now.\")"
            ),
        });
    }
    if text.use_bias == Some(true) {
        return Err(ModelError::InvalidField {
            field: "use_bias".into(),
            value: "true".into(),
            expected: "false: tpsim does not lower Bailing's biased dense and MLP projections (every \
                       Ling 2.0 config says false)"
                .into(),
        });
    }
    let bias = text.moe_router_enable_expert_bias.unwrap_or(false);
    match text.score_function.as_deref() {
        None => {}
        Some("sigmoid") if bias => {}
        Some("softmax") if !bias => {}
        Some(f) => {
            return Err(ModelError::InvalidField {
                field: "score_function".into(),
                value: f.into(),
                expected: "with moe_router_enable_expert_bias, the engines' assertion \"score_function and \
                           correction_bias should be in 2 combination (softmax, None) or (sigmoid, not None)\""
                    .into(),
            });
        }
    }
    let (groups, topk_groups) = (text.n_group.unwrap_or(0), text.topk_group.unwrap_or(0));
    if (groups > 0 || topk_groups > 0) && !(groups > 0 && topk_groups > 0 && topk_groups <= groups) {
        return Err(ModelError::InvalidField {
            field: "topk_group".into(),
            value: topk_groups.to_string(),
            expected: format!(
                "n_group > 0 and 0 < topk_group <= n_group (SGLang bailing_moe.py asserts it; n_group = {groups})"
            ),
        });
    }
    let e = need(text.num_experts, "num_experts")?;
    let k = need(text.num_experts_per_tok, "num_experts_per_tok")?;
    let inter = need(text.moe_intermediate_size, "moe_intermediate_size")?;
    if groups > 0 && !e.is_multiple_of(groups) {
        return Err(ModelError::InvalidField {
            field: "n_group".into(),
            value: groups.to_string(),
            expected: format!(
                "a divisor of num_experts ({e}): grouped top-k splits the experts into equal groups"
            ),
        });
    }
    let per_shared = text.moe_shared_expert_intermediate_size.unwrap_or(inter);
    let shared = per_shared.saturating_mul(text.num_shared_experts.unwrap_or(0));
    let shape = super::config::moe_shape(
        (e, k, inter, shared),
        [
            "num_experts_per_tok",
            "moe_intermediate_size",
            "moe_shared_expert_intermediate_size × num_shared_experts",
        ],
    )?;
    // Read without a default by both engines (`config.first_k_dense_replace`).
    let first_k = text
        .first_k_dense_replace
        .ok_or_else(|| ModelError::MissingField {
            field: "first_k_dense_replace".into(),
            architecture: an.into(),
        })?;
    let dense = if first_k > 0 {
        need(text.intermediate_size, "intermediate_size")?
    } else {
        0
    };
    Ok(super::config::moe_where(num_layers, shape, dense, |i| {
        i >= first_k
    }))
}
