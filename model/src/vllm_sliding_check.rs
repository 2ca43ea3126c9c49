//! vLLM's start-up check for a model whose sliding-window layers keep their own KV-cache groups
//! (gpt-oss, Gemma-2/3 under the hybrid KV cache manager): the bytes one request of
//! `max_model_len` tokens needs and the longest request that fits (issue #17, sglogs2).
//!
//! vLLM `v1/core/kv_cache_utils.py` `check_enough_kv_cache_memory` sums each layer's
//! `max_memory_usage_bytes` (`v1/kv_cache_interface.py`, 0.10 – 0.13; from 0.14 by group,
//! `_max_memory_usage_bytes_from_groups`, which counts each type's last group padded to the group
//! size), and names `estimate_max_model_len` (a binary search over `[1, max_model_len]`) when it
//! refuses:
//!
//! - `FullAttentionSpec`: ⌈max_model_len / block_size⌉ pages;
//! - `SlidingWindowSpec`: ⌈min(sliding_window − 1 + max_num_batched_tokens, max_model_len) /
//!   block_size⌉ + 1 pages ("+1 here because the sliding window may not start from the beginning of
//!   the block").
//!
//! A page is `block_size` × the layer's KV bytes per token on this rank.

/// One request's shape at the check, in the units vLLM counts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SlidingCheck {
    /// Full-attention layers counted (from 0.14: padded to whole groups).
    pub full_layers: u64,
    /// Sliding-window layers counted (from 0.14: padded to whole groups).
    pub sliding_layers: u64,
    /// The model's `sliding_window` (tokens).
    pub window: u64,
    /// `--max-num-batched-tokens`.
    pub max_num_batched_tokens: u64,
    /// Tokens per block (`--block-size`).
    pub block_size: u64,
    /// KV bytes per token of one layer on this rank (K and V).
    pub layer_token_bytes: u64,
    /// families39: the tokens a full layer's and a sliding layer's block hold, as multiples of
    /// `block_size`, where vLLM unified two page sizes by raising the smaller page's block size
    /// (`ModelSpec::mimo_v2_vllm_block_mults`); (1, 1) otherwise. `layer_token_bytes` × `block_size`
    /// is then the unified page.
    pub block_mults: (u64, u64),
}

impl SlidingCheck {
    /// Bytes one request of `len` tokens needs (`max_memory_usage_bytes` summed over the layers).
    /// gpt-oss-120b at tp 1 (18 + 18 layers, window 128, 2,048 B per token per layer, block 16),
    /// `--max-num-batched-tokens 1024`, len 131,072: 18 × 8,192 × 32,768 + 18 × (⌈1,151 / 16⌉ + 1)
    /// × 32,768 = 4,831,838,208 + 43,057,152 = 4,874,895,360 B ("4.54 GiB KV cache is needed").
    pub fn needed_bytes(&self, len: u64) -> u64 {
        // Saturating: a block size or length near 2^64 (bad input) needs more than any GPU has,
        // which is the verdict vLLM would give; it must not wrap or panic.
        let bs = self.block_size.max(1);
        let page = bs.saturating_mul(self.layer_token_bytes);
        let (full_bs, sliding_bs) = (
            bs.saturating_mul(self.block_mults.0.max(1)),
            bs.saturating_mul(self.block_mults.1.max(1)),
        );
        let full = self
            .full_layers
            .saturating_mul(len.div_ceil(full_bs))
            .saturating_mul(page);
        let window_tokens = (self.window.saturating_sub(1))
            .saturating_add(self.max_num_batched_tokens)
            .min(len);
        let sliding = self
            .sliding_layers
            .saturating_mul(window_tokens.div_ceil(sliding_bs).saturating_add(1))
            .saturating_mul(page);
        full.saturating_add(sliding)
    }

    /// `estimate_max_model_len`: the longest request in `[1, max_model_len]` whose need fits in
    /// `available` bytes (0 when none does), by vLLM's binary search.
    pub fn estimate_max_model_len(&self, max_model_len: u64, available: u64) -> u64 {
        let (mut lo, mut hi, mut best) = (1u64, max_model_len, 0u64);
        while lo <= hi {
            let mid = lo + (hi - lo) / 2;
            if self.needed_bytes(mid) <= available {
                best = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gpt_oss_120b() -> SlidingCheck {
        SlidingCheck {
            full_layers: 18,
            sliding_layers: 18,
            window: 128,
            max_num_batched_tokens: 1024,
            block_size: 16,
            layer_token_bytes: 8 * 64 * 2 * 2,
            block_mults: (1, 1),
        }
    }

    #[test]
    fn gpt_oss_120b_needs_4_54_gib_at_131072() {
        // vllm-project/vllm#27508 (vLLM ~0.11, one H100, --max-num-batched-tokens 1024): "(4.54 GiB
        // KV cache is needed, which is larger than the available KV cache memory (1.71 GiB)".
        let c = gpt_oss_120b();
        assert_eq!(c.needed_bytes(131_072), 4_831_838_208 + 43_057_152);
        let gib = c.needed_bytes(131_072) as f64 / (1u64 << 30) as f64;
        assert_eq!(format!("{gib:.2}"), "4.54");
        // Short requests: the window part is capped by the length (⌈10 / 16⌉ + 1 = 2 pages).
        assert_eq!(c.needed_bytes(10), 18 * 32_768 + 18 * 2 * 32_768);
    }

    #[test]
    fn estimate_is_the_longest_that_fits() {
        let c = gpt_oss_120b();
        // 1.71 GiB = 1,836,098,519 B: (1,836,098,519 − 43,057,152) / (18 × 32,768 B per block of 16)
        // = 3,039.96 → 3,039 whole blocks = 48,624 tokens fit (48,625 takes a 3,040th block).
        let avail = (1.71 * (1u64 << 30) as f64) as u64;
        let e = c.estimate_max_model_len(131_072, avail);
        assert_eq!(e, 48_624);
        assert!(c.needed_bytes(e) <= avail && c.needed_bytes(e + 1) > avail);
        assert_eq!(c.estimate_max_model_len(131_072, 0), 0);
        assert_eq!(c.estimate_max_model_len(4_096, u64::MAX / 4), 4_096);
    }
}
