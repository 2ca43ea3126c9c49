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

/// families39 (issue #17): vLLM's end of Gemma 4 — the backend its model rule sets when the scenario
/// names none, and the line it logs. `vllm/model_executor/models/config.py` `Gemma4Config.
/// verify_and_update_config` (registered for `Gemma4ForCausalLM` / `Gemma4ForConditionalGeneration`),
/// read in the PyPI wheels:
/// - 0.19.0 … 0.23.0: where `head_dim` ≠ `global_head_dim` and the larger is above 256 (FlashAttention's
///   limit) and no backend is named: `TRITON_ATTN` for every layer ("Forcing TRITON_ATTN backend to
///   prevent mixed-backend numerical divergence").
/// - 0.24.0 on (0.24.0, 0.25.1, 0.28.0, 0.34.0 read): where the widths differ, FlashAttention 4 for every
///   layer if `is_fa_version_supported(4)` and the larger width is at most 512 — `vllm_flash_attn/
///   flash_attn_interface.py` `_is_fa4_supported` (0.24.0, 0.34.0): compute capability 9.x, 10.x or
///   11.x, with FA4 built into the wheel [assumed] —, else `TRITON_ATTN`. tpsim takes FA4 as the
///   `FLASH_ATTN` backend on every layer; on SM 10.x vLLM's selector may still put the 256-wide
///   sliding layers on FLASHINFER (first in its SM 10.x list) [not modelled]. 0.32.0 on: with an fp8
///   KV cache on SM 9.x the layers choose FA3 / FA4 one by one [not modelled: taken as FA4]. The log
///   text names the two widths up to 0.27.0 and a dict of layer types from 0.28.0.
///
/// `None` for other models, a named backend, equal widths, or a release before 0.19.0 (no Gemma 4:
/// `scenario::first_release`).
pub(super) fn vllm_default(model: &ModelSpec, version: &str, major: u32) -> Option<(&'static str, String)> {
    if model.arch != Architecture::Gemma4 {
        return None;
    }
    let full = model.head_dim;
    let swa = model.mimo_v2.map_or(full, |a| a.swa_head_dim);
    let widest = full.max(swa);
    let v = release(version).unwrap_or((u64::MAX, 0, 0));
    if full == swa || v < (0, 19, 0) {
        return None;
    }
    if v < (0, 24, 0) {
        return (widest > 256).then(|| {
            (
                "TRITON_ATTN",
                format!(
                    "vLLM: Gemma4 model has heterogeneous head dimensions (head_dim={swa}, global_head_dim={full}). \
                     Forcing TRITON_ATTN backend to prevent mixed-backend numerical divergence."
                ),
            )
        });
    }
    let fa4 = matches!(major, 9..=11) && widest <= 512;
    let dims = if v >= (0, 28, 0) {
        format!("{{'sliding_attention': {swa}, 'full_attention': {full}}}")
    } else {
        format!("(head_dim={swa}, global_head_dim={full})")
    };
    Some(if fa4 {
        (
            "FLASH_ATTN",
            format!(
                "vLLM: Gemma4 model has heterogeneous head dimensions {dims}. Using FA4 for all layers to avoid \
                 mixed FA3/FA4 penalty."
            ),
        )
    } else {
        (
            "TRITON_ATTN",
            format!(
                "vLLM: Gemma4 model has heterogeneous head dimensions {dims}. FA4 not available, forcing \
                 TRITON_ATTN backend."
            ),
        )
    })
}
