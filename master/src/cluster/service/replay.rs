//! The master's check of a failure a worker reported: it plays the task itself, off the
//! runtime's threads. A task it plays gets the master's outcome, the task's deterministic one,
//! so a forged failure costs one task's play and changes nothing; a failure the master
//! reproduces is recorded naming the task, the worker and both messages, and ends the run.

use super::MasterService;
use crate::scheduler::{TaskId, WorkerId};
use loa_engine::tasks::{TaskFailure, play_caught};
use std::sync::Arc;
use std::sync::atomic::Ordering;

impl MasterService {
    /// Plays the open task `id` to check `worker`'s report that it failed with `message`.
    pub(super) fn replay(&self, id: TaskId, worker: WorkerId, message: String) {
        let Some(task) = self.scheduler.task(id) else { return };
        let name = self.scheduler.worker(worker).map_or_else(|| format!("worker {worker}"), |info| info.name);
        let (scheduler, counters) = (Arc::clone(&self.scheduler), Arc::clone(&self.counters));
        counters.replayed.fetch_add(1, Ordering::Relaxed);
        eprintln!("master: {name} reported that task {id} failed ({message}); the master plays it to check");
        tokio::task::spawn_blocking(move || {
            // A panic in the master's own play is a reproduced failure too, not a lost task.
            let outcome = play_caught(&task, |t| t.run().map_err(TaskFailure::Invalid)).map_err(|e| {
                counters.reproduced.fetch_add(1, Ordering::Relaxed);
                TaskFailure::Reported(format!(
                    "task {id}: {name} reported {message:?}, and the master failed it too: {e}"
                ))
            });
            scheduler.settle(id, outcome);
        });
    }
}
