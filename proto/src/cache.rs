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
use std::collections::{BTreeMap, HashMap};
use std::hash::Hash;
use std::sync::Arc;

/// The worker's default cache capacity: 4096 default chromosomes are about 33 MB.
pub const DEFAULT_CAPACITY: usize = 4096;

/// A least-recently-used map of bounded capacity. Every [`Lru::get`] hit and [`Lru::insert`] makes
/// the key the most recent; inserting into a full map evicts the least recent key.
///
/// It holds exactly the last `capacity` distinct keys it was given (by `get` hits and inserts),
/// which is what makes the master's mirror of a worker's cache exact: see the module docs.
#[derive(Debug)]
pub struct Lru<K, V> {
    capacity: usize,
    /// Each key's value and the stamp of its last use.
    entries: HashMap<K, (V, u64)>,
    /// Keys by the stamp of their last use: the first is the least recent.
    order: BTreeMap<u64, K>,
    next_stamp: u64,
}

impl<K: Clone + Eq + Hash, V> Lru<K, V> {
    /// An empty map that holds at most `capacity` keys (0: holds nothing).
    pub fn new(capacity: usize) -> Lru<K, V> {
        Lru { capacity, entries: HashMap::new(), order: BTreeMap::new(), next_stamp: 0 }
    }

    /// The most keys it holds.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Keys held.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether it holds nothing.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Whether `key` is held, without making it more recent.
    pub fn contains(&self, key: &K) -> bool {
        self.entries.contains_key(key)
    }

    fn stamp(&mut self) -> u64 {
        self.next_stamp += 1;
        self.next_stamp
    }

    /// The value of `key`, made the most recent.
    pub fn get(&mut self, key: &K) -> Option<&V> {
        let stamp = self.stamp();
        let (_, last) = self.entries.get_mut(key)?;
        let old = std::mem::replace(last, stamp);
        if let Some(k) = self.order.remove(&old) {
            self.order.insert(stamp, k);
        }
        self.entries.get(key).map(|(v, _)| v)
    }

    /// Holds `value` under `key` as the most recent key, evicting the least recent key if full.
    /// Returns whether `key` was already held (its value is then replaced).
    pub fn insert(&mut self, key: K, value: V) -> bool {
        if self.capacity == 0 {
            return false;
        }
        let stamp = self.stamp();
        if let Some((v, last)) = self.entries.get_mut(&key) {
            *v = value;
            let old = std::mem::replace(last, stamp);
            self.order.remove(&old);
            self.order.insert(stamp, key);
            return true;
        }
        if self.entries.len() >= self.capacity
            && let Some((_, evicted)) = self.order.pop_first()
        {
            self.entries.remove(&evicted);
        }
        self.order.insert(stamp, key.clone());
        self.entries.insert(key, (value, stamp));
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

/// A worker's chromosome cache.
pub type ChromosomeCache = Lru<ChromosomeId, Arc<Chromosome>>;

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
