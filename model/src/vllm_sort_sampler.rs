//! vrows3 (issue #17 point 5): the dummy sampler of vLLM releases whose top-k/top-p filter sorts the
//! logits (vLLM 0.11.0 and 0.12.0 `v1/sample/ops/topk_topp_sampler.py` `apply_top_k_top_p`, the
//! PyTorch-native path; 0.12.0 also takes FlashInfer only on `VLLM_USE_FLASHINFER_SAMPLER=1`). vLLM
//! 0.19.0 filters in place with a Triton kernel instead ([`crate::vllm_startup::sampler_peak_bytes`]).
//!
//! The dummy sampler run (`gpu_model_runner.py` `_dummy_sampler_run`: top-k = vocab − 1, top-p =
//! 0.9, temperature 0.5) reaches its peak inside `logits.sort(dim=-1)` on the float32 logits
//! (`Sampler.forward` casts them first). Alive at that moment, per logit (`R × vocab` elements):
//! - the model-dtype logits held by `_dummy_sampler_run` and their float32 copy (a float32 model's
//!   `.to(float32)` is the same tensor: 4 in all);
//! - `sort`'s outputs: sorted values (4) and int64 indices (8);
//! - PyTorch's CUDA sort for ≥ 128 rows shorter than 10⁶ (`aten/src/ATen/native/cuda/SortStable.cu`
//!   `launch_stable_sort_kernel` → `segmented_sort_pairs`): an int64 `reverse_indices` input (8), and
//!   cub's `DeviceSegmentedRadixSort::SortPairs` temporary storage, which holds a third keys buffer
//!   (4) and a third values buffer (8) when the caller's buffers may not be overwritten (cub
//!   `dispatch_radix_sort.cuh` `DispatchSegmentedRadixSort`: `is_overwrite_okay` false).
//!
//! 2 + 4 + 4 + 8 + 8 + 4 + 8 = 38 B per logit with 16-bit logits. The rest of the filter (two bool
//! masks, the softmax of the sorted values, the out-of-place `scatter`) and the sampling that follows
//! peak lower once the sort's buffers are freed (≤ 28 B per logit).
//!
//! Checked against llm-d-benchmark `config_explorer/empirical-vllm-memory-results.md` (vLLM ~0.11,
//! H100, 8,192 tokens / 1,024 sequences): its peak activations 4.76 (Llama-3.1-8B), 4.84
//! (Llama-3.3-70B FP8, tp 1 and tp 2), 5.56 (Qwen3-0.6B), 5.64 (Qwen3-32B) and 7.38 GiB (gpt-oss-20b)
//! are this rule to ≤ 0.01 GiB (tests/tests/vllm_sort_sampler.rs). installkind: that document's
//! recipe (llm-d-benchmark PR 622, commit 0282dcf6, 2026-01-27) runs `vllm/vllm-openai:latest`, which
//! ships FlashInfer, with no `VLLM_USE_FLASHINFER_SAMPLER` in the pod's environment: a sorting peak
//! there means an image of 0.11.1 or later (opt-in FlashInfer sampler), not 0.11.0, whose image
//! samples through FlashInfer ([`crate::vllm_flashinfer_sampler`]; 1.8 GiB for Llama-3.1-8B, not 4.76).

use crate::units::Bytes;
use crate::vllm_startup::{ProfileShape, StartupParams, forward_peak_bytes};

/// Bytes per logit element beside the model-dtype logits while `sort` runs: the float32 copy (4,
/// absent for a float32 model), sorted values 4, sorted indices 8, `reverse_indices` 8, cub's third
/// keys 4 and values 8 buffers.
pub fn sort_bytes_per_logit(dtype_bytes: u64) -> u64 {
    let f32_copy = if dtype_bytes == 4 { 0 } else { 4 };
    f32_copy + 4 + 8 + 8 + 4 + 8
}

/// The dummy sampler's peak under the sorting filter: the forward pass's `hidden_states` and the
/// gathered last states with their `rand_like` replacement (`(T + 2R) × hidden`, as in 0.19), plus
/// `R × vocab × (dtype + sort_bytes_per_logit)`. No Triton scratch buffer (0.11/0.12 have none).
pub fn sort_sampler_peak_bytes(s: &ProfileShape) -> u64 {
    dummy_sampler_peak_bytes(s, sort_bytes_per_logit(s.dtype_bytes))
}

/// The dummy sampler's peak for a filter that keeps `bytes_per_logit` bytes per logit beside the
/// model-dtype logits: `(T + 2R) × hidden` of hidden states plus `R × vocab × (dtype + bytes_per_logit)`
/// (shared by the sorting and the FlashInfer rules, which differ only in that figure).
pub(crate) fn dummy_sampler_peak_bytes(s: &ProfileShape, bytes_per_logit: u64) -> u64 {
    let reqs = s.max_num_seqs.min(s.max_num_batched_tokens);
    let hidden_states = (s.max_num_batched_tokens + 2 * reqs) * s.hidden * s.dtype_bytes;
    hidden_states + reqs * s.vocab * (s.dtype_bytes + bytes_per_logit)
}

/// [`crate::vllm_startup::peak_activation`] with the sorting sampler: the larger of the forward pass
/// and [`sort_sampler_peak_bytes`], plus what stays allocated through both (encoder leftovers,
/// fused-MoE workspace, cuBLAS workspace) and the preset's `activation_base_gib`.
pub fn peak_activation_sorting(p: &StartupParams, s: &ProfileShape) -> Bytes {
    peak_activation_with_sampler(p, s, sort_sampler_peak_bytes(s))
}

/// The profile run's peak for a given dummy-sampler peak: the larger of the forward pass and
/// `sampler_peak`, plus what stays allocated through both and the preset's `activation_base_gib`.
pub(crate) fn peak_activation_with_sampler(p: &StartupParams, s: &ProfileShape, sampler_peak: u64) -> Bytes {
    let peak = forward_peak_bytes(s).max(sampler_peak);
    let kept = s.encoder_bytes + s.moe_workspace + s.cublas_workspace;
    Bytes(((peak + kept) as f64 + p.activation_base_gib * (1u64 << 30) as f64).round() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(hidden: u64, vocab: u64, dtype: u64) -> ProfileShape {
        ProfileShape {
            max_num_batched_tokens: 8_192,
            max_num_seqs: 1_024,
            hidden,
            mlp_intermediate: 0,
            mlp_gated: true,
            vocab,
            dtype_bytes: dtype,
            sm_count: 132,
            encoder_bytes: 0,
            moe_workspace: 0,
            cublas_workspace: 0,
        }
    }

    #[test]
    fn thirty_eight_bytes_per_logit_in_bf16() {
        assert_eq!(2 + sort_bytes_per_logit(2), 38);
        // float32: `.to(float32)` aliases: 4 + 32.
        assert_eq!(4 + sort_bytes_per_logit(4), 36);
        // Llama-3.1-8B: (8192 + 2048) × 4096 × 2 = 83,886,080 + 1024 × 128,256 × 38 = 4,990,697,472
        // → 5,074,583,552 B.
        assert_eq!(sort_sampler_peak_bytes(&shape(4_096, 128_256, 2)), 5_074_583_552);
    }
}
