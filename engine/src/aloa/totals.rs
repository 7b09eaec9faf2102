//! The per-thread cache of ALoA's side totals by piece set ([`TotalsCache`]).

use super::{Aloa, AloaKind, AloaWeights};
use crate::{Bitboard, BoardSize};

/// Entries of the per-thread cache of side totals (256 KB; half as many took more instructions
/// per ALoA search when every leaf looked its mover up).
const CACHE_BITS: u32 = 15;

/// The odd multiplier of the cache's key: multiplying by it permutes the 64-bit sets, so the
/// product determines the set, its top [`CACHE_BITS`] bits choose the entry and the entry keeps
/// the other 49 (see [`TotalsCache`]).
const CACHE_MULTIPLIER: u64 = 0x9E37_79B9_7F4A_7C15;

/// Bits of an entry holding the total (offset by [`TOTAL_OFFSET`]); the rest hold the key.
const TOTAL_BITS: u32 = 15;

/// Added to a total before it is stored: entries hold totals from `1 − TOTAL_OFFSET` to
/// `TOTAL_OFFSET − 1` as 1 to `2^15 − 1`, so an all-zero entry is empty. Totals beyond (only
/// weights far above the defaults reach them) are measured every time instead.
const TOTAL_OFFSET: i32 = 1 << (TOTAL_BITS - 1);

// An entry keeps all of the key's bits below the index only if the total takes no more bits
// than the index does.
const _: () = assert!(TOTAL_BITS <= CACHE_BITS);

/// Side totals by piece set, for one evaluator on one board size: a search meets the same piece set of a side
/// again and again (the same reply after each of the opponent's alternatives), and a lookup is
/// far cheaper than measuring the pieces. Exact: the key is the whole piece set.
///
/// One per thread, on the heap (thread-local storage this large would shrink every thread's
/// stack, and stop threads with small stacks from starting). It belongs
/// to one evaluator at a time, its *owner*; [`Evaluator::root_state`] claims it, and each claim
/// by a different evaluator empties it and starts a new epoch. A state remembers the epoch it
/// was made in and uses the cache only while the epoch lasts, so a state of another evaluator
/// can never read these totals.
pub(super) struct TotalsCache {
    /// Meaningful from epoch 1 on (every state's epoch is at least 1).
    pub(super) owner: Aloa,
    /// The board the owner measures on: a piece set's total depends on it.
    pub(super) size: BoardSize,
    pub(super) epoch: u32,
    /// One `u64` an entry, half the size of a `(pieces, total)` pair: with `h = pieces ·`
    /// [`CACHE_MULTIPLIER`], the entry at `h`'s top bits holds `h`'s low 49 bits above the
    /// total plus [`TOTAL_OFFSET`] (never 0; an all-zero entry is empty). Two sets with the
    /// same entry and the same low bits have the same `h`, so they are the same set: exact.
    /// Allocated by the first claim.
    pub(super) entries: Vec<u64>,
}

/// The owner of a cache no evaluator has claimed yet (epoch 0).
pub(super) const UNOWNED: Aloa = Aloa {
    kind: AloaKind::Normal,
    weights: AloaWeights { concentration: 0, com_centralisation: 0, centralisation: 0, edge: 0, quad3: 0, quad4: 0 },
};

thread_local! {
    pub(super) static TOTALS: std::cell::RefCell<TotalsCache> =
        const {
            std::cell::RefCell::new(TotalsCache {
                owner: UNOWNED,
                size: BoardSize::STANDARD,
                epoch: 0,
                entries: Vec::new(),
            })
        };
}

impl TotalsCache {
    /// Makes the cache `aloa`'s on the `size` board and returns the epoch.
    pub(super) fn claim(&mut self, aloa: &Aloa, size: BoardSize) -> u32 {
        if self.owner != *aloa || self.size != size || self.epoch == 0 {
            self.entries.clear();
            self.entries.resize(1 << CACHE_BITS, 0);
            self.owner = *aloa;
            self.size = size;
            // Epoch 0 means unclaimed: skip it when the counter wraps.
            self.epoch = self.epoch.checked_add(1).unwrap_or(1);
        }
        self.epoch
    }

    /// The owner's `side_terms(pieces).total()`, from the cache if there. Always measured with
    /// the owner's weights, so the entries stay the owner's whatever state is passed in.
    #[inline]
    pub(super) fn total(&mut self, pieces: u64) -> i32 {
        if pieces == 0 {
            return self.owner.side_terms_on(self.size, Bitboard(pieces)).total();
        }
        let h = pieces.wrapping_mul(CACHE_MULTIPLIER);
        let entry = &mut self.entries[(h >> (64 - CACHE_BITS)) as usize];
        // h's bits below the index, shifted above the total (TOTAL_BITS ≤ CACHE_BITS, so all fit).
        let key = h << TOTAL_BITS;
        // A hit leaves the stored total, 1 to 2^15 − 1, once the key is taken away.
        let stored = *entry ^ key;
        if stored.wrapping_sub(1) < (1 << TOTAL_BITS) - 1 {
            return stored as i32 - TOTAL_OFFSET;
        }
        let total = self.owner.side_terms_on(self.size, Bitboard(pieces)).total();
        if total.abs() < TOTAL_OFFSET {
            *entry = key | (total + TOTAL_OFFSET) as u64;
        }
        total
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aloa::MAX_WEIGHT;

    /// Sets that share an entry (the same top bits of `pieces · CACHE_MULTIPLIER`) or the bits
    /// an entry keeps (the same low bits), built by inverting the multiplier, and random sets:
    /// every lookup, first or repeated, gives the measured total, for the default weights
    /// (stored) and for weights whose totals do not fit an entry (measured every time).
    #[test]
    fn the_totals_cache_answers_exactly() {
        // The inverse of an odd number modulo 2^64 by Newton's iteration (each step doubles the
        // correct low bits).
        let mut inverse = CACHE_MULTIPLIER;
        for _ in 0..6 {
            inverse = inverse.wrapping_mul(2u64.wrapping_sub(CACHE_MULTIPLIER.wrapping_mul(inverse)));
        }
        assert_eq!(CACHE_MULTIPLIER.wrapping_mul(inverse), 1);
        let mut sets = Vec::new();
        let mut state = 5u64;
        for _ in 0..2000 {
            state = crate::random::mix64(state);
            // h = index bits | kept bits: the same entry with the lowest or the highest kept
            // bit changed, and another entry with the same kept bits.
            let top = 64 - CACHE_BITS;
            let (index, low) = (state >> top << top, state & ((1 << top) - 1));
            for h in [index | low, index | (low ^ 1), index | (low ^ 1 << (top - 1)), (index ^ 1 << top) | low] {
                sets.push(h.wrapping_mul(inverse));
            }
            sets.push(state & crate::random::mix64(state ^ 7));
        }
        let heavy = AloaWeights { concentration: MAX_WEIGHT, edge: MAX_WEIGHT, ..AloaWeights::default() };
        for aloa in [Aloa::quad(), Aloa::with_weights(AloaKind::Quad, heavy).unwrap()] {
            let mut cache = TotalsCache { owner: UNOWNED, size: BoardSize::STANDARD, epoch: 0, entries: Vec::new() };
            cache.claim(&aloa, BoardSize::STANDARD);
            let mut too_large = 0;
            for _ in 0..2 {
                for &pieces in &sets {
                    let want = aloa.side_terms(Bitboard(pieces)).total();
                    assert_eq!(cache.total(pieces), want, "{pieces:#x}");
                    too_large += usize::from(want.abs() >= TOTAL_OFFSET);
                }
            }
            assert_eq!(too_large > 0, aloa != Aloa::quad(), "{too_large}");
            // Every entry holds a set and that set's total: decoded, it measures the same.
            let mut stored = 0;
            for (index, &entry) in cache.entries.iter().enumerate().filter(|e| *e.1 != 0) {
                let h = (index as u64) << (64 - CACHE_BITS) | entry >> TOTAL_BITS;
                let total = (entry & ((1 << TOTAL_BITS) - 1)) as i32 - TOTAL_OFFSET;
                assert_eq!(aloa.side_terms(Bitboard(h.wrapping_mul(inverse))).total(), total, "{entry:#x}");
                stored += 1;
            }
            assert!(stored > 1000 || aloa != Aloa::quad(), "{stored}");
        }
    }
}
