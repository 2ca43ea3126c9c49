//! Baidu ERNIE-4.5 MoE (`Ernie4_5_MoeForCausalLM`: ERNIE-4.5-21B-A3B, -300B-A47B; families, issue #17).
//!
//! The layer is Llama's (SGLang `models/ernie4.py` builds `LlamaAttention` and, for dense layers,
//! `DeepseekV2MLP`); layer `i` is MoE when `moe_layer_start_index ≤ i ≤ moe_layer_end_index` and
//! `(i − moe_layer_start_index) % moe_layer_interval == 0` (SGLang `Ernie4DecoderLayer`; vLLM
//! `models/ernie45_moe.py` tests `(i + 1) % moe_layer_interval == 0` instead, the same layers for
//! the published interval 1), else a dense SwiGLU MLP of `intermediate_size`. A MoE layer is
//! `moe_num_experts` SwiGLU experts of `moe_intermediate_size` (top `moe_k`, TP-MoE) plus a shared
//! MLP of `moe_num_shared_experts × moe_intermediate_size` (column / row-parallel) behind a
//! replicated router with an `e_score_correction_bias` (checkpoint `moe_statics`).
//!
//! | piece (per MoE layer, per rank) | SGLang | vLLM |
//! |---|---|---|
//! | router `gate` E × hidden | model dtype (`MoEGate`: `nn.Parameter`) | fp32 (`ReplicatedLinear(params_dtype=torch.float32)`) |
//! | `e_score_correction_bias` E | model dtype | fp32 |
//!
//! tpsim sizes SGLang's (model dtype): under vLLM each MoE layer holds E × (hidden + 1) × 2 B more
//! (ERNIE-4.5-21B-A3B: 27 × 64 × 2,561 × 2 = 8,850,816 B), which tpsim does not add (coverage
//! "approx." for vLLM's weights). The MTP layer (`num_nextn_predict_layers`, checkpoint `mtp_*`) is
//! skipped by both engines' loaders for the target.

use super::{ModelConfig, ModelError};

/// Each layer's feed-forward, the MoE shape, the dense width and the leading dense layers.
///
/// Errors: a missing `moe_*` key or `intermediate_size` (when a layer is dense), `moe_k` above
/// `moe_num_experts`, `moe_layer_interval` 0, `use_bias = true` (not lowered: every published config
/// says false).
pub(crate) fn feed_forward(
    text: &ModelConfig,
    num_layers: u64,
    an: &str,
) -> Result<super::config::FeedForward, ModelError> {
    let need = |v: Option<u64>, field: &str| super::nemotron_h::bounded(v, field, an);
    if text.use_bias == Some(true) {
        return Err(ModelError::InvalidField {
            field: "use_bias".into(),
            value: "true".into(),
            expected: "false: tpsim does not lower ERNIE-4.5's biased projections (every published \
                       config says false)"
                .into(),
        });
    }
    let e = need(text.moe_num_experts, "moe_num_experts")?;
    let k = need(text.moe_k, "moe_k")?;
    let inter = need(text.moe_intermediate_size, "moe_intermediate_size")?;
    let shared = inter.saturating_mul(text.moe_num_shared_experts.unwrap_or(0));
    let shape = super::config::moe_shape(
        (e, k, inter, shared),
        ["moe_k", "moe_intermediate_size", "moe_num_shared_experts"],
    )?;
    // SGLang `Ernie4DecoderLayer` defaults: start = num_hidden_layers (no MoE), end =
    // num_hidden_layers − 1; `moe_layer_interval` is read without a default (HF config default 1).
    let start = text.moe_layer_start_index.unwrap_or(num_layers);
    let end = text.moe_layer_end_index.unwrap_or(num_layers.saturating_sub(1));
    let interval = need(Some(text.moe_layer_interval.unwrap_or(1)), "moe_layer_interval")?;
    let is_moe = |i: u64| start <= i && i <= end && (i - start).is_multiple_of(interval);
    let dense = if (0..num_layers).any(|i| !is_moe(i)) {
        need(text.intermediate_size, "intermediate_size")?
    } else {
        0
    };
    Ok(super::config::moe_where(num_layers, shape, dense, is_moe))
}
