//! StarCoder2 (`Starcoder2ForCausalLM`; helper families13, issue #17): what it changes in the Llama
//! layer. Sources: SGLang 0.5.8 `python/sglang/srt/models/starcoder2.py` and vLLM 0.19.0
//! `vllm/model_executor/models/starcoder2.py` (both read from the released wheels; the two build the
//! same modules); HF `Starcoder2Config` (transformers 4.57.1) for the defaults.
//!
//! | piece | per rank | source |
//! |---|---|---|
//! | `input_layernorm`, `post_attention_layernorm` (`nn.LayerNorm`: weight + bias) | 4 × hidden per layer (the generic two norm vectors + two biases) | `Starcoder2DecoderLayer` |
//! | `qkv_proj = QKVParallelLinear(..., bias=use_bias)` | the generic q / k / v shards (+ their bias: the generic `attention_bias` piece) | `Starcoder2Attention` |
//! | `o_proj = RowParallelLinear(..., bias=use_bias)`, bias replicated | generic o shard + hidden | same |
//! | `c_fc` (`ColumnParallelLinear`, bias) → `hidden_act` → `c_proj` (`RowParallelLinear`, bias): not gated | c_fc I/tp × hidden (+ I/tp), c_proj hidden × I/tp (+ hidden) | `Starcoder2MLP` |
//! | final `norm` (`nn.LayerNorm`) | 2 × hidden | `Starcoder2Model` |
//! | `lm_head = embed_tokens` when `tie_word_embeddings` (HF default true), else its own `ParallelLMHead` (no bias) | generic | `Starcoder2ForCausalLM` |
//!
//! `use_bias` is HF's default true (every published config says so). Both engines take `head_dim =
//! hidden_size / num_attention_heads`. The activation (`gelu_pytorch_tanh` in the published
//! configs) changes no size or GEMM tpsim computes.
//!
//! **Sliding window** (`sliding_window`, 4,096 in the published configs): vLLM 0.19.0 builds
//! `Attention(...)` without `per_layer_sliding_window`, so every layer takes
//! `cache_config.sliding_window` (the config's window, `layers/attention/attention.py`): every layer
//! slides and gets a `SlidingWindowSpec`, as for Mistral ([`super::local_attention`]). SGLang 0.5.8
//! builds `RadixAttention(...)` without `sliding_window_size` (no window at all: every layer attends to
//! the whole context) and `Starcoder2ForCausalLM` is not in `configs/model_config.py`
//! `is_hybrid_swa_model`: the plain pool over every layer, with full-context reads.
//! `sim::scenario` turns the layers back to full attention under SGLang.

use super::ModelError;
use super::config::ModelConfig;
use super::piece::{Fmt, Piece};

/// HF `Starcoder2Config` defaults `use_bias = True` (transformers 4.57.1
/// `configuration_starcoder2.py`).
pub(crate) const DEFAULT_USE_BIAS: bool = true;

/// Whether the projections and the MLP carry biases (`use_bias`, HF default true).
pub(crate) fn use_bias(text: &ModelConfig) -> bool {
    text.use_bias.unwrap_or(DEFAULT_USE_BIAS)
}

/// The per-layer extras beside the generic attention pieces: the two LayerNorm biases and, with
/// `use_bias`, the `o_proj` bias (replicated by `RowParallelLinear`).
pub(crate) fn layer_extras(hidden: u64, bias: bool) -> Vec<Piece> {
    let mut ps = vec![Piece::vec(hidden), Piece::vec(hidden)];
    if bias {
        ps.push(Piece::vec(hidden));
    }
    ps
}

/// The non-gated MLP of one rank: `c_fc` (column-parallel) and `c_proj` (row-parallel, bias
/// replicated), each biased with `use_bias`.
pub(crate) fn mlp_pieces(hidden: u64, intermediate: u64, t: u64, bias: bool) -> Vec<Piece> {
    let local = intermediate / t;
    let mut ps = vec![
        Piece::new(local, hidden, Fmt::Linear).gemm("mlp.c_fc"),
        Piece::new(hidden, local, Fmt::Linear).gemm("mlp.c_proj"),
    ];
    if bias {
        ps.push(Piece::vec(local));
        ps.push(Piece::vec(hidden));
    }
    ps
}

/// What tpsim refuses in a StarCoder2 config: an explicit `head_dim` other than `hidden_size /
/// num_attention_heads` (both engines compute it so and ignore the key).
pub(crate) fn check(text: &ModelConfig, hidden: u64, heads: u64, an: &str) -> Result<(), ModelError> {
    if let Some(d) = text.head_dim.filter(|d| heads * d != hidden) {
        return Err(ModelError::InvalidField {
            field: "head_dim".into(),
            value: d.to_string(),
            expected: format!(
                "hidden_size / num_attention_heads = {} (SGLang 0.5.8 and vLLM 0.19.0 starcoder2.py compute it so \
                 and ignore head_dim; {an})",
                hidden / heads
            ),
        });
    }
    Ok(())
}
