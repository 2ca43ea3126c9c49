//! Apertus (`ApertusForCausalLM`: swiss-ai Apertus-8B / -70B; helper families21, issue #17): the Llama
//! attention with per-head q/k RMSNorms and a non-gated xIELU MLP. Sources: SGLang 0.5.9
//! `python/sglang/srt/models/apertus.py` and `layers/activation.py` (`XIELU`), vLLM 0.11.0
//! `vllm/model_executor/models/apertus.py` and `layers/activation.py` (all read from the released
//! wheels).
//!
//! | piece | SGLang (`apertus.py`) | vLLM (`apertus.py`) | per rank |
//! |---|---|---|---|
//! | attention | fused q/k/v (`QKVParallelLinear`) and `o_proj`, biased with `attention_bias or bias` (`qkv_bias` overrides q/k/v) | the same | the generic GQA shards |
//! | q/k norms | `q_norm` / `k_norm` `RMSNorm(head_dim)`, always built (the config's `qk_norm` is not read) | the same | 2 × head_dim, replicated |
//! | MLP | `up_proj` (column) → `XIELU` → `down_proj` (row), biased with `mlp_bias`; `hidden_act` other than `xielu` raises | the same | up I/tp × hidden, down hidden × I/tp |
//! | xIELU | `alpha_p`, `alpha_n`: one-element `nn.Parameter`s per layer (learned); `beta`, `eps` buffers | the same | 2, replicated |
//! | norms | `attention_layernorm`, `feedforward_layernorm`, final norm | the same | generic |
//! | head | tied to `embed_tokens` when `tie_word_embeddings` | the same | generic |
//!
//! Refused: a `hidden_act` other than `xielu` (both engines raise "Unsupported activation: … Only
//! xIELU is supported for now."), and `attention_bias` / `bias` / `mlp_bias` (tpsim does not lower the
//! biased projections; every published config says false). `post_norm` is read by neither engine and
//! changes no size. The two `beta` / `eps` buffers a layer are not parameters and are not counted.

use super::config::ModelConfig;
use super::piece::Piece;
use super::{ModelError, refuse};

/// Learned xIELU scalars per layer (`alpha_p`, `alpha_n`; SGLang 0.5.9 / vLLM 0.11.0 `XIELU`).
pub(crate) const XIELU_PARAMS: u64 = 2;

/// The MLP of one rank: Arcee's non-gated `up_proj` / `down_proj` pair (`llm::arcee`) plus the
/// layer's two replicated xIELU scalars.
pub(crate) fn mlp_pieces(hidden: u64, intermediate: u64, t: u64) -> Vec<Piece> {
    let mut ps = super::arcee::mlp_pieces(hidden, intermediate, t);
    ps.push(Piece::vec(XIELU_PARAMS));
    ps
}

/// What tpsim refuses in an Apertus config (module doc).
pub(crate) fn check(text: &ModelConfig) -> Result<(), ModelError> {
    match text.hidden_act.as_deref() {
        Some("xielu") => {}
        other => {
            let v = other.unwrap_or("(absent)");
            return Err(refuse(
                "hidden_act",
                v.to_string(),
                &format!(
                    "\"xielu\": SGLang 0.5.9 and vLLM 0.11.0 apertus.py raise \"Unsupported activation: {v}. Only \
                     xIELU is supported for now.\""
                ),
            ));
        }
    }
    if let Some(key) = super::arcee::bias_asked(text) {
        return Err(refuse(
            key,
            "true".into(),
            "false: tpsim does not lower Apertus's biased projections (every published config says false)",
        ));
    }
    Ok(())
}
