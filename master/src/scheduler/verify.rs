//! Verification by replay: remote workers are not trusted, so a share of their outcomes is held
//! back and played again by another worker (or by the master, when no other worker can take it).
//! Tasks are deterministic, so two honest players give the same outcome: equal outcomes are
//! accepted; different ones are settled by the master's own play, and every worker whose outcome
//! differs from it is a liar ([`quarantine`](super::quarantine)). Which outcomes are held is
//! decided by a keyed hash of the task id, the key this process's own: a worker cannot tell
//! which of its outcomes will be checked. Embedded workers are threads of the master: trusted.

use super::{Entry, IdHash, Lease, Scheduler, State, TaskId, WorkerId, end_leases, is_straggler};
use loa_engine::tasks::{Task, TaskResult};
use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;

/// The share of remote workers' outcomes that is verified, 0 to 1.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VerifyRate(f64);

impl Default for VerifyRate {
    /// 3 %: a liar that lies on a share `p` of its outcomes is caught after about `1 / (0.03 p)`
    /// of them, at 3 % of the CPU.
    fn default() -> VerifyRate {
        VerifyRate(0.03)
    }
}

/// A share that is no share: what was given and what to give instead. It names no flag: the
/// same parse reads `--verify` and `--verify-by-master` (and the Python Evaluator's `verify`),
/// so the caller names where the value came from (clap does, as "invalid value for '--FLAG'").
#[derive(Debug, thiserror::Error, PartialEq)]
#[error("{0:?} is not a share: give one from 0 to 1 (0.03, or 3%), `all`, or `0` for none")]
pub struct VerifyRateError(pub String);

impl std::str::FromStr for VerifyRate {
    type Err = VerifyRateError;

    fn from_str(text: &str) -> Result<VerifyRate, VerifyRateError> {
        let bad = || VerifyRateError(text.to_owned());
        let share = match text.trim() {
            "all" => 1.0,
            t => match t.strip_suffix('%') {
                Some(percent) => percent.trim().parse::<f64>().map_err(|_| bad())? / 100.0,
                None => t.parse::<f64>().map_err(|_| bad())?,
            },
        };
        VerifyRate::new(share).ok_or_else(bad)
    }
}

impl VerifyRate {
    /// Nothing verified.
    pub const OFF: VerifyRate = VerifyRate(0.0);
    /// Every remote outcome verified.
    pub const ALL: VerifyRate = VerifyRate(1.0);
    /// The share of verifications the master keeps for itself by default (`--verify-by-master`):
    /// a ring of liars that confirm each other is caught at this share of the verify rate, at
    /// a cost to the master's CPU of that share of the verified tasks.
    pub const DEFAULT_BY_MASTER: VerifyRate = VerifyRate(0.1);

    /// The share `share`, if it is one (0 to 1).
    pub fn new(share: f64) -> Option<VerifyRate> {
        (0.0..=1.0).contains(&share).then_some(VerifyRate(share))
    }

    /// The share.
    pub fn share(self) -> f64 {
        self.0
    }

    /// Hashes below this are sampled (`None`: none are; `u64::MAX` with the rate 1: all are).
    fn threshold(self) -> Option<u64> {
        match self.0 {
            s if s <= 0.0 => None,
            s if s >= 1.0 => Some(u64::MAX),
            s => Some((s * 2f64.powi(64)) as u64),
        }
    }
}

/// Whether the outcome of task `id` is verified at `rate` under `key`: SplitMix64's finaliser of
/// the key and the id, below the rate's share of the hashes. Public so tests can pick keys.
pub fn sampled(key: u64, rate: VerifyRate, id: TaskId) -> bool {
    let Some(threshold) = rate.threshold() else { return false };
    let mut z = key ^ id.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^= z >> 31;
    threshold == u64::MAX || z < threshold
}

/// A worker's outcomes since its last verified one, as segments that each end at a sampled
/// outcome (the last one still open): a verified sample verifies every outcome delivered up to
/// it. Each segment keeps only its lowest task id, so the trail is as long as the worker's
/// samples still waiting for a second opinion, whatever it delivers.
#[derive(Debug, Default)]
pub(super) struct Trail {
    /// The number of the front segment.
    first: u64,
    /// Each segment's lowest task id; the last one is open unless `closed`.
    segments: VecDeque<TaskId>,
    /// Whether the last segment ended at a sample (the next outcome opens a new one).
    closed: bool,
}

impl Trail {
    /// Notes an outcome of task `id`.
    pub(super) fn delivered(&mut self, id: TaskId) {
        match self.segments.back_mut() {
            Some(min) if !self.closed => *min = (*min).min(id),
            _ => {
                self.segments.push_back(id);
                self.closed = false;
            }
        }
    }

    /// Notes a sampled outcome of task `id`: it ends its segment, whose number is returned.
    pub(super) fn sampled(&mut self, id: TaskId) -> u64 {
        self.delivered(id);
        self.closed = true;
        self.first + self.segments.len() as u64 - 1
    }

    /// The sample that ended segment `segment` was verified: it and every outcome before it are.
    pub(super) fn passed(&mut self, segment: u64) {
        while self.first <= segment && !self.segments.is_empty() {
            self.segments.pop_front();
            self.first += 1;
        }
        if self.segments.is_empty() {
            self.closed = false;
        }
    }

    /// How many segments it keeps.
    #[cfg(test)]
    pub(super) fn segments_len(&self) -> usize {
        self.segments.len()
    }

    /// The lowest task id among the outcomes not verified yet.
    pub(super) fn first_unverified(&self) -> Option<TaskId> {
        self.segments.iter().copied().min()
    }
}

/// One of the two outcomes a held task has been given, and who gave it.
pub(super) struct Opinion {
    pub(super) worker: WorkerId,
    pub(super) outcome: TaskResult,
    /// Its segment in the worker's [`Trail`].
    pub(super) segment: u64,
}

/// A held outcome waiting for a second opinion, and the second one when it differs.
pub(super) struct Check {
    pub(super) first: Opinion,
    /// The address the first outcome's worker connected from, if remote.
    pub(super) first_address: Option<std::net::IpAddr>,
    /// A remote worker's different outcome: the master plays the task to settle it.
    pub(super) second: Option<Opinion>,
    /// Whether the master plays it (no other worker could, the copy straggled, the two
    /// differ, or the master keeps this check for itself).
    pub(super) referred: bool,
    /// Whether the master keeps this check for itself: no worker's copy settles it.
    pub(super) by_master: bool,
    /// When the first outcome was held.
    pub(super) since: Instant,
}

/// What verification keeps: the rate and key, the held tasks, what the master must play, the
/// outcomes delivered in the batch being collected and the quarantined workers.
#[derive(Default)]
pub(super) struct Verifier {
    pub(super) rate: Option<VerifyRate>,
    pub(super) key: u64,
    /// The share of held outcomes the master plays itself rather than lease to another worker,
    /// so that workers who lie alike are caught at least at this rate.
    pub(super) by_master: Option<VerifyRate>,
    /// Open tasks with a [`Check`].
    pub(super) held: HashSet<TaskId, IdHash>,
    /// Tasks the master plays itself, in order.
    pub(super) referred: VecDeque<TaskId>,
    /// Outcomes from remote workers that wait to be collected: whose, and their task, so that a
    /// liar's can be played again in place.
    pub(super) delivered: HashMap<TaskId, (WorkerId, Arc<Task>), IdHash>,
    /// Quarantined workers' ids and names.
    pub(super) quarantined: HashSet<WorkerId, IdHash>,
    pub(super) banned_names: HashSet<String>,
    /// The highest task id a collect has handed to the run: lower ids are in the run's state.
    pub(super) committed_through: Option<TaskId>,
    /// The lowest committed task id a liar delivered unverified: the run must go back before it.
    pub(super) rollback: Option<TaskId>,
    /// Lines for the run log (quarantines), taken by [`Scheduler::take_notes`].
    pub(super) notes: Vec<String>,
    /// Tasks queued since the last wake (held for a copy, a liar's given back).
    pub(super) queued: usize,
}

impl Verifier {
    /// Whether the outcome of `id` from an untrusted worker is held for a second opinion.
    fn samples(&self, id: TaskId) -> bool {
        self.rate.is_some_and(|rate| sampled(self.key, rate, id))
    }

    /// Whether the master keeps the check of the held outcome of `id` for itself: a second
    /// keyed hash, under a key derived from the first, so which checks it keeps is as hidden.
    fn keeps(&self, id: TaskId) -> bool {
        self.by_master.is_some_and(|share| sampled(self.key.rotate_left(29) ^ 0x6d61_7374_6572, share, id))
    }
}

impl Entry {
    /// Whether `worker` may not be leased this task: it reported it failed, or gave the outcome
    /// being verified.
    pub(super) fn bars(&self, worker: WorkerId) -> bool {
        self.failed_by.contains(&worker) || self.check.as_ref().is_some_and(|c| c.first.worker == worker)
    }
}

impl State {
    /// Whether `worker` is registered and untrusted (remote).
    fn untrusted(&self, worker: WorkerId) -> bool {
        self.workers.get(&worker).is_some_and(|w| !w.trusted)
    }

    /// Takes `worker`'s outcome of the open task `id`: holds it for a second opinion, weighs it
    /// as one, or, if neither, leaves it to the caller to accept (`None`).
    pub(super) fn verify(&mut self, id: TaskId, worker: WorkerId, outcome: TaskResult, now: Instant) -> Verdict {
        let Some(entry) = self.open.get(&id) else { return Verdict::Accept(outcome) };
        if entry.check.is_some() {
            return self.second_opinion(id, worker, outcome);
        }
        if self.verifier.rate.is_none() || !self.untrusted(worker) {
            return Verdict::Accept(outcome);
        }
        if outcome.is_ok() && self.verifier.samples(id) {
            self.hold(id, worker, outcome, now);
            return Verdict::Held;
        }
        let w = self.workers.get_mut(&worker).expect("untrusted: registered");
        w.trail.delivered(id);
        self.verifier.delivered.insert(id, (worker, Arc::clone(&entry.task)));
        Verdict::Accept(outcome)
    }

    /// Holds `worker`'s outcome of `id` and sends the task to another worker (a backup copy
    /// already out serves).
    fn hold(&mut self, id: TaskId, worker: WorkerId, outcome: TaskResult, now: Instant) {
        let w = self.workers.get_mut(&worker).expect("untrusted: registered");
        w.info.completed += 1;
        let segment = w.trail.sampled(id);
        let first_address = w.address;
        let by_master = self.verifier.keeps(id);
        let entry = self.open.get_mut(&id).expect("open");
        if let Some(i) = entry.leases.iter().position(|l| l.worker == worker) {
            let lease = entry.leases.remove(i);
            self.batch_durations.push(now.saturating_duration_since(lease.since));
            end_leases(&mut self.workers, std::slice::from_ref(&lease));
            if entry.leases.is_empty() {
                self.stats.in_flight -= 1;
                if !by_master {
                    self.queue.push_front(id);
                    self.verifier.queued += 1;
                }
            }
        }
        entry.check = Some(Box::new(Check {
            first: Opinion { worker, outcome, segment },
            first_address,
            second: None,
            referred: by_master,
            by_master,
            since: now,
        }));
        self.verifier.held.insert(id);
        if by_master {
            self.verifier.referred.push_back(id);
        }
    }

    /// `worker`'s outcome of the held task `id`.
    fn second_opinion(&mut self, id: TaskId, worker: WorkerId, outcome: TaskResult) -> Verdict {
        let trusted = !self.untrusted(worker);
        let State { open, workers, stats, verifier, .. } = self;
        let entry = open.get_mut(&id).expect("open");
        let check = entry.check.as_mut().expect("held");
        let again = check.first.worker == worker || check.second.as_ref().is_some_and(|s| s.worker == worker);
        // A check the master keeps is settled by its play alone (a backup copy out when the
        // outcome was held counts for nothing), so that no worker's copy can confirm a lie.
        if again || check.by_master || (check.second.is_some() && outcome != check.first.outcome) {
            // Its own second outcome, or a third while the master plays it (the master's settles
            // the task): dropped.
            stats.duplicates += 1;
            return Verdict::Duplicate;
        }
        let segment = workers.get_mut(&worker).filter(|w| !w.trusted).map(|w| w.trail.sampled(id));
        if outcome == check.first.outcome {
            stats.verified += 1;
            let first = entry.check.take().expect("held").first;
            verifier.held.remove(&id);
            self.pass(first.worker, first.segment);
            if let Some(segment) = segment {
                self.pass(worker, segment);
            }
            return Verdict::Accept(first.outcome);
        }
        stats.mismatches += 1;
        let Some(segment) = segment.filter(|_| !trusted) else {
            // An embedded worker's play is the master's own: the truth.
            let first = entry.check.take().expect("held").first;
            verifier.held.remove(&id);
            self.judge(id, &[first], &outcome);
            return Verdict::Accept(outcome);
        };
        let mine: Vec<Lease> = entry.leases.iter().filter(|l| l.worker == worker).copied().collect();
        entry.leases.retain(|l| l.worker != worker);
        if entry.leases.is_empty() && !mine.is_empty() {
            stats.in_flight -= 1;
        }
        end_leases(workers, &mine);
        check.second = Some(Opinion { worker, outcome, segment });
        if !check.referred {
            check.referred = true;
            verifier.referred.push_back(id);
        }
        Verdict::Held
    }

    /// `worker`'s sample that ended its trail's `segment` was verified.
    fn pass(&mut self, worker: WorkerId, segment: u64) {
        if let Some(w) = self.workers.get_mut(&worker) {
            w.trail.passed(segment);
            w.info.verified += 1;
        }
    }

    /// The master's `truth` for task `id` settles `opinions`: agreeing ones are verified, every
    /// other worker is a liar. The held outcome, if true, counts as verified.
    pub(super) fn judge(&mut self, id: TaskId, opinions: &[Opinion], truth: &TaskResult) {
        if opinions.first().is_some_and(|held| held.outcome == *truth) {
            self.stats.verified += 1;
        }
        for o in opinions {
            if o.outcome == *truth {
                self.pass(o.worker, o.segment);
            } else {
                self.quarantine(o.worker, id);
            }
        }
    }

    /// Held tasks that no registered worker may take, and those whose second opinion has taken
    /// longer than a straggler's time (at `now`): the master plays them. The copy may sit with a
    /// hung worker, or in the queue while the only other workers ask for nothing, and no backup
    /// can come from the worker whose outcome it checks: without this it would wait for the
    /// lease time.
    pub(super) fn refer_orphans(&mut self, now: Instant) {
        let median = self.batch_durations.median();
        let State { verifier, open, workers, .. } = self;
        for &id in &verifier.held {
            let Some(entry) = open.get_mut(&id) else { continue };
            let Some(check) = entry.check.as_mut() else { continue };
            if check.referred {
                continue;
            }
            let no_one_else = entry.leases.is_empty()
                && !workers.keys().any(|&w| !entry.failed_by.contains(&w) && w != check.first.worker);
            let orphaned = no_one_else || is_straggler(now.saturating_duration_since(check.since), median);
            if orphaned {
                check.referred = true;
                verifier.referred.push_back(id);
            }
        }
    }
}

/// What verification made of an outcome.
pub(super) enum Verdict {
    /// The task's outcome: not held, a held one confirmed, or an embedded worker's (the truth).
    Accept(TaskResult),
    /// Held, or contradicting the held one: the task waits for a second opinion or the master.
    Held,
    /// A second outcome from a worker already heard, or a third: dropped.
    Duplicate,
}

impl Scheduler {
    /// Verifies `rate` of the outcomes remote workers deliver from now on, under a random key.
    pub fn verify(&self, rate: VerifyRate) {
        self.verify_with_key(rate, rand_key());
    }

    /// [`Scheduler::verify`] under a key the caller chooses, for tests that need to know which
    /// tasks are sampled ([`sampled`]); never on a cluster, where workers must not know it.
    pub fn verify_with_key(&self, rate: VerifyRate, key: u64) {
        let mut s = self.lock();
        s.verifier.rate = (rate.threshold().is_some()).then_some(rate);
        s.verifier.key = key;
    }

    /// Has the master play `share` of the verifications itself instead of leasing a copy to
    /// another worker (none by default), which catches workers that lie alike.
    pub fn verify_by_master(&self, share: VerifyRate) {
        self.lock().verifier.by_master = (share.threshold().is_some()).then_some(share);
    }

    /// The run log's lines about verification since the last call (quarantines).
    pub fn take_notes(&self) -> Vec<String> {
        std::mem::take(&mut self.lock().verifier.notes)
    }

    /// The lowest task id the run already took from a collect that a liar delivered without it
    /// being verified, if any: the run must go back to a state before that task. Taken: asked
    /// again, `None` until the next liar.
    pub fn take_rollback(&self) -> Option<TaskId> {
        let mut s = self.lock();
        let id = s.verifier.rollback.take();
        self.rollback.store(false, Ordering::Release);
        if id.is_some() {
            s.stats.rollbacks += 1;
        }
        id
    }

    /// Whether a rollback waits to be taken.
    pub fn rollback_pending(&self) -> bool {
        self.rollback.load(Ordering::Acquire)
    }

    /// Drops the tasks `ids` of a batch the run abandons (to go back to an earlier state): they
    /// leave the queue, their leases and outcomes go, and submitting them again opens them anew.
    pub fn abandon(&self, ids: &[TaskId]) {
        let mut s = self.lock();
        let gone: HashSet<TaskId> = ids.iter().copied().collect();
        s.queue.retain(|id| !gone.contains(id));
        s.verifier.referred.retain(|id| !gone.contains(id));
        for id in ids {
            if let Some(entry) = s.open.remove(id) {
                if !entry.leases.is_empty() {
                    s.stats.in_flight -= 1;
                }
                end_leases(&mut s.workers, &entry.leases);
            }
            s.done.remove(id);
            s.verifier.delivered.remove(id);
            s.verifier.held.remove(id);
            s.finished.remove(id);
        }
        s.verifier.committed_through = None;
    }
}

/// A key no worker can know: from the operating system's randomness (the process-wide hasher's
/// keys if that is not available).
fn rand_key() -> u64 {
    let mut bytes = [0u8; 8];
    match getrandom::fill(&mut bytes) {
        Ok(()) => u64::from_le_bytes(bytes),
        Err(_) => {
            use std::hash::BuildHasher;
            std::collections::hash_map::RandomState::new().hash_one(0u64)
        }
    }
}
