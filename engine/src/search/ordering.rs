//! Move ordering for alpha-beta: killer moves per ply (searched first) and a history table.
//!
//! Ordering only changes how fast the search is, never its result (SPEC §4).

use crate::{Move, MoveList};

/// Deepest ply the killer table covers; deeper plies go unordered by killers.
const MAX_PLY: usize = 64;

/// Killer moves and history scores gathered during one search.
pub(super) struct Ordering {
    killers: [[Move; 2]; MAX_PLY],
    history: Box<[[u32; 64]; 64]>,
}

impl Ordering {
    pub(super) fn new() -> Ordering {
        Ordering { killers: [[Move::PASS; 2]; MAX_PLY], history: Box::new([[0; 64]; 64]) }
    }

    /// The killer moves of `ply`, the most recent first ([`Move::PASS`] for none).
    #[inline]
    pub(super) fn killers(&self, ply: usize) -> [Move; 2] {
        self.killers.get(ply).copied().unwrap_or([Move::PASS; 2])
    }

    /// Sorts `moves` (the killers already taken out and searched) best-first: captures, then
    /// by history score. Stable, so equal moves keep canonical order (which keeps the search
    /// deterministic).
    #[inline]
    pub(super) fn sort(&self, moves: &mut MoveList) {
        let key = |mv: &Move| -> u32 {
            if mv.is_pass() {
                return 0;
            }
            let capture = if mv.is_capture() { 1 << 30 } else { 0 };
            capture + self.history[mv.from().index()][mv.to().index()].min((1 << 30) - 1)
        };
        // Insertion sort on precomputed keys: lists are short; stable by construction.
        let list = moves.as_mut_slice();
        let mut keys = [0u32; crate::MAX_MOVES];
        for (k, mv) in keys.iter_mut().zip(list.iter()) {
            *k = key(mv);
        }
        for i in 1..list.len() {
            let (mv, k) = (list[i], keys[i]);
            let mut j = i;
            while j > 0 && keys[j - 1] < k {
                list[j] = list[j - 1];
                keys[j] = keys[j - 1];
                j -= 1;
            }
            list[j] = mv;
            keys[j] = k;
        }
    }

    /// Remembers a move that caused a cutoff at `ply` with `depth` plies left below it.
    #[inline]
    pub(super) fn record_cutoff(&mut self, mv: Move, ply: usize, depth: u32) {
        if mv.is_pass() {
            return;
        }
        if let Some(k) = self.killers.get_mut(ply)
            && k[0] != mv
        {
            k[1] = k[0];
            k[0] = mv;
        }
        let h = &mut self.history[mv.from().index()][mv.to().index()];
        *h = h.saturating_add(depth * depth);
    }
}
