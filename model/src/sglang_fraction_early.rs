//! vrows3 (issue #17 point 5): SGLang's default `mem_fraction_static` before PR #7054, release by
//! release. Read from each wheel's `python/sglang/srt/server_args.py` (`ServerArgs.__post_init__`,
//! the `mem_fraction_static is None` block; `gpu_mem` = `get_device_memory_capacity()`, nvidia-smi's
//! `memory.total` in MiB):
//!
//! | releases | rule |
//! |---|---|
//! | ≤ 0.4.5.post2 | the TP-size table: tp ≥ 16 → 0.79, ≥ 8 → 0.81, ≥ 4 → 0.85, ≥ 2 → 0.87, else 0.88 |
//! | 0.4.5.post3 – 0.4.6.post1 | the table up to 81,920 MiB; above, (gpu_mem − 13 × 1024) / gpu_mem |
//! | 0.4.6.post2 – 0.4.6.post5 | the table of tp × pp up to 81,920 MiB, else 0.88; then above 96 × 1024 MiB: min(f + 48 × 1024 × (1 − f) / gpu_mem, (gpu_mem − 18 × 1024) / gpu_mem) |
//! | 0.4.7 | as 0.4.6.post5, but above 180,000 MiB on CUDA 0.79, the 18 GiB reserve 20 with speculative decoding, and at most 96 × 1024 MiB × 0.95 with speculative decoding |
//! | 0.4.7.post1 – 0.5.2 | PR #7054's reserve by GPU memory (tpsim's mid-2025 rule, `memory::sglang_default_fraction`) |
//!
//! (0.4.6.post5 differs from post2–post4 only by `gpu_mem is not None` guards.)

/// The pre-#7054 variants of the default fraction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EarlyFractionRule {
    /// ≤ 0.4.5.post2.
    TpTable,
    /// 0.4.5.post3 – 0.4.6.post1.
    Above81920Reserve13,
    /// 0.4.6.post2 – 0.4.6.post5.
    Above96Raise,
    /// 0.4.7.
    V047,
}

/// A release as (major, minor, patch, post): `0.4.6.post5` → (0, 4, 6, 5); `v0.4.7` → post 0.
/// Leading `~`/`v` are ignored; `None` when the first three numbers are not there.
pub fn release_post(version: &str) -> Option<(u32, u32, u32, u32)> {
    let v = version.trim().trim_start_matches(['~', 'v', 'V']);
    let mut parts = v.split('.');
    let mut num = || -> Option<u32> {
        let p = parts.next()?;
        let d: String = p.chars().take_while(char::is_ascii_digit).collect();
        d.parse().ok()
    };
    let (a, b, c) = (num()?, num()?, num()?);
    let post = v
        .split('.')
        .nth(3)
        .and_then(|p| p.strip_prefix("post"))
        .and_then(|d| d.parse().ok())
        .unwrap_or(0);
    Some((a, b, c, post))
}

/// The rule of a release whose default fraction predates PR #7054 (`None` from 0.4.7.post1 on, or
/// for an unreadable version).
pub fn early_rule(version: &str) -> Option<EarlyFractionRule> {
    let r = release_post(version)?;
    Some(match r {
        (0, 0..=3, _, _) | (0, 4, 0..=4, _) | (0, 4, 5, 0..=2) => EarlyFractionRule::TpTable,
        (0, 4, 5, _) | (0, 4, 6, 0..=1) => EarlyFractionRule::Above81920Reserve13,
        (0, 4, 6, _) => EarlyFractionRule::Above96Raise,
        (0, 4, 7, 0) => EarlyFractionRule::V047,
        _ => return None,
    })
}

/// The TP-size table (`parallel` = tp, or tp × pp from 0.4.6.post2).
fn table(parallel: u32) -> f64 {
    match parallel {
        16.. => 0.79,
        8.. => 0.81,
        4.. => 0.85,
        2.. => 0.87,
        _ => 0.88,
    }
}

/// The default fraction under `rule` for a GPU of `gpu_mem_mib` MiB at (tp, pp), with or without
/// speculative decoding, on CUDA (`is_cuda`) or ROCm.
pub fn early_fraction(
    rule: EarlyFractionRule,
    gpu_mem_mib: u64,
    (tp, pp): (u32, u32),
    speculative: bool,
    is_cuda: bool,
) -> f64 {
    let mem = gpu_mem_mib as f64;
    match rule {
        EarlyFractionRule::TpTable => table(tp),
        EarlyFractionRule::Above81920Reserve13 => {
            if gpu_mem_mib <= 81_920 {
                table(tp)
            } else {
                (mem - 13.0 * 1024.0) / mem
            }
        }
        EarlyFractionRule::Above96Raise | EarlyFractionRule::V047 => {
            let f = if gpu_mem_mib <= 81_920 {
                table(tp * pp.max(1))
            } else {
                0.88
            };
            let v047 = rule == EarlyFractionRule::V047;
            if v047 && gpu_mem_mib > 180_000 && is_cuda {
                0.79
            } else if gpu_mem_mib > 96 * 1024 {
                let reserve = if v047 && speculative { 20.0 } else { 18.0 } * 1024.0;
                (f + 48.0 * 1024.0 * (1.0 - f) / mem).min((mem - reserve) / mem)
            } else if v047 && speculative {
                f * 0.95
            } else {
                f
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use EarlyFractionRule::*;

    #[test]
    fn rules_by_release() {
        assert_eq!(early_rule("~0.4.3.post4"), Some(TpTable));
        assert_eq!(early_rule("0.4.5.post2"), Some(TpTable));
        assert_eq!(early_rule("0.4.5.post3"), Some(Above81920Reserve13));
        assert_eq!(early_rule("0.4.6.post1"), Some(Above81920Reserve13));
        assert_eq!(early_rule("0.4.6.post2"), Some(Above96Raise));
        assert_eq!(early_rule("v0.4.6.post5"), Some(Above96Raise));
        assert_eq!(early_rule("0.4.7"), Some(V047));
        assert_eq!(early_rule("0.4.7.post1"), None);
        assert_eq!(early_rule("0.4.8"), None);
    }

    #[test]
    fn fractions_by_hand() {
        // H100 80 GB (81,559 MiB ≤ 81,920): the table everywhere; tp 2 × pp 2 = 4 → 0.85 from 0.4.6.post2.
        let close = |a: f64, b: f64| (a - b).abs() < 1e-12;
        for r in [TpTable, Above81920Reserve13, Above96Raise, V047] {
            assert!(close(early_fraction(r, 81_559, (1, 1), false, true), 0.88));
        }
        assert!(close(
            early_fraction(Above81920Reserve13, 81_559, (2, 2), false, true),
            0.87
        ));
        assert!(close(
            early_fraction(Above96Raise, 81_559, (2, 2), false, true),
            0.85
        ));
        // 0.4.7 with speculative decoding at ≤ 96 GiB: 0.88 × 0.95 = 0.836.
        assert!((early_fraction(V047, 81_559, (1, 1), true, true) - 0.836).abs() < 1e-12);
        // H200 (143,771 MiB), tp 8: 0.4.6.post1: (143,771 − 13,312) / 143,771 = 0.907410...
        let h200 = 143_771.0;
        assert!(
            (early_fraction(Above81920Reserve13, 143_771, (8, 1), false, true) - (h200 - 13_312.0) / h200)
                .abs()
                < 1e-12
        );
        // 0.4.6.post5: base 0.88 (above 81,920), raised: 0.88 + 49,152 × 0.12 / 143,771 = 0.921025...,
        // capped by (143,771 − 18,432) / 143,771 = 0.871796... → the cap.
        let capped = (h200 - 18_432.0) / h200;
        assert!((early_fraction(Above96Raise, 143_771, (8, 1), false, true) - capped).abs() < 1e-12);
        // 0.4.7 with speculation: reserve 20 GiB → (143,771 − 20,480) / 143,771.
        assert!((early_fraction(V047, 143_771, (8, 1), true, true) - (h200 - 20_480.0) / h200).abs() < 1e-12);
        // MI300X (196,592 MiB): 0.4.7 on ROCm is not CUDA → the raise; B200-class on CUDA → 0.79.
        assert!((early_fraction(V047, 196_592, (8, 1), false, true) - 0.79).abs() < 1e-12);
        let mi = 196_592.0;
        let raised = (0.88_f64 + 49_152.0 * 0.12 / mi).min((mi - 18_432.0) / mi);
        assert!((early_fraction(V047, 196_592, (8, 1), false, false) - raised).abs() < 1e-12);
    }
}
