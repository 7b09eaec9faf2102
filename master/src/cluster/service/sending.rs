//! How networks travel to a remote worker, decided from the master's mirror of its chromosome
//! cache (see [`loa_proto::cache`]), in this order of preference: by id alone when the mirror
//! holds it; as its origin when the mirror holds its parents; by id with peers that hold it
//! ([`Directory`]); as its origin with peers that hold the parents the mirror lacks; and only
//! then with its weights. A worker that keeps no cache gets weights.

use super::MasterService;
use crate::cluster::directory::Directory;
use crate::cluster::lock;
use crate::scheduler::{Leased, WorkerId};
use loa_engine::network::{Chromosome, ChromosomeId};
use loa_proto::cache::Mirror;
use loa_proto::convert::{Sending, task_to_proto};
use loa_proto::pb;
use std::sync::atomic::Ordering;

impl MasterService {
    /// Tasks leased to `worker` as the wire carries them. The mirror is fed in the order the
    /// worker meets the ids: the order of its stream's messages, each resolved before the next.
    pub(super) fn to_wire(&self, worker: WorkerId, leased: &[Leased]) -> Vec<pb::Task> {
        if leased.is_empty() {
            return Vec::new();
        }
        let mirror = self.remote().get(&worker).and_then(|r| r.mirror.clone());
        // Held across the whole message (mirror, then directory: the lock order).
        let mut mirror = mirror.as_ref().map(|m| lock(m));
        let mut directory = lock(&self.directory);
        let mut counts = [0u64; 4];
        let mut decide = |c: &Chromosome| {
            let sent = match mirror.as_deref_mut() {
                Some(mirror) => sending(c, worker, mirror, &mut directory),
                None => Sending::Weights,
            };
            counts[match sent {
                Sending::Id => 0,
                Sending::Origin(_) => 1,
                Sending::Sources(_) => 2,
                Sending::Weights => 3,
            }] += 1;
            sent
        };
        let tasks: Vec<pb::Task> = leased.iter().map(|(id, task)| task_to_proto(*id, task, &mut decide)).collect();
        let c = &self.counters;
        let sent = [&c.sent_by_id, &c.sent_by_origin, &c.sent_from_peers, &c.sent_with_weights];
        for (counter, n) in sent.into_iter().zip(counts) {
            counter.fetch_add(n, Ordering::Relaxed);
        }
        let bytes: usize = tasks.iter().map(prost::Message::encoded_len).sum();
        c.task_bytes.fetch_add(bytes as u64, Ordering::Relaxed);
        tasks
    }
}

/// How network `c` goes to `worker`; its mirror and the directory are fed as the worker will
/// feed its cache (the parents it uses, in order, then the network).
fn sending(c: &Chromosome, worker: WorkerId, mirror: &mut Mirror, directory: &mut Directory) -> Sending {
    let id = c.id();
    // The worker will hold `key`: the mirror says so, and forgets what that evicts.
    let touch = |mirror: &mut Mirror, directory: &mut Directory, key: ChromosomeId| {
        if let (_, Some(evicted)) = mirror.touch(key) {
            directory.evicted(evicted, worker);
        }
    };
    // Held: made the most recent (one lookup); the directory has listed it since it was sent.
    if mirror.get(&id).is_some() {
        return Sending::Id;
    }
    let origin = c.origin();
    let mut sources = Vec::new();
    let sent = match origin {
        Some(o) if o.parents().iter().all(|p| mirror.contains(p)) => Sending::Origin(sources),
        _ if directory.sources(id, worker, &mut sources) => Sending::Sources(sources),
        Some(o) if o.parents().iter().all(|&p| mirror.contains(&p) || directory.sources(p, worker, &mut sources)) => {
            Sending::Origin(sources)
        }
        _ => Sending::Weights,
    };
    if let (Sending::Origin(_), Some(o)) = (&sent, origin) {
        // The worker will hold the parents, but is not listed as their source: their first
        // holders serve them, and the directory does half the work.
        for &p in o.parents() {
            touch(mirror, directory, p);
        }
    }
    touch(mirror, directory, id);
    directory.holds(id, worker);
    sent
}

#[cfg(test)]
mod tests;
