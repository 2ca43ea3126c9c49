//! InternLM2 / InternLM2.5 (`InternLM2ForCausalLM`; helper families11, issue #17): what it changes in
//! the Llama layer. Sources: SGLang 0.5.8 `python/sglang/srt/models/internlm2.py` and vLLM 0.19.0
//! `vllm/model_executor/models/internlm2.py` and `layers/linear.py` (both read from the released
//! wheels); registered under the name by vLLM 0.19.0 `registry.py` (`("internlm2",
//! "InternLM2ForCausalLM")`) and by SGLang's `EntryClass`.
//!
//! | piece | per rank | source |
//! |---|---|---|
//! | `attention_norm`, `ffn_norm` (RMSNorm) | 2 × hidden per layer (the generic two norm vectors) | `InternLMDecoderLayer` |
//! | `wqkv = QKVParallelLinear(hidden, head_dim, heads, kv_heads, bias=False)` | the generic q / k / v shards (KV heads replicated past tp = kv_heads under SGLang) | `InternLM2Attention.__init__` |
//! | `wo = RowParallelLinear(heads × head_dim, hidden, bias=False)` | generic o shard | same |
//! | `gate_up_proj` (checkpoint `w1`, `w3`) and `w2`, no bias, SiLU only | generic SwiGLU | `InternLM2MLP` |
//! | `tok_embeddings`, `output = ParallelLMHead(vocab, hidden)` | generic, untied | `InternLM2Model`, `InternLM2ForCausalLM` |
//!
//! The checkpoint's `wqkv` rows are grouped per KV head: for each of the `kv_heads` groups,
//! `heads / kv_heads` q heads, then one k head, then one v head. SGLang's `load_weights` views the
//! tensor as `(-1, 2 + kv_groups, head_dim, hidden)` and loads the q, k and v rows into their shards:
//! at run time a Llama layer. vLLM loads the packed tensor as one fused q | k | v weight
//! (`QKVParallelLinear.weight_loader` with no shard id slices it at the q | k | v offsets, so each
//! rank holds rows of the *packed* order), and `InternLM2Attention.split_qkv` restores the layout at
//! run time: at tp > 1 it all-gathers the projection's output (`tensor_model_parallel_all_gather`,
//! tp × (q_size + 2 × kv_size) columns a token), reorders it into the packed groups, splits q, k and
//! v and keeps this rank's slice. That per-layer all-gather is vLLM's only: [`qkv_gather_bytes`],
//! costed by `sim::decode::passes` under vLLM. The weights a rank holds are the same count in both
//! engines.
//!
//! `split_qkv` views the gathered tensor as `(tokens, kv_heads, heads_per_rank / kv_heads_per_rank + 2,
//! head_dim)`; with KV heads replicated (tp > kv_heads) the element counts do not match and the view
//! fails: `sim::scenario::engine` refuses that tp under vLLM. The reshapes and the concatenation
//! around the gather (copies, fused by vLLM's `torch.compile` under CUDA graphs) are not costed.
//!
//! Both engines take `head_dim = hidden_size / num_attention_heads`, build no bias whatever the
//! config's `bias` says, and raise `ValueError("Unsupported activation: … Only silu is supported for
//! now.")` for another `hidden_act`. vLLM ties `output` to `tok_embeddings` when
//! `tie_word_embeddings`; SGLang 0.5.8 never does (it builds and loads its own `output`): the engines
//! disagree, and the published configs are untied, so tpsim refuses a tied config.
//! `rope_scaling` (dynamic NTK, factor 2 or 3 in the published configs) changes no size tpsim computes.

use super::ModelError;
use super::config::ModelConfig;

/// Output bytes per rank of vLLM's per-layer qkv all-gather over `tokens` tokens at `act` bytes an
/// element: `tokens × tp × (heads / tp + 2 × max(1, kv_heads / tp)) × head_dim × act` (vLLM 0.19.0
/// `InternLM2Attention.split_qkv`: `qkv_map = [q_size, kv_size, kv_size] * tp_size`). Zero at tp 1
/// (no gather).
pub(crate) fn qkv_gather_bytes(
    tokens: u64,
    heads: u64,
    kv_heads: u64,
    head_dim: u64,
    tp: u64,
    act: u64,
) -> u64 {
    if tp <= 1 {
        return 0;
    }
    let width = (heads / tp + 2 * (kv_heads / tp).max(1)) * head_dim * tp;
    tokens.saturating_mul(width).saturating_mul(act)
}

/// What tpsim refuses in an InternLM2 config: `bias = true` (both engines build `wqkv` / `wo`
/// without bias), a `hidden_act` other than `silu` (both engines' `InternLM2MLP` raise), an explicit
/// `head_dim` other than `hidden_size / num_attention_heads` (both ignore the key) and tied
/// embeddings (the engines disagree; see the module doc).
pub(crate) fn check(
    text: &ModelConfig,
    tied: bool,
    hidden: u64,
    heads: u64,
    an: &str,
) -> Result<(), ModelError> {
    if text.bias == Some(true) {
        return Err(ModelError::InvalidField {
            field: "bias".into(),
            value: "true".into(),
            expected: format!(
                "false: SGLang 0.5.8 and vLLM 0.19.0 build {an}'s wqkv and wo with bias=False (internlm2.py), \
                 whatever the config says"
            ),
        });
    }
    if let Some(a) = text.hidden_act.as_deref().filter(|a| *a != "silu") {
        return Err(ModelError::InvalidField {
            field: "hidden_act".into(),
            value: format!("\"{a}\""),
            expected: format!(
                "\"silu\": both engines' internlm2.py raise \"Unsupported activation: {a}. Only silu is \
                 supported for now.\""
            ),
        });
    }
    if let Some(d) = text.head_dim.filter(|d| heads * d != hidden) {
        return Err(ModelError::InvalidField {
            field: "head_dim".into(),
            value: d.to_string(),
            expected: format!(
                "hidden_size / num_attention_heads = {} (both engines' internlm2.py compute it so and ignore \
                 head_dim)",
                hidden / heads
            ),
        });
    }
    if tied {
        return Err(ModelError::InvalidField {
            field: "tie_word_embeddings".into(),
            value: "true".into(),
            expected: format!(
                "false: vLLM 0.19.0 would tie {an}'s output to tok_embeddings but SGLang 0.5.8 builds and loads \
                 its own output head; the published InternLM2 configs are untied"
            ),
        });
    }
    Ok(())
}
