//! The refusal shared by the per-family release checks (`glm4v`, `glm4_moe_lite`, `ministral3`, `internvl`): a model class an
//! engine release does not ship is refused on `engine.version`, naming the engine's file and where the
//! first release comes from.

use super::EngineKind;

/// Where one engine first ships a model class: the release, the engine's file, and the source of the
/// bound (the family module's doc says more).
pub(super) struct FirstRelease {
    /// The first release with the model class: major, minor, patch as
    /// `engine_args_versions::release` splits them, then the `.postN` number where the first
    /// release is a post release (`[0, 5, 6, 1]` is 0.5.6.post1).
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
    let v = ordered(version);
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

/// `version` as [`FirstRelease::first`] orders it: major, minor, patch (missing parts 0; an `rc`
/// or `dev` suffix is dropped, so 0.5.0rc1 counts as 0.5.0), then the `.postN` number (0 without
/// one), so that 0.5.6 < 0.5.6.post1 < 0.5.7.
pub(super) fn ordered(version: &str) -> Vec<u64> {
    let mut v = crate::engine_args_versions::release(version).unwrap_or_default();
    v.resize(3, 0);
    let post = version
        .split('.')
        .find_map(|p| p.strip_prefix("post"))
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    v.push(post);
    v
}

#[cfg(test)]
mod tests {
    use super::ordered;

    #[test]
    fn post_releases_order_after_their_base() {
        assert_eq!(ordered("0.5.6"), [0, 5, 6, 0]);
        assert_eq!(ordered("0.5.6.post1"), [0, 5, 6, 1]);
        assert_eq!(ordered("0.5.0rc1"), [0, 5, 0, 0]);
        assert_eq!(ordered("0.12"), [0, 12, 0, 0]);
        assert!(ordered("0.5.6") < ordered("0.5.6.post1"));
        assert!(ordered("0.5.6.post2") < ordered("0.5.7"));
        assert!(ordered("0.5.3") >= [0, 5, 3][..].to_vec());
    }
}
