//! `engine.mamba_cache_dtype` / `engine.mamba_ssm_cache_dtype` (issue #17): vLLM's
//! `--mamba-cache-dtype` (conv and SSM state) and `--mamba-ssm-cache-dtype` (SSM state only) for the
//! recurrent layers' state pages (`decode::vllm_hybrid`).
//!
//! Choices (`MambaDType` in `vllm/config/cache.py`, read in the PyPI wheels): `auto`, `float32` in
//! 0.11.0 and 0.12.0; `auto`, `float32`, `float16` in 0.13.0, 0.14.0 and 0.19.0; `bfloat16` too in
//! 0.33.0 (`tests/data/engine-args/vllm-0.33.0.txt`). 0.20 – 0.32 get 0.19.0's list (not read: the
//! release that added `bfloat16` is not known, so it is refused there). Default `auto` for both.
//!
//! Under SGLang (issue #17, hybridserve) `engine.mamba_ssm_cache_dtype` is SGLang's
//! `--mamba-ssm-dtype`: the SSM state's dtype in its state pool (`tpsim_model::state_pool`), for
//! Gated DeltaNet and Mamba-2 layers alike (`configs/mamba_utils.py` `mamba2_state_dtype`). Choices
//! (`MAMBA_SSM_DTYPE_CHOICES`, PyPI wheels): `float32`, `bfloat16` in 0.5.8
//! (`tests/data/engine-args/sglang-0.5.8.txt` line 194; earlier releases not read: 0.5.8's list);
//! `float32`, `bfloat16`, `float16` in 0.5.9 and 0.5.23 (`sglang-0.5.9.txt` line 197,
//! `sglang-0.5.23.txt` line 95); no `auto`. Without the flag: 0.5.8 sets `SGLANG_MAMBA_SSM_DTYPE`
//! from the server argument's default `float32` (`_handle_environment_variables`) and
//! `mamba2_state_dtype` reads only that variable, so the config's `mamba_ssm_dtype` is ignored;
//! from 0.5.9 the default is `None` and the config's `mamba_ssm_dtype` (else `float32`) holds, the
//! flag overriding it. SGLang has no `--mamba-cache-dtype` (its conv state is bf16 unless the
//! `SGLANG_MAMBA_CONV_DTYPE` variable says otherwise, 0.5.9): `engine.mamba_cache_dtype` is
//! refused under SGLang.

use super::{EngineKind, ScenarioError};

/// The state dtypes given for vLLM's state pages (and SGLang's SSM state, `ssm` only); `None` =
/// `auto` (not given or given as `auto`).
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

/// SGLang's `--mamba-ssm-dtype` choices in release `version` (module doc).
pub fn sglang_choices(version: &str) -> &'static [&'static str] {
    let m = crate::engine_args_versions::release(version).map_or([0, 5, 8], |r| {
        [
            r.first().copied().unwrap_or(0),
            r.get(1).copied().unwrap_or(0),
            r.get(2).copied().unwrap_or(0),
        ]
    });
    if m >= [0, 5, 9] {
        &["float32", "bfloat16", "float16"]
    } else {
        &["float32", "bfloat16"]
    }
}

/// Bytes of the SSM-state element SGLang release `version` uses for a model whose config declares
/// `declared` bytes (`None`: no `mamba_ssm_dtype`) when `--mamba-ssm-dtype` is `flag` (module doc):
/// the flag; else float32 in 0.5.8 (the config ignored); else the config's, else float32.
pub fn sglang_ssm_bytes(version: &str, flag: Option<&str>, declared: Option<u64>) -> u64 {
    if let Some(f) = flag {
        return bytes_of(f);
    }
    let before_0_5_9 = crate::engine_args_versions::release(version).is_some_and(|r| {
        [
            r.first().copied().unwrap_or(0),
            r.get(1).copied().unwrap_or(0),
            r.get(2).copied().unwrap_or(0),
        ] < [0, 5, 9]
    });
    if before_0_5_9 { 4 } else { declared.unwrap_or(4) }
}

/// The dtypes in force, each key checked against the release's choices (SGLang: only
/// `engine.mamba_ssm_cache_dtype`, as `--mamba-ssm-dtype`).
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
        if kind == EngineKind::Sglang && i == 0 {
            return Err(invalid(
                key,
                format!(
                    "vLLM's {flag}; SGLang has no such flag (its conv state is bfloat16; the SSM state's dtype \
                     is --mamba-ssm-dtype: engine.mamba_ssm_cache_dtype)"
                ),
            ));
        }
        if kind == EngineKind::Sglang {
            let ok = sglang_choices(version);
            if !ok.contains(&v.as_str()) {
                return Err(invalid(
                    key,
                    format!(
                        "`{v}` is not an SGLang {version} --mamba-ssm-dtype: expected one of {}",
                        ok.join(", ")
                    ),
                ));
            }
            out[i] = Some(v.clone());
            continue;
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

/// Under SGLang, the SSM state's element size of `model`'s recurrent layers as release `version`
/// keeps it ([`sglang_ssm_bytes`]: `--mamba-ssm-dtype`, else the release's default): the state pool
/// (`tpsim_model::state_pool`, `mamba_cache_per_req`) and the decode's state reads follow it.
pub(super) fn apply_sglang(model: &mut tpsim_model::llm::ModelSpec, version: &str, d: &MambaDtypes) {
    let flag = d.ssm.as_deref();
    if let Some(g) = model.linear_attention.as_mut() {
        g.ssm_state_bytes = sglang_ssm_bytes(version, flag, g.declared_ssm_state_bytes);
    }
    if let Some(m) = model.mamba2.as_mut() {
        m.ssm_state_bytes = sglang_ssm_bytes(version, flag, Some(m.ssm_state_bytes));
    }
}

/// Under vLLM, the SSM-state element size of `model`'s Gated DeltaNet layers as release `version` keeps
/// it (pro6k56): the decode reads and writes each request's state at the width vLLM allocates it
/// (`VllmHybridRules::gdn_ssm_bytes`, the rule `decode::vllm_hybrid` sizes the state page by), not the
/// float32 of SGLang's default that the lowering starts from. Up to 0.16 that is the model dtype unless
/// `--mamba-cache-dtype` says otherwise (Qwen3-Next: bfloat16, 2 B); from 0.17 the flag or the config's
/// `mamba_ssm_dtype` (Qwen3.5: float32). Kimi-Linear's KDA (float32 recurrent state, `kda_state_dtype`)
/// and MiniMax's lightning layers (their own rule in `scenario`) are left as they are.
pub(super) fn apply_vllm(model: &mut tpsim_model::llm::ModelSpec, version: &str, d: &MambaDtypes) {
    use tpsim_model::llm::Architecture;
    if matches!(
        model.arch,
        Architecture::KimiLinear | Architecture::KimiK3 | Architecture::MiniMaxText01
    ) || model.short_conv.is_some()
    {
        return;
    }
    let rel = crate::engine_args_versions::release(version);
    let rules = tpsim_model::vllm_hybrid::VllmHybridRules::for_release(rel.as_deref());
    let model_bytes = model.dtype.float_bytes().unwrap_or(2);
    let conv_bytes = d.cache.as_deref().map_or(model_bytes, bytes_of);
    let user_ssm = d.ssm.as_deref().map(bytes_of);
    if let Some(g) = model.linear_attention.as_mut() {
        let declared = g.declared_ssm_state_bytes.filter(|_| rules.gdn_ssm_from_config);
        g.ssm_state_bytes = rules.gdn_ssm_bytes(user_ssm, declared, conv_bytes);
    }
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
        // SGLang: `--mamba-ssm-dtype` (sglang-0.5.8.txt line 194, sglang-0.5.9.txt line 197).
        assert!(resolve(EngineKind::Sglang, "0.5.8", f16.clone(), err).is_err());
        let d = resolve(EngineKind::Sglang, "0.5.9", f16, err).unwrap();
        assert_eq!(d.ssm.as_deref(), Some("float16"));
        let auto = [None, Some("auto".to_string())];
        assert!(resolve(EngineKind::Sglang, "0.5.9", auto, err).is_err());
        let conv = [Some("float32".to_string()), None];
        assert!(resolve(EngineKind::Sglang, "0.5.9", conv, err).is_err());
        assert_eq!(sglang_choices("0.5.23"), ["float32", "bfloat16", "float16"]);
        // Bytes: the flag; 0.5.8 ignores the config (float32); 0.5.9 reads it.
        assert_eq!(sglang_ssm_bytes("0.5.9", Some("bfloat16"), Some(4)), 2);
        assert_eq!(sglang_ssm_bytes("0.5.8", None, Some(2)), 4);
        assert_eq!(sglang_ssm_bytes("0.5.9", None, Some(2)), 2);
        assert_eq!(sglang_ssm_bytes("0.5.9", None, None), 4);
    }
}
