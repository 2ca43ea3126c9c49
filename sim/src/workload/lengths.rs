//! Length distributions of a workload (issue #18 point 2): bench_serving's random dataset and a
//! histogram given as data, besides the fixed and uniform lengths of `[workload]`.

use rand::RngExt;
use rand_chacha::ChaCha8Rng;

use crate::scenario::LengthSpec;

/// One histogram bin: lengths `min..=max`, drawn with probability `weight / Σ weight`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bin {
    pub min: u32,
    pub max: u32,
    pub weight: u64,
}

/// Most bins a histogram file may hold (a drawing scans them linearly).
pub const MAX_BINS: usize = 10_000;

/// The lower end of bench_serving's random lengths: `max(int(full · range_ratio), 1)`
/// (sglang 0.5.9 bench_serving.py `compute_random_lens`), never above `full`.
pub fn random_low(full: u32, range_ratio: f64) -> u32 {
    let lo = (f64::from(full) * range_ratio).floor();
    (lo.clamp(0.0, f64::from(full)) as u32).max(1).min(full.max(1))
}

/// The mean length of a histogram (each bin contributes its midpoint).
pub fn hist_mean(bins: &[Bin]) -> f64 {
    let w: u64 = bins.iter().map(|b| b.weight).sum();
    if w == 0 {
        return 0.0;
    }
    bins.iter()
        .map(|b| (f64::from(b.min) + f64::from(b.max)) / 2.0 * b.weight as f64)
        .sum::<f64>()
        / w as f64
}

/// Parses a histogram file: tab- or space-separated `min_tokens max_tokens weight` per line, an
/// optional header line starting with `min_tokens`, `#` comments and blank lines skipped. Errors
/// carry the 1-based line.
pub fn parse_histogram(text: &str) -> Result<Vec<Bin>, (usize, String)> {
    let mut bins = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() || line.starts_with("min_tokens") {
            continue;
        }
        let f: Vec<&str> = line.split_whitespace().collect();
        let parse = || -> Option<Bin> {
            if f.len() != 3 {
                return None;
            }
            Some(Bin {
                min: f[0].parse().ok()?,
                max: f[1].parse().ok()?,
                weight: f[2].parse().ok()?,
            })
        };
        let b = parse().ok_or_else(|| {
            (
                i + 1,
                format!("`{line}`: expected `min_tokens max_tokens weight` (integers)"),
            )
        })?;
        if b.min == 0 || b.min > b.max {
            return Err((i + 1, format!("`{line}`: expected 1 ≤ min_tokens ≤ max_tokens")));
        }
        bins.push(b);
        if bins.len() > MAX_BINS {
            return Err((i + 1, format!("more than {MAX_BINS} bins")));
        }
    }
    let total = bins
        .iter()
        .try_fold(0u64, |a, b| a.checked_add(b.weight))
        .unwrap_or(u64::MAX);
    if total == 0 || total == u64::MAX {
        return Err((
            0,
            "expected weights summing to 1 .. 2^64 − 1 (some bin must weigh)".into(),
        ));
    }
    Ok(bins)
}

/// One length drawn from `spec` (a fixed length draws nothing; uniform and random one number;
/// a histogram two: the bin, then the length inside it).
pub fn draw(spec: &LengthSpec, rng: &mut ChaCha8Rng) -> u32 {
    match spec {
        LengthSpec::Fixed(n) => *n,
        LengthSpec::Uniform(u) => rng.random_range(u.min..=u.max),
        LengthSpec::Random(r) => rng.random_range(random_low(r.random, r.range_ratio)..=r.random),
        LengthSpec::Histogram(h) => {
            let total: u64 = h.bins.iter().map(|b| b.weight).sum();
            let mut u = rng.random_range(0..total.max(1));
            let mut pick = h.bins.last().copied().unwrap_or(Bin {
                min: 1,
                max: 1,
                weight: 1,
            });
            for b in h.bins.iter() {
                if u < b.weight {
                    pick = *b;
                    break;
                }
                u -= b.weight;
            }
            rng.random_range(pick.min..=pick.max)
        }
    }
}
