//! hybpage53 (issue #18): the torch peak of vLLM's multimodal encoder profile for the Qwen3-VL
//! vision tower (Qwen3-VL, the dense Qwen3.5 and its MoE siblings), which can exceed the decoder's
//! dummy pass and then sets `torch_peak_increase`.
//!
//! vLLM `v1/worker/gpu_model_runner.py` `profile_run` (read in the 0.11.0, 0.19.0, 0.25.1 and 0.28.0
//! wheels) first runs the encoder on a dummy batch of the modality with the most tokens, one item of
//! "the maximum feature size" while the encoder budget holds only one ("Encoder cache will be
//! initialized with a budget of %s tokens, and profiled with %s %s items of the maximum feature
//! size"), and only then the decoder's `_dummy_run`. The encoder forward's own peak was not in
//! tpsim's plan (only what it leaves alive, `vllm_startup::encoder_profile_bytes`).
//!
//! The Qwen3-VL tower (`model_executor/models/qwen3_vl.py`, the same code in the four wheels):
//! - the dummy pixels, cast to the model dtype by the processor (`multimodal/processing`
//!   `_postprocess_output`: floating tensors `.to(dtype=model_config.dtype)`), held by the batch
//!   for the whole forward: `patches × 3 × temporal_patch × patch²` elements;
//! - the learned position embeddings of every patch (`prepare_encoder_metadata` → `pos_embeds`),
//!   held in the metadata dict for the whole forward: `patches × hidden`;
//! - the widest moment of a block, its MLP: `Qwen3_VisionBlock.forward` computes
//!   `x + self.mlp(self.norm2(x))`, so `x` and `norm2(x)` are alive while
//!   `Qwen3_VisionMLP.forward` runs `linear_fc2(act_fn(linear_fc1(x)))`, whose fc1 output is alive
//!   while the activation allocates its output: `2 × hidden + 2 × intermediate / tp` per patch
//!   (`linear_fc1` is a `ColumnParallelLinear`, sharded unless `mm_encoder_tp_mode` is "data").
//!   The attention moment (`x`, `norm1(x)`, the qkv output `3 × hidden / tp`, the rotated q and k,
//!   the output) is `2 × hidden + 6 × hidden / tp`, narrower for Qwen3-VL's 1152 / 4304 tower.
//!
//! Not counted (approximate, below 2 % of the sum for Qwen3.5-9B): the rotary cos/sin tables
//! (`patches × head_dim / 2` each), `cu_seqlens`, the attention kernel's own workspace.

/// Tokens of the largest image Qwen3-VL-family processors accept: `size.longest_edge` 16,777,216
/// pixels ÷ (16-pixel patches × 2 spatial merge)² = 16,384, the budget vLLM logs for this family
/// ("Encoder cache will be initialized with a budget of 16384 tokens, and profiled with 1 image
/// items of the maximum feature size": github.com/noonghunna/club-3090 issues #107 (Qwen3.6-27B,
/// 2× RTX 3090), #120 and #1047 (Qwen3.x-27B, vLLM 0.2x)). The Qwen3.5-9B checkpoint's own
/// `preprocessor_config.json` was not read: the family's figure is assumed.
pub const QWEN3_VIT_MAX_IMAGE_TOKENS: u64 = 16_384;

/// The Qwen3-VL tower's shape as the profile peak needs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VitShape {
    /// Tokens of the dummy image after the 2×2 merger.
    pub tokens: u64,
    /// Patches merged into one token (`spatial_merge_size²`, 4).
    pub merge: u64,
    /// Values per patch: 3 channels × `temporal_patch_size` × `patch_size²`.
    pub patch_values: u64,
    /// Encoder width (`vision_config.hidden_size`).
    pub hidden: u64,
    /// Encoder MLP width (`vision_config.intermediate_size`).
    pub intermediate: u64,
    /// Tensor-parallel ranks the MLP is sharded over.
    pub tp: u64,
    /// Bytes per element of the model dtype.
    pub dtype_bytes: u64,
}

/// Bytes alive at the Qwen3-VL encoder forward's widest moment during vLLM's profile run (module
/// doc): `patches × dtype × (patch_values + hidden + 2 × hidden + 2 × intermediate / tp)`.
/// Qwen3.5-9B at tp 1, bf16: 65,536 patches × 2 B × (1,536 + 1,152 + 2,304 + 8,608) =
/// 1,782,579,200 B (1.660 GiB).
pub fn qwen3_vit_forward_peak_bytes(v: &VitShape) -> u64 {
    let patches = v.tokens.saturating_mul(v.merge);
    let per_patch = v.patch_values + 3 * v.hidden + 2 * (v.intermediate / v.tp.max(1));
    patches.saturating_mul(per_patch).saturating_mul(v.dtype_bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn qwen35_9b(tp: u64) -> VitShape {
        // Qwen3.5-9B `vision_config`: hidden 1152, intermediate 4304, patch 16, temporal 2, merge 2.
        VitShape {
            tokens: QWEN3_VIT_MAX_IMAGE_TOKENS,
            merge: 4,
            patch_values: 3 * 2 * 16 * 16,
            hidden: 1152,
            intermediate: 4304,
            tp,
            dtype_bytes: 2,
        }
    }

    #[test]
    fn qwen35_9b_peak_by_hand() {
        // 16,384 tokens × 4 = 65,536 patches; per patch 1,536 + 1,152 + 2 × 1,152 + 2 × 4,304 =
        // 13,600 values; × 2 B = 1,782,579,200 B.
        assert_eq!(qwen3_vit_forward_peak_bytes(&qwen35_9b(1)), 1_782_579_200);
        // tp 2: the MLP halves, 1,536 + 3,456 + 4,304 = 9,296 values a patch: 1,218,445,312 B.
        assert_eq!(qwen3_vit_forward_peak_bytes(&qwen35_9b(2)), 1_218_445_312);
    }

    #[test]
    fn the_mlp_moment_is_wider_than_the_attention_moment() {
        // The module's claim for this tower: 2H + 2I/tp ≥ 2H + 6H/tp ⇔ I ≥ 3H (4,304 ≥ 3,456).
        let v = qwen35_9b(1);
        assert!(2 * v.intermediate >= 6 * v.hidden);
    }
}
