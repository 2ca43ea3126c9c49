//! `engine.mamba_cache_dtype` / `engine.mamba_ssm_cache_dtype` (issue #17): vLLM's
//! `--mamba-cache-dtype` (conv and SSM state) and `--mamba-ssm-cache-dtype` (SSM state only) for the
//! recurrent layers' state pages (`decode::vllm_hybrid`).
//!
//! Choices (`MambaDType` in `vllm/config/cache.py`, read in the PyPI wheels): `auto`, `float32` in
//! 0.11.0 and 0.12.0; `auto`, `float32`, `float16` in 0.13.0, 0.14.0 and 0.19.0; `bfloat16` too in
//! 0.33.0 (`tests/data/engine-args/vllm-0.33.0.txt`). 0.20 – 0.32 get 0.19.0's list (not read: the
//! release that added `bfloat16` is not known, so it is refused there). Default `auto` for both. SGLang's flag (`--mamba-ssm-dtype`, 0.5.8 /
//! 0.5.9 `server_args.py`) is not mapped: the keys are refused under SGLang.

use super::{EngineKind, ScenarioError};

/// The state dtypes given for vLLM's state pages; `None` = `auto` (not given or given as `auto`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MambaDtypes {
    /// `--mamba-cache-dtype` when not `auto` (conv and SSM state).
    pub cache: Option<String>,
    /// `--mamba-ssm-cache-dtype` when not `auto` (SSM state only).
    pub ssm: Option<String>,
    /// The keys as the scenario gave them (`auto` included), for `tpsim engine-args`.
    pub given: [Option<String>; 2],
}

/// Bytes of one element of a non-`auto` choice (vLLM `STR_DTYPE_TO_TORCH_DTYPE`).
pub fn bytes_of(choice: &str) -> u64 {
    if choice == "float32" { 4 } else { 2 }
}

/// `MambaDType` of vLLM release `version` (`crate::engine_args_versions::release`; 0.19.0 without a
/// number).
pub fn choices(version: &str) -> &'static [&'static str] {
    let m = crate::engine_args_versions::release(version).map_or([0, 19], |r| {
        [r.first().copied().unwrap_or(0), r.get(1).copied().unwrap_or(0)]
    });
    if m < [0, 13] {
        &["auto", "float32"]
    } else if m >= [0, 33] {
        &["auto", "float32", "float16", "bfloat16"]
    } else {
        &["auto", "float32", "float16"]
    }
}

/// The dtypes in force, each key checked against the release's choices; refused under SGLang.
pub(super) fn resolve(
    kind: EngineKind,
    version: &str,
    given: [Option<String>; 2],
    invalid: impl Fn(&str, String) -> ScenarioError,
) -> Result<MambaDtypes, ScenarioError> {
    const KEYS: [(&str, &str); 2] = [
        ("engine.mamba_cache_dtype", "--mamba-cache-dtype"),
        ("engine.mamba_ssm_cache_dtype", "--mamba-ssm-cache-dtype"),
    ];
    let mut out = [None, None];
    for (i, ((key, flag), v)) in KEYS.iter().zip(&given).enumerate() {
        let Some(v) = v else { continue };
        if kind == EngineKind::Sglang {
            return Err(invalid(
                key,
                format!(
                    "vLLM's {flag}; SGLang's --mamba-ssm-dtype is not mapped by tpsim (SGLang takes the state \
                     dtype from the model config's mamba_ssm_dtype, else float32)"
                ),
            ));
        }
        let ok = choices(version);
        if !ok.contains(&v.as_str()) {
            return Err(invalid(
                key,
                format!(
                    "`{v}` is not a vLLM {version} {flag}: expected one of {}",
                    ok.join(", ")
                ),
            ));
        }
        out[i] = (v != "auto").then(|| v.clone());
    }
    let [cache, ssm] = out;
    Ok(MambaDtypes { cache, ssm, given })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(k: &str, m: String) -> ScenarioError {
        ScenarioError::Io {
            file: k.to_string(),
            message: m,
        }
    }

    /// The lists of `tests/data/engine-args/vllm-0.11.0.txt` lines 93–94 and `vllm-0.19.0.txt`
    /// lines 102–103.
    #[test]
    fn choices_by_release() {
        assert_eq!(choices("0.11.0"), ["auto", "float32"]);
        assert_eq!(choices("0.12.0"), ["auto", "float32"]);
        assert_eq!(choices("0.19.0"), ["auto", "float32", "float16"]);
        assert_eq!(choices("0.33.0"), ["auto", "float32", "float16", "bfloat16"]);
        let f16 = [None, Some("float16".to_string())];
        assert!(resolve(EngineKind::Vllm, "0.11.0", f16.clone(), err).is_err());
        let d = resolve(EngineKind::Vllm, "0.19.0", f16.clone(), err).unwrap();
        assert_eq!((d.cache, d.ssm.as_deref()), (None, Some("float16")));
        let auto = [Some("auto".to_string()), None];
        assert_eq!(
            resolve(EngineKind::Vllm, "0.11.0", auto, err).unwrap().cache,
            None
        );
        assert!(resolve(EngineKind::Sglang, "0.5.9", f16, err).is_err());
    }
}
