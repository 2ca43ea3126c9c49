//! families29 (issue #17): GLM-5-Next (`Glm5NextForConditionalGeneration`, and vLLM's text-only
//! `Glm5NextForCausalLM`) — recognised and refused as not modelled.
//!
//! SGLang 0.5.20 `models/glm5_next.py` (`Glm5NextDecoderLayer.__init__`) builds each layer as either a
//! Kimi-Linear-style linear-attention block (`Glm5NextLinearAttention`, per `config.is_kda_layer`)
//! or DeepSeek MLA without rotary embedding (`DeepseekV2AttentionMLA(skip_rope=True)`), with a MoE
//! (`Glm5NextMoE`) or dense MLP per `mlp_layer_types` / `first_k_dense_replace`, optional mHC streams
//! (`mhc`, `hc_mult`), a DSA-style indexer (`index_*`, `index_kpool*`, `index_topk_pattern`) and a
//! GLM-OCR vision tower (`configs/glm5_next.py` `Glm5NextTextConfig`, `GlmOcrVisionConfig`). No
//! public config.json of a GLM-5-Next checkpoint was found (searched 2026-12-06), so tpsim reads no
//! sizes from one: the architecture is refused by name with the releases that serve it.

/// The names the engines register: SGLang 0.5.20 `models/glm5_next.py` `EntryClass`; vLLM 0.30.0
/// `model_executor/models/registry.py` (both, in `vllm.models.glm5next`).
pub(crate) const ARCHITECTURES: [&str; 2] = ["Glm5NextForConditionalGeneration", "Glm5NextForCausalLM"];

/// Why it is refused (the wheels' file lists and registries, read 2026-12-06).
pub(crate) const WHY: &str = "GLM-5-Next (linear-attention and rotary-free MLA layers with an indexer, MoE, optional \
     mHC, a GLM-OCR vision tower) is served by SGLang from 0.5.20 (sglang/srt/models/glm5_next.py and \
     configs/glm5_next.py; 0.5.19 has none) and by vLLM from 0.30.0 (vllm/models/glm5next; 0.29.0 registers no \
     Glm5Next architecture), but tpsim models neither its layers nor its KV and state pools, and no public \
     config.json of a GLM-5-Next checkpoint was found to read its sizes from";
