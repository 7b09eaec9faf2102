//! Failures remote workers report are claims, not facts: one report must not end a run (a
//! worker with the token could forge it, or a broken one could be wrong). A reported failure
//! ends its sender's lease and sends the task to another worker, and the master plays the task
//! itself to check it ([`Scheduler::settle`]): the run stops only if the master fails it too.
//! Its play is the task's deterministic outcome, so results stay those of an honest run.

use super::{Completion, Scheduler, State, TaskId, WorkerId, end_leases};
use loa_engine::tasks::TaskResult;

impl State {
    /// `worker` (a holder) reports that the open task `id` failed: its lease ends, it is never
    /// leased the task again, and the task goes back to the front of the queue unless another
    /// lease holds it (whether it did).
    fn claim(&mut self, id: TaskId, worker: WorkerId) -> (Completion, bool) {
        let State { open, workers, queue, stats, .. } = self;
        let Some(entry) = open.get_mut(&id) else { return (Completion::Unknown, false) };
        let mut requeued = false;
        if let Some(i) = entry.leases.iter().position(|l| l.worker == worker) {
            let lease = entry.leases.remove(i);
            end_leases(workers, std::slice::from_ref(&lease));
            if entry.leases.is_empty() {
                stats.in_flight -= 1;
                stats.re_leased += 1;
                queue.push_front(id);
                requeued = true;
            }
        }
        let replay = entry.failed_by.is_empty();
        if !entry.failed_by.contains(&worker) {
            entry.failed_by.push(worker);
        }
        (Completion::Claimed { replay }, requeued)
    }
}

impl Scheduler {
    /// `worker` reports that task `id` failed: refused as an outcome would be (an unregistered
    /// sender, one that never held the task, a task not open), else a claim that sends the
    /// task to another worker and, the first time, asks the caller to check it by playing it.
    pub fn claim_failure(&self, worker: WorkerId, id: TaskId) -> Completion {
        let mut s = self.lock();
        let (verdict, requeued) = match s.refuse_sender(worker, id) {
            Some(refused) => (refused, false),
            None if s.open.contains_key(&id) => s.claim(id, worker),
            None => (s.not_open(id), false),
        };
        drop(s);
        if requeued {
            self.wake(1);
        }
        verdict
    }

    /// Keeps the master's own `outcome` of task `id`, played to check a reported failure or to
    /// settle a verification, if the task is still open (whoever holds it); whether it was.
    /// A task held for verification is settled too: each worker whose outcome differs from
    /// the master's is quarantined.
    pub fn settle(&self, id: TaskId, outcome: TaskResult) -> bool {
        let mut s = self.lock();
        let Some(mut entry) = s.open.remove(&id) else { return false };
        if let Some(check) = entry.check.take() {
            s.verifier.held.remove(&id);
            // A failure of the master's own play ends the run; it says nothing of the workers.
            if outcome.is_ok() {
                let opinions: Vec<_> = std::iter::once(check.first).chain(check.second).collect();
                s.judge(id, &opinions, &outcome);
            }
        }
        let now = self.now();
        s.accept(id, &entry, None, outcome, now);
        let last = std::mem::take(&mut s.awaited.finished_one);
        let queued = std::mem::take(&mut s.verifier.queued);
        if s.verifier.rollback.is_some() {
            self.rollback.store(true, std::sync::atomic::Ordering::Release);
        }
        drop(s);
        drop(entry);
        if last {
            self.outcomes.notify_all();
        }
        if queued > 0 {
            self.wake(queued);
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use loa_engine::tasks::{MatchFormat, MatchTask, Task, TaskFailure};
    use std::time::Duration;

    /// A task the scheduler only moves around.
    fn task() -> Task {
        Task::Match(MatchTask {
            entrants: Vec::new(),
            network_depth: 1,
            rules: Default::default(),
            board: Default::default(),
            start: Default::default(),
            format: MatchFormat::Pairs(vec![]),
        })
    }

    fn leased(s: &Scheduler, worker: WorkerId) -> Vec<TaskId> {
        s.lease(worker, 8).into_iter().map(|(id, _)| id).collect()
    }

    #[test]
    fn a_reported_failure_sends_the_task_to_another_worker_and_asks_for_one_check() {
        let s = Scheduler::new(Duration::from_secs(60));
        let (a, b) = (s.register("a".into(), 1), s.register("b".into(), 1));
        s.submit(vec![(0, task()), (1, task())]);
        assert_eq!(leased(&s, a), [0, 1]);
        // Only a holder's report counts, and only a registered one's.
        assert_eq!(s.claim_failure(b, 0), Completion::NotLeased);
        assert_eq!(s.claim_failure(WorkerId::MAX, 0), Completion::Unregistered);
        assert_eq!(s.claim_failure(a, 0), Completion::Claimed { replay: true });
        assert_eq!((s.stats().in_flight, s.stats().failed, s.stats().completed), (1, 0, 0));
        // Back in the queue, for another worker only; a second report asks for no second check.
        assert!(leased(&s, a).is_empty(), "not to the worker that reported it");
        assert_eq!(leased(&s, b), [0]);
        assert_eq!(s.claim_failure(b, 0), Completion::Claimed { replay: false });
        assert!(leased(&s, a).is_empty() && leased(&s, b).is_empty(), "both reported it");
        let c = s.register("c".into(), 1);
        assert_eq!(leased(&s, c), [0]);
        // The master's own play settles it, whoever holds it, once.
        let played: TaskResult = Err(TaskFailure::Reported("the master's outcome".into()));
        assert!(s.settle(0, played.clone()));
        assert!(!s.settle(0, played.clone()));
        assert_eq!(s.claim_failure(a, 0), Completion::Duplicate);
        assert_eq!(s.claim_failure(a, 7), Completion::Unknown);
        assert_eq!(s.collect(&[0], || false, |_| {}), Some(vec![played]));
        assert_eq!((s.stats().completed, s.stats().in_flight), (1, 1), "task 1, still a's");
    }

    #[test]
    fn a_failure_the_master_reproduces_is_the_tasks_outcome() {
        let s = Scheduler::new(Duration::from_secs(60));
        let a = s.register("a".into(), 1);
        s.submit(vec![(3, task())]);
        assert_eq!(leased(&s, a), [3]);
        assert_eq!(s.claim_failure(a, 3), Completion::Claimed { replay: true });
        let reproduced = Err(TaskFailure::Reported("task 3: a reported \"x\", and the master failed it too".into()));
        assert!(s.settle(3, reproduced.clone()));
        assert_eq!(s.collect(&[3], || false, |_| {}), Some(vec![reproduced]));
        assert_eq!(s.stats().failed, 1);
    }
}
