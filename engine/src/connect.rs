//! Connectivity: groups of 8-connected pieces, by flood fill on bitboards.

use crate::Bitboard;

/// The group (8-connected component) of `pieces` containing the lowest square of `seed`.
/// Empty if `seed & pieces` is empty.
#[inline]
pub fn group_containing(pieces: Bitboard, seed: Bitboard) -> Bitboard {
    let start = (seed & pieces).0;
    let mut fill = start & start.wrapping_neg();
    loop {
        let next = Bitboard(fill).king_expand().0 & pieces.0;
        if next == fill {
            return Bitboard(fill);
        }
        fill = next;
    }
}

/// Whether all of `pieces` form one 8-connected group (a single piece counts; no pieces too).
///
/// The search asks this of nearly every node it visits, and most sets it asks about are split;
/// a flood fill costs a step per square of distance and a mispredicted loop exit. A connected
/// set occupies a run of adjacent files and a run of adjacent ranks (a king step changes file
/// and rank by at most one), so a set whose files or ranks have a gap is split, which a few
/// branch-free bit operations tell; only the others are flood-filled. The answer is the flood
/// fill's either way (`the_gap_test_agrees_with_the_flood_fill`).
#[inline]
pub fn is_connected(pieces: Bitboard) -> bool {
    let (files, ranks) = occupied_files_and_ranks(pieces.0);
    if !is_run(files) || !is_run(ranks) {
        return false;
    }
    group_containing(pieces, pieces) == pieces
}

/// The files (bit `f` for file `f`) and ranks (bit `r` for rank `r`) `bits` has a piece on.
#[inline(always)]
fn occupied_files_and_ranks(bits: u64) -> (u64, u64) {
    // Files: fold the eight ranks onto one byte.
    let mut f = bits | (bits >> 32);
    f |= f >> 16;
    f |= f >> 8;
    // Ranks: a byte's lowest bit set if the byte is not empty, then the eight lowest bits
    // gathered into the top byte by one multiplication (no two partial products meet there).
    let mut r = bits | (bits >> 4);
    r |= r >> 2;
    r |= r >> 1;
    r &= 0x0101_0101_0101_0101;
    (f & 0xFF, r.wrapping_mul(0x0102_0408_1020_4080) >> 56)
}

/// Whether the set bits of `x` are consecutive (true for none): adding the lowest set bit
/// carries through a run and clears it, leaving no common bit unless another run follows.
#[inline(always)]
fn is_run(x: u64) -> bool {
    x & x.wrapping_add(x & x.wrapping_neg()) == 0
}

/// The number of 8-connected groups in `pieces`.
pub fn group_count(pieces: Bitboard) -> u32 {
    let mut rest = pieces;
    let mut groups = 0;
    while !rest.is_empty() {
        rest = rest & !group_containing(rest, rest);
        groups += 1;
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Square;

    fn bb(names: &[&str]) -> Bitboard {
        names.iter().map(|n| Square::parse(n).unwrap()).collect()
    }

    #[test]
    fn diagonal_neighbours_connect() {
        assert!(is_connected(bb(&["a1", "b2", "c3", "d4"])));
        assert!(is_connected(bb(&["h1", "g2", "h3"])));
        assert!(is_connected(bb(&["e5"])));
        assert!(is_connected(Bitboard::EMPTY));
    }

    /// The reference: the flood fill alone.
    fn flood_connected(pieces: Bitboard) -> bool {
        group_containing(pieces, pieces) == pieces
    }

    #[test]
    fn files_and_ranks_are_found() {
        let mut state = 0x1234_5678_9ABC_DEF0u64;
        for _ in 0..100_000 {
            state = crate::random::mix64(state);
            let bits = state & crate::random::mix64(state ^ 1);
            let (files, ranks) = occupied_files_and_ranks(bits);
            let squares = Bitboard(bits).map(|s| s.index());
            let want_files = squares.clone().fold(0u64, |m, i| m | 1 << (i & 7));
            let want_ranks = squares.fold(0u64, |m, i| m | 1 << (i >> 3));
            assert_eq!((files, ranks), (want_files, want_ranks), "{bits:#x}");
        }
    }

    #[test]
    fn the_gap_test_agrees_with_the_flood_fill() {
        // Every set within a 4 × 4 corner and within a 2 × 8 strip (all gap patterns of a few
        // files and ranks), shifted over the board; then sparse random sets of up to 12 pieces.
        let mut sets = Vec::new();
        for m in 0u64..1 << 16 {
            let corner = (0..4).fold(0, |b, r| b | ((m >> (4 * r)) & 0xF) << (8 * r));
            for shift in [0, 4, 9, 36] {
                sets.push(corner << shift);
            }
            sets.push((m & 0xFF) | ((m >> 8) << 8) << 24);
            sets.push(((m & 0xFF) << 8) | ((m >> 8) << 40));
        }
        let mut state = 7u64;
        for _ in 0..200_000 {
            state = crate::random::mix64(state);
            let mut bits = 0u64;
            for k in 0..(state % 13) {
                bits |= 1 << (crate::random::mix64(state ^ k) & 63);
            }
            sets.push(bits);
        }
        let (mut connected, mut split) = (0, 0);
        for bits in sets {
            let want = flood_connected(Bitboard(bits));
            assert_eq!(is_connected(Bitboard(bits)), want, "{bits:#x}");
            if want { connected += 1 } else { split += 1 }
        }
        assert!(connected > 10_000 && split > 10_000, "{connected} connected, {split} split");
    }

    #[test]
    fn gaps_and_wrap_around_do_not_connect() {
        assert!(!is_connected(bb(&["a1", "c1"])));
        // h4 and a5 are adjacent indices but not neighbours on the board.
        assert!(!is_connected(bb(&["h4", "a5"])));
        assert_eq!(group_count(bb(&["h4", "a5"])), 2);
        assert_eq!(group_count(bb(&["a1", "b2", "e5", "f5", "h8"])), 3);
        assert_eq!(group_count(crate::Position::start().pieces(crate::Color::White)), 2);
    }
}
