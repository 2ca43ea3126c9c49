//! families18 (issue #17): which engine releases serve Arcee AFM (`ArceeForCausalLM`), read from
//! their wheels.
//!
//! - SGLang adds `models/arcee.py` in 0.4.10 (its wheel has it with `EntryClass = [ArceeForCausalLM]`;
//!   0.4.9.post6's and earlier have not). Sizes read at 0.5.9 (0.4.10's file builds the same modules).
//! - vLLM registers it from 0.10.0 (the 0.10.0 wheel's `registry.py`: `"ArceeForCausalLM": ("arcee",
//!   "ArceeForCausalLM")`; 0.9.2's has no entry). Sizes read at 0.11.0 (0.10.0's `ArceeMLP` is the
//!   same up / down pair).

use super::EngineKind;
use super::first_release::FirstRelease;
use tpsim_model::llm::{Architecture, ModelSpec};

/// The first SGLang release with `models/arcee.py`.
const FIRST_SGLANG: [u64; 3] = [0, 4, 10];

/// The first vLLM release that registers `ArceeForCausalLM`.
const FIRST_VLLM: [u64; 3] = [0, 10, 0];

/// The refusal of an Arcee scenario under an engine release without the model: `(key, message)`.
pub(super) fn check(
    kind: EngineKind,
    model: &ModelSpec,
    version: &str,
) -> Result<(), (&'static str, String)> {
    if model.arch != Architecture::Arcee {
        return Ok(());
    }
    super::first_release::refuse_before(
        kind,
        version,
        &FirstRelease {
            first: &FIRST_SGLANG,
            file: "models/arcee.py",
            since: "SGLang adds it in 0.4.10",
        },
        &FirstRelease {
            first: &FIRST_VLLM,
            file: "registry entry for ArceeForCausalLM",
            since: "vLLM registers it from 0.10.0",
        },
        "Arcee AFM",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_releases_as_read() {
        let text = include_str!("../../../scenarios/models/afm-4.5b/config.json");
        let m = ModelSpec::from_config_json(text, tpsim_model::llm::Quantization::bf16()).unwrap();
        let e = check(EngineKind::Sglang, &m, "0.4.9.post6").unwrap_err();
        assert_eq!(e.0, "engine.version");
        assert!(
            e.1.contains("SGLang 0.4.9.post6 has no models/arcee.py"),
            "{}",
            e.1
        );
        assert!(check(EngineKind::Sglang, &m, "0.4.10").is_ok());
        let e = check(EngineKind::Vllm, &m, "0.9.2").unwrap_err();
        assert!(e.1.contains("vLLM registers it from 0.10.0"), "{}", e.1);
        assert!(check(EngineKind::Vllm, &m, "0.10.0").is_ok());
    }
}
