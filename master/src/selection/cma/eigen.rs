//! The eigen-decomposition of a symmetric matrix by cyclic Jacobi rotations: plain loops in a
//! fixed order, so the same matrix gives the same bits on every run (no BLAS, no threads).

/// The eigenvalues of the symmetric `n × n` matrix `a` (row-major) and its eigenvectors, as the
/// columns of an `n × n` row-major matrix, in the order of the values.
pub fn symmetric(a: &[f64], n: usize) -> (Vec<f64>, Vec<f64>) {
    let mut a = a.to_vec();
    let mut v = vec![0.0; n * n];
    (0..n).for_each(|i| v[i * n + i] = 1.0);
    let total: f64 = a.iter().map(|x| x * x).sum();
    // Converges quadratically; 60 sweeps is far beyond what any covariance matrix needs.
    for _ in 0..60 {
        let off: f64 = (0..n).flat_map(|p| (p + 1..n).map(move |q| (p, q))).map(|(p, q)| a[p * n + q].powi(2)).sum();
        if off <= total * 1e-34 || off == 0.0 {
            break;
        }
        for p in 0..n {
            for q in p + 1..n {
                let apq = a[p * n + q];
                if apq == 0.0 {
                    continue;
                }
                let theta = (a[q * n + q] - a[p * n + p]) / (2.0 * apq);
                // The smaller root of t² + 2θt − 1 = 0, which zeroes a[p][q].
                let t = if theta.abs() > 1e150 {
                    0.5 / theta
                } else {
                    theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt())
                };
                let t = if theta == 0.0 { 1.0 } else { t };
                let c = 1.0 / (t * t + 1.0).sqrt();
                let s = t * c;
                rotate_columns(&mut a, n, p, q, c, s);
                rotate_rows(&mut a, n, p, q, c, s);
                rotate_columns(&mut v, n, p, q, c, s);
            }
        }
    }
    ((0..n).map(|i| a[i * n + i]).collect(), v)
}

/// Columns p and q of `m` times the rotation [[c, s], [−s, c]].
fn rotate_columns(m: &mut [f64], n: usize, p: usize, q: usize, c: f64, s: f64) {
    for k in 0..n {
        let (x, y) = (m[k * n + p], m[k * n + q]);
        m[k * n + p] = c * x - s * y;
        m[k * n + q] = s * x + c * y;
    }
}

/// Rows p and q of `m` replaced by the rotation's transpose times them.
fn rotate_rows(m: &mut [f64], n: usize, p: usize, q: usize, c: f64, s: f64) {
    for k in 0..n {
        let (x, y) = (m[p * n + k], m[q * n + k]);
        m[p * n + k] = c * x - s * y;
        m[q * n + k] = s * x + c * y;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::GaRng;

    #[test]
    fn a_two_by_two_matrix_has_its_closed_form_eigenvalues() {
        // [[2, 1], [1, 2]]: eigenvalues 1 and 3, eigenvectors (1, ∓1)/√2.
        let (mut values, v) = symmetric(&[2.0, 1.0, 1.0, 2.0], 2);
        let r = std::f64::consts::FRAC_1_SQRT_2;
        for (i, &value) in values.iter().enumerate() {
            let (x, y) = (v[i], v[2 + i]);
            let expected = if (value - 3.0).abs() < 1e-12 { [r, r] } else { [r, -r] };
            assert!((x.abs() - expected[0].abs()).abs() < 1e-12 && (x * y - expected[0] * expected[1]).abs() < 1e-12);
        }
        values.sort_by(f64::total_cmp);
        assert!((values[0] - 1.0).abs() < 1e-14 && (values[1] - 3.0).abs() < 1e-14, "{values:?}");
    }

    #[test]
    fn a_random_symmetric_matrix_is_rebuilt_from_orthonormal_eigenvectors() {
        let n = 40;
        let mut rng = GaRng::from_seed(3);
        let mut a = vec![0.0; n * n];
        for i in 0..n {
            for j in i..n {
                let x = rng.normal();
                a[i * n + j] = x;
                a[j * n + i] = x;
            }
        }
        let (values, v) = symmetric(&a, n);
        // The trace is kept, VᵀV = I and V Λ Vᵀ = A.
        let trace: f64 = (0..n).map(|i| a[i * n + i]).sum();
        assert!((values.iter().sum::<f64>() - trace).abs() < 1e-10);
        for i in 0..n {
            for j in 0..n {
                let dot: f64 = (0..n).map(|k| v[k * n + i] * v[k * n + j]).sum();
                assert!((dot - f64::from(u8::from(i == j))).abs() < 1e-12, "columns {i} and {j}: {dot}");
                let rebuilt: f64 = (0..n).map(|k| v[i * n + k] * values[k] * v[j * n + k]).sum();
                assert!((rebuilt - a[i * n + j]).abs() < 1e-11, "a[{i}][{j}]");
            }
        }
    }
}
