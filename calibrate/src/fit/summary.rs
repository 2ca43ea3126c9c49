//! The fit's printed summary and the profile it writes.

use super::{FitResult, FittedParam};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use tpsim::scenario::profile::{ProfileFile, ProfileParam, ProfileProvenance};

/// `v` rounded to 6 significant digits: values in a profile carry what the fit can support, and
/// the same bytes on every platform.
pub fn sig6(v: f64) -> f64 {
    format!("{v:.5e}").parse().unwrap_or(v)
}

fn unit(p: &FittedParam) -> &'static str {
    p.unit.as_str()
}

/// The summary printed to stdout: one line per parameter (start, fitted, 95 % interval), then rows,
/// R², RMS log error and the median/worst |error| before and after (and on held-out rows).
pub fn text(r: &FitResult, hardware: &str, holdout: Option<&str>) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "fit on {hardware}: {} rows, {} LM iterations in {} IRLS rounds (Huber)",
        r.fitted_rows, r.lm_iterations, r.irls_rounds
    );
    let _ = writeln!(
        o,
        "{:<28} {:>12} {:>12} {:>27}  unit",
        "parameter", "start", "fitted", "95 % interval"
    );
    for p in &r.params {
        let _ = writeln!(
            o,
            "{:<28} {:>12} {:>12} {:>27}  {}{}",
            p.name,
            sig6(p.start),
            sig6(p.value),
            format!("[{}, {}]", sig6(p.ci_low), sig6(p.ci_high)),
            unit(p),
            if p.at_bound { "  (at its bound)" } else { "" }
        );
    }
    for p in r.params.iter().filter(|p| p.at_bound) {
        let _ = writeln!(
            o,
            "warning: {} ended at the edge of its range (start ÷ 100 … start × 100; fractions ≤ 1, factors ≥ 1): the rows push it further than the fit allows, so neither value nor interval is determined; drop it from --params or set it inline",
            p.name
        );
    }
    let _ = writeln!(
        o,
        "rows {} ({} down-weighted as outliers), R² (log time) {:.4}, RMS log error {:.4}",
        r.fitted_rows, r.downweighted, r.r2, r.rms_log_error
    );
    let _ = writeln!(
        o,
        "median |error| before {:.1} %, after {:.1} %; worst before {:.1} %, after {:.1} %",
        r.before.median_abs * 100.0,
        r.after.median_abs * 100.0,
        r.before.worst_abs * 100.0,
        r.after.worst_abs * 100.0
    );
    if let (Some(b), Some(a)) = (r.holdout_before, r.holdout_after) {
        let _ = writeln!(
            o,
            "held out ({} rows matching `{}`): median |error| before {:.1} %, after {:.1} %; worst before {:.1} %, after {:.1} %",
            b.rows,
            holdout.unwrap_or(""),
            b.median_abs * 100.0,
            a.median_abs * 100.0,
            b.worst_abs * 100.0,
            a.worst_abs * 100.0
        );
    }
    o
}

/// The profile of a fit: each parameter's value and interval (6 significant digits), unit and a
/// source sentence; `provenance` as given by the caller.
pub fn profile(r: &FitResult, provenance: ProfileProvenance) -> ProfileFile {
    let source = format!(
        "fit: {} rows, R² = {:.4}, RMS log error {:.4}",
        r.fitted_rows, r.r2, r.rms_log_error
    );
    let params: BTreeMap<String, ProfileParam> = r
        .params
        .iter()
        .map(|p| {
            (
                p.name.clone(),
                ProfileParam {
                    value: sig6(p.value),
                    ci_low: Some(sig6(p.ci_low).min(sig6(p.value))),
                    ci_high: Some(sig6(p.ci_high).max(sig6(p.value))),
                    unit: unit(p).to_string(),
                    source: if p.at_bound {
                        format!("{source}; ended at the edge of the fit's range: not determined")
                    } else {
                        source.clone()
                    },
                },
            )
        })
        .collect();
    ProfileFile {
        provenance,
        params,
        compute: None,
    }
}
