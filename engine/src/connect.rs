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
#[inline]
pub fn is_connected(pieces: Bitboard) -> bool {
    group_containing(pieces, pieces) == pieces
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
