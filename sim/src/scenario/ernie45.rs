//! families17 (issue #17): which engine releases serve dense ERNIE-4.5 and dense Hunyuan (the weights
//! are `model::llm::ernie45`'s and `model::llm::hunyuan`'s). All read from the released wheels.
//!
//! **Dense ERNIE-4.5** is registered under two names:
//! - **vLLM** `"Ernie4_5_ForCausalLM": ("ernie45", "Ernie4_5_ForCausalLM")` in 0.9.2 and 0.10.0
//!   (`model_executor/models/registry.py`; 0.9.1 has no `ernie45.py`), renamed
//!   `"Ernie4_5ForCausalLM": ("ernie45", "Ernie4_5ForCausalLM")` from 0.10.1 (0.10.1, 0.11.0, 0.19.0
//!   register only that name).
//! - **SGLang** `models/ernie4.py` from 0.5.0rc0 (0.4.10.post2 has none), `EntryClass =
//!   [Ernie4_5_MoeForCausalLM, Ernie4_5_ForCausalLM]` in every release up to 0.5.9; no file of the
//!   0.5.9 wheel names `Ernie4_5ForCausalLM`.
//!
//! A name the release does not register falls back to the engine's Transformers backend (SGLang 0.5.9
//! `model_loader/utils.py`: "… has no SGLang implementation, falling back to Transformers
//! implementation"; vLLM likewise), which tpsim does not model: refused, naming the release or name
//! that serves it.
//!
//! **Dense Hunyuan** (`HunYuanDenseV1ForCausalLM`): SGLang `models/hunyuan.py` lists it in
//! `EntryClass` from 0.4.9.post3 (0.4.9.post2's has only the MoE class); vLLM registers
//! `("hunyuan_v1", "HunYuanDenseV1ForCausalLM")` from 0.10.0 (0.9.2's registry has only the MoE
//! class, as `hunyuan_v1_moe`).

use super::EngineKind;
use super::first_release::{fallback, ordered};
use tpsim_model::llm::{Architecture, ModelSpec};

/// The first vLLM release that registers `Ernie4_5ForCausalLM` (and no longer the remote-code name).
const VLLM_RENAMED: [u64; 4] = [0, 10, 1, 0];

/// The refusal of a dense ERNIE-4.5 scenario under a release that does not register the config's
/// architecture name: `(key, message)`. The releases without the model file (and dense Hunyuan's)
/// are `first_release`'s rows, checked before.
pub(super) fn check(
    kind: EngineKind,
    model: &ModelSpec,
    version: &str,
) -> Result<(), (&'static str, String)> {
    if model.arch != Architecture::Ernie45 {
        return Ok(());
    }
    let legacy = model.ernie45_legacy_name;
    let v = ordered(version);
    let name = if legacy {
        "Ernie4_5_ForCausalLM"
    } else {
        "Ernie4_5ForCausalLM"
    };
    match kind {
        EngineKind::Sglang if !legacy => Err((
            "engine.name",
            format!(
                "SGLang {version} registers dense ERNIE-4.5 only as Ernie4_5_ForCausalLM (models/ernie4.py, no \
                 release up to 0.5.9 names Ernie4_5ForCausalLM): {} (use vllm 0.10.1 or later, or a config \
                 naming Ernie4_5_ForCausalLM, as the checkpoints' first remote-code release did)",
                fallback("SGLang", name)
            ),
        )),
        EngineKind::Vllm if legacy && v.as_slice() >= VLLM_RENAMED.as_slice() => Err((
            "engine.version",
            format!(
                "vLLM {version} registers dense ERNIE-4.5 only as Ernie4_5ForCausalLM (renamed from \
                 Ernie4_5_ForCausalLM in 0.10.1): {} (set engine.version to 0.9.2 … 0.10.0, or use a config \
                 naming Ernie4_5ForCausalLM)",
                fallback("vLLM", name)
            ),
        )),
        EngineKind::Vllm if !legacy && v.as_slice() < VLLM_RENAMED.as_slice() => Err((
            "engine.version",
            format!(
                "vLLM {version} registers dense ERNIE-4.5 only as Ernie4_5_ForCausalLM (Ernie4_5ForCausalLM from \
                 0.10.1): {} (set engine.version to 0.10.1 or later, or use a config naming \
                 Ernie4_5_ForCausalLM)",
                fallback("vLLM", name)
            ),
        )),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn preset(text: &str) -> ModelSpec {
        ModelSpec::from_config_json(text, tpsim_model::llm::Quantization::bf16()).unwrap()
    }

    /// The checks in `engine.rs`'s order: the release table, then the names.
    fn served(kind: EngineKind, m: &ModelSpec, v: &str) -> Result<(), (&'static str, String)> {
        super::super::first_release::check(kind, m, v)?;
        check(kind, m, v)
    }

    const ERNIE: &str = include_str!("../../../scenarios/models/ernie-4.5-0.3b-pt/config.json");

    #[test]
    fn ernie45_names_by_release() {
        let hf = preset(ERNIE);
        let legacy = preset(&ERNIE.replace("\"Ernie4_5ForCausalLM\"", "\"Ernie4_5_ForCausalLM\""));
        // transformers' name: vLLM from 0.10.1, never SGLang.
        for v in ["0.9.2", "0.10.0"] {
            assert_eq!(served(EngineKind::Vllm, &hf, v).unwrap_err().0, "engine.version");
        }
        for v in ["0.10.1", "0.11.0", "0.19.0"] {
            assert!(served(EngineKind::Vllm, &hf, v).is_ok(), "{v}");
        }
        let e = served(EngineKind::Sglang, &hf, "0.5.9").unwrap_err();
        assert_eq!(e.0, "engine.name");
        assert!(
            e.1.contains("Ernie4_5ForCausalLM has no SGLang implementation"),
            "{}",
            e.1
        );
        // the remote-code name: vLLM 0.9.2 … 0.10.0, SGLang from 0.5.0 (0.5.0rc0).
        assert_eq!(
            served(EngineKind::Vllm, &legacy, "0.9.1").unwrap_err().0,
            "engine.version"
        );
        for v in ["0.9.2", "0.10.0"] {
            assert!(served(EngineKind::Vllm, &legacy, v).is_ok(), "{v}");
        }
        let e = served(EngineKind::Vllm, &legacy, "0.19.0").unwrap_err();
        assert!(
            e.1.contains("renamed from Ernie4_5_ForCausalLM in 0.10.1"),
            "{}",
            e.1
        );
        assert_eq!(
            served(EngineKind::Sglang, &legacy, "0.4.10.post2").unwrap_err().0,
            "engine.version"
        );
        for v in ["0.5.0rc0", "0.5.1", "0.5.9"] {
            assert!(served(EngineKind::Sglang, &legacy, v).is_ok(), "{v}");
        }
    }

    #[test]
    fn hunyuan_dense_first_releases() {
        let m = preset(include_str!("../../../scenarios/models/hy-mt2-7b/config.json"));
        assert_eq!(
            served(EngineKind::Sglang, &m, "0.4.9.post2").unwrap_err().0,
            "engine.version"
        );
        assert!(served(EngineKind::Sglang, &m, "0.4.9.post3").is_ok());
        let e = served(EngineKind::Vllm, &m, "0.9.2").unwrap_err();
        assert!(e.1.contains("vLLM registers it from 0.10.0"), "{}", e.1);
        assert!(served(EngineKind::Vllm, &m, "0.10.0").is_ok());
    }
}
