//! Benchmark scores and results of one player, by colour: what Tables 3-8 summarise and what
//! the per-epoch curves are made of.

use crate::stats::{Summary, WinLossTie};
use loa_records::{BenchmarkEntry, Color, EpochReport, GameSummary};

/// Which score of a two-game match a curve or a column shows (the thesis's four values).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScoreKind {
    /// The game played as Black (game 0 of a benchmark match).
    Black,
    /// The game played as White (game 1).
    White,
    /// Both games added (max 398).
    Combined,
    /// The average of Black and White (combined / 2).
    Average,
}

impl ScoreKind {
    /// All four, in the thesis's order.
    pub const ALL: [ScoreKind; 4] = [ScoreKind::Black, ScoreKind::White, ScoreKind::Combined, ScoreKind::Average];

    /// A label for legends, with its unit: per game (at best a win in 1 ply, 199) or per
    /// two-game match (398).
    pub fn label(self) -> &'static str {
        match self {
            ScoreKind::Black => "as Black: per game (max 199)",
            ScoreKind::White => "as White: per game (max 199)",
            ScoreKind::Combined => "combined, Black + White: per match (max 398)",
            ScoreKind::Average => "average of Black and White: per game (max 199)",
        }
    }

    /// The value of one benchmark entry.
    pub fn of(self, e: &BenchmarkEntry) -> f64 {
        match self {
            ScoreKind::Black => f64::from(e.scores[0]),
            ScoreKind::White => f64::from(e.scores[1]),
            ScoreKind::Combined => f64::from(e.combined),
            ScoreKind::Average => f64::from(e.combined) / 2.0,
        }
    }
}

/// A statistic of one epoch's population.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EpochStatistic {
    /// The epoch's best network (Figure 15): the highest combined score, ties to the lower
    /// serial, as [`EpochReport::champion`] says; its own games as Black and as White.
    Best,
    /// The mean (Figure 16).
    Mean,
    /// The median (Figure 17).
    Median,
}

impl EpochStatistic {
    /// All three.
    pub const ALL: [EpochStatistic; 3] = [EpochStatistic::Best, EpochStatistic::Mean, EpochStatistic::Median];

    /// A lower-case name (`best`, `mean`, `median`), used in file names.
    pub fn name(self) -> &'static str {
        match self {
            EpochStatistic::Best => "best",
            EpochStatistic::Mean => "mean",
            EpochStatistic::Median => "median",
        }
    }

    /// This statistic of `kind` over the epoch's survivors (NaN for an empty epoch). The best
    /// is one network's: the highest score as Black is often another network's, which
    /// would draw a best network that does not exist.
    pub fn of(self, report: &EpochReport, kind: ScoreKind) -> f64 {
        let values = || -> Vec<f64> { report.entries.iter().map(|e| kind.of(e)).collect() };
        match self {
            EpochStatistic::Best => report.champion().map_or(f64::NAN, |e| kind.of(e)),
            EpochStatistic::Mean => Summary::of(&values()).mean,
            EpochStatistic::Median => Summary::of(&values()).median,
        }
    }
}

/// A player's game scores by colour and its two-game match scores.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ScoreSets {
    /// Every game's score as Black.
    pub black: Vec<f64>,
    /// Every game's score as White.
    pub white: Vec<f64>,
    /// Every complete match's combined score (Black + White of the same match).
    pub combined: Vec<f64>,
}

impl ScoreSets {
    /// Every game's score, Black's then White's (the thesis's "Overall").
    pub fn overall(&self) -> Vec<f64> {
        [&self.black[..], &self.white[..]].concat()
    }

    /// The set named by a table column.
    pub fn column(&self, column: Column) -> Vec<f64> {
        match column {
            Column::Overall => self.overall(),
            Column::White => self.white.clone(),
            Column::Black => self.black.clone(),
            Column::Combined => self.combined.clone(),
        }
    }

    /// The benchmark scores of every survivor of `epochs`.
    pub fn of_epochs<'a>(epochs: impl IntoIterator<Item = &'a EpochReport>) -> ScoreSets {
        let mut s = ScoreSets::default();
        for e in epochs.into_iter().flat_map(|r| &r.entries) {
            s.black.push(f64::from(e.scores[0]));
            s.white.push(f64::from(e.scores[1]));
            s.combined.push(f64::from(e.combined));
        }
        s
    }
}

/// A column of the thesis's score tables (Tables 3-5, 7).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Column {
    /// Every game.
    Overall,
    /// Games as White.
    White,
    /// Games as Black.
    Black,
    /// Match totals.
    Combined,
}

impl Column {
    /// The thesis's order.
    pub const ALL: [Column; 4] = [Column::Overall, Column::White, Column::Black, Column::Combined];

    /// The column's heading.
    pub fn label(self) -> &'static str {
        match self {
            Column::Overall => "Overall",
            Column::White => "White",
            Column::Black => "Black",
            Column::Combined => "Combined",
        }
    }
}

/// Wins, losses and ties by colour and by two-game match (Tables 6 and 8).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Outcomes {
    /// As White.
    pub white: WinLossTie,
    /// As Black.
    pub black: WinLossTie,
    /// Complete two-game matches (see [`match_result`]).
    pub matches: WinLossTie,
}

impl Outcomes {
    /// All games (White and Black added).
    pub fn all_games(&self) -> WinLossTie {
        WinLossTie {
            wins: self.white.wins + self.black.wins,
            losses: self.white.losses + self.black.losses,
            ties: self.white.ties + self.black.ties,
        }
    }

    /// Counts one game the player played as `color`.
    pub fn add_game(&mut self, color: Color, game: &GameSummary) {
        let result = game.outcome.winner().map(|w| w == color);
        match color {
            Color::Black => self.black.add(result),
            Color::White => self.white.add(result),
        }
    }

    /// The results of every benchmark match of `epochs` (the network had Black in game 0).
    pub fn of_epochs<'a>(epochs: impl IntoIterator<Item = &'a EpochReport>) -> Outcomes {
        let mut o = Outcomes::default();
        for e in epochs.into_iter().flat_map(|r| &r.entries) {
            o.add_game(Color::Black, &e.games[0]);
            o.add_game(Color::White, &e.games[1]);
            o.matches.add(match_result([(Color::Black, &e.games[0]), (Color::White, &e.games[1])]));
        }
        o
    }
}

/// The result of a two-game match for a player who had the given colours, by docs/spec.md §5's criteria
/// (1)-(3): won both, won one and drew the other, or one win each and its win was the shorter
/// game. What criterion (4) would give to player A by default (equal lengths, two draws) counts
/// here as a tie (`None`), as in the thesis's tables.
pub fn match_result(games: [(Color, &GameSummary); 2]) -> Option<bool> {
    let result = |(c, g): (Color, &GameSummary)| g.outcome.winner().map(|w| w == c);
    let (r0, r1) = (result(games[0]), result(games[1]));
    match (r0, r1) {
        (Some(a), Some(b)) if a == b => Some(a),
        (Some(a), None) | (None, Some(a)) => Some(a),
        (None, None) => None,
        _ => {
            let (won, lost) = if r0 == Some(true) { (games[0].1, games[1].1) } else { (games[1].1, games[0].1) };
            match won.plies.cmp(&lost.plies) {
                std::cmp::Ordering::Less => Some(true),
                std::cmp::Ordering::Greater => Some(false),
                std::cmp::Ordering::Equal => None,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use loa_records::{EndReason, Outcome};

    fn g(outcome: Outcome, plies: u32) -> GameSummary {
        GameSummary { outcome, reason: EndReason::Connected, plies }
    }

    #[test]
    fn match_results_follow_the_criteria_without_the_default() {
        let (b, w) = (Color::Black, Color::White);
        let win_b = |p| g(Outcome::Win(b), p);
        let win_w = |p| g(Outcome::Win(w), p);
        let draw = g(Outcome::Draw, 100);
        assert_eq!(match_result([(b, &win_b(30)), (w, &win_w(40))]), Some(true));
        assert_eq!(match_result([(b, &win_w(30)), (w, &win_b(40))]), Some(false));
        assert_eq!(match_result([(b, &win_b(30)), (w, &draw)]), Some(true));
        assert_eq!(match_result([(b, &draw), (w, &win_b(40))]), Some(false));
        // One win each: the shorter win decides; equal lengths tie.
        assert_eq!(match_result([(b, &win_b(30)), (w, &win_b(40))]), Some(true));
        assert_eq!(match_result([(b, &win_b(50)), (w, &win_b(40))]), Some(false));
        assert_eq!(match_result([(b, &win_b(40)), (w, &win_b(40))]), None);
        assert_eq!(match_result([(b, &draw), (w, &draw)]), None);
    }

    #[test]
    fn epoch_statistics_and_sets() {
        let e = |s: [u32; 2]| BenchmarkEntry::new(0, s, [g(Outcome::Win(Color::White), s[0]), g(Outcome::Draw, 100)]);
        let r = EpochReport::new(1, 10, vec![e([30, 100]), e([20, 100]), e([40, 100])]);
        assert_eq!(EpochStatistic::Best.of(&r, ScoreKind::Combined), 140.0);
        assert_eq!(EpochStatistic::Mean.of(&r, ScoreKind::Average), 65.0);
        assert_eq!(EpochStatistic::Median.of(&r, ScoreKind::Black), 30.0);
        let s = ScoreSets::of_epochs([&r]);
        assert_eq!((s.overall().len(), s.column(Column::Combined)), (6, vec![130.0, 120.0, 140.0]));
        let o = Outcomes::of_epochs([&r]);
        assert_eq!((o.black.losses, o.white.ties, o.matches.losses), (3, 3, 3));
        assert_eq!(o.all_games().total(), 6);
    }

    #[test]
    fn the_best_is_one_networks_games() {
        // The best network (67) scored 24 as Black; another scored 40 as Black, a third 43 as White.
        let e = |serial, s: [u32; 2]| BenchmarkEntry::new(serial, s, [g(Outcome::Draw, 100), g(Outcome::Draw, 100)]);
        let r = EpochReport::new(3, 30, vec![e(1, [40, 20]), e(2, [24, 43]), e(3, [10, 43])]);
        let best = |kind| EpochStatistic::Best.of(&r, kind);
        assert_eq!(
            [best(ScoreKind::Black), best(ScoreKind::White), best(ScoreKind::Combined), best(ScoreKind::Average)],
            [24.0, 43.0, 67.0, 33.5]
        );
        assert!(EpochStatistic::Best.of(&EpochReport::new(0, 0, vec![]), ScoreKind::Black).is_nan());
    }

    #[test]
    fn each_legend_gives_the_maximum_of_its_unit() {
        // The best match there could be: a win in 1 ply as Black and as White, scored as the
        // records score it.
        let (black, white) = (g(Outcome::Win(Color::Black), 1), g(Outcome::Win(Color::White), 1));
        let best = BenchmarkEntry::new(0, [black.score(Color::Black), white.score(Color::White)], [black, white]);
        for kind in ScoreKind::ALL {
            let label = kind.label();
            let unit = if kind == ScoreKind::Combined { "per match" } else { "per game" };
            assert!(label.contains(&format!("{unit} (max {})", kind.of(&best))), "{label}");
        }
    }
}
