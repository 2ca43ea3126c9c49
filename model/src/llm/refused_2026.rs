//! families34 (issue #17): 2026 families the engines serve that tpsim recognises by name and
//! refuses as not modelled, without reading sizes: MiniMax-M3, Hunyuan V3 (Hy3) and Hunyuan V4.
//!
//! The engine facts are read from the PyPI wheels (2026-12-06): SGLang's `srt/models/` files and
//! their `EntryClass`, vLLM's `model_executor/models/registry.py`. No config.json of these models
//! was read in families34 (its search time went to Qwen4-Exp, `llm::qwen4_exp`); public runtimes
//! load Hy3 checkpoints and quote a MiniMax-M3 `text_config`, so a later session may find them.

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
        names: &["HYV3ForCausalLM"],
        why: "Hunyuan V3 (Hy3: HYV3Attention GQA, dense MLP layers then HYV3MoEFused MoE layers) is served by SGLang from \
              0.5.11 (sglang/srt/models/hunyuan_v3.py; 0.5.10.post1 has none) and by vLLM from 0.20.0 (registry entry \
              HYV3ForCausalLM, module hy_v3; 0.19.1 has none), but tpsim does not lower HYV3 and read no config.json of \
              a Hy3 checkpoint",
    },
    Refused {
        names: &["HYV4ForCausalLM"],
        why: "Hunyuan V4 (DeepSeek-V2 MLA attention and MoE with hyper-connection layers around both halves of each \
              layer: HYV4HCPreLayer, HYV4HCLayer, HYV4HCHeadLayer) is served by SGLang from 0.5.20 \
              (sglang/srt/models/hunyuan_v4.py; 0.5.19 has none) and by vLLM from 0.29.0 (vllm.models.hy_v4; 0.28.0 has \
              none), but tpsim models neither its hyper-connection kernels nor its pools, and read no config.json of a \
              Hunyuan V4 checkpoint",
    },
];

/// The refusal text for `arch`, if it is one of [`REFUSED`]'s names.
pub(crate) fn why(arch: &str) -> Option<&'static str> {
    REFUSED.iter().find(|r| r.names.contains(&arch)).map(|r| r.why)
}
