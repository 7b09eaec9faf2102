//! The one path work takes from the master to workers and back: the master submits tasks under
//! ids it chooses (fixed by the generation and the task's place in it, so an outcome stays valid
//! across a master restart); workers, embedded and remote alike, *lease* them and send back
//! outcomes, which the master collects by id. A lease past its deadline, or held by a worker that
//! left, goes back to the queue; the first outcome wins. With the queue empty, a worker asking
//! for work gets backup copies of stragglers' tasks (as in MapReduce), so a dead or slow worker
//! costs the straggler threshold, not the lease time.
//!
//! Helpers: `state` (leasing and recording under the lock), `verify` and `quarantine`
//! (verification by replay of remote outcomes, and liars), `claims` (reported failures),
//! `lease_log` (each worker's leases in order), `awaited` (what collects wait for),
//! `median` (the batch's median task time), `id_hash` (the ids' hasher), `embedded` (threads).

use loa_engine::tasks::{Task, TaskFailure, TaskResult};
use smallvec::SmallVec;
use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

mod awaited;
mod claims;
mod embedded;
mod id_hash;
mod lease_log;
mod median;
mod quarantine;
mod state;
mod verify;

pub use embedded::spawn_embedded_workers;
use id_hash::IdHash;
use lease_log::LeaseLog;
use median::SampledMedian;
pub use quarantine::Quarantined;
use state::end_leases;
pub use verify::{VerifyRate, VerifyRateError, sampled};

/// A task's id, unique within a run.
pub type TaskId = u64;
/// A worker's id, unique within the master's lifetime.
pub type WorkerId = u64;
/// A task leased to a worker, with its id.
pub type Leased = (TaskId, Arc<Task>);

/// An outcome for [`Scheduler::record`]: who delivers it, for which task, and what it is.
pub struct Delivery {
    /// The worker the task was leased to (its outcome is refused unless it is registered).
    pub worker: WorkerId,
    /// The task the outcome is for.
    pub id: TaskId,
    /// Its outcome, or why it could not be played.
    pub outcome: TaskResult,
}

/// The check [`Scheduler::record`] is given for outcomes played from the scheduler's own task.
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
    /// The sender is a registered worker that never held a lease on this task: dropped.
    NotLeased,
    /// The sender is no registered worker (dropped, or registered with an earlier master
    /// process), so it holds no lease: dropped, lest a forged or stale failure end the run.
    Unregistered,
    /// A failure a remote worker reported ([`Scheduler::claim_failure`]): not recorded, the
    /// sender's lease ends and the task goes to another worker.
    Claimed {
        /// Whether this is the task's first such report, which the caller checks by playing
        /// the task itself ([`Scheduler::settle`]).
        replay: bool,
    },
}

/// Most leases a task has at once: its lease and one backup copy.
const MAX_COPIES: usize = 2;
/// How often the open tasks are scanned for backup candidates, so idle workers asking at the
/// tail of a batch do not each scan every open task.
const BACKUP_SCAN: Duration = Duration::from_millis(100);
/// A worker is a straggler when its oldest lease is older than this many median task times of
/// the batch (the tasks completed since the last submit)...
const STRAGGLER_FACTOR: u32 = 3;
/// ...and older than this, so that millisecond tasks do not flag every worker that blinks.
const STRAGGLER_FLOOR: Duration = Duration::from_secs(1);

/// Whether a worker whose oldest open lease is `age` old is a straggler (`median` `None`: nothing
/// completed yet, so no judgement).
fn is_straggler(age: Duration, median: Option<Duration>) -> bool {
    median.is_some_and(|m| age > (m * STRAGGLER_FACTOR).max(STRAGGLER_FLOOR))
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
    /// Backup copies of straggling tasks given to idle workers.
    pub backups: u64,
    /// Outcomes dropped because the task already had one.
    pub duplicates: u64,
    /// Outcomes dropped because the task was unknown.
    pub unknown: u64,
    /// Outcomes refused because the sender never held a lease on the task (or is no registered
    /// worker).
    pub not_leased: u64,
    /// Failed tasks (a worker could not play them).
    pub failed: u64,
    /// Workers currently registered.
    pub workers: usize,
    /// Registered workers that are stragglers.
    pub stragglers: usize,
    /// Held remote outcomes a second player confirmed.
    pub verified: u64,
    /// Held remote outcomes a second player contradicted (the master then plays the task).
    pub mismatches: u64,
    /// Workers quarantined as liars.
    pub quarantined: u64,
    /// Outcomes of liars played again in place (the batch being collected).
    pub replayed: u64,
    /// Times the run went back to an earlier state, past a liar's unverified outcomes.
    pub rollbacks: u64,
}

/// One lease of a task: it lapses `lease_time` after `since` or its worker's last renewal.
#[derive(Clone, Copy)]
struct Lease {
    worker: WorkerId,
    since: Instant,
    /// Its number in its worker's [`LeaseLog`].
    seq: u64,
}

struct Entry {
    task: Arc<Task>,
    /// Current leases: a task may be played by two workers; the first outcome wins.
    leases: SmallVec<[Lease; MAX_COPIES]>,
    /// Every worker that ever held a lease on it (a lapsed lease's late outcome still counts).
    holders: SmallVec<[WorkerId; 2]>,
    /// The workers that reported it failed, which it is never leased to again (see
    /// [`Completion::Claimed`]); the first report has the master check it.
    failed_by: SmallVec<[WorkerId; 1]>,
    /// A remote worker's outcome held for a second opinion (see `verify`).
    check: Option<Box<verify::Check>>,
}

impl Entry {
    fn new(task: Arc<Task>) -> Entry {
        Entry { task, leases: SmallVec::new(), holders: SmallVec::new(), failed_by: SmallVec::new(), check: None }
    }

    /// Whether it is leased and may take one more copy.
    fn may_copy(&self) -> bool {
        !self.leases.is_empty() && self.leases.len() < MAX_COPIES
    }

    /// Leases it to `worker` at `now`, logged in `log`.
    fn lease(&mut self, id: TaskId, worker: WorkerId, log: &mut LeaseLog, now: Instant) -> Leased {
        self.leases.push(Lease { worker, since: now, seq: log.grant(now, id) });
        if !self.holders.contains(&worker) {
            self.holders.push(worker);
        }
        (id, Arc::clone(&self.task))
    }
}

/// A registered worker, as the scheduler keeps it.
struct Worker {
    info: WorkerInfo,
    /// Backup copies it takes a call: the tasks it plays at once.
    slots: usize,
    /// When it last renewed its leases (a heartbeat).
    renewed: Option<Instant>,
    /// Its leases in the order granted.
    log: LeaseLog,
    /// Whether it is a thread of the master (remote workers are verified).
    trusted: bool,
    /// The name a remote worker gave, which a quarantine bans.
    key: Option<String>,
    /// Its outcomes since its last verified one.
    trail: verify::Trail,
    /// The address a remote worker connected from: a second copy of a held task goes to a
    /// worker from elsewhere when there is one.
    address: Option<std::net::IpAddr>,
}

#[derive(Default)]
struct State {
    queue: VecDeque<TaskId>,
    open: HashMap<TaskId, Entry, IdHash>,
    done: HashMap<TaskId, TaskResult, IdHash>,
    /// Ids accepted since the last submit, and in the step before, to tell a late duplicate from
    /// an unknown id without a set that grows with the run.
    finished: HashSet<TaskId, IdHash>,
    finished_before: HashSet<TaskId, IdHash>,
    workers: HashMap<WorkerId, Worker, IdHash>,
    next_worker: WorkerId,
    /// Task times of the current batch, sampled.
    batch_durations: SampledMedian,
    /// Open tasks that may get a backup copy, oldest lease first, from the last scan.
    backup_candidates: VecDeque<TaskId>,
    /// When the open tasks may be scanned for backup candidates again.
    backup_scan_at: Option<Instant>,
    /// The counters; `queued`, `workers` and `stragglers` are filled in when asked.
    stats: SchedulerStats,
    /// What the waiting collects wait for.
    awaited: awaited::Awaited,
    /// Verification by replay of remote workers' outcomes.
    verifier: verify::Verifier,
    /// How many registered workers connected from each address.
    addresses: HashMap<std::net::IpAddr, usize>,
}

/// Lets a table its removals emptied take the next step's entries in the memory it has: the
/// removals' tombstones would make the next `reserve` move it to new memory, whose pages then
/// fault in under the lock. `clear` resets them, but skips an empty table: one placeholder first.
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
    /// Its outcomes a second player (or the master) confirmed.
    pub verified: u64,
    /// When it registered.
    pub registered: Instant,
    /// The age of its oldest open lease at the snapshot (`None`: holds no lease).
    pub oldest_lease: Option<Duration>,
    /// Whether it is a straggler at the snapshot.
    pub straggler: bool,
}

/// The task queue shared by the master and its workers.
pub struct Scheduler {
    state: Mutex<State>,
    /// Signalled when tasks are queued or the scheduler closes.
    work: Condvar,
    /// Notified once per task queued or expired, and for every waiter on close: what wakes the
    /// gRPC service's streams, which wait on the async runtime and must not block a runtime thread
    /// on a condition variable.
    pub work_arrived: tokio::sync::Notify,
    /// Signalled when a collect's last outcome arrives.
    outcomes: Condvar,
    lease_time: Duration,
    closed: AtomicBool,
    /// Whether the run is over for good, not stopped to be resumed: what tells remote workers
    /// to leave rather than wait for the master to come back.
    over: AtomicBool,
    /// Where it reads the time: the real clock, or a controlled one in tests.
    clock: Box<dyn Fn() -> Instant + Send + Sync>,
    /// How the master plays a task itself, to settle a verification.
    referee: fn(&Task) -> TaskResult,
    /// Whether a rollback waits to be taken: read without the lock, so that a collect's `stop`
    /// may ask.
    rollback: AtomicBool,
}

impl Scheduler {
    /// A scheduler whose leases last `lease_time` unless renewed.
    pub fn new(lease_time: Duration) -> Scheduler {
        Scheduler::with_clock(lease_time, Instant::now)
    }

    /// A scheduler that reads the time from `clock` for its bookkeeping, so tests can move time
    /// on without sleeping. Waits still use real time.
    pub fn with_clock(lease_time: Duration, clock: impl Fn() -> Instant + Send + Sync + 'static) -> Scheduler {
        Scheduler {
            state: Mutex::new(State::default()),
            work: Condvar::new(),
            work_arrived: tokio::sync::Notify::new(),
            outcomes: Condvar::new(),
            lease_time,
            closed: AtomicBool::new(false),
            over: AtomicBool::new(false),
            clock: Box::new(clock),
            referee: |t| t.run().map_err(TaskFailure::Invalid),
            rollback: AtomicBool::new(false),
        }
    }

    fn now(&self) -> Instant {
        (self.clock)()
    }

    /// Wakes the embedded workers and up to `tasks` waiting streams, not all of them: between
    /// generations every worker waits, and waking them all for a few tasks costs more than the tasks.
    fn wake(&self, tasks: usize) {
        self.work.notify_all();
        for _ in 0..tasks {
            self.work_arrived.notify_one();
        }
    }

    /// Puts `ids`, whose last lease ended, back in the queue (at its front with `front`).
    fn requeue(&self, mut s: MutexGuard<'_, State>, ids: Vec<TaskId>, front: bool) {
        let count = ids.len();
        s.stats.in_flight -= count;
        s.stats.re_leased += count as u64;
        if front {
            ids.into_iter().rev().for_each(|id| s.queue.push_front(id));
        } else {
            s.queue.extend(ids);
        }
        drop(s);
        self.wake(count);
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // Every update is one step, so a lock a panic poisoned holds consistent data.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Registers a worker that plays `slots` tasks at once and returns its id.
    /// Registered workers are trusted (threads of the master); see
    /// [`Scheduler::register_remote`] for the others.
    pub fn register(&self, name: String, slots: usize) -> WorkerId {
        let now = self.now();
        self.lock().add_worker(name, slots, now)
    }

    /// Removes a worker; its leases go back to the front of the queue (unless another worker
    /// holds a copy). Returns what was known of it, if it was registered.
    pub fn unregister(&self, worker: WorkerId) -> Option<WorkerInfo> {
        let mut s = self.lock();
        let removed = s.workers.remove(&worker);
        if let Some(address) = removed.as_ref().and_then(|w| w.address)
            && let Some(n) = s.addresses.get_mut(&address)
        {
            *n -= 1;
            if *n == 0 {
                s.addresses.remove(&address);
            }
        }
        let info = removed.map(|w| w.info);
        let mut returned = Vec::new();
        for (&id, entry) in s.open.iter_mut() {
            let before = entry.leases.len();
            entry.leases.retain(|l| l.worker != worker);
            if entry.leases.is_empty() && before > 0 {
                returned.push(id);
            }
        }
        returned.sort_unstable();
        self.requeue(s, returned, true);
        info
    }

    /// Queues tasks under the given ids (ids of tasks already open are ignored).
    pub fn submit(&self, tasks: Vec<(TaskId, Task)>) {
        let mut s = self.lock();
        // A new batch: the previous one's task times say nothing about these tasks.
        s.batch_durations.clear();
        // The set of two steps ago, emptied, takes this step's ids in the memory it has.
        let State { finished, finished_before, .. } = &mut *s;
        std::mem::swap(finished, finished_before);
        finished.clear();
        reuse_emptied(&mut s.done, || Err(TaskFailure::Reported(String::new())));
        if let Some((_, task)) = tasks.first() {
            reuse_emptied(&mut s.open, || Entry::new(Arc::new(task.clone())));
        }
        // Room for the whole step now, rather than tables grown under the lock as outcomes come.
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
            s.open.insert(id, Entry::new(Arc::new(task)));
            s.queue.push_back(id);
        }
        let queued = s.queue.len() - queued_before;
        drop(s);
        self.wake(queued);
    }

    /// The open task `id`, if any.
    pub fn task(&self, id: TaskId) -> Option<Arc<Task>> {
        self.lock().open.get(&id).map(|e| Arc::clone(&e.task))
    }

    /// Leases up to `max` queued tasks to `worker`, or with the queue empty backup copies; none
    /// to a worker that is not registered.
    pub fn lease(&self, worker: WorkerId, max: usize) -> Vec<Leased> {
        self.lock().lease(worker, max, self.now())
    }

    /// Leases up to `max` tasks, waiting up to `timeout` for one to be queued. Returns an empty
    /// list on timeout or when the scheduler is closed.
    pub fn lease_wait(&self, worker: WorkerId, max: usize, timeout: Duration) -> Vec<Leased> {
        let deadline = Instant::now() + timeout;
        let mut s = self.lock();
        loop {
            if self.is_closed() {
                return Vec::new();
            }
            let leased = s.lease(worker, max, self.now());
            let left = deadline.saturating_duration_since(Instant::now());
            if !leased.is_empty() || left.is_zero() {
                return leased;
            }
            s = self.work.wait_timeout(s, left).unwrap_or_else(PoisonError::into_inner).0;
        }
    }

    /// Extends `worker`'s leases (a heartbeat): recorded once per worker, not in each lease, so
    /// a heartbeat costs the same however many tasks are open.
    pub fn renew(&self, worker: WorkerId) {
        if let Some(w) = self.lock().workers.get_mut(&worker) {
            w.renewed = Some(self.now());
        }
    }

    /// Records outcomes, in order, under one lock. `check` is asked first whether an outcome fits
    /// its open task: the first it refuses stops the recording (it and those after it change
    /// nothing), and its error is returned with what became of the outcomes before it.
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
        for delivery in outcomes {
            if let Some(entry) = s.open.get(&delivery.id)
                && let Err(e) = check(delivery.id, &entry.task, &delivery.outcome)
            {
                refused = Some(e);
                break;
            }
            let (completion, entry) = s.complete(delivery, now);
            completions.push(completion);
            finished.extend(entry);
        }
        let last = std::mem::take(&mut s.awaited.finished_one);
        let queued = std::mem::take(&mut s.verifier.queued);
        if s.verifier.rollback.is_some() {
            self.rollback.store(true, Ordering::Release);
        }
        drop(s);
        // The tasks and leases freed, off the lock; then the collect whose last outcome came.
        drop(finished);
        if last {
            self.outcomes.notify_all();
        }
        if queued > 0 {
            self.wake(queued);
        }
        (completions, refused)
    }

    /// Puts tasks whose every lease has passed its deadline back in the queue.
    pub fn expire_leases(&self) {
        let mut s = self.lock();
        let now = self.now();
        let Some(cutoff) = now.checked_sub(self.lease_time) else { return };
        let State { open, workers, .. } = &mut *s;
        // A lapsed lease was granted, and its worker last renewed, by the cutoff: those are the
        // first of their worker's log, read alone rather than every open task.
        let stale = |w: &Worker| w.renewed.is_none_or(|at| at <= cutoff);
        let mut candidates: Vec<TaskId> =
            workers.values().filter(|w| stale(w)).flat_map(|w| w.log.granted_up_to(cutoff)).collect();
        candidates.sort_unstable();
        candidates.dedup();
        let mut expired = Vec::new();
        for id in candidates {
            let Some(entry) = open.get_mut(&id) else { continue };
            let lapsed = |l: &Lease| l.since <= cutoff && workers.get(&l.worker).is_none_or(stale);
            if !entry.leases.is_empty() && entry.leases.iter().all(lapsed) {
                // The task stays open: if the late worker still delivers first, its outcome counts.
                end_leases(workers, &entry.leases);
                entry.leases.clear();
                expired.push(id);
            }
        }
        self.requeue(s, expired, false);
    }

    /// Waits until every task in `ids` has an outcome and takes them, in the order of `ids` (a
    /// failed task is an `Err`). Returns `None` if `stop()` becomes true first. About every
    /// 100 ms it checks `stop`, calls `tick` with the number of tasks done and expires leases.
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
        // The master's own plays that settle verifications run on threads of this scope, at
        // most one a core; a stop waits for those under way.
        let referees = std::thread::available_parallelism().map_or(1, |n| n.get());
        let playing = std::sync::atomic::AtomicUsize::new(0);
        std::thread::scope(|scope| {
            loop {
                let (done, plays) = {
                    let mut s = self.lock();
                    // The count says when to look; the look decides (an id another collect also
                    // waits for is counted as the later one's).
                    if s.awaited.left(me) == 0 && ids.iter().all(|id| s.done.contains_key(id)) {
                        s.awaited.end(me, ids);
                        s.verifier.committed_through = ids.iter().copied().max();
                        let State { done, verifier, .. } = &mut *s;
                        return Some(
                            ids.iter()
                                .filter_map(|id| {
                                    verifier.delivered.remove(id);
                                    done.remove(id)
                                })
                                .collect(),
                        );
                    }
                    if stop() {
                        s.awaited.end(me, ids);
                        return None;
                    }
                    s = self
                        .outcomes
                        .wait_timeout(s, Duration::from_millis(100))
                        .unwrap_or_else(PoisonError::into_inner)
                        .0;
                    let now = self.now();
                    s.refer_orphans(now);
                    let room = referees.saturating_sub(playing.load(Ordering::Acquire));
                    let State { verifier, open, .. } = &mut *s;
                    let take = room.min(verifier.referred.len());
                    let plays: Vec<(TaskId, Arc<Task>)> = verifier
                        .referred
                        .drain(..take)
                        .filter_map(|id| open.get(&id).map(|e| (id, Arc::clone(&e.task))))
                        .collect();
                    (ids.len() - s.awaited.left(me), plays)
                };
                for (id, task) in plays {
                    playing.fetch_add(1, Ordering::AcqRel);
                    let playing = &playing;
                    scope.spawn(move || {
                        let outcome = loa_engine::tasks::play_caught(&task, self.referee);
                        self.settle(id, outcome);
                        playing.fetch_sub(1, Ordering::AcqRel);
                    });
                }
                // Outside the lock: the callback may ask for the stats.
                tick(done);
                self.expire_leases();
            }
        })
    }

    /// Current counters (stragglers counted over every worker: not a call to make per task).
    pub fn stats(&self) -> SchedulerStats {
        let s = self.lock();
        let (median, now) = (s.batch_durations.median(), self.now());
        let straggles = |since: Instant| is_straggler(now.saturating_duration_since(since), median);
        let stragglers = s.workers.values().filter(|w| w.log.oldest().is_some_and(straggles)).count();
        SchedulerStats { queued: s.queue.len(), workers: s.workers.len(), stragglers, ..s.stats.clone() }
    }

    /// Current workers, by id, with their oldest lease and straggler state at this moment.
    pub fn workers(&self) -> Vec<(WorkerId, WorkerInfo)> {
        let s = self.lock();
        let (median, now) = (s.batch_durations.median(), self.now());
        let mut workers: Vec<_> = s
            .workers
            .iter()
            .map(|(&id, w)| {
                let age = w.log.oldest().map(|since| now.saturating_duration_since(since));
                let straggler = age.is_some_and(|a| is_straggler(a, median));
                (id, WorkerInfo { oldest_lease: age, straggler, ..w.info.clone() })
            })
            .collect();
        workers.sort_by_key(|(id, _)| *id);
        workers
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

    /// Marks the work as over for good (the run finished, not stopped to be resumed), then
    /// closes: remote workers are told to leave instead of waiting for a master to come back.
    pub fn close_for_good(&self) {
        self.over.store(true, Ordering::Release);
        self.close();
    }

    /// Whether [`Scheduler::close_for_good`] was called.
    pub fn is_over(&self) -> bool {
        self.over.load(Ordering::Acquire)
    }
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod verify_tests;
