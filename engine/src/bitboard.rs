//! A set of squares as one `u64`, bit `i` for square index `i`.

use crate::Square;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not};

/// A set of squares. Bit `i` stands for the square with index `i` (a1 = bit 0).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Bitboard(pub u64);

impl Bitboard {
    /// No squares.
    pub const EMPTY: Bitboard = Bitboard(0);
    /// All 64 squares.
    pub const FULL: Bitboard = Bitboard(!0);
    /// The a-file.
    pub const FILE_A: Bitboard = Bitboard(0x0101_0101_0101_0101);
    /// The h-file.
    pub const FILE_H: Bitboard = Bitboard(0x8080_8080_8080_8080);
    /// The squares on the edge of the board.
    pub const EDGE: Bitboard = Bitboard(0xFF81_8181_8181_81FF);

    /// The set holding only `sq`.
    #[inline]
    pub const fn from_square(sq: Square) -> Bitboard {
        Bitboard(sq.bit())
    }

    /// Number of squares in the set.
    #[inline]
    pub const fn count(self) -> u32 {
        self.0.count_ones()
    }

    /// Whether the set is empty.
    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether `sq` is in the set.
    #[inline]
    pub const fn contains(self, sq: Square) -> bool {
        self.0 & sq.bit() != 0
    }

    /// The lowest-index square, if any.
    #[inline]
    pub const fn first(self) -> Option<Square> {
        if self.0 == 0 { None } else { Some(Square::new(self.0.trailing_zeros() as u8)) }
    }

    /// The set grown by one king step in every direction (8-neighbourhood), itself included.
    #[inline]
    pub const fn king_expand(self) -> Bitboard {
        let b = self.0;
        let horizontal = b | ((b << 1) & !Self::FILE_A.0) | ((b >> 1) & !Self::FILE_H.0);
        Bitboard(horizontal | (horizontal << 8) | (horizontal >> 8))
    }
}

/// Iterates squares in ascending index order.
impl Iterator for Bitboard {
    type Item = Square;

    #[inline]
    fn next(&mut self) -> Option<Square> {
        if self.0 == 0 {
            return None;
        }
        let sq = self.0.trailing_zeros() as u8;
        self.0 &= self.0 - 1;
        Some(Square::new(sq))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Bitboard {}

impl FromIterator<Square> for Bitboard {
    fn from_iter<I: IntoIterator<Item = Square>>(iter: I) -> Bitboard {
        Bitboard(iter.into_iter().fold(0, |acc, sq| acc | sq.bit()))
    }
}

macro_rules! bit_op {
    ($trait:ident, $fn:ident, $assign_trait:ident, $assign_fn:ident, $op:tt) => {
        impl $trait for Bitboard {
            type Output = Bitboard;
            #[inline]
            fn $fn(self, rhs: Bitboard) -> Bitboard {
                Bitboard(self.0 $op rhs.0)
            }
        }
        impl $assign_trait for Bitboard {
            #[inline]
            fn $assign_fn(&mut self, rhs: Bitboard) {
                self.0 = self.0 $op rhs.0;
            }
        }
    };
}

bit_op!(BitAnd, bitand, BitAndAssign, bitand_assign, &);
bit_op!(BitOr, bitor, BitOrAssign, bitor_assign, |);
bit_op!(BitXor, bitxor, BitXorAssign, bitxor_assign, ^);

impl Not for Bitboard {
    type Output = Bitboard;
    #[inline]
    fn not(self) -> Bitboard {
        Bitboard(!self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iterates_in_ascending_order() {
        let bb = Bitboard(0b1010_0001 | (1 << 63));
        let squares: Vec<usize> = bb.map(|s| s.index()).collect();
        assert_eq!(squares, vec![0, 5, 7, 63]);
    }

    #[test]
    fn king_expand_does_not_wrap_around_files() {
        let h4 = Square::parse("h4").unwrap();
        let grown = Bitboard::from_square(h4).king_expand();
        let names: Vec<String> = grown.map(|s| s.to_string()).collect();
        assert_eq!(names, ["g3", "h3", "g4", "h4", "g5", "h5"]);
        let a1 = Bitboard::from_square(Square::new(0)).king_expand();
        assert_eq!(a1.count(), 4);
    }

    #[test]
    fn edge_mask_has_28_squares() {
        assert_eq!(Bitboard::EDGE.count(), 28);
        for sq in Square::all() {
            let on_edge = sq.file() == 0 || sq.file() == 7 || sq.rank() == 0 || sq.rank() == 7;
            assert_eq!(Bitboard::EDGE.contains(sq), on_edge, "{sq}");
        }
    }
}
