//! The least-squares trend line and the confidence interval of its slope.

use super::dist::t_quantile;

/// An ordinary least-squares line `y = intercept + slope·x`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Trend {
    /// Points fitted.
    pub n: usize,
    /// The slope.
    pub slope: f64,
    /// The intercept.
    pub intercept: f64,
    /// The standard error of the slope, `√(SSE / (n − 2) / Sxx)` (NaN for fewer than 3 points).
    pub slope_se: f64,
    /// The 95 % confidence interval of the slope, `slope ± t(0.975, n − 2)·se` (NaN for fewer
    /// than 3 points). It assumes independent residuals, which raw per-epoch values roughly are
    /// and smoothed ones are not (neighbours share points), so fit the raw values.
    pub slope_ci95: (f64, f64),
}

impl Trend {
    /// The line's value at `x`.
    pub fn at(&self, x: f64) -> f64 {
        self.intercept + self.slope * x
    }
}

/// Fits `y` on `x` by least squares, skipping pairs with a NaN. `None` for fewer than two
/// distinct `x`.
pub fn least_squares(x: &[f64], y: &[f64]) -> Option<Trend> {
    let pts: Vec<(f64, f64)> =
        x.iter().zip(y).map(|(&a, &b)| (a, b)).filter(|(a, b)| !a.is_nan() && !b.is_nan()).collect();
    let n = pts.len();
    if n < 2 {
        return None;
    }
    let nf = n as f64;
    let mx = pts.iter().map(|p| p.0).sum::<f64>() / nf;
    let my = pts.iter().map(|p| p.1).sum::<f64>() / nf;
    let sxx: f64 = pts.iter().map(|p| (p.0 - mx) * (p.0 - mx)).sum();
    let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    if sxx <= 0.0 {
        return None;
    }
    let slope = sxy / sxx;
    let intercept = my - slope * mx;
    let (slope_se, slope_ci95) = if n >= 3 {
        let sse: f64 = pts.iter().map(|p| (p.1 - intercept - slope * p.0).powi(2)).sum();
        let se = (sse / (nf - 2.0) / sxx).sqrt();
        let half = t_quantile(0.975, nf - 2.0) * se;
        (se, (slope - half, slope + half))
    } else {
        (f64::NAN, (f64::NAN, f64::NAN))
    };
    Some(Trend { n, slope, intercept, slope_se, slope_ci95 })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_worked_line_and_slope_interval() {
        // x = 1..5, y = 2, 4, 5, 4, 5: Sxx = 10, Sxy = 6, slope 0.6, intercept 4 − 0.6·3 = 2.2;
        // residuals −0.8, 0.6, 1.0, −0.6, −0.2, SSE = 2.4, s² = 0.8, se = √(0.8/10) = 0.2828427;
        // t(0.975, 3) = 3.182446305 (t table), half-width 0.9001382.
        let t = least_squares(&[1.0, 2.0, 3.0, 4.0, 5.0], &[2.0, 4.0, 5.0, 4.0, 5.0]).unwrap();
        assert!((t.slope - 0.6).abs() < 1e-12 && (t.intercept - 2.2).abs() < 1e-12, "{t:?}");
        assert!((t.slope_se - 0.08f64.sqrt()).abs() < 1e-12, "{t:?}");
        let half = 3.182_446_305_283_71 * 0.08f64.sqrt();
        assert!((t.slope_ci95.0 - (0.6 - half)).abs() < 1e-9, "{t:?}");
        assert!((t.slope_ci95.1 - (0.6 + half)).abs() < 1e-9, "{t:?}");
        assert!((t.at(10.0) - 8.2).abs() < 1e-12);
    }

    #[test]
    fn degenerate_inputs() {
        assert!(least_squares(&[1.0], &[1.0]).is_none());
        assert!(least_squares(&[2.0, 2.0, 2.0], &[1.0, 2.0, 3.0]).is_none());
        let two = least_squares(&[0.0, 1.0], &[1.0, 3.0]).unwrap();
        assert_eq!((two.slope, two.intercept), (2.0, 1.0));
        assert!(two.slope_ci95.0.is_nan());
        // NaN points are skipped; a perfect line has a zero-width interval.
        let t = least_squares(&[0.0, 1.0, 2.0, 3.0], &[1.0, f64::NAN, 5.0, 7.0]).unwrap();
        assert_eq!((t.n, t.slope), (3, 2.0));
        assert!((t.slope_ci95.0 - 2.0).abs() < 1e-12 && (t.slope_ci95.1 - 2.0).abs() < 1e-12, "{t:?}");
    }
}
