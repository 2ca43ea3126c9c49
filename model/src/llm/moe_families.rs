//! GraniteMoE and Phi-3.5-MoE (issue #16, helper fam): what they add to the generic MoE layout.
//!
//! Both lower to "every layer MoE of `intermediate_size`, no shared expert" (`config::all_moe_ffn`)
//! behind a bias-free replicated router. What differs from a Llama/Mixtral layer:
//!
//! | family | piece | per rank | source |
//! |---|---|---|---|
//! | GraniteMoE | nothing: `embedding_multiplier`, `residual_multiplier`, `attention_multiplier`, `logits_scaling` are scalars; q/k/v/o have no bias | — | SGLang 0.5.9 / vLLM 0.11.0 `models/granitemoe.py` |
//! | Phi-3.5-MoE | o_proj bias (`RowParallelLinear` bias: the full hidden width on every rank) | hidden | same files, `models/phimoe.py` `PhiMoEAttention` |
//! | Phi-3.5-MoE | `input_layernorm` / `post_attention_layernorm` are `nn.LayerNorm` with a bias | 2 × hidden per layer | `PhiMoEDecoderLayer` |
//! | Phi-3.5-MoE | the final `norm` is an `nn.LayerNorm` with a bias | hidden | `PhiMoEModel` |
//! | Phi-3.5-MoE | the LM head has a bias, vocab-parallel like its weight | padded vocab / tp | `PhiMoEForCausalLM`: `ParallelLMHead(..., bias=True)` |
//!
//! The q/k/v bias is the generic `attention_bias` piece (the published config says
//! `"attention_bias": true`). Phi-3.5-MoE's `sliding_window` (131,072 = `max_position_embeddings`)
//! is not a local window: SGLang's `phimoe.py` passes none to its attention, and vLLM 0.11.0, which
//! makes every layer a `SlidingWindowSpec` of that width (`engine/arg_utils.py` sets
//! `CacheConfig.sliding_window` for non-interleaved models), sizes one page group whose token count
//! is the full-attention one; with contexts up to 131,072 no read is cut. tpsim lowers it as full
//! attention.

use super::piece::Piece;

/// Phi-3.5-MoE's per-layer extras beside the generic attention pieces: the o_proj bias (when the
/// projections carry biases) and the biases of its two LayerNorms.
pub(crate) fn phimoe_layer_extras(hidden: u64, attention_bias: bool) -> Vec<Piece> {
    let mut ps = vec![Piece::vec(2 * hidden)];
    if attention_bias {
        ps.push(Piece::vec(hidden));
    }
    ps
}

/// Phi-3.5-MoE's model-level extras: the final LayerNorm's bias and the LM head's bias shard.
pub(crate) fn phimoe_top_extras(hidden: u64, vocab_rows: u64) -> (Piece, Piece) {
    (Piece::vec(hidden), Piece::vec(vocab_rows))
}
