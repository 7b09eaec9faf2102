//! How a worker turns the networks of the master's messages into chromosomes (see the parent module's
//! docs): weights sent are checked and cached, ids are looked up, origins are made again from
//! parents held or fetched from peers, and whatever is still lacking is left for the master
//! (`FetchChromosomes`).

use super::ChromosomeCache;
use crate::ProtoError;
use crate::convert::{
    chromosome_from_proto, has_weights, id_from_proto, id_to_proto, origin_from_proto, sources_from_proto,
};
use crate::peers::Peers;
use crate::{MAX_TASKS_PER_MESSAGE, pb};
use loa_engine::breeding::Origin;
use loa_engine::network::{Chromosome, ChromosomeId, Topology};
use loa_engine::tasks::MAX_ENTRANTS;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// What one message's networks resolved to (see [`resolve_entrants`]).
#[derive(Debug, Default)]
pub struct Resolved {
    /// Every chromosome the message's tasks need that is at hand, by id: held here until the tasks
    /// are converted, so a small cache evicting them meanwhile does not matter.
    pub found: HashMap<ChromosomeId, Arc<Chromosome>>,
    /// Ids the worker could not resolve, each once, in the order met: to fetch from the master.
    pub missing: Vec<ChromosomeId>,
    /// The ids of the tasks that named a missing id (each once, in order).
    pub needing: Vec<u64>,
    /// Networks sent as their id alone and found in the cache.
    pub hits: u64,
    /// Networks sent with their weights.
    pub received: u64,
    /// Networks made again from their origins.
    pub made: u64,
    /// Origins or sources that could not be used: malformed, or an origin that made a chromosome
    /// with another id (the network is then fetched from the master).
    pub unusable: u64,
    /// Chromosomes fetched from peers.
    pub from_peers: u64,
    /// Chromosomes asked of a peer and not got from it (the peer gone, refusing, or lacking it).
    pub peer_misses: u64,
    /// Networks waiting for chromosomes from peers (see [`Resolved::fetch_from_peers`]).
    waiting: Vec<Waiting>,
    /// What to ask peers for, each once, with the peers to ask in order.
    wanted: Vec<(ChromosomeId, Vec<String>)>,
}

/// A network that waits for peers: itself, or the parents of its origin.
#[derive(Debug)]
struct Waiting {
    task: u64,
    id: ChromosomeId,
    origin: Option<(Origin, Topology)>,
}

/// The network entrants of a task on the wire, in the order the master meets them when it
/// builds the task (see [`crate::convert::task_to_proto_sending`]); at most [`MAX_ENTRANTS`]
/// (a task with more fails conversion anyway, naming the field, and its networks are not
/// worth resolving first: the bookkeeping below scans lists a network at a time).
fn networks_mut(task: &mut pb::Task) -> impl Iterator<Item = &mut pb::Entrant> {
    task.entrants
        .iter_mut()
        .filter_map(|e| match &mut e.kind {
            Some(pb::match_entrant::Kind::Network(n)) => Some(n),
            _ => None,
        })
        .take(MAX_ENTRANTS)
}

/// Resolves the networks of a message's tasks, in order, against `cache`, as the master's
/// mirror expects:
///
/// - a network sent with weights is validated, checked against its id and cached (and its
///   weights moved out of the message, which then names it by id alone); one whose weights do
///   not validate is left as it is, so converting its task reports the error with its field;
/// - a network sent as its id alone is looked up;
/// - one the cache lacks that comes with an origin is made again if its parents are
///   held (each looked up, in order), and checked against its id; if a parent is lacking but
///   the entrant names sources for every lacking one, it waits for [`Resolved::fetch_from_peers`];
/// - one that names sources for itself waits for them too;
/// - anything else the cache lacks is `missing`, for the master to send.
///
/// Origins and sources are taken out of the messages, which then name their networks by id
/// alone. Only the first [`MAX_TASKS_PER_MESSAGE`] tasks are resolved, and [`MAX_ENTRANTS`]
/// networks of each: a message beyond those bounds is a master's bug, and what lies beyond is left
/// unresolved (its tasks go unplayed, their leases lapse) rather than cost time quadratic in it.
pub fn resolve_entrants(tasks: &mut [pb::Task], cache: &mut ChromosomeCache) -> Resolved {
    let mut resolved = Resolved::default();
    for task in tasks.iter_mut().take(MAX_TASKS_PER_MESSAGE) {
        let task_id = task.id;
        for entrant in networks_mut(task) {
            let origin = entrant.origin.take();
            let sources = std::mem::take(&mut entrant.sources);
            if has_weights(entrant) {
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
    /// A network sent with its weights.
    fn receive(&mut self, entrant: &mut pb::Entrant, cache: &mut ChromosomeCache) {
        let sent = pb::Entrant {
            serial: 0,
            topology: std::mem::take(&mut entrant.topology),
            weights: std::mem::take(&mut entrant.weights),
            id: entrant.id,
            origin: None,
            sources: Vec::new(),
        };
        match chromosome_from_proto("entrant", sent.clone()) {
            Ok(chromosome) => {
                let id = chromosome.id();
                let chromosome = Arc::new(chromosome);
                cache.insert(id, Arc::clone(&chromosome));
                self.found.insert(id, chromosome);
                self.received += 1;
                entrant.id = Some(id_to_proto(id));
            }
            Err(_) => {
                // Put back: the task's conversion names the problem.
                entrant.topology = sent.topology;
                entrant.weights = sent.weights;
            }
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
            // (A parent named without a source comes for an earlier network of this message: the
            // master sends each source once a message, for the first network that needs it.)
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
        let made = parents.and_then(|parents| origin.make(topology, &parents).ok());
        match made {
            Some(chromosome) if chromosome.id() == id => {
                let chromosome = Arc::new(chromosome);
                cache.insert(id, Arc::clone(&chromosome));
                self.found.insert(id, chromosome);
                self.made += 1;
            }
            Some(_) => {
                self.unusable += 1;
                self.lack(task, id);
            }
            None => self.lack(task, id),
        }
    }

    /// Whether `id` is on its way for an earlier network of the message: asked of peers, or waiting
    /// to be made or fetched.
    fn coming(&self, id: ChromosomeId) -> bool {
        self.wanted.iter().any(|(w, _)| *w == id) || self.waiting.iter().any(|w| w.id == id)
    }

    /// Whether some network waits for chromosomes from peers.
    pub fn waits_for_peers(&self) -> bool {
        !self.waiting.is_empty()
    }

    /// Fetches from `peers` what the waiting networks need (each chromosome checked against its
    /// id, and cached), then makes those sent as origins, in the message's order (so a network
    /// made for one task can be another's parent). A network still lacking something goes to
    /// `missing`, for the master.
    pub async fn fetch_from_peers(&mut self, peers: &Peers, cache: &Mutex<ChromosomeCache>) {
        if self.waiting.is_empty() {
            return;
        }
        let wanted = std::mem::take(&mut self.wanted);
        let (got, misses) = peers.fetch(&wanted).await;
        self.peer_misses += misses;
        let mut cache = cache.lock().unwrap_or_else(|p| p.into_inner());
        for chromosome in got {
            let id = chromosome.id();
            cache.insert(id, Arc::clone(&chromosome));
            self.found.insert(id, chromosome);
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
pub(crate) mod tests;
