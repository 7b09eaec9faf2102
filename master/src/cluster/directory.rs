//! Which workers serving the `Peer` service hold which chromosomes, so the master can name
//! peers that hold a network, or its parents, instead of sending its weights. It is fed as the
//! workers' mirrors are, so it is wrong where they are: a peer that lacks what it was named for
//! costs the asking worker a call, never a result.

use crate::scheduler::WorkerId;
use loa_engine::network::ChromosomeId;
use loa_proto::cache::IdHash;
use loa_proto::convert::source_to_proto;
use loa_proto::pb;
use smallvec::SmallVec;
use std::collections::HashMap;
use std::sync::Arc;

/// Most holders listed per chromosome: the oldest, which have surely resolved it.
const HOLDERS: usize = 4;
/// Most sources named for one chromosome.
pub const SOURCES_PER_CHROMOSOME: usize = 2;

/// A chromosome's holders, oldest first (never more than [`HOLDERS`], so never on the heap).
type Holders = SmallVec<[WorkerId; HOLDERS]>;

/// The holders of chromosomes among the workers that serve peers, and those workers' addresses.
#[derive(Debug, Default)]
pub struct Directory {
    holders: HashMap<ChromosomeId, Holders, IdHash>,
    /// Each serving worker's `host:port`.
    peers: HashMap<WorkerId, Arc<str>>,
}

impl Directory {
    /// `worker` serves peers at `address`.
    pub fn serve(&mut self, worker: WorkerId, address: Arc<str>) {
        self.peers.insert(worker, address);
    }

    /// `worker` is gone: it is no source any more, of `held` (its mirror's ids) or anything.
    pub fn forget(&mut self, worker: WorkerId, held: impl IntoIterator<Item = ChromosomeId>) {
        if self.peers.remove(&worker).is_none() {
            return;
        }
        for id in held {
            self.evicted(id, worker);
        }
    }

    /// `worker` holds `id` (from now on, as far as the master knows).
    pub fn holds(&mut self, id: ChromosomeId, worker: WorkerId) {
        if !self.peers.contains_key(&worker) {
            return;
        }
        let h = self.holders.entry(id).or_default();
        if h.len() < HOLDERS && !h.contains(&worker) {
            h.push(worker);
        }
    }

    /// `worker`'s mirror let `id` go.
    pub fn evicted(&mut self, id: ChromosomeId, worker: WorkerId) {
        let Some(h) = self.holders.get_mut(&id) else { return };
        let Some(i) = h.iter().position(|&w| w == worker) else { return };
        h.remove(i);
        if h.is_empty() {
            self.holders.remove(&id);
        }
    }

    /// Appends to `out` up to [`SOURCES_PER_CHROMOSOME`] sources of `id` other than `asking`;
    /// whether it found any.
    pub fn sources(&self, id: ChromosomeId, asking: WorkerId, out: &mut Vec<pb::Source>) -> bool {
        let Some(h) = self.holders.get(&id) else { return false };
        let before = out.len();
        let addresses = h.iter().filter(|&&w| w != asking).filter_map(|w| self.peers.get(w));
        out.extend(addresses.take(SOURCES_PER_CHROMOSOME).map(|a| source_to_proto(id, a)));
        out.len() > before
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use loa_proto::convert::id_from_proto;

    fn id(n: u128) -> ChromosomeId {
        ChromosomeId(n)
    }

    fn named(d: &Directory, of: u128, asking: WorkerId) -> Vec<String> {
        let mut out = Vec::new();
        d.sources(id(of), asking, &mut out);
        assert!(out.iter().all(|s| s.id.as_ref().map(id_from_proto) == Some(id(of))));
        out.into_iter().map(|s| s.peer).collect()
    }

    #[test]
    fn holders_are_serving_workers_oldest_first_and_never_the_asker() {
        let mut d = Directory::default();
        d.serve(1, "a:1".into());
        d.serve(2, "b:2".into());
        d.serve(3, "c:3".into());
        d.holds(id(7), 9); // does not serve: not listed
        assert!(d.holders.is_empty());
        for w in [2, 1, 3, 2] {
            d.holds(id(7), w);
        }
        assert_eq!(named(&d, 7, 0), ["b:2", "a:1"], "the two oldest");
        assert_eq!(named(&d, 7, 2), ["a:1", "c:3"], "not the asker");
        assert!(named(&d, 8, 0).is_empty());
        d.evicted(id(7), 1);
        assert_eq!(named(&d, 7, 0), ["b:2", "c:3"]);
        d.forget(3, [id(7)]);
        assert_eq!(named(&d, 7, 0), ["b:2"]);
        d.holds(id(7), 3); // gone: no longer serves
        assert_eq!(named(&d, 7, 0), ["b:2"]);
        d.evicted(id(7), 2);
        assert!(d.holders.is_empty(), "an id without holders is forgotten");
    }

    #[test]
    fn at_most_four_holders_are_listed() {
        let mut d = Directory::default();
        for w in 0..6 {
            d.serve(w, format!("h:{}", w + 1).into());
            d.holds(id(1), w);
        }
        assert_eq!(d.holders[&id(1)].as_slice(), [0, 1, 2, 3]);
        d.evicted(id(1), 0);
        d.holds(id(1), 5);
        assert_eq!(d.holders[&id(1)].as_slice(), [1, 2, 3, 5]);
    }
}
