//! The scheduler's state under its lock: workers added, tasks leased (with backup copies of
//! stragglers' tasks), outcomes refused, held for verification or accepted.

use super::{
    BACKUP_SCAN, Completion, Delivery, Entry, IdHash, Lease, LeaseLog, Leased, State, TaskId, TaskResult, Worker,
    WorkerId, WorkerInfo, is_straggler, verify,
};
use smallvec::SmallVec;
use std::collections::HashMap;
use std::time::Instant;

impl State {
    /// Adds a trusted worker registered at `now`; its id.
    pub(super) fn add_worker(&mut self, name: String, slots: usize, now: Instant) -> WorkerId {
        let id = self.next_worker;
        self.next_worker += 1;
        let info =
            WorkerInfo { name, completed: 0, verified: 0, registered: now, oldest_lease: None, straggler: false };
        let log = LeaseLog::default();
        let worker = Worker {
            info,
            slots: slots.max(1),
            renewed: None,
            log,
            trusted: true,
            key: None,
            trail: Default::default(),
            address: None,
        };
        self.workers.insert(id, worker);
        id
    }

    /// Leases up to `max` queued tasks to `worker`, or with the queue empty backup copies.
    pub(super) fn lease(&mut self, worker: WorkerId, max: usize, now: Instant) -> Vec<Leased> {
        let State { queue, open, workers, stats, addresses, .. } = self;
        let apart = Apart::of(worker, workers, addresses);
        let Some(w) = workers.get_mut(&worker) else { return Vec::new() };
        let mut out = Vec::with_capacity(max.min(queue.len()).max(1));
        // Tasks this worker reported failed: left in the queue for the others.
        let mut skipped: SmallVec<[TaskId; 2]> = SmallVec::new();
        while out.len() < max {
            let Some(id) = queue.pop_front() else { break };
            // Ids that finished while queued (a re-leased task whose first lease delivered) go.
            if let Some(entry) = open.get_mut(&id) {
                if entry.check.as_ref().is_some_and(|c| c.referred) {
                    continue; // the master plays it
                }
                if entry.bars(worker) || apart.bars(entry) {
                    skipped.push(id);
                    continue;
                }
                if entry.leases.is_empty() {
                    stats.in_flight += 1;
                }
                out.push(entry.lease(id, worker, &mut w.log, now));
            }
        }
        skipped.into_iter().rev().for_each(|id| queue.push_front(id));
        if out.len() < max && queue.is_empty() {
            let slots = w.slots;
            self.lease_backups(worker, (max - out.len()).min(slots), now, &mut out);
        }
        out
    }

    /// Gives `worker` backup copies of up to `max` open tasks, oldest lease first: tasks whose
    /// leases are all another worker's and older than the straggler threshold. The candidates
    /// come from a scan of the open tasks at most every [`BACKUP_SCAN`].
    pub(super) fn lease_backups(&mut self, worker: WorkerId, max: usize, now: Instant, out: &mut Vec<Leased>) {
        if self.backup_scan_at.is_none_or(|at| now >= at) {
            self.backup_scan_at = Some(now + BACKUP_SCAN);
            let Some(median) = self.batch_durations.median() else {
                self.backup_candidates.clear();
                return;
            };
            let mut candidates: Vec<(Instant, TaskId)> = self
                .open
                .iter()
                .filter(|(_, e)| e.may_copy())
                .filter_map(|(&id, e)| {
                    let since = e.leases.iter().map(|l| l.since).min()?;
                    is_straggler(now.saturating_duration_since(since), Some(median)).then_some((since, id))
                })
                .collect();
            candidates.sort_unstable();
            self.backup_candidates = candidates.into_iter().map(|(_, id)| id).collect();
        }
        let State { open, workers, backup_candidates, stats, addresses, .. } = self;
        let apart = Apart::of(worker, workers, addresses);
        let Some(w) = workers.get_mut(&worker) else { return };
        let (limit, mut i) = (out.len() + max, 0);
        while out.len() < limit && i < backup_candidates.len() {
            let id = backup_candidates[i];
            let Some(entry) = open.get_mut(&id).filter(|e| e.may_copy()) else {
                backup_candidates.remove(i);
                continue;
            };
            // Never a second lease to the same worker, nor one to a worker that reported it
            // failed; the task stays a candidate.
            if entry.leases.iter().any(|l| l.worker == worker) || entry.bars(worker) || apart.bars(entry) {
                i += 1;
                continue;
            }
            out.push(entry.lease(id, worker, &mut w.log, now));
            backup_candidates.remove(i);
            stats.backups += 1;
        }
    }

    /// Records an outcome; returns what happened to it and, if accepted, the task's entry, for
    /// the caller to drop off the lock.
    pub(super) fn complete(
        &mut self,
        Delivery { worker, id, outcome }: Delivery,
        now: Instant,
    ) -> (Completion, Option<Entry>) {
        if let Some(refused) = self.refuse_sender(worker, id) {
            return (refused, None);
        }
        if !self.open.contains_key(&id) {
            return (self.not_open(id), None);
        }
        // A held outcome's first player was credited when it was held; the second is here.
        let outcome = match self.verify(id, worker, outcome, now) {
            verify::Verdict::Accept(outcome) => outcome,
            verify::Verdict::Held => return (Completion::Accepted, None),
            verify::Verdict::Duplicate => return (Completion::Duplicate, None),
        };
        let Some(entry) = self.open.remove(&id) else { return (self.not_open(id), None) };
        self.accept(id, &entry, Some(worker), outcome, now);
        (Completion::Accepted, Some(entry))
    }

    /// Why `worker` may not answer task `id`, counted, if it may not: it is no registered worker,
    /// or the task is open and it never held a lease on it.
    pub(super) fn refuse_sender(&mut self, worker: WorkerId, id: TaskId) -> Option<Completion> {
        let refused = if !self.workers.contains_key(&worker) {
            Completion::Unregistered
        } else if self.open.get(&id).is_some_and(|entry| !entry.holders.contains(&worker)) {
            Completion::NotLeased
        } else {
            return None;
        };
        self.stats.not_leased += 1;
        Some(refused)
    }

    /// What an answer to task `id`, which is not open, is, counted.
    pub(super) fn not_open(&mut self, id: TaskId) -> Completion {
        if self.finished.contains(&id) || self.finished_before.contains(&id) || self.done.contains_key(&id) {
            self.stats.duplicates += 1;
            Completion::Duplicate
        } else {
            self.stats.unknown += 1;
            Completion::Unknown
        }
    }

    /// Keeps `outcome` of the open task `id`, just taken out of `open` as `entry`, delivered by
    /// `worker` (`None`: played by the master itself).
    pub(super) fn accept(
        &mut self,
        id: TaskId,
        entry: &Entry,
        worker: Option<WorkerId>,
        outcome: TaskResult,
        now: Instant,
    ) {
        if !entry.leases.is_empty() {
            self.stats.in_flight -= 1;
        }
        // Timed from this worker's lease (a lapsed lease's late outcome has none: no time
        // recorded).
        let lease = entry.leases.iter().find(|l| Some(l.worker) == worker);
        let took = lease.map(|l| now.saturating_duration_since(l.since));
        end_leases(&mut self.workers, &entry.leases);
        if let Some(took) = took {
            self.batch_durations.push(took);
        }
        if outcome.is_err() {
            self.stats.failed += 1;
        }
        self.done.insert(id, outcome);
        self.finished.insert(id);
        self.awaited.arrived(id);
        self.stats.completed += 1;
        if let Some(w) = worker.and_then(|w| self.workers.get_mut(&w)) {
            w.info.completed += 1;
        }
    }
}

/// Marks `leases` ended in their workers' logs.
pub(super) fn end_leases(workers: &mut HashMap<WorkerId, Worker, IdHash>, leases: &[Lease]) {
    for lease in leases {
        if let Some(w) = workers.get_mut(&lease.worker) {
            w.log.end(lease.seq);
        }
    }
}

/// Keeping replicas apart: the second copy of a held outcome's task goes to a worker from
/// another address than the first when one is registered, so two workers on one host (or
/// behind one NAT) cannot confirm each other's lies.
#[derive(Clone, Copy)]
struct Apart {
    /// The leasing worker's address, if it is a remote worker and some registered worker
    /// connected from elsewhere.
    mine: Option<std::net::IpAddr>,
}

impl Apart {
    fn of(
        worker: WorkerId,
        workers: &HashMap<WorkerId, Worker, IdHash>,
        addresses: &HashMap<std::net::IpAddr, usize>,
    ) -> Apart {
        let address = workers.get(&worker).and_then(|w| w.address);
        let elsewhere = address.is_some_and(|a| addresses.get(&a).copied().unwrap_or(0) < workers.len());
        Apart { mine: address.filter(|_| elsewhere) }
    }

    /// Whether the leasing worker must leave `entry` to a worker from elsewhere: its held
    /// outcome came from the leasing worker's address.
    fn bars(self, entry: &Entry) -> bool {
        self.mine.is_some() && entry.check.as_ref().is_some_and(|c| c.first_address == self.mine)
    }
}
