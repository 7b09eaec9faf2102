//! The end of a game (docs/spec.md §2) and the rules variants.

use crate::connect::is_connected;
use crate::{Bitboard, Color, Move, Position};
use serde::{Deserialize, Serialize};
use std::fmt;

/// What happens when a move leaves both sides connected.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BothConnected {
    /// The game is drawn (tournament rules, the default).
    #[default]
    Draw,
    /// The player who moved wins (2nd edition of Sackson's book).
    MoverWins,
}

/// What happens to a side that has no legal move.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum NoMoves {
    /// It loses (the default).
    #[default]
    Loses,
    /// It passes: the turn goes to the opponent.
    Passes,
}

/// A rules variant. The default is the tournament rules of docs/spec.md §2.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Rules {
    /// Both sides connected after a move.
    pub both_connected: BothConnected,
    /// A side to move without a legal move.
    pub no_moves: NoMoves,
    /// A game still running after this many plies is a tie; 0 means no cap.
    pub ply_cap: u32,
}

impl Default for Rules {
    fn default() -> Rules {
        Rules { both_connected: BothConnected::Draw, no_moves: NoMoves::Loses, ply_cap: 100 }
    }
}

/// How a finished game came out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// This side won.
    Win(Color),
    /// Nobody won.
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
    /// One side connected all its pieces.
    Connected,
    /// A move connected both sides at once.
    BothConnected,
    /// The side to move had no legal move.
    NoMoves,
    /// The ply cap was reached.
    PlyCap,
}

/// The end of a game: its outcome and the reason.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct GameEnd {
    /// Who won, or a draw.
    pub outcome: Outcome,
    /// Why the game ended.
    pub reason: EndReason,
}

impl fmt::Display for GameEnd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let how = match self.reason {
            EndReason::Connected => "by connecting all its pieces",
            EndReason::BothConnected => "as both sides are connected",
            EndReason::NoMoves => "as the side to move has no legal move",
            EndReason::PlyCap => "at the ply cap",
        };
        match self.outcome {
            Outcome::Win(c) => write!(f, "{c} wins {how}"),
            Outcome::Draw => write!(f, "draw {how}"),
        }
    }
}

impl Rules {
    /// The result of the connection test when `mover` has just moved and the two sides'
    /// connectedness is as given.
    #[inline]
    fn judge_connection(&self, mover: Color, mover_connected: bool, other_connected: bool) -> Option<GameEnd> {
        let end = |outcome, reason| Some(GameEnd { outcome, reason });
        match (mover_connected, other_connected) {
            (false, false) => None,
            (true, false) => end(Outcome::Win(mover), EndReason::Connected),
            (false, true) => end(Outcome::Win(mover.opponent()), EndReason::Connected),
            (true, true) => match self.both_connected {
                BothConnected::Draw => end(Outcome::Draw, EndReason::BothConnected),
                BothConnected::MoverWins => end(Outcome::Win(mover), EndReason::BothConnected),
            },
        }
    }
}

impl Position {
    /// Whether the game is over here, judged from the board alone: the side that just moved is
    /// taken to be the side not to move. Covers connection and "no legal move" (under
    /// [`NoMoves::Loses`]); the ply cap is the game's business, not the position's.
    pub fn game_end(&self, rules: &Rules) -> Option<GameEnd> {
        let mover = self.side.opponent();
        let connection =
            rules.judge_connection(mover, is_connected(self.pieces(mover)), is_connected(self.pieces(self.side)));
        if connection.is_some() {
            return connection;
        }
        if rules.no_moves == NoMoves::Loses && !self.has_legal_move() {
            return Some(GameEnd { outcome: Outcome::Win(mover), reason: EndReason::NoMoves });
        }
        None
    }

    /// The connection result after `mv` was played to reach this position, from a position
    /// where the game was not over. Faster than [`Position::game_end`]: if the game was not over
    /// neither side was connected, so the side to move can only have become connected by losing
    /// a piece. Does not test for "no legal move" (the search finds that when it generates moves).
    #[inline]
    pub fn connection_end_after(&self, mv: Move, rules: &Rules) -> Option<GameEnd> {
        if mv.is_pass() {
            return None;
        }
        let mover = self.side.opponent();
        let mover_connected = is_connected(self.pieces(mover));
        let other_connected = mv.is_capture() && is_connected(self.pieces(self.side));
        rules.judge_connection(mover, mover_connected, other_connected)
    }

    /// `self.play(mv).connection_end_after(mv, rules)`, from this position's piece sets: the
    /// search's leaves' parents ask it of every move, and building each child in memory only
    /// to read its sets back made the test wait on the stores
    /// (`connection_end_of_move_is_that_of_the_child`).
    #[inline(always)]
    pub(crate) fn connection_end_of_move(&self, mv: Move, rules: &Rules) -> Option<GameEnd> {
        if mv.is_pass() {
            return None;
        }
        let (from, to) = (mv.from().bit(), mv.to().bit());
        let mover_connected = is_connected(Bitboard(self.own().0 ^ (from | to)));
        let other_connected = mv.is_capture() && is_connected(Bitboard(self.enemy().0 & !to));
        rules.judge_connection(self.side, mover_connected, other_connected)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(text: &str) -> Position {
        text.parse().unwrap()
    }

    #[test]
    fn connection_end_of_move_is_that_of_the_child() {
        let mut ends = 0;
        for pos in crate::openings::sample_positions(10_000, 23) {
            for rules in [Rules::default(), Rules { both_connected: BothConnected::MoverWins, ..Rules::default() }] {
                let mut moves: Vec<Move> = pos.legal_moves().iter().copied().collect();
                moves.push(Move::PASS);
                for mv in moves {
                    let want = pos.play(mv).connection_end_after(mv, &rules);
                    assert_eq!(pos.connection_end_of_move(mv, &rules), want, "{pos} {mv}");
                    ends += usize::from(want.is_some());
                }
            }
        }
        assert!(ends > 100, "{ends} ends");
    }

    #[test]
    fn start_is_not_over() {
        assert_eq!(Position::start().game_end(&Rules::default()), None);
    }

    #[test]
    fn connected_mover_wins_and_opponent_connected_by_capture_wins() {
        // White just moved and is connected (a single group on the h-file); Black is split.
        let p = pos("......../.......w/.......w/......../b......./......../......../.b...... b");
        assert_eq!(p.game_end(&Rules::default()).unwrap().outcome, Outcome::Win(Color::White));
        // Black just moved (White to move) but only White is connected: White wins.
        let q = p.with_side_to_move(Color::White);
        let end = q.game_end(&Rules::default()).unwrap();
        assert_eq!((end.outcome, end.reason), (Outcome::Win(Color::White), EndReason::Connected));
    }

    #[test]
    fn both_connected_follows_the_variant() {
        let p = pos("......../......../......../...w..../......../......../......../.b...... w");
        let draw = p.game_end(&Rules::default()).unwrap();
        assert_eq!((draw.outcome, draw.reason), (Outcome::Draw, EndReason::BothConnected));
        let sackson = Rules { both_connected: BothConnected::MoverWins, ..Rules::default() };
        assert_eq!(p.game_end(&sackson).unwrap().outcome, Outcome::Win(Color::Black));
    }

    #[test]
    fn no_legal_move_loses_unless_passing() {
        // Black a1 and h8 are boxed in by white pieces they may not jump; White is in 3 groups.
        let p = pos("......wb/......ww/......../.......w/......../......../ww....../bw...... b");
        assert!(!p.has_legal_move());
        assert!(p.legal_moves().is_empty());
        let end = p.game_end(&Rules::default()).unwrap();
        assert_eq!((end.outcome, end.reason), (Outcome::Win(Color::White), EndReason::NoMoves));
        let passing = Rules { no_moves: NoMoves::Passes, ..Rules::default() };
        assert_eq!(p.game_end(&passing), None);
    }
}
