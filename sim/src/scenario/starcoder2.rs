//! families13 (issue #17): what each engine does with StarCoder2 (`Starcoder2ForCausalLM`) beyond
//! the weights (`model::llm::starcoder2`).
//!
//! - **Window.** The lowered model slides every layer over `sliding_window`, as vLLM 0.19.0 builds it
//!   (`models/starcoder2.py` passes no per-layer window, so `Attention` takes
//!   `cache_config.sliding_window`: a `SlidingWindowSpec` for every layer, reads bounded by the
//!   window). SGLang 0.5.8 `models/starcoder2.py` builds `RadixAttention` without
//!   `sliding_window_size`, and `Starcoder2ForCausalLM` is not in `configs/model_config.py`
//!   `is_hybrid_swa_model`: no window at all, every layer attends to the whole context from the
//!   plain pool. [`sglang_full_attention`] turns the layers back to full attention under SGLang (it
//!   logs nothing about it).
//! - **Releases.** vLLM registers the architecture from 0.3.3 (vllm PR 3089; "supported as of the
//!   latest release v0.3.3", vllm issue 3165), older than any release tpsim models. SGLang adds
//!   `models/starcoder2.py` with sgl-project/sglang PR 10609, merged 2025-09-18. Read from the PyPI
//!   wheels (2026-12-05, the central directory of each `sglang-…-py3-none-any.whl`): 0.5.2, 0.5.3rc0
//!   and 0.5.3rc2 have no `sglang/srt/models/starcoder2.py`; 0.5.3, 0.5.5, 0.5.6 and 0.5.8 have it.
//!   First release: 0.5.3. Both bounds are `first_release`'s rows.

use super::EngineKind;
use tpsim_model::llm::{Architecture, Mixer, ModelSpec};

/// Under SGLang, a StarCoder2 model's layers attend to the whole context (module doc): every
/// sliding layer becomes full attention and the window is dropped. Other engines and models are
/// left as lowered.
pub(super) fn sglang_full_attention(kind: EngineKind, model: &mut ModelSpec) {
    if kind != EngineKind::Sglang || model.arch != Architecture::Starcoder2 {
        return;
    }
    for m in &mut model.mixers {
        if *m == Mixer::SlidingAttention {
            *m = Mixer::Attention;
        }
    }
    model.sliding_window = None;
}

/// The model as `kind` builds it: under SGLang a StarCoder2 model without its window
/// ([`sglang_full_attention`]), otherwise `model` itself (borrowed, no copy).
pub(super) fn as_served(kind: EngineKind, model: &ModelSpec) -> std::borrow::Cow<'_, ModelSpec> {
    if kind != EngineKind::Sglang || model.arch != Architecture::Starcoder2 {
        return std::borrow::Cow::Borrowed(model);
    }
    let mut m = model.clone();
    sglang_full_attention(kind, &mut m);
    std::borrow::Cow::Owned(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn starcoder2() -> ModelSpec {
        let text = include_str!("../../../scenarios/models/starcoder2-3b/config.json");
        ModelSpec::from_config_json(text, tpsim_model::llm::Quantization::bf16()).unwrap()
    }

    /// The preset's 30 sliding layers (window 4,096) stay under vLLM and become 30 full layers
    /// without a window under SGLang.
    #[test]
    fn sglang_drops_the_window() {
        let mut v = starcoder2();
        sglang_full_attention(EngineKind::Vllm, &mut v);
        assert_eq!((v.sliding_layers(), v.sliding_window), (30, Some(4096)));
        let mut s = starcoder2();
        sglang_full_attention(EngineKind::Sglang, &mut s);
        assert_eq!((s.sliding_layers(), s.sliding_window), (0, None));
        assert!(s.mixers.iter().all(|m| *m == Mixer::Attention));
    }
}
