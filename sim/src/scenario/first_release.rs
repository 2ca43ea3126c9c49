//! The refusal shared by the per-family release checks (`glm4v`, `glm4_moe_lite`, `ministral3`, `internvl`): a model class an
//! engine release does not ship is refused on `engine.version`, naming the engine's file and where the
//! first release comes from.

use super::EngineKind;

/// Where one engine first ships a model class: the release, the engine's file, and the source of the
/// bound (the family module's doc says more).
pub(super) struct FirstRelease {
    /// The first release with the model class, as `engine_args_versions::release` splits it.
    pub first: &'static [u64],
    /// The engine's file that serves the model (e.g. `models/glm4v_moe.py`).
    pub file: &'static str,
    /// Where the bound comes from, one clause (e.g. "SGLang adds it in 0.5.0").
    pub since: &'static str,
}

/// `Err(("engine.version", message))` when `version` of `kind` is older than its [`FirstRelease`];
/// `model` names the family in the message.
pub(super) fn refuse_before(
    kind: EngineKind,
    version: &str,
    sglang: &FirstRelease,
    vllm: &FirstRelease,
    model: &str,
) -> Result<(), (&'static str, String)> {
    let v = crate::engine_args_versions::release(version).unwrap_or_default();
    let (engine, r) = match kind {
        EngineKind::Sglang => ("SGLang", sglang),
        EngineKind::Vllm => ("vLLM", vllm),
    };
    if v.as_slice() < r.first {
        return Err((
            "engine.version",
            format!(
                "{engine} {version} has no {} ({}): it cannot serve {model} (set a later engine.version)",
                r.file, r.since
            ),
        ));
    }
    Ok(())
}
