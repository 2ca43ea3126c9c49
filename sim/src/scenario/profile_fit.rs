//! Issue #19 point 6: what a profile says about its own fit beyond each parameter's interval — the
//! correlation of the fitted parameters (`[correlation]`) and the range of the rows they were fitted
//! on (`[provenance.range]`) — and the checks on both and on the intervals themselves.
//!
//! `tpsim-calibrate fit` and `fit-throughput` fit every parameter on a log scale (calibrate/src/fit/
//! mod.rs, `solve_params`): the correlation is that of the log-parameters, from the same covariance
//! σ² (Jᵀ J)⁻¹ the intervals come from. A profile without `[correlation]` (every profile written
//! before it existed, and hand-written ones) stays valid: its parameters are then treated as
//! independent, and the report says so.

use super::profile::{ProfileFile, check};
use serde::{Deserialize, Serialize};

/// `[correlation]`: the fit's correlation matrix of its parameters (on the fit's log scale).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProfileCorrelation {
    /// The parameters, in the order of the matrix's rows and columns.
    pub params: Vec<String>,
    /// Symmetric, unit diagonal, entries in [−1, 1], positive semi-definite.
    pub matrix: Vec<Vec<f64>>,
}

/// `[provenance.range]`: the span of the fitted rows (held-out rows excluded), inclusive. A scenario
/// outside it is an extrapolation of the fit.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProfileRange {
    /// Requests decoded at once (batch size) of the fitted scenarios.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batch: Option<[u64; 2]>,
    /// Tensor-parallel size of the fitted scenarios.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tp: Option<[u64; 2]>,
    /// GPUs in the communicator of the fitted collective rows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpus: Option<[u64; 2]>,
    /// Message sizes of the fitted collective rows, bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes: Option<[u64; 2]>,
}

impl ProfileRange {
    /// Each stated span with its key, in a fixed order.
    pub fn spans(&self) -> Vec<(&'static str, [u64; 2])> {
        [
            ("batch", self.batch),
            ("tp", self.tp),
            ("gpus", self.gpus),
            ("bytes", self.bytes),
        ]
        .into_iter()
        .filter_map(|(k, v)| v.map(|v| (k, v)))
        .collect()
    }

    /// True when no span is stated.
    pub fn is_empty(&self) -> bool {
        self.spans().is_empty()
    }
}

/// The span `[lo, hi]` of `values` (None when empty).
pub fn span(values: impl IntoIterator<Item = u64>) -> Option<[u64; 2]> {
    values.into_iter().fold(None, |acc, v| match acc {
        None => Some([v, v]),
        Some([lo, hi]) => Some([lo.min(v), hi.max(v)]),
    })
}

/// Checks the intervals, `[correlation]` and `[provenance.range]` of `file`. An error is (key, what
/// was expected).
pub fn check_file(file: &ProfileFile) -> Result<(), (String, String)> {
    for (name, p) in &file.params {
        let key = |k: &str| format!("params.{name}.{k}");
        match (p.ci_low, p.ci_high) {
            (None, None) => {}
            (Some(_), None) => {
                return Err((
                    key("ci_high"),
                    "missing: `ci_low` needs `ci_high` (both or neither)".into(),
                ));
            }
            (None, Some(_)) => {
                return Err((
                    key("ci_low"),
                    "missing: `ci_high` needs `ci_low` (both or neither)".into(),
                ));
            }
            (Some(lo), Some(hi)) => {
                let v = p.value;
                if !lo.is_finite() || lo > v {
                    return Err((
                        key("ci_low"),
                        format!(
                            "interval [{lo}, {hi}] must be finite and contain the value {v}: expected a lower bound ≤ {v}"
                        ),
                    ));
                }
                if !hi.is_finite() || hi < v {
                    return Err((
                        key("ci_high"),
                        format!(
                            "interval [{lo}, {hi}] must be finite and contain the value {v}: expected an upper bound ≥ {v}"
                        ),
                    ));
                }
                // The interval's ends are values the prediction is evaluated at (crate::intervals).
                check(name, lo).map_err(|m| (key("ci_low"), m))?;
                check(name, hi).map_err(|m| (key("ci_high"), m))?;
            }
        }
    }
    if let Some(c) = &file.correlation {
        check_correlation(file, c)?;
    }
    if let Some(r) = &file.provenance.range {
        for (k, [lo, hi]) in r.spans() {
            let min = if k == "bytes" { 0 } else { 1 };
            if lo < min || lo > hi {
                return Err((
                    format!("provenance.range.{k}"),
                    format!("[{lo}, {hi}]: expected [low, high] with {min} ≤ low ≤ high"),
                ));
            }
        }
    }
    Ok(())
}

fn check_correlation(file: &ProfileFile, c: &ProfileCorrelation) -> Result<(), (String, String)> {
    let n = c.params.len();
    for (i, name) in c.params.iter().enumerate() {
        let has_interval = file
            .params
            .get(name)
            .is_some_and(|p| p.ci_low.is_some() && p.ci_high.is_some());
        if !has_interval || c.params[..i].contains(name) {
            return Err((
                "correlation.params".into(),
                format!("`{name}`: expected distinct parameters of this profile that have an interval"),
            ));
        }
    }
    let bad = |m: String| Err(("correlation.matrix".to_string(), m));
    if c.matrix.len() != n || c.matrix.iter().any(|r| r.len() != n) {
        return bad(format!(
            "expected {n} rows of {n} entries (one per parameter listed)"
        ));
    }
    for i in 0..n {
        for j in 0..n {
            let v = c.matrix[i][j];
            if !v.is_finite() || v.abs() > 1.0 + 1e-9 {
                return bad(format!(
                    "entry [{i}][{j}] = {v}: expected a correlation in [−1, 1]"
                ));
            }
            if i == j && (v - 1.0).abs() > 1e-6 {
                return bad(format!("diagonal entry [{i}][{i}] = {v}: expected 1"));
            }
            if (v - c.matrix[j][i]).abs() > 1e-6 {
                return bad(format!(
                    "entries [{i}][{j}] and [{j}][{i}] differ: expected a symmetric matrix"
                ));
            }
        }
    }
    if !positive_semidefinite(&c.matrix) {
        return bad("not positive semi-definite: not the correlation of any fit".into());
    }
    Ok(())
}

/// Cholesky with a tolerance of 1e-5 on the pivots (the matrices written carry 6 significant digits).
fn positive_semidefinite(m: &[Vec<f64>]) -> bool {
    let n = m.len();
    let mut l = vec![vec![0.0; n]; n];
    for i in 0..n {
        for j in 0..=i {
            let s: f64 = (0..j).map(|k| l[i][k] * l[j][k]).sum();
            if i == j {
                let d = m[i][i] - s;
                if d < -1e-5 {
                    return false;
                }
                l[i][i] = d.max(0.0).sqrt();
            } else {
                l[i][j] = if l[j][j] > 1e-12 {
                    (m[i][j] - s) / l[j][j]
                } else {
                    0.0
                };
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::positive_semidefinite;

    #[test]
    fn a_correlation_no_fit_can_give_is_refused() {
        // r12 = r13 = 0.9 forces r23 ≥ 2·0.81 − 1 = 0.62; −0.9 is impossible (determinant < 0).
        let m = |r23: f64| vec![vec![1.0, 0.9, 0.9], vec![0.9, 1.0, r23], vec![0.9, r23, 1.0]];
        assert!(!positive_semidefinite(&m(-0.9)));
        assert!(positive_semidefinite(&m(0.62)));
        assert!(positive_semidefinite(&m(0.9)));
        // ±1 off the diagonal of a 2 × 2 is singular but valid (perfectly correlated).
        assert!(positive_semidefinite(&[vec![1.0, -1.0], vec![-1.0, 1.0]]));
    }
}
