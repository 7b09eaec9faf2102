//! Quad counts and the Euler number (Gray 1971; Winands' quad heuristic; Dyer's notes).
//!
//! A quad is a 2×2 window; with a phantom empty border there are 9×9 = 81 of them and every
//! square lies in exactly four. For one side, quads are counted by type: Q0..Q4 by the number of
//! that side's pieces in them, and Qd for two pieces on a diagonal (which Q2 then excludes). The
//! Euler number `E = (Q1 − Q3 − 2·Qd) / 4` is the number of groups minus the number of holes, so
//! `E > 1` proves a side has two or more groups; a hole can make `E = 1` with two groups, so
//! `E ≤ 1` proves nothing and the flood fill of [`crate::connect`] decides.
//!
//! Two ways to get the counts: [`QuadCounts::of`] from scratch with shifts of a padded 10×10
//! board held in a `u128`, and [`QuadCounts::added`]/[`QuadCounts::removed`], which update the
//! four quads around one square from a 512-entry table of the 3×3 neighbourhood.

use crate::{Bitboard, Square};

/// Index of the diagonal-pair count in [`QuadCounts::counts`].
pub const QD: usize = 5;

/// One side's quad counts: `counts[k]` is Qk for k = 0..=4, `counts[QD]` is Qd.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct QuadCounts {
    /// Q0, Q1, Q2 (orthogonal pairs only), Q3, Q4, Qd; they sum to 81.
    pub counts: [u8; 6],
}

/// Board squares in a 10-wide padded grid: square (x, y) sits at bit `(y+1)·10 + x+1`.
#[inline]
fn padded(pieces: Bitboard) -> u128 {
    let b = pieces.0;
    let mut p = 0u128;
    for y in 0..8 {
        p |= (((b >> (8 * y)) & 0xFF) as u128) << ((y + 1) * 10 + 1);
    }
    p
}

/// The top-left corners of the 81 windows in the padded grid.
const WINDOWS: u128 = {
    let mut w = 0u128;
    let mut r = 0;
    while r < 9 {
        let mut c = 0;
        while c < 9 {
            w |= 1u128 << (r * 10 + c);
            c += 1;
        }
        r += 1;
    }
    w
};

/// The quad type (0..=4 by count, [`QD`] for a diagonal pair) of the 4-bit pattern
/// `tl | tr << 1 | bl << 2 | br << 3`.
const fn quad_type(pattern: usize) -> usize {
    let count = (pattern as u32).count_ones() as usize;
    if pattern == 0b1001 || pattern == 0b0110 { QD } else { count }
}

/// `ADD_DELTA[n]`: the change in counts when a piece is put on the centre of the 3×3
/// neighbourhood `n` (bit `3·row + col`, row 0 below, centre bit 4 clear).
static ADD_DELTA: [[i8; 6]; 512] = {
    let mut table = [[0i8; 6]; 512];
    let mut n = 0;
    while n < 512 {
        if n & 16 == 0 {
            // The four windows around the centre, as lists of neighbourhood bits tl, tr, bl, br.
            let windows = [[3, 4, 0, 1], [4, 5, 1, 2], [6, 7, 3, 4], [7, 8, 4, 5]];
            let mut w = 0;
            while w < 4 {
                let (mut before, mut after) = (0, 0);
                let mut k = 0;
                while k < 4 {
                    let bit = windows[w][k];
                    if (n >> bit) & 1 == 1 {
                        before |= 1 << k;
                    }
                    if ((n | 16) >> bit) & 1 == 1 {
                        after |= 1 << k;
                    }
                    k += 1;
                }
                table[n][quad_type(before)] -= 1;
                table[n][quad_type(after)] += 1;
                w += 1;
            }
        }
        n += 1;
    }
    table
};

/// The 3×3 neighbourhood of `sq` in `pieces` as 9 bits (off-board squares empty).
#[inline]
fn neighbourhood(pieces: Bitboard, sq: Square) -> usize {
    let (x, y) = (sq.file() as u32, sq.rank() as i32);
    let mut n = 0usize;
    for row in 0..3 {
        let r = y - 1 + row;
        if (0..8).contains(&r) {
            // Shift the rank left by one so file x-1 = -1 reads the empty padding bit.
            let rank = ((pieces.0 >> (8 * r)) & 0xFF) << 1;
            n |= (((rank >> x) & 7) as usize) << (3 * row);
        }
    }
    n
}

impl QuadCounts {
    /// The counts of `pieces`, from scratch.
    pub fn of(pieces: Bitboard) -> QuadCounts {
        let p = padded(pieces);
        let (a, b, c, d) = (p & WINDOWS, (p >> 1) & WINDOWS, (p >> 10) & WINDOWS, (p >> 11) & WINDOWS);
        // Bit-sliced sum a+b+c+d per window: ones, twos and fours bits.
        let (s1, c1, s2, c2) = (a ^ b, a & b, c ^ d, c & d);
        let ones = s1 ^ s2;
        let carry = s1 & s2;
        let twos = c1 ^ c2 ^ carry;
        let fours = (c1 & c2) | ((c1 ^ c2) & carry);
        let diagonal = (a & d & !b & !c) | (b & c & !a & !d);
        let q1 = (ones & !twos).count_ones();
        let q2_all = (twos & !ones & !fours).count_ones();
        let q3 = (ones & twos).count_ones();
        let q4 = fours.count_ones();
        let qd = diagonal.count_ones();
        let q2 = q2_all - qd;
        let q0 = 81 - q1 - q2_all - q3 - q4;
        QuadCounts { counts: [q0 as u8, q1 as u8, q2 as u8, q3 as u8, q4 as u8, qd as u8] }
    }

    /// The counts after a piece is put on `sq`, given the pieces before (`sq` empty in them).
    #[inline]
    #[must_use]
    pub fn added(self, before: Bitboard, sq: Square) -> QuadCounts {
        self.apply(&ADD_DELTA[neighbourhood(before, sq)], 1)
    }

    /// The counts after the piece on `sq` is taken away, given the pieces before (`sq` set).
    #[inline]
    #[must_use]
    pub fn removed(self, before: Bitboard, sq: Square) -> QuadCounts {
        self.apply(&ADD_DELTA[neighbourhood(before, sq) & !16], -1)
    }

    #[inline]
    fn apply(mut self, delta: &[i8; 6], sign: i8) -> QuadCounts {
        for (count, d) in self.counts.iter_mut().zip(delta) {
            *count = count.wrapping_add_signed(d * sign);
        }
        self
    }

    /// The Euler number: groups minus holes, `(Q1 − Q3 − 2·Qd) / 4`.
    #[inline]
    pub fn euler(&self) -> i32 {
        let c = self.counts.map(i32::from);
        (c[1] - c[3] - 2 * c[QD]) / 4
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::connect::group_count;

    /// Window-by-window counting, the obviously correct way.
    fn slow(pieces: Bitboard) -> QuadCounts {
        let at = |x: i32, y: i32| Square::from_coords(x, y).is_some_and(|s| pieces.contains(s)) as usize;
        let mut q = QuadCounts::default();
        for y in -1..8 {
            for x in -1..8 {
                let pattern = at(x, y + 1) | at(x + 1, y + 1) << 1 | at(x, y) << 2 | at(x + 1, y) << 3;
                q.counts[quad_type(pattern)] += 1;
            }
        }
        q
    }

    fn bb(names: &[&str]) -> Bitboard {
        names.iter().map(|n| Square::parse(n).unwrap()).collect()
    }

    #[test]
    fn single_piece_and_known_shapes() {
        let one = QuadCounts::of(bb(&["d4"]));
        assert_eq!(one.counts, [77, 4, 0, 0, 0, 0]);
        assert_eq!(one.euler(), 1);
        // A ring of 8 around an empty e5 has one hole: E = 1 - 1 = 0.
        let ring = bb(&["d4", "e4", "f4", "d5", "f5", "d6", "e6", "f6"]);
        assert_eq!(QuadCounts::of(ring).euler(), 0);
        // Two separate pieces: E = 2.
        assert_eq!(QuadCounts::of(bb(&["a1", "h8"])).euler(), 2);
        assert_eq!(QuadCounts::of(bb(&["a1", "b2"])).counts[QD], 1);
    }

    #[test]
    fn a_hole_gives_euler_one_with_two_groups() {
        // A ring with a hole plus a lone piece: two groups, one hole.
        let pieces = bb(&["b2", "c2", "d2", "b3", "d3", "b4", "c4", "d4", "g7"]);
        assert_eq!(group_count(pieces), 2);
        assert_eq!(QuadCounts::of(pieces).euler(), 1);
    }

    #[test]
    fn from_scratch_matches_window_counting_on_patterns() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..2000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let pieces = Bitboard(x & x.rotate_left(23));
            assert_eq!(QuadCounts::of(pieces), slow(pieces), "{:#x}", pieces.0);
        }
    }

    #[test]
    fn incremental_updates_match_from_scratch_on_every_square() {
        let mut x = 0x1234_5678_9ABC_DEF1u64;
        for _ in 0..200 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let pieces = Bitboard(x & x.rotate_left(11));
            let q = QuadCounts::of(pieces);
            for sq in Square::all() {
                if pieces.contains(sq) {
                    let after = pieces & !Bitboard::from_square(sq);
                    assert_eq!(q.removed(pieces, sq), QuadCounts::of(after));
                } else {
                    let after = pieces | Bitboard::from_square(sq);
                    assert_eq!(q.added(pieces, sq), QuadCounts::of(after));
                }
            }
        }
    }
}
