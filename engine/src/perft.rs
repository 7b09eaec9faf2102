//! Perft: counting the leaves of the full legal-move tree, the standard test of move generation.
//!
//! The tree is the full one: positions already won are expanded too, and there are no passes,
//! so the count depends on move generation alone.

use crate::{MoveList, Position};

/// Leaves of the full tree of depth `depth`, counting the last ply in bulk (no leaf is made).
pub fn perft(pos: &Position, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => u64::from(pos.count_moves()),
        _ => {
            let mut moves = MoveList::new();
            pos.generate_moves(&mut moves);
            moves.iter().map(|&mv| perft(&pos.play(mv), depth - 1)).sum()
        }
    }
}

/// Leaves of the full tree of depth `depth`, making every leaf move (the fair comparison with
/// engines that do not count in bulk).
pub fn perft_make_all(pos: &Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut moves = MoveList::new();
    pos.generate_moves(&mut moves);
    if depth == 1 {
        // `black_box` keeps the optimiser from dropping leaf positions nobody reads.
        moves.iter().for_each(|&mv| {
            std::hint::black_box(pos.play(mv));
        });
        return moves.len() as u64;
    }
    moves.iter().map(|&mv| perft_make_all(&pos.play(mv), depth - 1)).sum()
}

/// Perft split by root move: each legal move with the leaf count below it, in canonical order.
pub fn divide(pos: &Position, depth: u32) -> Vec<(crate::Move, u64)> {
    let depth = depth.max(1);
    pos.legal_moves().iter().map(|&mv| (mv, perft(&pos.play(mv), depth - 1))).collect()
}
