//! OLMo-2 (`Olmo2ForCausalLM`; helper families3, issue #17): what it changes in the Llama layer.
//! Sources: SGLang 0.5.9 `python/sglang/srt/models/olmo2.py` and vLLM 0.19.0
//! `vllm/model_executor/models/olmo2.py` (both read from the released wheels).
//!
//! | piece | per rank | source |
//! |---|---|---|
//! | no `input_layernorm`; `post_attention_layernorm` on the attention output and `post_feedforward_layernorm` on the MLP output, each before its residual add | 2 × hidden per layer (the generic two norm vectors) | `Olmo2DecoderLayer` |
//! | q/k/v/o without bias (vLLM hard-codes `bias=False`; SGLang reads `attention_bias`) | generic GQA pieces | `Olmo2Attention` |
//! | `q_norm = RMSNorm(hidden_size)`, `k_norm = RMSNorm(num_kv_heads × head_dim)`, built whole (not sharded) | hidden + kv_heads × head_dim per layer, on every rank | `Olmo2Attention.__init__` |
//! | `_apply_qk_norm`: at tp > 1, all-gather q and k, normalise, keep this rank's slice | two all-gathers per layer | `Olmo2Attention._apply_qk_norm` |
//! | gate_up / down without bias, SwiGLU | generic dense MLP | `Olmo2MLP` |
//! | untied LM head unless `tie_word_embeddings` | generic | `Olmo2ForCausalLM` |
//!
//! Both engines take `head_dim = hidden_size / num_attention_heads` whatever the config says. Both
//! also read `layer_types` (OLMo-3 configs share the class and slide 3 layers in 4); published
//! OLMo-2 configs have none, and tpsim refuses a sliding layer under the OLMo-2 name rather than
//! lower it as full attention.

use super::ModelError;
use super::config::ModelConfig;
use super::piece::Piece;

/// The whole-width q and k RMSNorm weights of one layer, replicated on every rank: `hidden` and
/// `kv_heads × head_dim` elements (SGLang 0.5.9 / vLLM `Olmo2Attention`).
pub(crate) fn qk_norm_pieces(hidden: u64, kv_heads: u64, head_dim: u64) -> [Piece; 2] {
    [Piece::vec(hidden), Piece::vec(kv_heads * head_dim)]
}

/// Output bytes per rank of the two per-layer all-gathers of `_apply_qk_norm` over `tokens` tokens
/// at `act` bytes per element: q is gathered to `tokens × heads × head_dim`, k to
/// `tokens × kv_heads × head_dim` (tp > kv_heads, where the gather would yield tp replicated heads,
/// is refused by `ModelSpec::validate_parallel`). Zero at tp 1 (no gather).
pub(crate) fn qk_gather_bytes(
    tokens: u64,
    heads: u64,
    kv_heads: u64,
    head_dim: u64,
    tp: u64,
    act: u64,
) -> [u64; 2] {
    if tp <= 1 {
        return [0, 0];
    }
    let q = (heads / tp) * head_dim * tp;
    let k = (kv_heads / tp).max(1) * head_dim * tp;
    [
        tokens.saturating_mul(q).saturating_mul(act),
        tokens.saturating_mul(k).saturating_mul(act),
    ]
}

/// What tpsim refuses in an OLMo-2 or OLMoE config: `attention_bias = true` (vLLM builds q/k/v/o
/// without bias; SGLang's olmo2.py would build one: the engines disagree), an explicit `head_dim` other than
/// `hidden_size / num_attention_heads` (both engines ignore the key) and `layer_types` naming a
/// sliding layer (an OLMo-3 layout under the OLMo-2 name; not lowered).
pub(crate) fn check(text: &ModelConfig, hidden: u64, heads: u64, an: &str) -> Result<(), ModelError> {
    if text.attention_bias == Some(true) {
        return Err(ModelError::InvalidField {
            field: "attention_bias".into(),
            value: "true".into(),
            expected: format!(
                "false: vLLM 0.19.0 builds {an}'s q/k/v/o without bias (olmo2.py, olmoe.py: \
                 bias=False), whatever the config says"
            ),
        });
    }
    if let Some(d) = text.head_dim.filter(|d| heads * d != hidden) {
        return Err(ModelError::InvalidField {
            field: "head_dim".into(),
            value: d.to_string(),
            expected: format!(
                "hidden_size / num_attention_heads = {} (both engines' olmo2.py compute it so and \
                 ignore head_dim)",
                hidden / heads
            ),
        });
    }
    if let Some(t) = text
        .layer_types
        .iter()
        .flatten()
        .find(|t| t.as_str() != "full_attention")
    {
        return Err(ModelError::InvalidField {
            field: "layer_types".into(),
            value: format!("[.., \"{t}\", ..]"),
            expected: format!(
                "only \"full_attention\" for {an} (sliding layers are OLMo-3's, not lowered by tpsim)"
            ),
        });
    }
    Ok(())
}
