//! The loop of a run: generations and epoch benchmarks over a [`Scheduler`], each step either
//! recorded as done in a checkpoint or redone exactly on resume. Order of writes (a crash between
//! any two is survived, see [`super::halt`]): a generation's metrics line, then `latest.ckpt`; an
//! epoch's metrics line (and its validation lines), then `epoch-N.ckpt`, then `latest.ckpt`.

use super::clock::SessionClock;
use super::events::{RunEvent, Step, Subscriber};
use super::halt::{Halt, HaltPoint};
use super::{RunError, RunOptions, RunSummary};
use crate::checkpoint::RunState;
use crate::cluster::Counters;
use crate::local::{LocalTask, Work};
use crate::metrics::benchmark_entry;
use crate::population::StoredIndividual;
use crate::scheduler::{Scheduler, TaskId, WorkerId, WorkerInfo};
use crate::selection::{Breeding, Scheme, Selected};
use loa_engine::Color;
use loa_engine::game::benchmark_score;
use loa_engine::random::derive_seed;
use loa_engine::tasks::{BenchmarkOutcome, MatchFormat, MatchTaskOutcome, OutcomeMismatch, Pairing, Task, TaskOutcome};
use loa_records::{EpochReport, GenerationRecord, RunDir, ValidationRecord, WorkerRecord};
use std::cell::Cell;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// How long a step waits with no worker before the master says so, and how often it says it
/// again.
const WAITING_SAID_AFTER: Duration = Duration::from_secs(5);
/// See [`WAITING_SAID_AFTER`].
const WAITING_SAID_EVERY: Duration = Duration::from_secs(60);

/// The id of task `index` of generation `generation` (benchmarks are told apart by a bit), so a
/// restarted master gives the same task the same id.
pub fn task_id(generation: u64, benchmark: bool, index: usize) -> TaskId {
    (generation << 24) | (u64::from(benchmark) << 23) | index as u64
}

/// Where a validation's task indices begin among its generation's benchmark ids (a benchmark
/// has at most 100 000 tasks, one a survivor; a validation at most 16 × 25 000).
const VALIDATION_TASKS: usize = 1 << 22;

/// Drives a run over a scheduler.
pub struct Runner<'a> {
    /// The run directory (checkpoints).
    pub dir: &'a RunDir,
    /// Where work goes.
    pub scheduler: &'a Arc<Scheduler>,
    /// Stop flag, halt point, cluster mode.
    pub options: &'a RunOptions,
    /// Who hears about the run: metrics files, log, progress bars, a dashboard.
    pub subscribers: &'a [&'a dyn Subscriber],
    /// The cluster service's counters (cluster mode), for dropped workers.
    pub cluster: Option<Arc<Counters>>,
    /// Dropped workers already announced.
    pub drops_seen: Cell<usize>,
    /// Registered workers already announced.
    pub joins_seen: Cell<usize>,
    /// The run's compute, from its checkpoint's totals.
    pub clock: SessionClock,
}

impl Runner<'_> {
    fn emit(&self, event: RunEvent<'_>) -> Result<(), RunError> {
        self.subscribers.iter().try_for_each(|s| s.notify(&event))
    }

    fn halt(&self, point: HaltPoint) -> Result<(), RunError> {
        Halt::check(self.options.halt.as_ref(), point)
    }

    /// Announces workers the cluster service registered or dropped since the last call.
    fn announce_drops(&self) -> Result<(), RunError> {
        let Some(counters) = &self.cluster else { return Ok(()) };
        let joins = counters.joins();
        for name in joins.iter().skip(self.joins_seen.get()) {
            self.emit(RunEvent::WorkerJoined(name))?;
        }
        self.joins_seen.set(joins.len());
        let drops = counters.drops();
        for d in drops.iter().skip(self.drops_seen.get()) {
            self.emit(RunEvent::WorkerDropped(d))?;
        }
        self.drops_seen.set(drops.len());
        for note in self.scheduler.take_notes() {
            self.emit(RunEvent::Verification(&note))?;
        }
        Ok(())
    }

    /// After a step ended early: if a liar's outcomes are in the run's state, the state to go on
    /// from instead (`start`, the session's first state, or an epoch checkpoint).
    fn rolled_back(&self, start: &RunState) -> Result<Option<RunState>, RunError> {
        let Some(first) = self.scheduler.take_rollback() else { return Ok(None) };
        self.announce_drops()?;
        let notes = std::cell::RefCell::new(Vec::new());
        let back =
            super::rollback::rewind(self.dir, start, first, &|line: &str| notes.borrow_mut().push(line.to_owned()))?;
        for note in notes.into_inner() {
            self.emit(RunEvent::Verification(&note))?;
        }
        self.emit(RunEvent::RolledBack(&back))?;
        Ok(Some(back))
    }

    /// Runs until the target epoch, or until stopped (Ctrl-C, or at an epoch boundary with the
    /// budget spent). The initial population is benchmarked as
    /// epoch 0; a pending end-of-epoch benchmark (a resume after a stop between an epoch's last
    /// generation and its checkpoint) is done before anything else.
    ///
    /// A liar's outcomes found in the state (verification by replay) send the run back to a
    /// state without them ([`super::rollback`]), from where it goes on (or stops, if asked to).
    pub fn run(&self, mut state: RunState) -> Result<RunSummary, RunError> {
        // Only remote workers can lie: the state to go back to if no epoch checkpoint is clean.
        let start = self.options.work.cluster.as_ref().map(|_| state.clone());
        let mut scheme = state.scheme()?;
        self.emit(RunEvent::Started(&state))?;
        let gpe = u64::from(state.config.generations_per_epoch);
        loop {
            let pending = state.epochs.is_empty() || state.generation / gpe > u64::from(state.epoch);
            let ended = match pending {
                true => self.benchmark(&mut state, scheme.as_mut())?.is_none(),
                false => false,
            };
            if !ended {
                if state.epoch >= state.config.epochs {
                    break;
                }
                if let Some(why) = self.out_of_budget(&state) {
                    self.emit(RunEvent::OutOfBudget(&why))?;
                    self.emit(RunEvent::Stopped(&state))?;
                    return Ok(RunSummary { out_of_budget: Some(why), ..summary(&state, true) });
                }
            }
            let stop = || self.options.work.stop.load(Ordering::Acquire);
            if ended || stop() || self.generation(&mut state, scheme.as_mut())?.is_none() {
                // A step ends early when stopped, or to go back past a liar's outcomes.
                match start.as_ref().map(|start| self.rolled_back(start)).transpose()?.flatten() {
                    Some(back) if !stop() => {
                        state = back;
                        scheme = state.scheme()?;
                    }
                    Some(back) => return self.stopped(&back),
                    None => return self.stopped(&state),
                }
            }
        }
        self.emit(RunEvent::Finished(&state))?;
        Ok(summary(&state, false))
    }

    /// Why the session stops here, if `state` is at an epoch boundary (its benchmark done, no
    /// generation of the next epoch yet) and the clock its checkpoint records has reached the
    /// budget: so a resume with the same budget stops exactly where this session did. Runs
    /// without validation keep no clock in their checkpoints: their sessions count from zero.
    fn out_of_budget(&self, state: &RunState) -> Option<String> {
        let gpe = u64::from(state.config.generations_per_epoch);
        if !state.generation.is_multiple_of(gpe) {
            return None;
        }
        self.options.budget.reached(&state.clock, state.config.validation.is_some())
    }

    fn stopped(&self, state: &RunState) -> Result<RunSummary, RunError> {
        self.emit(RunEvent::Stopped(state))?;
        Ok(summary(state, true))
    }

    /// Plays a step's work and waits for all outcomes, in order, reporting progress: the tasks
    /// for workers through the scheduler ([`Runner::collect`]) while the master plays those with
    /// an external engine itself, on threads of its own ([`crate::local`]). Stops early (`None`)
    /// as [`Runner::collect`] does; an engine's failure stops the step with an error.
    fn play(
        &self,
        work: Vec<(TaskId, Work)>,
        halfway: HaltPoint,
        seen: impl FnMut(),
    ) -> Result<Option<Vec<TaskOutcome>>, RunError> {
        let (mut tasks, mut own, mut mine) = (Vec::new(), Vec::new(), Vec::with_capacity(work.len()));
        for (id, w) in work {
            mine.push(matches!(w, Work::Master(_)));
            match w {
                Work::Worker(task) => tasks.push((id, task)),
                Work::Master(task) => own.push(task),
            }
        }
        let (own_done, own_failed) = (AtomicUsize::new(0), AtomicBool::new(false));
        if own.is_empty() {
            return self.collect(tasks, halfway, seen, &own_done, &own_failed);
        }
        let own: Vec<&LocalTask> = own.iter().collect();
        let (stop, threads) = (&*self.options.work.stop, self.options.work.threads);
        let given_up = AtomicBool::new(false);
        let (theirs, ours) = std::thread::scope(|scope| {
            let ours = scope.spawn(|| {
                let stopped = || stop.load(Ordering::Acquire) || given_up.load(Ordering::Acquire);
                let played = crate::local::play_all(&own, threads, &stopped, &own_done);
                own_failed.store(played.is_err(), Ordering::Release);
                played
            });
            let theirs = self.collect(tasks, halfway, seen, &own_done, &own_failed);
            if !matches!(theirs, Ok(Some(_))) {
                given_up.store(true, Ordering::Release);
            }
            // The master's own plays may still be under way: progress goes on meanwhile.
            while !ours.is_finished() {
                std::thread::sleep(Duration::from_millis(50));
                let stats = self.scheduler.stats();
                let done = mine.len() - own.len() + own_done.load(Ordering::Acquire);
                if let Err(e) = self.emit(RunEvent::Progress { done, stats: &stats }) {
                    given_up.store(true, Ordering::Release);
                    let _ = ours.join();
                    return Err(e);
                }
            }
            let ours =
                ours.join().map_err(|_| RunError::Outcome("a thread of the master's own plays panicked".into()))?;
            Ok::<_, RunError>((theirs, ours))
        })?;
        let (theirs, ours) = match (theirs?, ours?) {
            (Some(theirs), Some(ours)) => (theirs, ours),
            _ => return Ok(None),
        };
        // Back in the order of the work.
        let (mut theirs, mut ours) = (theirs.into_iter(), ours.into_iter().map(TaskOutcome::Match));
        let outcomes = mine.iter().map(|&m| if m { ours.next() } else { theirs.next() }).collect::<Option<Vec<_>>>();
        outcomes.map(Some).ok_or_else(|| RunError::Outcome("fewer outcomes than tasks".into()))
    }

    /// Submits tasks and waits for all outcomes, reporting progress (with `own_done` of the
    /// master's own plays); stops early (`None`) on Ctrl-C, once `own_failed`, or at `halfway`
    /// once half the outcomes are in.
    fn collect(
        &self,
        tasks: Vec<(TaskId, Task)>,
        halfway: HaltPoint,
        mut seen: impl FnMut(),
        own_done: &AtomicUsize,
        own_failed: &AtomicBool,
    ) -> Result<Option<Vec<TaskOutcome>>, RunError> {
        let ids: Vec<TaskId> = tasks.iter().map(|(id, _)| *id).collect();
        let total = ids.len();
        self.scheduler.submit(tasks);
        let halt_here = self.options.halt.is_some_and(|h| h.point == halfway);
        let (halted, failed) = (Cell::new(false), std::cell::RefCell::new(None));
        let (begun, waiting_said) = (Instant::now(), Cell::new(None::<Instant>));
        let tick = |done: usize| {
            let stats = self.scheduler.stats();
            let all = done + own_done.load(Ordering::Acquire);
            if let Err(e) =
                self.emit(RunEvent::Progress { done: all, stats: &stats }).and_then(|()| self.announce_drops())
            {
                *failed.borrow_mut() = Some(e);
            }
            let alone = self.options.work.threads == 0 && stats.workers == 0 && done < total;
            let due =
                waiting_said.get().map_or(begun.elapsed() >= WAITING_SAID_AFTER, |t| t.elapsed() >= WAITING_SAID_EVERY);
            if alone && due {
                waiting_said.set(Some(Instant::now()));
                if let Err(e) = self.emit(RunEvent::WaitingForWorkers { connected: stats.workers, left: total - done })
                {
                    *failed.borrow_mut() = Some(e);
                }
            }
            seen();
            if halt_here && 2 * done >= total {
                halted.set(true);
            }
        };
        let stop = || {
            self.options.work.stop.load(Ordering::Acquire)
                || own_failed.load(Ordering::Acquire)
                || halted.get()
                || failed.borrow().is_some()
                || self.scheduler.rollback_pending()
        };
        let mut outcomes = self.scheduler.collect(&ids, stop, tick);
        if self.scheduler.rollback_pending() {
            // The run goes back past a liar's outcomes: this step is played again later.
            self.scheduler.abandon(&ids);
            outcomes = None;
        }
        self.announce_drops()?;
        if let Some(e) = failed.take() {
            return Err(e);
        }
        // Halted half-way, or all outcomes came in before the first tick: either way nothing
        // of the step is recorded yet, which is what a crash in its middle leaves.
        if halt_here {
            self.halt(halfway)?;
        }
        let Some(outcomes) = outcomes else { return Ok(None) };
        outcomes.into_iter().map(|o| o.map_err(RunError::Task)).collect::<Result<Vec<_>, _>>().map(Some)
    }

    /// One generation: the scheme breeds and plans tasks, the workers play them, the scheme
    /// selects; then the generation is recorded and checkpointed. `None`: stopped first.
    fn generation(&self, state: &mut RunState, scheme: &mut dyn Scheme) -> Result<Option<()>, RunError> {
        let begun = Instant::now();
        let survivors = state.individuals()?;
        // Breed on copies: the state changes only once the generation is complete.
        let (mut rng, mut serials) = (state.rng.clone(), state.serials.clone());
        let generation = state.generation + 1;
        if generation > crate::checkpoint::MAX_GENERATION {
            return Err(RunError::Exhausted { counter: "generation", max: crate::checkpoint::MAX_GENERATION });
        }
        let mut breeding = Breeding { config: &state.config, generation, rng: &mut rng, serials: &mut serials };
        let (plan, tasks) = scheme.plan(&survivors, &mut breeding)?;
        let tasks: Vec<(TaskId, Work)> =
            tasks.into_iter().enumerate().map(|(i, t)| (task_id(generation, false, i), Work::Worker(t))).collect();
        self.emit(RunEvent::StepStarted { step: Step::Generation(generation), tasks: tasks.len() })?;
        let workers_before = self.scheduler.workers();
        // Stragglers are seen while the generation runs: at its end no lease is open any more.
        let mut straggled = HashSet::new();
        let seen = || {
            if self.scheduler.stats().stragglers > 0 {
                straggled.extend(self.scheduler.workers().into_iter().filter(|(_, w)| w.straggler).map(|(id, _)| id));
            }
        };
        let Some(outcomes) = self.play(tasks, HaltPoint::MidGeneration(generation), seen)? else {
            return Ok(None);
        };
        let Selected { next, tournaments, figures, notes, survivors_kept } = scheme.select(plan, &outcomes)?;
        let worker_detail = match self.options.work.cluster {
            Some(_) => worker_records(&workers_before, &self.scheduler.workers(), &straggled, begun.elapsed()),
            None => Vec::new(),
        };
        let games: u32 = outcomes.iter().map(TaskOutcome::game_count).sum();
        let plies: u32 = outcomes.iter().map(TaskOutcome::plies).sum();
        let seconds = begun.elapsed().as_secs_f64();
        let record = GenerationRecord {
            generation,
            epoch: generation.div_ceil(u64::from(state.config.generations_per_epoch)) as u32,
            tournaments,
            survivors_kept,
            games,
            mean_plies: if games == 0 { 0.0 } else { f64::from(plies) / f64::from(games) },
            seconds,
            games_per_second: if seconds > 0.0 { f64::from(games) / seconds } else { 0.0 },
            workers: self.scheduler.stats().workers,
            worker_detail,
            figures,
        };
        state.population = next.into_iter().map(StoredIndividual::from).collect();
        state.scheme_state = scheme.save().map_err(RunError::SchemeState)?;
        state.rng = rng;
        state.serials = serials;
        state.generation = generation;
        self.emit(RunEvent::GenerationDone { record: &record, keeps_survivors: scheme.keeps_survivors() })?;
        for note in &notes {
            self.emit(RunEvent::Noted(generation, note))?;
        }
        self.halt(HaltPoint::AfterGenerationLine(generation))?;
        state.clock = self.clock.now();
        state.save(&self.dir.latest_checkpoint())?;
        if self.options.work.cluster.is_some() {
            self.emit(RunEvent::Workers(&record))?;
        }
        self.halt(HaltPoint::AfterGeneration(generation))?;
        Ok(Some(()))
    }

    /// Benchmarks the population against the reference player, ends the epoch, records it and
    /// checkpoints. `None`: stopped first.
    fn benchmark(&self, state: &mut RunState, scheme: &mut dyn Scheme) -> Result<Option<()>, RunError> {
        let config = &state.config;
        let epoch = match state.epochs.is_empty() {
            true => 0,
            false => {
                state.epoch.checked_add(1).ok_or(RunError::Exhausted { counter: "epoch", max: u32::MAX.into() })?
            }
        };
        let survivors = state.individuals()?;
        let reference = config.reference()?;
        let (reference, engine) = reference.entrant(u64::MAX);
        let engines: Vec<(usize, String)> = engine.map(|command| (1, command.to_owned())).into_iter().collect();
        let tasks: Vec<(TaskId, Work)> = survivors
            .iter()
            .enumerate()
            .map(|(i, s)| {
                // The network is A: Black in game 0, White in game 1.
                let seed = derive_seed(derive_seed(config.seed ^ 0xBE4C, state.generation), i as u64);
                let pairing = Pairing { a: 0, b: 1, seed, opening_plies: 0 };
                let task = config.task(vec![s.entrant(), reference.clone()], MatchFormat::Pairs(vec![pairing]));
                (task_id(state.generation, true, i), Work::of(task, engines.clone()))
            })
            .collect();
        self.emit(RunEvent::StepStarted { step: Step::Benchmark(epoch), tasks: tasks.len() })?;
        let Some(outcomes) = self.play(tasks, HaltPoint::MidBenchmark(epoch), || {})? else {
            return Ok(None);
        };
        let outcomes = match_outcomes(outcomes)?;
        let entries = survivors
            .iter()
            .zip(&outcomes)
            .map(|(s, o)| benchmark_outcome(o).map(|b| benchmark_entry(s.serial, &b)))
            .collect::<Result<Vec<_>, _>>()?;
        let report = EpochReport::new(epoch, state.generation, entries);
        let validated = match &state.config.validation {
            Some(v) if v.due(epoch) => match self.validate(state, v, scheme.validated(&survivors, &report), epoch)? {
                Some(records) => records,
                None => return Ok(None),
            },
            _ => Vec::new(),
        };
        state.epoch = epoch;
        state.epochs.push(report.clone());
        self.emit(RunEvent::EpochDone(&report))?;
        for record in &validated {
            self.emit(RunEvent::Validated(record))?;
        }
        // Part of the epoch's step, so the epoch checkpoint records it and a resume redoes it.
        let champion = scheme.end_epoch(&survivors, &report);
        state.scheme_state = scheme.save().map_err(RunError::SchemeState)?;
        if let Some(champion) = champion {
            self.emit(RunEvent::Champion(epoch, champion))?;
        }
        self.halt(HaltPoint::AfterEpochLine(epoch))?;
        state.clock = self.clock.now();
        state.save(&self.dir.epoch_checkpoint(epoch))?;
        self.halt(HaltPoint::AfterEpochCheckpoint(epoch))?;
        state.save(&self.dir.latest_checkpoint())?;
        if let Some(keep) = self.options.keep_checkpoints {
            super::resume::prune(self.dir, keep as usize, &|message| eprintln!("master: {message}"));
        }
        Ok(Some(()))
    }

    /// Plays `net`, the network the scheme names for `epoch` ([`Scheme::validated`]), against
    /// the validation's opponents: its lines, with the run's compute when it began. `None`:
    /// stopped first.
    fn validate(
        &self,
        state: &RunState,
        validation: &crate::config::ValidationConfig,
        net: Option<&crate::population::Individual>,
        epoch: u32,
    ) -> Result<Option<Vec<ValidationRecord>>, RunError> {
        let Some(net) = net else {
            return Err(RunError::Outcome(format!("epoch {epoch}: no network to validate")));
        };
        let clock = self.clock.now();
        let tasks: Vec<(TaskId, Work)> = super::validation::tasks(&state.config, validation, net)
            .into_iter()
            .enumerate()
            .map(|(i, w)| (task_id(state.generation, true, VALIDATION_TASKS + i), w))
            .collect();
        self.emit(RunEvent::StepStarted { step: Step::Validation(epoch), tasks: tasks.len() })?;
        let Some(outcomes) = self.play(tasks, HaltPoint::MidValidation(epoch), || {})? else {
            return Ok(None);
        };
        let counts = super::validation::tally(validation, &match_outcomes(outcomes)?)?;
        let records = super::validation::records(validation, epoch, state.generation, net.serial, &counts);
        let timed = |r: ValidationRecord| ValidationRecord {
            cpu_seconds: clock.cpu_seconds,
            wall_seconds: clock.wall_seconds,
            ..r
        };
        Ok(Some(records.into_iter().map(timed).collect()))
    }
}

/// The outcomes of match tasks the runner planned (benchmarks, validations) as match outcomes.
fn match_outcomes(outcomes: Vec<TaskOutcome>) -> Result<Vec<MatchTaskOutcome>, RunError> {
    outcomes
        .into_iter()
        .map(|o| o.into_match().ok_or_else(|| RunError::Outcome(OutcomeMismatch::Kind.to_string())))
        .collect()
}

/// The network's two games and scores from a benchmark task's one match (the network is A).
fn benchmark_outcome(outcome: &MatchTaskOutcome) -> Result<BenchmarkOutcome, RunError> {
    let [m] = outcome.matches.as_slice() else {
        return Err(RunError::Outcome(format!(
            "a benchmark task returned {} matches instead of 1",
            outcome.matches.len()
        )));
    };
    let scores =
        [(0, Color::Black), (1, Color::White)].map(|(g, c)| benchmark_score(m.games[g].outcome, m.games[g].plies, c));
    Ok(BenchmarkOutcome { games: m.games, scores })
}

fn summary(state: &RunState, stopped: bool) -> RunSummary {
    RunSummary {
        epoch: state.epoch,
        generation: state.generation,
        stopped,
        out_of_budget: None,
        last_report: state.epochs.last().cloned(),
    }
}

/// What each worker did during a generation, from snapshots taken before and after it, with
/// whether it was seen straggling (`straggled`). Workers that left during the generation are not
/// in the second snapshot and are not listed.
pub(crate) fn worker_records(
    before: &[(WorkerId, WorkerInfo)],
    after: &[(WorkerId, WorkerInfo)],
    straggled: &HashSet<WorkerId>,
    took: Duration,
) -> Vec<WorkerRecord> {
    let secs = took.as_secs_f64().max(1e-9);
    let earlier: HashMap<WorkerId, u64> = before.iter().map(|(id, w)| (*id, w.completed)).collect();
    after
        .iter()
        .map(|(id, info)| {
            let tasks = info.completed.saturating_sub(earlier.get(id).copied().unwrap_or(0));
            WorkerRecord {
                name: info.name.clone(),
                tasks,
                tasks_per_second: tasks as f64 / secs,
                straggler: straggled.contains(id),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::events::worker_line;

    fn info(name: &str, completed: u64) -> WorkerInfo {
        let now = Instant::now();
        WorkerInfo { name: name.into(), completed, verified: 0, registered: now, oldest_lease: None, straggler: false }
    }

    #[test]
    fn worker_records_count_the_generation_only_and_mark_stragglers_seen_during_it() {
        let before = [(1, info("a", 10)), (2, info("b", 3))];
        // b left, c joined during the generation.
        let after = [(1, info("a", 16)), (3, info("c", 2))];
        let straggled = HashSet::from([3]);
        let records = worker_records(&before, &after, &straggled, Duration::from_secs(2));
        let summary: Vec<_> =
            records.iter().map(|r| (r.name.as_str(), r.tasks, r.tasks_per_second, r.straggler)).collect();
        assert_eq!(summary, [("a", 6, 3.0, false), ("c", 2, 1.0, true)]);
        assert_eq!(
            worker_line(7, &records),
            "workers, generation 7: a 6 tasks 3.00/s; c 2 tasks 1.00/s STRAGGLER (1 stragglers)"
        );
    }
}
