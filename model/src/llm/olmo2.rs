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
//! also read `layer_types`: a `"sliding_attention"` layer gets the config's `sliding_window` (vLLM
//! `per_layer_sliding_window = sliding_window`; SGLang `sliding_window_size = sliding_window − 1`,
//! HF's inclusive window) and plain (unscaled) RoPE; published OLMo-2 configs have none.
//!
//! **OLMo-3** (`Olmo3ForCausalLM`, families9): the same class in both engines — vLLM 0.19.0
//! `registry.py` maps the name to `("olmo2", "Olmo2ForCausalLM")`, SGLang 0.5.9 `configs/olmo3.py`
//! (`Olmo3Config`, model type `olmo3`) rewrites `architectures` to `Olmo2ForCausalLM`. Its configs
//! slide 3 layers in 4 (`layer_types`, window 4,096). KV: SGLang 0.5.9 keeps the plain pool over
//! every layer (`Olmo2ForCausalLM` is not in `model_config.py` `is_hybrid_swa_model`); vLLM gives the
//! sliding layers a `SlidingWindowSpec` (the hybrid KV cache manager). tpsim reads the window as
//! given under both engines (SGLang's one token less is not modelled). A config under the OLMo-3
//! name without `layer_types` is refused: both engines would then take `Olmo3Config`'s default
//! pattern, which tpsim does not reconstruct.

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

/// What tpsim refuses in an OLMo-2/3 or OLMoE config: `attention_bias = true` (vLLM builds q/k/v/o
/// without bias; SGLang's olmo2.py would build one: the engines disagree), an explicit `head_dim` other than
/// `hidden_size / num_attention_heads` (both engines ignore the key), an OLMo-3 config without
/// `layer_types` (see the module doc) and, for OLMoE, `layer_types` naming a sliding layer
/// (`models/olmoe.py` reads no per-layer window in either engine).
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
    // families9 (issue #17): the published OLMo-3 configs list `layer_types` (see the module doc).
    if an == "Olmo3ForCausalLM" && text.layer_types.is_none() {
        return Err(ModelError::MissingField {
            field: "layer_types".into(),
            architecture: an.into(),
        });
    }
    if an != "OlmoeForCausalLM" {
        return Ok(());
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
                "only \"full_attention\" for {an} (both engines' olmoe.py build no sliding layer)"
            ),
        });
    }
    Ok(())
}
