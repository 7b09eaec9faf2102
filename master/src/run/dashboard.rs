//! The live run dashboard (`master run|resume --dashboard ADDR`): a [`DashboardState`] that
//! follows the run as a [`Subscriber`] and answers `loa_dashboard`'s server as its [`Provider`].
//! The run never waits on the page: events hold the state's lock for a few assignments, requests
//! read the scheduler on the server's threads, and nothing the page sends reaches the run.

use super::error::RunError;
use super::events::{RunEvent, RunLog, Step, Subscriber};
use crate::checkpoint::RunState;
use crate::cluster::Counters;
use crate::scheduler::{Scheduler, SchedulerStats};
use loa_dashboard::{
    Counts, GenerationRate, HISTORY, ProgressInfo, Provider, RunInfo, Status, StepInfo, TaskRate, WorkerRow,
    slots_from_name,
};
use loa_records::{EpochReport, Figures, GenerationRecord, RunDir, ValidationRecord};
use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

/// How to serve the dashboard.
#[derive(Clone, Debug)]
pub struct DashboardOptions {
    /// Address to serve on (port 0: any free port, see `bound`).
    pub listen: SocketAddr,
    /// Token the page must present (`Authorization: Bearer` or `?token=`); `None`: no check.
    pub token: Option<String>,
    /// Set to the address actually bound once the server listens.
    pub bound: Arc<OnceLock<SocketAddr>>,
    /// Keep serving this long after the run ends (or until the stop flag is set), so the final
    /// state can be looked at.
    pub linger: Duration,
}

/// How often a tasks-per-second sample is taken from the progress events.
const SAMPLE_EVERY: Duration = Duration::from_secs(2);

/// What the page shows that only events tell.
struct Live {
    state: &'static str,
    generation: u64,
    epoch: u32,
    step: Option<StepInfo>,
    /// When this process started the run, and the generation it started at (for the ETA).
    started: Instant,
    started_generation: u64,
    /// When the run stopped or finished (the elapsed time stops there).
    ended: Option<Instant>,
    games: VecDeque<GenerationRate>,
    tasks: VecDeque<TaskRate>,
    last_sample: Option<(Instant, u64)>,
    epochs: Vec<Arc<EpochReport>>,
    validation: Vec<Arc<ValidationRecord>>,
    /// The scheme's figures of generation `generation`, if known.
    figures: Option<Figures>,
}

/// The dashboard's view of a live run.
pub struct DashboardState {
    live: Mutex<Live>,
    run: RunInfo,
    /// The generations of all the run's epochs, for its progress.
    total_generations: u64,
    scheduler: Arc<Scheduler>,
    cluster: Option<Arc<Counters>>,
    notes: Vec<String>,
    /// Whether the run has `[validation]`.
    validating: bool,
}

fn push_bounded<T>(queue: &mut VecDeque<T>, item: T) {
    if queue.len() >= HISTORY {
        queue.pop_front();
    }
    queue.push_back(item);
}

impl DashboardState {
    /// The state of a run starting (or resuming) from `state` in `dir`: the history so far comes
    /// from the checkpoint's epoch reports, `generations.jsonl` and `validation.jsonl` (both
    /// already cut back to it).
    pub fn new(
        dir: &RunDir,
        state: &RunState,
        scheduler: Arc<Scheduler>,
        cluster: Option<Arc<Counters>>,
    ) -> DashboardState {
        let mut notes = Vec::new();
        let (mut games, mut figures) = (VecDeque::new(), None);
        if dir.generations().exists() {
            match loa_records::jsonl::read::<GenerationRecord>(&dir.generations()) {
                Ok(lines) => {
                    lines.records.iter().for_each(|g| push_bounded(&mut games, GenerationRate::from(g)));
                    figures = lines
                        .records
                        .last()
                        .filter(|g| g.generation == state.generation)
                        .and_then(|g| g.figures.clone());
                }
                Err(e) => notes.push(format!("earlier generations not shown: {e}")),
            }
        }
        let mut validation = Vec::new();
        if dir.validation().exists() {
            match loa_records::jsonl::read::<ValidationRecord>(&dir.validation()) {
                Ok(lines) => validation = lines.records.into_iter().map(Arc::new).collect(),
                Err(e) => notes.push(format!("earlier validations not shown: {e}")),
            }
        }
        let config = &state.config;
        let run = RunInfo {
            name: loa_dashboard::run_name(dir.root()),
            seed: Some(config.seed),
            population: Some(config.population as u64),
            target_epochs: Some(u64::from(config.epochs)),
            generations_per_epoch: Some(u64::from(config.generations_per_epoch)),
            network: config.network.to_string(),
            board: config.board().to_string(),
            start: config.start.to_string(),
            config_toml: config.to_toml(),
        };
        let live = Live {
            state: "starting",
            generation: state.generation,
            epoch: state.epoch,
            step: None,
            started: Instant::now(),
            started_generation: state.generation,
            ended: None,
            games,
            tasks: VecDeque::new(),
            last_sample: None,
            epochs: state.epochs.iter().cloned().map(Arc::new).collect(),
            validation,
            figures,
        };
        let total_generations = u64::from(config.epochs) * u64::from(config.generations_per_epoch);
        let validating = config.validation.is_some();
        DashboardState { live: Mutex::new(live), run, total_generations, scheduler, cluster, notes, validating }
    }

    fn live(&self) -> MutexGuard<'_, Live> {
        // A panic elsewhere while holding the lock leaves plain data: keep showing it.
        self.live.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn counts(&self, stats: &SchedulerStats) -> Counts {
        let cluster = self.cluster.as_ref();
        Counts {
            queued: stats.queued,
            in_flight: stats.in_flight,
            completed: stats.completed,
            re_leased: stats.re_leased,
            backups: stats.backups,
            duplicates: stats.duplicates,
            unknown: stats.unknown,
            not_leased: stats.not_leased,
            failed: stats.failed,
            workers: stats.workers,
            stragglers: stats.stragglers,
            verified: stats.verified,
            mismatches: stats.mismatches,
            quarantined: stats.quarantined,
            replayed: stats.replayed,
            rollbacks: stats.rollbacks,
            dropped_workers: cluster.map(|c| c.drops().len() as u64),
            refused_calls: cluster.map(|c| c.refused.load(Ordering::Relaxed)),
        }
    }

    fn workers(&self) -> Vec<WorkerRow> {
        self.scheduler
            .workers()
            .into_iter()
            .map(|(_, w)| {
                let secs = w.registered.elapsed().as_secs_f64();
                WorkerRow {
                    slots: slots_from_name(&w.name),
                    tasks: w.completed,
                    tasks_per_second: if secs > 0.0 { w.completed as f64 / secs } else { 0.0 },
                    oldest_lease_seconds: w.oldest_lease.map(|d| d.as_secs_f64()),
                    straggler: w.straggler,
                    name: w.name,
                }
            })
            .collect()
    }
}

impl Provider for DashboardState {
    fn status(&self) -> Status {
        // The scheduler first, without the state's lock: never hold both.
        let stats = self.scheduler.stats();
        let workers = self.workers();
        let live = self.live();
        let total = self.total_generations;
        let partial = match &live.step {
            Some(s) if s.kind == "generation" && s.tasks > 0 => s.done as f64 / s.tasks as f64,
            _ => 0.0,
        };
        let mut progress = ProgressInfo::at(live.generation, total, partial);
        let elapsed = live.ended.unwrap_or_else(Instant::now).duration_since(live.started).as_secs_f64();
        progress.elapsed_seconds = Some(elapsed);
        let done_here = live.generation.saturating_sub(live.started_generation) as f64;
        progress.eta_seconds = match live.state {
            "finished" => Some(0.0),
            _ => (done_here > 0.0).then(|| elapsed / done_here * total.saturating_sub(live.generation) as f64),
        };
        Status {
            source: "live".into(),
            state: live.state.into(),
            run: self.run.clone(),
            generation: live.generation,
            epoch: live.epoch,
            epochs_recorded: live.epochs.len(),
            validating: self.validating,
            validations_recorded: live.validation.len(),
            step: live.step.clone(),
            progress,
            games_per_second: live.games.iter().cloned().collect(),
            tasks_per_second: live.tasks.iter().cloned().collect(),
            counts: Some(self.counts(&stats)),
            workers,
            figures: live.figures.clone(),
            notes: self.notes.clone(),
        }
    }

    fn epochs(&self) -> Vec<Arc<EpochReport>> {
        self.live().epochs.clone()
    }

    fn validation(&self) -> Vec<Arc<ValidationRecord>> {
        self.live().validation.clone()
    }
}

impl Subscriber for DashboardState {
    fn notify(&self, event: &RunEvent<'_>) -> Result<(), RunError> {
        let mut live = self.live();
        match event {
            RunEvent::Started(s) => {
                (live.generation, live.epoch) = (s.generation, s.epoch);
                live.started = Instant::now();
                live.started_generation = s.generation;
            }
            RunEvent::StepStarted { step, tasks } => {
                let (kind, number) = match step {
                    Step::Generation(g) => ("generation", *g),
                    Step::Benchmark(e) => ("benchmark", u64::from(*e)),
                    Step::Validation(e) => ("validation", u64::from(*e)),
                };
                live.state = kind;
                live.step = Some(StepInfo { kind: kind.into(), number, tasks: *tasks, done: 0 });
            }
            RunEvent::Progress { done, stats } => {
                if let Some(step) = live.step.as_mut() {
                    step.done = *done;
                }
                let now = Instant::now();
                match live.last_sample {
                    None => live.last_sample = Some((now, stats.completed)),
                    Some((at, completed)) if now.duration_since(at) >= SAMPLE_EVERY => {
                        let secs = now.duration_since(at).as_secs_f64();
                        let sample = TaskRate {
                            at_seconds: now.duration_since(live.started).as_secs_f64(),
                            tasks_per_second: stats.completed.saturating_sub(completed) as f64 / secs,
                        };
                        push_bounded(&mut live.tasks, sample);
                        live.last_sample = Some((now, stats.completed));
                    }
                    Some(_) => {}
                }
            }
            RunEvent::GenerationDone { record, .. } => {
                live.generation = record.generation;
                live.figures = record.figures.clone();
                push_bounded(&mut live.games, GenerationRate::from(*record));
            }
            RunEvent::EpochDone(report) => {
                live.epoch = report.epoch;
                live.epochs.push(Arc::new((*report).clone()));
            }
            RunEvent::Validated(record) => live.validation.push(Arc::new((*record).clone())),
            RunEvent::RolledBack(s) => {
                // What the run goes on from: later epochs and lines are played again.
                (live.generation, live.epoch, live.figures) = (s.generation, s.epoch, None);
                live.epochs.truncate(s.epochs.len());
                let finished = s.epochs.last().map(|r| r.epoch);
                live.validation.retain(|v| finished.is_some_and(|f| v.epoch <= f));
            }
            RunEvent::Stopped(s) | RunEvent::Finished(s) => {
                let state = if matches!(event, RunEvent::Stopped(_)) { "stopped" } else { "finished" };
                (live.state, live.generation, live.epoch, live.step) = (state, s.generation, s.epoch, None);
                live.ended = Some(Instant::now());
            }
            _ => {}
        }
        Ok(())
    }
}

/// A dashboard serving a live run.
pub struct Dashboard {
    state: Arc<DashboardState>,
    server: loa_dashboard::Server,
    linger: Duration,
}

impl Dashboard {
    /// The subscriber to add to the run's list.
    pub fn subscriber(&self) -> &dyn Subscriber {
        self.state.as_ref()
    }

    /// Keeps serving for the linger time (cut short by `stop`), saying so, then shuts the
    /// server down.
    pub fn finish(self, stop: &AtomicBool) {
        if !self.linger.is_zero() && !stop.load(Ordering::Acquire) {
            let live = self.state.live();
            let how = if matches!(live.state, "finished" | "stopped") { live.state } else { "ended" };
            eprintln!(
                "master: the run has {} at epoch {} (generation {}); the dashboard stays up on http://{}/ for {} s \
                 (Ctrl-C to stop it)",
                how,
                live.epoch,
                live.generation,
                self.server.addr(),
                self.linger.as_secs()
            );
        }
        let until = Instant::now() + self.linger;
        while Instant::now() < until && !stop.load(Ordering::Acquire) {
            std::thread::sleep(Duration::from_millis(50));
        }
        self.server.shutdown();
    }
}

/// Starts the dashboard if `options` ask for one (failing at once if the address cannot be
/// bound), and notes its address in the log and on standard error.
pub fn start(
    dir: &RunDir,
    state: &RunState,
    scheduler: &Arc<Scheduler>,
    cluster: Option<&crate::cluster::Server>,
    options: Option<&DashboardOptions>,
    log: &RunLog,
) -> Result<Option<Dashboard>, RunError> {
    let Some(options) = options else { return Ok(None) };
    let counters = cluster.map(|s| Arc::clone(&s.counters));
    let state = Arc::new(DashboardState::new(dir, state, Arc::clone(scheduler), counters));
    let server = loa_dashboard::serve(Arc::clone(&state) as Arc<dyn Provider>, options.listen, options.token.clone())
        .map_err(|e| RunError::Dashboard(options.listen, e))?;
    let _ = options.bound.set(server.addr());
    let hint = if options.token.is_some() { "?token=..." } else { "" };
    log.line(&format!("dashboard on http://{}/{hint}", server.addr()));
    eprintln!("master: dashboard on http://{}/{hint}", server.addr());
    Ok(Some(Dashboard { state, server, linger: options.linger }))
}
