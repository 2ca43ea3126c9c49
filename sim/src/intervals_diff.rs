//! Issue #19 point 6: intervals on `tpsim diff`'s B ÷ A ratios, from the fitted intervals of the
//! profiles the two scenarios apply (book/src/intervals.md, "In diff").
//!
//! The ratio r = B ÷ A of a headline figure gets its 95 % interval the way a single figure does
//! (`crate::intervals`, linearised): each fitted parameter's central difference, here of ln r,
//! combined through the correlation matrix. What counts as one parameter depends on the profiles:
//!
//! - **the same profile file on both sides**: one parameter per name, moved on both sides at once
//!   (the same fitted constant, so its uncertainty largely cancels in the ratio); its ends are
//!   (B at lo ÷ A at lo, B at hi ÷ A at hi), a side that does not read it staying at its value; the
//!   correlation is the profile's;
//! - **different profiles** (or one side without): each side's parameters are separate and
//!   independent of the other side's: ends (B ÷ A at lo, B ÷ A at hi) for A's, (B at lo ÷ A,
//!   B at hi ÷ A) for B's; the correlation is block-diagonal, each block its profile's.
//!
//! A ratio whose interval excludes 1 is a change larger than the fit noise of the constants; one
//! that includes 1 is not distinguishable from it (model error is not covered either way).

use crate::intervals::{Fitted, combine, correlation};
use crate::report::RunReport;
use crate::report::intervals::{FigureInterval, IntervalsReport, LEVEL};
use crate::scenario::Scenario;
use serde::Serialize;

/// A figure's B ÷ A with its 95 % interval.
#[derive(Debug, Clone, Serialize)]
pub struct RatioInterval {
    /// `output_tok_s`, `tpot_ms`, `ttft_ms` or `decode_allreduce_us`.
    pub name: String,
    /// B ÷ A.
    pub ratio: f64,
    pub low: f64,
    pub high: f64,
    /// 0.95.
    pub level: f64,
    /// `shared` (one profile, its parameters moved together) or `independent` (two profiles).
    pub profiles: &'static str,
    /// True when the interval excludes 1: a change beyond the fit noise.
    pub beyond_fit_noise: bool,
}

fn figure<'a>(iv: &'a IntervalsReport, name: &str) -> Option<&'a FigureInterval> {
    match name {
        "output_tok_s" => iv.output_tok_s.as_ref(),
        "tpot_ms" => iv.tpot_ms.as_ref(),
        "ttft_ms" => iv.ttft_ms.as_ref(),
        "decode_allreduce_us" => iv.decode_allreduce_us.as_ref(),
        _ => None,
    }
}

/// The figure's value as the report gives it (the same reading as `crate::intervals`).
fn value(r: &RunReport, name: &str) -> Option<f64> {
    let t = r.throughput.as_ref()?;
    match name {
        "output_tok_s" => t.output_tok_s,
        "tpot_ms" => t.tpot_ms,
        "ttft_ms" => Some(t.ttft_ms),
        "decode_allreduce_us" => (r.collectives.decode_allreduce_bytes > 0 && r.scenario.tp > 1)
            .then_some(r.collectives.decode_allreduce_us),
        _ => None,
    }
}

/// One side's parameter effects on a figure: `Some(vec![])` without fitted intervals, `None` when
/// its profile has intervals but this figure has none (not predicted at an interval end).
fn effects(r: &RunReport, name: &str) -> Option<Vec<(String, f64, f64)>> {
    match &r.intervals {
        None => Some(Vec::new()),
        Some(iv) => figure(iv, name).map(|f| {
            f.params
                .iter()
                .map(|p| (p.name.clone(), p.at_ci_low, p.at_ci_high))
                .collect()
        }),
    }
}

fn as_fitted(names: &[String]) -> Vec<Fitted> {
    names
        .iter()
        .map(|n| Fitted {
            name: n.clone(),
            value: 0.0,
            ci_low: 0.0,
            ci_high: 0.0,
        })
        .collect()
}

/// B ÷ A intervals for the figures both sides predict (positive) and at least one side has fitted
/// intervals for; empty when neither profile has any.
pub fn ratio_intervals(sa: &Scenario, a: &RunReport, sb: &Scenario, b: &RunReport) -> Vec<RatioInterval> {
    if a.intervals.is_none() && b.intervals.is_none() {
        return Vec::new();
    }
    let pa = sa.hardware.profile.as_ref();
    let pb = sb.hardware.profile.as_ref();
    // The same file, however the two scenarios spell its path.
    let same = |x: &std::path::Path, y: &std::path::Path| {
        x == y || matches!((x.canonicalize(), y.canonicalize()), (Ok(a), Ok(b)) if a == b)
    };
    let shared = matches!((pa, pb), (Some(x), Some(y)) if same(&x.file, &y.file));
    let mut out = Vec::new();
    for name in ["output_tok_s", "tpot_ms", "ttft_ms", "decode_allreduce_us"] {
        let (Some(a0), Some(b0)) = (value(a, name), value(b, name)) else {
            continue;
        };
        let (Some(ea), Some(eb)) = (effects(a, name), effects(b, name)) else {
            continue;
        };
        if !(a0 > 0.0 && b0 > 0.0) || (ea.is_empty() && eb.is_empty()) {
            continue;
        }
        let (ends, corr) = if shared {
            let mut names: Vec<String> = ea.iter().chain(&eb).map(|e| e.0.clone()).collect();
            names.sort();
            names.dedup();
            let at = |e: &[(String, f64, f64)], n: &str, v: f64| {
                e.iter().find(|x| x.0 == n).map_or((v, v), |x| (x.1, x.2))
            };
            let ends: Vec<(f64, f64)> = names
                .iter()
                .map(|n| {
                    let (al, ah) = at(&ea, n, a0);
                    let (bl, bh) = at(&eb, n, b0);
                    (bl / al, bh / ah)
                })
                .collect();
            let (corr, _) = correlation(pa.and_then(|p| p.correlation.as_ref()), &as_fitted(&names));
            (ends, corr)
        } else {
            let na: Vec<String> = ea.iter().map(|e| e.0.clone()).collect();
            let nb: Vec<String> = eb.iter().map(|e| e.0.clone()).collect();
            let (ca, _) = correlation(pa.and_then(|p| p.correlation.as_ref()), &as_fitted(&na));
            let (cb, _) = correlation(pb.and_then(|p| p.correlation.as_ref()), &as_fitted(&nb));
            let mut ends: Vec<(f64, f64)> = ea.iter().map(|e| (b0 / e.1, b0 / e.2)).collect();
            ends.extend(eb.iter().map(|e| (e.1 / a0, e.2 / a0)));
            let n = ends.len();
            let mut corr = vec![vec![0.0; n]; n];
            for (i, row) in ca.iter().enumerate() {
                corr[i][..row.len()].copy_from_slice(row);
            }
            for (i, row) in cb.iter().enumerate() {
                corr[na.len() + i][na.len()..].copy_from_slice(row);
            }
            (ends, corr)
        };
        let ratio = b0 / a0;
        let (low, high) = combine(ratio, &ends, &corr);
        if !(low.is_finite() && high.is_finite()) {
            continue;
        }
        out.push(RatioInterval {
            name: name.to_string(),
            ratio,
            low,
            high,
            level: LEVEL,
            profiles: if shared { "shared" } else { "independent" },
            beyond_fit_noise: low > 1.0 || high < 1.0,
        });
    }
    out
}
