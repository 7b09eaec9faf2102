//! What [`Scheduler::collect`](super::Scheduler::collect) waits for: each collect counts its ids
//! still without an outcome, an outcome lowers the count, and only the last one wakes the
//! collector (waking it to count on every outcome would cost time quadratic in a step's size).

use super::{IdHash, TaskId};
use std::collections::HashMap;

/// A waiting collect's number.
pub(super) type CollectId = u64;

/// The ids the waiting collects wait for and how many each still waits for.
#[derive(Default)]
pub(super) struct Awaited {
    /// Each id without an outcome yet, and the collect waiting for it (an id two collects wait
    /// for at once is the later one's; the earlier sees it in its 100 ms check).
    pub(super) by_id: HashMap<TaskId, CollectId, IdHash>,
    /// Per waiting collect, its ids still without an outcome (looked up for every outcome).
    pub(super) left: HashMap<CollectId, usize, IdHash>,
    next: CollectId,
    /// Set when an outcome was the last a collect waited for; taken by whoever notifies.
    pub(super) finished_one: bool,
}

impl Awaited {
    /// A new collect waiting for `ids` (those for which `has_outcome` is false).
    pub(super) fn begin(&mut self, ids: &[TaskId], has_outcome: impl Fn(&TaskId) -> bool) -> CollectId {
        let me = self.next;
        self.next += 1;
        // The table the collect before emptied takes these ids in the memory it has.
        super::reuse_emptied(&mut self.by_id, || 0);
        self.by_id.reserve(ids.len());
        let mut left = 0;
        for id in ids.iter().filter(|id| !has_outcome(id)) {
            let previous = self.by_id.insert(*id, me);
            if previous == Some(me) {
                continue; // listed twice in `ids`: counted once
            }
            if let Some(left) = previous.and_then(|c| self.left.get_mut(&c)) {
                *left -= 1;
            }
            left += 1;
        }
        self.left.insert(me, left);
        me
    }

    /// `id` has an outcome: one fewer for the collect waiting for it.
    pub(super) fn arrived(&mut self, id: TaskId) {
        let Some(collect) = self.by_id.remove(&id) else { return };
        if let Some(left) = self.left.get_mut(&collect) {
            *left -= 1;
            if *left == 0 {
                self.finished_one = true;
            }
        }
    }

    /// How many of `collect`'s ids are still without an outcome, as far as the counts know.
    pub(super) fn left(&self, collect: CollectId) -> usize {
        self.left.get(&collect).copied().unwrap_or(0)
    }

    /// `collect` is over: its ids are no longer waited for.
    pub(super) fn end(&mut self, collect: CollectId, ids: &[TaskId]) {
        if self.left.remove(&collect).is_some_and(|left| left > 0) {
            for id in ids {
                if self.by_id.get(id) == Some(&collect) {
                    self.by_id.remove(id);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ids_of_steps_of_one_size_go_into_the_table_the_step_before_emptied() {
        let mut awaited = Awaited::default();
        let mut capacities = Vec::new();
        for step in 0..4u64 {
            let ids: Vec<TaskId> = (step * 1000..step * 1000 + 1000).collect();
            let collect = awaited.begin(&ids, |_| false);
            capacities.push(awaited.by_id.capacity());
            for &id in &ids {
                awaited.arrived(id);
            }
            awaited.end(collect, &ids);
        }
        // Without the reset, the arrivals' tombstones make the reserve move the table to new
        // memory, twice the size (1792, 3584, 2840, 2154).
        assert!(capacities.iter().all(|&c| c == capacities[0]), "capacities by step: {capacities:?}");
    }

    #[test]
    fn counts_each_id_once_and_flags_the_last() {
        let mut a = Awaited::default();
        let c = a.begin(&[1, 2, 2, 3], |id| *id == 3);
        assert_eq!(a.left(c), 2, "3 has its outcome already, 2 is listed twice");
        a.arrived(2);
        a.arrived(2);
        a.arrived(9);
        assert_eq!(a.left(c), 1);
        assert!(!a.finished_one);
        a.arrived(1);
        assert_eq!(a.left(c), 0);
        assert!(a.finished_one);
        a.end(c, &[1, 2, 3]);
        assert!(a.by_id.is_empty() && a.left.is_empty());
    }

    #[test]
    fn an_id_two_collects_wait_for_is_the_later_ones() {
        let mut a = Awaited::default();
        let first = a.begin(&[1, 2], |_| false);
        let second = a.begin(&[2, 3], |_| false);
        assert_eq!((a.left(first), a.left(second)), (1, 2));
        a.arrived(2);
        assert_eq!((a.left(first), a.left(second)), (1, 1));
        // The first stops before its last outcome: its ids are forgotten, not the second's.
        a.end(first, &[1, 2]);
        assert!(!a.by_id.contains_key(&1));
        a.arrived(3);
        assert_eq!(a.left(second), 0);
        assert!(a.finished_one);
    }
}
