//! Welch's unequal-variances t-test.

use super::describe::{mean, sample_sd};
use super::dist::t_two_sided_p;

/// The result of Welch's t-test between two samples.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Welch {
    /// Size of the first sample.
    pub n1: usize,
    /// Size of the second sample.
    pub n2: usize,
    /// Mean of the first minus mean of the second.
    pub difference: f64,
    /// `t = (m₁ − m₂) / √(s₁²/n₁ + s₂²/n₂)`.
    pub t: f64,
    /// The Welch–Satterthwaite degrees of freedom
    /// `(s₁²/n₁ + s₂²/n₂)² / ((s₁²/n₁)²/(n₁−1) + (s₂²/n₂)²/(n₂−1))`.
    pub df: f64,
    /// The two-sided p-value from Student's t with `df` degrees of freedom.
    pub p: f64,
}

/// Welch's t-test of equal means; `None` when either sample has fewer than two values or both
/// have zero variance.
pub fn welch(a: &[f64], b: &[f64]) -> Option<Welch> {
    let (n1, n2) = (a.len(), b.len());
    if n1 < 2 || n2 < 2 {
        return None;
    }
    let (v1, v2) = (sample_sd(a).powi(2) / n1 as f64, sample_sd(b).powi(2) / n2 as f64);
    let se2 = v1 + v2;
    if se2 <= 0.0 || se2.is_nan() {
        return None;
    }
    let difference = mean(a) - mean(b);
    let t = difference / se2.sqrt();
    let df = se2 * se2 / (v1 * v1 / (n1 - 1) as f64 + v2 * v2 / (n2 - 1) as f64);
    Some(Welch { n1, n2, difference, t, df, p: t_two_sided_p(t, df) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn welch_matches_the_published_examples() {
        // The worked examples of Welch's t-test (Wikipedia, "Welch's t-test", Examples 1 and 2),
        // published as t = −2.46, df = 24.99, p = 0.021 and t = −1.57, df = 9.90, p = 0.149; here
        // to 1e-9 against the same formulas evaluated with mpmath 1.3.0 at 30 digits (p from its
        // regularized betainc).
        let a1 = [27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1, 21.9, 22.6, 23.1, 19.6, 19.0, 21.7, 21.4];
        let a2 = [27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0, 24.8, 20.2, 21.9, 22.1, 22.9, 20.5, 24.4];
        let w = welch(&a1, &a2).unwrap();
        assert!((w.t - -2.455_356_398_286_005).abs() < 1e-9, "{w:?}");
        assert!((w.df - 24.988_529_290_231_41).abs() < 1e-9, "{w:?}");
        assert!((w.p - 0.021_378_001_462_867_03).abs() < 1e-9, "{w:?}");
        let b1 = [17.2, 20.9, 22.6, 18.1, 21.7, 21.4, 23.5, 24.2, 14.7, 21.8];
        let b2 = [
            21.5, 22.8, 21.0, 23.0, 21.6, 23.6, 22.5, 20.7, 23.4, 21.8, 20.7, 21.7, 21.5, 22.5, 23.6, 21.5, 22.5, 23.5,
            21.5, 21.8,
        ];
        let w = welch(&b1, &b2).unwrap();
        assert!((w.t - -1.565_433_523_598_505).abs() < 1e-9, "{w:?}");
        assert!((w.df - 9.904_741_248_650_83).abs() < 1e-9, "{w:?}");
        assert!((w.p - 0.148_841_696_605_328).abs() < 1e-9, "{w:?}");
        // Swapping the samples flips t, keeps df and p.
        let back = welch(&b2, &b1).unwrap();
        assert!((back.t + w.t).abs() < 1e-12 && (back.p - w.p).abs() < 1e-12);
    }

    #[test]
    fn degenerate_samples() {
        assert!(welch(&[1.0], &[1.0, 2.0]).is_none());
        assert!(welch(&[1.0, 1.0], &[2.0, 2.0]).is_none());
    }
}
