//! A transposition table of subtree values, for evaluators whose values do not depend on the
//! path to a position ([`super::Evaluator::PATH_INDEPENDENT`]).
//!
//! Why it cannot change a result: within one search (same rules, ply cap, evaluator and point
//! of view) the value [`super::Tree::alpha_beta`] computes for a node is a function of the
//! position, the plies left to search and the ply below the root (terminal scores count plies
//! from the root) and nothing else. An entry is keyed by all of them, exactly (both piece sets
//! in full, not a hash), and records what fail-soft alpha-beta guarantees of the value it
//! returned: exact when it fell inside the window, an upper bound when it failed low, a lower
//! bound when it failed high. A probe answers only when that guarantee meets the current
//! window's contract (exact; a lower bound at or above `beta`; an upper bound at or below
//! `alpha`), so the node returns a value alpha-beta may return, and the root, which only takes
//! exact values (its tie rule searches ties with a window that makes them exact), chooses the
//! same move with the same value. Node counts fall; moves and values do not change.

use crate::Position;
use std::cell::RefCell;

/// Entries (24 bytes each, 96 KB): more than the nodes of a depth-5 ALoA search that use the
/// table (those two or more plies above the leaves, and those of earlier iterations). A table
/// eight times larger found few more transpositions and missed the processor's caches more.
const TABLE_BITS: u32 = 12;

/// What an entry's value is known to be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Bound {
    /// The node's value.
    Exact = 0,
    /// The node's value is at least this (the search failed high).
    Lower = 1,
    /// The node's value is at most this (the search failed low).
    Upper = 2,
}

/// One entry: the position's piece sets, and the value's bits with a check word (search
/// generation, depth, ply, side to move, bound). Generation 0 marks an empty entry.
#[derive(Clone, Copy, Default)]
struct Entry {
    black: u64,
    white: u64,
    data: u64,
}

/// Subtree values of the current search, keyed exactly (see the module documentation).
///
/// Reused between searches on a thread, like the move table: a new generation makes every old
/// entry a miss, since the same position has other values under another evaluator, ply cap or
/// root.
pub(super) struct ValueTable {
    entries: Vec<Entry>,
    generation: u16,
}

thread_local! {
    static TABLE: RefCell<Option<ValueTable>> = const { RefCell::new(None) };
}

/// Depths and plies the check word has room for (6 bits each); deeper nodes are not stored.
const MAX_LEVEL: u32 = 63;

impl ValueTable {
    /// A table without entries, a placeholder that allocates nothing and stores nothing.
    pub(super) fn empty() -> ValueTable {
        ValueTable { entries: Vec::new(), generation: 0 }
    }

    /// This thread's table, emptied (a new generation) for a new search.
    pub(super) fn take() -> ValueTable {
        let mut table = TABLE.with(|t| t.borrow_mut().take()).unwrap_or_else(ValueTable::empty);
        if table.entries.is_empty() {
            table.entries = vec![Entry::default(); 1 << TABLE_BITS];
        }
        table.generation = table.generation.wrapping_add(1);
        if table.generation == 0 {
            // Generation 0 marks never-written entries: after a wrap, really clear.
            table.entries.fill(Entry::default());
            table.generation = 1;
        }
        table
    }

    /// Hands the table back to this thread for its next search (a placeholder is dropped).
    pub(super) fn give_back(self) {
        if !self.entries.is_empty() {
            TABLE.with(|t| *t.borrow_mut() = Some(self));
        }
    }

    /// The check word of a node, bound bits clear; `None` if depth or ply do not fit.
    #[inline]
    fn check(&self, pos: &Position, depth: u32, ply: u32) -> Option<u32> {
        (depth <= MAX_LEVEL && ply <= MAX_LEVEL).then(|| {
            (u32::from(self.generation) << 16) | (depth << 10) | (ply << 4) | ((pos.side_to_move() as u32) << 3)
        })
    }

    #[inline]
    fn slot(&self, hash: u64) -> usize {
        (hash as usize) & ((1 << TABLE_BITS) - 1)
    }

    /// The value a node may return without being searched, if the table knows enough: the
    /// position `pos` (with `hash`, [`super::ordering::MoveTable::hash`]) at `depth` plies to
    /// search and `ply` plies below the root, searched with the window `(alpha, beta)`.
    #[inline]
    pub(super) fn probe(&self, hash: u64, pos: &Position, depth: u32, ply: u32, alpha: f32, beta: f32) -> Option<f32> {
        let check = self.check(pos, depth, ply)?;
        let entry = self.entries.get(self.slot(hash))?;
        let stored = (entry.data >> 32) as u32;
        if entry.black != pos.pieces[0] || entry.white != pos.pieces[1] || stored & !0b111 != check {
            return None;
        }
        let value = f32::from_bits(entry.data as u32);
        let usable = match stored & 0b111 {
            0 => true,
            1 => value >= beta,
            _ => value <= alpha,
        };
        usable.then_some(value)
    }

    /// Records the value a node returned (always replacing the slot's entry).
    #[inline]
    pub(super) fn store(&mut self, hash: u64, pos: &Position, depth: u32, ply: u32, value: f32, bound: Bound) {
        let Some(check) = self.check(pos, depth, ply) else { return };
        let slot = self.slot(hash);
        if let Some(entry) = self.entries.get_mut(slot) {
            let data = (u64::from(check | bound as u32) << 32) | u64::from(value.to_bits());
            *entry = Entry { black: pos.pieces[0], white: pos.pieces[1], data };
        }
    }
}
