//! Arcee AFM (`ArceeForCausalLM`: AFM-4.5B and -Base; helper families18, issue #17): the Llama layer
//! with a non-gated ReLU² MLP. Sources: SGLang 0.5.9 and 0.4.10 `python/sglang/srt/models/arcee.py`,
//! vLLM 0.11.0 and 0.10.0 `vllm/model_executor/models/arcee.py` (all read from the released wheels).
//!
//! | piece | SGLang (`arcee.py`) | vLLM (`arcee.py`) | per rank |
//! |---|---|---|---|
//! | attention | Llama's (`ArceeAttention`: fused q/k/v and `o_proj`, both biased with `attention_bias or bias`) | `LlamaAttention` (q/k/v biased with `attention_bias or bias`, else `qkv_bias`; `o_proj` with `attention_bias or bias`) | the generic GQA shards |
//! | MLP | `up_proj` (`ColumnParallelLinear`, no bias) → ReLU² → `down_proj` (`RowParallelLinear`, no bias); `hidden_act` other than `relu2` raises | the same, each biased with `mlp_bias`; `hidden_act` other than `relu2` raises | up I/tp × hidden, down hidden × I/tp |
//! | norms | two RMSNorms a layer, final norm | the same | generic |
//! | head | its own `ParallelLMHead` always ("Arcee does not tie word embeddings") | tied to `embed_tokens` when `tie_word_embeddings` | generic (untied) |
//!
//! Refused (the engines would build different weights, and every published config says false):
//! `tie_word_embeddings`, `attention_bias` / `bias`, `qkv_bias`, `mlp_bias`; and a `hidden_act`
//! other than `relu2`, with the engines' own reason (both raise "Unsupported activation").
//! ReLU² is an elementwise kernel on the up projection's output: it changes no size, and the MLP's
//! GEMMs are two (not the gated three) — `weights` names them `mlp.up_proj` / `mlp.down_proj`.

use super::config::ModelConfig;
use super::piece::{Fmt, Piece};
use super::{ModelError, refuse};

/// The non-gated MLP of one rank: `up_proj` (column-parallel) and `down_proj` (row-parallel),
/// without biases.
pub(crate) fn mlp_pieces(hidden: u64, intermediate: u64, t: u64) -> Vec<Piece> {
    let local = intermediate / t;
    vec![
        Piece::new(local, hidden, Fmt::Linear).gemm("mlp.up_proj"),
        Piece::new(hidden, local, Fmt::Linear).gemm("mlp.down_proj"),
    ]
}

/// What tpsim refuses in an Arcee config (module doc).
pub(crate) fn check(text: &ModelConfig, tied: bool) -> Result<(), ModelError> {
    match text.hidden_act.as_deref() {
        Some("relu2") => {}
        other => {
            return Err(refuse(
                "hidden_act",
                other.unwrap_or("(absent)").to_string(),
                "\"relu2\": SGLang 0.5.9 arcee.py raises \"Unsupported activation: ... Arcee model in SGLang only \
                 supports 'relu2'\" and vLLM 0.11.0 arcee.py \"Unsupported activation: ... Only 'relu2' is \
                 supported for AFM\"",
            ));
        }
    }
    if tied {
        return Err(refuse(
            "tie_word_embeddings",
            "true".into(),
            "false: SGLang 0.5.9 arcee.py always builds its own lm_head (\"Arcee does not tie word embeddings\") \
             while vLLM 0.11.0 ties it: the engines disagree (every published config says false)",
        ));
    }
    if let Some(key) = bias_asked(text) {
        return Err(refuse(
            key,
            "true".into(),
            "false: tpsim does not lower Arcee's biased projections (SGLang 0.5.9 never biases the MLP, \
             vLLM 0.11.0 reads mlp_bias and qkv_bias: the engines disagree; every published config says false)",
        ));
    }
    Ok(())
}

/// hybrid50: the first of `attention_bias`, `bias`, `mlp_bias` a config sets true, which Arcee,
/// Apertus (`llm::apertus`) and EXAONE 4 (`llm::exaone4`) each refuse with their own text.
pub(crate) fn bias_asked(text: &ModelConfig) -> Option<&'static str> {
    [
        ("attention_bias", text.attention_bias),
        ("bias", text.bias),
        ("mlp_bias", text.mlp_bias),
    ]
    .into_iter()
    .find_map(|(key, v)| (v == Some(true)).then_some(key))
}
