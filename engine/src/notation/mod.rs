//! Position text and move text (docs/spec.md §1), with typed errors that name the problem. The
//! move text's types live in a submodule and are re-exported here.

use crate::{Bitboard, BoardSize, Color, Position, Square};
use std::fmt;
use std::str::FromStr;

mod moves;

pub use moves::{IllegalReason, MoveError};

/// Why position text was rejected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PositionError {
    /// Nothing after the board: the side to move is missing.
    MissingSide,
    /// The side to move is not `b` or `w`.
    BadSide {
        /// What was found instead.
        found: String,
    },
    /// Extra text after the side to move.
    TrailingText {
        /// The unexpected text.
        found: String,
    },
    /// The board does not have 5 to 8 ranks separated by `/` (the count gives the board's size).
    WrongRankCount {
        /// How many ranks were found.
        found: usize,
    },
    /// A rank does not have as many squares as the board has ranks.
    WrongRankLength {
        /// The rank (1..=N) as printed on the board.
        rank: u8,
        /// How many characters it had.
        found: usize,
        /// How many it needs: the number of ranks, N.
        expected: u8,
    },
    /// A square holds something other than `b`, `w` or `.`.
    BadCharacter {
        /// The character found.
        found: char,
        /// Where it stands.
        square: Square,
    },
    /// A colour has more pieces than the usual start gives it: 2·(N − 2) on an N×N board.
    TooManyPieces {
        /// The colour.
        color: Color,
        /// Its piece count.
        count: u32,
        /// The most allowed on this board.
        max: u32,
    },
    /// A piece stands outside the board (only from [`Position::from_pieces_on`]: position text
    /// has no squares beyond its board).
    OffBoard {
        /// The first such square.
        square: Square,
        /// The board.
        size: BoardSize,
    },
    /// A colour has no piece at all (a side with no pieces cannot arise in Lines of Action).
    NoPieces {
        /// The colour.
        color: Color,
    },
    /// A square holds pieces of both colours (only from [`Position::from_pieces`]).
    Overlap {
        /// The first such square.
        square: Square,
    },
}

impl fmt::Display for PositionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PositionError::MissingSide => {
                write!(f, "no side to move: position text is the ranks joined by `/`, a space and `b` or `w`")
            }
            PositionError::BadSide { found } => {
                write!(f, "side to move must be `b` or `w`, found `{found}`")
            }
            PositionError::TrailingText { found } => {
                write!(f, "unexpected text after the side to move: `{found}`")
            }
            PositionError::WrongRankCount { found } => {
                write!(f, "board must have 5 to 8 ranks separated by `/` (8 on the standard board), found {found}")
            }
            PositionError::WrongRankLength { rank, found, expected } => write!(
                f,
                "rank {rank} must have {expected} squares, as the board has {expected} ranks ({expected}x{expected}), found {found}"
            ),
            PositionError::BadCharacter { found, square } => {
                write!(f, "bad character {found:?} on {square}: use `b`, `w` or `.`")
            }
            PositionError::TooManyPieces { color, count, max } => {
                write!(f, "{color} has {count} pieces, at most {max} are allowed on this board")
            }
            PositionError::OffBoard { square, size } => {
                write!(
                    f,
                    "a piece stands on {square}, outside the {size} board: keep pieces on files and ranks 1 to {}",
                    size.side()
                )
            }
            PositionError::NoPieces { color } => write!(f, "{color} has no pieces"),
            PositionError::Overlap { square } => write!(f, "{square} holds pieces of both colours"),
        }
    }
}

impl std::error::Error for PositionError {}

impl FromStr for Position {
    type Err = PositionError;

    /// Parses position text, e.g. [`crate::START_TEXT`]. Surrounding whitespace is ignored.
    fn from_str(text: &str) -> Result<Position, PositionError> {
        let mut parts = text.split_whitespace();
        let board = parts.next().unwrap_or("");
        let side = parts.next().ok_or(PositionError::MissingSide)?;
        if let Some(extra) = parts.next() {
            return Err(PositionError::TrailingText { found: extra.to_string() });
        }
        let ranks: Vec<&str> = board.split('/').collect();
        let size = u8::try_from(ranks.len())
            .ok()
            .and_then(|n| BoardSize::new(n).ok())
            .ok_or(PositionError::WrongRankCount { found: ranks.len() })?;
        let n = size.side();
        let (mut black, mut white) = (0u64, 0u64);
        for (i, rank_text) in ranks.iter().enumerate() {
            let rank = n - 1 - i as u8;
            let count = rank_text.chars().count();
            if count != usize::from(n) {
                return Err(PositionError::WrongRankLength { rank: rank + 1, found: count, expected: n });
            }
            for (file, ch) in rank_text.chars().enumerate() {
                let square = Square::new(rank * 8 + file as u8);
                match ch {
                    'b' => black |= square.bit(),
                    'w' => white |= square.bit(),
                    '.' => {}
                    _ => return Err(PositionError::BadCharacter { found: ch, square }),
                }
            }
        }
        let side = match side {
            "b" => Color::Black,
            "w" => Color::White,
            other => {
                return Err(PositionError::BadSide { found: other.to_string() });
            }
        };
        Position::from_pieces_on(size, Bitboard(black), Bitboard(white), side)
    }
}

/// Position text: ranks N down to 1 joined by `/`, each N squares, a space, the side to move.
impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.size.side();
        for rank in (0..n).rev() {
            for file in 0..n {
                let ch = match self.piece_at(Square::new(rank * 8 + file)) {
                    Some(c) => c.letter(),
                    None => '.',
                };
                write!(f, "{ch}")?;
            }
            if rank > 0 {
                f.write_str("/")?;
            }
        }
        write!(f, " {}", self.side.letter())
    }
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Position(\"{self}\")")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::START_TEXT;

    fn err(text: &str) -> PositionError {
        text.parse::<Position>().unwrap_err()
    }

    #[test]
    fn start_text_round_trips() {
        let p: Position = START_TEXT.parse().unwrap();
        assert_eq!(p, Position::start());
        assert_eq!(format!("  {START_TEXT}\n").parse::<Position>().unwrap(), p);
    }

    #[test]
    fn bad_position_text_is_named() {
        assert_eq!(
            err(".bbbbbb./w......w/w......w/w......w/w......w/w......w/w......w/.bbbbbb."),
            PositionError::MissingSide
        );
        assert_eq!(err(""), PositionError::MissingSide);
        assert_eq!(
            err(".bbbbbb./w......w/w......w/w......w/w......w/w......w/w......w/w......w/.bbbbbb. b"),
            PositionError::WrongRankCount { found: 9 }
        );
        assert_eq!(err("w.../.../..b b"), PositionError::WrongRankCount { found: 3 });
        // Seven ranks make a 7×7 board, so a rank of 8 is the error.
        assert_eq!(
            err(".bbbbbb./w......w/w......w/w......w/w......w/w......w/.bbbbbb. b"),
            PositionError::WrongRankLength { rank: 7, found: 8, expected: 7 }
        );
        assert_eq!(
            err(".bbbbbb./w......w/w.....w/w......w/w......w/w......w/w......w/.bbbbbb. b"),
            PositionError::WrongRankLength { rank: 6, found: 7, expected: 8 }
        );
        assert_eq!(
            err(".bbbbbb./w......w/w..x...w/w......w/w......w/w......w/w......w/.bbbbbb. b"),
            PositionError::BadCharacter { found: 'x', square: Square::parse("d6").unwrap() }
        );
        assert_eq!(
            err(".bbbbbb./w......w/w......w/w......w/w......w/w......w/w......w/.bbbbbb. x"),
            PositionError::BadSide { found: "x".into() }
        );
        assert_eq!(
            err(".bbbbbb./w......w/w......w/w......w/w......w/w......w/w......w/.bbbbbb. b 3"),
            PositionError::TrailingText { found: "3".into() }
        );
        assert_eq!(
            err(".bbbbbb./w......w/w..b...w/w......w/w......w/w......w/w......w/.bbbbbb. b"),
            PositionError::TooManyPieces { color: Color::Black, count: 13, max: 12 }
        );
        assert_eq!(
            err("......../......../......../...w..../......../......../......../........ w"),
            PositionError::NoPieces { color: Color::Black }
        );
        // Every message names the problem in words.
        assert!(err("x b").to_string().contains("8 ranks"));
        assert!(err("x b").to_string().contains("5 to 8 ranks"));
    }

    #[test]
    fn smaller_boards_parse_print_and_check_their_limits() {
        let five = ".bbb./w...w/w...w/w...w/.bbb. w";
        let p: Position = five.parse().unwrap();
        assert_eq!(p.size(), BoardSize::MIN);
        assert_eq!(p.to_string(), five);
        assert_eq!(p.side_to_move(), Color::White);
        assert_eq!(p.piece_at(Square::parse("e2").unwrap()), Some(Color::White));
        assert_eq!(p.piece_at(Square::parse("b5").unwrap()), Some(Color::Black));
        // Six ranks: every rank needs six squares.
        let e = err("....../....../...b../....../....../..w.... b");
        assert_eq!(e, PositionError::WrongRankLength { rank: 1, found: 7, expected: 6 });
        assert!(e.to_string().contains("rank 1 must have 6 squares"), "{e}");
        // At most 2·(N − 2) pieces a colour, the usual start's count: 7 on 5×5 is too many.
        let e = err("bbbbb/bb.../...../...../....w b");
        assert_eq!(e, PositionError::TooManyPieces { color: Color::Black, count: 7, max: 6 });
        assert!(e.to_string().contains("at most 6"), "{e}");
        assert!("bbbbb/b..../...../...../....w b".parse::<Position>().is_ok());
    }
}
