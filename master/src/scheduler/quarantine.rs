//! A worker caught lying (its outcome differs from the master's own play of the task) is
//! quarantined for the rest of the master process: it is unregistered, its leases go back, its
//! id is refused like any unknown one and its name may not register again. Every outcome it
//! delivered since its last verified one is played again: those the batch being collected
//! holds are re-opened in place; for those the run already took, the run goes back to a state
//! before them ([`Scheduler::take_rollback`]). A holder of the token can still come back under
//! another name: the token is the trust boundary, verification bounds what a liar costs.

use super::{Entry, Scheduler, State, TaskId, WorkerId, WorkerInfo};
use std::sync::Arc;

/// A registration refused: the name belongs to a worker caught lying.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "worker name {0:?} is quarantined: a worker of that name returned an outcome that differs from the master's own \
     play of the task. Fix or replace that worker; this master refuses the name until it exits"
)]
pub struct Quarantined(pub String);

impl State {
    /// Quarantines `worker`, caught lying about task `id` (nothing if it already is).
    pub(super) fn quarantine(&mut self, worker: WorkerId, id: TaskId) {
        if !self.verifier.quarantined.insert(worker) {
            return;
        }
        self.stats.quarantined += 1;
        let Some(w) = self.workers.remove(&worker) else { return };
        if let Some(key) = &w.key {
            self.verifier.banned_names.insert(key.clone());
        }
        let first = w.trail.first_unverified();
        // Its leases go back to the front of the queue.
        let mut returned = Vec::new();
        for (&task, entry) in self.open.iter_mut() {
            let before = entry.leases.len();
            entry.leases.retain(|l| l.worker != worker);
            if entry.leases.is_empty() && before > 0 {
                returned.push(task);
            }
        }
        returned.sort_unstable();
        let returned_count = returned.len();
        self.stats.in_flight -= returned.len();
        self.stats.re_leased += returned.len() as u64;
        returned.into_iter().rev().for_each(|task| self.queue.push_front(task));
        let replayed = self.reopen(worker);
        self.verifier.queued += returned_count + replayed;
        let mut note = format!(
            "verification: quarantined {}: its outcome of task {id} differs from the master's own play; {replayed} of \
             its outcomes in this batch are played again",
            w.info.name
        );
        if let Some(first) = first.filter(|&f| self.verifier.committed_through.is_some_and(|c| f <= c)) {
            self.verifier.rollback = Some(self.verifier.rollback.map_or(first, |r| r.min(first)));
            note += &format!(
                "; its first unverified outcome (task {first}, generation {}) is in the run's state: the run goes \
                 back before it",
                first >> 24
            );
        }
        self.verifier.notes.push(note);
    }

    /// Opens again the tasks whose outcomes from `worker` wait to be collected, and drops the
    /// outcomes it gave to tasks still held; how many.
    fn reopen(&mut self, worker: WorkerId) -> usize {
        let State { verifier, open, done, finished, queue, stats, .. } = self;
        let theirs: Vec<(TaskId, Arc<loa_engine::tasks::Task>)> = verifier
            .delivered
            .iter()
            .filter(|(_, (w, _))| *w == worker)
            .map(|(&id, (_, task))| (id, Arc::clone(task)))
            .collect();
        let mut replayed = 0;
        for (id, task) in theirs {
            verifier.delivered.remove(&id);
            if done.remove(&id).is_some() {
                finished.remove(&id);
                open.insert(id, Entry::new(task));
                queue.push_front(id);
                stats.completed -= 1;
                replayed += 1;
            }
        }
        // Its held outcomes are no first opinion any more: those tasks are plain open ones.
        for &id in &verifier.held {
            let Some(entry) = open.get_mut(&id) else { continue };
            if entry.check.as_ref().is_some_and(|c| c.first.worker == worker && c.second.is_none() && !c.referred) {
                entry.check = None;
                if entry.leases.is_empty() && !queue.contains(&id) {
                    queue.push_front(id);
                }
                replayed += 1;
            }
        }
        verifier.held.retain(|id| open.get(id).is_some_and(|e| e.check.is_some()));
        stats.replayed += replayed as u64;
        replayed
    }
}

impl Scheduler {
    /// Registers a remote worker (untrusted: its outcomes are verified at the scheduler's rate)
    /// shown as `name`, under `key`, the name it gave, which a quarantine bans.
    pub fn register_remote(&self, name: String, key: &str, slots: usize) -> Result<WorkerId, Quarantined> {
        self.register_remote_at(name, key, slots, None)
    }

    /// [`Scheduler::register_remote`] of a worker connected from `address`: the second copy of
    /// a task held for verification goes to a worker from another address when one is registered.
    pub fn register_remote_at(
        &self,
        name: String,
        key: &str,
        slots: usize,
        address: Option<std::net::IpAddr>,
    ) -> Result<WorkerId, Quarantined> {
        let mut s = self.lock();
        if s.verifier.banned_names.contains(key) {
            return Err(Quarantined(key.to_owned()));
        }
        let id = s.add_worker(name, slots, self.now());
        let w = s.workers.get_mut(&id).expect("just registered");
        w.trusted = false;
        w.key = Some(key.to_owned());
        w.address = address;
        if let Some(address) = address {
            *s.addresses.entry(address).or_default() += 1;
        }
        Ok(id)
    }

    /// Whether `worker` was quarantined.
    pub fn is_quarantined(&self, worker: WorkerId) -> bool {
        self.lock().verifier.quarantined.contains(&worker)
    }

    /// What is known of the registered `worker`.
    pub fn worker(&self, worker: WorkerId) -> Option<WorkerInfo> {
        self.lock().workers.get(&worker).map(|w| w.info.clone())
    }
}
