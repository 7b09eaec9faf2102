//! The lines of a `loa match --out FILE.jsonl` file: one [`MatchGameRecord`] per game, in pair
//! order, then one [`MatchSeriesSummary`] with the totals `loa match` prints.
//!
//! Every line is a [`MatchLine`], tagged by `kind` (`"game"` or `"summary"`) and carrying the
//! record format version like every other JSON-lines file ([`crate::jsonl`]). In pair `p` the
//! first player (the series' `--black`) has Black in game 0 and White in game 1, both games from
//! the same start position, so a complete pair is a two-game match with the first player as A.

use crate::game::{Color, EndReason, Outcome};
use serde::{Deserialize, Serialize};

/// One line of a match file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum MatchLine {
    /// One game.
    Game(MatchGameRecord),
    /// The series' totals (the last line).
    Summary(MatchSeriesSummary),
}

/// One game of a series.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MatchGameRecord {
    /// The pair (two-game match) index, from 0.
    pub pair: u64,
    /// The game within its pair: 0 (the first player has Black) or 1 (it has White).
    pub game: u32,
    /// The player spec that had Black, e.g. `random:3`.
    pub black: String,
    /// The player spec that had White.
    pub white: String,
    /// The colour the series' first player had in this game.
    pub first_color: Color,
    /// Who won, or a draw.
    pub outcome: Outcome,
    /// Why it ended.
    pub reason: EndReason,
    /// Plies played.
    pub plies: u32,
    /// Black's benchmark score of this game (docs/spec.md §6: a win in m plies 200 − m, a loss m, a tie
    /// 100).
    pub black_score: u32,
    /// White's benchmark score of this game.
    pub white_score: u32,
    /// The game's seed (the random heuristic's values depend on it).
    pub seed: u64,
    /// The position the game started from (position text).
    pub start: String,
    /// The moves from `start`, in order, in move text (`c8-c6`, `d1xa4`; `pass` where a side
    /// had none), so the game can be replayed (`loa replay`, `loa apply`). Empty in files
    /// written before games carried their moves, and in `master experiment`'s, whose workers
    /// report results only (and left out of their lines, which stay as they were).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub moves: Vec<String>,
}

impl MatchGameRecord {
    /// The benchmark score of the series' first player (`first == true`) or second player.
    pub fn score_of(&self, first: bool) -> u32 {
        if (self.first_color == Color::Black) == first { self.black_score } else { self.white_score }
    }

    /// The colour the first (`first == true`) or second player had.
    pub fn color_of(&self, first: bool) -> Color {
        if first { self.first_color } else { self.first_color.opponent() }
    }
}

/// One player's totals over a series (what `loa match` prints for it).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MatchSideSummary {
    /// The player spec.
    pub spec: String,
    /// Games won.
    pub wins: u32,
    /// Games lost.
    pub losses: u32,
    /// Games drawn.
    pub draws: u32,
    /// Mean benchmark score over all games.
    pub mean_score: f64,
    /// Mean benchmark score as Black.
    pub mean_score_black: f64,
    /// Mean benchmark score as White.
    pub mean_score_white: f64,
    /// Complete pairs won by docs/spec.md §5's match criteria.
    pub matches_won: u32,
}

/// The totals of a series: the last line of a match file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MatchSeriesSummary {
    /// Games played.
    pub games: u32,
    /// Complete pairs (two-game matches).
    pub matches: u32,
    /// Mean plies per game.
    pub mean_plies: f64,
    /// The series seed.
    pub seed: u64,
    /// Random plies before each pair.
    pub opening_plies: u32,
    /// The ply cap of the rules (0: none).
    pub ply_cap: u32,
    /// The first player, then the second.
    pub sides: [MatchSideSummary; 2],
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jsonl;
    use std::path::Path;

    fn game() -> MatchGameRecord {
        MatchGameRecord {
            pair: 3,
            game: 1,
            black: "random:3".into(),
            white: "randomann:3:7".into(),
            first_color: Color::White,
            outcome: Outcome::Win(Color::Black),
            reason: EndReason::Connected,
            plies: 41,
            black_score: 159,
            white_score: 41,
            seed: 99,
            start: ".bbbbbb./w......w/w......w/w......w/w......w/w......w/w......w/.bbbbbb. b".into(),
            moves: vec!["b1-b3".into(), "a2xc4".into()],
        }
    }

    #[test]
    fn lines_are_tagged_versioned_and_read_back() {
        let g = MatchLine::Game(game());
        let text = jsonl::line(&g).unwrap();
        assert!(text.starts_with(r#"{"format":1,"kind":"game","pair":3,"game":1,"black":"random:3""#), "{text}");
        let side = |spec: &str| MatchSideSummary {
            spec: spec.into(),
            wins: 1,
            losses: 0,
            draws: 0,
            mean_score: 159.0,
            mean_score_black: 159.0,
            mean_score_white: 0.0,
            matches_won: 0,
        };
        let s = MatchLine::Summary(MatchSeriesSummary {
            games: 1,
            matches: 0,
            mean_plies: 41.0,
            seed: 0,
            opening_plies: 0,
            ply_cap: 100,
            sides: [side("a"), side("b")],
        });
        let file = format!("{text}\n{}\n", jsonl::line(&s).unwrap());
        let back = jsonl::parse::<MatchLine>(file.as_bytes(), Path::new("m.jsonl")).unwrap();
        assert_eq!(back.records, [g, s]);
    }

    #[test]
    fn a_game_written_before_moves_were_kept_reads_with_none() {
        let mut old = serde_json::to_value(MatchLine::Game(game())).unwrap();
        old.as_object_mut().unwrap().remove("moves");
        let back: MatchLine = serde_json::from_value(old).unwrap();
        assert_eq!(back, MatchLine::Game(MatchGameRecord { moves: Vec::new(), ..game() }));
        assert!(jsonl::line(&MatchLine::Game(game())).unwrap().contains(r#""moves":["b1-b3","a2xc4"]"#));
        let none = MatchLine::Game(MatchGameRecord { moves: Vec::new(), ..game() });
        assert!(!jsonl::line(&none).unwrap().contains("moves"), "a line without moves is as it was");
    }

    #[test]
    fn scores_and_colours_by_player() {
        let g = game();
        assert_eq!((g.score_of(true), g.score_of(false)), (41, 159));
        assert_eq!((g.color_of(true), g.color_of(false)), (Color::White, Color::Black));
    }
}
