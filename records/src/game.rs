//! Games and two-game matches as the run files record them (docs/spec.md §5).
//!
//! These mirror `loa_engine`'s types of the same names, variant for variant and field for field,
//! so the JSON (and the checkpoints' bincode, which embeds epoch reports) is the same as the
//! engine's own serde form.

use serde::{Deserialize, Serialize};

/// One of the two sides. Black moves first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Color {
    /// Moves first.
    Black,
    /// Moves second.
    White,
}

impl Color {
    /// The other side.
    pub fn opponent(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }
}

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// That side won.
    Win(Color),
    /// A draw (including a tie at the ply cap).
    Draw,
}

impl Outcome {
    /// The winner, if any.
    pub fn winner(self) -> Option<Color> {
        match self {
            Outcome::Win(c) => Some(c),
            Outcome::Draw => None,
        }
    }
}

/// Why a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EndReason {
    /// One side connected.
    Connected,
    /// A move connected both sides.
    BothConnected,
    /// The side to move had no move.
    NoMoves,
    /// The game reached the ply cap (a tie).
    PlyCap,
}

/// A game without its moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameSummary {
    /// Who won, or a draw.
    pub outcome: Outcome,
    /// Why it ended.
    pub reason: EndReason,
    /// Plies played.
    pub plies: u32,
}

impl GameSummary {
    /// The benchmark score of this game for `side` (docs/spec.md §6): a win in m plies scores 200 − m, a
    /// loss in m plies scores m, a tie 100.
    pub fn score(&self, side: Color) -> u32 {
        match self.outcome {
            Outcome::Draw => 100,
            Outcome::Win(c) if c == side => 200u32.saturating_sub(self.plies),
            Outcome::Win(_) => self.plies.min(200),
        }
    }
}

/// Which player of a match: A (the lower birth serial, Black in game 0) or B.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum MatchSide {
    /// Black in game 0; wins a match the criteria cannot split.
    A,
    /// Black in game 1.
    B,
}

impl MatchSide {
    /// The colour this side played in game `game` (0 or 1) of a match.
    pub fn color_in_game(self, game: usize) -> Color {
        match (self, game) {
            (MatchSide::A, 0) | (MatchSide::B, 1) => Color::Black,
            _ => Color::White,
        }
    }
}

/// Which of docs/spec.md §5's four criteria decided a match.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Criterion {
    /// (1) Won both games.
    WonBoth,
    /// (2) Won one game and drew the other.
    WonAndDrew,
    /// (3) One win each; the winner's win took fewer plies than its loss.
    FasterWin,
    /// (4) Equal lengths or two draws: A wins.
    DefaultToA,
}

/// One two-game match of a tournament.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MatchSummary {
    /// Entrant index of A (the lower serial).
    pub a: usize,
    /// Entrant index of B.
    pub b: usize,
    /// Who won the match.
    pub winner: MatchSide,
    /// Which criterion decided it.
    pub criterion: Criterion,
    /// Game 0 (A black) and game 1 (B black).
    pub games: [GameSummary; 2],
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_shapes_are_the_engines() {
        let g = GameSummary { outcome: Outcome::Win(Color::White), reason: EndReason::PlyCap, plies: 7 };
        assert_eq!(serde_json::to_string(&g).unwrap(), r#"{"outcome":{"win":"white"},"reason":"ply-cap","plies":7}"#);
        let d = GameSummary { outcome: Outcome::Draw, reason: EndReason::BothConnected, plies: 3 };
        assert_eq!(serde_json::to_string(&d).unwrap(), r#"{"outcome":"draw","reason":"both-connected","plies":3}"#);
        let m = MatchSummary { a: 0, b: 3, winner: MatchSide::B, criterion: Criterion::DefaultToA, games: [g, d] };
        let text = serde_json::to_string(&m).unwrap();
        assert!(text.starts_with(r#"{"a":0,"b":3,"winner":"B","criterion":"default-to-a","games":["#), "{text}");
    }

    #[test]
    fn scores_follow_spec_5() {
        let win = GameSummary { outcome: Outcome::Win(Color::Black), reason: EndReason::Connected, plies: 35 };
        assert_eq!((win.score(Color::Black), win.score(Color::White)), (165, 35));
        let tie = GameSummary { outcome: Outcome::Draw, reason: EndReason::PlyCap, plies: 100 };
        assert_eq!(tie.score(Color::White), 100);
        assert_eq!(MatchSide::B.color_in_game(0), Color::White);
    }
}
