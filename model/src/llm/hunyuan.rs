//! Hunyuan MoE (`HunYuanMoEV1ForCausalLM`, Tencent Hunyuan-A13B; helper families6, issue #17).
//! Sources: SGLang 0.5.9 `python/sglang/srt/models/hunyuan.py` and vLLM 0.19.0
//! `vllm/model_executor/models/hunyuan_v1.py` (read from the released wheels).
//!
//! | piece | both engines | per rank |
//! |---|---|---|
//! | attention | Llama GQA (`attention_bias`), `head_dim` else `attention_head_dim`; with `use_qk_norm` a per-head `query_layernorm` / `key_layernorm` (`RMSNorm(head_dim)`) | generic GQA pieces + 2 × head_dim |
//! | router | `gate = ReplicatedLinear(hidden, num_experts, bias=False, quant_config=None)` | replicated, model dtype |
//! | routed experts | `FusedMoE(num_experts, top_k = moe_topk[layer], moe_intermediate_size[layer])`, `renormalize = top_k > 1` | 1/tp of every expert |
//! | shared MLP | with `use_mixed_mlp_moe`: `HunYuanMLP(intermediate_size × num_shared_expert[layer])` | column/row-parallel |
//! | LM head | tied to `embed_tokens` when `tie_word_embeddings` (Hunyuan-A13B: tied) | generic |
//!
//! Every layer is MoE when `num_experts > 1` (`_is_moe`). tpsim's MoE shape has shared experts of
//! the routed experts' width, so a shared MLP whose `intermediate_size × num_shared_expert` is not
//! `moe_intermediate_size × n` is refused, as are per-layer lists of different values (the config
//! reader's `uniform_u64`) and cross-layer attention (`use_cla`: KV shared between layers, not
//! lowered). Both engines raise "Tensor parallel size … is greater than the number of experts" for
//! tp > `num_experts` (`ModelSpec::validate_parallel`).

use super::config::{FeedForward, ModelConfig, moe_where};
use super::{ModelError, MoeShape, missing_field, refuse};

/// Every layer's MoE block (routed experts plus the shared MLP).
pub(crate) fn feed_forward(text: &ModelConfig, num_layers: u64, an: &str) -> Result<FeedForward, ModelError> {
    let missing = |field: &str| missing_field(field, an);
    let e = text.num_experts.ok_or_else(|| missing("num_experts"))?;
    if !(2..=4096).contains(&e) {
        return Err(refuse(
            "num_experts",
            e.to_string(),
            "2 to 4,096 routed experts (a dense Hunyuan is HunYuanDenseV1ForCausalLM, not lowered)",
        ));
    }
    let k = text.moe_topk.ok_or_else(|| missing("moe_topk"))?;
    if k == 0 || k > e {
        return Err(refuse(
            "moe_topk",
            k.to_string(),
            &format!("1 to num_experts ({e})"),
        ));
    }
    let inter = text
        .intermediate_size
        .ok_or_else(|| missing("intermediate_size"))?;
    // "If it is moe, moe_intermediate_size is preferred" (both engines).
    let mi = text.moe_intermediate_size.unwrap_or(inter);
    if inter == 0 || inter > 1 << 20 || mi == 0 || mi > 1 << 20 {
        return Err(refuse(
            "intermediate_size / moe_intermediate_size",
            format!("{inter} / {mi}"),
            "positive widths no larger than 1,048,576",
        ));
    }
    let n_shared = if text.use_mixed_mlp_moe.unwrap_or(false) {
        let n = text
            .num_shared_expert
            .ok_or_else(|| missing("num_shared_expert"))?;
        let width = inter.saturating_mul(n);
        if n > 64 || !width.is_multiple_of(mi) {
            return Err(refuse(
                "num_shared_expert",
                n.to_string(),
                &format!(
                    "a shared MLP (intermediate_size {inter} × num_shared_expert) that is a whole number of \
                     moe_intermediate_size ({mi}) widths: tpsim's shared experts have the routed width"
                ),
            ));
        }
        width / mi
    } else {
        0
    };
    let shape = MoeShape::new(e, k, mi, n_shared);
    // Every layer MoE, no dense width, no leading dense layers.
    Ok(moe_where(num_layers, shape, 0, |_| true))
}

/// What tpsim refuses in a Hunyuan config beyond the feed-forward: cross-layer attention; for the
/// dense `HunYuanDenseV1ForCausalLM` (families17, issue #17) also `num_experts > 1` (both engines'
/// `_is_moe` would build the MoE block: SGLang 0.5.9 `hunyuan.py`, whose dense class subclasses the
/// MoE one, and vLLM 0.19.0 `hunyuan_v1.py`) and `mlp_bias` (`HunYuanMLP(bias=mlp_bias)`; every
/// published config says false, tpsim's dense SwiGLU has no bias).
pub(crate) fn check(text: &ModelConfig, dense: bool) -> Result<(), ModelError> {
    if dense {
        if let Some(e) = text.num_experts.filter(|e| *e > 1) {
            return Err(refuse(
                "num_experts",
                e.to_string(),
                "absent or 1 for HunYuanDenseV1ForCausalLM (with more experts both engines build the MoE                  block: name HunYuanMoEV1ForCausalLM)",
            ));
        }
        if text.mlp_bias == Some(true) {
            return Err(refuse(
                "mlp_bias",
                "true".into(),
                "false: tpsim does not lower a biased HunYuanMLP (every published config says false)",
            ));
        }
    }
    if text.use_cla == Some(true) {
        return Err(refuse(
            "use_cla",
            "true".into(),
            "false: cross-layer attention (KV shared by cla_share_factor layers, `_get_cla_factor`) is not \
             lowered by tpsim",
        ));
    }
    Ok(())
}
