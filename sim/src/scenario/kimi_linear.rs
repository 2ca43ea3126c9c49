//! families19 (issue #17): which engine releases serve Kimi-Linear (`KimiLinearForCausalLM`; the
//! weights and state are `model::llm::kimi_linear`'s). Read from the released wheels' file lists:
//!
//! - **SGLang** ships `srt/models/kimi_linear.py` and `srt/configs/kimi_linear.py` from 0.5.4.post2
//!   (0.5.4 and 0.5.4.post1 have neither; 0.5.4.post3, 0.5.5 … 0.5.9 have both).
//! - **vLLM** ships `model_executor/models/kimi_linear.py`, `layers/kda.py` and
//!   `transformers_utils/configs/kimi_linear.py` from 0.11.1 (0.11.0 has none; 0.11.2, 0.12.0 and
//!   0.19.0 have them).
//!
//! An older release has no model class for the name and would fall back to its Transformers backend,
//! which tpsim does not model: refused on `engine.version`.

use super::EngineKind;
use super::first_release::{FirstRelease, refuse_before};
use tpsim_model::llm::{Architecture, ModelSpec};

/// The first SGLang release with `models/kimi_linear.py` (0.5.4.post2).
const FIRST_SGLANG: [u64; 4] = [0, 5, 4, 2];
/// The first vLLM release with `models/kimi_linear.py` (0.11.1).
const FIRST_VLLM: [u64; 4] = [0, 11, 1, 0];

/// The refusal of a Kimi-Linear scenario under a release without its model file: `(key, message)`.
pub(super) fn check(
    kind: EngineKind,
    model: &ModelSpec,
    version: &str,
) -> Result<(), (&'static str, String)> {
    if model.arch != Architecture::KimiLinear {
        return Ok(());
    }
    refuse_before(
        kind,
        version,
        &FirstRelease {
            first: &FIRST_SGLANG,
            file: "models/kimi_linear.py",
            since: "SGLang ships it from 0.5.4.post2",
        },
        &FirstRelease {
            first: &FIRST_VLLM,
            file: "models/kimi_linear.py",
            since: "vLLM ships it from 0.11.1",
        },
        "Kimi-Linear (KimiLinearForCausalLM)",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kimi_linear_first_releases() {
        let m = ModelSpec::from_config_json(
            include_str!("../../../scenarios/models/kimi-linear-48b-a3b-instruct/config.json"),
            tpsim_model::llm::Quantization::bf16(),
        )
        .unwrap();
        for v in ["0.5.4", "0.5.4.post1"] {
            let e = check(EngineKind::Sglang, &m, v).unwrap_err();
            assert_eq!(e.0, "engine.version");
            assert!(e.1.contains("SGLang ships it from 0.5.4.post2"), "{}", e.1);
        }
        for v in ["0.5.4.post2", "0.5.5", "0.5.8", "0.5.9"] {
            assert!(check(EngineKind::Sglang, &m, v).is_ok(), "{v}");
        }
        let e = check(EngineKind::Vllm, &m, "0.11.0").unwrap_err();
        assert!(
            e.1.contains("vLLM 0.11.0 has no models/kimi_linear.py"),
            "{}",
            e.1
        );
        for v in ["0.11.1", "0.12.0", "0.19.0"] {
            assert!(check(EngineKind::Vllm, &m, v).is_ok(), "{v}");
        }
    }
}
