//! vllmsampler (issue #17 point 5): `VLLM_USE_FLASHINFER_SAMPLER` in `[engine.env]`, read as vLLM's
//! V1 sampler reads it at each release, and whether the sampler takes FlashInfer's top-k/top-p path
//! (`decode::vllm_sampler_rule` turns that into the profile run's dummy-sampler rule).
//!
//! `envs.py` (0.8.0 … 0.34.0, read in the PyPI wheels): `bool(int(os.environ[...]))` when the
//! variable is set, else `None` (0.8.0 – 0.20.x) or `True` (0.21.0 on). A value Python's `int()`
//! rejects raises `ValueError` when the sampler reads it (exit 2 here); any other integer is on
//! unless it is 0. `v1/sample/ops/topk_topp_sampler.py` `TopKTopPSampler.__init__`, CUDA only (the
//! variable is not read on ROCm), by release ([`Reading`]):
//! - 0.8.x: FlashInfer only when `flashinfer.__version__ < "0.2.3"` and the variable is not 0;
//! - 0.9.0 – 0.11.0: FlashInfer when `flashinfer.sampling` imports (≥ 0.2.3) and the variable is not
//!   0 (unset = `None` = on). "0" with FlashInfer: the warning "FlashInfer is available, but it is
//!   not enabled"; no FlashInfer: "FlashInfer is not available" (the variable is then moot);
//!   0.11.0's FlashInfer sampler fails below SM 7.5 at start-up (vLLM issue 27729, V100): refused;
//! - 0.11.1 – 0.11.2: opt-in, FlashInfer only on a non-zero value (vLLM PR 26859, "Users must opt
//!   in explicitly"; below SM 7.5 the opt-in fails as in issue 27729: refused); the wheels require
//!   `flashinfer-python`;
//! - 0.12.0 – 0.20.x: opt-in, and on a GPU outside `FlashInferBackend.supports_compute_capability`
//!   (7.5 ≤ cc ≤ 12.1) `RuntimeError("FlashInfer does not support compute capability …, unset
//!   VLLM_USE_FLASHINFER_SAMPLER=1.")` (vLLM PR 29415);
//! - 0.21.0 on: on by default (vLLM PR 40376, "Enable FlashInfer top-k/top-p sampler by default");
//!   unset on an unsupported GPU falls back with a warning, "1" there still raises. 0.34.0 raises the
//!   floor to cc 8.0 (`flashinfer.py`: "broken on SM75", flashinfer issue 3620). Releases after 0.21
//!   add further checks (≤ 16 SMs, JIT availability: 0.33.0 `flashinfer_sampler_supported`) that are
//!   not modelled; their rule is 0.21.0's.
//!
//! All releases: FlashInfer is skipped when `--logprobs-mode` is `processed_logits` /
//! `processed_logprobs` (a flag tpsim does not take).

use super::accel::GpuVendor;
use super::vllm_install::VllmInstall;
use super::{Hardware, Resolver, ScenarioError};

/// The variable's name.
pub const VAR: &str = "VLLM_USE_FLASHINFER_SAMPLER";

/// How a vLLM release reads the variable (module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reading {
    /// Before 0.8.0: the V1 sampler is not the default engine's; the variable is only parsed.
    BeforeV1,
    /// 0.8.x: FlashInfer only below 0.2.3 (the releases' image FlashInfer is not placed by tpsim).
    Below023,
    /// 0.9.0 – 0.11.0: on when FlashInfer imports, unless the variable is 0.
    DefaultIfImports,
    /// 0.11.1 – 0.11.2: opt-in, no compute-capability check.
    OptIn,
    /// 0.12.0 – 0.20.x: opt-in; opting in on an unsupported GPU raises.
    OptInChecked,
    /// 0.21.0 on: on by default on a supported GPU.
    DefaultOn,
}

/// The reading of release `[major, minor, patch]`.
pub fn reading(v: [u64; 3]) -> Reading {
    match v {
        _ if v < [0, 8, 0] => Reading::BeforeV1,
        _ if v < [0, 9, 0] => Reading::Below023,
        _ if v <= [0, 11, 0] => Reading::DefaultIfImports,
        _ if v < [0, 12, 0] => Reading::OptIn,
        _ if v < [0, 21, 0] => Reading::OptInChecked,
        _ => Reading::DefaultOn,
    }
}

/// Python's `int(value)` in base 10 as `envs.py` applies it, reduced to `bool(...)`: surrounding
/// whitespace, an optional sign, ASCII digits with single underscores between them. `None` where
/// Python raises `ValueError` (Python also takes non-ASCII decimal digits, which tpsim refuses).
pub fn parse(value: &str) -> Option<bool> {
    let t = value.trim();
    let digits = t.strip_prefix(['+', '-']).unwrap_or(t);
    let ok = !digits.is_empty()
        && !digits.starts_with('_')
        && !digits.ends_with('_')
        && !digits.contains("__")
        && digits.chars().all(|c| c.is_ascii_digit() || c == '_');
    ok.then(|| digits.chars().any(|c| c.is_ascii_digit() && c != '0'))
}

/// Whether FlashInfer's sampler accepts the GPU: vLLM's `FlashInferBackend.
/// supports_compute_capability`, `DeviceCapability(7, 5) <= cc <= DeviceCapability(12, 1)` in 0.12.0
/// – 0.33.0, floor 8.0 in 0.34.0. `sm` is vLLM's `to_int()` (major × 10 + minor).
pub fn supports_capability(sm: u32, v: [u64; 3]) -> bool {
    let floor = if v >= [0, 34, 0] { 80 } else { 75 };
    (floor..=121).contains(&sm)
}

/// What the scenario's vLLM runs: its release, install, GPU and the variable as given.
#[derive(Debug, Clone, Copy)]
pub struct SamplerInput {
    /// `[major, minor, patch]`.
    pub release: [u64; 3],
    /// `engine.install` (pip when not given).
    pub install: VllmInstall,
    /// The GPU vendor (the variable is read on CUDA only).
    pub vendor: GpuVendor,
    /// The compute capability as `to_int()` writes it (`tpsim_model::hw::sm_version`).
    pub sm: u32,
    /// The variable: `None` unset, else `bool(int(value))`.
    pub env: Option<bool>,
}

/// The outcome at start-up: whether the V1 sampler takes FlashInfer's path, and vLLM's warning.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// `forward_cuda` (FlashInfer) or `forward_native`, with vLLM's warning when it logs one.
    Sampler {
        flashinfer: bool,
        warning: Option<String>,
    },
    /// vLLM raises at start-up (the text).
    Refused(String),
}

/// The outcome of [`SamplerInput`] by the release's [`Reading`] (module doc).
pub fn outcome(i: &SamplerInput) -> Outcome {
    let native = |warning: Option<String>| Outcome::Sampler {
        flashinfer: false,
        warning,
    };
    if i.vendor != GpuVendor::Nvidia {
        return native(None);
    }
    let cc = format!("{}.{}", i.sm / 10, i.sm % 10);
    match reading(i.release) {
        Reading::BeforeV1 => native(None),
        // Pip: no FlashInfer ("FlashInfer is not available", logged whatever the variable); the
        // image's FlashInfer version is not placed, so the sort is kept and a set variable noted.
        Reading::Below023 => native(i.env.map(|_| match i.install {
            VllmInstall::Pip => format!(
                "{VAR} is moot: vLLM 0.8.x logs \"FlashInfer is not available\" (engine.install = pip) \
                 and sorts"
            ),
            VllmInstall::Docker => format!(
                "{VAR}: vLLM 0.8.x takes FlashInfer's sampler only with FlashInfer < 0.2.3; the image's \
                 FlashInfer is not placed by tpsim, so the native (sorting) sampler is simulated"
            ),
        })),
        Reading::DefaultIfImports => {
            if !i.install.has_flashinfer(i.release) {
                native(i.env.filter(|&on| on).map(|_| {
                    "vLLM: \"FlashInfer is not available. Falling back to the PyTorch-native implementation \
                     of top-p & top-k sampling.\" (engine.install = pip: the wheel does not require \
                     flashinfer-python; set engine.install = \"docker\" if it was installed)"
                        .to_string()
                }))
            } else if i.env == Some(false) {
                native(Some(
                    "vLLM: \"FlashInfer is available, but it is not enabled. Falling back to the \
                     PyTorch-native implementation of top-p & top-k sampling.\""
                        .to_string(),
                ))
            } else if i.release == [0, 11, 0] && i.sm < 75 {
                Outcome::Refused(v100_failure(&cc, "0.11.0 samples through FlashInfer by default"))
            } else {
                Outcome::Sampler {
                    flashinfer: true,
                    warning: None,
                }
            }
        }
        Reading::OptIn if i.env == Some(true) && i.sm < 75 => {
            Outcome::Refused(v100_failure(&cc, "the opt-in takes FlashInfer's sampler"))
        }
        Reading::OptIn => Outcome::Sampler {
            flashinfer: i.env == Some(true),
            warning: None,
        },
        Reading::OptInChecked | Reading::DefaultOn => {
            let on = match reading(i.release) {
                Reading::DefaultOn => i.env != Some(false),
                _ => i.env == Some(true),
            };
            if !on {
                native(None)
            } else if supports_capability(i.sm, i.release) {
                Outcome::Sampler {
                    flashinfer: true,
                    warning: None,
                }
            } else if i.env == Some(true) {
                Outcome::Refused(format!(
                    "vLLM raises \"FlashInfer does not support compute capability {cc}, unset \
                     VLLM_USE_FLASHINFER_SAMPLER=1.\"; expected \"0\" or no variable on this GPU"
                ))
            } else {
                native(Some(format!(
                    "vLLM: \"FlashInfer top-p/top-k sampling not supported on compute capability {cc}; \
                     falling back to PyTorch-native sampler.\""
                )))
            }
        }
    }
}

/// `[major, minor, patch]` of a version text (missing parts 0), `None` when it has no number.
pub fn triple(version: &str) -> Option<[u64; 3]> {
    let r = crate::engine_args_versions::release(version)?;
    let at = |i: usize| r.get(i).copied().unwrap_or(0);
    Some([at(0), at(1), at(2)])
}

impl Resolver<'_> {
    /// A vLLM boolean variable `var` of `[engine.env]` as `envs.py` reads it, `bool(int(value))`
    /// (`None`: unset). A value `int()` rejects is an error naming `engine.env.<var>` (vLLM raises
    /// `ValueError` when it reads it). vgraph53: shared with `VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS`.
    pub(super) fn int_flag_var(&self, var: &str, raw: Option<&str>) -> Result<Option<bool>, ScenarioError> {
        let Some(raw) = raw else {
            return Ok(None);
        };
        parse(raw).map(Some).ok_or_else(|| {
            self.invalid(
                &format!("engine.env.{var}"),
                format!(
                    "`{raw}`: vLLM reads it with int() and raises \"ValueError: invalid literal for int() \
                     with base 10\"; expected \"0\" (off) or \"1\" (on)"
                ),
            )
        })
    }

    /// The variable (taken out of `[engine.env]` by the caller, vLLM only) checked for the scenario's
    /// release, install and GPU: `None` unset, else `bool(int(value))`. A value `int()` rejects, or an
    /// opt-in vLLM refuses on this GPU, is an error naming `engine.env.VLLM_USE_FLASHINFER_SAMPLER`;
    /// vLLM's warning, if any, goes to `warnings`. Checked also when unset (0.11.0's default FlashInfer
    /// sampler fails on a V100; 0.21's default warns on an unsupported GPU). `v1`: vLLM's V1 engine
    /// (false under SGLang or vLLM's V0 engine: only parsed).
    pub(super) fn flashinfer_sampler_var(
        &self,
        raw: Option<&str>,
        version: &str,
        install: Option<VllmInstall>,
        hw: &Hardware,
        v1: bool,
        warnings: &mut Vec<String>,
    ) -> Result<Option<bool>, ScenarioError> {
        let key = format!("engine.env.{VAR}");
        let env = self.int_flag_var(VAR, raw)?;
        let Some(release) = triple(version).filter(|_| v1) else {
            return Ok(env);
        };
        let input = SamplerInput {
            release,
            install: install.unwrap_or_default(),
            vendor: hw.accel.vendor,
            sm: tpsim_model::hw::sm_version(&hw.gpu.compute_capability),
            env,
        };
        match outcome(&input) {
            Outcome::Refused(m) => {
                let given = raw.map_or("unset".to_string(), |r| format!("`{r}`"));
                Err(self.invalid(&key, format!("{given} on vLLM {version}: {m}")))
            }
            Outcome::Sampler { warning, .. } => {
                warnings.extend(warning);
                Ok(env)
            }
        }
    }
}

/// vLLM issue 27729 ("The NVIDIA GPU Tesla V100 throws an error when running vLLM 0.11.0": the
/// profile run fails inside `topk_topp_sampler`, FlashInfer's kernels not built below SM 7.5); vLLM
/// PR 29415 turned it into the 0.12.0 refusal. Read for 0.11.0 – 0.11.2 only.
fn v100_failure(cc: &str, why: &str) -> String {
    format!(
        "vLLM {why}, which fails on compute capability {cc} at start-up (vLLM issue 27729); expected \
         VLLM_USE_FLASHINFER_SAMPLER = \"0\" on this GPU"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_int() {
        assert_eq!(parse("1"), Some(true));
        assert_eq!(parse(" 0 "), Some(false));
        assert_eq!(parse("-0"), Some(false));
        assert_eq!(parse("2"), Some(true));
        assert_eq!(parse("0_0"), Some(false));
        assert_eq!(parse("1_0"), Some(true));
        for bad in ["", "true", "on", "1.0", "_1", "1_", "1__0", "0x1", "+"] {
            assert_eq!(parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn readings_by_release() {
        assert_eq!(reading([0, 7, 3]), Reading::BeforeV1);
        assert_eq!(reading([0, 8, 5]), Reading::Below023);
        assert_eq!(reading([0, 9, 0]), Reading::DefaultIfImports);
        assert_eq!(reading([0, 11, 0]), Reading::DefaultIfImports);
        assert_eq!(reading([0, 11, 1]), Reading::OptIn);
        assert_eq!(reading([0, 12, 0]), Reading::OptInChecked);
        assert_eq!(reading([0, 20, 2]), Reading::OptInChecked);
        assert_eq!(reading([0, 21, 0]), Reading::DefaultOn);
        assert!(supports_capability(75, [0, 21, 0]) && !supports_capability(75, [0, 34, 0]));
        assert!(!supports_capability(70, [0, 12, 0]) && supports_capability(121, [0, 12, 0]));
        assert!(!supports_capability(122, [0, 12, 0]));
    }
}
