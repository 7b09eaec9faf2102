//! The one path work takes from the master to workers and back.
//!
//! The master submits tasks with ids; workers *pull* them as leases with a deadline and send
//! back outcomes. Embedded worker threads and (issue 5) remote gRPC workers use the same calls,
//! so the scheduler is built for workers that come, go and fail:
//! - a lease past its deadline, or the lease of a worker that left, goes back to the queue;
//! - the first outcome for a task wins; later ones are counted as duplicates and dropped, and
//!   outcomes for ids the scheduler does not know (e.g. from before a master restart) are
//!   counted as unknown and dropped;
//! - the master collects outcomes by id, so the order in which workers finish never matters.
//!
//! Task ids are chosen by the master (deterministically, from the generation and the task's
//! place in it), so a result computed for the same task before a master restart is still valid.

use loa_engine::tasks::{Task, TaskOutcome};
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// A task's id, unique within a run.
pub type TaskId = u64;
/// A worker's id, unique within the master's lifetime.
pub type WorkerId = u64;

/// What happened to a submitted outcome.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Completion {
    /// The first outcome for an open task: kept.
    Accepted,
    /// The task already had an outcome: dropped.
    Duplicate,
    /// No such open task: dropped.
    Unknown,
}

/// Counters for the progress display and metrics.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct SchedulerStats {
    /// Tasks waiting for a worker.
    pub queued: usize,
    /// Tasks leased and not yet done.
    pub in_flight: usize,
    /// Outcomes accepted since the scheduler started.
    pub completed: u64,
    /// Leases given back to the queue (deadline missed or worker gone).
    pub re_leased: u64,
    /// Outcomes dropped because the task already had one.
    pub duplicates: u64,
    /// Outcomes dropped because the task was unknown.
    pub unknown: u64,
    /// Failed tasks (a worker could not play them).
    pub failed: u64,
    /// Workers currently registered.
    pub workers: usize,
}

struct Entry {
    task: Arc<Task>,
    /// Current leases: a re-leased task may be played by two workers; the first outcome wins.
    leases: Vec<(WorkerId, Instant)>,
}

#[derive(Default)]
struct State {
    queue: VecDeque<TaskId>,
    open: HashMap<TaskId, Entry>,
    done: HashMap<TaskId, Result<TaskOutcome, String>>,
    /// Ids whose outcome was accepted, kept to tell duplicates from unknown ids.
    finished: std::collections::HashSet<TaskId>,
    workers: HashMap<WorkerId, WorkerInfo>,
    next_worker: WorkerId,
    stats: SchedulerStats,
}

/// What the scheduler knows of a worker.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorkerInfo {
    /// A name for displays (host, thread).
    pub name: String,
    /// Outcomes it delivered that were accepted.
    pub completed: u64,
    /// When it was last heard from.
    pub last_seen: Instant,
}

/// The task queue shared by the master and its workers.
pub struct Scheduler {
    state: Mutex<State>,
    /// Signalled when tasks are queued or the scheduler closes.
    work: Condvar,
    /// Signalled when an outcome arrives.
    outcomes: Condvar,
    lease_time: Duration,
    closed: AtomicBool,
}

impl Scheduler {
    /// A scheduler whose leases last `lease_time` unless renewed.
    pub fn new(lease_time: Duration) -> Scheduler {
        Scheduler {
            state: Mutex::new(State::default()),
            work: Condvar::new(),
            outcomes: Condvar::new(),
            lease_time,
            closed: AtomicBool::new(false),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A worker thread that panicked while holding the lock leaves consistent data behind
        // (every update is a single step), so keep going.
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Registers a worker and returns its id.
    pub fn register(&self, name: String) -> WorkerId {
        let mut s = self.lock();
        let id = s.next_worker;
        s.next_worker += 1;
        s.workers.insert(id, WorkerInfo { name, completed: 0, last_seen: Instant::now() });
        s.stats.workers = s.workers.len();
        id
    }

    /// Removes a worker; its leases go back to the front of the queue.
    pub fn unregister(&self, worker: WorkerId) {
        let mut s = self.lock();
        s.workers.remove(&worker);
        s.stats.workers = s.workers.len();
        let mut returned = Vec::new();
        for (&id, entry) in s.open.iter_mut() {
            let before = entry.leases.len();
            entry.leases.retain(|(w, _)| *w != worker);
            if entry.leases.is_empty() && before > 0 {
                returned.push(id);
            }
        }
        returned.sort_unstable();
        s.stats.re_leased += returned.len() as u64;
        for id in returned.into_iter().rev() {
            s.queue.push_front(id);
        }
        drop(s);
        self.work.notify_all();
    }

    /// Queues tasks under the given ids (ids of tasks already open are ignored).
    pub fn submit(&self, tasks: Vec<(TaskId, Task)>) {
        let mut s = self.lock();
        for (id, task) in tasks {
            if s.open.contains_key(&id) || s.done.contains_key(&id) {
                continue;
            }
            s.finished.remove(&id);
            s.open.insert(id, Entry { task: Arc::new(task), leases: Vec::new() });
            s.queue.push_back(id);
        }
        s.stats.queued = s.queue.len();
        drop(s);
        self.work.notify_all();
    }

    /// Leases up to `max` queued tasks to `worker`, without waiting.
    pub fn lease(&self, worker: WorkerId, max: usize) -> Vec<(TaskId, Arc<Task>)> {
        let mut s = self.lock();
        self.lease_locked(&mut s, worker, max)
    }

    fn lease_locked(&self, s: &mut State, worker: WorkerId, max: usize) -> Vec<(TaskId, Arc<Task>)> {
        let now = Instant::now();
        if let Some(w) = s.workers.get_mut(&worker) {
            w.last_seen = now;
        }
        let mut out = Vec::new();
        while out.len() < max {
            let Some(id) = s.queue.pop_front() else { break };
            // Skip ids that finished while queued (a re-leased task whose first lease delivered).
            if let Some(entry) = s.open.get_mut(&id) {
                entry.leases.push((worker, now + self.lease_time));
                out.push((id, Arc::clone(&entry.task)));
            }
        }
        s.stats.queued = s.queue.len();
        s.stats.in_flight = s.open.values().filter(|e| !e.leases.is_empty()).count();
        out
    }

    /// Leases up to `max` tasks, waiting up to `timeout` for one to be queued. Returns an empty
    /// list on timeout or when the scheduler is closed.
    pub fn lease_wait(&self, worker: WorkerId, max: usize, timeout: Duration) -> Vec<(TaskId, Arc<Task>)> {
        let deadline = Instant::now() + timeout;
        let mut s = self.lock();
        loop {
            if self.closed.load(Ordering::Acquire) {
                return Vec::new();
            }
            if !s.queue.is_empty() {
                let leased = self.lease_locked(&mut s, worker, max);
                if !leased.is_empty() {
                    return leased;
                }
            }
            let now = Instant::now();
            if now >= deadline {
                return Vec::new();
            }
            s = match self.work.wait_timeout(s, deadline - now) {
                Ok((guard, _)) => guard,
                Err(poisoned) => poisoned.into_inner().0,
            };
        }
    }

    /// Extends `worker`'s leases (a heartbeat).
    pub fn renew(&self, worker: WorkerId) {
        let mut s = self.lock();
        let deadline = Instant::now() + self.lease_time;
        if let Some(w) = s.workers.get_mut(&worker) {
            w.last_seen = Instant::now();
        }
        for entry in s.open.values_mut() {
            for lease in entry.leases.iter_mut().filter(|(w, _)| *w == worker) {
                lease.1 = deadline;
            }
        }
    }

    /// Records an outcome (or a failure message) for task `id` from `worker`.
    pub fn complete(&self, worker: WorkerId, id: TaskId, outcome: Result<TaskOutcome, String>) -> Completion {
        let mut s = self.lock();
        if s.open.remove(&id).is_none() {
            let verdict = if s.finished.contains(&id) || s.done.contains_key(&id) {
                s.stats.duplicates += 1;
                Completion::Duplicate
            } else {
                s.stats.unknown += 1;
                Completion::Unknown
            };
            return verdict;
        }
        if outcome.is_err() {
            s.stats.failed += 1;
        }
        s.done.insert(id, outcome);
        s.finished.insert(id);
        s.stats.completed += 1;
        if let Some(w) = s.workers.get_mut(&worker) {
            w.completed += 1;
            w.last_seen = Instant::now();
        }
        s.stats.in_flight = s.open.values().filter(|e| !e.leases.is_empty()).count();
        drop(s);
        self.outcomes.notify_all();
        Completion::Accepted
    }

    /// Puts tasks whose every lease has passed its deadline back in the queue.
    pub fn expire_leases(&self) {
        let mut s = self.lock();
        let now = Instant::now();
        let mut expired = Vec::new();
        for (&id, entry) in s.open.iter_mut() {
            if !entry.leases.is_empty() && entry.leases.iter().all(|(_, deadline)| *deadline <= now) {
                // The task stays open: if the late worker still delivers first, its outcome counts.
                entry.leases.clear();
                expired.push(id);
            }
        }
        expired.sort_unstable();
        s.stats.re_leased += expired.len() as u64;
        s.queue.extend(expired);
        s.stats.queued = s.queue.len();
        drop(s);
        self.work.notify_all();
    }

    /// Waits until every task in `ids` has an outcome and takes them, in the order of `ids`.
    /// Returns `None` if `stop` becomes true first. A failed task is an `Err` with its message.
    /// `tick` is called about every 100 ms with the number of tasks done (for progress bars).
    pub fn collect(
        &self,
        ids: &[TaskId],
        stop: &AtomicBool,
        mut tick: impl FnMut(usize),
    ) -> Option<Vec<Result<TaskOutcome, String>>> {
        loop {
            let done = {
                let mut s = self.lock();
                if ids.iter().all(|id| s.done.contains_key(id)) {
                    return Some(ids.iter().filter_map(|id| s.done.remove(id)).collect());
                }
                if stop.load(Ordering::Acquire) {
                    return None;
                }
                s = match self.outcomes.wait_timeout(s, Duration::from_millis(100)) {
                    Ok((guard, _)) => guard,
                    Err(poisoned) => poisoned.into_inner().0,
                };
                ids.iter().filter(|id| s.done.contains_key(id)).count()
            };
            // Outside the lock: the callback may ask the scheduler for its stats.
            tick(done);
            self.expire_leases();
        }
    }

    /// Current counters.
    pub fn stats(&self) -> SchedulerStats {
        self.lock().stats.clone()
    }

    /// Current workers.
    pub fn workers(&self) -> Vec<(WorkerId, WorkerInfo)> {
        let s = self.lock();
        let mut w: Vec<_> = s.workers.iter().map(|(id, info)| (*id, info.clone())).collect();
        w.sort_by_key(|(id, _)| *id);
        w
    }

    /// Wakes every waiting worker and makes further waits return at once.
    pub fn close(&self) {
        self.closed.store(true, Ordering::Release);
        self.work.notify_all();
        self.outcomes.notify_all();
    }

    /// Whether [`Scheduler::close`] was called.
    pub fn is_closed(&self) -> bool {
        self.closed.load(Ordering::Acquire)
    }
}

/// Runs `threads` in-process workers that pull tasks until the scheduler closes.
pub fn spawn_embedded_workers(
    scheduler: &Arc<Scheduler>,
    threads: usize,
) -> std::io::Result<Vec<std::thread::JoinHandle<()>>> {
    (0..threads.max(1))
        .map(|i| {
            let scheduler = Arc::clone(scheduler);
            std::thread::Builder::new().name(format!("worker-{i}")).spawn(move || {
                let id = scheduler.register(format!("embedded-{i}"));
                while !scheduler.is_closed() {
                    for (task_id, task) in scheduler.lease_wait(id, 1, Duration::from_millis(200)) {
                        let outcome = task.run().map_err(|e| e.to_string());
                        scheduler.complete(id, task_id, outcome);
                    }
                }
                scheduler.unregister(id);
            })
        })
        .collect()
}
