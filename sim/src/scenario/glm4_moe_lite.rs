//! families10 (issue #17): which engine releases serve GLM-4.7-Flash (`Glm4MoeLiteForCausalLM`).
//!
//! Both bounds read from the PyPI wheels' file lists (2026-12-05), with the third-party reports that
//! first suggested them:
//! - SGLang: `models/glm4_moe_lite.py`. On 2026-01-20, the day after the model's release, THUDM/slime
//!   PR #1460 asked users to rename the architecture to `DeepseekV32ForCausalLM` "before the sglang in
//!   the slime image supports `Glm4MoeLiteForCausalLM`". The 0.5.7 wheel has no
//!   `sglang/srt/models/glm4_moe_lite.py`, the 0.5.8 wheel has it: first release 0.5.8.
//! - vLLM: `models/glm4_moe_lite.py` and its `registry.py` entry. A vLLM 0.14.0rc1 dev build fails
//!   on `zai-org/GLM-4.7-Flash` (kyuz0/amd-strix-halo-vllm-toolboxes issue #14), vLLM 0.14.1 reports
//!   `glm4_moe_lite` unknown (vllm-project/vllm-ascend issue #6541), and xorbitsai/inference PR #4835
//!   registers the architecture "requires vLLM >= 0.15.0". The 0.14.0 and 0.14.1 wheels have no
//!   `vllm/model_executor/models/glm4_moe_lite.py`, the 0.15.0 wheel has it (and
//!   `glm4_moe_lite_mtp.py`): first release 0.15.0.

use super::EngineKind;
use super::first_release::FirstRelease;
use tpsim_model::llm::{Architecture, ModelSpec};

/// The first SGLang release with `models/glm4_moe_lite.py` (module doc: read from the wheels).
const FIRST_SGLANG: [u64; 3] = [0, 5, 8];

/// The first vLLM release with `models/glm4_moe_lite.py` (module doc: read from the wheels).
const FIRST_VLLM: [u64; 3] = [0, 15, 0];

/// The refusal of a GLM-4.7-Flash scenario under a release without the model: `(key, message)`.
pub(super) fn check(
    kind: EngineKind,
    model: &ModelSpec,
    version: &str,
) -> Result<(), (&'static str, String)> {
    if model.arch != Architecture::Glm4MoeLite {
        return Ok(());
    }
    super::first_release::refuse_before(
        kind,
        version,
        &FirstRelease {
            first: &FIRST_SGLANG,
            file: "models/glm4_moe_lite.py",
            since: "SGLang ships it from 0.5.8",
        },
        &FirstRelease {
            first: &FIRST_VLLM,
            file: "registry entry for Glm4MoeLiteForCausalLM",
            since: "vLLM registers it from 0.15.0",
        },
        "GLM-4.7-Flash",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flash() -> ModelSpec {
        let text = include_str!("../../../scenarios/models/glm-4.7-flash/config.json");
        ModelSpec::from_config_json(text, tpsim_model::llm::Quantization::bf16()).unwrap()
    }

    #[test]
    fn first_releases_as_read() {
        let m = flash();
        let e = check(EngineKind::Sglang, &m, "0.5.7").unwrap_err();
        assert_eq!(e.0, "engine.version");
        assert!(
            e.1.contains("SGLang 0.5.7 has no models/glm4_moe_lite.py"),
            "{}",
            e.1
        );
        assert!(check(EngineKind::Sglang, &m, "0.5.8").is_ok());
        assert!(check(EngineKind::Sglang, &m, "0.5.9").is_ok());
        let e = check(EngineKind::Vllm, &m, "0.14.1").unwrap_err();
        assert!(e.1.contains("vLLM registers it from 0.15.0"), "{}", e.1);
        assert!(check(EngineKind::Vllm, &m, "0.15.0").is_ok());
        assert!(check(EngineKind::Vllm, &m, "0.19.0").is_ok());
    }
}
