//! The eigen-decomposition of a symmetric matrix: Householder reduction to tridiagonal form and
//! the implicit QL algorithm (EISPACK's tred2 and tql2, as JAMA writes them), plain loops in a
//! fixed order, so the same matrix gives the same bits on every run (no BLAS, no threads).

/// The eigenvalues of the symmetric `n × n` matrix `a` (row-major) and its eigenvectors, as the
/// columns of an `n × n` row-major matrix, in the order of the values.
pub fn symmetric(a: &[f64], n: usize) -> (Vec<f64>, Vec<f64>) {
    if n == 0 {
        return (Vec::new(), Vec::new());
    }
    let mut v = a.to_vec();
    let (mut d, mut e) = (vec![0.0; n], vec![0.0; n]);
    tridiagonalise(&mut v, &mut d, &mut e, n);
    ql(&mut v, &mut d, &mut e, n);
    (d, v)
}

/// Householder reduction of the symmetric matrix `v` to tridiagonal form (EISPACK's tred2): the
/// diagonal in `d`, the subdiagonal in `e[1..]`, the orthogonal transformation in `v`.
fn tridiagonalise(v: &mut [f64], d: &mut [f64], e: &mut [f64], n: usize) {
    let at = |i: usize, j: usize| i * n + j;
    d.copy_from_slice(&v[at(n - 1, 0)..at(n - 1, 0) + n]);
    for i in (1..n).rev() {
        let scale: f64 = d[..i].iter().map(|x| x.abs()).sum();
        let mut h = 0.0;
        if scale == 0.0 {
            e[i] = d[i - 1];
            for j in 0..i {
                d[j] = v[at(i - 1, j)];
                v[at(i, j)] = 0.0;
                v[at(j, i)] = 0.0;
            }
        } else {
            for x in &mut d[..i] {
                *x /= scale;
                h += *x * *x;
            }
            let f = d[i - 1];
            let g = if f > 0.0 { -h.sqrt() } else { h.sqrt() };
            e[i] = scale * g;
            h -= f * g;
            d[i - 1] = f - g;
            e[..i].iter_mut().for_each(|x| *x = 0.0);
            for j in 0..i {
                let f = d[j];
                v[at(j, i)] = f;
                let mut g = e[j] + v[at(j, j)] * f;
                for k in j + 1..i {
                    g += v[at(k, j)] * d[k];
                    e[k] += v[at(k, j)] * f;
                }
                e[j] = g;
            }
            let mut f = 0.0;
            for j in 0..i {
                e[j] /= h;
                f += e[j] * d[j];
            }
            let hh = f / (h + h);
            for j in 0..i {
                e[j] -= hh * d[j];
            }
            for j in 0..i {
                let (f, g) = (d[j], e[j]);
                for k in j..i {
                    v[at(k, j)] -= f * e[k] + g * d[k];
                }
                d[j] = v[at(i - 1, j)];
                v[at(i, j)] = 0.0;
            }
        }
        d[i] = h;
    }
    // Accumulate the transformations.
    for i in 0..n - 1 {
        v[at(n - 1, i)] = v[at(i, i)];
        v[at(i, i)] = 1.0;
        let h = d[i + 1];
        if h != 0.0 {
            for k in 0..=i {
                d[k] = v[at(k, i + 1)] / h;
            }
            for j in 0..=i {
                let g: f64 = (0..=i).map(|k| v[at(k, i + 1)] * v[at(k, j)]).sum();
                for k in 0..=i {
                    v[at(k, j)] -= g * d[k];
                }
            }
        }
        for k in 0..=i {
            v[at(k, i + 1)] = 0.0;
        }
    }
    for j in 0..n {
        d[j] = v[at(n - 1, j)];
        v[at(n - 1, j)] = 0.0;
    }
    v[at(n - 1, n - 1)] = 1.0;
    e[0] = 0.0;
}

/// The symmetric tridiagonal matrix of `d` and `e` diagonalised by the implicit QL algorithm
/// (EISPACK's tql2), its rotations applied to `v`: the eigenvalues in `d`.
fn ql(v: &mut [f64], d: &mut [f64], e: &mut [f64], n: usize) {
    let at = |i: usize, j: usize| i * n + j;
    for i in 1..n {
        e[i - 1] = e[i];
    }
    e[n - 1] = 0.0;
    let (mut f, mut tst1, eps) = (0.0f64, 0.0f64, f64::EPSILON);
    for l in 0..n {
        tst1 = tst1.max(d[l].abs() + e[l].abs());
        let mut m = l;
        while m < n - 1 && e[m].abs() > eps * tst1 {
            m += 1;
        }
        // Iterate until e[l] is negligible (a handful of times, rarely more than 30).
        for _ in 0..200 {
            if m <= l || e[l].abs() <= eps * tst1 {
                break;
            }
            let g = d[l];
            let mut p = (d[l + 1] - g) / (2.0 * e[l]);
            let r = if p < 0.0 { -p.hypot(1.0) } else { p.hypot(1.0) };
            d[l] = e[l] / (p + r);
            d[l + 1] = e[l] * (p + r);
            let dl1 = d[l + 1];
            let h = g - d[l];
            d[l + 2..n].iter_mut().for_each(|x| *x -= h);
            f += h;
            p = d[m];
            let (mut c, mut c2, mut c3) = (1.0, 1.0, 1.0);
            let el1 = e[l + 1];
            let (mut s, mut s2) = (0.0, 0.0);
            for i in (l..m).rev() {
                c3 = c2;
                c2 = c;
                s2 = s;
                let g = c * e[i];
                let h = c * p;
                let r = p.hypot(e[i]);
                e[i + 1] = s * r;
                s = e[i] / r;
                c = p / r;
                p = c * d[i] - s * g;
                d[i + 1] = h + s * (c * g + s * d[i]);
                for k in 0..n {
                    let h = v[at(k, i + 1)];
                    v[at(k, i + 1)] = s * v[at(k, i)] + c * h;
                    v[at(k, i)] = c * v[at(k, i)] - s * h;
                }
            }
            p = -s * s2 * c3 * el1 * e[l] / dl1;
            e[l] = s * p;
            d[l] = c * p;
        }
        d[l] += f;
        e[l] = 0.0;
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
    fn a_diagonal_matrix_keeps_its_values_and_the_unit_vectors() {
        for n in [1, 2, 5] {
            let a: Vec<f64> =
                (0..n * n).map(|i| if i % (n + 1) == 0 { (i / (n + 1)) as f64 + 1.0 } else { 0.0 }).collect();
            let (values, v) = symmetric(&a, n);
            for i in 0..n {
                let column: Vec<f64> = (0..n).map(|k| v[k * n + i].abs()).collect();
                let unit = column.iter().position(|&x| x == 1.0).expect("a unit vector");
                assert_eq!(values[i], (unit + 1) as f64, "n {n}");
            }
        }
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
