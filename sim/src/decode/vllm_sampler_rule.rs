//! vrows3 (issue #17 point 5), installkind: which dummy-sampler rule vLLM's profile run follows, by
//! the release simulated (`crate::engine_release`: `engine.version`, else 0.19.0) and the install
//! (`engine.install`, `scenario::vllm_install`). Read in the PyPI wheels'
//! `v1/sample/ops/topk_topp_sampler.py` and `envs.py`:
//!
//! - 0.9.0 – 0.11.0 on CUDA: FlashInfer's sampler whenever `flashinfer.sampling` imports (≥ 0.2.3)
//!   and `VLLM_USE_FLASHINFER_SAMPLER` is unset (`None`, read as on) — no sort
//!   (`tpsim_model::vllm_flashinfer_sampler`, 14 B per logit). FlashInfer is in the
//!   vllm/vllm-openai image but not a plain pip install of these releases, hence `engine.install`.
//! - 0.8.x: FlashInfer only below 0.2.3 (`flashinfer_version >= "0.2.3"` falls back to the native
//!   filter); 0.11.1 – 0.20: only on `VLLM_USE_FLASHINFER_SAMPLER=1` ("Users must opt in
//!   explicitly"). Without it the PyTorch-native filter runs: through 0.12.0 (read) it sorts the
//!   logits (`tpsim_model::vllm_sort_sampler`, 38 B per logit), checked against the llm-d H100
//!   start-ups (tests/tests/vllm_sort_sampler.rs), which ran `vllm/vllm-openai:latest` (so FlashInfer
//!   present) without the variable: consistent with an image of 0.11.1 or later, where the sampler
//!   is opt-in.
//! - 0.19.0: the Triton top-k/top-p kernel filters in place
//!   (`tpsim_model::vllm_startup::sampler_peak_bytes`), checked against the 0.19.0 rows of
//!   engine-memory.tsv, so also a scenario without `engine.version`.
//! - Releases in between: 0.19.0's rule with a note (the native filter is the same code through
//!   0.16.0 and the Triton path appears in 0.17.0, but the peaks of 0.13 – 0.18 are not checked).
//! - ROCm: the FlashInfer branch is CUDA-only (`current_platform.is_cuda()`); the native rules apply.

use crate::engine_args_versions::release;
use crate::scenario::accel::GpuVendor;
use crate::scenario::{EngineKind, Scenario};

/// The newest release read with the sorting filter.
const LAST_SORTING: [u64; 2] = [0, 12];
/// The release the in-place rule was read at.
const FIRST_READ_IN_PLACE: [u64; 2] = [0, 19];
/// The releases whose sampler takes FlashInfer by default when it imports (0.9.0 – 0.11.0).
const FLASHINFER_BY_DEFAULT: [[u64; 3]; 2] = [[0, 9, 0], [0, 11, 0]];

/// The profile run's dummy-sampler rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum SamplerRule {
    /// The PyTorch-native filter sorts the logits (vLLM ≤ 0.12 without FlashInfer's sampler).
    Sort,
    /// FlashInfer's `top_k_top_p_sampling_from_logits` (vLLM 0.9.0 – 0.11.0 with FlashInfer).
    FlashInfer,
    /// vLLM 0.19.0's Triton filter, in place.
    InPlace,
}

/// The scenario's vLLM release as (major, minor, patch), if readable.
fn version(s: &Scenario) -> Option<[u64; 3]> {
    if s.engine.kind != EngineKind::Vllm {
        return None;
    }
    let r = release(&s.engine.release().version)?;
    let at = |i: usize| r.get(i).copied().unwrap_or(0);
    Some([at(0), at(1), at(2)])
}

/// The rule of the scenario's release and install (module doc).
pub(super) fn rule(s: &Scenario) -> SamplerRule {
    let Some(v) = version(s) else {
        return SamplerRule::InPlace;
    };
    let install = s.engine.install.unwrap_or_default();
    let cuda = s.hardware.accel.vendor == GpuVendor::Nvidia;
    let [first, last] = FLASHINFER_BY_DEFAULT;
    if cuda && v >= first && v <= last && install.has_flashinfer(v) {
        SamplerRule::FlashInfer
    } else if [v[0], v[1]] <= LAST_SORTING {
        SamplerRule::Sort
    } else {
        SamplerRule::InPlace
    }
}

/// A note for releases between the two read (0.13 … 0.18): the rule applied is 0.19.0's.
pub(super) fn note(s: &Scenario) -> Option<String> {
    let [a, b, _] = version(s)?;
    let v = [a, b];
    (v > LAST_SORTING && v < FIRST_READ_IN_PLACE).then(|| {
        format!(
            "vLLM {}: the profile run's dummy sampler is modelled as 0.19.0's (in-place Triton top-k/top-p); \
             0.12.0 still sorted the logits (38 B per logit instead of 14) — releases 0.13–0.18 are not read",
            s.engine.release().version
        )
    })
}
