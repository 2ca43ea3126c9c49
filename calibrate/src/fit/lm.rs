//! Robust nonlinear least squares: Levenberg–Marquardt with a finite-difference Jacobian, inside an
//! iteratively reweighted (IRLS) loop with Huber weights, and the covariance of the estimate.
//!
//! The model maps a parameter vector θ (here the logarithms of the hardware parameters) to one
//! predicted value per row (here ln time); residuals are prediction − observation. Everything is
//! deterministic: fixed step sizes, fixed iteration limits, no randomness.

use super::linalg::{self, Matrix};

/// Relative step of the central finite differences, in θ (log-parameter) units: a 0.1 % change of
/// the parameter, far above the 1 ps resolution of simulated times (≥ 1 µs here) and small enough
/// to stay on one piece of a piecewise-linear flow simulation.
const FD_STEP: f64 = 1e-3;
/// Huber's tuning constant (95 % efficiency under normal errors; Huber 1964, Holland & Welsch 1977),
/// in units of the robust residual scale.
pub const HUBER_K: f64 = 1.345;
/// Consistency factor that makes the median absolute deviation estimate σ under normal errors
/// (1 / Φ⁻¹(3/4)).
const MAD_TO_SIGMA: f64 = 1.482_6;
/// A parameter whose 1 % change moves no prediction by more than 0.001 % is not identifiable.
pub const MIN_SENSITIVITY: f64 = 1e-3;
/// Two parameters whose Jacobian columns have |cosine| above this cannot be told apart.
const MAX_COLLINEARITY: f64 = 0.9999;
const MAX_LM_ITERATIONS: usize = 100;
const MAX_IRLS_ROUNDS: usize = 10;
/// LM stops when a step moves no θ by more than this (a 0.0001 % change of a parameter) or lowers
/// the cost by less than this fraction: far below the intervals of any real fit.
const STEP_TOLERANCE: f64 = 1e-6;
const GAIN_TOLERANCE: f64 = 1e-6;
/// IRLS stops when no robust weight changes by more than this between rounds, or when a round
/// moved no θ by more than `THETA_TOLERANCE` (0.01 % of a parameter, far inside any interval).
const WEIGHT_TOLERANCE: f64 = 1e-3;
const THETA_TOLERANCE: f64 = 1e-4;

/// A model: θ → one predicted value per row.
pub type Model<'a, E> = dyn FnMut(&[f64]) -> Result<Vec<f64>, E> + 'a;
/// Residuals: θ → prediction − observation per row.
type Residuals<'a, E> = dyn FnMut(&[f64]) -> Result<Vec<f64>, LmError<E>> + 'a;

/// Why the solver stopped without an estimate.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LmError<E> {
    /// The model failed (bad parameter value, simulation error).
    #[error(transparent)]
    Model(E),
    /// No row's prediction moves when parameter `index` moves.
    #[error("no row is sensitive to parameter #{index}")]
    Insensitive { index: usize },
    /// Parameters `a` and `b` move the predictions the same way.
    #[error("parameters #{a} and #{b} cannot be told apart")]
    Collinear { a: usize, b: usize },
    /// Fewer rows than parameters + 1: no residual degree of freedom for an interval.
    #[error("{rows} rows for {params} parameters: need at least {params} + 1")]
    TooFewRows { rows: usize, params: usize },
    /// JᵀWJ cannot be inverted although no pair of columns is collinear: the rows do not
    /// determine all parameters together (typically one stops mattering at the solution).
    #[error("the rows do not determine all parameters together (singular system)")]
    Singular,
}

/// The estimate.
#[derive(Debug, Clone, PartialEq)]
pub struct Solution {
    pub theta: Vec<f64>,
    /// Covariance of θ: σ² (Jᵀ J)⁻¹ with Huber's σ² (below).
    pub covariance: Matrix,
    /// Residual variance of the M-estimate, Huber's H1 form (equal to Σ r² / (n − p) when no row
    /// was down-weighted).
    pub sigma2: f64,
    /// n − p.
    pub dof: usize,
    /// Final residuals (prediction − observation) and robust weights in (0, 1].
    pub residuals: Vec<f64>,
    pub weights: Vec<f64>,
    pub lm_iterations: usize,
    pub irls_rounds: usize,
}

/// Fits θ to `y` starting at `theta0`, within `[lower, upper]` per component.
pub fn solve<E>(
    model: &mut Model<'_, E>,
    y: &[f64],
    theta0: &[f64],
    lower: &[f64],
    upper: &[f64],
) -> Result<Solution, LmError<E>> {
    solve_inner(model, y, theta0, lower, upper, false)
}

/// [`solve`], except that a system singular at the end (a parameter stopped mattering there, e.g. on
/// its bound) still gives its estimate, with a NaN covariance (no interval), instead of
/// [`LmError::Singular`]. For callers that need the point estimate only (`crossval`'s predictions).
pub fn solve_estimate<E>(
    model: &mut Model<'_, E>,
    y: &[f64],
    theta0: &[f64],
    lower: &[f64],
    upper: &[f64],
) -> Result<Solution, LmError<E>> {
    solve_inner(model, y, theta0, lower, upper, true)
}

fn solve_inner<E>(
    model: &mut Model<'_, E>,
    y: &[f64],
    theta0: &[f64],
    lower: &[f64],
    upper: &[f64],
    allow_singular: bool,
) -> Result<Solution, LmError<E>> {
    let (n, p) = (y.len(), theta0.len());
    if n <= p {
        return Err(LmError::TooFewRows { rows: n, params: p });
    }
    let mut eval = |t: &[f64]| -> Result<Vec<f64>, LmError<E>> {
        let f = model(t).map_err(LmError::Model)?;
        Ok(f.iter().zip(y).map(|(f, y)| f - y).collect())
    };
    let mut theta = theta0.to_vec();
    let r0 = eval(&theta)?;
    let j0 = jacobian(&mut eval, &theta, &r0, lower, upper)?;
    identifiable(&j0)?;
    let mut weights = vec![1.0; n];
    let mut lm_iterations = 0;
    let mut irls_rounds = 0;
    for _ in 0..MAX_IRLS_ROUNDS {
        irls_rounds += 1;
        let before = theta.clone();
        lm_iterations += levenberg_marquardt(&mut eval, &mut theta, &weights, lower, upper)?;
        let moved = theta
            .iter()
            .zip(&before)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        let r = eval(&theta)?;
        let new = huber_weights(&r);
        let change = new
            .iter()
            .zip(&weights)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        weights = new;
        if change < WEIGHT_TOLERANCE || (irls_rounds > 1 && moved < THETA_TOLERANCE) {
            break;
        }
    }
    let residuals = eval(&theta)?;
    let j = jacobian(&mut eval, &theta, &residuals, lower, upper)?;
    // Huber's covariance of an M-estimate ("H1", Huber 1981 §7.6; statsmodels RLM's default):
    // K² · [Σ ψ(r)² / (n − p)] / (mean ψ′)² · (Jᵀ J)⁻¹ with ψ(r) = w·r, ψ′ = 1 on the rows that kept
    // weight 1 and 0 on the down-weighted ones, K = 1 + (p / n) · var ψ′ / (mean ψ′)². With every
    // weight 1 it is the least-squares σ² (Jᵀ J)⁻¹. (Σ w r² alone would understate σ²: the largest
    // residuals carry the smallest weights.)
    let ones = vec![1.0; n];
    let (a, _) = normal_equations(&j, &ones, &residuals);
    let dof = n - p;
    let psi2: f64 = residuals.iter().zip(&weights).map(|(r, w)| (w * r).powi(2)).sum();
    let m = weights.iter().filter(|w| **w >= 1.0).count() as f64 / n as f64;
    let k = 1.0 + (p as f64 / n as f64) * (1.0 - m) / m.max(1.0 / n as f64);
    let sigma2 = k * k * psi2 / dof as f64 / (m * m).max(1.0 / (n * n) as f64);
    let covariance = match linalg::inverse(&a) {
        Some(inv) => inv
            .iter()
            .map(|row| row.iter().map(|v| v * sigma2).collect())
            .collect(),
        None if allow_singular => vec![vec![f64::NAN; p]; p],
        None => return Err(collinear_pair(&j)),
    };
    Ok(Solution {
        theta,
        covariance,
        sigma2,
        dof,
        residuals,
        weights,
        lm_iterations,
        irls_rounds,
    })
}

/// Huber weights min(1, k·s / |r|) with s the normalised median absolute deviation of `r` (all 1
/// when the residuals are all equal).
pub fn huber_weights(r: &[f64]) -> Vec<f64> {
    let med = median(r.to_vec());
    let s = MAD_TO_SIGMA * median(r.iter().map(|x| (x - med).abs()).collect());
    r.iter()
        .map(|x| {
            let a = (x - med).abs();
            if s > 0.0 && a > HUBER_K * s {
                HUBER_K * s / a
            } else {
                1.0
            }
        })
        .collect()
}

/// Median of `v` (mean of the two middle values for an even count; 0 for none).
pub fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => 0.0,
        k if k % 2 == 1 => v[k / 2],
        k => (v[k / 2 - 1] + v[k / 2]) / 2.0,
    }
}

/// Levenberg–Marquardt on Σ w r², Marquardt's diagonal scaling; returns the iterations taken.
fn levenberg_marquardt<E>(
    eval: &mut Residuals<'_, E>,
    theta: &mut Vec<f64>,
    w: &[f64],
    lower: &[f64],
    upper: &[f64],
) -> Result<usize, LmError<E>> {
    let cost = |r: &[f64]| r.iter().zip(w).map(|(r, w)| w * r * r).sum::<f64>();
    let mut r = eval(theta)?;
    let mut c = cost(&r);
    let mut lambda = 1e-3;
    for it in 0..MAX_LM_ITERATIONS {
        let j = jacobian(eval, theta, &r, lower, upper)?;
        let (a, g) = normal_equations(&j, w, &r);
        let mut accepted = None;
        while lambda <= 1e10 {
            let mut m = a.clone();
            for (k, row) in m.iter_mut().enumerate() {
                row[k] += lambda * a[k][k];
            }
            let neg_g: Vec<f64> = g.iter().map(|x| -x).collect();
            let Some(delta) = linalg::solve(&m, &neg_g) else {
                lambda *= 10.0;
                continue;
            };
            let trial: Vec<f64> = theta
                .iter()
                .zip(&delta)
                .enumerate()
                .map(|(k, (t, d))| (t + d).clamp(lower[k], upper[k]))
                .collect();
            let rt = eval(&trial)?;
            let ct = cost(&rt);
            if ct < c {
                accepted = Some((trial, rt, ct));
                lambda = (lambda / 10.0).max(1e-12);
                break;
            }
            lambda *= 10.0;
        }
        let Some((trial, rt, ct)) = accepted else {
            return Ok(it);
        };
        let step = trial
            .iter()
            .zip(theta.iter())
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        let gain = c - ct;
        *theta = trial;
        r = rt;
        c = ct;
        if step < STEP_TOLERANCE || gain <= GAIN_TOLERANCE * c {
            return Ok(it + 1);
        }
    }
    Ok(MAX_LM_ITERATIONS)
}

/// Jᵀ W J and Jᵀ W r.
fn normal_equations(j: &Matrix, w: &[f64], r: &[f64]) -> (Matrix, Vec<f64>) {
    let p = j.first().map_or(0, Vec::len);
    let mut a = vec![vec![0.0; p]; p];
    let mut g = vec![0.0; p];
    for ((row, wi), ri) in j.iter().zip(w).zip(r) {
        for k in 0..p {
            g[k] += wi * row[k] * ri;
            for l in 0..p {
                a[k][l] += wi * row[k] * row[l];
            }
        }
    }
    (a, g)
}

/// Central differences (one-sided at a bound) around `theta`, whose residuals are `base`: row i,
/// column k = ∂r_i / ∂θ_k.
fn jacobian<E>(
    eval: &mut Residuals<'_, E>,
    theta: &[f64],
    base: &[f64],
    lower: &[f64],
    upper: &[f64],
) -> Result<Matrix, LmError<E>> {
    let mut j = vec![vec![0.0; theta.len()]; base.len()];
    for k in 0..theta.len() {
        let up = (theta[k] + FD_STEP).min(upper[k]);
        let down = (theta[k] - FD_STEP).max(lower[k]);
        let mut t = theta.to_vec();
        t[k] = up;
        let fu = if up > theta[k] { eval(&t)? } else { base.to_vec() };
        t[k] = down;
        let fd = if down < theta[k] { eval(&t)? } else { base.to_vec() };
        let h = up - down;
        for (i, row) in j.iter_mut().enumerate() {
            row[k] = if h > 0.0 { (fu[i] - fd[i]) / h } else { 0.0 };
        }
    }
    Ok(j)
}

/// Refuses columns no row responds to and pairs of columns that point the same way.
fn identifiable<E>(j: &Matrix) -> Result<(), LmError<E>> {
    let p = j.first().map_or(0, Vec::len);
    for k in 0..p {
        let max = j.iter().map(|row| row[k].abs()).fold(0.0, f64::max);
        if max < MIN_SENSITIVITY {
            return Err(LmError::Insensitive { index: k });
        }
    }
    match collinear_pair::<E>(j) {
        e @ LmError::Collinear { .. } => Err(e),
        _ => Ok(()),
    }
}

/// The most collinear pair of Jacobian columns (|cosine| > [`MAX_COLLINEARITY`]) as an error, or
/// [`LmError::Singular`] when none is.
fn collinear_pair<E>(j: &Matrix) -> LmError<E> {
    let p = j.first().map_or(0, Vec::len);
    let col = |k: usize| j.iter().map(move |row| row[k]);
    for a in 0..p {
        for b in a + 1..p {
            let dot: f64 = col(a).zip(col(b)).map(|(x, y)| x * y).sum();
            let na: f64 = col(a).map(|x| x * x).sum::<f64>().sqrt();
            let nb: f64 = col(b).map(|x| x * x).sum::<f64>().sqrt();
            if na > 0.0 && nb > 0.0 && (dot / (na * nb)).abs() > MAX_COLLINEARITY {
                return LmError::Collinear { a, b };
            }
        }
    }
    LmError::Singular
}

#[cfg(test)]
mod tests {
    use super::*;

    /// y = ln(a · x + b) on x = 1..=8 with a = 2, b = 5 (θ = ln a, ln b): recovered from (1, 1).
    #[test]
    fn recovers_a_two_parameter_model_exactly() {
        let xs: Vec<f64> = (1..=8).map(f64::from).collect();
        let y: Vec<f64> = xs.iter().map(|x| (2.0 * x + 5.0_f64).ln()).collect();
        let mut model = |t: &[f64]| -> Result<Vec<f64>, ()> {
            Ok(xs.iter().map(|x| (t[0].exp() * x + t[1].exp()).ln()).collect())
        };
        let s = solve(&mut model, &y, &[0.0, 0.0], &[-5.0, -5.0], &[5.0, 5.0]).unwrap();
        assert!((s.theta[0].exp() - 2.0).abs() < 1e-6, "{:?}", s.theta);
        assert!((s.theta[1].exp() - 5.0).abs() < 1e-5, "{:?}", s.theta);
        assert_eq!(s.dof, 6);
    }

    #[test]
    fn refuses_a_parameter_no_row_depends_on() {
        let y = vec![1.0, 2.0, 3.0];
        let mut model = |t: &[f64]| -> Result<Vec<f64>, ()> { Ok(vec![t[0], 2.0 * t[0], 3.0 * t[0]]) };
        let e = solve(&mut model, &y, &[0.5, 0.0], &[-5.0; 2], &[5.0; 2]).unwrap_err();
        assert_eq!(e, LmError::Insensitive { index: 1 });
    }

    #[test]
    fn refuses_two_parameters_that_act_the_same() {
        let y = vec![1.0, 2.0, 3.0];
        let mut model = |t: &[f64]| -> Result<Vec<f64>, ()> {
            Ok((1..=3).map(|x| f64::from(x) * (t[0] + t[1])).collect())
        };
        let e = solve(&mut model, &y, &[0.5, 0.5], &[-5.0; 2], &[5.0; 2]).unwrap_err();
        assert_eq!(e, LmError::Collinear { a: 0, b: 1 });
    }

    #[test]
    fn huber_downweights_one_outlier_only() {
        // Residuals 0, ±0.01 … and one 1.0: median 0, MAD 0.01 → s = 0.0148; the outlier's weight is
        // 1.345 × 0.0148 / 1.0 ≈ 0.0199, the others keep 1.
        let r = vec![0.0, 0.01, -0.01, 0.01, -0.01, 1.0, 0.0];
        let w = huber_weights(&r);
        assert!((w[5] - HUBER_K * MAD_TO_SIGMA * 0.01).abs() < 1e-9, "{w:?}");
        assert!(
            w.iter()
                .enumerate()
                .all(|(i, w)| i == 5 || (*w - 1.0).abs() < 1e-12)
        );
    }
}
