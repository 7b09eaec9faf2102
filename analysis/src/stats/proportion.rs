//! Wins, losses and ties, and the Wilson score interval of a proportion.

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

/// Wins, losses and ties of one player over games or matches.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WinLossTie {
    /// Won.
    pub wins: u64,
    /// Lost.
    pub losses: u64,
    /// Tied (drawn).
    pub ties: u64,
}

impl WinLossTie {
    /// Games or matches counted.
    pub fn total(&self) -> u64 {
        self.wins + self.losses + self.ties
    }
    /// Games or matches decided (won or lost).
    pub fn decided(&self) -> u64 {
        self.wins + self.losses
    }
    /// The share of decided games won: the thesis's "winning percentage" / 100 (its Tables 6
    /// and 8 leave ties out: 2168 wins, 9089 losses, 1143 ties is 19.26 %). NaN for none.
    pub fn win_share(&self) -> f64 {
        if self.decided() == 0 { f64::NAN } else { self.wins as f64 / self.decided() as f64 }
    }
    /// The 95 % Wilson interval of [`WinLossTie::win_share`].
    pub fn win_share_ci95(&self) -> Option<(f64, f64)> {
        wilson95(self.wins, self.decided())
    }
    /// The share of all games won, ties included; NaN for none.
    pub fn win_share_of_all(&self) -> f64 {
        if self.total() == 0 { f64::NAN } else { self.wins as f64 / self.total() as f64 }
    }
    /// Counts one more result: `Some(true)` a win, `Some(false)` a loss, `None` a tie.
    pub fn add(&mut self, result: Option<bool>) {
        match result {
            Some(true) => self.wins += 1,
            Some(false) => self.losses += 1,
            None => self.ties += 1,
        }
    }
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
    }

    #[test]
    fn counts() {
        let mut r = WinLossTie::default();
        for x in [Some(true), Some(false), None, Some(true)] {
            r.add(x);
        }
        assert_eq!((r.wins, r.losses, r.ties, r.total(), r.win_share_of_all()), (2, 1, 1, 4, 0.5));
        assert!((r.win_share() - 2.0 / 3.0).abs() < 1e-15);
        assert!(WinLossTie::default().win_share().is_nan());
    }

    #[test]
    fn winning_percentages_are_the_theses() {
        // pLoGANN thesis Tables 6 and 8 (wins, losses, ties → winning percentage, 2 decimals).
        for (w, l, t, pct) in [
            (2168, 9089, 1143, 19.26),
            (959, 4792, 449, 16.68),
            (1209, 4297, 694, 21.96),
            (1099, 4976, 125, 18.09),
            (38, 1180, 22, 3.12),
            (16, 599, 5, 2.60),
            (22, 581, 17, 3.65),
            (17, 602, 1, 2.75),
        ] {
            let r = WinLossTie { wins: w, losses: l, ties: t };
            assert_eq!(format!("{:.2}", 100.0 * r.win_share()), format!("{pct:.2}"), "{r:?}");
        }
    }
}
