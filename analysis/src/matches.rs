//! A `loa match --out` series, from its first player's point of view (the `--black` player:
//! Black in game 0 of every pair).

use crate::error::{AnalysisError, Result};
use crate::run::read_records;
use crate::scores::{Outcomes, ScoreSets, match_result};
use loa_records::{GameSummary, MatchGameRecord, MatchLine, MatchSeriesSummary};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A loaded match series.
#[derive(Clone, Debug)]
pub struct MatchSeries {
    /// The file.
    pub path: PathBuf,
    /// The first player's spec (the one described).
    pub first: String,
    /// The second player's spec.
    pub second: String,
    /// Every game, in file order.
    pub games: Vec<MatchGameRecord>,
    /// The totals line, if the file has it (absent while `loa match` was cut off).
    pub summary: Option<MatchSeriesSummary>,
    /// Things a reader should know (a cut-off last line).
    pub notes: Vec<String>,
}

impl MatchSeries {
    /// Reads the series at `path`: at least one game; every game between the same two players.
    pub fn load(path: &Path) -> Result<MatchSeries> {
        if !path.exists() {
            return Err(AnalysisError::NoMatchFile(path.to_path_buf()));
        }
        let mut notes = Vec::new();
        let lines: Vec<MatchLine> = read_records(path, &mut notes)?;
        let mut games = Vec::new();
        let mut summary = None;
        let mut players: Option<(String, String)> = None;
        for (i, line) in lines.into_iter().enumerate() {
            match line {
                MatchLine::Summary(s) => summary = Some(s),
                MatchLine::Game(g) => {
                    let pair = if g.color_of(true) == loa_records::Color::Black {
                        (g.black.clone(), g.white.clone())
                    } else {
                        (g.white.clone(), g.black.clone())
                    };
                    match &players {
                        None => players = Some(pair),
                        Some(p) if *p != pair => {
                            return Err(AnalysisError::Inconsistent {
                                path: path.to_path_buf(),
                                line: i + 1,
                                why: format!(
                                    "game between {} and {}, but the series is {} against {}",
                                    pair.0, pair.1, p.0, p.1
                                ),
                            });
                        }
                        Some(_) => {}
                    }
                    games.push(g);
                }
            }
        }
        let Some((first, second)) = players else {
            return Err(AnalysisError::Empty { path: path.to_path_buf(), torn: None });
        };
        if summary.is_none() {
            notes.push(format!(
                "{}: no totals line (the series was cut off?); using its {} games",
                path.display(),
                games.len()
            ));
        }
        Ok(MatchSeries { path: path.to_path_buf(), first, second, games, summary, notes })
    }

    /// A label: "FIRST vs SECOND".
    pub fn label(&self) -> String {
        format!("{} vs {}", self.first, self.second)
    }

    /// The games of each pair, in pair order.
    fn pairs(&self) -> BTreeMap<u64, Vec<&MatchGameRecord>> {
        let mut pairs: BTreeMap<u64, Vec<&MatchGameRecord>> = BTreeMap::new();
        for g in &self.games {
            pairs.entry(g.pair).or_default().push(g);
        }
        pairs
    }

    /// The first player's scores: every game by colour, every complete pair's total.
    pub fn scores(&self) -> ScoreSets {
        let mut s = ScoreSets::default();
        for g in &self.games {
            let score = f64::from(g.score_of(true));
            match g.color_of(true) {
                loa_records::Color::Black => s.black.push(score),
                loa_records::Color::White => s.white.push(score),
            }
        }
        for games in self.pairs().values().filter(|g| g.len() == 2) {
            s.combined.push(games.iter().map(|g| f64::from(g.score_of(true))).sum());
        }
        s
    }

    /// The first player's wins, losses and ties by colour and by complete pair.
    pub fn outcomes(&self) -> Outcomes {
        let summary = |g: &MatchGameRecord| GameSummary { outcome: g.outcome, reason: g.reason, plies: g.plies };
        let mut o = Outcomes::default();
        for g in &self.games {
            o.add_game(g.color_of(true), &summary(g));
        }
        for games in self.pairs().values() {
            if let [a, b] = &games[..] {
                let (sa, sb) = (summary(a), summary(b));
                o.matches.add(match_result([(a.color_of(true), &sa), (b.color_of(true), &sb)]));
            }
        }
        o
    }
}
