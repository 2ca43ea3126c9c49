//! Issue #19 point 6: prediction intervals from a profile's fitted intervals, and whether the
//! scenario lies inside the range the profile was fitted on.
//!
//! Method (book/src/intervals.md): linearised propagation. For each parameter the prediction took
//! from the profile with a 95 % interval [lo, hi], the scenario is rerun twice, with that parameter
//! at lo and at hi (the others at their values). The fits work in log-parameter space with intervals
//! symmetric there (calibrate/src/fit/mod.rs), so lo and hi are θ ∓ t·σ: the two runs are a central
//! difference whose half-difference `gᵢ = (ln y(hi) − ln y(lo)) / 2` is already the figure's change
//! per 95 % half-width of parameter i. The figure's 95 % half-width in log space is
//! `w = √(Σᵢⱼ gᵢ Rᵢⱼ gⱼ)` with R the fit's correlation matrix (identity when the profile has none),
//! and the interval is `[y·e^−w, y·e^w]`. A figure that is not positive at every point is combined
//! the same way on the linear scale, floored at 0. Cost: 2 × (fitted parameters) extra predictions,
//! run in parallel in a fixed order (results do not depend on the thread count); no random draw.

use crate::decode::{self, DecodeError};
use crate::report::intervals::{FigureInterval, IntervalsReport, LEVEL, METHOD, ParamEffect, RangeReport};
use crate::report::{self, RunReport};
use crate::scenario::{Scenario, profile};
use rayon::prelude::*;

/// One profile parameter with a fitted interval, as applied.
#[derive(Debug, Clone, PartialEq)]
pub struct Fitted {
    pub name: String,
    pub value: f64,
    pub ci_low: f64,
    pub ci_high: f64,
}

/// The parameters the scenario took from its profile that carry an interval (the scenario's inline
/// overrides excluded), sorted by name.
pub fn fitted_params(hw: &crate::scenario::Hardware) -> Vec<Fitted> {
    let Some(p) = &hw.profile else {
        return Vec::new();
    };
    p.applied
        .iter()
        .filter_map(|(name, v)| {
            Some(Fitted {
                name: name.clone(),
                value: v.value,
                ci_low: v.ci_low?,
                ci_high: v.ci_high?,
            })
        })
        .collect()
}

/// The four figures an interval is given for, read off a report (None: not predicted).
#[derive(Debug, Clone, Copy, Default)]
struct Figures([Option<f64>; 4]);

const NAMES: [&str; 4] = ["output_tok_s", "tpot_ms", "ttft_ms", "decode_allreduce_us"];

fn figures(r: &RunReport) -> Figures {
    let t = r.throughput.as_ref();
    let ar = (r.collectives.decode_allreduce_bytes > 0 && r.scenario.tp > 1)
        .then_some(r.collectives.decode_allreduce_us);
    Figures([
        t.and_then(|t| t.output_tok_s),
        t.and_then(|t| t.tpot_ms),
        t.map(|t| t.ttft_ms),
        t.and(ar),
    ])
}

/// Sets `r.intervals` from the scenario's profile (see the module doc); leaves it None when the
/// profile has no fitted interval or the engine does not serve the scenario.
pub fn attach(s: &Scenario, r: &mut RunReport) -> Result<(), DecodeError> {
    r.intervals = propagate(s, r)?;
    Ok(())
}

/// The intervals of `base` (the report of `s`).
pub fn propagate(s: &Scenario, base: &RunReport) -> Result<Option<IntervalsReport>, DecodeError> {
    let params = fitted_params(&s.hardware);
    let Some(applied) = &s.hardware.profile else {
        return Ok(None);
    };
    if params.is_empty() || base.throughput.is_none() {
        return Ok(None);
    }
    let jobs: Vec<(usize, f64)> = params
        .iter()
        .enumerate()
        .flat_map(|(i, p)| [(i, p.ci_low), (i, p.ci_high)])
        .collect();
    // Parallel over the runs; `collect` keeps the jobs' order whatever the thread count.
    let runs: Vec<Result<Option<Figures>, DecodeError>> = jobs
        .par_iter()
        .map(|&(i, v)| {
            let mut s2 = s.clone();
            // The profile's reader checked every interval end with `profile::check`.
            if profile::set(&mut s2.hardware.params, &params[i].name, v).is_err() {
                return Ok(None);
            }
            let p2 = decode::predict_with(&s2, false)?;
            // speed64: the figures never read the report's fitted constants.
            Ok(Some(figures(&report::build_with(&s2, &p2, false))))
        })
        .collect();
    let runs: Vec<Option<Figures>> = runs.into_iter().collect::<Result<_, _>>()?;
    let (corr, correlation) = correlation(applied.correlation.as_ref(), &params);
    let y0 = figures(base);
    let mut notes = Vec::new();
    let mut out: [Option<FigureInterval>; 4] = Default::default();
    for (k, slot) in out.iter_mut().enumerate() {
        let Some(value) = y0.0[k] else {
            continue;
        };
        let mut effects = Vec::new();
        for (i, p) in params.iter().enumerate() {
            let at = |j: usize| runs[2 * i + j].as_ref().and_then(|f| f.0[k]);
            match (at(0), at(1)) {
                (Some(lo), Some(hi)) => effects.push(ParamEffect {
                    name: p.name.clone(),
                    ci_low: p.ci_low,
                    ci_high: p.ci_high,
                    at_ci_low: lo,
                    at_ci_high: hi,
                }),
                _ => {
                    notes.push(format!(
                        "{}: no interval — with {} at an end of its interval ({} or {}) the figure is not predicted (the engine does not serve the scenario there)",
                        NAMES[k], p.name, p.ci_low, p.ci_high
                    ));
                    break;
                }
            }
        }
        if effects.len() != params.len() {
            continue;
        }
        let ends: Vec<(f64, f64)> = effects.iter().map(|e| (e.at_ci_low, e.at_ci_high)).collect();
        let (low, high) = combine(value, &ends, &corr);
        *slot = Some(FigureInterval {
            value,
            low,
            high,
            level: LEVEL,
            method: METHOD,
            params: effects,
        });
    }
    let [output_tok_s, tpot_ms, ttft_ms, decode_allreduce_us] = out;
    Ok(Some(IntervalsReport {
        profile: applied.file.display().to_string(),
        correlation,
        notes,
        output_tok_s,
        tpot_ms,
        ttft_ms,
        decode_allreduce_us,
    }))
}

/// The correlation matrix of `params` and its label: the profile's `[correlation]` where it lists
/// both parameters of a pair, 0 elsewhere.
pub fn correlation(
    c: Option<&crate::scenario::profile_fit::ProfileCorrelation>,
    params: &[Fitted],
) -> (Vec<Vec<f64>>, String) {
    let n = params.len();
    let idx = |name: &str| c.and_then(|c| c.params.iter().position(|p| p == name));
    let mut r = vec![vec![0.0; n]; n];
    let mut all = true;
    for i in 0..n {
        for j in 0..n {
            r[i][j] = if i == j {
                1.0
            } else {
                match (c, idx(&params[i].name), idx(&params[j].name)) {
                    (Some(c), Some(a), Some(b)) => c.matrix[a][b],
                    _ => {
                        all = false;
                        0.0
                    }
                }
            };
        }
    }
    let label = if n == 1 {
        "single"
    } else if all {
        "fit"
    } else {
        "independent"
    };
    (r, label.to_string())
}

/// The interval of a figure `y0` from each parameter's figures at its interval ends (`ends`) and
/// their correlation `r` (module doc). Always `low ≤ y0 ≤ high`.
pub fn combine(y0: f64, ends: &[(f64, f64)], r: &[Vec<f64>]) -> (f64, f64) {
    let log = y0 > 0.0 && ends.iter().all(|(a, b)| *a > 0.0 && *b > 0.0);
    let g: Vec<f64> = ends
        .iter()
        .map(|(a, b)| {
            if log {
                (b.ln() - a.ln()) / 2.0
            } else {
                (b - a) / 2.0
            }
        })
        .collect();
    let mut var = 0.0;
    for (i, gi) in g.iter().enumerate() {
        for (j, gj) in g.iter().enumerate() {
            var += gi * r[i][j] * gj;
        }
    }
    let w = var.max(0.0).sqrt();
    if log {
        (y0 * (-w).exp(), y0 * w.exp())
    } else {
        ((y0 - w).max(0.0), y0 + w)
    }
}

/// Whether `s` lies in the span its profile was fitted on: `batch` requests decoded at once and a
/// decode allreduce of `allreduce_bytes` over the tp ranks (None without a profile).
pub fn calibrated_range(s: &Scenario, batch: u32, allreduce_bytes: u64) -> Option<RangeReport> {
    let p = s.hardware.profile.as_ref()?;
    let file = p.file.display().to_string();
    let Some(range) = p.provenance.range.as_ref().filter(|r| !r.is_empty()) else {
        return Some(RangeReport {
            profile: file,
            stated: false,
            extrapolation: false,
            outside: Vec::new(),
            fitted_on: String::new(),
        });
    };
    let tp = u64::from(s.engine.tp);
    let mut outside = Vec::new();
    let mut fitted_on = Vec::new();
    for (k, [lo, hi]) in range.spans() {
        fitted_on.push(format!("{k} {lo}–{hi}"));
        let (what, v) = match k {
            "batch" => ("batch", Some(u64::from(batch))),
            "tp" => ("tp", Some(tp)),
            // Collective rows: the allreduce runs over the tp ranks.
            "gpus" => ("allreduce over", (tp > 1).then_some(tp)),
            _ => (
                "decode allreduce of",
                (tp > 1 && allreduce_bytes > 0).then_some(allreduce_bytes),
            ),
        };
        if let Some(v) = v
            && (v < lo || v > hi)
        {
            let unit = match k {
                "gpus" => " GPUs",
                "bytes" => " bytes",
                _ => "",
            };
            outside.push(format!(
                "{what} {v}{unit} is outside the fitted {k} {lo}–{hi}: an extrapolation of the fit"
            ));
        }
    }
    Some(RangeReport {
        profile: file,
        stated: true,
        extrapolation: !outside.is_empty(),
        outside,
        fitted_on: fitted_on.join(", "),
    })
}

#[cfg(test)]
mod tests {
    use super::combine;

    #[test]
    fn one_parameter_is_the_half_log_difference() {
        // y at the ends 80 and 125 around 100: g = ln(125/80)/2 = 0.22314; interval 100·e^∓g.
        let (lo, hi) = combine(100.0, &[(80.0, 125.0)], &[vec![1.0]]);
        assert!((lo - 80.0).abs() < 1e-9 && (hi - 125.0).abs() < 1e-9, "{lo} {hi}");
    }

    #[test]
    fn correlation_adds_or_cancels() {
        // Two parameters each moving ln y by ±0.1: independent √0.02; correlated +1 → 0.2; −1 → 0.
        let ends = [(0.1f64.exp().recip(), 0.1f64.exp()); 2];
        let w = |r: f64| combine(1.0, &ends, &[vec![1.0, r], vec![r, 1.0]]).1.ln();
        assert!((w(0.0) - 0.02f64.sqrt()).abs() < 1e-12);
        assert!((w(1.0) - 0.2).abs() < 1e-12);
        assert!(w(-1.0).abs() < 1e-7);
    }
}
