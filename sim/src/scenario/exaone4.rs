//! families5 (issue #17): what SGLang does with EXAONE 4 (`Exaone4ForCausalLM`) before it builds the
//! model, read from the 0.5.8 and 0.5.9 wheels.
//!
//! - SGLang 0.5.8 has no `models/exaone4.py` (0.5.9 adds it): an older release would serve the
//!   model through its Transformers fallback (`model_loader/utils.py` `resolve_transformers_arch`,
//!   "… has no SGLang implementation, falling back to Transformers implementation"), which tpsim
//!   does not model.
//! - 0.5.9 `server_args.py` `_handle_model_specific_adjustments`, for a config with a
//!   `sliding_window_pattern` (EXAONE-4.0-32B; the 1.2B's is null): warns "Disabling hybrid SWA
//!   memory for Exaone4ForCausalLM as it is not yet supported." (the plain pool over every layer,
//!   `decode::memory`) and asserts `--attention-backend` is one of `fa3`, `triton`, `trtllm_mha`.
//!   The assertion runs before `_handle_attention_backend_compatibility` picks a default, so
//!   without the flag the backend is still `None` and SGLang stops. tpsim takes a model with
//!   sliding layers as one with a pattern (the published 32B config has both).
//!
//! vLLM registers `Exaone4ForCausalLM` from 0.10.0 (vllm PR 21060; the 0.10.0 wheel's
//! `model_executor/models/registry.py` has it, 0.9.2's has not): an older release logs "… has no vLLM
//! implementation, falling back to Transformers implementation" (0.9.2 `model_loader/utils.py`) and
//! serves it through its Transformers backend, which tpsim does not model either.

use super::EngineKind;
use tpsim_model::llm::{Architecture, ModelSpec};

/// The backends SGLang 0.5.9 accepts for EXAONE 4 with sliding layers (`accepted_backends`).
const SGLANG_BACKENDS: [&str; 3] = ["fa3", "triton", "trtllm_mha"];

/// SGLang's refusal of an EXAONE 4 scenario with sliding layers and no accepted backend: `(key,
/// message)`. `version` is the release the scenario means (`engine_release`), `backend` the
/// `engine.attention_backend` as given. The releases without `models/exaone4.py` are
/// `first_release`'s rows, checked before.
pub(super) fn sglang_check(
    kind: EngineKind,
    model: &ModelSpec,
    version: &str,
    backend: Option<&str>,
) -> Result<(), (&'static str, String)> {
    if kind != EngineKind::Sglang || model.arch != Architecture::Exaone4 {
        return Ok(());
    }
    if model.sliding_layers() > 0 && !backend.is_some_and(|b| SGLANG_BACKENDS.contains(&b)) {
        let got = backend.unwrap_or("None");
        return Err((
            "engine.attention_backend",
            format!(
                "SGLang {version} stops at start-up: \"One of the attention backends in ['fa3', 'triton', \
                 'trtllm_mha'] is required for Exaone4ForCausalLM, but got {got}\" (server_args.py; set \
                 engine.attention_backend to one of them)"
            ),
        ));
    }
    Ok(())
}
