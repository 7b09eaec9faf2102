//! Chromosome caching (issue 14): a worker keeps the chromosomes it has seen, keyed by their
//! content address ([`ChromosomeId`]), so the master can send a chromosome's id instead of its
//! 33 KiB of weights.
//!
//! **The protocol.** A worker tells the master its cache capacity when it registers. For each
//! such worker the master keeps a *mirror*: an [`Lru`] of ids of the same (or a smaller)
//! capacity, fed with exactly the ids it sends that worker, in the order it sends them. The worker
//! feeds its own [`Lru`] of chromosomes with the same ids in the same order as it reads its lease
//! replies ([`resolve_entrants`]). An LRU holds the last `capacity` distinct keys of the sequence
//! it was fed, so as long as every reply arrives the mirror is exactly the worker's cache (or,
//! for a smaller mirror, a part of it): the master sends an id alone only for chromosomes the
//! worker holds, and weights otherwise.
//!
//! **The fallback.** The mirror can be wrong: a lease reply the master built may never reach the
//! worker (a broken connection), and a worker can be configured to keep less than it announced.
//! Then the worker meets an id it lacks and asks the master for the weights
//! (`FetchChromosomes`), naming the tasks that need them; the master serves them from those
//! tasks, which it holds while they are open. If none of them is open any more, their outcome is
//! in (or the master does not know them) and the worker drops them: nobody waits for them. So a
//! wrong mirror costs a round trip, never a task and never a wrong game: every chromosome a
//! worker plays either came with weights that hash to its id (checked) or was found under that
//! id. Games are the same as with weights on every task, byte for byte.

use crate::ProtoError;
use crate::convert::{chromosome_from_proto, has_weights, id_from_proto, id_to_proto};
use crate::pb;
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

    /// Holds `value` under `key` as the most recent key, evicting the least recent key if full.
    /// Returns whether `key` was already held (its value is then replaced).
    pub fn insert(&mut self, key: K, value: V) -> bool {
        if self.capacity == 0 {
            return false;
        }
        if let Some(&i) = self.index.get(&key) {
            self.slots[i].value = value;
            if self.head != i {
                self.unlink(i);
                self.push_front(i);
            }
            return true;
        }
        let i = if self.slots.len() < self.capacity {
            self.slots.push(Slot { key: key.clone(), value, newer: NIL, older: NIL });
            self.slots.len() - 1
        } else {
            // Full: the least recent slot takes the new key.
            let i = self.tail;
            self.unlink(i);
            let old = std::mem::replace(&mut self.slots[i], Slot { key: key.clone(), value, newer: NIL, older: NIL });
            self.index.remove(&old.key);
            i
        };
        self.push_front(i);
        self.index.insert(key, i);
        false
    }

    /// Uses `key` as the master's mirror does: `true` (and `key` made the most recent) if it is
    /// held, else `false` and `key` inserted. Exactly what the worker's cache does when it meets
    /// the id alone (a `get` hit) or with its weights (an insert).
    pub fn touch(&mut self, key: K) -> bool
    where
        V: Default,
    {
        if self.get(&key).is_some() {
            return true;
        }
        self.insert(key, V::default());
        false
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

/// What one lease reply's networks resolved to (see [`resolve_entrants`]).
#[derive(Debug, Default)]
pub struct Resolved {
    /// Every chromosome the reply's tasks need that is at hand, by id: held here until the tasks
    /// are converted, so a small cache evicting them meanwhile does not matter.
    pub found: HashMap<ChromosomeId, Arc<Chromosome>>,
    /// Ids named alone that the cache lacks, each once, in the order met.
    pub missing: Vec<ChromosomeId>,
    /// The ids of the tasks that named a missing id (each once, in order).
    pub needing: Vec<u64>,
    /// Networks sent as their id alone and found in the cache.
    pub hits: u64,
    /// Networks sent with their weights.
    pub received: u64,
}

/// The network entrants of a task on the wire, in the order the master meets them when it
/// builds the task (see [`crate::convert::task_to_proto_with`]).
fn networks_mut(task: &mut pb::Task) -> Vec<&mut pb::Entrant> {
    match &mut task.kind {
        Some(pb::task::Kind::Tournament(t)) => t.entrants.iter_mut().collect(),
        Some(pb::task::Kind::Benchmark(b)) => b.entrant.iter_mut().collect(),
        Some(pb::task::Kind::Match(m)) => m
            .entrants
            .iter_mut()
            .filter_map(|e| match &mut e.kind {
                Some(pb::match_entrant::Kind::Network(n)) => Some(n),
                _ => None,
            })
            .collect(),
        None => Vec::new(),
    }
}

/// Resolves the networks of a lease reply's tasks, in order, against `cache`, as the master's
/// mirror expects: a network sent with weights is validated, checked against its id and cached
/// (and its weights moved out of the message, which then names it by id alone); a network sent
/// as its id alone is looked up. A network whose weights do not validate is left as it is, so
/// converting its task reports the error with its field.
pub fn resolve_entrants(tasks: &mut [pb::Task], cache: &mut ChromosomeCache) -> Resolved {
    let mut resolved = Resolved::default();
    for task in tasks.iter_mut() {
        let task_id = task.id;
        for entrant in networks_mut(task) {
            if has_weights(entrant) {
                let sent = pb::Entrant {
                    serial: 0,
                    topology: std::mem::take(&mut entrant.topology),
                    weights: std::mem::take(&mut entrant.weights),
                    id: entrant.id,
                    weights_le: std::mem::take(&mut entrant.weights_le),
                };
                match chromosome_from_proto("entrant", sent.clone()) {
                    Ok(chromosome) => {
                        let id = chromosome.id();
                        let chromosome = Arc::new(chromosome);
                        cache.insert(id, Arc::clone(&chromosome));
                        resolved.found.insert(id, chromosome);
                        resolved.received += 1;
                        entrant.id = Some(id_to_proto(id));
                    }
                    Err(_) => {
                        // Put back: the task's conversion names the problem.
                        entrant.topology = sent.topology;
                        entrant.weights = sent.weights;
                        entrant.weights_le = sent.weights_le;
                    }
                }
                continue;
            }
            let Some(id) = entrant.id.as_ref().map(id_from_proto) else { continue };
            if let Some(chromosome) = cache.get(&id) {
                resolved.found.insert(id, Arc::clone(chromosome));
                resolved.hits += 1;
            } else if !resolved.found.contains_key(&id) {
                if !resolved.missing.contains(&id) {
                    resolved.missing.push(id);
                }
                if resolved.needing.last() != Some(&task_id) {
                    resolved.needing.push(task_id);
                }
            }
        }
    }
    resolved
}

impl Resolved {
    /// Takes the chromosomes a `FetchChromosomes` reply brought: each must validate, hash to its
    /// id and be one that was asked for. They go into `cache` too (the master's mirror counts
    /// them as held, having sent their ids). Returns how many were taken.
    pub fn accept_fetched(
        &mut self,
        chromosomes: Vec<pb::Entrant>,
        cache: &mut ChromosomeCache,
    ) -> Result<usize, ProtoError> {
        let mut taken = 0;
        for (i, sent) in chromosomes.into_iter().enumerate() {
            let field = format!("chromosomes[{i}]");
            if sent.id.is_none() {
                return Err(ProtoError::new(format!("{field}.id"), "missing"));
            }
            let chromosome = chromosome_from_proto(&field, sent)?;
            let id = chromosome.id();
            if !self.missing.contains(&id) {
                return Err(ProtoError::new(format!("{field}.id"), format!("chromosome {id} was not asked for")));
            }
            let chromosome = Arc::new(chromosome);
            cache.insert(id, Arc::clone(&chromosome));
            self.found.insert(id, chromosome);
            taken += 1;
        }
        Ok(taken)
    }

    /// Whether every network of `task` (as [`resolve_entrants`] left it) is at hand.
    pub fn complete(&self, task: &mut pb::Task) -> bool {
        networks_mut(task)
            .into_iter()
            .all(|e| has_weights(e) || e.id.as_ref().is_none_or(|id| self.found.contains_key(&id_from_proto(id))))
    }

    /// The chromosome of `id`, if at hand (the resolver for
    /// [`crate::convert::task_from_proto_with`]).
    pub fn chromosome(&self, id: ChromosomeId) -> Option<Arc<Chromosome>> {
        self.found.get(&id).cloned()
    }
}

#[cfg(test)]
mod tests;
