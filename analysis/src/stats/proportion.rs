//! Wins, losses and ties, and the Wilson score interval of a proportion (`loa-records`', which
//! the master's validation lines use too).

pub use loa_records::interval::{Z95, wilson95};

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
