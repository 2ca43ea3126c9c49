//! EXAONE 4 (`Exaone4ForCausalLM`; helper families5, issue #17): what it changes in the Llama layer.
//! Sources: SGLang 0.5.9 `python/sglang/srt/models/exaone4.py` (0.5.8 has no such file), vLLM 0.19.0
//! `vllm/model_executor/models/exaone4.py` (both read from the released wheels) and transformers
//! 4.57.3 `models/exaone4/configuration_exaone4.py`.
//!
//! | piece | per rank | source |
//! |---|---|---|
//! | no `input_layernorm`; `post_attention_layernorm` on the attention output and `post_feedforward_layernorm` on the MLP output, each followed by a separate residual add | 2 × hidden per layer (the generic two norm vectors) | `Exaone4DecoderLayer.forward` |
//! | q/k/v/o without bias (SGLang always; vLLM reads `attention_bias`/`bias`: refused when true) | generic GQA pieces | `Exaone4Attention` |
//! | `q_norm`, `k_norm` = `RMSNorm(head_dim)`, applied per head | 2 × head_dim per layer | `Exaone4Attention.__init__` |
//! | sliding layers: `layer_types` (vLLM); SGLang: `(i + 1) % len(sliding_window_pattern) != 0` | KV window `sliding_window` | both `Exaone4Attention` |
//! | no rotary embedding on the full-attention layers when any layer slides (NoPE) | one kernel fewer on those layers | vLLM `apply_rope_all_layers`; SGLang `if not self.sliding_window_pattern or self.is_sliding` |
//! | gate_up / down without bias (vLLM reads `mlp_bias`: refused when true), SiLU only | generic dense MLP | `Exaone4GatedMLP` |
//! | untied LM head unless `tie_word_embeddings` (32B untied, 1.2B tied) | generic | `Exaone4ForCausalLM` |
//!
//! SGLang builds the attention with `head_dim = hidden_size / num_attention_heads` (it passes no
//! `head_dim`); vLLM reads `head_dim` from the config: a config where they differ is refused.
//!
//! **Decode kernels a layer launches** (SGLang 0.5.9 `exaone4.py`, counted as the generic template
//! in `llm::forward` counts Llama's): attention half — qkv GEMM, `q_norm`, `k_norm`, rotary
//! (RoPE layers only), attention, o GEMM, `post_attention_layernorm`, residual add = 8 (7 on a NoPE
//! layer), where Llama's fused add + RMSNorm and one per-head q/k norm make 6; MLP half — gate_up
//! GEMM, SiLU-and-mul, down GEMM, `post_feedforward_layernorm`, residual add = 5 (Llama 4).

use super::config::ModelConfig;
use super::hybrid::Mixer;
use super::{ModelError, invalid};

/// Kernels of an EXAONE 4 layer's attention half with a rotary embedding (module table): 8.
const ATTN_KERNELS_ROPE: u32 = 8;
/// Kernels of its MLP half (module table): 5.
pub(crate) const MLP_KERNELS: u32 = 5;
/// `sliding_window_pattern` when the config omits it: transformers 4.57.3 `Exaone4Config`
/// default 4 (three sliding layers, then one full).
pub(crate) const DEFAULT_PATTERN: u64 = 4;

/// Kernels of the attention half of a layer, `nope` when it has no rotary embedding.
pub(crate) fn attn_kernels(nope: bool) -> u32 {
    ATTN_KERNELS_ROPE - u32::from(nope)
}

/// The NoPE layers: every full-attention layer, when at least one layer slides (vLLM 0.19.0
/// `apply_rope_all_layers = "sliding_attention" not in config.layer_types`); none otherwise.
pub(crate) fn nope_layers(mixers: &[Mixer]) -> Vec<u32> {
    if !mixers.contains(&Mixer::SlidingAttention) {
        return Vec::new();
    }
    mixers
        .iter()
        .enumerate()
        .filter(|(_, m)| **m == Mixer::Attention)
        .map(|(i, _)| i as u32)
        .collect()
}

/// What tpsim refuses in an EXAONE 4 config (each where the engines disagree or both fail):
/// `attention_bias`/`bias` or `mlp_bias` true (vLLM builds the biases, SGLang never does), an explicit
/// `head_dim` other than `hidden_size / num_attention_heads` (SGLang ignores it, vLLM uses it), a
/// `hidden_act` other than `"silu"` (both raise "Unsupported activation"), and a
/// `sliding_window_pattern` string whose length puts the sliding layers elsewhere than
/// `layer_types` does (SGLang reads the one, vLLM the other).
pub(crate) fn check(
    text: &ModelConfig,
    (hidden, heads): (u64, u64),
    mixers: &[Mixer],
    an: &str,
) -> Result<(), ModelError> {
    if let Some(key) = super::arcee::bias_asked(text) {
        return Err(invalid(
            key,
            "true".into(),
            format!(
                "false: vLLM 0.19.0 exaone4.py builds the bias {key} asks for, SGLang 0.5.9 exaone4.py never \
                 does (the engines disagree on {an}'s weights)"
            ),
        ));
    }
    if let Some(d) = text.head_dim.filter(|d| heads * d != hidden) {
        return Err(invalid(
            "head_dim",
            d.to_string(),
            format!(
                "hidden_size / num_attention_heads = {} (SGLang 0.5.9 exaone4.py computes it so and ignores \
                 head_dim; vLLM 0.19.0 reads head_dim)",
                hidden / heads
            ),
        ));
    }
    if let Some(a) = text.hidden_act.as_deref().filter(|a| *a != "silu") {
        return Err(invalid(
            "hidden_act",
            format!("\"{a}\""),
            format!(
                "\"silu\" (both engines' Exaone4GatedMLP: \"Unsupported activation: {a}. Only silu is supported for now.\")"
            ),
        ));
    }
    // SGLang slides layer i iff (i + 1) % len(sliding_window_pattern) != 0, whatever `layer_types`.
    if let (Some(p), true) = (
        text.sliding_pattern_letters(),
        text.sliding_window.is_some_and(|w| w > 0),
    ) {
        let sglang = |i: usize| !(i as u64 + 1).is_multiple_of(p.max(1));
        if let Some(i) = mixers
            .iter()
            .enumerate()
            .position(|(i, m)| (*m == Mixer::SlidingAttention) != sglang(i))
        {
            return Err(invalid(
                "layer_types",
                format!("layer {i} {:?}", mixers[i]),
                format!(
                    "the layout of sliding_window_pattern ({p} letters: SGLang 0.5.9 slides layer i iff (i + 1) % {p} \
                     != 0), which vLLM reads from layer_types: the engines would disagree"
                ),
            ));
        }
    }
    Ok(())
}
