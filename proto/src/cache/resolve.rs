//! How a worker turns the networks of the master's messages into chromosomes (see
//! [`resolve_entrants`]).

use super::ChromosomeCache;
use crate::convert::{chromosome_from_proto, id_from_proto, origin_from_proto, sources_from_proto};
use crate::limits::MAX_TASKS_PER_MESSAGE;
use crate::peers::Peers;
use crate::{ProtoError, each, pb};
use loa_engine::breeding::Origin;
use loa_engine::network::{Chromosome, ChromosomeId, Topology};
use loa_engine::tasks::MAX_ENTRANTS;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// What one message's networks resolved to (see [`resolve_entrants`]), and how.
#[derive(Debug, Default)]
pub struct Resolved {
    /// Every chromosome the message's tasks need that is at hand, by id: held here until the tasks
    /// are converted, whatever the cache evicts meanwhile.
    pub found: HashMap<ChromosomeId, Arc<Chromosome>>,
    /// Ids lacking, each once, in the order met: to fetch from the master.
    pub missing: Vec<ChromosomeId>,
    /// The ids of the tasks that named a missing id, each once, in order.
    pub needing: Vec<u64>,
    /// Networks sent as their id alone and found in the cache.
    pub hits: u64,
    /// Networks sent with their weights.
    pub received: u64,
    /// Networks made from their origins.
    pub made: u64,
    /// Origins or sources that could not be used: malformed, or an origin that made another id.
    pub unusable: u64,
    /// Chromosomes fetched from peers.
    pub from_peers: u64,
    /// Chromosomes asked of a peer and not got from it.
    pub peer_misses: u64,
    /// Networks waiting for chromosomes from peers.
    pub(crate) waiting: Vec<Waiting>,
    /// What to ask peers for, each once, with the peers to ask in order.
    wanted: Vec<(ChromosomeId, Vec<String>)>,
}

/// A network that waits for peers: itself, or the parents of its origin.
#[derive(Debug)]
pub(crate) struct Waiting {
    task: u64,
    id: ChromosomeId,
    origin: Option<(Origin, Topology)>,
}

/// The network entrants of a task on the wire, in the order the master met them; at most
/// [`MAX_ENTRANTS`] (a task with more fails conversion anyway).
fn networks_mut(task: &mut pb::Task) -> impl Iterator<Item = &mut pb::Entrant> {
    task.entrants
        .iter_mut()
        .filter_map(|e| match &mut e.kind {
            Some(pb::match_entrant::Kind::Network(n)) => Some(n),
            _ => None,
        })
        .take(MAX_ENTRANTS)
}

/// Resolves the networks of a message's tasks, in order, against `cache`, feeding it as the
/// master's mirror expects. Weights are checked against their id and cached (bad ones are left
/// for the task's conversion to name); ids are looked up; an origin is made if its parents are
/// held; what sources name waits for [`Resolved::fetch_from_peers`]; the rest is `missing`, for
/// the master to send. The messages then name every network by id alone. Only the first
/// [`MAX_TASKS_PER_MESSAGE`] tasks are resolved: a longer message is a master's bug, and
/// resolving it would cost time quadratic in its length.
pub fn resolve_entrants(tasks: &mut [pb::Task], cache: &mut ChromosomeCache) -> Resolved {
    let mut resolved = Resolved::default();
    for task in tasks.iter_mut().take(MAX_TASKS_PER_MESSAGE) {
        let task_id = task.id;
        for entrant in networks_mut(task) {
            let origin = entrant.origin.take();
            let sources = std::mem::take(&mut entrant.sources);
            if !entrant.weights.is_empty() {
                resolved.receive(entrant, cache);
                continue;
            }
            let Some(id) = entrant.id.as_ref().map(id_from_proto) else { continue };
            if let Some(chromosome) = cache.get(&id) {
                resolved.found.insert(id, Arc::clone(chromosome));
                resolved.hits += 1;
                continue;
            }
            if resolved.found.contains_key(&id) {
                continue;
            }
            let sources = sources_from_proto(&sources).unwrap_or_else(|_| {
                resolved.unusable += 1;
                Vec::new()
            });
            let origin = origin.and_then(|o| match (origin_from_proto(&o), Topology::from_name(&entrant.topology)) {
                (Ok(origin), Some(topology)) => Some((origin, topology)),
                _ => {
                    resolved.unusable += 1;
                    None
                }
            });
            if let Some((origin, topology)) = origin {
                resolved.by_origin(task_id, id, origin, topology, &sources, cache);
            } else if resolved.want(id, &sources) || resolved.coming(id) {
                // From peers, or made or fetched for an earlier network of this message.
                resolved.waiting.push(Waiting { task: task_id, id, origin: None });
            } else {
                resolved.lack(task_id, id);
            }
        }
    }
    resolved
}

impl Resolved {
    /// Takes in `chromosome`, got for id `id`: cached and found.
    fn take(&mut self, chromosome: Arc<Chromosome>, cache: &mut ChromosomeCache) {
        let id = chromosome.id();
        cache.insert(id, Arc::clone(&chromosome));
        self.found.insert(id, chromosome);
    }

    /// A network sent with its weights: if they check, cached and named by id from now on.
    fn receive(&mut self, entrant: &mut pb::Entrant, cache: &mut ChromosomeCache) {
        if let Ok(chromosome) = chromosome_from_proto(entrant) {
            entrant.weights = Vec::new();
            entrant.topology.clear();
            self.take(Arc::new(chromosome), cache);
            self.received += 1;
        }
    }

    /// `id`, which `task` names, is for the master to send.
    fn lack(&mut self, task: u64, id: ChromosomeId) {
        if !self.missing.contains(&id) {
            self.missing.push(id);
        }
        if self.needing.last() != Some(&task) {
            self.needing.push(task);
        }
    }

    /// Asks peers for `id` if `sources` name any for it; whether they do.
    fn want(&mut self, id: ChromosomeId, sources: &[(ChromosomeId, String)]) -> bool {
        let peers: Vec<String> = sources.iter().filter(|(s, _)| *s == id).map(|(_, p)| p.clone()).collect();
        if peers.is_empty() {
            return false;
        }
        if !self.wanted.iter().any(|(w, _)| *w == id) {
            self.wanted.push((id, peers));
        }
        true
    }

    /// A network the cache lacks, sent as its origin: made now from parents at hand, or waiting
    /// for those that peers hold, or lacking.
    fn by_origin(
        &mut self,
        task: u64,
        id: ChromosomeId,
        origin: Origin,
        topology: Topology,
        sources: &[(ChromosomeId, String)],
        cache: &mut ChromosomeCache,
    ) {
        let mut lacking = Vec::new();
        for &parent in origin.parents() {
            // Each held parent is used (made the most recent), as the master's mirror expects.
            match cache.get(&parent) {
                Some(p) => {
                    self.found.insert(parent, Arc::clone(p));
                }
                None if self.found.contains_key(&parent) => {}
                None => lacking.push(parent),
            }
        }
        if lacking.is_empty() {
            self.make(task, id, &origin, topology, cache);
        } else if lacking.iter().all(|&p| self.coming(p) || sources.iter().any(|(s, _)| *s == p)) {
            // A parent without a source comes for an earlier network of this message: the master
            // names each source once a message.
            for p in lacking {
                self.want(p, sources);
            }
            self.waiting.push(Waiting { task, id, origin: Some((origin, topology)) });
        } else {
            self.lack(task, id);
        }
    }

    /// Makes network `id` from `origin`, whose parents are all found; lacking if it cannot, or
    /// if what it makes is not `id`.
    fn make(&mut self, task: u64, id: ChromosomeId, origin: &Origin, topology: Topology, cache: &mut ChromosomeCache) {
        let parents: Option<Vec<&Chromosome>> =
            origin.parents().iter().map(|p| self.found.get(p).map(|c| &**c)).collect();
        match parents.and_then(|parents| origin.make(topology, &parents).ok()) {
            Some(chromosome) if chromosome.id() == id => {
                self.take(Arc::new(chromosome), cache);
                self.made += 1;
            }
            Some(_) => {
                self.unusable += 1;
                self.lack(task, id);
            }
            None => self.lack(task, id),
        }
    }

    /// Whether `id` is on its way for an earlier network of the message: asked of peers, or
    /// waiting to be made.
    fn coming(&self, id: ChromosomeId) -> bool {
        self.wanted.iter().any(|(w, _)| *w == id) || self.waiting.iter().any(|w| w.id == id)
    }

    /// Fetches from `peers` what the waiting networks need (each chromosome checked against its
    /// id, and cached), then makes those sent as origins, in the message's order (a network made
    /// for one task can be another's parent). What is still lacking goes to `missing`.
    pub async fn fetch_from_peers(&mut self, peers: &Peers, cache: &Mutex<ChromosomeCache>) {
        if self.waiting.is_empty() {
            return;
        }
        let (got, misses) = peers.fetch(&std::mem::take(&mut self.wanted)).await;
        self.peer_misses += misses;
        let mut cache = cache.lock().unwrap_or_else(|p| p.into_inner());
        for chromosome in got {
            self.take(chromosome, &mut cache);
            self.from_peers += 1;
        }
        for w in std::mem::take(&mut self.waiting) {
            match w.origin {
                _ if self.found.contains_key(&w.id) => {}
                Some((origin, topology)) => self.make(w.task, w.id, &origin, topology, &mut cache),
                None => self.lack(w.task, w.id),
            }
        }
    }

    /// Takes the chromosomes of a `FetchChromosomes` reply: each must check against its id and
    /// have been asked for. They are cached (the master's mirror counts them as held). Returns
    /// how many were taken.
    pub fn accept_fetched(
        &mut self,
        chromosomes: Vec<pb::Entrant>,
        cache: &mut ChromosomeCache,
    ) -> Result<usize, ProtoError> {
        let taken = each("chromosomes", chromosomes, |sent| {
            let chromosome = chromosome_from_proto(&sent)?;
            if !self.missing.contains(&chromosome.id()) {
                return Err(ProtoError::new("id", format!("chromosome {} was not asked for", chromosome.id())));
            }
            self.take(Arc::new(chromosome), cache);
            Ok(())
        })?;
        Ok(taken.len())
    }

    /// Whether every network of `task` (as [`resolve_entrants`] left it) is at hand.
    pub fn complete(&self, task: &mut pb::Task) -> bool {
        networks_mut(task).all(|e| {
            !e.weights.is_empty() || e.id.as_ref().is_none_or(|id| self.found.contains_key(&id_from_proto(id)))
        })
    }

    /// The chromosome of `id`, if at hand (the resolver for [`crate::convert::task_from_proto`]).
    pub fn chromosome(&self, id: ChromosomeId) -> Option<Arc<Chromosome>> {
        self.found.get(&id).cloned()
    }
}

#[cfg(test)]
pub(crate) mod tests;
