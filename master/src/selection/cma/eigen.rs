//! The eigen-decomposition of a symmetric matrix by cyclic Jacobi rotations: plain loops in a
//! fixed order, so the same matrix gives the same bits on every run (no BLAS, no threads).

/// The eigenvalues of the symmetric `n × n` matrix `a` (row-major) and its eigenvectors, as the
/// columns of an `n × n` row-major matrix, in the order of the values.
pub fn symmetric(a: &[f64], n: usize) -> (Vec<f64>, Vec<f64>) {
    let mut a = a.to_vec();
    // Vᵀ, so that a rotation works on two contiguous rows.
    let mut vt = vec![0.0; n * n];
    (0..n).for_each(|i| vt[i * n + i] = 1.0);
    // Converges quadratically: a few sweeps, and fewer from a nearly diagonal matrix.
    for _ in 0..60 {
        let mut rotated = false;
        for p in 0..n {
            for q in p + 1..n {
                let (app, aqq, apq) = (a[p * n + p], a[q * n + q], a[p * n + q]);
                // Below this an entry cannot change a diagonal value in its last bit.
                if apq == 0.0 || apq * apq <= 1e-36 * (app * aqq).abs() {
                    continue;
                }
                rotated = true;
                let theta = (aqq - app) / (2.0 * apq);
                // The smaller root of t² + 2θt − 1 = 0, which zeroes a[p][q].
                let t = match theta {
                    0.0 => 1.0,
                    _ if theta.abs() > 1e150 => 0.5 / theta,
                    _ => theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt()),
                };
                let c = 1.0 / (t * t + 1.0).sqrt();
                let s = t * c;
                // Rows p and q of JᵀAJ off the diagonal block, then the block in closed form;
                // the columns are their mirror image.
                rotate_rows(&mut a, n, p, q, c, s);
                a[p * n + p] = app - t * apq;
                a[q * n + q] = aqq + t * apq;
                a[p * n + q] = 0.0;
                a[q * n + p] = 0.0;
                for k in (0..n).filter(|&k| k != p && k != q) {
                    a[k * n + p] = a[p * n + k];
                    a[k * n + q] = a[q * n + k];
                }
                rotate_rows(&mut vt, n, p, q, c, s);
            }
        }
        if !rotated {
            break;
        }
    }
    let mut v = vec![0.0; n * n];
    (0..n).for_each(|i| (0..n).for_each(|j| v[j * n + i] = vt[i * n + j]));
    ((0..n).map(|i| a[i * n + i]).collect(), v)
}

/// Rows p and q of `m` replaced by c·p − s·q and s·p + c·q.
fn rotate_rows(m: &mut [f64], n: usize, p: usize, q: usize, c: f64, s: f64) {
    for k in 0..n {
        let (x, y) = (m[p * n + k], m[q * n + k]);
        m[p * n + k] = c * x - s * y;
        m[q * n + k] = s * x + c * y;
    }
}

/// The product of the row-major n × n matrices `x` and `y`, or of `xᵀ` and `y`.
pub fn product(x: &[f64], y: &[f64], n: usize, transpose_x: bool) -> Vec<f64> {
    let mut out = vec![0.0; n * n];
    for i in 0..n {
        for k in 0..n {
            let xik = if transpose_x { x[k * n + i] } else { x[i * n + k] };
            let row = &y[k * n..(k + 1) * n];
            out[i * n..(i + 1) * n].iter_mut().zip(row).for_each(|(o, y)| *o += xik * y);
        }
    }
    out
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
