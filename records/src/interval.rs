//! The 95 % Wilson score interval of a proportion, shared by the master (validation lines) and
//! the analysis tools, so both give the same interval for the same counts.

/// The two-sided 95 % normal quantile z(0.975).
pub const Z95: f64 = 1.959_963_984_540_054;

/// The 95 % Wilson score interval of `successes` out of `trials` (Wilson 1927; Newcombe 1998,
/// method 3): `(p̂ + z²/2n ± z·√(p̂(1−p̂)/n + z²/4n²)) / (1 + z²/n)`, clamped to [0, 1]. `None`
/// for no trials.
pub fn wilson95(successes: u64, trials: u64) -> Option<(f64, f64)> {
    if trials == 0 || successes > trials {
        return None;
    }
    let (k, n, z) = (successes as f64, trials as f64, Z95);
    let p = k / n;
    let denom = 1.0 + z * z / n;
    let centre = (p + z * z / (2.0 * n)) / denom;
    let half = z / denom * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt();
    Some(((centre - half).max(0.0), (centre + half).min(1.0)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(got: (f64, f64), want: (f64, f64)) {
        assert!((got.0 - want.0).abs() < 1e-9 && (got.1 - want.1).abs() < 1e-9, "got {got:?}, want {want:?}");
    }

    #[test]
    fn wilson_matches_newcombe_1998() {
        // Newcombe (1998), "Two-sided confidence intervals for the single proportion", Stat. Med.
        // 17:857, Table II, method 3, to 4 decimals: 81/263 → 0.2553–0.3662, 15/148 →
        // 0.0624–0.1605, 0/20 → 0–0.1611, 1/29 → 0.0061–0.1718. Here to 1e-9 against the same
        // formula evaluated with mpmath 1.3.0 at 30 digits.
        close(wilson95(81, 263).unwrap(), (0.255_288_519_878_274_2, 0.366_209_576_982_800_1));
        close(wilson95(15, 148).unwrap(), (0.062_386_399_530_736_28, 0.160_487_241_723_308));
        close(wilson95(0, 20).unwrap(), (0.0, 0.161_125_158_052_819_4));
        close(wilson95(1, 29).unwrap(), (0.006_113_214_292_762_662, 0.171_755_218_793_202_9));
        close(wilson95(29, 29).unwrap(), (0.883_030_201_500_259_3, 1.0));
        assert_eq!(wilson95(0, 0), None);
        assert_eq!(wilson95(3, 2), None);
    }
}
