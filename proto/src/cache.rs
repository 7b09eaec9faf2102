//! Chromosome caching: a worker keeps the chromosomes it has seen, keyed by their
//! content address ([`ChromosomeId`]), so the master can send a chromosome's id instead of its
//! 33 KiB of weights.
//!
//! **The protocol.** A worker tells the master its cache capacity when it registers. For each
//! such worker the master keeps a *mirror*: an [`Lru`] of ids of the same (or a smaller)
//! capacity, fed with exactly the ids it sends that worker, in the order it sends them. The worker
//! feeds its own [`Lru`] of chromosomes with the same ids in the same order as it reads its
//! messages ([`resolve_entrants`]). An LRU holds the last `capacity` distinct keys of the sequence
//! it was fed, so as long as every message arrives the mirror is exactly the worker's cache (or,
//! for a smaller mirror, a part of it): the master sends an id alone only for chromosomes the
//! worker holds, and weights otherwise.
//!
//! **The fallback.** The mirror can be wrong: a message the master built may never reach the
//! worker (a broken connection), and a worker can be configured to keep less than it announced.
//! Then the worker meets an id it lacks and asks the master for the weights
//! (`FetchChromosomes`), naming the tasks that need them; the master serves them from those
//! tasks, which it holds while they are open. If none of them is open any more, their outcome is
//! in (or the master does not know them) and the worker drops them: nobody waits for them. So a
//! wrong mirror costs a round trip, never a task and never a wrong game: every chromosome a
//! worker plays either came with weights that hash to its id (checked) or was found under that
//! id. Games are the same as with weights on every task, byte for byte.
//!
//! **Origins and peers**. A network the worker lacks may come as its origin
//! (`loa_engine::breeding::Origin`: its parents' ids and the breeding steps), which the worker
//! makes again from the parents and checks against the id; the parents it lacks, and networks
//! sent by id with sources, come from other workers ([`crate::peers`]). The master feeds its
//! mirror with the parents, then the network, as the worker feeds its cache. What the worker
//! fetches from peers goes into its cache when the fetch returns, after the rest of the message,
//! so near a full cache the two orders can differ: the mirror is then a little wrong, which, as
//! above, costs a fetch. Whatever the worker cannot make or get from peers it fetches from the
//! master. Every chromosome is still checked against its id, so games stay the same byte for
//! byte ([`resolve_entrants`], [`Resolved::fetch_from_peers`]).

use loa_engine::network::{Chromosome, ChromosomeId};
use std::collections::HashMap;
use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, BuildHasherDefault, Hash, Hasher};
use std::sync::Arc;

/// The worker's default cache capacity: 4096 default chromosomes are about 33 MB.
pub const DEFAULT_CAPACITY: usize = 4096;

/// A least-recently-used map of bounded capacity. Every [`Lru::get`] hit and [`Lru::insert`] makes
/// the key the most recent; inserting into a full map evicts the least recent key.
///
/// It holds exactly the last `capacity` distinct keys it was given (by `get` hits and inserts),
/// which is what makes the master's mirror of a worker's cache exact: see the module docs.
///
/// Entries live in a slab threaded by a doubly linked list in recency order, so every operation
/// is one hash lookup and a few index updates: the master touches its mirror for every network
/// it sends.
#[derive(Debug)]
pub struct Lru<K, V, S = RandomState> {
    capacity: usize,
    /// Each key's slot.
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
    /// The next more recent slot.
    newer: usize,
    /// The next less recent slot.
    older: usize,
}

impl<K: Clone + Eq + Hash, V, S: BuildHasher + Default> Lru<K, V, S> {
    /// An empty map that holds at most `capacity` keys (0: holds nothing).
    pub fn new(capacity: usize) -> Lru<K, V, S> {
        Lru { capacity, index: HashMap::default(), slots: Vec::new(), head: NIL, tail: NIL }
    }

    /// The most keys it holds.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Keys held.
    pub fn len(&self) -> usize {
        self.index.len()
    }

    /// Whether it holds nothing.
    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
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

    /// Puts slot `i` (not in the list) at the most recent end.
    fn push_front(&mut self, i: usize) {
        self.slots[i].newer = NIL;
        self.slots[i].older = self.head;
        match self.head {
            NIL => self.tail = i,
            h => self.slots[h].newer = i,
        }
        self.head = i;
    }

    /// The value of `key`, made the most recent.
    pub fn get(&mut self, key: &K) -> Option<&V> {
        let i = *self.index.get(key)?;
        if self.head != i {
            self.unlink(i);
            self.push_front(i);
        }
        Some(&self.slots[i].value)
    }

    /// The value of `key`, without making it more recent (a peer reading a worker's cache must
    /// not reorder it: the master's mirror does not see peers' reads).
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

    /// Holds `value` under `key` as the most recent key, evicting the least recent key if full.
    /// Returns whether `key` was already held (its value is then replaced).
    pub fn insert(&mut self, key: K, value: V) -> bool {
        self.insert_evicting(key, value).0
    }

    /// [`Lru::insert`], also returning the key it evicted, if any.
    pub fn insert_evicting(&mut self, key: K, value: V) -> (bool, Option<K>) {
        if self.capacity == 0 {
            return (false, None);
        }
        if let Some(&i) = self.index.get(&key) {
            self.slots[i].value = value;
            if self.head != i {
                self.unlink(i);
                self.push_front(i);
            }
            return (true, None);
        }
        let (i, evicted) = if self.slots.len() < self.capacity {
            self.slots.push(Slot { key: key.clone(), value, newer: NIL, older: NIL });
            (self.slots.len() - 1, None)
        } else {
            // Full: the least recent slot takes the new key.
            let i = self.tail;
            self.unlink(i);
            let old = std::mem::replace(&mut self.slots[i], Slot { key: key.clone(), value, newer: NIL, older: NIL });
            self.index.remove(&old.key);
            (i, Some(old.key))
        };
        self.push_front(i);
        self.index.insert(key, i);
        (false, evicted)
    }

    /// Uses `key` as the master's mirror does: `true` (and `key` made the most recent) if it is
    /// held, else `false` and `key` inserted. Exactly what the worker's cache does when it meets
    /// the id alone (a `get` hit) or with its weights (an insert).
    pub fn touch(&mut self, key: K) -> bool
    where
        V: Default,
    {
        self.touch_evicting(key).0
    }

    /// [`Lru::touch`], also returning the key it evicted, if any.
    pub fn touch_evicting(&mut self, key: K) -> (bool, Option<K>)
    where
        V: Default,
    {
        if self.get(&key).is_some() {
            return (true, None);
        }
        self.insert_evicting(key, V::default())
    }
}

/// Hashes a [`ChromosomeId`], already a uniform 128-bit hash, by folding its halves: a map keyed
/// by ids needs no second hash of them (the master touches its mirror for every network it sends).
#[derive(Clone, Copy, Debug, Default)]
pub struct IdHasher(u64);

impl Hasher for IdHasher {
    fn write(&mut self, bytes: &[u8]) {
        // Not used by ids (they write one u128); a plain FNV-1a step keeps other keys working.
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

mod resolve;

#[cfg(test)]
pub(crate) use resolve::tests as resolve_tests;
pub use resolve::{Resolved, resolve_entrants};

#[cfg(test)]
mod tests;
