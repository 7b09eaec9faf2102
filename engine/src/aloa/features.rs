//! The raw, weight-free measurements ALoA makes of one side's pieces.
//!
//! All quantities are exact integers. The centre of mass is *not* rounded to a square (MIA
//! rounds it): with an odd board width, a mean file of exactly 3.5 can only be rounded towards
//! one side, and the evaluation would stop being mirror-symmetric. Instead every distance is kept
//! multiplied by `n`, the number of pieces, where it is an integer: a piece on (x, y) is
//! `max(|n·x − Σx|, |n·y − Σy|) / n` squares (Chebyshev, "the minimal number of squares it is
//! removed") from the centre of mass `(Σx/n, Σy/n)`.

use super::geometry::{by_size, geometry, ring_on};
use crate::{Bitboard, BoardSize};

/// `MIN_DISTANCE_SUM[n]`: the least possible sum of distances to the centre of mass of `n`
/// pieces, times `n` (the units of [`SideFeatures::distance_sum`]).
///
/// Winands' table (0 + 1·8 + 2·…) assumes a rounded centre of mass; with an exact one, compact
/// shapes do better (four pieces in a 2×2 block are each ½ from their centre: 2 squares, 8 in
/// units of 1/4). Found by brute force over every placement inside a 5×5 box (re-checked in the
/// tests; a 6×5 box gives the same values), e.g. 12 pieces in a 4×4 block without its corners:
/// 8 at 1½ and 4 at ½, 14 squares = 168/12.
pub const MIN_DISTANCE_SUM: [u32; 13] = [0, 0, 2, 5, 8, 19, 30, 42, 58, 72, 104, 132, 168];

/// Files (or, shifted, ranks) whose index has bit 0, 1, 2 set: Σx from three popcounts.
const FILE_BIT: [u64; 3] = [0xAAAA_AAAA_AAAA_AAAA, 0xCCCC_CCCC_CCCC_CCCC, 0xF0F0_F0F0_F0F0_F0F0];
/// Ranks whose index has bit 0, 1, 2 set.
const RANK_BIT: [u64; 3] = [0xFF00_FF00_FF00_FF00, 0xFFFF_0000_FFFF_0000, 0xFFFF_FFFF_0000_0000];

/// Lower-left squares of the 49 quads that lie wholly on the 8×8 board (file and rank ≤ 6).
/// Quads hanging over the edge hold at most two board squares, so with the phantom empty border
/// of [`crate::quads`] they can never be Q3 or Q4: only these 49 matter here. The same mask
/// serves a smaller board: its pieces never stand beyond its last file or rank, so a window
/// straddling its edge holds at most two of them.
const FULL_QUADS: u64 = 0x007F_7F7F_7F7F_7F7F;

/// One side's measurements. Distances are in units of `1/count` squares.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SideFeatures {
    /// The number of pieces `n`.
    pub count: u32,
    /// Σ of the files (a = 0) of the pieces; the centre of mass is at file `sum_file / n`.
    pub sum_file: u32,
    /// Σ of the ranks (rank 1 = 0) of the pieces.
    pub sum_rank: u32,
    /// Σ over pieces of their Chebyshev distance to the centre of mass, times `n`.
    pub distance_sum: u32,
    /// `distance_sum` minus [`MIN_DISTANCE_SUM`]`[n]`: what better placement could still save.
    pub excess: u32,
    /// Chebyshev distance of the centre of mass from the board centre ((N−1)/2, (N−1)/2; 3.5 on
    /// 8×8), times `2n`: `max(|2·Σx − (N−1)n|, |2·Σy − (N−1)n|)`.
    pub com_offcentre: u32,
    /// Σ over pieces of the ring value 0 (edge) … 3 (the four centre squares).
    pub ring_sum: u32,
    /// Pieces on the edge of the board.
    pub edge: u32,
    /// Q3 quads (three own pieces in a 2×2 window) whose centre is within distance 2 of the
    /// centre of mass.
    pub near_q3: u32,
    /// Q4 quads (a full 2×2 window) whose centre is within distance 2 of the centre of mass.
    pub near_q4: u32,
}

/// Σ over the set bits of `bits & masks[k]`, weighted 1, 2, 4: the sum of a 3-bit coordinate.
#[inline(always)]
fn coordinate_sum(bits: u64, masks: &[u64; 3]) -> u32 {
    (bits & masks[0]).count_ones() + 2 * (bits & masks[1]).count_ones() + 4 * (bits & masks[2]).count_ones()
}

/// Σ over the pieces of their Chebyshev distance to the centre of mass, times `n`:
/// `Σ max(dx[file], dy[rank])` with `dx[f] = |n·f − sx|` and `dy[r] = |n·r − sy|`.
///
/// Written as a sum over all 64 squares, a rank at a time, each square's distance kept or
/// zeroed by its bit: fixed trip counts and no branches, which the compiler turns into 8-lane
/// vector instructions (one per file), about half the instructions of a loop over the pieces.
/// `dx` is built as one vector and `dy` one rank at a time from a running `n·r − sy` (given
/// both as arrays, the compiler built all 16 distances in scalar code and then gathered them
/// into vectors: a fifth of a measurement). Integer arithmetic, so the sum is exact in any
/// order.
#[inline(always)]
fn distance_sum(p: u64, n: i32, sx: i32, sy: i32) -> i32 {
    const FILES: [i32; 8] = [0, 1, 2, 3, 4, 5, 6, 7];
    let mut dx = [0i32; 8];
    for (d, f) in dx.iter_mut().zip(FILES) {
        let v = n * f - sx;
        *d = v.max(-v);
    }
    let mut lanes = [0i32; 8];
    let mut y = -sy;
    for r in 0..8 {
        let dy_r = y.max(-y);
        y += n;
        let rank = (p >> (8 * r)) as u32 & 0xFF;
        for (f, lane) in lanes.iter_mut().enumerate() {
            let occupied = ((rank >> f) & 1) as i32;
            *lane += dx[f].max(dy_r) & occupied.wrapping_neg();
        }
    }
    lanes.iter().sum()
}

/// The number of windows in `windows` (lower-left square indices) whose centre lies within
/// Chebyshev distance 2 of the centre of mass. In doubled coordinates a window's centre is at
/// `2x + 1`, the centre of mass at `2Σx / n`; scaled by `n` the test is `|n(2x+1) − 2Σx| ≤ 4n`.
/// (Q3 and Q4 windows are few, so a loop over them is cheaper than building a mask.)
#[inline(always)]
fn count_near(mut windows: u64, n: i32, two_sx: i32, two_sy: i32) -> u32 {
    let mut near = 0;
    while windows != 0 {
        let w = windows.trailing_zeros() as i32;
        windows &= windows - 1;
        let dx = (n * (2 * (w & 7) + 1) - two_sx).abs();
        let dy = (n * (2 * (w >> 3) + 1) - two_sy).abs();
        near += u32::from(dx.max(dy) <= 4 * n);
    }
    near
}

/// Moves measured together by [`MovedFeatures::of`]: the leaf batch of the search.
pub(crate) const LANES: usize = 8;

/// The quad windows (by lower-left square) whose centre lies within Chebyshev distance 2 of the
/// centre of mass of `n` ≤ 12 pieces with coordinate sums `sx`, `sy`: [`count_near`]'s test
/// for every window at once, so counting the near Q3 and Q4 is two popcounts instead of a loop
/// over the windows (`near_box_agrees_with_count_near`). `half` is `⌈2^16 / 2n⌉`.
///
/// Along one axis the test `|n(2x+1) − 2s| ≤ 4n` holds for the files (or ranks) `x` from
/// `⌈(2s − 5n) / 2n⌉` to `⌊(2s + 3n) / 2n⌋`, the first `⌊(2s + 3n − 1) / 2n⌋ − 3` (shifted
/// to a positive numerator), so the windows form a box: a run of files times a run of ranks.
/// Pure arithmetic and shifts, so lanes of it vectorise; the divisions multiply by `half`,
/// exact because the numerators (at most 2·84 + 36) times the rounding of `half` (below 2n ≤
/// 24) stay below 2^16.
#[inline(always)]
fn near_box(n: i32, sx: i32, sy: i32, half: i32) -> u64 {
    let run = |s: i32| {
        let lo = (((2 * s + 3 * n - 1) * half) >> 16) - 3;
        let hi = ((2 * s + 3 * n) * half) >> 16;
        (lo.max(0), hi.min(7))
    };
    let ((x0, x1), (y0, y1)) = (run(sx), run(sy));
    // Files x0..=x1 on every rank; ranks y0..=y1.
    let files = ((0xFF << x0) & (0xFF >> (7 - x1))) as u32 * 0x0101_0101;
    let files = u64::from(files) | u64::from(files) << 32;
    let ranks = (u64::MAX << (8 * y0)) & (u64::MAX >> (8 * (7 - y1)));
    files & ranks
}

/// `⌈2^16 / 2n⌉` for [`near_box`].
#[inline(always)]
fn near_half(n: i32) -> i32 {
    (1 << 16) / (2 * n) + i32::from((1 << 16) % (2 * n) != 0)
}

/// One side's measurements after each of [`LANES`] moves of one of its pieces, lane by lane:
/// what [`SideFeatures`] holds, as `i32` (the piece count is every lane's).
///
/// A leaf's parent measures the mover's pieces after each of its moves. These sets share all
/// pieces but one, so the distance sum runs over the parent's pieces once with the moves'
/// centres of mass in the lanes of a vector, then corrects each lane for its moved piece; the
/// other measurements are lane-wise too, with no branch but the loop over the pieces.
#[derive(Clone, Copy, Debug)]
pub(crate) struct MovedFeatures {
    pub(crate) count: u32,
    pub(crate) sum_file: [i32; LANES],
    pub(crate) sum_rank: [i32; LANES],
    pub(crate) distance_sum: [i32; LANES],
    pub(crate) excess: [i32; LANES],
    pub(crate) com_offcentre: [i32; LANES],
    pub(crate) ring_sum: [i32; LANES],
    pub(crate) edge: [i32; LANES],
    pub(crate) near_q3: [i32; LANES],
    pub(crate) near_q4: [i32; LANES],
}

impl MovedFeatures {
    /// The measurements of `pieces` after each move of one of its pieces from `from[l]` to
    /// `to[l]` (square indices; `to[l]` not in `pieces`): lane `l` holds exactly what
    /// `SideFeatures::of(pieces − from[l] + to[l], with_quads)` does
    /// (`moved_features_equal_measuring_the_moved_set`). A lane with `from[l] == to[l]` measures
    /// `pieces` unmoved. `pieces` must hold 1 to 12 pieces, all on the `size` board.
    #[inline]
    pub(crate) fn of(
        size: BoardSize,
        pieces: Bitboard,
        from: &[u8; LANES],
        to: &[u8; LANES],
        with_quads: bool,
    ) -> MovedFeatures {
        by_size!(size, moved_features(pieces, from, to, with_quads))
    }
}

/// [`MovedFeatures::of`] on the N×N board.
#[inline(always)]
fn moved_features<const N: i32>(
    pieces: Bitboard,
    from: &[u8; LANES],
    to: &[u8; LANES],
    with_quads: bool,
) -> MovedFeatures {
    let geometry = const { geometry(N) };
    let (inner, last) = (&geometry.inner, geometry.last);
    let p = pieces.0;
    let count = p.count_ones();
    debug_assert!((1..=12).contains(&count));
    let n = count as i32;
    let sum_file = coordinate_sum(p, &FILE_BIT) as i32;
    let sum_rank = coordinate_sum(p, &RANK_BIT) as i32;
    let ring_sum = ((p & inner[0]).count_ones() + (p & inner[1]).count_ones() + (p & inner[2]).count_ones()) as i32;
    let edge = (p & !inner[0]).count_ones() as i32;
    let mut m = MovedFeatures {
        count,
        sum_file: [0; LANES],
        sum_rank: [0; LANES],
        distance_sum: [0; LANES],
        excess: [0; LANES],
        com_offcentre: [0; LANES],
        ring_sum: [0; LANES],
        edge: [0; LANES],
        near_q3: [0; LANES],
        near_q4: [0; LANES],
    };
    // Each lane's coordinate sums, ring sum and edge count, and its moved piece's distance
    // before and after (the piece leaves the parent's sum and enters the child's on its
    // new square). Plain loops over `i32` lanes, which the compiler vectorises.
    let (from, to) = (from.map(i32::from), to.map(i32::from));
    for l in 0..LANES {
        let (fx, fy, tx, ty) = (from[l] & 7, from[l] >> 3, to[l] & 7, to[l] >> 3);
        let (sx, sy) = (sum_file - fx + tx, sum_rank - fy + ty);
        let (dfx, dfy, dtx, dty) = (n * fx - sx, n * fy - sy, n * tx - sx, n * ty - sy);
        m.sum_file[l] = sx;
        m.sum_rank[l] = sy;
        m.distance_sum[l] = dtx.max(-dtx).max(dty.max(-dty)) - dfx.max(-dfx).max(dfy.max(-dfy));
        let (ring_from, ring_to) = (ring_on(last, fx, fy), ring_on(last, tx, ty));
        m.ring_sum[l] = ring_sum - ring_from + ring_to;
        m.edge[l] = edge - i32::from(ring_from == 0) + i32::from(ring_to == 0);
    }
    // Integer arithmetic, so the sum is exact in any order: it equals `distance_sum`'s.
    let mut bits = p;
    while bits != 0 {
        let s = bits.trailing_zeros() as i32;
        bits &= bits - 1;
        let (x, y) = (n * (s & 7), n * (s >> 3));
        for l in 0..LANES {
            let (dx, dy) = (x - m.sum_file[l], y - m.sum_rank[l]);
            m.distance_sum[l] += dx.max(-dx).max(dy.max(-dy));
        }
    }
    // The table is the true minimum for n ≤ 12, so the excess is never negative; the
    // `max` keeps `SideFeatures::of`'s saturation all the same.
    let minimum = MIN_DISTANCE_SUM[count as usize] as i32;
    for l in 0..LANES {
        m.excess[l] = (m.distance_sum[l] - minimum).max(0);
        let (ox, oy) = (2 * m.sum_file[l] - last * n, 2 * m.sum_rank[l] - last * n);
        m.com_offcentre[l] = ox.max(-ox).max(oy.max(-oy));
    }
    if with_quads {
        // Two loops of plain integer lanes, both vectorised (the popcounts too): as one
        // loop with the near windows from tables it ran a lane at a time, 45 instructions
        // each, half the batch.
        let half = near_half(n);
        let mut near = [0u64; LANES];
        for ((near, &sx), &sy) in near.iter_mut().zip(&m.sum_file).zip(&m.sum_rank) {
            *near = near_box(n, sx, sy, half);
        }
        for l in 0..LANES {
            let moved = p ^ (1u64 << from[l]) ^ (1u64 << to[l]);
            let (q3, q4) = quads(moved);
            m.near_q3[l] = (q3 & near[l]).count_ones() as i32;
            m.near_q4[l] = (q4 & near[l]).count_ones() as i32;
        }
    }
    m
}

/// The windows (by lower-left square, on the board) holding exactly three and all four of
/// `p`'s squares.
#[inline(always)]
fn quads(p: u64) -> (u64, u64) {
    // Window with lower-left square s holds s, s+1 (right), s+8 (above), s+9.
    let (a, b, c, d) = (p, p >> 1, p >> 8, p >> 9);
    let q4 = a & b & c & d & FULL_QUADS;
    let q3_or_more = ((a & b & (c | d)) | (c & d & (a | b))) & FULL_QUADS;
    (q3_or_more & !q4, q4)
}

impl SideFeatures {
    /// Measures `pieces` on the 8×8 board: [`SideFeatures::on`] the standard board.
    #[inline]
    pub fn of(pieces: Bitboard, with_quads: bool) -> SideFeatures {
        SideFeatures::on(BoardSize::STANDARD, pieces, with_quads)
    }

    /// Measures `pieces` on the `size` board (all zeros for an empty set; the pieces must be on
    /// the board). `with_quads: false` skips the quad counts (left 0), which the normal
    /// evaluator does not use.
    #[inline]
    pub fn on(size: BoardSize, pieces: Bitboard, with_quads: bool) -> SideFeatures {
        by_size!(size, side_features(pieces, with_quads))
    }
}

/// [`SideFeatures::on`] on the N×N board.
#[inline(always)]
fn side_features<const N: i32>(pieces: Bitboard, with_quads: bool) -> SideFeatures {
    let geometry = const { geometry(N) };
    let (inner, last) = (&geometry.inner, geometry.last as u32);
    let p = pieces.0;
    let count = p.count_ones();
    if count == 0 {
        return SideFeatures::default();
    }
    let n = count as i32;
    let sum_file = coordinate_sum(p, &FILE_BIT);
    let sum_rank = coordinate_sum(p, &RANK_BIT);
    let (sx, sy) = (sum_file as i32, sum_rank as i32);

    let distance_sum = distance_sum(p, n, sx, sy) as u32;
    // `count` ≤ 64 and the table is the true minimum for n ≤ 12 (a Position never has
    // more); beyond it, or if the table were wrong, the excess just saturates at 0.
    let minimum = MIN_DISTANCE_SUM.get(count as usize).copied().unwrap_or(0);
    let excess = distance_sum.saturating_sub(minimum);

    let centre = (last * count) as i32;
    let com_offcentre = (2 * sx - centre).unsigned_abs().max((2 * sy - centre).unsigned_abs());
    let inner6 = (p & inner[0]).count_ones();
    let ring_sum = inner6 + (p & inner[1]).count_ones() + (p & inner[2]).count_ones();

    let (mut near_q3, mut near_q4) = (0, 0);
    if with_quads {
        let (q3, q4) = quads(p);
        near_q3 = count_near(q3, n, 2 * sx, 2 * sy);
        near_q4 = count_near(q4, n, 2 * sx, 2 * sy);
    }

    SideFeatures {
        count,
        sum_file,
        sum_rank,
        distance_sum,
        excess,
        com_offcentre,
        ring_sum,
        edge: count - inner6,
        near_q3,
        near_q4,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::openings::sample_positions;

    #[test]
    fn near_box_agrees_with_count_near() {
        // Every piece count a Position can have, every coordinate sum it can reach, every window.
        for n in 1..=12 {
            for sx in 0..=7 * n {
                for sy in 0..=7 * n {
                    let near = near_box(n, sx, sy, near_half(n));
                    for w in 0..64 {
                        let want = count_near(1 << w, n, 2 * sx, 2 * sy);
                        assert_eq!(u32::from(near >> w & 1 == 1), want, "n {n} sx {sx} sy {sy} window {w}");
                    }
                }
            }
        }
    }

    /// The ring boards written out by hand for the smaller sizes (rank N first).
    #[test]
    fn smaller_boards_have_their_own_rings_and_centre() {
        let boards: [(u8, &[&str]); 3] = [
            (5, &["00000", "01110", "01210", "01110", "00000"]),
            (6, &["000000", "011110", "012210", "012210", "011110", "000000"]),
            (7, &["0000000", "0111110", "0122210", "0123210", "0122210", "0111110", "0000000"]),
        ];
        for (n, rows) in boards {
            let size = BoardSize::new(n).unwrap();
            let g = geometry(i32::from(n));
            assert_eq!(g.last, i32::from(n) - 1);
            for (i, row) in rows.iter().enumerate() {
                let y = i32::from(n) - 1 - i as i32;
                for (x, ch) in row.chars().enumerate() {
                    let want = ch.to_digit(10).unwrap();
                    let index = 8 * y + x as i32;
                    let got = g.inner.iter().filter(|m| *m >> index & 1 == 1).count() as u32;
                    assert_eq!(got, want, "{size} file {x} rank {}", y + 1);
                    let pieces = Bitboard(1 << index);
                    let f = SideFeatures::on(size, pieces, true);
                    assert_eq!((f.ring_sum, f.edge), (want, u32::from(want == 0)));
                    // One piece: the centre of mass is the piece; offcentre max(|2x − (N−1)|, …).
                    let off = (2 * x as i32 - g.last).abs().max((2 * y - g.last).abs()) as u32;
                    assert_eq!(f.com_offcentre, off, "{size} file {x} rank {}", y + 1);
                }
            }
            // Nothing off the board is inside.
            assert_eq!(g.inner[0] & !size.mask(), 0);
        }
    }

    /// Lane `l` of a batch as the [`SideFeatures`] it stands for.
    fn lane(m: &MovedFeatures, l: usize) -> SideFeatures {
        SideFeatures {
            count: m.count,
            sum_file: m.sum_file[l] as u32,
            sum_rank: m.sum_rank[l] as u32,
            distance_sum: m.distance_sum[l] as u32,
            excess: m.excess[l] as u32,
            com_offcentre: m.com_offcentre[l] as u32,
            ring_sum: m.ring_sum[l] as u32,
            edge: m.edge[l] as u32,
            near_q3: m.near_q3[l] as u32,
            near_q4: m.near_q4[l] as u32,
        }
    }

    /// Every move of both sides of playout positions, in batches as the search makes them (the
    /// last one short, its spare lanes unmoved), with and without the quad counts.
    #[test]
    fn moved_features_equal_measuring_the_moved_set() {
        let mut lanes = 0;
        let mut positions = sample_positions(2000, 17);
        for size in [5, 6, 7].map(|n| BoardSize::new(n).unwrap()) {
            let start = crate::Start::Standard.position(size).unwrap();
            positions.extend(crate::openings::sample_positions_from(&start, 1000, 17));
        }
        for pos in positions {
            for side in [pos, pos.with_side_to_move(pos.side_to_move().opponent())] {
                let moves: Vec<_> = side.legal_moves().iter().copied().collect();
                for chunk in moves.chunks(LANES) {
                    let (mut from, mut to) = ([0u8; LANES], [0u8; LANES]);
                    for (l, mv) in chunk.iter().enumerate() {
                        (from[l], to[l]) = (mv.from().index() as u8, mv.to().index() as u8);
                    }
                    for with_quads in [true, false] {
                        let m = MovedFeatures::of(pos.size(), side.own(), &from, &to, with_quads);
                        for l in 0..LANES {
                            let moved = side.own().0 ^ (1 << from[l]) ^ (1 << to[l]);
                            let want = SideFeatures::on(pos.size(), Bitboard(moved), with_quads);
                            assert_eq!(lane(&m, l), want, "{side} lane {l}: {} to {}", from[l], to[l]);
                            lanes += 1;
                        }
                    }
                }
            }
        }
        assert!(lanes > 100_000, "{lanes}");
    }
}
