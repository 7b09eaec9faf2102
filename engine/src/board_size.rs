//! The board's size: N×N for N = 5..=8, embedded in the 8×8 bitboards (docs/spec.md §1).
//!
//! An N×N board is files a.. and ranks 1..N of the same `u64`: square indices stay `8·rank +
//! file`, so a1 = 0 and square names mean the same on every size, and the 8×8 code paths need
//! only a mask.

use std::fmt;
use std::str::FromStr;

/// The side length of a square board, 5 to 8 (8 is the standard board and the default).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BoardSize(u8);

/// `MASKS[n % 4]`: the squares of the n×n board. Indexed by `n % 4` (5..=8 are distinct modulo
/// 4) so that the lookup needs no bounds check: move generation reads it at every node.
const MASKS: [u64; 4] = [mask_of(8), mask_of(5), mask_of(6), mask_of(7)];

const fn mask_of(n: u32) -> u64 {
    let rank = (1u64 << n) - 1;
    let mut mask = 0;
    let mut r = 0;
    while r < n {
        mask |= rank << (8 * r);
        r += 1;
    }
    mask
}

impl BoardSize {
    /// The smallest board, 5×5.
    pub const MIN: BoardSize = BoardSize(5);
    /// The standard 8×8 board.
    pub const STANDARD: BoardSize = BoardSize(8);
    /// Every size, smallest first.
    pub const ALL: [BoardSize; 4] = [BoardSize(5), BoardSize(6), BoardSize(7), BoardSize(8)];

    /// The board with `side` squares a side, if `side` is 5 to 8.
    pub const fn new(side: u8) -> Result<BoardSize, BoardSizeError> {
        if side >= 5 && side <= 8 { Ok(BoardSize(side)) } else { Err(BoardSizeError::OutOfRange { side }) }
    }

    /// Squares a side, 5 to 8.
    #[inline]
    pub const fn side(self) -> u8 {
        self.0
    }

    /// The board's squares as a bitboard value: files a.. and ranks 1..N.
    #[inline]
    pub const fn mask(self) -> u64 {
        MASKS[(self.0 & 3) as usize]
    }

    /// Whether the square with file `file` and rank `rank` (0-based) is on this board.
    #[inline]
    pub const fn contains(self, file: i32, rank: i32) -> bool {
        file >= 0 && file < self.0 as i32 && rank >= 0 && rank < self.0 as i32
    }

    /// The most pieces a colour can have: 2·(N − 2), the usual start's count (12 on 8×8).
    #[inline]
    pub const fn max_pieces(self) -> u32 {
        2 * (self.0 as u32 - 2)
    }

    /// Whether this is the standard 8×8 board.
    #[inline]
    pub const fn is_standard(self) -> bool {
        self.0 == 8
    }
}

impl Default for BoardSize {
    fn default() -> BoardSize {
        BoardSize::STANDARD
    }
}

/// `5x5` … `8x8`.
impl fmt::Display for BoardSize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{0}x{0}", self.0)
    }
}

/// Why a board size was rejected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BoardSizeError {
    /// Neither `N` nor `NxN` with a number N.
    Syntax {
        /// The text given.
        text: String,
    },
    /// An `NxM` board with N ≠ M.
    NotSquare {
        /// The text given.
        text: String,
    },
    /// N outside 5..=8.
    OutOfRange {
        /// The side given.
        side: u8,
    },
}

impl fmt::Display for BoardSizeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BoardSizeError::Syntax { text } => {
                write!(f, "`{text}` is not a board size: write 5x5, 6x6, 7x7 or 8x8 (or just 5 to 8)")
            }
            BoardSizeError::NotSquare { text } => {
                write!(f, "board `{text}` is not square: write 5x5, 6x6, 7x7 or 8x8")
            }
            BoardSizeError::OutOfRange { side } => {
                write!(f, "a {side}x{side} board is not supported: the side must be 5 to 8")
            }
        }
    }
}

impl std::error::Error for BoardSizeError {}

/// Parses `N` or `NxN` (`x` or `X`), e.g. `6` or `6x6`.
impl FromStr for BoardSize {
    type Err = BoardSizeError;

    fn from_str(text: &str) -> Result<BoardSize, BoardSizeError> {
        let syntax = || BoardSizeError::Syntax { text: text.to_string() };
        let number = |s: &str| -> Result<u8, BoardSizeError> {
            if s.is_empty() || s.len() > 3 || !s.bytes().all(|b| b.is_ascii_digit()) {
                return Err(syntax());
            }
            s.parse().map_err(|_| syntax())
        };
        let side = match text.trim().split_once(['x', 'X']) {
            None => number(text.trim())?,
            Some((a, b)) => {
                let (a, b) = (number(a)?, number(b)?);
                if a != b {
                    return Err(BoardSizeError::NotSquare { text: text.to_string() });
                }
                a
            }
        };
        BoardSize::new(side)
    }
}

impl serde::Serialize for BoardSize {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for BoardSize {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<BoardSize, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_hold_the_n_by_n_corner() {
        for size in BoardSize::ALL {
            let n = i32::from(size.side());
            for index in 0..64 {
                let (file, rank) = (index % 8, index / 8);
                let want = file < n && rank < n;
                assert_eq!(size.mask() >> index & 1 == 1, want, "{size} square {index}");
                assert_eq!(size.contains(file, rank), want);
            }
            assert_eq!(size.mask().count_ones(), (n * n) as u32);
        }
        assert_eq!(BoardSize::STANDARD.mask(), u64::MAX);
        assert_eq!(BoardSize::STANDARD.max_pieces(), 12);
        assert_eq!(BoardSize::MIN.max_pieces(), 6);
    }

    #[test]
    fn sizes_parse_and_print() {
        for (text, side) in [("5x5", 5), ("6", 6), ("7X7", 7), (" 8x8 ", 8)] {
            assert_eq!(text.parse::<BoardSize>().unwrap().side(), side, "{text}");
        }
        assert_eq!(BoardSize::new(6).unwrap().to_string(), "6x6");
        assert_eq!("9x9".parse::<BoardSize>(), Err(BoardSizeError::OutOfRange { side: 9 }));
        assert_eq!("4".parse::<BoardSize>(), Err(BoardSizeError::OutOfRange { side: 4 }));
        assert_eq!("5x6".parse::<BoardSize>(), Err(BoardSizeError::NotSquare { text: "5x6".into() }));
        for bad in ["", "x", "8x", "eight", "-5", "5x5x5", "9999"] {
            let err = bad.parse::<BoardSize>().unwrap_err();
            assert!(err.to_string().contains("5x5"), "{bad}: {err}");
        }
        let json = serde_json::to_string(&BoardSize::new(7).unwrap()).unwrap();
        assert_eq!(json, "\"7x7\"");
        assert_eq!(serde_json::from_str::<BoardSize>(&json).unwrap().side(), 7);
        assert!(serde_json::from_str::<BoardSize>("\"3x3\"").is_err());
    }
}
