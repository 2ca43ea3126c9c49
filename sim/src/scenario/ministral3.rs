//! families12 (issue #17): which engine releases serve Ministral 3 (`Mistral3ForConditionalGeneration`
//! whose `text_config.model_type` is `ministral3`: Ministral 3 3B/8B/14B, Devstral Small 2).
//!
//! - SGLang: `models/ministral3.py` (`Ministral3ForCausalLM(LlamaForCausalLM)`, with the Llama-4
//!   query scaling), added by sgl-project/sglang PR #14251 "ministral3" (2025-12-01). Read from the
//!   PyPI wheels (2026-12-05, the central directory of each `sglang-…-py3-none-any.whl`): 0.5.6 has
//!   no `sglang/srt/models/ministral3.py`; 0.5.6.post1, 0.5.6.post2, 0.5.7 and 0.5.8 have it. An older
//!   release has no class for the text tower. First release: 0.5.6.post1.
//! - vLLM: Ministral 3 and Mistral Large 3 (`models/mistral_large_3.py`), added by
//!   vllm-project/vllm PR #29757 "Add Mistral Large 3 and Ministral 3" (opened 2025-11-30). Read from
//!   the wheels: 0.12.0 has `model_executor/models/mistral_large_3.py` and registers
//!   `MistralLarge3ForCausalLM`, 0.11.2 neither; the Llama-4 query scaling in `models/llama.py`
//!   (`llama_4_scaling`) is already in 0.11.1 (not in 0.11.0), so a Mistral-format checkpoint may load
//!   there. tpsim takes 0.12.0, the release with the PR (assumed for the Hugging Face-format
//!   checkpoint the presets describe, not read from a run).

use super::EngineKind;
use super::first_release::FirstRelease;
use tpsim_model::llm::ModelSpec;

/// The first SGLang release with `models/ministral3.py`, 0.5.6.post1 (module doc: read from the
/// wheels).
const FIRST_SGLANG: [u64; 4] = [0, 5, 6, 1];

/// The first vLLM release taken to serve the `ministral3` text tower (module doc: assumed).
const FIRST_VLLM: [u64; 3] = [0, 12, 0];

/// The refusal of a Ministral 3 scenario under a release without the model: `(key, message)`.
pub(super) fn check(
    kind: EngineKind,
    model: &ModelSpec,
    version: &str,
) -> Result<(), (&'static str, String)> {
    if !model.ministral3 {
        return Ok(());
    }
    super::first_release::refuse_before(
        kind,
        version,
        &FirstRelease {
            first: &FIRST_SGLANG,
            file: "models/ministral3.py",
            since: "SGLang ships it from 0.5.6.post1",
        },
        &FirstRelease {
            first: &FIRST_VLLM,
            file: "support for the ministral3 text model",
            since: "tpsim takes 0.12.0, the first vLLM release after PR #29757, as the first with it",
        },
        "Ministral 3 (text_config.model_type \"ministral3\")",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ministral(name: &str) -> ModelSpec {
        let text = match name {
            "8b" => include_str!("../../../scenarios/models/ministral-3-8b-instruct-2512-bf16/config.json"),
            _ => include_str!("../../../scenarios/models/mistral-small-3.2-24b/config.json"),
        };
        ModelSpec::from_config_json(text, tpsim_model::llm::Quantization::bf16()).unwrap()
    }

    #[test]
    fn first_releases_as_read() {
        let m = ministral("8b");
        let e = check(EngineKind::Sglang, &m, "0.5.5").unwrap_err();
        assert_eq!(e.0, "engine.version");
        assert!(
            e.1.contains("SGLang 0.5.5 has no models/ministral3.py"),
            "{}",
            e.1
        );
        assert!(e.1.contains("cannot serve Ministral 3"), "{}", e.1);
        let e = check(EngineKind::Sglang, &m, "0.5.6").unwrap_err();
        assert!(e.1.contains("SGLang ships it from 0.5.6.post1"), "{}", e.1);
        assert!(check(EngineKind::Sglang, &m, "0.5.6.post1").is_ok());
        assert!(check(EngineKind::Sglang, &m, "0.5.7").is_ok());
        assert!(check(EngineKind::Sglang, &m, "0.5.9").is_ok());
        let e = check(EngineKind::Vllm, &m, "0.11.0").unwrap_err();
        assert!(e.1.contains("first vLLM release after PR #29757"), "{}", e.1);
        assert!(check(EngineKind::Vllm, &m, "0.12.0").is_ok());
        assert!(check(EngineKind::Vllm, &m, "0.19.0").is_ok());
        // Mistral-Small-3.2 (a "mistral" text tower) is not held to these releases.
        let small = ministral("small");
        assert!(check(EngineKind::Sglang, &small, "0.4.9").is_ok());
        assert!(check(EngineKind::Vllm, &small, "0.9.0").is_ok());
    }
}
