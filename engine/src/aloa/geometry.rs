//! What ALoA's measurements need of the board, per board size (docs/spec.md §4).

/// What the measurements need of the board, derived from its size N so that on 8×8 they are
/// the original constants (`the_8x8_geometry_is_the_original_one`):
///
/// - the board centre is ((N − 1)/2, (N − 1)/2), 3.5 on 8×8;
/// - a square's ring value (Garcia's weighted board, see
///   [`super::AloaWeights::centralisation`]) is its Chebyshev distance to the nearest edge,
///   capped at 3: 0 on the edge, up to 3 on the four centre squares of 8×8, 3 on d4 of 7×7, 2
///   on the centre squares of 6×6 and 5×5;
/// - the edge is the squares of ring 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Geometry {
    /// N − 1, the last file and rank: distances from the centre are taken doubled, `2x − (N−1)`.
    pub(crate) last: i32,
    /// The squares of ring at least 1, 2 and 3 (on 8×8 the inner 6×6, 4×4 and 2×2 boxes): a
    /// piece's ring value is the number of these it stands in.
    pub(crate) inner: [u64; 3],
}

/// Calls `$measure::<N>($args)` for the board side N of `$size`: each size's measurements are
/// compiled with its geometry as constants, so 8×8 measures exactly as fast as with the
/// original constants.
macro_rules! by_size {
    ($size:expr, $measure:ident($($arg:expr),*)) => {
        match $size.side() {
            8 => $measure::<8>($($arg),*),
            7 => $measure::<7>($($arg),*),
            6 => $measure::<6>($($arg),*),
            _ => $measure::<5>($($arg),*),
        }
    };
}
pub(crate) use by_size;

/// The geometry of the N×N board (N = `n`).
pub(crate) const fn geometry(n: i32) -> Geometry {
    let mut inner = [0u64; 3];
    let mut index = 0;
    while index < 64 {
        let (x, y) = (index % 8, index / 8);
        if x < n && y < n {
            let ring = ring_on(n - 1, x, y);
            let mut k = 0;
            while k < ring {
                inner[k as usize] |= 1 << index;
                k += 1;
            }
        }
        index += 1;
    }
    Geometry { last: n - 1, inner }
}

/// Garcia's ring value of a square on file `x` and rank `y` of a board whose last file and
/// rank are `last` (0 on the edge … 3 in the centre): how many of [`Geometry`]'s inner boxes it
/// is in. Arithmetic rather than a table, so that lanes of squares vectorise.
#[inline(always)]
pub(crate) const fn ring_on(last: i32, x: i32, y: i32) -> i32 {
    let (rx, ry) = (if x < last - x { x } else { last - x }, if y < last - y { y } else { last - y });
    let r = if rx < ry { rx } else { ry };
    if r < 3 { r } else { 3 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_8x8_geometry_is_the_original_one() {
        let g = geometry(8);
        assert_eq!(g.last, 7);
        assert_eq!(g.inner, [0x007E_7E7E_7E7E_7E00, 0x0000_3C3C_3C3C_0000, 0x0000_0018_1800_0000]);
        for index in 0..64 {
            let (x, y) = (index % 8, index / 8);
            assert_eq!(ring_on(7, x, y), x.min(7 - x).min(y.min(7 - y)).min(3));
        }
    }
}
