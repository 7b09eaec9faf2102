//! Legal move generation in canonical order, without allocation.
//!
//! For each piece and each of its four lines, the move distance is the popcount of the line's
//! occupancy; a precomputed path table gives the destination and the squares jumped, so legality
//! is two masks tests. The destinations of one piece form a bitboard, so walking it from the
//! lowest bit yields that piece's moves in ascending to-square order, and walking pieces from the
//! lowest square gives the canonical order of docs/spec.md §1 with no sort.
//!
//! A smaller board (docs/spec.md §1) uses the same tables: its pieces never stand outside it,
//! so the line counts are its own, and only the destination has to be masked with the board
//! (a path that stays on the board jumps only squares of the board).

use crate::tables::{LINE, LINE_PATHS};
use crate::{Bitboard, Move, MoveList, Position, Square};

impl Position {
    /// The squares the piece on `from` may move to. `own`/`enemy` are the mover's and the
    /// opponent's pieces, `board` the board's squares; the piece on `from` must belong to `own`.
    #[inline(always)]
    fn destinations(from: usize, own: u64, enemy: u64, board: u64) -> u64 {
        let occupied = own | enemy;
        let mut dest = 0u64;
        for (line, masks) in LINE.iter().enumerate() {
            // 1..=8 pieces on the line (the mover included); 8 means no move fits on the board,
            // and `n & 7` maps it to the always-empty path entry 0.
            let n = (masks[from] & occupied).count_ones() as usize;
            let paths = &LINE_PATHS[from][line];
            // The line's two directions.
            for (jumped, reached) in paths[n - 1].into_iter().zip(paths[n & 7]) {
                let target = reached & !jumped;
                let open = ((jumped & enemy) == 0) as u64;
                dest |= target & open.wrapping_neg();
            }
        }
        dest & !own & board
    }

    /// The destinations of the piece on `from` if it belongs to the side to move, else empty.
    pub fn destinations_from(&self, from: Square) -> Bitboard {
        if !self.own().contains(from) {
            return Bitboard::EMPTY;
        }
        Bitboard(Self::destinations(from.index(), self.own().0, self.enemy().0, self.size.mask()))
    }

    /// Appends the legal moves to `list` in canonical order (the list is cleared first).
    /// [`Move::PASS`] is never generated here: passing is a rules option the caller applies.
    #[inline]
    pub fn generate_moves(&self, list: &mut MoveList) {
        list.clear();
        let (own, enemy, board) = (self.own().0, self.enemy().0, self.size.mask());
        let mut pieces = own;
        while pieces != 0 {
            let from = pieces.trailing_zeros() as usize;
            pieces &= pieces - 1;
            let mut dest = Self::destinations(from, own, enemy, board);
            while dest != 0 {
                let to = dest.trailing_zeros() as u8;
                dest &= dest - 1;
                let to_sq = Square::new(to);
                list.push(Move::new(Square::new(from as u8), to_sq, enemy & to_sq.bit() != 0));
            }
        }
    }

    /// Appends the legal moves to `list` (cleared first), the captures before the other moves
    /// and each kind in canonical order: what generating in canonical order and then moving
    /// the captures to the front (stably) gives, in one pass (the search orders moves so, and
    /// the separate pass showed in a game's profile).
    #[inline]
    pub fn generate_moves_captures_first(&self, list: &mut MoveList) {
        list.clear();
        let (own, enemy, board) = (self.own().0, self.enemy().0, self.size.mask());
        // Each piece's destinations, computed once, walked twice: captures, then the rest.
        let mut dests = [(0u8, 0u64); crate::position::MAX_PIECES as usize];
        let mut count = 0;
        let mut pieces = own;
        while pieces != 0 && count < dests.len() {
            let from = pieces.trailing_zeros() as usize;
            pieces &= pieces - 1;
            dests[count] = (from as u8, Self::destinations(from, own, enemy, board));
            count += 1;
        }
        for (mask, capture) in [(enemy, true), (!enemy, false)] {
            for &(from, all) in &dests[..count] {
                let mut dest = all & mask;
                while dest != 0 {
                    let to = dest.trailing_zeros() as u8;
                    dest &= dest - 1;
                    list.push(Move::new(Square::new(from), Square::new(to), capture));
                }
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
        let (own, enemy, board) = (self.own().0, self.enemy().0, self.size.mask());
        Bitboard(own).map(|from| Self::destinations(from.index(), own, enemy, board).count_ones()).sum()
    }

    /// Whether the side to move has at least one legal move.
    pub fn has_legal_move(&self) -> bool {
        let (own, enemy, board) = (self.own().0, self.enemy().0, self.size.mask());
        Bitboard(own).any(|from| Self::destinations(from.index(), own, enemy, board) != 0)
    }

    /// Whether `mv` is a legal move here (a pass is legal only with no other move; the rules
    /// decide whether passing is allowed at all). The capture flag must match the board.
    ///
    /// Only the move's own line is looked at: the search asks this of every killer move it
    /// tries, and the piece's destinations along all four lines cost four times as much
    /// (`is_legal_agrees_with_the_destinations`).
    pub fn is_legal(&self, mv: Move) -> bool {
        if mv.is_pass() {
            return !self.has_legal_move();
        }
        let (from, to) = (mv.from(), mv.to());
        let (own, enemy) = (self.own().0, self.enemy().0);
        // The mover's piece, to a square of the board without one (so not to itself).
        if own & from.bit() == 0
            || own & to.bit() != 0
            || self.size.mask() & to.bit() == 0
            || mv.is_capture() != (enemy & to.bit() != 0)
        {
            return false;
        }
        let (dx, dy) = (i32::from(to.file()) - i32::from(from.file()), i32::from(to.rank()) - i32::from(from.rank()));
        // The line (as in `LINE`) and the direction along it (as in `DIRECTIONS`).
        let (line, dir) = match (dx, dy) {
            (_, 0) => (0, usize::from(dx < 0)),
            (0, _) => (1, 2 + usize::from(dy < 0)),
            _ if dx == dy => (2, 4 + usize::from(dx < 0)),
            _ if dx == -dy => (3, 6 + usize::from(dy < 0)),
            _ => return false,
        };
        // A move goes exactly as many squares as there are pieces on its line, jumping no
        // enemy piece (it always stays on the board here: `to` is a square of the line).
        let n = (LINE[line][from.index()] & (own | enemy)).count_ones() as usize;
        n == dx.abs().max(dy.abs()) as usize && LINE_PATHS[from.index()][line][n - 1][dir & 1] & enemy == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::openings::sample_positions;

    #[test]
    fn captures_first_generation_is_the_stable_partition_of_canonical_order() {
        // Positions of random games from the start, and random placements.
        let mut positions = Vec::new();
        let mut state = 11u64;
        for _ in 0..300 {
            let mut pos = Position::start();
            for _ in 0..120 {
                positions.push(pos);
                let moves = pos.legal_moves();
                state = crate::random::mix64(state);
                if moves.is_empty() {
                    break;
                }
                pos = pos.play(moves[(state % moves.len() as u64) as usize]);
            }
        }
        for _ in 0..20_000 {
            state = crate::random::mix64(state);
            let (black, white) = (state & crate::random::mix64(state ^ 1), state & crate::random::mix64(state ^ 2));
            let (black, white) = (Bitboard(black & !white), Bitboard(white & !black));
            let side = if state & 1 == 0 { crate::Color::Black } else { crate::Color::White };
            if let Ok(pos) = Position::from_pieces(black, white, side) {
                positions.push(pos);
            }
        }
        let mut with_captures = 0;
        for pos in positions {
            let canonical = pos.legal_moves();
            let mut want: Vec<Move> = canonical.iter().copied().filter(|m| m.is_capture()).collect();
            want.extend(canonical.iter().copied().filter(|m| !m.is_capture()));
            let mut got = MoveList::new();
            pos.generate_moves_captures_first(&mut got);
            assert_eq!(got.as_slice(), &want[..], "{pos}");
            with_captures += usize::from(want.first().is_some_and(|m| m.is_capture()));
        }
        assert!(with_captures > 10_000, "{with_captures}");
    }

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

    /// Every pair of squares and both capture flags, from either side of playout positions.
    #[test]
    fn is_legal_agrees_with_the_destinations() {
        let mut legal = 0;
        for pos in sample_positions(500, 41) {
            for side in [pos, pos.with_side_to_move(pos.side_to_move().opponent())] {
                for from in Square::all() {
                    for to in Square::all() {
                        for capture in [false, true] {
                            let mv = Move::new(from, to, capture);
                            let want =
                                side.destinations_from(from).contains(to) && capture == side.enemy().contains(to);
                            assert_eq!(side.is_legal(mv), want, "{side} {mv}");
                            legal += usize::from(want);
                        }
                    }
                }
            }
        }
        assert!(legal > 10_000, "{legal}");
    }
}
