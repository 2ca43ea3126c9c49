//! SGLang's end of Gemma 4 (families30, issue #17; the model: `tpsim_model::llm::gemma4`): its default
//! attention backend and the backends it accepts, by release. Read from the PyPI wheels:
//! - 0.5.11, 0.5.12 `srt/server_args.py` `_handle_model_specific_adjustments`: without a named backend,
//!   `triton` ("Use triton as default attention backend for Gemma4"); no check.
//! - 0.5.13 … 0.5.17 `server_args.py`: the default is `trtllm_mha` where `is_sm100_supported()`
//!   (compute capability 10.x), else `triton`; then an assert that prefill and decode backends are in
//!   (`trtllm_mha`, `triton`, `intel_xpu`).
//! - 0.5.18, 0.5.19: the list adds `ascend`, `intel_amx`; 0.5.20, 0.5.21 (`arg_groups/model_hook.py`)
//!   `aiter`; 0.5.22, 0.5.23 `fa4` (0.5.23 `arg_groups/model_overrides/gemma4.py` keeps the default).

use super::EngineKind;
use tpsim_model::llm::{Architecture, ModelSpec};

/// The (major, minor, patch) of an SGLang release string; `None` if unreadable.
fn release(version: &str) -> Option<(u64, u64, u64)> {
    let r = crate::engine_args_versions::release(version)?;
    Some((
        r.first().copied().unwrap_or(0),
        r.get(1).copied().unwrap_or(0),
        r.get(2).copied().unwrap_or(0),
    ))
}

/// SGLang `version`'s default attention backend for Gemma 4 on a GPU of SM `major` (module doc).
pub(super) fn sglang_default(version: &str, major: u32) -> &'static str {
    match release(version) {
        Some(v) if major == 10 && v >= (0, 5, 13) => "trtllm_mha",
        _ => "triton",
    }
}

/// The backends SGLang `version` accepts for Gemma 4 and the text of its assert; `None` before 0.5.13.
fn accepted(version: &str) -> Option<(&'static [&'static str], &'static str)> {
    let v = release(version)?;
    Some(if v >= (0, 5, 22) {
        (
            &[
                "trtllm_mha",
                "triton",
                "fa4",
                "ascend",
                "intel_xpu",
                "intel_amx",
                "aiter",
            ],
            "Gemma4 only supports trtllm_mha, triton, fa4, ascend, intel_xpu, intel_amx, or aiter attention backend",
        )
    } else if v >= (0, 5, 20) {
        (
            &[
                "trtllm_mha",
                "triton",
                "ascend",
                "intel_xpu",
                "intel_amx",
                "aiter",
            ],
            "Gemma4 only supports trtllm_mha, triton, ascend, intel_xpu, intel_amx, or aiter attention backend",
        )
    } else if v >= (0, 5, 18) {
        (
            &["trtllm_mha", "triton", "ascend", "intel_xpu", "intel_amx"],
            "Gemma4 only supports trtllm_mha, triton, ascend, intel_xpu, or intel_amx attention backend",
        )
    } else if v >= (0, 5, 13) {
        (
            &["trtllm_mha", "triton", "intel_xpu"],
            "Gemma4 only supports trtllm_mha, triton, or intel_xpu attention backend",
        )
    } else {
        return None;
    })
}

/// SGLang's refusal of a named backend outside the release's list (module doc), with its text.
pub(super) fn sglang_check(
    kind: EngineKind,
    model: &ModelSpec,
    version: &str,
    backend: Option<&str>,
) -> Result<(), (&'static str, String)> {
    if kind != EngineKind::Sglang || model.arch != Architecture::Gemma4 {
        return Ok(());
    }
    match (backend, accepted(version)) {
        (Some(b), Some((list, text))) if !list.contains(&b) => Err((
            "engine.attention_backend",
            format!(
                "SGLang {version} stops at start-up: \"{text}, got prefill={b}, decode={b}\" (server_args.py; \
                 set engine.attention_backend to one of {})",
                list.join(", ")
            ),
        )),
        _ => Ok(()),
    }
}
