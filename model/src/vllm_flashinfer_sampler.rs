//! installkind (issues #17 point 5, #18): the dummy sampler of vLLM releases that take FlashInfer's
//! top-k/top-p sampler, which filters without sorting.
//!
//! vLLM 0.9.0 – 0.11.0 `v1/sample/ops/topk_topp_sampler.py` (read in the PyPI wheels):
//! `TopKTopPSampler.__init__` picks `forward_cuda` on CUDA when `flashinfer.sampling` imports, its
//! version is ≥ 0.2.3 and `VLLM_USE_FLASHINFER_SAMPLER` is not `0` (`envs.py`: unset = `None`,
//! which the V1 sampler reads as on). The profile run's `_dummy_sampler_run` passes top-k =
//! vocab − 1, top-p = 0.9 and `generators={}`, so `forward_cuda` calls `flashinfer_sample` →
//! `flashinfer.sampling.top_k_top_p_sampling_from_logits(logits, k, p, deterministic=True)`.
//! In FlashInfer 0.3.1 (`flashinfer/sampling.py`, the image's `FLASHINFER_GIT_REF` of vLLM 0.11.0;
//! default `filter_apply_order="top_k_first"`) that is `masked_logits = top_k_mask_logits(logits,
//! top_k)` (`torch.empty_like(logits)` filled by the kernel, no other allocation), `probs =
//! torch.softmax(masked_logits)`, then `top_p_sampling_from_probs` (an int32 per request).
//! Alive at the peak, per logit (`R × vocab` elements):
//! - the model-dtype logits held by `_dummy_sampler_run` and their float32 copy (`Sampler.forward`
//!   `logits.to(torch.float32)`; the same tensor for a float32 model);
//! - `masked_logits` (4) and `probs` (4), both float32.
//!
//! 2 + 4 + 4 + 4 = 14 B per logit with 16-bit logits, against 38 B when the logits are sorted
//! ([`crate::vllm_sort_sampler`]). vLLM 0.8.x takes FlashInfer only below 0.2.3 and 0.11.1 – 0.20
//! only on `VLLM_USE_FLASHINFER_SAMPLER=1`: which rule applies is `tpsim::decode`'s choice.
//! vllmsampler: the FlashInfer releases vLLM 0.11.1 – 0.21.0 pin (0.5.2 … 0.6.8.post1,
//! `flashinfer/sampling.py`) keep the same two buffers; from 0.6.1 `top_k_mask_logits` also caches
//! a 1 MiB `row_states` buffer, not counted here.

use crate::units::Bytes;
use crate::vllm_sort_sampler::{dummy_sampler_peak_bytes, peak_activation_with_sampler};
use crate::vllm_startup::{ProfileShape, StartupParams, peak_activation};

/// float32 bytes per logit element beside the model-dtype logits while FlashInfer samples: the
/// float32 copy (4, absent for a float32 model), `masked_logits` 4 and `probs` 4.
pub fn flashinfer_bytes_per_logit(dtype_bytes: u64) -> u64 {
    let f32_copy = if dtype_bytes == 4 { 0 } else { 4 };
    f32_copy + 4 + 4
}

/// The dummy sampler's peak through FlashInfer: the forward pass's `hidden_states` and the gathered
/// last states with their `rand_like` replacement (`(T + 2R) × hidden`, as for the sorting rule),
/// plus `R × vocab × (dtype + flashinfer_bytes_per_logit)`. No Triton scratch buffer.
pub fn flashinfer_sampler_peak_bytes(s: &ProfileShape) -> u64 {
    dummy_sampler_peak_bytes(s, flashinfer_bytes_per_logit(s.dtype_bytes))
}

/// [`crate::vllm_startup::peak_activation`] with FlashInfer's sampler: the larger of the forward
/// pass and [`flashinfer_sampler_peak_bytes`], plus what stays allocated through both (encoder
/// leftovers, fused-MoE workspace, cuBLAS workspace) and the preset's `activation_base_gib`.
pub fn peak_activation_flashinfer(p: &StartupParams, s: &ProfileShape) -> Bytes {
    peak_activation_with_sampler(p, s, flashinfer_sampler_peak_bytes(s))
}

/// vllmsampler: vLLM 0.21.0 on, FlashInfer's sampler in use: `_dummy_sampler_run` samples once
/// through FlashInfer, then again with a seeded generator through `forward_native` (the in-place
/// Triton filter, [`crate::vllm_startup::peak_activation`]) on the same logits, the first call's
/// buffers freed: the larger of the two peaks.
pub fn peak_activation_flashinfer_then_native(p: &StartupParams, s: &ProfileShape) -> Bytes {
    peak_activation_flashinfer(p, s).max(peak_activation(p, s))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fourteen_bytes_per_logit_in_bf16() {
        assert_eq!(2 + flashinfer_bytes_per_logit(2), 14);
        assert_eq!(4 + flashinfer_bytes_per_logit(4), 12);
        // Llama-3.1-8B at 2,048 tokens / 256 seqs: (2048 + 512) × 4096 × 2 = 20,971,520
        // + 256 × 128,256 × 14 = 459,669,504 → 480,641,024 B.
        let s = ProfileShape {
            max_num_batched_tokens: 2_048,
            max_num_seqs: 256,
            hidden: 4_096,
            mlp_intermediate: 0,
            mlp_gated: true,
            vocab: 128_256,
            dtype_bytes: 2,
            sm_count: 128,
            encoder_bytes: 0,
            moe_workspace: 0,
            cublas_workspace: 0,
        };
        assert_eq!(flashinfer_sampler_peak_bytes(&s), 480_641_024);
    }
}
