//! Issue #18: a user's `chunked_prefill_size` / `max_prefill_tokens` in SGLang's default
//! `mem_fraction_static`. SGLang 0.5.5–0.5.9 `server_args.py` `_handle_gpu_memory_settings` fills
//! `chunked_prefill_size` from the GPU-memory bucket only when the user gave none, then reserves
//! 1.5 MiB per token of max(chunked_prefill_size, 2048) for prefill activations — or of
//! max(max_prefill_tokens, 2048) when chunking is off (`chunked_prefill_size` ≤ 0) — and sets
//! `piecewise_cuda_graph_max_tokens` to the same chunk size (2048 for MLA models). tpsim's fraction
//! rule (`tpsim_model::memory::sglang_default_fraction`) uses the bucket's size; this module gives
//! the difference the user's settings make.

use tpsim_model::sglang_buckets::{BucketTable, sglang_buckets};

/// SGLang 0.5.9 `server_args.py`: the default `max_prefill_tokens`.
const MAX_PREFILL_TOKENS: f64 = 16384.0;
/// `_handle_gpu_memory_settings`: activations are sized for at least this many tokens.
const MIN_ACTIVATION_TOKENS: f64 = 2048.0;
/// `_handle_gpu_memory_settings`: MiB reserved per prefill token.
const MIB_PER_TOKEN: f64 = 1.5;

/// The chunk size SGLang works with: the user's (`Some(n)`, n ≤ 0 meaning off → `None`) or the
/// bucket's for this GPU and tp in the release's table (sglmem54: `tpsim_model::sglang_buckets`).
pub(super) fn effective_chunk(
    user: Option<i64>,
    gpu_mem_mib: u64,
    tp: u32,
    table: BucketTable,
) -> Option<u64> {
    match user {
        Some(n) if n <= 0 => None,
        Some(n) => Some(n as u64),
        None => Some(sglang_buckets(gpu_mem_mib, tp, table).0 as u64),
    }
}

/// MiB to add to the bucket-based reserve for the user's chunk settings (negative when the user's
/// chunk is smaller than the bucket's; 0 when the user set neither).
pub(super) fn activation_reserve_delta_mib(
    user_chunk: Option<i64>,
    user_max_prefill: Option<u64>,
    gpu_mem_mib: u64,
    tp: u32,
    table: BucketTable,
) -> f64 {
    if user_chunk.is_none() {
        return 0.0;
    }
    let bucket = sglang_buckets(gpu_mem_mib, tp, table).0;
    let tokens = match effective_chunk(user_chunk, gpu_mem_mib, tp, table) {
        Some(c) => c as f64,
        None => user_max_prefill.map_or(MAX_PREFILL_TOKENS, |m| m as f64),
    };
    MIB_PER_TOKEN * (tokens.max(MIN_ACTIVATION_TOKENS) - bucket.max(MIN_ACTIVATION_TOKENS))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sums of multiples of 0.5 MiB: exact in f64.
    fn eq(a: f64, b: f64) {
        assert!((a - b).abs() < 1e-9, "{a} vs {b}");
    }

    #[test]
    fn deltas_against_the_bucket() {
        // 80 GiB card (81,559 MiB), tp 1: bucket 8192 (`late_2025_buckets`).
        let h100 = 81_559;
        const L: BucketTable = BucketTable::Late2025;
        eq(activation_reserve_delta_mib(None, Some(4096), h100, 1, L), 0.0);
        // 16384: 1.5 × (16384 − 8192) = 12,288 MiB more.
        eq(
            activation_reserve_delta_mib(Some(16384), None, h100, 1, L),
            12_288.0,
        );
        // 512: max(512, 2048) = 2048 → 1.5 × (2048 − 8192) = −9,216 MiB.
        eq(
            activation_reserve_delta_mib(Some(512), None, h100, 1, L),
            -9_216.0,
        );
        // −1 (off): max_prefill_tokens 16384 by default → +12,288; 4096 given → −6,144.
        eq(activation_reserve_delta_mib(Some(-1), None, h100, 1, L), 12_288.0);
        eq(
            activation_reserve_delta_mib(Some(-1), Some(4096), h100, 1, L),
            -6_144.0,
        );
        assert_eq!(effective_chunk(Some(-1), h100, 1, L), None);
        assert_eq!(effective_chunk(None, h100, 1, L), Some(8192));
        // sglmem54: an RTX 5090 (32,607 MiB) at tp 4 under 0.5.20's table: bucket 4096 (2048 before),
        // so a user's 2048 reserves 1.5 × (2048 − 4096) = −3,072 MiB against it, 0 against 0.5.19's.
        let c = BucketTable::Consumer2026;
        assert_eq!(effective_chunk(None, 32_607, 4, c), Some(4096));
        eq(
            activation_reserve_delta_mib(Some(2048), None, 32_607, 4, c),
            -3_072.0,
        );
        eq(activation_reserve_delta_mib(Some(2048), None, 32_607, 4, L), 0.0);
    }
}
