//! The fit's printed summary and the profile it writes.

use super::curves::CurveFit;
use super::{FitResult, FittedParam};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use tpsim::scenario::profile::{ProfileFile, ProfileParam, ProfileProvenance};
use tpsim::scenario::profile_fit::ProfileCorrelation;
use tpsim::scenario::{ComputeSection, CurveSection};

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

/// The summary of a curve fit: one line per point (bytes per kernel, rows, start, fitted, 95 %
/// interval), then rows, R², RMS log error and the median/worst |error| before and after.
pub fn curve_text(c: &CurveFit) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "curve {} (memory efficiency vs bytes per kernel): {} memory-bound gemm rows, {} FLOP-bound left out; kernel_overhead held at {} us",
        c.class.key(),
        c.rows,
        c.flop_bound,
        sig6(c.kernel_overhead_us)
    );
    let _ = writeln!(
        o,
        "{:>14} {:>5} {:>10} {:>10} {:>24}",
        "bytes/kernel", "rows", "start", "fitted", "95 % interval"
    );
    for p in &c.points {
        let _ = writeln!(
            o,
            "{:>14} {:>5} {:>10} {:>10} {:>24}{}",
            sig6(p.bytes),
            p.rows,
            sig6(p.start),
            sig6(p.efficiency),
            format!("[{}, {}]", sig6(p.ci_low), sig6(p.ci_high)),
            if p.at_bound { "  (at its bound)" } else { "" }
        );
    }
    let _ = writeln!(
        o,
        "R² (log time) {:.4}, RMS log error {:.4}; median |error| before {:.1} %, after {:.1} %; worst before {:.1} %, after {:.1} %",
        c.r2,
        c.rms_log_error,
        c.before.median_abs * 100.0,
        c.after.median_abs * 100.0,
        c.before.worst_abs * 100.0,
        c.after.worst_abs * 100.0
    );
    o
}

/// The `[compute]` section of a curve fit: points and intervals at 6 significant digits, with a
/// source sentence.
pub fn curve_section(c: &CurveFit) -> ComputeSection {
    let points: Vec<[f64; 2]> = c
        .points
        .iter()
        .map(|p| [sig6(p.bytes), sig6(p.efficiency)])
        .collect();
    let ci = c
        .points
        .iter()
        .map(|p| {
            let v = sig6(p.efficiency);
            [sig6(p.ci_low).min(v), sig6(p.ci_high).max(v)]
        })
        .collect();
    let mut source = format!(
        "fit: {} memory-bound gemm rows in {} size buckets (powers of 4 of the bytes), kernel_overhead held at {} us, R² = {:.4}, RMS log error {:.4}",
        c.rows,
        c.points.len(),
        sig6(c.kernel_overhead_us),
        c.r2,
        c.rms_log_error
    );
    if c.points.iter().any(|p| p.at_bound) {
        source.push_str("; a point ended at the edge of the fit's range: not determined");
    }
    let mut curves = BTreeMap::new();
    curves.insert(
        c.class.key().to_string(),
        CurveSection {
            points: Some(points),
            flops_points: None,
            flops_range: None,
            ci: Some(ci),
            source: Some(source),
        },
    );
    ComputeSection {
        curves,
        formats: BTreeMap::new(),
        attention_backends: BTreeMap::new(),
        moe_backends: BTreeMap::new(),
    }
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
    // Issue #19 point 6: the fitted rows' span, and the correlation when more than one parameter.
    let mut provenance = provenance;
    if provenance.range.is_none() && !r.range.is_empty() {
        provenance.range = Some(r.range.clone());
    }
    let correlation = (r.params.len() > 1).then(|| ProfileCorrelation {
        params: r.params.iter().map(|p| p.name.clone()).collect(),
        matrix: r
            .correlation
            .iter()
            .map(|row| row.iter().map(|v| sig6(*v)).collect())
            .collect(),
    });
    ProfileFile {
        provenance,
        params,
        compute: None,
        correlation,
    }
}

/// Issue #16: the summary lines of fitted format factors (none: empty).
pub fn formats_text(fs: &[super::curves::FormatFit]) -> String {
    let mut o = String::new();
    for f in fs {
        let _ = writeln!(
            o,
            "format {} (memory-efficiency factor over the default curve): {} = [{}, {}] from {} memory-bound gemm rows ({} FLOP-bound left out); median |error| before {:.1} %, after {:.1} %{}",
            f.format.name(),
            sig6(f.factor),
            sig6(f.ci_low),
            sig6(f.ci_high),
            f.rows,
            f.flop_bound,
            f.before.median_abs * 100.0,
            f.after.median_abs * 100.0,
            if f.at_bound { "  (at its bound)" } else { "" }
        );
    }
    o
}

/// Adds fitted format factors to a profile's `[compute]` as one-point `[compute.formats.<dtype>]`
/// curves with their interval and source.
pub fn add_formats(c: &mut ComputeSection, fs: &[super::curves::FormatFit]) {
    for f in fs {
        c.formats.insert(
            f.format.name().to_string(),
            CurveSection {
                points: Some(vec![[1.0, f.factor]]),
                flops_points: None,
                flops_range: None,
                ci: None,
                source: Some(format!(
                    "fit: {} memory-bound {} gemm rows, factor 95 % interval [{}, {}], over the default curve{}",
                    f.rows,
                    f.format.name(),
                    sig6(f.ci_low),
                    sig6(f.ci_high),
                    if f.at_bound { "; at the edge of the fit's range: not determined" } else { "" }
                )),
            },
        );
    }
}
