//! Legal move generation in canonical order, without allocation.
//!
//! For each piece and each of its four lines, the move distance is the popcount of the line's
//! occupancy; a precomputed path table gives the destination and the squares jumped, so legality
//! is two masks tests. The destinations of one piece form a bitboard, so walking it from the
//! lowest bit yields that piece's moves in ascending to-square order, and walking pieces from the
//! lowest square gives the canonical order of SPEC §1 with no sort.

use crate::tables::{LINE, PATH};
use crate::{Bitboard, Move, MoveList, Position, Square};

impl Position {
    /// The squares the piece on `from` may move to. `own`/`enemy` are the mover's and the
    /// opponent's pieces; the piece on `from` must belong to `own`.
    #[inline(always)]
    fn destinations(from: usize, own: u64, enemy: u64) -> u64 {
        let occupied = own | enemy;
        let mut dest = 0u64;
        for (line, masks) in LINE.iter().enumerate() {
            // 1..=8 pieces on the line (the mover included); 8 means no move fits on the board,
            // and `n & 7` maps it to the always-empty PATH entry 0.
            let n = (masks[from] & occupied).count_ones() as usize;
            for dir in [2 * line, 2 * line + 1] {
                let path = &PATH[dir][from];
                let jumped = path[n - 1];
                let target = path[n & 7] & !jumped;
                let open = ((jumped & enemy) == 0) as u64;
                dest |= target & open.wrapping_neg();
            }
        }
        dest & !own
    }

    /// The destinations of the piece on `from` if it belongs to the side to move, else empty.
    pub fn destinations_from(&self, from: Square) -> Bitboard {
        if !self.own().contains(from) {
            return Bitboard::EMPTY;
        }
        Bitboard(Self::destinations(from.index(), self.own().0, self.enemy().0))
    }

    /// Appends the legal moves to `list` in canonical order (the list is cleared first).
    /// [`Move::PASS`] is never generated here: passing is a rules option the caller applies.
    #[inline]
    pub fn generate_moves(&self, list: &mut MoveList) {
        list.clear();
        let (own, enemy) = (self.own().0, self.enemy().0);
        let mut pieces = own;
        while pieces != 0 {
            let from = pieces.trailing_zeros() as usize;
            pieces &= pieces - 1;
            let mut dest = Self::destinations(from, own, enemy);
            while dest != 0 {
                let to = dest.trailing_zeros() as u8;
                dest &= dest - 1;
                let to_sq = Square::new(to);
                list.push(Move::new(Square::new(from as u8), to_sq, enemy & to_sq.bit() != 0));
            }
        }
    }

    /// The legal moves in canonical order.
    #[inline]
    pub fn legal_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        self.generate_moves(&mut list);
        list
    }

    /// The number of legal moves, counted without listing them (bulk counting).
    #[inline]
    pub fn count_moves(&self) -> u32 {
        let (own, enemy) = (self.own().0, self.enemy().0);
        Bitboard(own).map(|from| Self::destinations(from.index(), own, enemy).count_ones()).sum()
    }

    /// Whether the side to move has at least one legal move.
    pub fn has_legal_move(&self) -> bool {
        let (own, enemy) = (self.own().0, self.enemy().0);
        Bitboard(own).any(|from| Self::destinations(from.index(), own, enemy) != 0)
    }

    /// Whether `mv` is a legal move here (a pass is legal only with no other move; the rules
    /// decide whether passing is allowed at all). The capture flag must match the board.
    pub fn is_legal(&self, mv: Move) -> bool {
        if mv.is_pass() {
            return !self.has_legal_move();
        }
        self.destinations_from(mv.from()).contains(mv.to()) && mv.is_capture() == self.enemy().contains(mv.to())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_position_has_36_moves_in_canonical_order() {
        let moves = Position::start().legal_moves();
        assert_eq!(moves.len(), 36);
        assert_eq!(Position::start().count_moves(), 36);
        assert!(moves.windows(2).all(|w| w[0] < w[1]));
        let text: Vec<String> = moves.iter().take(6).map(|m| m.to_string()).collect();
        // b1: east 6 to h1 over its own pieces, north 2 (b1, b8), north-east 2 (b1, h7); north-west
        // would need 2 steps from b1 but the board ends after a2. c1: north-west 2 captures a3.
        assert_eq!(text, ["b1-h1", "b1-b3", "b1-d3", "c1xa3", "c1-c3", "c1-e3"]);
    }
}
