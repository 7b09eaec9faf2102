//! The raw, weight-free measurements ALoA makes of one side's pieces.
//!
//! All quantities are exact integers. The centre of mass is *not* rounded to a square (MIA
//! rounds it): with an odd board width, a mean file of exactly 3.5 can only be rounded towards
//! one side, and the evaluation would stop being mirror-symmetric. Instead every distance is kept
//! multiplied by `n`, the number of pieces, where it is an integer: a piece on (x, y) is
//! `max(|n·x − Σx|, |n·y − Σy|) / n` squares (Chebyshev, "the minimal number of squares it is
//! removed") from the centre of mass `(Σx/n, Σy/n)`.

use crate::Bitboard;

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

/// The squares at least 1, 2 and 3 steps from the edge: the inner 6×6, 4×4 and 2×2 boxes. A
/// piece's ring value (Garcia's weighted board, see [`super::AloaWeights::centralisation`]) is the
/// number of these boxes it stands in.
const INNER: [u64; 3] = [0x007E_7E7E_7E7E_7E00, 0x0000_3C3C_3C3C_0000, 0x0000_0018_1800_0000];

/// Lower-left squares of the 49 quads that lie wholly on the board (file and rank ≤ 6). Quads
/// hanging over the edge hold at most two board squares, so with the phantom empty border of
/// [`crate::quads`] they can never be Q3 or Q4: only these 49 matter here.
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
    /// Chebyshev distance of the centre of mass from the board centre (3.5, 3.5), times `2n`:
    /// `max(|2·Σx − 7n|, |2·Σy − 7n|)`.
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

impl SideFeatures {
    /// Measures `pieces` (all zeros for an empty set). `with_quads: false` skips the quad
    /// counts (left 0), which the normal evaluator does not use.
    #[inline]
    pub fn of(pieces: Bitboard, with_quads: bool) -> SideFeatures {
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

        let com_offcentre = (2 * sx - 7 * n).unsigned_abs().max((2 * sy - 7 * n).unsigned_abs());
        let inner6 = (p & INNER[0]).count_ones();
        let ring_sum = inner6 + (p & INNER[1]).count_ones() + (p & INNER[2]).count_ones();

        let (mut near_q3, mut near_q4) = (0, 0);
        if with_quads {
            // Window with lower-left square s holds s, s+1 (right), s+8 (above), s+9.
            let (a, b, c, d) = (p, p >> 1, p >> 8, p >> 9);
            let q4 = a & b & c & d & FULL_QUADS;
            let q3_or_more = ((a & b & (c | d)) | (c & d & (a | b))) & FULL_QUADS;
            near_q3 = count_near(q3_or_more & !q4, n, 2 * sx, 2 * sy);
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
}
