//! dots.llm1 (`Dots1ForCausalLM`; helper families15, issue #17): rednote-hilab's MoE, a DeepSeek-V3
//! style feed-forward behind a Qwen3 style attention. Sources: vLLM 0.19.0
//! `vllm/model_executor/models/dots1.py` (read from the released wheel; 0.9.2's is the same shape);
//! HF `Dots1Config` (transformers 4.57.1) for the keys.
//!
//! | piece | per rank | source |
//! |---|---|---|
//! | `qkv_proj = QKVParallelLinear(..., bias=attention_bias)`, `o_proj` (`RowParallelLinear`, no bias) | the generic GQA shards | `Dots1Attention` |
//! | `q_norm`, `k_norm` = `RMSNorm(head_dim)`, applied per head | 2 × head_dim, replicated (the generic per-head q/k norm) | same |
//! | layers `i < first_k_dense_replace` (or off `moe_layer_freq`): `Dots1MLP(intermediate_size)` (gate_up column-, down row-parallel) | the generic dense SwiGLU | `Dots1DecoderLayer` |
//! | other layers: `Dots1MoE`: `gate = ReplicatedLinear(hidden, n_routed_experts)`, `e_score_correction_bias` (fp32 in the checkpoint) when `topk_method == "noaux_tc"`, `SharedFusedMoE` over `n_routed_experts` of `moe_intermediate_size`, shared experts one `Dots1MLP(moe_intermediate_size × n_shared_experts)` | the generic DeepSeek-style MoE pieces (tpsim's `deepseek_style_ffn`) | `Dots1MoE` |
//! | `input_layernorm`, `post_attention_layernorm`, final `norm` (RMSNorm), untied `lm_head` | generic | `Dots1Model`, `Dots1ForCausalLM` |
//!
//! Routing (sigmoid scores, `noaux_tc` correction bias, `n_group` / `topk_group` grouped top-k,
//! `routed_scaling_factor` applied after the experts) changes no size or GEMM tpsim computes. The MoE
//! output is all-reduced once after the routed and shared experts are summed
//! (`tensor_model_parallel_all_reduce` in `Dots1MoE.forward`), as for the other MoE families.
//!
//! **Engines.** vLLM registers `"Dots1ForCausalLM": ("dots1", "Dots1ForCausalLM")` from 0.9.2 (the 0.9.2
//! wheel's `models/dots1.py`; 0.9.1's `registry.py` has no entry). No SGLang release tpsim models ships
//! a `dots1.py` (checked: the 0.4.9 and 0.5.2 to 0.5.9 wheels); `sim::scenario` refuses it under
//! SGLang.

use super::ModelError;
use super::config::ModelConfig;

/// Whether the router carries an `e_score_correction_bias` (vLLM 0.19.0 `Dots1MoE`: `if
/// config.topk_method == "noaux_tc"`).
pub(crate) fn routing_bias(text: &ModelConfig) -> bool {
    text.topk_method.as_deref() == Some("noaux_tc")
}

/// What dots.llm1 refuses: a `hidden_act` other than `"silu"` (vLLM 0.19.0 `Dots1MLP` and `Dots1MoE`
/// raise "Unsupported activation: {hidden_act}. Only silu is supported for now.").
pub(crate) fn check(text: &ModelConfig) -> Result<(), ModelError> {
    if let Some(act) = text.hidden_act.as_deref().filter(|a| *a != "silu") {
        return Err(ModelError::InvalidField {
            field: "hidden_act".into(),
            value: act.into(),
            expected: format!(
                "\"silu\" (vLLM 0.19.0 dots1.py: \"Unsupported activation: {act}. Only silu is supported for now.\")"
            ),
        });
    }
    Ok(())
}
