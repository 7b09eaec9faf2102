//! Move ordering for alpha-beta: killer moves per ply (searched first) and a history table.
//!
//! Ordering only changes how fast the search is, never its result (docs/spec.md §4).

use crate::random::mix64;
use crate::{Color, Move, MoveList, Position};
use std::cell::RefCell;

/// Deepest ply the killer table covers; deeper plies go unordered by killers.
const MAX_PLY: usize = 64;

/// Killer moves and history scores gathered during one search.
pub(super) struct Ordering {
    killers: [[Move; 2]; MAX_PLY],
    /// 64 rows (from) of 64 (to); a `Vec` so that [`Drop`] can hand it back.
    history: Vec<[u32; 64]>,
    /// The history entries made non-zero in this search (`from · 64 + to`), to clear them for
    /// the next search on this thread: most stay zero, and zeroing and allocating all 16 KB
    /// for every search showed in a 3-ply network game's profile.
    touched: Vec<u16>,
}

thread_local! {
    static HISTORY: RefCell<(Vec<[u32; 64]>, Vec<u16>)> = const { RefCell::new((Vec::new(), Vec::new())) };
}

impl Ordering {
    /// Empty killers and an all-zero history (this thread's, reused, or a new one).
    pub(super) fn new() -> Ordering {
        let (mut history, touched) = HISTORY.with(|h| std::mem::take(&mut *h.borrow_mut()));
        if history.is_empty() {
            history = vec![[0; 64]; 64];
        }
        Ordering { killers: [[Move::PASS; 2]; MAX_PLY], history, touched }
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
        let (from, to) = (mv.from().index(), mv.to().index());
        let h = &mut self.history[from][to];
        if *h == 0 {
            self.touched.push((from * 64 + to) as u16);
        }
        *h = h.saturating_add(depth * depth);
    }
}

/// Hands the history back to this thread, all zero again, for its next search.
impl Drop for Ordering {
    fn drop(&mut self) {
        let (mut history, mut touched) = (std::mem::take(&mut self.history), std::mem::take(&mut self.touched));
        for &i in &touched {
            history[usize::from(i >> 6)][usize::from(i & 63)] = 0;
        }
        touched.clear();
        HISTORY.with(|h| *h.borrow_mut() = (history, touched));
    }
}

/// Entries of the move table (256 KB): more than the interior nodes of a depth-5 search.
const TABLE_BITS: u32 = 15;

/// The best move found at positions of earlier iterations of the current search (a
/// transposition table used for move ordering only: it never supplies a value, so it cannot
/// change a result, only how soon cutoffs come).
///
/// An entry packs the hash's top 32 bits, the search's generation and the move. Tables are
/// reused between searches on a thread: a new generation makes every old entry a miss without
/// clearing 256 KB per search (a 3-ply search takes about as long as clearing it would).
pub(super) struct MoveTable {
    entries: Vec<u64>,
    generation: u16,
}

thread_local! {
    static TABLE: RefCell<Option<MoveTable>> = const { RefCell::new(None) };
}

impl MoveTable {
    /// A table without entries, a placeholder that allocates nothing.
    pub(super) fn empty() -> MoveTable {
        MoveTable { entries: Vec::new(), generation: 0 }
    }

    /// This thread's table, emptied (a new generation) for a new search.
    pub(super) fn take() -> MoveTable {
        let mut table = TABLE.with(|t| t.borrow_mut().take()).unwrap_or_else(MoveTable::empty);
        if table.entries.is_empty() {
            table.entries = vec![0; 1 << TABLE_BITS];
        }
        table.generation = table.generation.wrapping_add(1);
        if table.generation == 0 {
            // Generation 0 marks never-written entries: after a wrap, really clear.
            table.entries.fill(0);
            table.generation = 1;
        }
        table
    }

    /// Hands the table back to this thread for its next search.
    pub(super) fn give_back(self) {
        TABLE.with(|t| *t.borrow_mut() = Some(self));
    }

    /// The position's 64-bit hash.
    #[inline]
    pub(super) fn hash(pos: &Position) -> u64 {
        let side = pos.side_to_move() as u64;
        mix64(pos.pieces(Color::Black).0 ^ mix64(pos.pieces(Color::White).0 ^ side))
    }

    #[inline]
    fn tag(&self, hash: u64) -> u64 {
        (hash & !0xFFFF_FFFF) | (u64::from(self.generation) << 16)
    }

    /// The move stored for the position with `hash` in this search, if any.
    #[inline]
    pub(super) fn probe(&self, hash: u64) -> Option<Move> {
        let entry = self.entries[(hash as usize) & ((1 << TABLE_BITS) - 1)];
        (entry & !0xFFFF == self.tag(hash)).then(|| Move::from_bits(entry as u16))
    }

    /// Stores `mv` as the best move of the position with `hash` (always replacing).
    #[inline]
    pub(super) fn store(&mut self, hash: u64, mv: Move) {
        let tag = self.tag(hash);
        self.entries[(hash as usize) & ((1 << TABLE_BITS) - 1)] = tag | u64::from(mv.to_bits());
    }
}
