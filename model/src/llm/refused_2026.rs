//! families34 (issue #17): 2026 families the engines serve that tpsim recognises by name and
//! refuses as not modelled, without reading sizes: MiniMax-M3, Hunyuan V4 and Mistral Large 4
//! (Hunyuan V3 is read and counted: `llm::hy3`).
//!
//! The engine facts are read from the PyPI wheels (2026-12-06): SGLang's `srt/models/` files and
//! their `EntryClass`, vLLM's `model_executor/models/registry.py`. No config.json of these models
//! was read in families34 (its search time went to Qwen4-Exp, `llm::qwen4_exp`, and Hy3); public
//! runtimes quote a MiniMax-M3 `text_config`, so a later session may find one.

/// One family refused by name: the architecture names the engines register, and why.
pub(crate) struct Refused {
    /// Names as the first entry of `architectures`.
    pub names: &'static [&'static str],
    /// What the engines do with it, with the sources, and what tpsim lacks.
    pub why: &'static str,
}

/// The families (first releases from the wheels' file lists and registries).
pub(crate) const REFUSED: [Refused; 3] = [
    Refused {
        names: &[
            "MiniMaxM3SparseForCausalLM",
            "MiniMaxM3SparseForConditionalGeneration",
        ],
        why: "MiniMax-M3 (GQA layers with MiniMax sparse attention (MSA: a fused QKV-and-index projection choosing the \
              blocks each query reads) on the layers its sparse_attention_config names, a MoE or dense MLP per layer, a \
              vision tower in the ConditionalGeneration wrapper) is served by SGLang from 0.5.16 \
              (sglang/srt/models/minimax_m3.py and minimax_m3_vl.py, layers/attention/minimax_sparse_backend.py; 0.5.15 \
              has none) and by vLLM from 0.24.0 (vllm.models.minimax_m3; 0.23.0 registers no MiniMaxM3 architecture), \
              but tpsim models neither its sparse-attention layers and index caches nor its pools, and read no \
              config.json of a MiniMax-M3 checkpoint",
    },
    Refused {
        names: &["HYV4ForCausalLM"],
        why: "Hunyuan V4 (DeepSeek-V2 MLA attention and MoE with hyper-connection layers around both halves of each \
              layer: HYV4HCPreLayer, HYV4HCLayer, HYV4HCHeadLayer) is served by SGLang from 0.5.20 \
              (sglang/srt/models/hunyuan_v4.py; 0.5.19 has none) and by vLLM from 0.29.0 (vllm.models.hy_v4; 0.28.0 has \
              none), but tpsim models neither its hyper-connection kernels nor its pools, and read no config.json of a \
              Hunyuan V4 checkpoint",
    },
    Refused {
        names: &["MistralLarge4ForCausalLM"],
        why: "Mistral Large 4 (MLA with DeepSeek sparse attention, MoE, NoPE layers and KV sharing: vLLM 0.34.0 \
              vllm/models/mistral/mistral_large4/nvidia/model.py) is served by vLLM from 0.34.0 (registry entry \
              MistralLarge4ForCausalLM; 0.33.0 has none) and by no SGLang release read (0.5.23 has \
              mistral_large_3.py only), but tpsim models neither its layers nor its pools, and read no config.json of \
              a Mistral Large 4 checkpoint",
    },
];

/// The refusal text for `arch`, if it is one of [`REFUSED`]'s names.
pub(crate) fn why(arch: &str) -> Option<&'static str> {
    REFUSED.iter().find(|r| r.names.contains(&arch)).map(|r| r.why)
}
