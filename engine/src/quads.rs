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
//!
//! On a smaller N×N board (docs/spec.md §1) the pieces sit in the corner of the same frame. A
//! window reaching past the board's last file or rank sees empty squares there, which is what
//! the edge of the board means, so Q1..Q4, Qd and the Euler number are the N×N board's as they
//! stand; only Q0 also counts the 81 − (N+1)² windows wholly off the board, which
//! [`QuadCounts::on_board`] takes away.

use crate::{Bitboard, BoardSize, Square};

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

    /// These counts (of pieces on the `size` board) with Q0 counting only the `(N+1)²` windows
    /// that touch the board: the counts of the N×N board with its own empty border.
    #[must_use]
    pub fn on_board(mut self, size: BoardSize) -> QuadCounts {
        let side = u32::from(size.side()) + 1;
        self.counts[0] = self.counts[0].wrapping_sub((81 - side * side) as u8);
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

    /// Window-by-window counting on an N×N grid with its own empty border, nothing of the 8×8
    /// frame: the (N+1)² windows of an (N+2)×(N+2) grid.
    fn padded_grid_counts(pieces: Bitboard, n: i32) -> QuadCounts {
        let grid: Vec<Vec<usize>> = (-1..=n)
            .map(|y| {
                (-1..=n)
                    .map(|x| {
                        let on = (0..n).contains(&x) && (0..n).contains(&y);
                        usize::from(on && pieces.contains(Square::new((8 * y + x) as u8)))
                    })
                    .collect()
            })
            .collect();
        let mut q = QuadCounts::default();
        for y in 0..=n as usize {
            for x in 0..=n as usize {
                let pattern = grid[y + 1][x] | grid[y + 1][x + 1] << 1 | grid[y][x] << 2 | grid[y][x + 1] << 3;
                q.counts[quad_type(pattern)] += 1;
            }
        }
        q
    }

    #[test]
    fn counts_on_smaller_boards_are_those_of_the_padded_n_by_n_grid() {
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        for size in BoardSize::ALL {
            let n = i32::from(size.side());
            let mut with_edge_windows = 0;
            for _ in 0..3000 {
                x = crate::random::mix64(x);
                let pieces = Bitboard(x & crate::random::mix64(x ^ 3) & size.mask());
                let want = padded_grid_counts(pieces, n);
                let got = QuadCounts::of(pieces).on_board(size);
                assert_eq!(got, want, "{size} {:#x}", pieces.0);
                assert_eq!(got.counts.iter().map(|&c| u32::from(c)).sum::<u32>(), ((n + 1) * (n + 1)) as u32);
                // The Euler number needs no correction.
                assert_eq!(QuadCounts::of(pieces).euler(), want.euler());
                // Pieces on the last file or rank: their windows straddle the board's edge.
                let last = (0..n).fold(0u64, |b, i| b | 1 << (8 * i + n - 1) | 1 << (8 * (n - 1) + i));
                with_edge_windows += usize::from(pieces.0 & last != 0);
            }
            assert!(with_edge_windows > 1000, "{size}: {with_edge_windows}");
        }
    }

    #[test]
    fn euler_counts_groups_on_a_small_board() {
        // 5×5: two pieces in the far corner and one at a1, no holes: E = 2 groups.
        let pieces = bb(&["a1", "e5", "d4"]);
        assert_eq!(QuadCounts::of(pieces).on_board(BoardSize::MIN).euler(), 2);
        assert_eq!(group_count(pieces), 2);
        // A ring around c3 on 5×5: one group, one hole.
        let ring = bb(&["b2", "c2", "d2", "b3", "d3", "b4", "c4", "d4"]);
        assert_eq!(QuadCounts::of(ring).euler(), 0);
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
