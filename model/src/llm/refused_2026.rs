//! families34 (issue #17): 2026 families the engines serve that tpsim recognises by name and
//! refuses as not modelled, without reading sizes: Hunyuan V4 and Mistral Large 4 (Hunyuan V3 is
//! lowered: `llm::hy3`; MiniMax-M3, refused here by name until families37, is read and counted:
//! `llm::minimax_m3`).
//!
//! The engine facts are read from the PyPI wheels (2026-12-06): SGLang's `srt/models/` files and
//! their `EntryClass`, vLLM's `model_executor/models/registry.py`. No config.json of these models
//! was read in families34 (its search time went to Qwen4-Exp, `llm::qwen4_exp`, and Hy3).

/// One family refused by name: the architecture names the engines register, and why.
pub(crate) struct Refused {
    /// Names as the first entry of `architectures`.
    pub names: &'static [&'static str],
    /// What the engines do with it, with the sources, and what tpsim lacks.
    pub why: &'static str,
}

/// The families (first releases from the wheels' file lists and registries).
pub(crate) const REFUSED: [Refused; 2] = [
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
