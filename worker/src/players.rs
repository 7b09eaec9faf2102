//! The player threads and the local queue of leased tasks they take work from.

use crate::Control;
use loa_engine::tasks::{Task, TaskFailure, TaskResult, play_caught};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::Duration;
use tokio::sync::mpsc::UnboundedSender;

/// A leased task: its id, the worker id it was leased under (its outcome names it, should the
/// worker register again meanwhile), and the task or why it failed validation.
pub type Leased = (u64, u64, Result<Task, TaskFailure>);

/// A task's result, ready to send: its id, the worker id it was leased under, and the result.
pub type Finished = (u64, u64, TaskResult);

/// Tasks leased and not yet started, and how many are being played.
#[derive(Default)]
pub struct Local {
    queue: Mutex<VecDeque<Leased>>,
    ready: Condvar,
    running: AtomicUsize,
    /// Tasks played to the end.
    pub played: AtomicU64,
}

impl Local {
    fn lock(&self) -> MutexGuard<'_, VecDeque<Leased>> {
        self.queue.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Queues leased tasks (one that failed validation, to be reported as failed).
    pub fn push(&self, tasks: impl IntoIterator<Item = Leased>) {
        self.lock().extend(tasks);
        self.ready.notify_all();
    }

    /// Tasks held: queued plus being played.
    pub fn held(&self) -> usize {
        self.lock().len() + self.running.load(Ordering::Acquire)
    }

    /// Tasks queued and not yet started.
    pub fn queued(&self) -> usize {
        self.lock().len()
    }

    /// The next task to play, or `None` once `stop` says so.
    fn next(&self, stop: impl Fn() -> bool) -> Option<Leased> {
        let mut queue = self.lock();
        loop {
            if stop() {
                return None;
            }
            if let Some(task) = queue.pop_front() {
                // Counted as running before the lock is released, so `held` never dips.
                self.running.fetch_add(1, Ordering::AcqRel);
                return Some(task);
            }
            queue =
                self.ready.wait_timeout(queue, Duration::from_millis(50)).map_or_else(|p| p.into_inner().0, |r| r.0);
        }
    }
}

/// How a player thread plays a task.
type Play = fn(&Task) -> TaskResult;

/// Starts `slots` threads that play queued tasks and send their results to `out` until the
/// worker stops or `done` is set; the tasks still queued then are dropped (the master leases
/// them again). A thread finishes the task in hand first; a killed worker drops its result. A
/// task whose playing panics fails with the panic's message, and its thread plays on.
pub fn spawn(
    slots: usize,
    local: &Arc<Local>,
    out: &UnboundedSender<Finished>,
    control: &Control,
    done: &Arc<AtomicBool>,
) -> std::io::Result<Vec<std::thread::JoinHandle<()>>> {
    spawn_playing(slots, local, out, control, done, |t| t.run().map_err(TaskFailure::Invalid))
}

/// [`spawn`], tasks played by `play` (tests give one that panics).
fn spawn_playing(
    slots: usize,
    local: &Arc<Local>,
    out: &UnboundedSender<Finished>,
    control: &Control,
    done: &Arc<AtomicBool>,
    play: Play,
) -> std::io::Result<Vec<std::thread::JoinHandle<()>>> {
    (0..slots)
        .map(|i| {
            let (local, out, control, done) = (Arc::clone(local), out.clone(), control.clone(), Arc::clone(done));
            std::thread::Builder::new().name(format!("player-{i}")).spawn(move || {
                let stop = || control.stopping() || done.load(Ordering::Acquire);
                while let Some((id, leased_as, task)) = local.next(stop) {
                    let result = task.and_then(|t| play_caught(&t, play));
                    local.running.fetch_sub(1, Ordering::AcqRel);
                    local.played.fetch_add(1, Ordering::Relaxed);
                    if control.killed() || out.send((id, leased_as, result)).is_err() {
                        return;
                    }
                }
            })
        })
        .collect()
}

#[cfg(test)]
mod tests;
