//! Dense ERNIE-4.5 (`Ernie4_5ForCausalLM` / `Ernie4_5_ForCausalLM`: Baidu ERNIE-4.5-0.3B; helper
//! families17, issue #17). Sources: vLLM 0.19.0 `vllm/model_executor/models/ernie45.py` and
//! `registry.py`, vLLM 0.9.2 / 0.10.0 / 0.10.1 `registry.py`, SGLang 0.5.0rc0 and 0.5.9
//! `python/sglang/srt/models/ernie4.py` (all read from the released wheels).
//!
//! | piece | SGLang (`ernie4.py`) | vLLM (`ernie45.py`) | per rank |
//! |---|---|---|---|
//! | attention | `Ernie4Attention` (Llama's, `bias = use_bias`), non-neox RoPE (`rope_is_neox_style` default false) | `LlamaForCausalLM`'s attention, RoPE switched to non-neox, `o_proj.bias = None` | the generic GQA shards |
//! | MLP | `Ernie4MLP(intermediate_size)` in every layer: `moe_layer_start_index` defaults to `num_hidden_layers`, so no layer is MoE | Llama's `LlamaMLP` | the generic dense SwiGLU |
//! | norms, head | two RMSNorms a layer, final norm; `lm_head = embed_tokens` when `tie_word_embeddings` | the same (Llama) | generic |
//!
//! RoPE's style changes no size or GEMM tpsim computes. `use_bias = true` is refused (vLLM's Llama
//! never reads the key, SGLang biases q/k/v/o with it: the engines disagree, and every published
//! config says false), as for the MoE model (`llm::ernie`).
//!
//! **Names.** The checkpoints first shipped with remote code naming `Ernie4_5_ForCausalLM`; the
//! transformers port (and the re-published Hub configs) name `Ernie4_5ForCausalLM`. vLLM 0.9.2 and
//! 0.10.0 register `"Ernie4_5_ForCausalLM": ("ernie45", "Ernie4_5_ForCausalLM")`, 0.10.1 onwards
//! `"Ernie4_5ForCausalLM": ("ernie45", "Ernie4_5ForCausalLM")` only (0.9.1 has neither); SGLang's
//! `ernie4.py` (from 0.5.0rc0; 0.4.10.post2 has none) registers `Ernie4_5_ForCausalLM` only, up to
//! 0.5.9. Which releases serve which name is `sim::scenario::ernie45`'s.

use super::ModelError;
use super::config::ModelConfig;

/// The remote-code name (SGLang's only one; vLLM's before 0.10.1).
pub(crate) const LEGACY_NAME: &str = "Ernie4_5_ForCausalLM";

/// What dense ERNIE-4.5 refuses: `use_bias = true` (module doc).
pub(crate) fn check(text: &ModelConfig) -> Result<(), ModelError> {
    if text.use_bias == Some(true) {
        return Err(ModelError::InvalidField {
            field: "use_bias".into(),
            value: "true".into(),
            expected: "false: tpsim does not lower ERNIE-4.5's biased projections (vLLM 0.19.0's \
                       ernie45.py, a LlamaForCausalLM, never reads use_bias while SGLang's ernie4.py biases \
                       q/k/v/o with it; every published config says false)"
                .into(),
        });
    }
    Ok(())
}
