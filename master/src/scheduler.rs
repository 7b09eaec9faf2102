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
//!
//! Per worker it keeps tasks done, busy time (the summed lease-to-outcome time of its accepted
//! outcomes) and the age of its oldest open lease. A worker is a **straggler** when its oldest
//! open lease is older than [`STRAGGLER_FACTOR`] times the median lease-to-outcome time of the
//! tasks completed since the last [`Scheduler::submit`] (the current batch), and older than
//! [`STRAGGLER_FLOOR`]. Lease-to-outcome time includes the time a task waits in a worker's
//! lease-ahead queue, so the age and the median measure the same thing. Before any task of the
//! batch completed there is no median and no straggler.

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
    /// Registered workers that are stragglers (see the module documentation).
    pub stragglers: usize,
}

/// A worker is a straggler when its oldest lease is older than this many median task times...
pub const STRAGGLER_FACTOR: u32 = 3;
/// ...and older than this, so that millisecond tasks do not flag every worker that blinks.
pub const STRAGGLER_FLOOR: Duration = Duration::from_secs(1);

/// Whether a worker whose oldest open lease is `age` old is a straggler, given the median
/// lease-to-outcome time of the current batch (`None`: nothing completed yet, so no judgement).
pub fn is_straggler(age: Duration, median: Option<Duration>) -> bool {
    median.is_some_and(|m| age > (m * STRAGGLER_FACTOR).max(STRAGGLER_FLOOR))
}

/// One lease of a task.
struct Lease {
    worker: WorkerId,
    /// When it was granted (for task durations and lease ages).
    since: Instant,
    /// When it lapses unless renewed.
    deadline: Instant,
}

struct Entry {
    task: Arc<Task>,
    /// Current leases: a re-leased task may be played by two workers; the first outcome wins.
    leases: Vec<Lease>,
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
    /// Open tasks with at least one lease, kept up to date on every change of a task's leases
    /// (so no call has to count them by scanning every open task).
    in_flight: usize,
    /// Lease-to-outcome times of the tasks completed since the last submit (the current batch).
    batch_durations: Vec<Duration>,
    stats: SchedulerStats,
}

impl State {
    /// The median of the current batch's task times, if any completed.
    fn median(&self) -> Option<Duration> {
        if self.batch_durations.is_empty() {
            return None;
        }
        let mut d = self.batch_durations.clone();
        let mid = (d.len() - 1) / 2;
        Some(*d.select_nth_unstable(mid).1)
    }

    /// The age at `now` of each worker's oldest open lease.
    fn oldest_leases(&self, now: Instant) -> HashMap<WorkerId, Duration> {
        let mut oldest: HashMap<WorkerId, Duration> = HashMap::new();
        for lease in self.open.values().flat_map(|e| &e.leases) {
            let age = now.saturating_duration_since(lease.since);
            let slot = oldest.entry(lease.worker).or_default();
            *slot = (*slot).max(age);
        }
        oldest
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
            outcomes: Condvar::new(),
            lease_time,
            closed: AtomicBool::new(false),
            clock: Box::new(clock),
        }
    }

    fn now(&self) -> Instant {
        (self.clock)()
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

    /// Removes a worker; its leases go back to the front of the queue.
    pub fn unregister(&self, worker: WorkerId) {
        let mut s = self.lock();
        s.workers.remove(&worker);
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
        for id in returned.into_iter().rev() {
            s.queue.push_front(id);
        }
        s.stats.queued = s.queue.len();
        drop(s);
        self.work.notify_all();
    }

    /// Queues tasks under the given ids (ids of tasks already open are ignored).
    pub fn submit(&self, tasks: Vec<(TaskId, Task)>) {
        let mut s = self.lock();
        // A new batch: task times of the previous one say nothing about these tasks.
        s.batch_durations.clear();
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
        let now = self.now();
        if let Some(w) = s.workers.get_mut(&worker) {
            w.last_seen = now;
        }
        let mut out = Vec::new();
        let mut newly_in_flight = 0;
        while out.len() < max {
            let Some(id) = s.queue.pop_front() else { break };
            // Skip ids that finished while queued (a re-leased task whose first lease delivered).
            if let Some(entry) = s.open.get_mut(&id) {
                if entry.leases.is_empty() {
                    newly_in_flight += 1;
                }
                entry.leases.push(Lease { worker, since: now, deadline: now + self.lease_time });
                out.push((id, Arc::clone(&entry.task)));
            }
        }
        s.in_flight += newly_in_flight;
        s.stats.queued = s.queue.len();
        s.stats.in_flight = s.in_flight;
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
        let now = self.now();
        let deadline = now + self.lease_time;
        if let Some(w) = s.workers.get_mut(&worker) {
            w.last_seen = now;
        }
        for entry in s.open.values_mut() {
            for lease in entry.leases.iter_mut().filter(|l| l.worker == worker) {
                lease.deadline = deadline;
            }
        }
    }

    /// Records an outcome (or a failure message) for task `id` from `worker`.
    pub fn complete(&self, worker: WorkerId, id: TaskId, outcome: Result<TaskOutcome, String>) -> Completion {
        let mut s = self.lock();
        let Some(entry) = s.open.remove(&id) else {
            let verdict = if s.finished.contains(&id) || s.done.contains_key(&id) {
                s.stats.duplicates += 1;
                Completion::Duplicate
            } else {
                s.stats.unknown += 1;
                Completion::Unknown
            };
            return verdict;
        };
        let now = self.now();
        if !entry.leases.is_empty() {
            s.in_flight -= 1;
        }
        // The task's time is from this worker's lease (a late outcome of an expired lease has
        // none, and an outcome on behalf of nobody after a restart neither: no time recorded).
        let took = entry.leases.iter().find(|l| l.worker == worker).map(|l| now.saturating_duration_since(l.since));
        if let Some(took) = took {
            s.batch_durations.push(took);
        }
        if outcome.is_err() {
            s.stats.failed += 1;
        }
        s.done.insert(id, outcome);
        s.finished.insert(id);
        s.stats.completed += 1;
        if let Some(w) = s.workers.get_mut(&worker) {
            w.completed += 1;
            w.busy += took.unwrap_or_default();
            w.last_seen = now;
        }
        s.stats.in_flight = s.in_flight;
        drop(s);
        self.outcomes.notify_all();
        Completion::Accepted
    }

    /// Puts tasks whose every lease has passed its deadline back in the queue.
    pub fn expire_leases(&self) {
        let mut s = self.lock();
        let now = self.now();
        let mut expired = Vec::new();
        for (&id, entry) in s.open.iter_mut() {
            if !entry.leases.is_empty() && entry.leases.iter().all(|l| l.deadline <= now) {
                // The task stays open: if the late worker still delivers first, its outcome counts.
                entry.leases.clear();
                expired.push(id);
            }
        }
        expired.sort_unstable();
        s.in_flight -= expired.len();
        s.stats.in_flight = s.in_flight;
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

    /// Current counters. Counting stragglers looks at every open lease: call it a few times a
    /// second, not per task.
    pub fn stats(&self) -> SchedulerStats {
        let s = self.lock();
        let median = s.median();
        let oldest = s.oldest_leases(self.now());
        let stragglers =
            s.workers.keys().filter(|w| oldest.get(w).is_some_and(|age| is_straggler(*age, median))).count();
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

#[cfg(test)]
mod tests {
    use super::*;
    use loa_engine::tasks::TournamentTask;
    use std::sync::atomic::AtomicU64;

    /// A scheduler on a clock that only moves when the test says so.
    fn manual(lease_time: Duration) -> (Scheduler, Arc<AtomicU64>) {
        let base = Instant::now();
        let millis = Arc::new(AtomicU64::new(0));
        let clock = Arc::clone(&millis);
        let scheduler =
            Scheduler::with_clock(lease_time, move || base + Duration::from_millis(clock.load(Ordering::SeqCst)));
        (scheduler, millis)
    }

    fn advance(clock: &AtomicU64, millis: u64) {
        clock.fetch_add(millis, Ordering::SeqCst);
    }

    /// Tasks that are never played: the scheduler only moves them around.
    fn tasks(ids: std::ops::Range<TaskId>) -> Vec<(TaskId, Task)> {
        let task = TournamentTask { entrants: Vec::new(), rules: Default::default(), depth: 1, seed: 0 };
        ids.map(|id| (id, Task::Tournament(task.clone()))).collect()
    }

    fn ids(leased: &[(TaskId, Arc<Task>)]) -> Vec<TaskId> {
        leased.iter().map(|(id, _)| *id).collect()
    }

    /// What `in_flight` should be, counted the slow way.
    fn counted(s: &Scheduler) -> usize {
        s.lock().open.values().filter(|e| !e.leases.is_empty()).count()
    }

    #[test]
    fn in_flight_stays_right_through_lease_complete_expire_and_unregister() {
        let (s, clock) = manual(Duration::from_secs(10));
        let (a, b) = (s.register("a".into()), s.register("b".into()));
        s.submit(tasks(0..5));
        let check = |expected: usize| {
            assert_eq!(s.stats().in_flight, expected);
            assert_eq!(counted(&s), expected);
        };
        check(0);
        assert_eq!(ids(&s.lease(a, 3)), [0, 1, 2]);
        check(3);
        assert_eq!(ids(&s.lease(b, 2)), [3, 4]);
        check(5);
        assert_eq!(s.complete(a, 0, Err("x".into())), Completion::Accepted);
        check(4);
        assert_eq!(s.complete(b, 0, Err("x".into())), Completion::Duplicate);
        check(4);
        // b renews, a does not: only a's two leases lapse.
        advance(&clock, 6_000);
        s.renew(b);
        advance(&clock, 5_000);
        s.expire_leases();
        check(2);
        assert_eq!(s.stats().re_leased, 2);
        // Task 1 is now leased by b; a's late outcome for it still counts and clears it.
        assert_eq!(ids(&s.lease(b, 1)), [1]);
        check(3);
        assert_eq!(s.complete(a, 1, Err("late".into())), Completion::Accepted);
        check(2);
        s.unregister(b);
        check(0);
        assert_eq!(s.stats().queued, 3);
        assert_eq!(ids(&s.lease(a, 10)), [3, 4, 2]);
        check(3);
        for id in [2, 3, 4] {
            s.complete(a, id, Err("x".into()));
        }
        check(0);
        assert_eq!(s.stats().completed, 5);
    }

    #[test]
    fn per_worker_counts_and_busy_time() {
        let (s, clock) = manual(Duration::from_secs(60));
        let (a, b) = (s.register("a".into()), s.register("b".into()));
        s.submit(tasks(0..5));
        s.lease(a, 2);
        s.lease(b, 1);
        advance(&clock, 100);
        s.complete(a, 0, Err("x".into()));
        advance(&clock, 200);
        s.complete(a, 1, Err("x".into()));
        s.complete(b, 2, Err("x".into()));
        // An outcome from nobody (e.g. leased before a master restart) counts for no worker.
        s.complete(WorkerId::MAX, 3, Err("x".into()));
        let w = s.workers();
        assert_eq!((w[0].1.name.as_str(), w[0].1.completed), ("a", 2));
        assert_eq!(w[0].1.busy, Duration::from_millis(100 + 300));
        assert_eq!((w[1].1.name.as_str(), w[1].1.completed, w[1].1.busy), ("b", 1, Duration::from_millis(300)));
        assert_eq!(s.stats().completed, 4);
        // b holds task 4 from now on: its oldest lease ages with the clock.
        assert_eq!(w[1].1.oldest_lease, None);
        s.lease(b, 1);
        advance(&clock, 50);
        assert_eq!(s.workers()[1].1.oldest_lease, Some(Duration::from_millis(50)));
        assert_eq!(s.workers()[0].1.oldest_lease, None);
    }

    #[test]
    fn a_worker_is_a_straggler_past_three_medians_of_the_batch() {
        let (s, clock) = manual(Duration::from_secs(600));
        let (fast, slow) = (s.register("fast".into()), s.register("slow".into()));
        s.submit(tasks(0..4));
        s.lease(slow, 1);
        // Nothing completed: no median, no straggler however old the lease.
        advance(&clock, 30_000);
        assert_eq!(s.stats().stragglers, 0);
        // The fast worker does three tasks of 2 s each: median 2 s, threshold 6 s.
        for id in 1..4 {
            s.lease(fast, 1);
            advance(&clock, 2_000);
            s.complete(fast, id, Err("x".into()));
        }
        let w = s.workers();
        assert!(!w[0].1.straggler && w[1].1.straggler, "{w:?}");
        assert_eq!(s.stats().stragglers, 1);
        // A new batch forgets the old median; the slow worker's lease is judged again.
        s.complete(slow, 0, Err("x".into()));
        s.submit(tasks(10..12));
        s.lease(slow, 1);
        s.lease(fast, 1);
        advance(&clock, 1_500);
        s.complete(fast, 11, Err("x".into())); // median 1.5 s: threshold 4.5 s
        advance(&clock, 2_900); // slow's lease is 4.4 s old
        assert_eq!(s.stats().stragglers, 0);
        advance(&clock, 200); // 4.6 s
        assert_eq!(s.stats().stragglers, 1);
        // Leaving clears it.
        s.unregister(slow);
        assert_eq!(s.stats().stragglers, 0);
    }

    #[test]
    fn the_straggler_rule_has_a_floor() {
        let ms = Duration::from_millis;
        assert!(!is_straggler(ms(10_000), None));
        assert!(!is_straggler(ms(30), Some(ms(5)))); // 6× the median but under a second
        assert!(!is_straggler(ms(1_000), Some(ms(5))));
        assert!(is_straggler(ms(1_001), Some(ms(5))));
        assert!(!is_straggler(ms(3_000), Some(ms(1_000))));
        assert!(is_straggler(ms(3_001), Some(ms(1_000))));
    }
}
