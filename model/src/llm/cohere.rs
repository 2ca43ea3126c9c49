//! Command R / R+ (`CohereForCausalLM`; helper families8, issue #17) and what Command R7B / Command A
//! (`Cohere2ForCausalLM`) share with them. Sources: SGLang 0.5.9 `python/sglang/srt/models/commandr.py`
//! and vLLM 0.19.0 `vllm/model_executor/models/commandr.py` (both read from the released wheels; both
//! engines serve the two architectures with the one `CohereForCausalLM` class).
//!
//! | piece | per rank | source |
//! |---|---|---|
//! | one `input_layernorm` (LayerNorm, weight only) feeding attention and the MLP side by side, both added to the residual | hidden per layer | `CohereDecoderLayer` |
//! | q/k/v/o and gate_up/down without bias, whatever `attention_bias` says | generic GQA and SwiGLU pieces | `CohereAttention`, `CohereMLP` (`bias=False`) |
//! | `head_dim = hidden_size / num_attention_heads` (an explicit `head_dim` is ignored) | | `CohereAttention.__init__` |
//! | `use_qk_norm`: `q_norm = LayerNorm((num_heads, head_dim))`, `k_norm = LayerNorm((num_kv_heads, head_dim))` with the rank's heads (one weight row per head, sharded on dim 0) | (heads / tp + max(1, kv_heads / tp)) × head_dim per layer | `CohereAttention.__init__`; `LayerNorm.weight_loader` (SGLang) / `row_parallel_weight_loader` (vLLM) |
//! | logits from `embed_tokens` (tied); `logit_scale` multiplies them (no weight) | the vocab-parallel embedding | `CohereForCausalLM` (vLLM: `assert config.tie_word_embeddings`) |
//! | `CohereForCausalLM`: every layer full attention with RoPE (no sliding window) | | `CohereAttention` (`self.v1`) |

use super::ModelError;
use super::config::ModelConfig;
use super::piece::Piece;

/// Cohere's per-head q and k LayerNorm weights of one layer on one rank (`use_qk_norm`): the
/// rank's `heads / tp` query heads and `max(1, kv_heads / tp)` KV heads, `head_dim` each (both
/// engines build `LayerNorm(param_shape=(self.num_heads, self.head_dim))` with the per-rank head
/// counts and load the rank's rows).
pub(crate) fn qk_norm_pieces(heads: u64, kv_heads: u64, head_dim: u64, tp: u64) -> [Piece; 2] {
    [
        Piece::vec(heads / tp * head_dim),
        Piece::vec((kv_heads / tp).max(1) * head_dim),
    ]
}

/// What tpsim refuses in a Command R / R+ config: untied embeddings (vLLM 0.19.0 `commandr.py`
/// asserts `config.tie_word_embeddings`, SGLang 0.5.9 takes the logits from `embed_tokens`
/// whatever the config says: the engines disagree) and an explicit `head_dim` other than
/// `hidden_size / num_attention_heads` (both engines compute it so).
pub(crate) fn check(
    text: &ModelConfig,
    tied: bool,
    hidden: u64,
    heads: u64,
    an: &str,
) -> Result<(), ModelError> {
    if !tied {
        return Err(ModelError::InvalidField {
            field: "tie_word_embeddings".into(),
            value: "false".into(),
            expected: format!(
                "true: vLLM 0.19.0 commandr.py asserts config.tie_word_embeddings (\"currently all existing \
                 command R models have `tie_word_embeddings` enabled\") and SGLang 0.5.9 computes {an}'s \
                 logits from embed_tokens"
            ),
        });
    }
    if let Some(d) = text.head_dim.filter(|d| heads * d != hidden) {
        return Err(ModelError::InvalidField {
            field: "head_dim".into(),
            value: d.to_string(),
            expected: format!(
                "hidden_size / num_attention_heads = {} (both engines' commandr.py compute it so and \
                 ignore head_dim)",
                hidden / heads
            ),
        });
    }
    Ok(())
}
