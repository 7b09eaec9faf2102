//! Chromosome caching, so the master can send a network's id instead of its weights. A worker
//! keeps a [`ChromosomeCache`]; the master keeps a [`Mirror`] of it, fed with the ids it sends in
//! the order it sends them, as the worker feeds its cache in the order it reads them
//! ([`resolve_entrants`]). When the mirror is wrong (a message lost), the worker fetches what it
//! lacks, and every chromosome is checked against its id.

use loa_engine::network::{Chromosome, ChromosomeId};
use std::collections::HashMap;
use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, BuildHasherDefault, Hash, Hasher};
use std::sync::Arc;

mod resolve;

pub use resolve::{Resolved, resolve_entrants};

/// The worker's default cache capacity: 4096 default chromosomes are about 33 MB.
pub const DEFAULT_CAPACITY: usize = 4096;

/// A least-recently-used map of bounded capacity: it holds exactly the last `capacity` distinct
/// keys it was given by [`Lru::get`] hits and inserts, which is what keeps a mirror exact. Entries
/// live in a slab threaded by a doubly linked list in recency order, so each operation is one
/// hash lookup: the master touches a mirror for every network it sends.
#[derive(Debug)]
pub struct Lru<K, V, S = RandomState> {
    capacity: usize,
    index: HashMap<K, usize, S>,
    slots: Vec<Slot<K, V>>,
    /// The most recent slot, or [`NIL`].
    head: usize,
    /// The least recent slot, or [`NIL`].
    tail: usize,
}

/// No slot.
const NIL: usize = usize::MAX;

#[derive(Debug)]
struct Slot<K, V> {
    key: K,
    value: V,
    newer: usize,
    older: usize,
}

impl<K: Clone + Eq + Hash, V, S: BuildHasher + Default> Lru<K, V, S> {
    /// An empty map that holds at most `capacity` keys (0: holds nothing).
    pub fn new(capacity: usize) -> Lru<K, V, S> {
        Lru { capacity, index: HashMap::default(), slots: Vec::new(), head: NIL, tail: NIL }
    }

    /// Whether `key` is held, without making it more recent.
    pub fn contains(&self, key: &K) -> bool {
        self.index.contains_key(key)
    }

    /// Takes slot `i` out of the recency list.
    fn unlink(&mut self, i: usize) {
        let (newer, older) = (self.slots[i].newer, self.slots[i].older);
        match newer {
            NIL => self.head = older,
            n => self.slots[n].older = older,
        }
        match older {
            NIL => self.tail = newer,
            o => self.slots[o].newer = newer,
        }
    }

    /// Puts slot `i`, not in the list, at its most recent end.
    fn push_front(&mut self, i: usize) {
        self.slots[i].newer = NIL;
        self.slots[i].older = self.head;
        match self.head {
            NIL => self.tail = i,
            h => self.slots[h].newer = i,
        }
        self.head = i;
    }

    /// Makes slot `i`, in the list, the most recent.
    fn promote(&mut self, i: usize) {
        if self.head != i {
            self.unlink(i);
            self.push_front(i);
        }
    }

    /// The value of `key`, made the most recent.
    pub fn get(&mut self, key: &K) -> Option<&V> {
        let i = *self.index.get(key)?;
        self.promote(i);
        Some(&self.slots[i].value)
    }

    /// The value of `key`, without making it more recent (a peer's read must not reorder a
    /// worker's cache: the master's mirror does not see it).
    pub fn peek(&self, key: &K) -> Option<&V> {
        self.index.get(key).map(|&i| &self.slots[i].value)
    }

    /// The keys held, most recent first.
    pub fn keys(&self) -> impl Iterator<Item = &K> {
        std::iter::successors((self.head != NIL).then_some(self.head), |&i| {
            let older = self.slots[i].older;
            (older != NIL).then_some(older)
        })
        .map(|i| &self.slots[i].key)
    }

    /// Holds `value` under `key` as the most recent key (replacing its value if held); returns the
    /// key it evicted to make room, if any.
    pub fn insert(&mut self, key: K, value: V) -> Option<K> {
        if self.capacity == 0 {
            return None;
        }
        if let Some(&i) = self.index.get(&key) {
            self.slots[i].value = value;
            self.promote(i);
            return None;
        }
        let slot = Slot { key: key.clone(), value, newer: NIL, older: NIL };
        let (i, evicted) = if self.slots.len() < self.capacity {
            self.slots.push(slot);
            (self.slots.len() - 1, None)
        } else {
            // Full: the least recent slot takes the new key.
            let i = self.tail;
            self.unlink(i);
            let old = std::mem::replace(&mut self.slots[i], slot);
            self.index.remove(&old.key);
            (i, Some(old.key))
        };
        self.index.insert(key, i);
        self.push_front(i);
        evicted
    }

    /// Uses `key` as the worker's cache does when it meets it: a hit (made the most recent), or
    /// else an insert. Whether it was held, and the key evicted, if any.
    pub fn touch(&mut self, key: K) -> (bool, Option<K>)
    where
        V: Default,
    {
        if self.get(&key).is_some() {
            return (true, None);
        }
        (false, self.insert(key, V::default()))
    }
}

/// Hashes a [`ChromosomeId`], already a uniform 128-bit hash, by folding its halves: no second
/// hash of the ids the master looks up for every network it sends.
#[derive(Clone, Copy, Debug, Default)]
pub struct IdHasher(u64);

impl Hasher for IdHasher {
    fn write(&mut self, bytes: &[u8]) {
        // Ids write one u128; FNV-1a keeps other keys working.
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }

    fn write_u128(&mut self, i: u128) {
        self.0 ^= (i as u64) ^ ((i >> 64) as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// Builds [`IdHasher`]s.
pub type IdHash = BuildHasherDefault<IdHasher>;

/// The master's mirror of a worker's cache: the ids it holds.
pub type Mirror = Lru<ChromosomeId, (), IdHash>;

/// A worker's chromosome cache.
pub type ChromosomeCache = Lru<ChromosomeId, Arc<Chromosome>, IdHash>;

#[cfg(test)]
pub(crate) use resolve::tests as resolve_tests;
#[cfg(test)]
mod tests;
