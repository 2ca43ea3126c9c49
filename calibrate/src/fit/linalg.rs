//! Dense symmetric positive-definite solves for the fit's normal equations.
//!
//! The systems are p × p with p the number of fitted parameters (a handful): a Cholesky
//! factorisation in a few lines is clearer here than a dependency on a linear-algebra crate.

/// A square matrix, row-major.
pub type Matrix = Vec<Vec<f64>>;

/// Lower-triangular Cholesky factor L of the symmetric matrix `a` (a = L·Lᵀ), or `None` when `a` is
/// not positive definite (a pivot ≤ `1e-14` × the largest diagonal entry).
pub fn cholesky(a: &Matrix) -> Option<Matrix> {
    let n = a.len();
    let scale = (0..n).map(|i| a[i][i].abs()).fold(0.0, f64::max);
    let mut l = vec![vec![0.0; n]; n];
    for i in 0..n {
        for j in 0..=i {
            let s: f64 = (0..j).map(|k| l[i][k] * l[j][k]).sum();
            if i == j {
                let d = a[i][i] - s;
                if !(d.is_finite() && d > 1e-14 * scale) {
                    return None;
                }
                l[i][i] = d.sqrt();
            } else {
                l[i][j] = (a[i][j] - s) / l[j][j];
            }
        }
    }
    Some(l)
}

/// Solves a·x = b for symmetric positive-definite `a`; `None` if `a` is not.
pub fn solve(a: &Matrix, b: &[f64]) -> Option<Vec<f64>> {
    let l = cholesky(a)?;
    Some(solve_factored(&l, b))
}

fn solve_factored(l: &Matrix, b: &[f64]) -> Vec<f64> {
    let n = l.len();
    let mut y = vec![0.0; n];
    for i in 0..n {
        let s: f64 = (0..i).map(|k| l[i][k] * y[k]).sum();
        y[i] = (b[i] - s) / l[i][i];
    }
    let mut x = vec![0.0; n];
    for i in (0..n).rev() {
        let s: f64 = (i + 1..n).map(|k| l[k][i] * x[k]).sum();
        x[i] = (y[i] - s) / l[i][i];
    }
    x
}

/// Inverse of symmetric positive-definite `a`; `None` if `a` is not.
pub fn inverse(a: &Matrix) -> Option<Matrix> {
    let l = cholesky(a)?;
    let n = a.len();
    let mut inv = vec![vec![0.0; n]; n];
    for j in 0..n {
        let mut e = vec![0.0; n];
        e[j] = 1.0;
        let col = solve_factored(&l, &e);
        for i in 0..n {
            inv[i][j] = col[i];
        }
    }
    Some(inv)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solves_and_inverts_a_2x2_by_hand() {
        // [[4, 2], [2, 3]]: det 8, inverse [[3/8, −2/8], [−2/8, 4/8]]; x for b = (2, 1) is (0.5, 0).
        let a = vec![vec![4.0, 2.0], vec![2.0, 3.0]];
        let x = solve(&a, &[2.0, 1.0]).unwrap();
        assert!((x[0] - 0.5).abs() < 1e-12 && x[1].abs() < 1e-12, "{x:?}");
        let inv = inverse(&a).unwrap();
        assert!((inv[0][0] - 0.375).abs() < 1e-12);
        assert!((inv[0][1] + 0.25).abs() < 1e-12);
        assert!((inv[1][1] - 0.5).abs() < 1e-12);
    }

    #[test]
    fn refuses_a_singular_matrix() {
        let a = vec![vec![1.0, 2.0], vec![2.0, 4.0]];
        assert!(cholesky(&a).is_none());
    }
}
