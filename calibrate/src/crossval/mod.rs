//! `tpsim-calibrate crossval`: out-of-sample error figures (issue #14).
//!
//! A constant fitted to some measured rows turns those rows into consistency checks: agreement with
//! them says the fit worked, not that tpsim predicts. `crossval` refits the constants without a group
//! of rows and predicts the group, for every group in turn:
//!
//! - [`allreduce`]: leave-one-system-out over the measured allreduce table. Every shared collective
//!   constant (one value on every box) is fitted jointly on the other systems' rows, each row predicted
//!   on its own system's preset with the shared values in place; then the held-out system's rows are
//!   predicted. The mapping of rows to systems, presets and NCCL settings is the data file
//!   `calibrate/crossval/allreduce-systems.toml` ([`systems`]).
//! - [`throughput`]: leave-one-group-out over a `fit-throughput` pairs table, grouped by a column
//!   (model, box) or row by row; `crossval hopper` is the same over the Hopper figures the Hopper
//!   presets' `kernel_overhead` was chosen on.
//!
//! Every fit is [`crate::fit::solve_params`] (the Huber-robust Levenberg–Marquardt of `fit`). A fold
//! starts each constant at its prior, a value not fitted to the rows; when the fold's training rows do
//! not determine a constant (no training row is sensitive to it, as the solver's own identifiability
//! check at the start finds), the constant keeps its prior and the report says so. Folds run in
//! parallel and are collected in order: the output is the same bytes for any thread count.

pub mod allreduce;
pub mod systems;
pub mod throughput;

use crate::fit::{self, FitError, FittedParam, lm};
use clap::{Args, Subcommand};
use serde::Serialize;
use std::io::Write;
use tpsim::scenario::HwParams;

/// Errors of `crossval` (all bad input: exit code 2).
#[derive(Debug, thiserror::Error)]
pub enum CrossvalError {
    /// A malformed or unreadable input file: the file (with `:line` where there is one), the key or
    /// column, and what was expected.
    #[error("{file}: {message}")]
    Input { file: String, message: String },
    #[error("{0}")]
    Fit(#[from] FitError),
    #[error("{0}")]
    Usage(String),
}

/// `tpsim-calibrate crossval MODE …`.
#[derive(Debug, Clone, Args)]
pub struct CrossvalArgs {
    #[command(subcommand)]
    pub mode: Mode,
}

/// The three crossval tables.
#[derive(Debug, Clone, Subcommand)]
pub enum Mode {
    /// Leave-one-system-out over the measured allreduce table: the shared collective constants
    /// refitted on the other systems, the held-out system predicted.
    Allreduce(allreduce::AllreduceArgs),
    /// Leave-one-group-out over a fit-throughput pairs table (groups: a column such as `model` or
    /// `box`, or `row` for leave-one-row-out).
    Throughput(throughput::ThroughputArgs),
    /// Leave-one-out of `kernel_overhead` over the Hopper tok/s figures the Hopper presets' value was
    /// chosen on (`calibrate/crossval/hopper-pairs.tsv`): `crossval throughput` with those defaults.
    Hopper(throughput::HopperArgs),
}

/// Runs `crossval`; returns the exit code (0 ok, 1 a `--check` failed or the output could not be
/// written, 2 bad input).
pub fn run(args: CrossvalArgs, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let (name, result) = match args.mode {
        Mode::Allreduce(a) => ("allreduce", allreduce::execute_checked(&a)),
        Mode::Throughput(a) => ("throughput", throughput::execute(&a).map(|t| (t, Vec::new()))),
        Mode::Hopper(a) => (
            "hopper",
            throughput::execute(&a.into_throughput()).map(|t| (t, Vec::new())),
        ),
    };
    match result {
        Ok((text, failures)) => {
            if write!(out, "{text}").is_err() {
                return crate::cli::EXIT_FAILURE;
            }
            if failures.is_empty() {
                return 0;
            }
            for f in &failures {
                let _ = writeln!(err, "tpsim-calibrate crossval {name} --check: {f}");
            }
            crate::cli::EXIT_FAILURE
        }
        Err(e) => {
            let _ = writeln!(err, "tpsim-calibrate crossval {name}: {e}");
            crate::cli::EXIT_BAD_INPUT
        }
    }
}

/// Median |relative error| and worst ratio of predictions against measurements.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Summary {
    pub rows: usize,
    /// Median of |predicted − measured| ÷ measured.
    pub median_abs_error: f64,
    /// Largest of predicted ÷ measured and measured ÷ predicted over the rows (1 for none).
    pub worst_ratio: f64,
}

impl Summary {
    /// The summary of (predicted, measured) pairs.
    pub fn of(pairs: &[(f64, f64)]) -> Summary {
        let e: Vec<f64> = pairs.iter().map(|(p, m)| ((p - m) / m).abs()).collect();
        Summary {
            rows: pairs.len(),
            median_abs_error: fit::sig6(lm::median(e)),
            worst_ratio: fit::sig6(pairs.iter().map(|(p, m)| (p / m).max(m / p)).fold(1.0, f64::max)),
        }
    }
}

/// One constant of a fold: fitted, or kept at its prior (with the reason).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ConstFit {
    pub name: String,
    /// Profile unit: `GB/s`, `us`, or "" for fractions and factors.
    pub unit: &'static str,
    pub prior: f64,
    /// Where the fit started: the prior, or a decade away when the rows do not respond at the prior.
    pub start: f64,
    pub value: f64,
    /// `None` when fitted; otherwise why the constant kept its prior.
    pub prior_reason: Option<String>,
    /// 95 % interval of a fitted value (the solver's Student-t interval).
    pub ci_low: Option<f64>,
    pub ci_high: Option<f64>,
    /// The fitted value ended on the edge of the range the solver may explore (start ÷ 100 … × 100).
    pub at_bound: bool,
}

impl ConstFit {
    /// The fit started away from the prior (the rows do not respond at the prior).
    pub fn moved(&self) -> bool {
        (self.start / self.prior - 1.0).abs() > 1e-9
    }

    /// The value as a table cell: `(prior)` when not determined, `*` after a value at its bound, `†`
    /// after one whose fit started away from the prior.
    pub fn cell(&self) -> String {
        let moved = if self.moved() { "†" } else { "" };
        match &self.prior_reason {
            Some(r) if r.starts_with(allreduce::PER_HOST_MEDIAN) => format!("{} (median)", short(self.value)),
            Some(_) => format!("{} (prior)", short(self.value)),
            None if self.at_bound => format!("{}*{moved}", short(self.value)),
            None => format!("{}{moved}", short(self.value)),
        }
    }
}

/// `v` with four significant digits, for tables.
pub fn short(v: f64) -> String {
    let a = v.abs();
    if a == 0.0 {
        "0".into()
    } else if a >= 1000.0 {
        format!("{v:.0}")
    } else if a >= 100.0 {
        format!("{v:.1}")
    } else if a >= 10.0 {
        format!("{v:.2}")
    } else if a >= 1.0 {
        format!("{v:.3}")
    } else {
        format!("{v:.4}")
    }
}

/// Why a constant kept its prior when no training row responds to it.
pub const NOT_DETERMINED: &str = "not determined by training rows";

/// One fit of a subset of the constants from a start parameter set: the fitted constants and the
/// parameter set with their values.
pub type Attempt<'a> = dyn FnMut(&[String], &HwParams) -> Result<(Vec<FittedParam>, HwParams), FitError> + 'a;

/// The starts tried for a constant the training rows do not respond to at its prior: the prior, then
/// a decade either way (a cap that does not bind at the prior may bind below it; a latency off the
/// critical path may reach it above). Fractions stay ≤ 1.
fn probe_starts(prior: f64, unit: tpsim::scenario::profile::ParamUnit) -> Vec<f64> {
    use tpsim::scenario::profile::ParamUnit;
    let mut v = vec![prior / 10.0, prior * 10.0];
    v.retain(|x| match unit {
        ParamUnit::Fraction => *x <= 1.0,
        ParamUnit::Factor => *x >= 1.0,
        _ => true,
    });
    v
}

/// Fits `names` with `attempt` (a fit of a subset of `names` from a start parameter set), starting
/// from `priors` (every name at its prior) and dropping the constants the training rows cannot
/// determine. A constant no row responds to at its start ([`FitError::Insensitive`], the solver's own
/// check) is tried from a decade below and above its prior (a cap that does not bind at the prior is
/// flat there, yet determined by the rows below it); if the rows respond at none of these, it keeps its
/// prior. So does the second of a collinear pair, and every constant when there are no more rows than
/// constants. Returns one [`ConstFit`] per name, in order, and the parameter set with the values.
pub fn fit_or_prior(
    priors: &HwParams,
    names: &[String],
    attempt: &mut Attempt<'_>,
) -> Result<(Vec<ConstFit>, HwParams), FitError> {
    use tpsim::scenario::profile as prof;
    let mut active: Vec<String> = names.to_vec();
    let mut start = priors.clone();
    // Per constant: the starts still to try after its current one.
    let mut probes: Vec<(String, Vec<f64>)> = Vec::new();
    let mut reasons: Vec<(String, String)> = Vec::new();
    let (fitted, params) = loop {
        if active.is_empty() {
            break (Vec::new(), priors.clone());
        }
        match attempt(&active, &start) {
            Ok(x) => break x,
            Err(FitError::Insensitive(n)) => {
                let prior = prof::get(priors, &n).unwrap_or(f64::NAN);
                let k = match probes.iter().position(|(p, _)| *p == n) {
                    Some(k) => k,
                    None => {
                        let unit = prof::param_unit(&n).ok_or_else(|| FitError::Param(n.clone()))?;
                        probes.push((n.clone(), probe_starts(prior, unit)));
                        probes.len() - 1
                    }
                };
                if probes[k].1.is_empty() {
                    prof::set(&mut start, &n, prior).map_err(FitError::Param)?;
                    active.retain(|a| *a != n);
                    reasons.push((n, NOT_DETERMINED.into()));
                } else {
                    let next = probes[k].1.remove(0);
                    prof::set(&mut start, &n, next).map_err(FitError::Param)?;
                }
            }
            Err(FitError::Collinear(a, b)) => {
                active.retain(|x| *x != b);
                let prior = prof::get(priors, &b).unwrap_or(f64::NAN);
                prof::set(&mut start, &b, prior).map_err(FitError::Param)?;
                reasons.push((
                    b,
                    format!("not separable from {a} on the training rows (kept its prior)"),
                ));
            }
            Err(FitError::TooFewRows { rows, params }) => {
                for n in active.drain(..) {
                    reasons.push((
                        n,
                        format!("{rows} training rows for {params} constants: not determined"),
                    ));
                }
                start = priors.clone();
            }
            Err(e) => return Err(e),
        }
    };
    let mut out = Vec::new();
    for n in names {
        let unit = prof::param_unit(n).map(|u| u.as_str()).unwrap_or("");
        let prior = prof::get(priors, n).unwrap_or(f64::NAN);
        if let Some(p) = fitted.iter().find(|p| p.name == *n) {
            out.push(ConstFit {
                name: n.clone(),
                unit,
                prior: fit::sig6(prior),
                start: fit::sig6(p.start),
                value: fit::sig6(p.value),
                prior_reason: None,
                // NaN when the fit was singular at its end (no interval).
                ci_low: Some(fit::sig6(p.ci_low)).filter(|v| v.is_finite()),
                ci_high: Some(fit::sig6(p.ci_high)).filter(|v| v.is_finite()),
                at_bound: p.at_bound,
            });
        } else {
            let reason = reasons
                .iter()
                .find(|(r, _)| r == n)
                .map(|(_, why)| why.clone())
                .unwrap_or_else(|| NOT_DETERMINED.into());
            out.push(ConstFit {
                name: n.clone(),
                unit,
                prior: fit::sig6(prior),
                start: fit::sig6(prior),
                value: fit::sig6(prior),
                prior_reason: Some(reason),
                ci_low: None,
                ci_high: None,
                at_bound: false,
            });
        }
    }
    Ok((out, params))
}

/// Notes on the constants whose fit started away from the prior, for the tables: one line per
/// constant and start, naming the fits (`fits`: a label and the constants of each fit, in order).
pub fn moved_notes(fits: &[(String, &[ConstFit])]) -> String {
    let mut groups: Vec<(String, f64, f64, Vec<String>)> = Vec::new();
    for (label, consts) in fits {
        for c in consts.iter().filter(|c| c.prior_reason.is_none() && c.moved()) {
            match groups
                .iter_mut()
                .find(|g| g.0 == c.name && g.1.to_bits() == c.start.to_bits())
            {
                Some(g) => g.3.push(label.clone()),
                None => groups.push((c.name.clone(), c.start, c.prior, vec![label.clone()])),
            }
        }
    }
    let mut o = String::new();
    for (name, start, prior, labels) in groups {
        let fitted = fits
            .iter()
            .filter(|(_, cs)| cs.iter().any(|c| c.name == name && c.prior_reason.is_none()))
            .count();
        let which = if labels.len() == fitted && fitted > 1 {
            format!("in all {fitted} fits that determine it")
        } else {
            labels.join(", ")
        };
        o.push_str(&format!(
            "† {name} started at {} ({which}): no training row responds to it at its prior {}\n",
            short(start),
            short(prior)
        ));
    }
    o
}

/// `text` wrapped at `width` characters, continuation lines indented by `indent` spaces.
pub fn wrap(text: &str, width: usize, indent: usize) -> String {
    let mut o = String::new();
    let mut line = String::new();
    for w in text.split(' ') {
        if !line.is_empty() && line.chars().count() + 1 + w.chars().count() > width {
            o.push_str(&line);
            o.push('\n');
            line = " ".repeat(indent);
        } else if !line.is_empty() && !line.chars().all(|c| c == ' ') {
            line.push(' ');
        }
        line.push_str(w);
    }
    o.push_str(&line);
    o.push('\n');
    o
}

/// `{:.1} %` of a fraction.
pub fn pct(v: f64) -> String {
    format!("{:.1} %", v * 100.0)
}

/// `{:.2}×` of a ratio.
pub fn ratio(v: f64) -> String {
    format!("{v:.2}×")
}

#[cfg(test)]
mod tests {
    use super::*;
    use tpsim::scenario::profile as prof;

    #[test]
    fn summary_is_the_median_and_the_worst_ratio() {
        // |errors| 0.1, 0.1, 0 → median 0.1; ratios 1.1, 100/90 = 1.111…, 1 → worst 1.11111.
        let s = Summary::of(&[(110.0, 100.0), (90.0, 100.0), (100.0, 100.0)]);
        assert_eq!(s.rows, 3);
        assert!((s.median_abs_error - 0.1).abs() < 1e-12, "{s:?}");
        assert!((s.worst_ratio - 1.111_11).abs() < 1e-9, "{s:?}");
    }

    fn params() -> HwParams {
        tpsim::scenario::hardware_from_preset("rtx-4090-2x-no-p2p")
            .unwrap()
            .params
    }

    /// [`fit_or_prior`] of `names` with the solver on a synthetic `model` of the parameters.
    fn fit_with(
        priors: &HwParams,
        names: &[String],
        model: &dyn Fn(&HwParams) -> Vec<f64>,
        y: &[f64],
    ) -> (Vec<ConstFit>, HwParams) {
        let mut m = |p: &HwParams| -> Result<Vec<f64>, String> { Ok(model(p)) };
        let mut attempt = |active: &[String], from: &HwParams| {
            fit::solve_params(from, active, y, &mut m).map(|(_, p, f)| (p, f))
        };
        fit_or_prior(priors, names, &mut attempt).unwrap()
    }

    #[test]
    fn a_constant_no_row_reads_keeps_its_prior() {
        let xs: Vec<f64> = (1..=6).map(f64::from).collect();
        let y: Vec<f64> = xs.iter().map(|x| (5.0 * x).ln()).collect();
        let model = |p: &HwParams| -> Vec<f64> {
            let k = prof::get(p, "kernel_overhead").unwrap();
            xs.iter().map(|x| (k * x).ln()).collect()
        };
        let mut priors = params();
        prof::set(&mut priors, "kernel_overhead", 2.0).unwrap();
        prof::set(&mut priors, "shm_copy_bw", 30.3).unwrap();
        let names = vec!["kernel_overhead".to_string(), "shm_copy_bw".to_string()];
        let (c, p) = fit_with(&priors, &names, &model, &y);
        assert!((c[0].value - 5.0).abs() < 1e-5, "{c:?}");
        assert_eq!(c[0].prior_reason, None);
        assert!(!c[0].moved());
        assert!((c[1].value - 30.3).abs() < 1e-12, "{c:?}");
        assert_eq!(c[1].prior_reason.as_deref(), Some(NOT_DETERMINED));
        assert_eq!(prof::get(&p, "shm_copy_bw"), Some(30.3));
    }

    #[test]
    fn a_cap_that_does_not_bind_at_its_prior_is_fitted_from_a_decade_below() {
        // y = ln(min(bw, 10) · x) with a true bw of 4: flat at the prior 30.3 (the cap of 10 binds), so
        // the solver refuses it there; from 3.03 the rows respond and the fit finds 4.
        let xs: Vec<f64> = (1..=6).map(f64::from).collect();
        let y: Vec<f64> = xs.iter().map(|x| (4.0 * x).ln()).collect();
        let model = |p: &HwParams| -> Vec<f64> {
            let bw = prof::get(p, "shm_copy_bw").unwrap().min(10.0);
            xs.iter().map(|x| (bw * x).ln()).collect()
        };
        let mut priors = params();
        prof::set(&mut priors, "shm_copy_bw", 30.3).unwrap();
        let (c, _) = fit_with(&priors, &["shm_copy_bw".to_string()], &model, &y);
        assert_eq!(c[0].prior_reason, None, "{c:?}");
        assert!((c[0].value - 4.0).abs() < 1e-5, "{c:?}");
        assert!((c[0].start - 3.03).abs() < 1e-9 && c[0].moved(), "{c:?}");
        assert!(c[0].cell().ends_with('†'));
    }

    #[test]
    fn too_few_rows_keep_every_prior_and_say_why() {
        let y = vec![5.0_f64.ln()];
        let model = |p: &HwParams| -> Vec<f64> { vec![prof::get(p, "kernel_overhead").unwrap().ln()] };
        let mut priors = params();
        prof::set(&mut priors, "kernel_overhead", 2.0).unwrap();
        let (c, p) = fit_with(&priors, &["kernel_overhead".to_string()], &model, &y);
        assert!((c[0].value - 2.0).abs() < 1e-12, "{c:?}");
        assert_eq!(
            c[0].prior_reason.as_deref(),
            Some("1 training rows for 1 constants: not determined")
        );
        assert_eq!(prof::get(&p, "kernel_overhead"), Some(2.0));
        assert_eq!(c[0].cell(), "2.000 (prior)");
    }
}
