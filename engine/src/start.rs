//! The start positions: LOA's usual start on every board size and Scrambled Eggs on 8×8
//! (docs/spec.md §1).

use crate::{Bitboard, BoardSize, Color, Position};
use std::fmt;
use std::str::FromStr;

/// Scrambled Eggs in position text: the usual start's 24 squares, the colours alternating
/// around the edge, symmetric under a half turn.
pub const SCRAMBLED_EGGS_TEXT: &str = ".wbwbwb./b......w/w......b/b......w/w......b/b......w/w......b/.bwbwbw. b";

/// Which start position a game begins from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Start {
    /// Black on the inner squares of the first and last rank, White on the inner squares of
    /// the first and last file; Black moves first.
    #[default]
    Standard,
    /// The same squares with the colours alternating around the edge (8×8 only).
    ScrambledEggs,
}

impl Start {
    /// Both starts.
    pub const ALL: [Start; 2] = [Start::Standard, Start::ScrambledEggs];

    /// The start position on a `size` board.
    pub fn position(self, size: BoardSize) -> Result<Position, StartError> {
        match self {
            Start::Standard => Ok(standard(size)),
            Start::ScrambledEggs if size.is_standard() => {
                Ok(SCRAMBLED_EGGS_TEXT.parse().expect("the Scrambled Eggs text is a valid position"))
            }
            Start::ScrambledEggs => Err(StartError::NotOnThisBoard { start: self, size }),
        }
    }

    /// The name used on the command line and in configurations.
    pub const fn name(self) -> &'static str {
        match self {
            Start::Standard => "standard",
            Start::ScrambledEggs => "scrambled-eggs",
        }
    }
}

/// The usual start on `size`: Black on b1..(N−1)1 and bN..(N−1)N, White on a2..a(N−1) and
/// on the last file's ranks 2..N−1, Black to move.
fn standard(size: BoardSize) -> Position {
    let n = u32::from(size.side());
    // The inner squares of rank 1 (files b..N−1) and of file a (ranks 2..N−1).
    let inner_rank = ((1u64 << (n - 2)) - 1) << 1;
    let inner_file = (1..n - 1).fold(0u64, |b, r| b | 1 << (8 * r));
    let black = inner_rank | inner_rank << (8 * (n - 1));
    let white = inner_file | inner_file << (n - 1);
    Position::from_pieces_on(size, Bitboard(black), Bitboard(white), Color::Black)
        .expect("the usual start has 2·(N − 2) pieces a colour, all on the board")
}

impl fmt::Display for Start {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Start {
    type Err = StartError;

    /// `standard` or `scrambled-eggs`.
    fn from_str(text: &str) -> Result<Start, StartError> {
        Start::ALL.into_iter().find(|s| s.name() == text.trim()).ok_or(StartError::Unknown { text: text.to_string() })
    }
}

/// Why a start was rejected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StartError {
    /// Not the name of a start.
    Unknown {
        /// The text given.
        text: String,
    },
    /// The start does not exist on this board size.
    NotOnThisBoard {
        /// The start asked for.
        start: Start,
        /// The board size asked for.
        size: BoardSize,
    },
}

impl fmt::Display for StartError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StartError::Unknown { text } => {
                write!(f, "`{text}` is not a start position: use `standard` or `scrambled-eggs`")
            }
            StartError::NotOnThisBoard { start, size } => {
                write!(f, "the {start} start is defined on the 8x8 board only, not on {size}: use `standard`")
            }
        }
    }
}

impl std::error::Error for StartError {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{START_TEXT, Square};

    fn at(pos: &Position, name: &str) -> Option<Color> {
        pos.piece_at(Square::parse(name).unwrap())
    }

    #[test]
    fn the_standard_start_on_8x8_is_the_published_one() {
        assert_eq!(Start::Standard.position(BoardSize::STANDARD).unwrap(), Position::start());
        assert_eq!(Start::Standard.position(BoardSize::STANDARD).unwrap().to_string(), START_TEXT);
    }

    #[test]
    fn the_standard_start_on_each_size() {
        // Written out by hand from the rule: Black inside the first and last rank, White inside
        // the first and last file.
        let want = [
            ".bbb./w...w/w...w/w...w/.bbb. b",
            ".bbbb./w....w/w....w/w....w/w....w/.bbbb. b",
            ".bbbbb./w.....w/w.....w/w.....w/w.....w/w.....w/.bbbbb. b",
        ];
        for (side, text) in [5u8, 6, 7].into_iter().zip(want) {
            let size = BoardSize::new(side).unwrap();
            let pos = Start::Standard.position(size).unwrap();
            assert_eq!(pos.to_string(), text);
            assert_eq!(pos.size(), size);
            for color in Color::ALL {
                assert_eq!(pos.pieces(color).count(), 2 * (u32::from(side) - 2));
            }
        }
        let five = Start::Standard.position(BoardSize::MIN).unwrap();
        assert_eq!(at(&five, "b1"), Some(Color::Black));
        assert_eq!(at(&five, "d5"), Some(Color::Black));
        assert_eq!(at(&five, "e4"), Some(Color::White));
        assert_eq!(at(&five, "e5"), None);
    }

    /// The 24 edge squares in order around the board, clockwise from b8 (corners left out).
    fn ring() -> Vec<Square> {
        let mut squares = Vec::new();
        squares.extend((1..7).map(|f| Square::from_coords(f, 7).unwrap()));
        squares.extend((1..7).rev().map(|r| Square::from_coords(7, r).unwrap()));
        squares.extend((1..7).rev().map(|f| Square::from_coords(f, 0).unwrap()));
        squares.extend((1..7).map(|r| Square::from_coords(0, r).unwrap()));
        squares
    }

    #[test]
    fn scrambled_eggs_alternates_around_the_edge_and_is_symmetric() {
        let eggs = Start::ScrambledEggs.position(BoardSize::STANDARD).unwrap();
        assert_eq!(eggs.pieces(Color::Black).count(), 12);
        assert_eq!(eggs.pieces(Color::White).count(), 12);
        assert_eq!(eggs.side_to_move(), Color::Black);
        // The usual start's squares.
        assert_eq!(eggs.occupied(), Position::start().occupied());
        // The colours alternate all the way round the ring of 24.
        let colours: Vec<Option<Color>> = ring().iter().map(|&s| eggs.piece_at(s)).collect();
        assert_eq!(colours.len(), 24);
        for (i, c) in colours.iter().enumerate() {
            assert!(c.is_some());
            assert_ne!(*c, colours[(i + 1) % 24], "around square {}", ring()[i]);
        }
        // A half turn maps (x, y) to (7 − x, 7 − y), i.e. index i to 63 − i.
        for sq in Square::all() {
            let turned = Square::new(63 - sq.index() as u8);
            assert_eq!(eggs.piece_at(sq), eggs.piece_at(turned), "{sq} and {turned}");
        }
        assert_eq!(eggs.to_string(), SCRAMBLED_EGGS_TEXT);
    }

    #[test]
    fn scrambled_eggs_is_8x8_only_and_names_parse() {
        for side in [5, 6, 7] {
            let size = BoardSize::new(side).unwrap();
            let err = Start::ScrambledEggs.position(size).unwrap_err();
            assert_eq!(err, StartError::NotOnThisBoard { start: Start::ScrambledEggs, size });
            assert!(err.to_string().contains("8x8 board only"), "{err}");
        }
        assert_eq!("scrambled-eggs".parse::<Start>(), Ok(Start::ScrambledEggs));
        assert_eq!("standard".parse::<Start>(), Ok(Start::Standard));
        let err = "eggs".parse::<Start>().unwrap_err();
        assert!(err.to_string().contains("`standard` or `scrambled-eggs`"), "{err}");
    }
}
