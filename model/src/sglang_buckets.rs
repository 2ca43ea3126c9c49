//! sglmem54 (issue #17): SGLang's per-card defaults of `chunked_prefill_size` and the decode
//! `cuda_graph_max_bs` by release, read in the PyPI wheels (`sglang/srt/server_args.py`
//! `_handle_gpu_memory_settings` to 0.5.18, `sglang/srt/arg_groups/memory_hook.py`
//! `handle_gpu_memory_settings` from 0.5.19):
//!
//! | release          | 20 – 35 GiB cards (RTX 3090 / 4090 / 5090, A10)   | decode `max_bs` default           |
//! |------------------|---------------------------------------------------|-----------------------------------|
//! | to 0.5.19        | chunk 2048, max_bs 24 (80 at tp ≥ 4)              | the card's                        |
//! | 0.5.20, 0.5.21   | chunk 4096, max_bs 48 (160 at tp ≥ 4)             | the card's                        |
//! | 0.5.22, 0.5.23   | as 0.5.20                                         | capped at `--max-running-requests` |
//!
//! 0.5.20's comment: 32 GB Blackwell cards hold decode graphs well past 24 and the old cap forced eager
//! decode at 32 and more. The other buckets are unchanged 0.5.9 – 0.5.23 ([`crate::memory::late_2025_buckets`]).
//! The cap (0.5.22 `memory_hook.py`): when neither `--cuda-graph-max-bs` nor `--cuda-graph-bs` is given
//! and the user's `--max-running-requests` is below the card's default, the default becomes it — the
//! reserve's 2 × max_bs term, DP attention's term and the generated capture list follow. EAGLE's
//! 48-request default is set later (`speculative_hook.py`, run after `handle_gpu_memory_settings` in
//! `pipeline.py`), so it does not cap. Earlier releases still capture no size above the request pool
//! (`runner/base_cuda_graph_runner.py` `get_batch_sizes_to_capture` clamps to `req_to_token_pool.size`)
//! but reserve for the uncapped default. Not modelled: 0.5.20+'s raise of the default to
//! `--max-running-requests` (≤ 512) for Qwen3-VL on SM 9.0 cards of 60 GiB or more
//! (`arg_groups/model_overrides/qwen3_vl.py` `expand_multimodal_decode_graph_to_running_limit`).

use crate::sglang_fraction_early::release_post;

/// Which per-card table a release uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BucketTable {
    /// 0.5.9 – 0.5.19 (and every scenario without a release: tpsim's current SGLang is 0.5.9).
    Late2025,
    /// 0.5.20 on: the 20 – 35 GiB bucket raised to chunk 4096, max_bs 48 / 160.
    Consumer2026,
}

/// The table of `version` (an SGLang release): [`BucketTable::Consumer2026`] from 0.5.20 (read to
/// 0.5.23; tpsim places no later 0.5.x release).
pub fn bucket_table(version: &str) -> BucketTable {
    match release_post(version) {
        Some((0, 5, p, _)) if p >= 20 => BucketTable::Consumer2026,
        _ => BucketTable::Late2025,
    }
}

/// Whether the release caps the default decode `max_bs` at the user's `--max-running-requests`
/// (0.5.22 `memory_hook.py` `handle_gpu_memory_settings`).
pub fn caps_max_bs_at_running(version: &str) -> bool {
    matches!(release_post(version), Some((0, 5, p, _)) if p >= 22)
}

/// The release's (chunked_prefill_size, decode cuda_graph_max_bs) defaults for a card of
/// `gpu_mem_mib` (nvidia-smi's MiB) at `tp`.
pub fn sglang_buckets(gpu_mem_mib: u64, tp: u32, table: BucketTable) -> (f64, f64) {
    let gib = gpu_mem_mib as f64 / 1024.0;
    match table {
        // 0.5.20 `memory_hook.py`: `gpu_mem < 35 * 1024` (after `< 20 * 1024`): 4096, 48 / 160.
        BucketTable::Consumer2026 if (20.0..35.0).contains(&gib) => {
            (4096.0, if tp >= 4 { 160.0 } else { 48.0 })
        }
        _ => crate::memory::late_2025_buckets(gpu_mem_mib, tp),
    }
}

/// The decode `cuda_graph_max_bs` the release settles on when the user gives neither
/// `--cuda-graph-max-bs` nor `--cuda-graph-bs`: the card's default, capped at `max_running_requests`
/// from 0.5.22. `Some` only when the cap lowers it (the callers keep `None` for "the card's default").
pub fn capped_default_max_bs(
    version: &str,
    gpu_mem_mib: u64,
    tp: u32,
    max_running_requests: Option<u64>,
) -> Option<u32> {
    let running = max_running_requests.filter(|_| caps_max_bs_at_running(version))?;
    let default = sglang_buckets(gpu_mem_mib, tp, bucket_table(version)).1 as u64;
    (running < default).then(|| running.min(u64::from(u32::MAX)) as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_by_release() {
        assert_eq!(bucket_table("0.5.19"), BucketTable::Late2025);
        assert_eq!(bucket_table("0.5.20"), BucketTable::Consumer2026);
        assert_eq!(bucket_table("0.5.9"), BucketTable::Late2025);
        assert_eq!(bucket_table("0.4.10"), BucketTable::Late2025);
        // RTX 5090: 32,607 MiB (31.8 GiB), in the 20 – 35 GiB bucket.
        assert_eq!(sglang_buckets(32_607, 4, BucketTable::Late2025), (2048.0, 80.0));
        assert_eq!(
            sglang_buckets(32_607, 4, BucketTable::Consumer2026),
            (4096.0, 160.0)
        );
        assert_eq!(
            sglang_buckets(24_564, 1, BucketTable::Consumer2026),
            (4096.0, 48.0)
        );
        // Other buckets unchanged: 16 GiB (2048 / 8), 80 GiB (8192 / 512 at tp 8).
        assert_eq!(
            sglang_buckets(16_376, 1, BucketTable::Consumer2026),
            (2048.0, 8.0)
        );
        assert_eq!(
            sglang_buckets(81_559, 8, BucketTable::Consumer2026),
            (8192.0, 512.0)
        );
    }

    #[test]
    fn cap_from_0_5_22() {
        // 4 × RTX 5090, --max-running-requests 64: 0.5.21 keeps 160, 0.5.22 caps to 64.
        assert_eq!(capped_default_max_bs("0.5.21", 32_607, 4, Some(64)), None);
        assert_eq!(capped_default_max_bs("0.5.22", 32_607, 4, Some(64)), Some(64));
        // Above the default (200 > 160) or unset: no cap.
        assert_eq!(capped_default_max_bs("0.5.23", 32_607, 4, Some(200)), None);
        assert_eq!(capped_default_max_bs("0.5.23", 32_607, 4, None), None);
    }
}
