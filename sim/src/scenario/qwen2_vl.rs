//! families16 (issue #17): which engine releases serve Qwen2-VL (`Qwen2VLForConditionalGeneration`,
//! `tpsim_model::llm` `Architecture::Qwen2Vl`: the Qwen2 text tower plus the Qwen2-VL ViT, module
//! `vlm`).
//!
//! Read from the PyPI wheels' file lists (2026-12-05): SGLang's 0.3.0, 0.3.2, 0.3.3 and 0.3.4 wheels
//! have no `sglang/srt/models/qwen2_vl.py`, 0.3.4.post1 and 0.3.5 have it: first release 0.3.4.post1.
//! vLLM's 0.6.0 wheel has no `vllm/model_executor/models/qwen2_vl.py`, 0.6.1, 0.6.1.post1, 0.6.1.post2
//! and 0.6.2 have it: first release 0.6.1. Both first files already shard the vision tower as the
//! later ones do (SGLang 0.3.4.post1 and vLLM 0.6.1 `Qwen2VisionAttention` / `Qwen2VisionMLP` /
//! `Qwen2VisionPatchMerger` on `ColumnParallelLinear` / `RowParallelLinear`), so the weights per rank
//! do not change by release.

use super::EngineKind;
use super::first_release::FirstRelease;
use tpsim_model::llm::{Architecture, ModelSpec};

/// The first SGLang release with `models/qwen2_vl.py`, 0.3.4.post1 (module doc: read from the wheels).
const FIRST_SGLANG: [u64; 4] = [0, 3, 4, 1];

/// The first vLLM release with `models/qwen2_vl.py`, 0.6.1 (module doc: read from the wheels).
const FIRST_VLLM: [u64; 3] = [0, 6, 1];

/// The refusal of a Qwen2-VL scenario under a release without the model file: `(key, message)`.
pub(super) fn check(
    kind: EngineKind,
    model: &ModelSpec,
    version: &str,
) -> Result<(), (&'static str, String)> {
    if model.arch != Architecture::Qwen2Vl {
        return Ok(());
    }
    super::first_release::refuse_before(
        kind,
        version,
        &FirstRelease {
            first: &FIRST_SGLANG,
            file: "models/qwen2_vl.py",
            since: "SGLang ships it from 0.3.4.post1",
        },
        &FirstRelease {
            first: &FIRST_VLLM,
            file: "model_executor/models/qwen2_vl.py",
            since: "vLLM ships it from 0.6.1",
        },
        "Qwen2-VL (Qwen2VLForConditionalGeneration)",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn qwen2_vl() -> ModelSpec {
        ModelSpec::from_config_json(
            include_str!("../../../scenarios/models/qwen2-vl-7b/config.json"),
            tpsim_model::llm::Quantization::bf16(),
        )
        .unwrap()
    }

    #[test]
    fn first_releases_from_the_wheels() {
        let m = qwen2_vl();
        let e = check(EngineKind::Sglang, &m, "0.3.4").unwrap_err();
        assert_eq!(e.0, "engine.version");
        assert!(e.1.contains("SGLang 0.3.4 has no models/qwen2_vl.py"), "{}", e.1);
        assert!(e.1.contains("SGLang ships it from 0.3.4.post1"), "{}", e.1);
        assert!(e.1.contains("cannot serve Qwen2-VL"), "{}", e.1);
        assert!(check(EngineKind::Sglang, &m, "0.3.4.post1").is_ok());
        assert!(check(EngineKind::Sglang, &m, "0.5.9").is_ok());
        let e = check(EngineKind::Vllm, &m, "0.6.0").unwrap_err();
        assert!(
            e.1.contains("vLLM 0.6.0 has no model_executor/models/qwen2_vl.py"),
            "{}",
            e.1
        );
        assert!(check(EngineKind::Vllm, &m, "0.6.1").is_ok());
        assert!(check(EngineKind::Vllm, &m, "0.19.0").is_ok());
        // Other models are not held to these releases.
        let q = ModelSpec::from_config_json(
            include_str!("../../../scenarios/models/qwen2.5-7b/config.json"),
            tpsim_model::llm::Quantization::bf16(),
        )
        .unwrap();
        assert!(check(EngineKind::Sglang, &q, "0.3.0").is_ok());
    }
}
