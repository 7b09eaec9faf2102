//! The one path work takes from the master to workers and back.
//!
//! The master submits tasks with ids; workers *pull* them as leases with a deadline and send
//! back outcomes. Embedded worker threads and remote gRPC workers use the same calls,
//! so the scheduler is built for workers that come, go and fail:
//! - a lease past its deadline, or the lease of a worker that left, goes back to the queue;
//! - the first outcome for a task wins; later ones are counted as duplicates and dropped, and
//!   outcomes for ids the scheduler does not know (e.g. from before a master restart) are
//!   counted as unknown and dropped;
//! - the master collects outcomes by id, so the order in which workers finish never matters.
//!
//! Task ids are chosen by the master (deterministically, from the generation and the task's
//! place in it), so a result computed for the same task before a master restart is still valid.
//!
//! **Backup tasks** (as MapReduce does for stragglers): when the queue is empty, a worker asking
//! for work is given a copy of the oldest open task whose only lease is held by another worker
//! and is older than the straggler threshold (see [`is_straggler`]). The first outcome wins, as for
//! any re-leased task, so a dead or slow worker costs the threshold (seconds), not the lease
//! time. A task has at most [`MAX_COPIES`] leases at once, and a worker registered with its
//! slots ([`Scheduler::register_with_slots`], as remote workers are) takes at most that many
//! copies a call, however many tasks it asks for.
//!
//! An outcome from a registered worker for a task it never leased is refused
//! ([`Completion::NotLeased`]): tasks are deterministic, so it would be right, but such a worker is
//! buggy or hostile. Outcomes from ids this scheduler does not know (a worker of an earlier
//! master process, or one dropped meanwhile) are still accepted, since task ids are fixed.
//!
//! Per worker it keeps tasks done, busy time (the summed lease-to-outcome time of its accepted
//! outcomes) and the age of its oldest open lease. A worker is a **straggler** when its oldest
//! open lease is older than [`STRAGGLER_FACTOR`] times the median lease-to-outcome time of the
//! tasks completed since the last [`Scheduler::submit`] (the current batch), and older than
//! [`STRAGGLER_FLOOR`]. Lease-to-outcome time includes the time a task waits in a worker's
//! lease-ahead queue, so the age and the median measure the same thing. Before any task of the
//! batch completed there is no median and no straggler.

use loa_engine::tasks::{MatchTask as Task, TaskFailure, TaskResult};
use smallvec::SmallVec;
use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

mod awaited;
mod embedded;
mod id_hash;
mod lease_log;
mod median;
mod straggler;

pub use embedded::spawn_embedded_workers;
use id_hash::IdHash;
use lease_log::LeaseLog;
use median::SampledMedian;
pub use straggler::{STRAGGLER_FACTOR, STRAGGLER_FLOOR, is_straggler};

/// A task's id, unique within a run.
pub type TaskId = u64;
/// A worker's id, unique within the master's lifetime.
pub type WorkerId = u64;
/// A task leased to a worker, with its id.
pub type Leased = (TaskId, Arc<Task>);

/// An outcome for [`Scheduler::record`]: who delivers it, for which task, and what it is.
pub struct Delivery {
    /// The worker the task was leased to (a worker this scheduler does not know delivers on
    /// behalf of nobody: see the module documentation).
    pub worker: WorkerId,
    /// The task the outcome is for.
    pub id: TaskId,
    /// Its outcome, or why it could not be played.
    pub outcome: TaskResult,
}

/// The check [`Scheduler::record`] is given for outcomes that need none: those embedded workers
/// played themselves from the task the scheduler holds.
pub fn unchecked(_: TaskId, _: &Task, _: &TaskResult) -> Result<(), std::convert::Infallible> {
    Ok(())
}

/// What happened to a submitted outcome.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Completion {
    /// The first outcome for an open task: kept.
    Accepted,
    /// The task already had an outcome: dropped.
    Duplicate,
    /// No such open task: dropped.
    Unknown,
    /// The sender is a registered worker that never held a lease on this task: dropped, and the
    /// task stays open.
    NotLeased,
}

/// Most leases a task has at once: its lease and one backup copy.
pub const MAX_COPIES: usize = 2;
/// How often the open tasks are scanned for backup candidates.
pub const BACKUP_SCAN: Duration = Duration::from_millis(100);

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
    /// Backup copies of straggling tasks given to idle workers.
    pub backups: u64,
    /// Outcomes dropped because the task already had one.
    pub duplicates: u64,
    /// Outcomes dropped because the task was unknown.
    pub unknown: u64,
    /// Outcomes refused because the sender never held a lease on the task.
    pub not_leased: u64,
    /// Failed tasks (a worker could not play them).
    pub failed: u64,
    /// Workers currently registered.
    pub workers: usize,
    /// Registered workers that are stragglers (see the module documentation).
    pub stragglers: usize,
}

/// One lease of a task. It lapses `lease_time` after `since` unless renewed (no deadline is
/// kept: it is the same for every lease, and 16 bytes fewer keep a task's entry smaller).
struct Lease {
    worker: WorkerId,
    /// When it was granted (for task durations, lease ages and its deadline).
    since: Instant,
    /// Its number in its worker's [`LeaseLog`].
    seq: u64,
}

struct Entry {
    task: Arc<Task>,
    /// Current leases: a re-leased task may be played by two workers; the first outcome wins.
    leases: SmallVec<[Lease; MAX_COPIES]>,
    /// Every worker that ever held a lease on it (a lease that lapsed still lets its late
    /// outcome count).
    holders: SmallVec<[WorkerId; 2]>,
}

#[derive(Default)]
struct State {
    queue: VecDeque<TaskId>,
    open: HashMap<TaskId, Entry, IdHash>,
    done: HashMap<TaskId, TaskResult, IdHash>,
    /// Ids whose outcome was accepted since the last submit, and in the step before (both kept
    /// to tell a late duplicate from an unknown id). Older ids are forgotten: kept for the whole
    /// run, the set grew by every task (gigabytes an hour at 10 000 workers); a duplicate of a
    /// step two submits back counts as unknown, which changes a counter and nothing else.
    finished: HashSet<TaskId, IdHash>,
    finished_before: HashSet<TaskId, IdHash>,
    workers: HashMap<WorkerId, WorkerInfo, IdHash>,
    next_worker: WorkerId,
    /// Open tasks with at least one lease, kept up to date on every change of a task's leases
    /// (so no call has to count them by scanning every open task).
    in_flight: usize,
    /// Lease-to-outcome times of the tasks completed since the last submit (the current batch),
    /// kept as a bounded sample so that their median is cheap to ask (every progress tick asks).
    batch_durations: SampledMedian,
    /// Each worker's leases in the order granted, so its oldest open lease is found at once.
    lease_log: HashMap<WorkerId, LeaseLog, IdHash>,
    /// Open tasks that may get a backup copy, oldest lease first, from the last scan.
    /// (A deque: they are taken from the front, one `remove` each, which shifted the whole
    /// list of a `Vec`; at the tail of a large step the list can hold every open task.)
    backup_candidates: VecDeque<TaskId>,
    /// When the open tasks may be scanned for backup candidates again.
    backup_scan_at: Option<Instant>,
    stats: SchedulerStats,
    /// What the waiting collects wait for.
    awaited: awaited::Awaited,
    /// When each worker last renewed its leases (a heartbeat): a lease lapses at its own
    /// deadline or `lease_time` after this, whichever is later.
    renewed: HashMap<WorkerId, Instant, IdHash>,
    /// Backup copies a worker takes a call, for workers registered with their slots (see
    /// [`Scheduler::register_with_slots`]); others take as many as they ask for.
    backup_limit: HashMap<WorkerId, usize, IdHash>,
}

impl State {
    /// The median of the current batch's task times, if any completed.
    fn median(&self) -> Option<Duration> {
        self.batch_durations.median()
    }

    /// When `worker`'s oldest open lease was granted.
    fn oldest_lease(&self, worker: WorkerId) -> Option<Instant> {
        self.lease_log.get(&worker).and_then(LeaseLog::oldest)
    }

    /// The age at `now` of each worker's oldest open lease.
    fn oldest_leases(&self, now: Instant) -> HashMap<WorkerId, Duration> {
        let ages =
            self.lease_log.keys().filter_map(|&w| Some((w, now.saturating_duration_since(self.oldest_lease(w)?))));
        ages.collect()
    }

    /// Marks `lease` ended in its worker's log.
    fn ended(lease_log: &mut HashMap<WorkerId, LeaseLog, IdHash>, lease: &Lease) {
        if let Some(log) = lease_log.get_mut(&lease.worker) {
            log.end(lease.seq);
        }
    }
}

/// Lets a table its removals emptied take the next step's entries in the memory it has. The
/// removals leave tombstones, which make the next `reserve` move the table to new memory,
/// whose pages then fault in as entries arrive, under the scheduler's lock (the outcomes'
/// table) or in `submit` (the open tasks'): with thousands of workers, a large part of a step's
/// cost. `clear` resets the control bytes, but skips a table that holds nothing, so one
/// placeholder goes in first.
fn reuse_emptied<V>(table: &mut HashMap<TaskId, V, IdHash>, placeholder: impl FnOnce() -> V) {
    if table.is_empty() && table.capacity() > 0 {
        table.insert(TaskId::MAX, placeholder());
        table.clear();
    }
}

/// What the scheduler knows of a worker.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorkerInfo {
    /// A name for displays (host, thread).
    pub name: String,
    /// Outcomes it delivered that were accepted.
    pub completed: u64,
    /// Summed lease-to-outcome time of its accepted outcomes. With several tasks leased ahead
    /// this overlaps; `completed / busy` is a per-task rate, not a throughput.
    pub busy: Duration,
    /// When it registered.
    pub registered: Instant,
    /// When it was last heard from.
    pub last_seen: Instant,
    /// The age of its oldest open lease when this snapshot was taken (`None`: holds no lease).
    pub oldest_lease: Option<Duration>,
    /// Whether it is a straggler (see the module documentation) at the snapshot.
    pub straggler: bool,
}

/// Where the scheduler reads the time: the real clock, or a controlled one in tests.
type Clock = Box<dyn Fn() -> Instant + Send + Sync>;

/// The task queue shared by the master and its workers.
pub struct Scheduler {
    state: Mutex<State>,
    /// Signalled when tasks are queued or the scheduler closes.
    work: Condvar,
    /// The same for the gRPC service's streams, which wait on the async runtime.
    work_arrived: tokio::sync::Notify,
    /// Signalled when an outcome arrives.
    outcomes: Condvar,
    lease_time: Duration,
    closed: AtomicBool,
    clock: Clock,
}

impl Scheduler {
    /// A scheduler whose leases last `lease_time` unless renewed.
    pub fn new(lease_time: Duration) -> Scheduler {
        Scheduler::with_clock(lease_time, Instant::now)
    }

    /// A scheduler that reads the time from `clock` for its bookkeeping (leases, task times,
    /// stragglers), so tests can move time on without sleeping. Waits still use real time.
    pub fn with_clock(lease_time: Duration, clock: impl Fn() -> Instant + Send + Sync + 'static) -> Scheduler {
        Scheduler {
            state: Mutex::new(State::default()),
            work: Condvar::new(),
            work_arrived: tokio::sync::Notify::new(),
            outcomes: Condvar::new(),
            lease_time,
            closed: AtomicBool::new(false),
            clock: Box::new(clock),
        }
    }

    fn now(&self) -> Instant {
        (self.clock)()
    }

    /// Notified when tasks are queued or leases expire (one waiter a task, see
    /// `Scheduler::announce`) and when the scheduler closes (every waiter): what wakes the gRPC
    /// service's streams that wait for tasks, which must not block a runtime thread on
    /// [`Scheduler::lease_wait`]'s condition variable.
    pub fn work_arrived(&self) -> &tokio::sync::Notify {
        &self.work_arrived
    }

    /// Wakes up to `tasks` of the service's waiting streams (one a task, longest waiting first),
    /// not all of them: between generations every worker waits, and waking ten thousand
    /// workers for a step of 62 tasks costs the master more than the tasks. A woken stream that
    /// finds nothing (another worker leased the task first) waits again; one that ends before it
    /// looks passes its turn on (tokio's `Notify`).
    fn announce(&self, tasks: usize) {
        for _ in 0..tasks {
            self.work_arrived.notify_one();
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A worker thread that panicked while holding the lock leaves consistent data behind
        // (every update is a single step), so keep going.
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Registers a worker that plays `slots` tasks at once and returns its id. Such a worker
    /// takes at most `slots` backup copies a call, however many tasks it asks for: a copy helps
    /// only if it finishes before the original, and a worker plays its copies `slots` at a time.
    /// (Without the bound, thousands of idle single-slot workers asking for 64 tasks each at the
    /// tail of a step took copies of most open tasks, which made the tail, and so the copies,
    /// grow.)
    pub fn register_with_slots(&self, name: String, slots: usize) -> WorkerId {
        let id = self.register(name);
        self.lock().backup_limit.insert(id, slots.max(1));
        id
    }

    /// Registers a worker and returns its id.
    pub fn register(&self, name: String) -> WorkerId {
        let mut s = self.lock();
        let id = s.next_worker;
        s.next_worker += 1;
        let now = self.now();
        let info = WorkerInfo {
            name,
            completed: 0,
            busy: Duration::ZERO,
            registered: now,
            last_seen: now,
            oldest_lease: None,
            straggler: false,
        };
        s.workers.insert(id, info);
        s.stats.workers = s.workers.len();
        id
    }

    /// Removes a worker; its leases go back to the front of the queue (unless another worker
    /// holds a copy). Returns what was known of it, if it was registered.
    pub fn unregister(&self, worker: WorkerId) -> Option<WorkerInfo> {
        let mut s = self.lock();
        let info = s.workers.remove(&worker);
        s.renewed.remove(&worker);
        s.lease_log.remove(&worker);
        s.backup_limit.remove(&worker);
        s.stats.workers = s.workers.len();
        let mut returned = Vec::new();
        for (&id, entry) in s.open.iter_mut() {
            let before = entry.leases.len();
            entry.leases.retain(|l| l.worker != worker);
            if entry.leases.is_empty() && before > 0 {
                returned.push(id);
            }
        }
        returned.sort_unstable();
        s.in_flight -= returned.len();
        s.stats.in_flight = s.in_flight;
        s.stats.re_leased += returned.len() as u64;
        let returned_count = returned.len();
        for id in returned.into_iter().rev() {
            s.queue.push_front(id);
        }
        s.stats.queued = s.queue.len();
        drop(s);
        self.work.notify_all();
        self.announce(returned_count);
        info
    }

    /// Queues tasks under the given ids (ids of tasks already open are ignored).
    pub fn submit(&self, tasks: Vec<(TaskId, Task)>) {
        let mut s = self.lock();
        // A new batch: task times of the previous one say nothing about these tasks.
        s.batch_durations.clear();
        // The set of two steps ago, emptied, takes this step's ids in the memory it has.
        let State { finished, finished_before, .. } = &mut *s;
        std::mem::swap(finished, finished_before);
        finished.clear();
        // The outcomes' table, emptied by the step before, too (see `reuse_emptied`).
        reuse_emptied(&mut s.done, || Err(TaskFailure::Reported(String::new())));
        // And the open tasks' table, which this step's completions emptied the same way.
        if let Some((_, task)) = tasks.first() {
            let entry = || Entry { task: Arc::new(task.clone()), leases: SmallVec::new(), holders: SmallVec::new() };
            reuse_emptied(&mut s.open, entry);
        }
        // Room for every outcome of the step now, on the submitting thread, rather than tables
        // grown (rehashed, their pages faulted in) under the lock while outcomes arrive.
        s.done.reserve(tasks.len());
        s.finished.reserve(tasks.len());
        s.open.reserve(tasks.len());
        s.backup_scan_at = None;
        let queued_before = s.queue.len();
        for (id, task) in tasks {
            if s.open.contains_key(&id) || s.done.contains_key(&id) {
                continue;
            }
            s.finished_before.remove(&id);
            s.open.insert(id, Entry { task: Arc::new(task), leases: SmallVec::new(), holders: SmallVec::new() });
            s.queue.push_back(id);
        }
        s.stats.queued = s.queue.len();
        let queued = s.queue.len() - queued_before;
        drop(s);
        self.work.notify_all();
        self.announce(queued);
    }

    /// Whether `worker` holds a lease on an open task (its log has one that has not ended).
    pub fn holds_lease(&self, worker: WorkerId) -> bool {
        self.lock().oldest_lease(worker).is_some()
    }

    /// The open task `id`, if any (to check an outcome against it).
    pub fn task(&self, id: TaskId) -> Option<Arc<Task>> {
        self.lock().open.get(&id).map(|e| Arc::clone(&e.task))
    }

    /// Leases up to `max` queued tasks to `worker`, without waiting.
    pub fn lease(&self, worker: WorkerId, max: usize) -> Vec<(TaskId, Arc<Task>)> {
        let mut s = self.lock();
        let now = self.now();
        self.lease_locked(&mut s, worker, max, now)
    }

    fn lease_locked(&self, s: &mut State, worker: WorkerId, max: usize, now: Instant) -> Vec<(TaskId, Arc<Task>)> {
        if let Some(w) = s.workers.get_mut(&worker) {
            w.last_seen = now;
        }
        // Sized at once: grown from empty, a lease of 64 reallocated five times (an eighth of
        // this function's time in `bench-dispatch --batch 64`).
        let mut out = Vec::with_capacity(max.min(s.queue.len()).max(1));
        let mut newly_in_flight = 0;
        let State { queue, open, lease_log, .. } = &mut *s;
        let log = lease_log.entry(worker).or_default();
        while out.len() < max {
            let Some(id) = queue.pop_front() else { break };
            // Skip ids that finished while queued (a re-leased task whose first lease delivered).
            if let Some(entry) = open.get_mut(&id) {
                if entry.leases.is_empty() {
                    newly_in_flight += 1;
                }
                entry.leases.push(Lease { worker, since: now, seq: log.grant(now, id) });
                if !entry.holders.contains(&worker) {
                    entry.holders.push(worker);
                }
                out.push((id, Arc::clone(&entry.task)));
            }
        }
        if out.len() < max && s.queue.is_empty() {
            let limit = s.backup_limit.get(&worker).copied().unwrap_or(usize::MAX);
            self.lease_backups(s, worker, (max - out.len()).min(limit), now, &mut out);
        }
        s.in_flight += newly_in_flight;
        s.stats.queued = s.queue.len();
        s.stats.in_flight = s.in_flight;
        out
    }

    /// Gives `worker` backup copies of up to `max` open tasks, oldest lease first: tasks whose
    /// leases are all another worker's and older than the straggler threshold. The candidates
    /// are found by a scan of the open tasks at most every [`BACKUP_SCAN`], so thousands of idle
    /// workers polling at the tail of a batch do not each scan every open task.
    fn lease_backups(
        &self,
        s: &mut State,
        worker: WorkerId,
        max: usize,
        now: Instant,
        out: &mut Vec<(TaskId, Arc<Task>)>,
    ) {
        if s.backup_scan_at.is_none_or(|at| now >= at) {
            // The median is computed here only, at most every BACKUP_SCAN: every idle worker's
            // poll at the tail of a batch comes through this function.
            s.backup_scan_at = Some(now + BACKUP_SCAN);
            let Some(median) = s.median() else {
                s.backup_candidates.clear();
                return;
            };
            let mut candidates: Vec<(Instant, TaskId)> = s
                .open
                .iter()
                .filter(|(_, e)| !e.leases.is_empty() && e.leases.len() < MAX_COPIES)
                .filter_map(|(&id, e)| {
                    let since = e.leases.iter().map(|l| l.since).min()?;
                    is_straggler(now.saturating_duration_since(since), Some(median)).then_some((since, id))
                })
                .collect();
            candidates.sort_unstable();
            s.backup_candidates = candidates.into_iter().map(|(_, id)| id).collect();
        }
        let mut given = 0;
        let mut i = 0;
        let State { open, lease_log, backup_candidates, stats, .. } = s;
        while given < max && i < backup_candidates.len() {
            let id = backup_candidates[i];
            let Some(entry) = open.get_mut(&id) else {
                backup_candidates.remove(i);
                continue;
            };
            if entry.leases.is_empty() || entry.leases.len() >= MAX_COPIES {
                backup_candidates.remove(i);
                continue;
            }
            if entry.leases.iter().any(|l| l.worker == worker) {
                i += 1;
                continue;
            }
            let seq = lease_log.entry(worker).or_default().grant(now, id);
            entry.leases.push(Lease { worker, since: now, seq });
            if !entry.holders.contains(&worker) {
                entry.holders.push(worker);
            }
            out.push((id, Arc::clone(&entry.task)));
            backup_candidates.remove(i);
            stats.backups += 1;
            given += 1;
        }
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
            // Also with an empty queue: the worker may take a backup copy of a straggling task.
            let now = self.now();
            let leased = self.lease_locked(&mut s, worker, max, now);
            if !leased.is_empty() {
                return leased;
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

    /// Extends `worker`'s leases (a heartbeat): each lapses `lease_time` from now at the
    /// earliest. Recorded once per worker rather than written into each lease, so a heartbeat
    /// costs the same however many tasks are open (with 10 000 workers beating every second,
    /// visiting every open task's leases was most of the master's time).
    pub fn renew(&self, worker: WorkerId) {
        let mut s = self.lock();
        let now = self.now();
        if let Some(w) = s.workers.get_mut(&worker) {
            w.last_seen = now;
        }
        s.renewed.insert(worker, now);
    }

    /// Records outcomes, in order, under one lock and one reading of the clock. `check` is asked
    /// first, for each outcome whose task is still open, whether the outcome fits the task: the
    /// first it refuses stops the recording, and its error is returned with what became of the
    /// outcomes before it (the refused one and those after it change nothing).
    pub fn record<E>(
        &self,
        outcomes: impl IntoIterator<Item = Delivery>,
        mut check: impl FnMut(TaskId, &Task, &TaskResult) -> Result<(), E>,
    ) -> (Vec<Completion>, Option<E>) {
        let outcomes = outcomes.into_iter();
        let mut completions = Vec::with_capacity(outcomes.size_hint().0);
        let mut finished: SmallVec<[Entry; 8]> = SmallVec::new();
        let mut refused = None;
        let mut s = self.lock();
        let now = self.now();
        for Delivery { worker, id, outcome } in outcomes {
            if let Some(entry) = s.open.get(&id)
                && let Err(e) = check(id, &entry.task, &outcome)
            {
                refused = Some(e);
                break;
            }
            let (completion, entry) = self.complete_locked(&mut s, worker, id, outcome, now);
            completions.push(completion);
            finished.extend(entry);
        }
        self.release(s, finished);
        (completions, refused)
    }

    /// Releases the lock after outcomes were recorded, then drops what they freed (tasks, leases:
    /// off the lock) and wakes the collects if one's last outcome came.
    fn release(&self, mut s: MutexGuard<'_, State>, freed: impl Sized) {
        let last = std::mem::take(&mut s.awaited.finished_one);
        drop(s);
        drop(freed);
        if last {
            self.outcomes.notify_all();
        }
    }

    /// Records an outcome; returns what happened to it and, if accepted, the task's entry, for
    /// the caller to drop once the lock is released (its task and leases freed off the lock).
    fn complete_locked(
        &self,
        s: &mut State,
        worker: WorkerId,
        id: TaskId,
        outcome: TaskResult,
        now: Instant,
    ) -> (Completion, Option<Entry>) {
        let registered = s.workers.contains_key(&worker);
        if let Some(entry) = s.open.get(&id)
            && registered
            && !entry.holders.contains(&worker)
        {
            s.stats.not_leased += 1;
            return (Completion::NotLeased, None);
        }
        let Some(entry) = s.open.remove(&id) else {
            let verdict = if s.finished.contains(&id) || s.finished_before.contains(&id) || s.done.contains_key(&id) {
                s.stats.duplicates += 1;
                Completion::Duplicate
            } else {
                s.stats.unknown += 1;
                Completion::Unknown
            };
            return (verdict, None);
        };
        if !entry.leases.is_empty() {
            s.in_flight -= 1;
        }
        // The task's time is from this worker's lease (a late outcome of an expired lease has
        // none, and an outcome on behalf of nobody after a restart neither: no time recorded).
        let took = entry.leases.iter().find(|l| l.worker == worker).map(|l| now.saturating_duration_since(l.since));
        for lease in &entry.leases {
            State::ended(&mut s.lease_log, lease);
        }
        if let Some(took) = took {
            s.batch_durations.push(took);
        }
        if outcome.is_err() {
            s.stats.failed += 1;
        }
        s.done.insert(id, outcome);
        s.finished.insert(id);
        s.awaited.arrived(id);
        s.stats.completed += 1;
        if let Some(w) = s.workers.get_mut(&worker) {
            w.completed += 1;
            w.busy += took.unwrap_or_default();
            w.last_seen = now;
        }
        s.stats.in_flight = s.in_flight;
        (Completion::Accepted, Some(entry))
    }

    /// Puts tasks whose every lease has passed its deadline back in the queue.
    pub fn expire_leases(&self) {
        let mut s = self.lock();
        let now = self.now();
        let mut expired = Vec::new();
        let State { open, renewed, lease_log, .. } = &mut *s;
        // The later of when a lease was granted and its worker's last renewal, plus the lease
        // time: a lease lapses at `now` if both are at or before `now - lease_time`.
        let Some(cutoff) = now.checked_sub(self.lease_time) else { return };
        let lapsed = |l: &Lease| l.since <= cutoff && renewed.get(&l.worker).is_none_or(|&at| at <= cutoff);
        // Only the tasks of lapsed leases can expire, and a worker's lapsed leases are the
        // first of its log (granted in order, renewed together): read those alone rather than
        // every open task, which held the lock for tens of milliseconds a tenth of a second at
        // a million tasks open.
        let mut candidates: Vec<TaskId> = lease_log
            .iter()
            .filter(|(w, _)| renewed.get(w).is_none_or(|&at| at <= cutoff))
            .flat_map(|(_, log)| log.granted_up_to(cutoff))
            .collect();
        candidates.sort_unstable();
        candidates.dedup();
        for id in candidates {
            let Some(entry) = open.get_mut(&id) else { continue };
            if !entry.leases.is_empty() && entry.leases.iter().all(lapsed) {
                // The task stays open: if the late worker still delivers first, its outcome counts.
                for lease in entry.leases.drain(..) {
                    State::ended(lease_log, &lease);
                }
                expired.push(id);
            }
        }
        expired.sort_unstable();
        s.in_flight -= expired.len();
        s.stats.in_flight = s.in_flight;
        s.stats.re_leased += expired.len() as u64;
        let count = expired.len();
        s.queue.extend(expired);
        s.stats.queued = s.queue.len();
        drop(s);
        self.work.notify_all();
        // Called every tenth of a second by `collect`: the service's waiting calls wake only if
        // there is something to lease.
        self.announce(count);
    }

    /// Waits until every task in `ids` has an outcome and takes them, in the order of `ids`.
    /// Returns `None` if `stop()` becomes true first (checked about every 100 ms). A failed task
    /// is an `Err` with its [`TaskFailure`]. `tick` is called about every 100 ms with the number of tasks
    /// done (for progress bars).
    pub fn collect(
        &self,
        ids: &[TaskId],
        stop: impl Fn() -> bool,
        mut tick: impl FnMut(usize),
    ) -> Option<Vec<TaskResult>> {
        let me = {
            let mut s = self.lock();
            let State { awaited, done, .. } = &mut *s;
            awaited.begin(ids, |id| done.contains_key(id))
        };
        loop {
            let done = {
                let mut s = self.lock();
                // The count says when to look; the look is what decides (an id another collect
                // also waits for is counted as the later one's).
                if s.awaited.left(me) == 0 && ids.iter().all(|id| s.done.contains_key(id)) {
                    s.awaited.end(me, ids);
                    return Some(ids.iter().filter_map(|id| s.done.remove(id)).collect());
                }
                if stop() {
                    s.awaited.end(me, ids);
                    return None;
                }
                // Woken by the last outcome of a collect (maybe this one) or after 100 ms.
                s = match self.outcomes.wait_timeout(s, Duration::from_millis(100)) {
                    Ok((guard, _)) => guard,
                    Err(poisoned) => poisoned.into_inner().0,
                };
                ids.len() - s.awaited.left(me)
            };
            // Outside the lock: the callback may ask the scheduler for its stats.
            tick(done);
            self.expire_leases();
        }
    }

    /// Current counters. Counting stragglers looks at each worker's oldest open lease (none
    /// before a task of the batch completed): call it a few times a second, not per task.
    pub fn stats(&self) -> SchedulerStats {
        let s = self.lock();
        let (median, now) = (s.median(), self.now());
        let straggles = |since: Instant| is_straggler(now.saturating_duration_since(since), median);
        let stragglers = s.workers.keys().filter(|&&w| s.oldest_lease(w).is_some_and(straggles)).count();
        SchedulerStats { stragglers, ..s.stats.clone() }
    }

    /// Current workers, by id, with their oldest lease and straggler state at this moment.
    pub fn workers(&self) -> Vec<(WorkerId, WorkerInfo)> {
        let s = self.lock();
        let median = s.median();
        let oldest = s.oldest_leases(self.now());
        let mut w: Vec<_> = s
            .workers
            .iter()
            .map(|(id, info)| {
                let age = oldest.get(id).copied();
                let straggler = age.is_some_and(|a| is_straggler(a, median));
                (*id, WorkerInfo { oldest_lease: age, straggler, ..info.clone() })
            })
            .collect();
        w.sort_by_key(|(id, _)| *id);
        w
    }

    /// Wakes every waiting worker and makes further waits return at once.
    pub fn close(&self) {
        self.closed.store(true, Ordering::Release);
        self.work.notify_all();
        self.work_arrived.notify_waiters();
        self.outcomes.notify_all();
    }

    /// Whether [`Scheduler::close`] was called.
    pub fn is_closed(&self) -> bool {
        self.closed.load(Ordering::Acquire)
    }
}

#[cfg(test)]
mod tests;
