//! families15 (issue #17): which engine releases serve dots.llm1 (`Dots1ForCausalLM`; the weights are
//! `model::llm::dots1`'s).
//!
//! - **vLLM** registers `"Dots1ForCausalLM": ("dots1", "Dots1ForCausalLM")` from 0.9.2 (the 0.9.2 wheel's
//!   `model_executor/models/registry.py` and `models/dots1.py`; the 0.9.1 wheel has neither). An older
//!   release logs "Dots1ForCausalLM has no vLLM implementation, falling back to Transformers
//!   implementation" (0.9.1 `model_loader/utils.py`) and serves it through its Transformers backend,
//!   which tpsim does not model.
//! - **SGLang**: no release tpsim models ships a `models/dots1.py` (the 0.4.9 and 0.5.2 to 0.5.9 wheels
//!   were listed; none registers the architecture). SGLang 0.5.9 `model_loader/utils.py` logs
//!   "Dots1ForCausalLM has no SGLang implementation, falling back to Transformers implementation" and
//!   serves it through its Transformers backend, which tpsim does not model: the scenario is refused on
//!   `engine.name`, as LLaVA-NeXT's is.

use super::EngineKind;
use tpsim_model::llm::{Architecture, ModelSpec};

/// The first vLLM release with `models/dots1.py` (module doc).
const FIRST_VLLM: [u64; 3] = [0, 9, 2];

/// The refusal of a dots.llm1 scenario: every SGLang release, vLLM before 0.9.2. `(key, message)`.
pub(super) fn check(
    kind: EngineKind,
    model: &ModelSpec,
    version: &str,
) -> Result<(), (&'static str, String)> {
    if model.arch != Architecture::Dots1 {
        return Ok(());
    }
    match kind {
        EngineKind::Sglang => Err((
            "engine.name",
            format!(
                "SGLang {version} has no models/dots1.py (no SGLang release up to 0.5.9 ships one): it would log \
                 \"Dots1ForCausalLM has no SGLang implementation, falling back to Transformers implementation\" \
                 and serve it through the Transformers backend, which tpsim does not model; vLLM serves it from 0.9.2 (use vllm)"
            ),
        )),
        EngineKind::Vllm => {
            let v = crate::engine_args_versions::release(version).unwrap_or_default();
            if v.as_slice() < FIRST_VLLM.as_slice() {
                return Err((
                    "engine.version",
                    format!(
                        "vLLM {version} has no models/dots1.py (vLLM registers it from 0.9.2): it would log \
                         \"Dots1ForCausalLM has no vLLM implementation, falling back to Transformers \
                         implementation\" and serve it through the Transformers backend, which tpsim does not \
                         model (set engine.version to 0.9.2 or later)"
                    ),
                ));
            }
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dots1() -> ModelSpec {
        let text = include_str!("../../../scenarios/models/dots.llm1.inst/config.json");
        ModelSpec::from_config_json(text, tpsim_model::llm::Quantization::bf16()).unwrap()
    }

    #[test]
    fn releases_as_read_from_the_wheels() {
        let m = dots1();
        for v in ["0.4.9", "0.5.8", "0.5.9"] {
            let e = check(EngineKind::Sglang, &m, v).unwrap_err();
            assert_eq!(e.0, "engine.name");
            assert!(
                e.1.contains(&format!("SGLang {v} has no models/dots1.py")),
                "{}",
                e.1
            );
        }
        let e = check(EngineKind::Vllm, &m, "0.9.1").unwrap_err();
        assert_eq!(e.0, "engine.version");
        assert!(e.1.contains("vLLM registers it from 0.9.2"), "{}", e.1);
        assert!(check(EngineKind::Vllm, &m, "0.9.2").is_ok());
        assert!(check(EngineKind::Vllm, &m, "0.19.0").is_ok());
    }
}
