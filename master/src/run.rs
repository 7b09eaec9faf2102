//! A run from start or checkpoint to its last epoch: generations, benchmarks, checkpoints,
//! metrics and the log, over a [`Scheduler`] fed by embedded (or remote) workers.

use crate::checkpoint::{CheckpointError, RunState, StoredIndividual};
use crate::config::{ConfigError, ExperimentConfig};
use crate::generation::{Group, breed, initial_population, select};
use crate::metrics::{benchmark_entry, match_summary};
use crate::population::{Individual, SerialCounter};
use crate::progress::Progress;
use crate::rng::GaRng;
use crate::scheduler::{Scheduler, TaskId, WorkerId, WorkerInfo, spawn_embedded_workers};
use loa_engine::network::{ChromosomeError, Topology};
use loa_engine::random::derive_seed;
use loa_engine::tasks::{BenchmarkTask, Task, TaskOutcome, TournamentTask};
pub use loa_records::RunDir;
use loa_records::jsonl::{append_line, truncate_after};
use loa_records::{EpochReport, GenerationRecord, TournamentRecord, WorkerRecord};
use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Why a run stopped with an error.
#[derive(Debug)]
pub enum RunError {
    /// The configuration is invalid.
    Config(ConfigError),
    /// A checkpoint could not be written or read.
    Checkpoint(CheckpointError),
    /// A file or directory could not be used.
    Io(PathBuf, std::io::Error),
    /// `master run` refuses to overwrite a run.
    Exists(PathBuf),
    /// The run directory has no such checkpoint.
    NoCheckpoint(PathBuf),
    /// An individual is invalid.
    Chromosome(ChromosomeError),
    /// A worker could not play a task (a bug: tasks made by the master are valid).
    Task(String),
    /// The cluster service could not start.
    Cluster(String),
    /// `master export` asked for an individual the population does not have.
    NoIndividual {
        /// The epoch asked for.
        epoch: u32,
        /// The index asked for.
        index: usize,
        /// The population size.
        count: usize,
    },
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Config(e) => write!(f, "{e}"),
            RunError::Checkpoint(e) => write!(f, "{e}"),
            RunError::Io(p, e) => write!(f, "{}: {e}", p.display()),
            RunError::Exists(p) => {
                write!(f, "{} already holds a run: use `master resume {}` or another --out", p.display(), p.display())
            }
            RunError::NoCheckpoint(p) => write!(f, "no checkpoint {}", p.display()),
            RunError::Chromosome(e) => write!(f, "{e}"),
            RunError::Task(e) => write!(f, "a worker could not play a task: {e}"),
            RunError::Cluster(e) => write!(f, "cluster service: {e}"),
            RunError::NoIndividual { epoch, index, count } => {
                write!(f, "epoch {epoch} has individuals 0..{count}; there is no individual {index}")
            }
        }
    }
}

impl std::error::Error for RunError {}

impl From<CheckpointError> for RunError {
    fn from(e: CheckpointError) -> Self {
        RunError::Checkpoint(e)
    }
}

impl From<ChromosomeError> for RunError {
    fn from(e: ChromosomeError) -> Self {
        RunError::Chromosome(e)
    }
}

/// How to run: workers, stopping, display.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Embedded worker threads.
    pub threads: usize,
    /// Set (e.g. by Ctrl-C) to stop after the work in hand is written.
    pub stop: Arc<AtomicBool>,
    /// Show progress bars on the terminal.
    pub progress: bool,
    /// Also serve the scheduler to remote workers (cluster mode).
    pub cluster: Option<crate::cluster::ClusterOptions>,
}

/// How a run ended.
#[derive(Clone, Debug, PartialEq)]
pub struct RunSummary {
    /// Epochs completed.
    pub epoch: u32,
    /// Generations completed.
    pub generation: u64,
    /// Whether the run stopped early on request.
    pub stopped: bool,
    /// The last epoch's report.
    pub last_report: Option<EpochReport>,
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> RunError + '_ {
    move |e| RunError::Io(path.to_path_buf(), e)
}

/// Starts a new run in `out` (which must not already hold one).
pub fn start(config: ExperimentConfig, out: &Path, options: &RunOptions) -> Result<RunSummary, RunError> {
    config.validate().map_err(RunError::Config)?;
    let dir = RunDir::new(out);
    if dir.checkpoints().exists() || dir.generations().exists() {
        return Err(RunError::Exists(out.to_path_buf()));
    }
    std::fs::create_dir_all(dir.checkpoints()).map_err(io(&dir.checkpoints()))?;
    std::fs::write(dir.config(), config.to_toml()).map_err(io(&dir.config()))?;
    let mut rng = GaRng::from_seed(config.seed);
    let mut serials = SerialCounter::new();
    let population = initial_population(&config, Topology::default(), &mut rng, &mut serials)?;
    let state = RunState {
        config,
        generation: 0,
        epoch: 0,
        serials,
        rng,
        population: population.iter().map(StoredIndividual::from_individual).collect(),
        epochs: Vec::new(),
    };
    execute(&dir, state, options)
}

/// Resumes the run in `dir` from its latest generation, or from the end of `from_epoch`; runs
/// `more_epochs` more epochs if given, else up to the configuration's `epochs`.
pub fn resume(
    dir: &Path,
    from_epoch: Option<u32>,
    more_epochs: Option<u32>,
    options: &RunOptions,
) -> Result<RunSummary, RunError> {
    let dir = RunDir::new(dir);
    let path = match from_epoch {
        Some(e) => dir.epoch_checkpoint(e),
        None => dir.latest_checkpoint(),
    };
    if !path.exists() {
        return Err(RunError::NoCheckpoint(path));
    }
    let mut state = RunState::load(&path)?;
    if let Some(more) = more_epochs {
        state.config.epochs = state.epoch + more;
    }
    truncate_after(&dir.generations(), state.generation).map_err(io(&dir.generations()))?;
    truncate_after(&dir.epochs(), state.generation).map_err(io(&dir.epochs()))?;
    execute(&dir, state, options)
}

/// Appends a timestamped line to the run's log.
fn log(dir: &RunDir, started: Instant, message: &str) {
    let stamp = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let line = format!("[unix {stamp} | +{:.1}s] {message}\n", started.elapsed().as_secs_f64());
    if let Ok(mut f) = std::fs::OpenOptions::new().create(true).append(true).open(dir.log()) {
        let _ = f.write_all(line.as_bytes());
    }
}

/// The id of task `index` of generation `generation` (benchmarks are told apart by a bit), so a
/// restarted master gives the same task the same id.
fn task_id(generation: u64, benchmark: bool, index: usize) -> TaskId {
    (generation << 24) | (u64::from(benchmark) << 23) | index as u64
}

fn execute(dir: &RunDir, state: RunState, options: &RunOptions) -> Result<RunSummary, RunError> {
    let lease_time = options.cluster.as_ref().map_or(Duration::from_secs(600), |c| c.lease_time);
    let scheduler = Arc::new(Scheduler::new(lease_time));
    let started = Instant::now();
    let server = match &options.cluster {
        Some(c) => {
            let server = crate::cluster::serve(&scheduler, c)
                .map_err(|e| RunError::Cluster(format!("cannot serve on {}: {e}", c.listen)))?;
            log(dir, started, &format!("serving workers on {}", server.addr()));
            Some(server)
        }
        None => None,
    };
    // In cluster mode the run may have no embedded worker at all.
    let workers = match options.threads {
        0 => Vec::new(),
        n => spawn_embedded_workers(&scheduler, n).map_err(io(dir.root()))?,
    };
    let result = Runner { dir, scheduler: &scheduler, options, started }.run(state);
    scheduler.close();
    for w in workers {
        let _ = w.join();
    }
    if let Some(server) = server {
        let c = server.counters();
        let stats = scheduler.stats();
        log(dir, started, &crate::cluster::summary(&stats, c));
        server.shutdown();
    }
    result
}

/// Drives a run over a scheduler.
pub struct Runner<'a> {
    /// The run directory.
    pub dir: &'a RunDir,
    /// Where work goes.
    pub scheduler: &'a Arc<Scheduler>,
    /// Stop flag and display.
    pub options: &'a RunOptions,
    /// When this process started the run.
    pub started: Instant,
}

impl Runner<'_> {
    /// Runs until the target epoch, or until stopped. The initial population is benchmarked as
    /// epoch 0.
    pub fn run(&self, mut state: RunState) -> Result<RunSummary, RunError> {
        let progress = Progress::new(self.options.progress, &state);
        log(
            self.dir,
            self.started,
            &format!(
                "run at generation {} epoch {}, target {} epochs",
                state.generation, state.epoch, state.config.epochs
            ),
        );
        if state.epochs.is_empty() && !self.benchmark(&mut state, &progress)? {
            return Ok(self.summary(&state, true));
        }
        while state.epoch < state.config.epochs {
            if self.options.stop.load(Ordering::Acquire) {
                return Ok(self.summary(&state, true));
            }
            if !self.generation(&mut state, &progress)? {
                return Ok(self.summary(&state, true));
            }
            let gpe = u64::from(state.config.generations_per_epoch);
            if state.generation.is_multiple_of(gpe) && !self.benchmark(&mut state, &progress)? {
                return Ok(self.summary(&state, true));
            }
        }
        progress.finish();
        log(self.dir, self.started, &format!("finished: {} epochs, {} generations", state.epoch, state.generation));
        Ok(self.summary(&state, false))
    }

    fn summary(&self, state: &RunState, stopped: bool) -> RunSummary {
        if stopped {
            log(self.dir, self.started, &format!("stopped at generation {} (epoch {})", state.generation, state.epoch));
        }
        RunSummary {
            epoch: state.epoch,
            generation: state.generation,
            stopped,
            last_report: state.epochs.last().cloned(),
        }
    }

    /// Submits tasks and waits for all outcomes; `None` if stopped first.
    fn play(
        &self,
        tasks: Vec<(TaskId, Task)>,
        mut tick: impl FnMut(usize),
    ) -> Result<Option<Vec<TaskOutcome>>, RunError> {
        let ids: Vec<TaskId> = tasks.iter().map(|(id, _)| *id).collect();
        self.scheduler.submit(tasks);
        let Some(outcomes) = self.scheduler.collect(&ids, &self.options.stop, &mut tick) else {
            return Ok(None);
        };
        outcomes.into_iter().map(|o| o.map_err(RunError::Task)).collect::<Result<Vec<_>, _>>().map(Some)
    }

    /// One generation: breed, play the knockouts, keep the winners, checkpoint.
    fn generation(&self, state: &mut RunState, progress: &Progress) -> Result<bool, RunError> {
        let begun = Instant::now();
        let config = &state.config;
        let survivors = state.individuals()?;
        // Breed on copies: the state changes only once the generation is complete.
        let (mut rng, mut serials) = (state.rng.clone(), state.serials.clone());
        let groups = breed(&survivors, config, &mut rng, &mut serials)?;
        let generation = state.generation + 1;
        let tasks: Vec<(TaskId, Task)> = groups
            .iter()
            .enumerate()
            .map(|(g, group)| {
                let task = TournamentTask {
                    entrants: group.members.iter().map(Individual::entrant).collect(),
                    rules: config.rules,
                    depth: config.network_depth,
                    seed: derive_seed(derive_seed(config.seed, generation), g as u64),
                };
                (task_id(generation, false, g), Task::Tournament(task))
            })
            .collect();
        progress.start_generation(generation, tasks.len());
        let workers_before = self.scheduler.workers();
        // Stragglers are seen while the generation runs: at its end no lease is open any more.
        let mut straggled = HashSet::new();
        let tick = |done| {
            let stats = self.scheduler.stats();
            progress.tick_stats(done, &stats);
            if stats.stragglers > 0 {
                straggled.extend(self.scheduler.workers().into_iter().filter(|(_, w)| w.straggler).map(|(id, _)| id));
            }
        };
        let Some(outcomes) = self.play(tasks, tick)? else {
            return Ok(false);
        };
        let tournaments: Vec<_> = outcomes
            .iter()
            .filter_map(|o| match o {
                TaskOutcome::Tournament(t) => Some(*t),
                TaskOutcome::Benchmark(_) | TaskOutcome::Match(_) => None,
            })
            .collect();
        if tournaments.len() != groups.len() {
            return Err(RunError::Task("a tournament task returned a benchmark outcome".into()));
        }
        let next = select(&groups, &tournaments);
        let mut record = generation_record(
            generation,
            config,
            &groups,
            &tournaments,
            &outcomes,
            begun,
            self.scheduler.stats().workers,
        );
        if self.options.cluster.is_some() {
            let after = self.scheduler.workers();
            record.worker_detail = worker_records(&workers_before, &after, &straggled, begun.elapsed());
        }
        state.population = next.iter().map(StoredIndividual::from_individual).collect();
        state.rng = rng;
        state.serials = serials;
        state.generation = generation;
        append_line(&self.dir.generations(), &record).map_err(io(&self.dir.generations()))?;
        state.save(&self.dir.latest_checkpoint())?;
        progress.end_generation(&record);
        log(
            self.dir,
            self.started,
            &format!(
                "generation {generation}: {} games, {:.1} plies/game, {:.1} games/s, {} survivors kept",
                record.games, record.mean_plies, record.games_per_second, record.survivors_kept
            ),
        );
        if self.options.cluster.is_some() {
            log(self.dir, self.started, &worker_line(generation, &record.worker_detail));
        }
        Ok(true)
    }

    /// Benchmarks the population against the reference player, ends the epoch and checkpoints.
    fn benchmark(&self, state: &mut RunState, progress: &Progress) -> Result<bool, RunError> {
        let config = &state.config;
        let epoch = if state.epochs.is_empty() { 0 } else { state.epoch + 1 };
        let survivors = state.individuals()?;
        let tasks: Vec<(TaskId, Task)> = survivors
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let task = BenchmarkTask {
                    entrant: s.entrant(),
                    reference: config.reference(),
                    depth: config.network_depth,
                    rules: config.rules,
                    seed: derive_seed(derive_seed(config.seed ^ 0xBE4C, state.generation), i as u64),
                };
                (task_id(state.generation, true, i), Task::Benchmark(task))
            })
            .collect();
        progress.start_benchmark(epoch, tasks.len());
        let Some(outcomes) = self.play(tasks, |done| progress.tick_stats(done, &self.scheduler.stats()))? else {
            return Ok(false);
        };
        let entries = survivors
            .iter()
            .zip(&outcomes)
            .filter_map(|(s, o)| match o {
                TaskOutcome::Benchmark(b) => Some(benchmark_entry(s.serial, b)),
                TaskOutcome::Tournament(_) | TaskOutcome::Match(_) => None,
            })
            .collect::<Vec<_>>();
        if entries.len() != survivors.len() {
            return Err(RunError::Task("a benchmark task returned a tournament outcome".into()));
        }
        let report = EpochReport::new(epoch, state.generation, entries);
        state.epoch = epoch;
        state.epochs.push(report.clone());
        append_line(&self.dir.epochs(), &report).map_err(io(&self.dir.epochs()))?;
        state.save(&self.dir.epoch_checkpoint(epoch))?;
        state.save(&self.dir.latest_checkpoint())?;
        progress.end_benchmark(&report);
        log(
            self.dir,
            self.started,
            &format!(
                "epoch {epoch}: benchmark best {} mean {:.1} median {:.1}",
                report.best, report.mean, report.median
            ),
        );
        Ok(true)
    }
}

/// Most workers [`worker_line`] names; the rest are summed up, so the log stays readable.
const WORKERS_LISTED: usize = 16;

/// What each worker did during a generation, from snapshots taken before and after it, with
/// whether it was seen straggling (`straggled`). Workers that left during the generation are not
/// in the second snapshot and are not listed.
fn worker_records(
    before: &[(WorkerId, WorkerInfo)],
    after: &[(WorkerId, WorkerInfo)],
    straggled: &HashSet<WorkerId>,
    took: Duration,
) -> Vec<WorkerRecord> {
    let secs = took.as_secs_f64().max(1e-9);
    let earlier: std::collections::HashMap<WorkerId, u64> = before.iter().map(|(id, w)| (*id, w.completed)).collect();
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

/// One line for the log: each worker's tasks done during a generation and its rate (the first
/// [`WORKERS_LISTED`]), and how many were seen straggling.
fn worker_line(generation: u64, records: &[WorkerRecord]) -> String {
    let parts: Vec<String> = records
        .iter()
        .take(WORKERS_LISTED)
        .map(|w| {
            let flag = if w.straggler { " STRAGGLER" } else { "" };
            format!("{} {} tasks {:.2}/s{flag}", w.name, w.tasks, w.tasks_per_second)
        })
        .collect();
    let more = records.len().saturating_sub(WORKERS_LISTED);
    let more = if more > 0 { format!("; {more} more") } else { String::new() };
    let stragglers = records.iter().filter(|w| w.straggler).count();
    format!("workers, generation {generation}: {}{more} ({stragglers} stragglers)", parts.join("; "))
}

fn generation_record(
    generation: u64,
    config: &ExperimentConfig,
    groups: &[Group],
    tournaments: &[loa_engine::tasks::TournamentOutcome],
    outcomes: &[TaskOutcome],
    begun: Instant,
    workers: usize,
) -> GenerationRecord {
    let games: u32 = outcomes.iter().map(TaskOutcome::game_count).sum();
    let plies: u32 = outcomes.iter().map(TaskOutcome::plies).sum();
    let seconds = begun.elapsed().as_secs_f64();
    let gpe = u64::from(config.generations_per_epoch);
    GenerationRecord {
        generation,
        epoch: generation.div_ceil(gpe) as u32,
        tournaments: groups
            .iter()
            .zip(tournaments)
            .map(|(g, t)| TournamentRecord {
                serials: std::array::from_fn(|i| g.members[i].serial),
                winner: g.members[t.winner.min(3)].serial,
                matches: t.matches.each_ref().map(match_summary),
            })
            .collect(),
        survivors_kept: tournaments.iter().filter(|t| t.winner == 0).count() as u32,
        games,
        mean_plies: if games == 0 { 0.0 } else { f64::from(plies) / f64::from(games) },
        seconds,
        games_per_second: if seconds > 0.0 { f64::from(games) / seconds } else { 0.0 },
        workers,
        worker_detail: Vec::new(),
    }
}

/// Writes individual `index` of the population saved at the end of `epoch` as chromosome JSON.
pub fn export(dir: &Path, epoch: u32, index: usize) -> Result<String, RunError> {
    let dir = RunDir::new(dir);
    let path = dir.epoch_checkpoint(epoch);
    if !path.exists() {
        return Err(RunError::NoCheckpoint(path));
    }
    let state = RunState::load(&path)?;
    let count = state.population.len();
    let stored = state.population.get(index).ok_or(RunError::NoIndividual { epoch, index, count })?;
    Ok(stored.to_individual()?.chromosome.to_json())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(name: &str, completed: u64) -> WorkerInfo {
        let now = Instant::now();
        WorkerInfo {
            name: name.into(),
            completed,
            busy: Duration::ZERO,
            registered: now,
            last_seen: now,
            oldest_lease: None,
            straggler: false,
        }
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
