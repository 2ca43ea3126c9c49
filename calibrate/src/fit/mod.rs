//! `tpsim-calibrate fit`: hardware parameters fitted to measured collectives and GEMMs.
//!
//! Each measured row (a collective, or a GEMM) is predicted by tpsim on the chosen hardware
//! preset ([`rows::predict`]). The chosen parameters are fitted on log time (so every row counts by
//! its relative error, whatever its size) in log-parameter space (so they stay positive), by
//! Levenberg–Marquardt with a finite-difference Jacobian, robust to outliers through Huber IRLS
//! ([`lm`]). Intervals are 95 % Student-t intervals from the covariance σ² (Jᵀ J)⁻¹ with Huber's
//! robust σ², mapped back through exp (so they are asymmetric around the value). The result is written as a profile
//! (`tpsim::scenario::profile`) that scenarios consume.
//!
//! `fit-throughput` ([`throughput`]) fits the same way to end-to-end decode tok/s of whole scenarios;
//! both go through [`solve_params`] (bounds, LM, intervals).

pub mod cli;
pub mod curves;
pub mod host;
mod linalg;
pub mod lm;
pub mod rows;
mod summary;
pub mod throughput;

pub use rows::{Op, Row};
pub use summary::{add_formats, curve_section, curve_text, formats_text, profile, sig6, text};

use statrs::distribution::{ContinuousCDF, StudentsT};
use tpsim::scenario::profile::{self as prof, ParamUnit};
use tpsim::scenario::profile_fit::{ProfileRange, span};
use tpsim::scenario::{Hardware, HwParams, ScenarioError};

/// How far a fitted parameter may move from its start value, either way (a factor of 100): far
/// beyond any plausible calibration, and a guard against a run-away fit on a flat direction.
const MAX_FACTOR: f64 = 100.0;

/// Errors of `fit` (all bad input: exit code 2).
#[derive(Debug, thiserror::Error)]
pub enum FitError {
    #[error("{file}: {message}")]
    Input { file: String, message: String },
    #[error("{0}")]
    Hardware(#[from] ScenarioError),
    #[error("--params: {0}")]
    Param(String),
    #[error("no row is sensitive to {0}; drop it from --params")]
    Insensitive(String),
    #[error("{0} and {1} change the predictions the same way on these rows: fit one of them")]
    Collinear(String, String),
    #[error("{rows} rows to fit for {params} parameters: need at least {params} + 1 rows")]
    TooFewRows { rows: usize, params: usize },
    #[error(
        "these rows do not determine {0} together (singular system at the fit's end: one of them stops mattering there); fit fewer parameters or add rows that exercise each"
    )]
    Singular(String),
    #[error("{0}")]
    Usage(String),
}

/// One fitted parameter, in its profile unit.
#[derive(Debug, Clone, PartialEq)]
pub struct FittedParam {
    pub name: String,
    pub unit: ParamUnit,
    pub start: f64,
    pub value: f64,
    /// 95 % interval, clipped to the range the fit may explore (start ÷ 100 … start × 100, and ≤ 1
    /// for fractions).
    pub ci_low: f64,
    pub ci_high: f64,
    /// The value ended on the edge of that range: the rows push it further than the fit allows, so
    /// neither the value nor the interval is determined by them.
    pub at_bound: bool,
}

/// Fit quality on a set of rows: median and worst |relative error| of the predictions.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Errors {
    pub rows: usize,
    pub median_abs: f64,
    pub worst_abs: f64,
}

/// Everything `fit` found.
#[derive(Debug, Clone)]
pub struct FitResult {
    pub params: Vec<FittedParam>,
    /// Rows fitted, and those held out.
    pub fitted_rows: usize,
    pub held_out_rows: usize,
    /// R² of log time on the fitted rows (1 − SS_res / SS_tot) and RMS of the log error.
    pub r2: f64,
    pub rms_log_error: f64,
    /// Rows whose robust weight fell below 0.5 (treated as outliers).
    pub downweighted: usize,
    pub before: Errors,
    pub after: Errors,
    /// The same on the held-out rows, when any.
    pub holdout_before: Option<Errors>,
    pub holdout_after: Option<Errors>,
    pub lm_iterations: usize,
    pub irls_rounds: usize,
    /// The hardware with the fitted values.
    pub hardware: Hardware,
    // Issue #19 point 6: what a profile needs to propagate the intervals honestly.
    /// Correlation of the fitted parameters (log scale), from the covariance of the intervals.
    pub correlation: Vec<Vec<f64>>,
    /// The span of the fitted rows (held-out rows excluded).
    pub range: ProfileRange,
}

/// Issue #19 point 6: the correlation matrix of a covariance (0 off the diagonal where a variance is 0).
pub fn correlation_of(cov: &[Vec<f64>]) -> Vec<Vec<f64>> {
    let sd: Vec<f64> = (0..cov.len()).map(|i| cov[i][i].max(0.0).sqrt()).collect();
    (0..cov.len())
        .map(|i| {
            (0..cov.len())
                .map(|j| match (i == j, sd[i] * sd[j]) {
                    (true, _) => 1.0,
                    (false, d) if d > 0.0 => (cov[i][j] / d).clamp(-1.0, 1.0),
                    _ => 0.0,
                })
                .collect()
        })
        .collect()
}

/// Default parameters: the link bandwidth of the GPUs' PCIe generation and the per-hop latency.
pub fn default_params(hw: &Hardware) -> Vec<String> {
    let bw = if hw.gpu.pcie_gen >= 5 {
        "pcie_gen5_x16_bw"
    } else {
        "pcie_gen4_x16_bw"
    };
    vec![bw.to_string(), "pcie_hop_latency".to_string()]
}

/// Fits `names` of `hw` to `rows`; rows for which `holdout` returns true are only evaluated.
pub fn fit(
    hw: &Hardware,
    rows: &[Row],
    names: &[String],
    holdout: &dyn Fn(&Row) -> bool,
) -> Result<FitResult, FitError> {
    let have = hw.topology.gpu_count();
    if let Some(r) = rows.iter().find(|r| r.n_gpus > have) {
        return Err(FitError::Usage(format!(
            "{}: {} GPUs, but the hardware has {have}",
            r.label, r.n_gpus
        )));
    }
    let (train, test): (Vec<Row>, Vec<Row>) = rows.iter().cloned().partition(|r| !holdout(r));
    if train.is_empty() {
        return Err(FitError::Usage("no row left to fit".into()));
    }
    let y: Vec<f64> = train.iter().map(|r| r.measured_us.ln()).collect();
    let mut model = |p: &HwParams| -> Result<Vec<f64>, String> {
        let mut h = hw.clone();
        h.params = p.clone();
        Ok(rows::predict(&h, &train).iter().map(|t| t.ln()).collect())
    };
    let (sol, params, fitted_params) = solve_params(&hw.params, names, &y, &mut model)?;
    let mut fitted = hw.clone();
    fitted.params = fitted_params;
    let mean = y.iter().sum::<f64>() / y.len() as f64;
    let ss_tot: f64 = y.iter().map(|v| (v - mean).powi(2)).sum();
    let ss_res: f64 = sol.residuals.iter().map(|r| r * r).sum();
    let errors = |h: &Hardware, rs: &[Row]| -> Option<Errors> {
        if rs.is_empty() {
            return None;
        }
        let e: Vec<f64> = rows::predict(h, rs)
            .iter()
            .zip(rs)
            .map(|(p, r)| ((p - r.measured_us) / r.measured_us).abs())
            .collect();
        Some(Errors {
            rows: e.len(),
            median_abs: lm::median(e.clone()),
            worst_abs: e.iter().copied().fold(0.0, f64::max),
        })
    };
    let none = Errors {
        rows: 0,
        median_abs: 0.0,
        worst_abs: 0.0,
    };
    Ok(FitResult {
        params,
        fitted_rows: train.len(),
        held_out_rows: test.len(),
        r2: if ss_tot > 0.0 { 1.0 - ss_res / ss_tot } else { 1.0 },
        rms_log_error: (ss_res / y.len() as f64).sqrt(),
        downweighted: sol.weights.iter().filter(|w| **w < 0.5).count(),
        before: errors(hw, &train).unwrap_or(none),
        after: errors(&fitted, &train).unwrap_or(none),
        holdout_before: errors(hw, &test),
        holdout_after: errors(&fitted, &test),
        lm_iterations: sol.lm_iterations,
        irls_rounds: sol.irls_rounds,
        hardware: fitted,
        correlation: correlation_of(&sol.covariance),
        range: ProfileRange {
            gpus: span(train.iter().map(|r| r.n_gpus as u64)),
            bytes: span(train.iter().map(|r| r.size_bytes)),
            ..Default::default()
        },
    })
}

/// The fit of `names` (parameters of `start`, in their profile units) to observations `y`, shared by
/// `fit` and `fit-throughput`: θ is the logarithm of each parameter (bounded to start ÷ 100 … start ×
/// 100, fractions ≤ 1, factors ≥ 1); `model` maps a full parameter set to one prediction per `y`, on
/// the same (log) scale. Returns the LM solution, each parameter with its 95 % Student-t interval, and
/// the fitted parameter set.
pub fn solve_params(
    start_params: &HwParams,
    names: &[String],
    y: &[f64],
    model: &mut dyn FnMut(&HwParams) -> Result<Vec<f64>, String>,
) -> Result<(lm::Solution, Vec<FittedParam>, HwParams), FitError> {
    solve_params_inner(start_params, names, y, model, false)
}

/// [`solve_params`], except that a fit whose system is singular at the end (a parameter stopped
/// mattering there) still gives its values, with NaN intervals, instead of [`FitError::Singular`]
/// ([`lm::solve_estimate`]): for `crossval`, which needs the values to predict with.
pub fn solve_params_estimate(
    start_params: &HwParams,
    names: &[String],
    y: &[f64],
    model: &mut dyn FnMut(&HwParams) -> Result<Vec<f64>, String>,
) -> Result<(lm::Solution, Vec<FittedParam>, HwParams), FitError> {
    solve_params_inner(start_params, names, y, model, true)
}

fn solve_params_inner(
    start_params: &HwParams,
    names: &[String],
    y: &[f64],
    model: &mut dyn FnMut(&HwParams) -> Result<Vec<f64>, String>,
    allow_singular: bool,
) -> Result<(lm::Solution, Vec<FittedParam>, HwParams), FitError> {
    let mut units = Vec::new();
    let mut start = Vec::new();
    for (i, n) in names.iter().enumerate() {
        if names[..i].contains(n) {
            return Err(FitError::Param(format!("`{n}` is listed twice")));
        }
        let unit = prof::param_unit(n).ok_or_else(|| {
            FitError::Param(format!(
                "`{n}` is not a fittable parameter: expected some of {}",
                prof::PROFILE_PARAMS
                    .iter()
                    .map(|(n, _)| *n)
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        })?;
        let v = prof::get(start_params, n)
            .ok_or_else(|| FitError::Param(format!("`{n}` is not set on this hardware")))?;
        if v <= 0.0 {
            return Err(FitError::Param(format!(
                "`{n}` starts at 0: a fit in log space needs a positive start value"
            )));
        }
        units.push(unit);
        start.push(v);
    }
    if names.is_empty() {
        return Err(FitError::Param("no parameter to fit".into()));
    }
    let with = |theta: &[f64]| -> Result<HwParams, String> {
        let mut p = start_params.clone();
        for (n, t) in names.iter().zip(theta) {
            prof::set(&mut p, n, t.exp()).map_err(|m| format!("{n}: {m}"))?;
        }
        Ok(p)
    };
    let mut theta_model = |theta: &[f64]| -> Result<Vec<f64>, String> { model(&with(theta)?) };
    let theta0: Vec<f64> = start.iter().map(|v| v.ln()).collect();
    let lower: Vec<f64> = theta0.iter().map(|t| t - MAX_FACTOR.ln()).collect();
    let upper: Vec<f64> = theta0
        .iter()
        .zip(&units)
        .map(|(t, u)| match u {
            // Fractions stay ≤ 1.
            ParamUnit::Fraction => (t + MAX_FACTOR.ln()).min(0.0),
            _ => t + MAX_FACTOR.ln(),
        })
        .collect();
    let lower: Vec<f64> = lower
        .iter()
        .zip(&units)
        .map(|(l, u)| if *u == ParamUnit::Factor { l.max(0.0) } else { *l })
        .collect();
    let solve = if allow_singular {
        lm::solve_estimate
    } else {
        lm::solve
    };
    let sol = solve(&mut theta_model, y, &theta0, &lower, &upper).map_err(|e| match e {
        lm::LmError::Model(m) => FitError::Usage(m),
        lm::LmError::Insensitive { index } => FitError::Insensitive(names[index].clone()),
        lm::LmError::Collinear { a, b } => FitError::Collinear(names[a].clone(), names[b].clone()),
        lm::LmError::TooFewRows { rows, params } => FitError::TooFewRows { rows, params },
        lm::LmError::Singular => FitError::Singular(names.join(", ")),
    })?;
    let t = StudentsT::new(0.0, 1.0, sol.dof as f64)
        .map_err(|e| FitError::Usage(format!("Student-t with {} dof: {e}", sol.dof)))?
        .inverse_cdf(0.975);
    let params: Vec<FittedParam> = names
        .iter()
        .enumerate()
        .map(|(k, n)| {
            let half = t * sol.covariance[k][k].max(0.0).sqrt();
            let th = sol.theta[k];
            FittedParam {
                name: n.clone(),
                unit: units[k],
                start: start[k],
                value: th.exp(),
                ci_low: (th - half).clamp(lower[k], upper[k]).exp(),
                ci_high: (th + half).clamp(lower[k], upper[k]).exp(),
                at_bound: (th - lower[k]).abs() < 1e-6 || (upper[k] - th).abs() < 1e-6,
            }
        })
        .collect();
    let fitted = with(&sol.theta).map_err(FitError::Usage)?;
    Ok((sol, params, fitted))
}
