//! Position text and move text (docs/spec.md §1), with typed errors that name the problem.

use crate::tables::{DIRECTIONS, LINE};
use crate::{Bitboard, BoardSize, Color, Move, Position, Square};
use std::fmt;
use std::str::FromStr;

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
