//! Lookup tables for move generation, built at compile time.

/// The 8 directions as (file step, rank step), in pairs sharing a line:
/// rank (E, W), file (N, S), diagonal a1–h8 (NE, SW), anti-diagonal a8–h1 (NW, SE).
pub(crate) const DIRECTIONS: [(i32, i32); 8] = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1), (-1, 1), (1, -1)];

/// `LINE[l][sq]`: every square of line `l` (0 rank, 1 file, 2 diagonal, 3 anti-diagonal)
/// through `sq`, `sq` included.
pub(crate) static LINE: [[u64; 64]; 4] = build_lines();

/// `LINE_PATHS[sq][l][n][i]`: the first `n` squares from `sq` in direction `2l + i` of
/// [`DIRECTIONS`] (`sq` excluded, the `n`-th included), or 0 if the board ends before `n`
/// steps; entry 0 is 0. The destination of an `n`-step move is `[n] & ![n − 1]` (0 when off the
/// board) and the squares jumped are `[n − 1]`.
///
/// Laid out by square and line, the line's two directions side by side, so a piece's moves
/// along a line read one cache line (the `n − 1` and `n` entries of both directions are 32
/// bytes together): by direction, as `PATH` is, generation reads twice as many lines.
pub(crate) static LINE_PATHS: [[[[u64; 2]; 8]; 4]; 64] = build_line_paths();

/// The same paths by direction, `PATH[d][sq][n]` (the tests' reference).
#[cfg(test)]
pub(crate) static PATH: [[[u64; 8]; 64]; 8] = build_paths();

const fn build_line_paths() -> [[[[u64; 2]; 8]; 4]; 64] {
    let paths = build_paths();
    let mut t = [[[[0u64; 2]; 8]; 4]; 64];
    let mut sq = 0;
    while sq < 64 {
        let mut l = 0;
        while l < 4 {
            let mut n = 0;
            while n < 8 {
                t[sq][l][n] = [paths[2 * l][sq][n], paths[2 * l + 1][sq][n]];
                n += 1;
            }
            l += 1;
        }
        sq += 1;
    }
    t
}

const fn build_paths() -> [[[u64; 8]; 64]; 8] {
    let mut t = [[[0u64; 8]; 64]; 8];
    let mut d = 0;
    while d < 8 {
        let (dx, dy) = DIRECTIONS[d];
        let mut sq = 0;
        while sq < 64 {
            let (x, y) = ((sq % 8) as i32, (sq / 8) as i32);
            let mut acc = 0u64;
            let mut n = 1;
            while n < 8 {
                let (nx, ny) = (x + dx * n as i32, y + dy * n as i32);
                if nx < 0 || nx > 7 || ny < 0 || ny > 7 {
                    break;
                }
                acc |= 1u64 << (ny * 8 + nx);
                t[d][sq][n] = acc;
                n += 1;
            }
            sq += 1;
        }
        d += 1;
    }
    t
}

const fn build_lines() -> [[u64; 64]; 4] {
    let rays = build_paths();
    let mut t = [[0u64; 64]; 4];
    let mut l = 0;
    while l < 4 {
        let mut sq = 0;
        while sq < 64 {
            // A line is the square plus the full rays in its two opposite directions.
            t[l][sq] = (1u64 << sq) | longest(&rays[2 * l][sq]) | longest(&rays[2 * l + 1][sq]);
            sq += 1;
        }
        l += 1;
    }
    t
}

/// The full ray: the largest non-zero prefix.
const fn longest(path: &[u64; 8]) -> u64 {
    let mut n = 7;
    while n > 0 {
        if path[n] != 0 {
            return path[n];
        }
        n -= 1;
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Square;

    fn bb(names: &[&str]) -> u64 {
        names.iter().fold(0, |a, n| a | Square::parse(n).unwrap().bit())
    }

    #[test]
    fn lines_through_d4() {
        let d4 = Square::parse("d4").unwrap().index();
        assert_eq!(LINE[0][d4], 0xFF << 24);
        assert_eq!(LINE[1][d4], 0x0808_0808_0808_0808);
        assert_eq!(LINE[2][d4], bb(&["a1", "b2", "c3", "d4", "e5", "f6", "g7", "h8"]));
        assert_eq!(LINE[3][d4], bb(&["a7", "b6", "c5", "d4", "e3", "f2", "g1"]));
    }

    #[test]
    fn paths_stop_at_the_edge() {
        let g2 = Square::parse("g2").unwrap().index();
        // NE from g2: h3 then off the board.
        assert_eq!(PATH[4][g2][1], bb(&["h3"]));
        assert_eq!(PATH[4][g2][2], 0);
        // W from g2: f2, e2, ...
        assert_eq!(PATH[1][g2][3], bb(&["f2", "e2", "d2"]));
        assert_eq!(PATH[1][g2][6], bb(&["f2", "e2", "d2", "c2", "b2", "a2"]));
        assert_eq!(PATH[1][g2][7], 0);
    }

    #[test]
    fn line_paths_are_the_paths_by_square_and_line() {
        for sq in 0..64 {
            for d in 0..8 {
                for n in 0..8 {
                    assert_eq!(LINE_PATHS[sq][d / 2][n][d % 2], PATH[d][sq][n], "square {sq}, direction {d}, {n}");
                }
            }
        }
        // The same g2 paths as above, read the way move generation does.
        let g2 = Square::parse("g2").unwrap().index();
        assert_eq!(LINE_PATHS[g2][2][1][0], bb(&["h3"]));
        assert_eq!(LINE_PATHS[g2][0][3][1], bb(&["f2", "e2", "d2"]));
    }
}
