//! Move text (docs/spec.md §1): parsing a move against a position, and why one is illegal.

use crate::tables::{DIRECTIONS, LINE};
use crate::{Bitboard, BoardSize, Color, Move, Position, Square};
use std::fmt;

/// Why move text was rejected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MoveError {
    /// Not of the form `c8-c6` / `d1xa4`.
    Syntax {
        /// The text given.
        text: String,
    },
    /// A legal move written with the wrong separator: `-` for a capture or `x` for a quiet move.
    WrongSeparator {
        /// The text given.
        text: String,
        /// The move as it is written.
        correct: Move,
    },
    /// Well formed, but not a legal move in this position.
    Illegal {
        /// The move as written.
        text: String,
        /// Why it is illegal.
        reason: IllegalReason,
    },
}

/// Why a well-formed move is not legal in a position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IllegalReason {
    /// No piece of the side to move on the from-square.
    NotYourPiece {
        /// The from-square.
        square: Square,
        /// The side to move.
        side: Color,
    },
    /// From- and to-square are not on one rank, file or diagonal (or are the same square).
    NotOnALine,
    /// The distance is not the number of pieces on the line.
    WrongDistance {
        /// Pieces on the line: the distance the piece must move.
        required: u32,
        /// The distance written.
        given: u32,
    },
    /// The piece would jump an enemy piece.
    JumpsEnemy {
        /// The enemy piece in the way.
        square: Square,
    },
    /// The piece would land on a piece of its own side.
    LandsOnOwnPiece,
    /// `pass` is only legal when the side to move has no other move.
    PassNotAllowed,
    /// A square of the move is outside this position's board.
    OffBoard {
        /// The square.
        square: Square,
        /// The board.
        size: BoardSize,
    },
}

impl fmt::Display for IllegalReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IllegalReason::NotYourPiece { square, side } => {
                write!(f, "there is no {side} piece on {square}")
            }
            IllegalReason::NotOnALine => {
                write!(f, "the squares are not on one rank, file or diagonal")
            }
            IllegalReason::WrongDistance { required, given } => write!(
                f,
                "there are {required} pieces on that line, so the piece must move {required} squares, not {given}"
            ),
            IllegalReason::JumpsEnemy { square } => {
                write!(f, "it would jump the enemy piece on {square}")
            }
            IllegalReason::LandsOnOwnPiece => write!(f, "it would land on a piece of its own side"),
            IllegalReason::PassNotAllowed => {
                write!(f, "you may only pass when you have no legal move")
            }
            IllegalReason::OffBoard { square, size } => {
                write!(f, "{square} is outside the {size} board (files and ranks 1 to {})", size.side())
            }
        }
    }
}

impl fmt::Display for MoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MoveError::Syntax { text } => {
                write!(f, "`{text}` is not move text: write e.g. c8-c6 for a move or d1xa4 for a capture")
            }
            MoveError::WrongSeparator { text, correct } if correct.is_capture() => {
                write!(f, "`{text}` takes the piece on {}: write the capture with `x`, as {correct}", correct.to())
            }
            MoveError::WrongSeparator { text, correct } => {
                write!(f, "`{text}` goes to the empty square {}: write it with `-`, as {correct}", correct.to())
            }
            MoveError::Illegal { text, reason } => write!(f, "{text} is illegal here: {reason}"),
        }
    }
}

impl std::error::Error for MoveError {}

impl Position {
    /// Parses move text and checks it is legal here, explaining why if not.
    ///
    /// The separator must match the board: `-` to an empty square, `x` onto an enemy piece
    /// ([`MoveError::WrongSeparator`] names the right one), so a move reads the same to everyone
    /// who sees the position. `pass` is accepted only when the side to move has no legal move;
    /// whether the rules let it pass is the caller's business.
    pub fn parse_move(&self, text: &str) -> Result<Move, MoveError> {
        let text = text.trim();
        if text.eq_ignore_ascii_case("pass") {
            return if self.has_legal_move() {
                Err(MoveError::Illegal { text: text.to_string(), reason: IllegalReason::PassNotAllowed })
            } else {
                Ok(Move::PASS)
            };
        }
        let syntax = || MoveError::Syntax { text: text.to_string() };
        if !text.is_ascii() || text.len() != 5 {
            return Err(syntax());
        }
        let (from, sep, to) = (&text[0..2], &text[2..3], &text[3..5]);
        let (Some(from), Some(to)) = (Square::parse(from), Square::parse(to)) else {
            return Err(syntax());
        };
        if sep != "-" && sep != "x" {
            return Err(syntax());
        }
        if let Some(square) = [from, to].into_iter().find(|s| !self.board().contains(*s)) {
            let reason = IllegalReason::OffBoard { square, size: self.size };
            return Err(MoveError::Illegal { text: text.to_string(), reason });
        }
        let mv = Move::new(from, to, self.enemy().contains(to));
        if !self.is_legal(mv) {
            return Err(MoveError::Illegal { text: text.to_string(), reason: self.why_illegal(from, to) });
        }
        if (sep == "x") != mv.is_capture() {
            return Err(MoveError::WrongSeparator { text: text.to_string(), correct: mv });
        }
        Ok(mv)
    }

    /// The reason a from/to pair is not a legal move (assumes it is not).
    fn why_illegal(&self, from: Square, to: Square) -> IllegalReason {
        if !self.own().contains(from) {
            return IllegalReason::NotYourPiece { square: from, side: self.side };
        }
        let (dx, dy) = (to.file() as i32 - from.file() as i32, to.rank() as i32 - from.rank() as i32);
        let steps = dx.abs().max(dy.abs());
        let Some(dir) = DIRECTIONS.iter().position(|&(x, y)| steps > 0 && x * steps == dx && y * steps == dy) else {
            return IllegalReason::NotOnALine;
        };
        let required = (Bitboard(LINE[dir / 2][from.index()]) & self.occupied()).count();
        if required != steps as u32 {
            return IllegalReason::WrongDistance { required, given: steps as u32 };
        }
        let (sx, sy) = DIRECTIONS[dir];
        for k in 1..steps {
            let sq = Square::from_coords(from.file() as i32 + sx * k, from.rank() as i32 + sy * k);
            if let Some(sq) = sq.filter(|s| self.enemy().contains(*s)) {
                return IllegalReason::JumpsEnemy { square: sq };
            }
        }
        IllegalReason::LandsOnOwnPiece
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::PositionError;

    #[test]
    fn pieces_off_the_board_and_moves_off_it_are_named() {
        let size = BoardSize::new(6).unwrap();
        let off = Bitboard::from_square(Square::parse("g2").unwrap());
        let e = Position::from_pieces_on(size, off, Bitboard::from_square(Square::new(0)), Color::Black).unwrap_err();
        assert_eq!(e, PositionError::OffBoard { square: Square::parse("g2").unwrap(), size });
        assert!(e.to_string().contains("outside the 6x6 board"), "{e}");
        let p: Position = ".bbbb./w....w/w....w/w....w/w....w/.bbbb. b".parse().unwrap();
        for (text, square) in [("b1-b7", "b7"), ("g1-g3", "g1"), ("b6-h8", "h8")] {
            let want = IllegalReason::OffBoard { square: Square::parse(square).unwrap(), size };
            match p.parse_move(text) {
                Err(MoveError::Illegal { reason, .. }) => assert_eq!(reason, want, "{text}"),
                other => panic!("{text}: {other:?}"),
            }
        }
        let e = p.parse_move("b1-b7").unwrap_err().to_string();
        assert!(e.contains("b7 is outside the 6x6 board"), "{e}");
        // Moves on the board still parse: b1 north two (b1, b6 on the file).
        assert_eq!(p.parse_move("b1-b3").unwrap().to_string(), "b1-b3");
    }

    #[test]
    fn moves_are_parsed_and_explained() {
        let p = Position::start();
        assert_eq!(p.parse_move("b1-b3").unwrap().to_string(), "b1-b3");
        assert_eq!(p.parse_move("c1xa3").unwrap().to_string(), "c1xa3");
        // The separator must match the board, and the error names the right one.
        let b1 = Square::parse("b1").unwrap();
        let quiet = MoveError::WrongSeparator {
            text: "b1xb3".into(),
            correct: Move::new(b1, Square::parse("b3").unwrap(), false),
        };
        assert_eq!(p.parse_move("b1xb3"), Err(quiet.clone()));
        assert_eq!(quiet.to_string(), "`b1xb3` goes to the empty square b3: write it with `-`, as b1-b3");
        let capture = p.parse_move("c1-a3").unwrap_err();
        assert_eq!(capture.to_string(), "`c1-a3` takes the piece on a3: write the capture with `x`, as c1xa3");
        // An illegal move is refused for its illegality, whatever the separator.
        assert!(matches!(p.parse_move("b1xb4"), Err(MoveError::Illegal { .. })));
        let reason = |t: &str| match p.parse_move(t).unwrap_err() {
            MoveError::Illegal { reason, .. } => reason,
            e => panic!("{e}"),
        };
        assert_eq!(
            reason("a2-a4"),
            IllegalReason::NotYourPiece { square: Square::parse("a2").unwrap(), side: Color::Black }
        );
        assert_eq!(reason("b1-c3"), IllegalReason::NotOnALine);
        assert_eq!(reason("b1-b4"), IllegalReason::WrongDistance { required: 2, given: 3 });
        assert!(matches!(p.parse_move("b1b3"), Err(MoveError::Syntax { .. })));
        assert!(matches!(p.parse_move("z1-b3"), Err(MoveError::Syntax { .. })));
        assert!(matches!(p.parse_move("pass"), Err(MoveError::Illegal { reason: IllegalReason::PassNotAllowed, .. })));
    }

    #[test]
    fn jumping_an_enemy_and_landing_on_own_are_explained() {
        let reason = |pos: &str, mv: &str| match pos.parse::<Position>().unwrap().parse_move(mv).unwrap_err() {
            MoveError::Illegal { reason, .. } => reason,
            e => panic!("{e}"),
        };
        // Rank 1 holds black a1, white b1, black c1: three pieces, so a1-d1 must jump b1.
        let jump = "......../......../......../......../......../......../......../bwb..... b";
        assert_eq!(reason(jump, "a1-d1"), IllegalReason::JumpsEnemy { square: Square::parse("b1").unwrap() });
        // Rank 1 holds black a1 and c1: two pieces, so a1 would land on c1.
        let own = "......../......../......../......../......../......../w......./b.b..... b";
        assert_eq!(reason(own, "a1-c1"), IllegalReason::LandsOnOwnPiece);
    }
}
