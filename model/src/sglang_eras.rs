//! Issue #17 point 5: SGLang's memory rules changed in two steps that tpsim's single era per version
//! had merged. Read from the released wheels (`python/sglang/srt/...` of each):
//! - the shared speculative pool (target and draft pools both sized `profiled + max_num_reqs ×
//!   (steps × topk + draft_tokens) + 100`, `model_runner.py` `profile_max_num_token` /
//!   `init_memory_pool`, tpsim's "mid-2025" KV rule) is already in 0.4.3.post4, 0.4.4.post1, 0.4.5,
//!   0.4.6.post5, 0.4.7 and 0.4.8; the ~0.4.2 docs build of engine-memory.tsv line 10 still sized the
//!   target pool without it (tpsim's "early-2025" KV rule);
//! - the default `mem_fraction_static` stayed the TP-size table (`server_args.py`
//!   `__post_init__`: tp ≥ 16 → 0.79 … 0.88) through 0.4.7 — with per-release adjustments for
//!   cards above 81,920 MiB from 0.4.5.post3 (`crate::sglang_fraction_early`, vrows3); PR #7054's
//!   per-GPU-memory reserve (tpsim's "mid-2025" fraction) first appears in 0.4.7.post1 (vrows3:
//!   read from that wheel; an earlier reading had 0.4.8) and is in 0.4.8, 0.4.9, 0.4.10, 0.5.0rc0.
//!
//! So the KV era of a version ([`crate::memory::sglang_era_from_version`]) and the era of its default
//! fraction ([`sglang_fraction_era_from_version`]) differ for 0.4.3–0.4.7.
//! The early-2025 fraction era is the plain table (0.4.3.post4's) unless `engine.version` names a
//! release with its own variant (`crate::sglang_fraction_early`: 0.4.5.post3 – 0.4.7).

use crate::memory::{SglangEra, sglang_era_from_version};

/// The era whose default-fraction rule an SGLang version uses: ≤ 0.4.7 the TP-size table
/// (early-2025), 0.4.7.post1 – 0.5.2 PR #7054's reserve (mid-2025), later as
/// [`sglang_era_from_version`].
pub fn sglang_fraction_era_from_version(version: &str) -> Option<SglangEra> {
    let v = version.trim().trim_start_matches(['~', 'v', 'V']);
    let mut parts = v.split('.').map(|p| {
        let digits: String = p.chars().take_while(char::is_ascii_digit).collect();
        digits.parse::<u32>().ok()
    });
    let (major, minor) = (parts.next()??, parts.next()??);
    let patch = parts.next().flatten().unwrap_or(0);
    // vrows3: 0.4.7.post1's wheel already has PR #7054's reserve (0.4.7's does not).
    let post = crate::sglang_fraction_early::release_post(version).map_or(0, |r| r.3);
    match (major, minor, patch) {
        (0, 4, 7) if post >= 1 => Some(SglangEra::Mid2025),
        (0, 0..=3, _) | (0, 4, 0..=7) => Some(SglangEra::Early2025),
        (0, 4, _) | (0, 5, 0..=2) => Some(SglangEra::Mid2025),
        _ => sglang_era_from_version(version),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fraction_and_kv_eras_split_at_0_4_3_and_0_4_8() {
        // Wheels read: 0.4.7's server_args has the TP table, 0.4.8's the per-GPU reserve.
        assert_eq!(
            sglang_fraction_era_from_version("0.4.7"),
            Some(SglangEra::Early2025)
        );
        assert_eq!(
            sglang_fraction_era_from_version("0.4.8"),
            Some(SglangEra::Mid2025)
        );
        // vrows3: 0.4.7.post1's server_args.py has PR #7054's reserve.
        assert_eq!(
            sglang_fraction_era_from_version("0.4.7.post1"),
            Some(SglangEra::Mid2025)
        );
        assert_eq!(
            sglang_fraction_era_from_version("v0.5.2rc2"),
            Some(SglangEra::Mid2025)
        );
        assert_eq!(
            sglang_fraction_era_from_version("0.5.8.post1"),
            Some(SglangEra::Late2025)
        );
        // release52: 0.5.9's `_handle_gpu_memory_settings` is 0.5.8.post1's (read in both wheels).
        assert_eq!(
            sglang_fraction_era_from_version("0.5.9"),
            Some(SglangEra::Late2025)
        );
        assert_eq!(sglang_fraction_era_from_version("0.5.24"), None);
        // 0.4.3.post4's model_runner already shares the inflated speculative pool.
        assert_eq!(sglang_era_from_version("~0.4.3.post4"), Some(SglangEra::Mid2025));
        assert_eq!(
            sglang_fraction_era_from_version("~0.4.3.post4"),
            Some(SglangEra::Early2025)
        );
        assert_eq!(sglang_era_from_version("~0.4.2"), Some(SglangEra::Early2025));
    }
}
