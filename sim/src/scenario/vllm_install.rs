//! `engine.install` (issues #17 point 5, #18; installkind): how vLLM was installed, `"pip"` (a plain
//! `pip install vllm==X`, the default) or `"docker"` (the official `vllm/vllm-openai` image). The
//! two differ in whether FlashInfer is there, which decides the profile run's dummy sampler in the
//! releases that take FlashInfer's top-k/top-p sampler by default
//! (`decode::vllm_sampler_rule`, `tpsim_model::vllm_flashinfer_sampler`):
//!
//! - the image ships FlashInfer: vLLM PR #6172 added it to `docker/Dockerfile` (image v0.5.1 on);
//!   the v0.11.0 image's build history lists `ARG FLASHINFER_GIT_REF=v0.3.1`, and a 2025-06 report
//!   of the official image logs "Using FlashInfer for top-p & top-k sampling"
//!   (flashinfer-ai/flashinfer issue #1180);
//! - a pip wheel does not require it up to 0.11.0 (vLLM wheels' `METADATA`: no `flashinfer-python`
//!   in 0.8.0 – 0.10.0; only the `flashinfer` extra, `vllm[flashinfer]`, in 0.10.1 – 0.11.0), and
//!   requires it from 0.11.1 (`flashinfer-python==0.5.2` in 0.11.1, 0.6.6 in 0.19.0).
//!
//! A pip install to which `flashinfer-python` (or the `vllm[flashinfer]` extra) was added behaves
//! as `"docker"`. SGLang has no such key (its sampler is not modelled by install): refused.

use super::{EngineKind, ScenarioError};

/// How vLLM was installed (`engine.install`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum VllmInstall {
    /// `pip install vllm==X` (no extras): FlashInfer present only where the wheel requires it
    /// (0.11.1 on).
    #[default]
    Pip,
    /// The `vllm/vllm-openai` image: FlashInfer always present.
    Docker,
}

impl VllmInstall {
    /// The key's spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            VllmInstall::Pip => "pip",
            VllmInstall::Docker => "docker",
        }
    }

    /// Whether `flashinfer.sampling` imports in vLLM release `[major, minor, patch]`: always in the
    /// image; from a plain pip install only once the wheel requires `flashinfer-python` (0.11.1).
    pub fn has_flashinfer(self, release: [u64; 3]) -> bool {
        self == VllmInstall::Docker || release >= [0, 11, 1]
    }
}

/// `engine.install` checked: `"pip"` or `"docker"`, vLLM only; `None` when not given (pip).
pub(super) fn resolve(
    kind: EngineKind,
    given: Option<&str>,
    invalid: impl Fn(&str, String) -> ScenarioError,
) -> Result<Option<VllmInstall>, ScenarioError> {
    let Some(v) = given else { return Ok(None) };
    if kind != EngineKind::Vllm {
        return Err(invalid(
            "engine.install",
            "vLLM's install kind (pip wheel or vllm/vllm-openai image); not a key for SGLang".to_string(),
        ));
    }
    match v {
        "pip" => Ok(Some(VllmInstall::Pip)),
        "docker" => Ok(Some(VllmInstall::Docker)),
        _ => Err(invalid(
            "engine.install",
            format!(
                "`{v}` is not an install kind: expected \"pip\" (pip install vllm) or \"docker\" (the \
                 vllm/vllm-openai image)"
            ),
        )),
    }
}

/// `tpsim engine-args`: how to reproduce the install of vLLM release `version` (`engine.install`
/// given), one note; a pip install of 0.9.0 – 0.11.0 must lack FlashInfer (or set
/// `VLLM_USE_FLASHINFER_SAMPLER=0`) for its sampler to be the one simulated.
pub fn engine_args_note(install: VllmInstall, version: &str) -> String {
    match install {
        VllmInstall::Docker => format!(
            "engine.install = docker: run the command in the vllm/vllm-openai:v{version} image (it ships \
             FlashInfer)"
        ),
        VllmInstall::Pip => format!(
            "engine.install = pip: pip install vllm=={version} without flashinfer-python (vLLM 0.9.0–0.11.0 \
             sample through FlashInfer when it is installed: set VLLM_USE_FLASHINFER_SAMPLER=0 if it is)"
        ),
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

    #[test]
    fn values_and_flashinfer_by_release() {
        assert_eq!(resolve(EngineKind::Vllm, None, err).unwrap(), None);
        assert_eq!(
            resolve(EngineKind::Vllm, Some("docker"), err).unwrap(),
            Some(VllmInstall::Docker)
        );
        assert!(resolve(EngineKind::Vllm, Some("conda"), err).is_err());
        assert!(resolve(EngineKind::Sglang, Some("pip"), err).is_err());
        // The wheel's METADATA: flashinfer-python an extra in 0.11.0, required in 0.11.1.
        assert!(!VllmInstall::Pip.has_flashinfer([0, 11, 0]));
        assert!(VllmInstall::Pip.has_flashinfer([0, 11, 1]));
        assert!(VllmInstall::Docker.has_flashinfer([0, 9, 0]));
    }
}
