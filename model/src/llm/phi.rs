//! Phi-1 / Phi-1.5 / Phi-2 (`PhiForCausalLM`; helper phi2, issue #17): what they add to the generic
//! dense layout. Source: vLLM 0.19.0 `model_executor/models/phi.py` (SGLang 0.5.9 `models/phi.py`
//! builds the same modules).
//!
//! | piece | per rank | source |
//! |---|---|---|
//! | one `input_layernorm` (`nn.LayerNorm`, weight + bias) shared by attention and MLP, no post-attention norm | 2 × hidden per layer (the generic two norm vectors) | `PhiLayer` |
//! | q/k/v bias | the generic `attention_bias` piece (`QKVParallelLinear(..., bias=True)`) | `PhiAttention` |
//! | `dense` (o_proj) bias, replicated by `RowParallelLinear` | hidden | `PhiAttention` |
//! | `fc1` (`ColumnParallelLinear`, bias) → GELU → `fc2` (`RowParallelLinear`, bias): not gated | fc1 I/tp × hidden + I/tp; fc2 hidden × I/tp + hidden | `PhiMLP` |
//! | `final_layernorm` (`nn.LayerNorm`) bias | hidden | `PhiModel` |
//! | LM head bias, vocab-parallel like its weight; embeddings never tied (`assert not config.tie_word_embeddings`) | padded vocab / tp | `PhiForCausalLM` |
//!
//! The partial rotary (`partial_rotary_factor` 0.4 on phi-2) changes no weight; the MLP width is
//! the config's `intermediate_size` (vLLM reads `n_inner`, default 4 × hidden: equal on the
//! published phi-1/1.5/2 configs).

use super::ModelError;
use super::piece::{Fmt, Piece};

/// The per-layer extra beside the generic attention pieces: the `dense` projection's bias.
pub(crate) fn layer_extras(hidden: u64) -> Vec<Piece> {
    vec![Piece::vec(hidden)]
}

/// The non-gated MLP of one rank: fc1 (column-parallel, biased), fc2 (row-parallel, bias replicated).
pub(crate) fn mlp_pieces(hidden: u64, intermediate: u64, t: u64) -> Vec<Piece> {
    let local = intermediate / t;
    vec![
        Piece::new(local, hidden, Fmt::Linear).gemm("mlp.fc1"),
        Piece::vec(local),
        Piece::new(hidden, local, Fmt::Linear).gemm("mlp.fc2"),
        Piece::vec(hidden),
    ]
}

/// The model-level extras: the final LayerNorm's bias and the LM head's bias shard.
pub(crate) fn top_extras(hidden: u64, vocab_rows: u64) -> (Piece, Piece) {
    (Piece::vec(hidden), Piece::vec(vocab_rows))
}

/// vLLM 0.19.0 `PhiForCausalLM.__init__` asserts `not config.tie_word_embeddings` (the LM head has a
/// bias, so it cannot share the embedding).
pub(crate) fn check_untied(tied: bool, arch: &str) -> Result<(), ModelError> {
    if tied {
        return Err(ModelError::InvalidField {
            field: "tie_word_embeddings".into(),
            value: "true".into(),
            expected: format!(
                "false: {arch}'s LM head has a bias and cannot share word embeddings (vLLM phi.py)"
            ),
        });
    }
    Ok(())
}
