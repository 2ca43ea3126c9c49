//! families27 (issue #17): what vLLM refuses of MiniMax-Text-01 / MiniMax-M1
//! (`tpsim_model::llm` module `minimax01`) beyond its first release (`scenario::first_release`).
//!
//! - **The end of support.** The vLLM 0.26.0 wheel's `model_executor/models/registry.py` lists
//!   `MiniMaxForCausalLM`, `MiniMaxText01ForCausalLM` and `MiniMaxM1ForCausalLM` in
//!   `_PREVIOUSLY_SUPPORTED_MODELS` with "0.23.0" and raises "Model architecture {arch} was supported
//!   in vLLM until v0.23.0, and is not supported anymore. Please use an older version of vLLM if you
//!   want to use this model architecture." The 0.22.0 wheel still registers them; no 0.23 to 0.25
//!   wheel was read, so tpsim takes the message at its word: 0.23.x serves it (assumed), 0.24.0 and
//!   later refuse.
//! - **A float32 state.** vLLM 0.11.0 and 0.19.0 `layers/mamba/mamba_utils.py`
//!   `MambaStateDtypeCalculator.linear_attention_state_dtype` raise "fp32 state for minimax is not yet
//!   supported" for `--mamba-cache-dtype float32`; 0.22.0's has no such check. 0.20 and 0.21 were not
//!   read: tpsim refuses below 0.22.0 (assumed).
//! - **`--mamba-ssm-cache-dtype`** is never read for lightning layers (`linear_attention_state_dtype`
//!   takes only the model dtype and `--mamba-cache-dtype`): a note says so.
//! - **V0.** Under `VLLM_USE_V1=0` vLLM keeps the state in V0's `MinimaxCacheManager`
//!   (`models/minimax_cache.py`, sized by `max_num_seqs`), which tpsim does not model: refused.

use super::EngineKind;
use super::mamba_dtype::MambaDtypes;
use tpsim_model::llm::{Architecture, ModelSpec};

/// The first vLLM release that no longer serves the model (module doc: assumed from the registry's
/// "until v0.23.0").
const GONE_FROM: [u64; 2] = [0, 24];

/// The first vLLM release whose `linear_attention_state_dtype` accepts float32 (module doc).
const FP32_FROM: [u64; 2] = [0, 22];

/// The refusal of a MiniMax-Text-01 / M1 scenario under vLLM `version` (`Err((key, message))`), or
/// the notes to print. `v0`: the scenario runs vLLM's V0 engine.
pub(super) fn check(
    kind: EngineKind,
    model: &ModelSpec,
    version: &str,
    v0: bool,
    dtypes: &MambaDtypes,
) -> Result<Vec<String>, (&'static str, String)> {
    if kind != EngineKind::Vllm || model.arch != Architecture::MiniMaxText01 {
        return Ok(Vec::new());
    }
    let r = crate::engine_args_versions::release(version).unwrap_or_default();
    let minor = [r.first().copied().unwrap_or(0), r.get(1).copied().unwrap_or(0)];
    if minor >= GONE_FROM {
        return Err((
            "engine.version",
            format!(
                "vLLM {version}: Model architecture MiniMaxM1ForCausalLM was supported in vLLM until v0.23.0, and \
                 is not supported anymore. Please use an older version of vLLM if you want to use this model \
                 architecture. (0.26.0 registry.py; tpsim serves it from 0.10.2 to 0.23)"
            ),
        ));
    }
    if v0 {
        return Err((
            "engine.env",
            format!(
                "vLLM {version} on V0 (VLLM_USE_V1=0) keeps MiniMax's lightning state in models/minimax_cache.py's \
                 MinimaxCacheManager, which tpsim does not model: run it on V1 (from 0.10.2)"
            ),
        ));
    }
    if dtypes.cache.as_deref() == Some("float32") && minor < FP32_FROM {
        return Err((
            "engine.mamba_cache_dtype",
            format!(
                "vLLM {version}: fp32 state for minimax is not yet supported (mamba_utils.py \
                 linear_attention_state_dtype; expected auto, bfloat16 or float16 before 0.22.0)"
            ),
        ));
    }
    let mut notes = Vec::new();
    if let Some(ssm) = dtypes.ssm.as_deref() {
        notes.push(format!(
            "vLLM: --mamba-ssm-cache-dtype='{ssm}' does not apply to MiniMax's lightning layers \
             (linear_attention_state_dtype reads only --mamba-cache-dtype)"
        ));
    }
    Ok(notes)
}
