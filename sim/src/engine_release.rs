//! Issue #17 (consistency): the one engine release a scenario means. A scenario that names no
//! `engine.version` means [`CURRENT_SGLANG`] or [`CURRENT_VLLM`], and every version-dependent rule
//! (flag lists and spelling, CUDA-graph capture sizes, async scheduling, online-fp8 load order, the
//! dummy sampler, data-parallel ranks, Qwen3.5's MTP, the NCCL the torch wheel pins, SGLang's
//! memory era, PCIe-IPC allreduce, Llama-4's pool, the DSA budget) reads the release through
//! [`release`], so none has a "no version means …" branch of its own. Reports say which release was
//! simulated and whether it was assumed ([`Release::label`]).

use crate::scenario::EngineKind;

/// The SGLang release a scenario without `engine.version` means: 0.5.9, the first PyPI release
/// with a model class for Kimi-K2.5 (`models/kimi_k25.py`), Qwen3.5 (`models/qwen3_5.py`) and GLM-5
/// (`GlmMoeDsaForCausalLM` in `models/glm4_moe.py`) — 0.5.8.post1's wheel has none of them
/// (`scenario::first_release`) — so the seed scenario and the bundled Kimi-K2.5 / Qwen3.5 / GLM-5
/// scenarios are simulated at a release that can load their model (release52, issue #17). tpsim
/// holds its flag list (`tests/data/engine-args/sglang-0.5.9.txt`) and places it in the late-2025
/// memory era (`tpsim_model::memory::sglang_era_from_version`: 0.5.9's `server_args.py`
/// `_handle_gpu_memory_settings` reserve and `model_runner_kv_cache_mixin.py` profile are 0.5.8's,
/// read in the wheels). Its memory rules are read from code, **not checked against a start-up log**:
/// the newest checked SGLang log of a PyPI release before it is v0.5.8.post1's (the Kimi-K2.5 MI355X
/// row of `tests/data/engine-memory.tsv`), and the next, 0.5.13's (Qwen3-30B-A3B), is later.
pub const CURRENT_SGLANG: &str = "0.5.9";

/// The vLLM release a scenario without `engine.version` means: 0.19.0, the newest release for
/// which tpsim holds both the flag list (`tests/data/engine-args/vllm-0.19.0.txt`) and checked
/// start-up logs (29 rows of `tests/data/engine-memory.tsv`, the rows the v1 memory rules —
/// `decode/vllm_sampler_rule.rs`, `scenario/vllm_startup.rs` — were read against). 0.33.0 has a
/// flag list but no memory row; 0.11.0 and 0.12.0 have older memory rules (the sorting sampler).
pub const CURRENT_VLLM: &str = "0.19.0";

/// The release a scenario is simulated at.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Release {
    /// The engine (`"sglang"`, `"vllm"` in JSON).
    pub engine: EngineKind,
    /// The version text the rules read: the scenario's `engine.version` (a leading `v` dropped),
    /// or the engine's current release.
    pub version: String,
    /// `true` when the scenario gives no `engine.version` and `version` is tpsim's choice.
    pub assumed: bool,
}

impl Release {
    /// "vLLM 0.19.0 (assumed: engine.version not set)" or "SGLang 0.5.8.post1 (engine.version)".
    pub fn label(&self) -> String {
        let name = match self.engine {
            EngineKind::Sglang => "SGLang",
            EngineKind::Vllm => "vLLM",
        };
        let why = if self.assumed {
            "assumed: engine.version not set"
        } else {
            "engine.version"
        };
        format!("{name} {} ({why})", self.version)
    }
}

/// The release of `engine` that `version` (the scenario's `engine.version`) names; without one,
/// the engine's current release ([`CURRENT_SGLANG`], [`CURRENT_VLLM`]).
pub fn release(engine: EngineKind, version: Option<&str>) -> Release {
    match version {
        Some(v) => Release {
            engine,
            version: v.trim().trim_start_matches(['v', 'V']).to_string(),
            assumed: false,
        },
        None => Release {
            engine,
            version: match engine {
                EngineKind::Sglang => CURRENT_SGLANG,
                EngineKind::Vllm => CURRENT_VLLM,
            }
            .to_string(),
            assumed: true,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unversioned_means_the_current_release() {
        let r = release(EngineKind::Vllm, None);
        assert_eq!((r.version.as_str(), r.assumed), ("0.19.0", true));
        assert_eq!(r.label(), "vLLM 0.19.0 (assumed: engine.version not set)");
        let r = release(EngineKind::Sglang, Some("v0.5.8.post1"));
        assert_eq!((r.version.as_str(), r.assumed), ("0.5.8.post1", false));
        assert_eq!(r.label(), "SGLang 0.5.8.post1 (engine.version)");
        assert_eq!(release(EngineKind::Sglang, None).version, "0.5.9");
    }
}
