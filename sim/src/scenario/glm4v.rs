//! families7 (issue #17): which engine releases serve GLM-4.5V / GLM-4.6V
//! (`Glm4vMoeForConditionalGeneration`), read from their wheels.
//!
//! - SGLang adds `models/glm4v_moe.py` in 0.5.0 (the 0.5.0rc1 wheel has it, 0.5.0rc0's and
//!   0.4.10.post2's have not). An older release finds no model class for the architecture. tpsim's
//!   sizes are read at 0.5.8 and 0.5.9 (`tpsim_model::llm` module `glm4v`); 0.5.0rc1's tower was
//!   built on `Qwen2_5_VisionBlock` and is not checked.
//! - vLLM registers it from 0.10.1 (the 0.10.1 wheel's `model_executor/models/registry.py`:
//!   `"Glm4vMoeForConditionalGeneration": ("glm4_1v", ...)`; 0.10.0's lists only
//!   `Glm4vForConditionalGeneration`). Sizes read at 0.11.0 (0.10.1's tower has the same
//!   head-sharded attention and `out_hidden_size`-wide block MLP).
//!
//! families18 (issue #17): GLM-4.1V (`Glm4vForConditionalGeneration`), the same tower over GLM-4-0414's
//! dense text tower:
//!
//! - SGLang adds `models/glm4v.py` in 0.5.0 (the 0.5.0rc1 wheel has it with
//!   `EntryClass = [Glm4vForConditionalGeneration]`; 0.5.0rc0's, 0.4.10.post2's and earlier have
//!   not). Sizes read at 0.5.9; 0.5.0rc1's tower subclasses `Qwen2_5_VisionBlock` and is not checked.
//! - vLLM registers it from 0.9.2 (the 0.9.2 wheel's `registry.py`: `"Glm4vForConditionalGeneration":
//!   ("glm4_1v", "Glm4vForConditionalGeneration")`; 0.9.1's has no entry). Sizes read at 0.11.0
//!   (0.9.2 builds the same `Glm4ForCausalLM` text tower and `out_hidden_size`-wide block MLP).

use super::EngineKind;
use super::first_release::FirstRelease;
use tpsim_model::llm::{Architecture, ModelSpec};

/// The first SGLang release with `models/glm4v_moe.py` (0.5.0rc1 counts as 0.5.0).
const FIRST_SGLANG: [u64; 3] = [0, 5, 0];

/// The first vLLM release that registers `Glm4vMoeForConditionalGeneration`.
const FIRST_VLLM: [u64; 3] = [0, 10, 1];

/// families18: the first SGLang release with `models/glm4v.py` (0.5.0rc1 counts as 0.5.0).
const FIRST_SGLANG_GLM41V: [u64; 3] = [0, 5, 0];

/// families18: the first vLLM release that registers `Glm4vForConditionalGeneration`.
const FIRST_VLLM_GLM41V: [u64; 3] = [0, 9, 2];

/// The refusal of a GLM-4.5V or GLM-4.1V scenario under an engine release without the model:
/// `(key, message)`.
pub(super) fn check(
    kind: EngineKind,
    model: &ModelSpec,
    version: &str,
) -> Result<(), (&'static str, String)> {
    if model.arch == Architecture::Glm4v {
        return super::first_release::refuse_before(
            kind,
            version,
            &FirstRelease {
                first: &FIRST_SGLANG_GLM41V,
                file: "models/glm4v.py",
                since: "SGLang adds it in 0.5.0",
            },
            &FirstRelease {
                first: &FIRST_VLLM_GLM41V,
                file: "registry entry for Glm4vForConditionalGeneration",
                since: "vLLM registers it from 0.9.2",
            },
            "GLM-4.1V",
        );
    }
    if model.arch != Architecture::Glm4vMoe {
        return Ok(());
    }
    super::first_release::refuse_before(
        kind,
        version,
        &FirstRelease {
            first: &FIRST_SGLANG,
            file: "models/glm4v_moe.py",
            since: "SGLang adds it in 0.5.0",
        },
        &FirstRelease {
            first: &FIRST_VLLM,
            file: "registry entry for Glm4vMoeForConditionalGeneration",
            since: "vLLM registers it from 0.10.1",
        },
        "GLM-4.5V / GLM-4.6V",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn glm45v() -> ModelSpec {
        let text = include_str!("../../../scenarios/models/glm-4.5v/config.json");
        ModelSpec::from_config_json(text, tpsim_model::llm::Quantization::bf16()).unwrap()
    }

    #[test]
    fn first_releases_as_read() {
        let m = glm45v();
        let e = check(EngineKind::Sglang, &m, "0.4.10.post2").unwrap_err();
        assert_eq!(e.0, "engine.version");
        assert!(
            e.1.contains("SGLang 0.4.10.post2 has no models/glm4v_moe.py"),
            "{}",
            e.1
        );
        assert!(check(EngineKind::Sglang, &m, "0.5.0rc1").is_ok());
        assert!(check(EngineKind::Sglang, &m, "0.5.9").is_ok());
        let e = check(EngineKind::Vllm, &m, "0.10.0").unwrap_err();
        assert!(e.1.contains("vLLM registers it from 0.10.1"), "{}", e.1);
        assert!(check(EngineKind::Vllm, &m, "0.10.1").is_ok());
    }

    /// families18: GLM-4.1V from SGLang 0.5.0 (0.5.0rc1's wheel) and vLLM 0.9.2.
    #[test]
    fn glm41v_first_releases_as_read() {
        let text = include_str!("../../../scenarios/models/glm-4.1v-9b-thinking/config.json");
        let m = ModelSpec::from_config_json(text, tpsim_model::llm::Quantization::bf16()).unwrap();
        let e = check(EngineKind::Sglang, &m, "0.4.10.post2").unwrap_err();
        assert_eq!(e.0, "engine.version");
        assert!(
            e.1.contains("SGLang 0.4.10.post2 has no models/glm4v.py"),
            "{}",
            e.1
        );
        assert!(check(EngineKind::Sglang, &m, "0.5.0rc1").is_ok());
        let e = check(EngineKind::Vllm, &m, "0.9.1").unwrap_err();
        assert!(e.1.contains("vLLM registers it from 0.9.2"), "{}", e.1);
        assert!(check(EngineKind::Vllm, &m, "0.9.2").is_ok());
    }
}
