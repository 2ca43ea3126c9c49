//! vrows3 (issue #17 point 5), installkind, vllmsampler: which dummy-sampler rule vLLM's profile run
//! follows, by the release simulated (`crate::engine_release`: `engine.version`, else 0.19.0), the
//! install (`engine.install`, `scenario::vllm_install`), the GPU and `VLLM_USE_FLASHINFER_SAMPLER`
//! of `[engine.env]` (`scenario::flashinfer_sampler`: when the V1 sampler takes FlashInfer's path).
//! Read in the PyPI wheels' `v1/sample/ops/topk_topp_sampler.py`, `v1/sample/sampler.py`,
//! `v1/worker/gpu_model_runner.py` `_dummy_sampler_run` and `envs.py` (0.8.0 … 0.34.0):
//!
//! - FlashInfer's sampler (`tpsim_model::vllm_flashinfer_sampler`, 14 B per bf16 logit): 0.9.0 –
//!   0.11.0 when FlashInfer imports (the vllm/vllm-openai image; a pip install lacks it) unless the
//!   variable is 0; 0.11.1 – 0.20 only on a non-zero value. Its `top_k_top_p_sampling_from_logits`
//!   keeps the same two float32 buffers in the FlashInfer each release pins (0.3.1, 0.5.2/0.5.3,
//!   0.6.1 – 0.6.8.post1: `top_k_mask_logits` → `empty_like`, then `softmax`); from 0.6.1 it also
//!   caches a 1 MiB `row_states` buffer, not counted (< 0.001 GiB).
//! - Otherwise the PyTorch-native filter: through 0.16.0 it sorts the logits
//!   (`tpsim_model::vllm_sort_sampler`, 38 B per logit; `apply_top_k_top_p`, `Sampler.forward` and
//!   the dummy run are 0.12.0's through 0.16.0), checked against the llm-d H100 start-ups
//!   (tests/tests/vllm_sort_sampler.rs, `vllm/vllm-openai:latest` of January 2026 without the
//!   variable); from 0.17.0 the Triton top-k/top-p kernel filters batches of 8 or more in place
//!   (`tpsim_model::vllm_startup::sampler_peak_bytes`, the same code through 0.21.0), checked
//!   against the 0.19.0 rows of engine-memory.tsv, so also a scenario without `engine.version`.
//! - 0.21.0 on: FlashInfer by default on a supported GPU, and `_dummy_sampler_run` then samples a
//!   second time with a seeded generator, which FlashInfer does not take: the in-place rule's peak
//!   (the larger) with FlashInfer's sampler in use.
//! - 0.8.x: FlashInfer only below 0.2.3, not placed in any install: the sort.
//! - ROCm: the FlashInfer branch is CUDA-only (`current_platform.is_cuda()`); the native rules apply
//!   (0.12.0's AITER sampler, `forward_hip` with AITER enabled, is not modelled; 0.13.0 disables it).

use crate::scenario::flashinfer_sampler::{self as fi, Outcome, Reading, SamplerInput};
use crate::scenario::{EngineKind, Scenario};

/// The newest release whose native filter sorts the logits: `apply_top_k_top_p` and
/// `Sampler.forward` are 0.12.0's through 0.16.0 (read in the wheels); 0.17.0 adds the Triton
/// filter for batches of 8 or more (`apply_top_k_top_p_triton`).
const LAST_SORTING: [u64; 2] = [0, 16];

/// The profile run's dummy-sampler rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum SamplerRule {
    /// The PyTorch-native filter sorts the logits (vLLM ≤ 0.16 without FlashInfer's sampler).
    Sort,
    /// FlashInfer's `top_k_top_p_sampling_from_logits` (vLLM 0.9.0 – 0.11.0 with FlashInfer, 0.11.1 –
    /// 0.20 on `VLLM_USE_FLASHINFER_SAMPLER=1`).
    FlashInfer,
    /// vLLM 0.17's Triton filter, in place.
    InPlace,
    /// vLLM 0.21 on with FlashInfer's sampler: `_dummy_sampler_run` samples through FlashInfer, then
    /// again with a seeded generator, which takes `forward_native` (the Triton filter) on the same
    /// logits ("Also warm forward_native"): the larger of the two peaks.
    FlashInferThenInPlace,
}

/// The scenario's vLLM release as (major, minor, patch), if readable.
fn version(s: &Scenario) -> Option<[u64; 3]> {
    if s.engine.kind != EngineKind::Vllm {
        return None;
    }
    fi::triple(&s.engine.release().version)
}

/// The rule of the scenario's release, install, GPU and `VLLM_USE_FLASHINFER_SAMPLER` (module doc).
/// The V0 engine's sampler is not the V1 one: the variable is not applied there.
pub(super) fn rule(s: &Scenario) -> SamplerRule {
    let Some(v) = version(s) else {
        return SamplerRule::InPlace;
    };
    let input = SamplerInput {
        release: v,
        install: s.engine.install.unwrap_or_default(),
        vendor: s.hardware.accel.vendor,
        sm: tpsim_model::hw::sm_version(&s.hardware.gpu.compute_capability),
        env: s.engine.flashinfer_sampler_env.filter(|_| s.engine.v0.is_none()),
    };
    let flashinfer = matches!(fi::outcome(&input), Outcome::Sampler { flashinfer: true, .. });
    match (flashinfer, fi::reading(v)) {
        (true, Reading::DefaultOn) => SamplerRule::FlashInferThenInPlace,
        (true, _) => SamplerRule::FlashInfer,
        (false, _) if [v[0], v[1]] <= LAST_SORTING => SamplerRule::Sort,
        (false, _) => SamplerRule::InPlace,
    }
}

/// A note for releases after 0.21, whose rules are 0.21.0's: from 0.22.0 vLLM runs some models on
/// its model runner V2 by default (`config/vllm.py` `DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES`:
/// Qwen3ForCausalLM in 0.22.0, every dense model in 0.25.0), whose dummy sampler is not read.
pub(super) fn note(s: &Scenario) -> Option<String> {
    let v = version(s)?;
    (v >= [0, 22, 0]).then(|| {
        format!(
            "vLLM {}: the profile run's dummy sampler is modelled as 0.21.0's (FlashInfer, then the in-place \
             Triton filter); from 0.22.0 vLLM may run the model on its model runner V2, whose sampler is not read",
            s.engine.release().version
        )
    })
}
