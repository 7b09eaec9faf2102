//! A run from start or checkpoint to its last epoch, and export of individuals.
//!
//! - [`start`], [`resume()`], [`export`], [`show()`]: what the `master` subcommands call.
//! - [`runner`]: the loop of generations and epoch benchmarks over a scheduler.
//! - [`events`]: what a run tells its subscribers (metrics files, log, progress bars).
//! - [`progress`]: the terminal display.
//! - `dashboard` (cargo feature `dashboard`, on by default): the live run's read-only web page.
//! - [`resume`](mod@resume): what a resume continues from, sets aside and checks.
//! - [`rollback`]: going back past a quarantined liar's outcomes.
//! - [`show`](mod@show): a run's summary.
//! - [`validation`](mod@validation): the held-out validation's tasks and lines.
//! - [`clock`]: the compute a run has spent, over its sessions.
//! - [`halt`]: fault injection at phase boundaries, for the crash tests.
//! - [`error`]: why a run stops with an error ([`RunError`]).

pub mod clock;
#[cfg(feature = "dashboard")]
pub mod dashboard;
pub mod error;
pub mod events;
pub mod halt;
pub mod progress;
pub mod resume;
pub mod rollback;
pub mod runner;
pub mod show;
pub mod validation;

pub use error::RunError;
pub use events::{MetricsFiles, RunEvent, RunLog, Step, Subscriber};
pub use halt::{Halt, HaltPoint};
pub use loa_records::RunDir;
use progress::Progress;
pub use resume::resume;
use runner::Runner;
pub use show::{RunOverview, show};

use crate::checkpoint::{CheckpointError, RunState};
use crate::config::{ConfigError, ExperimentConfig};
use crate::generation::initial_population;
use crate::pool::WorkerPool;
use crate::population::{SerialCounter, StoredIndividual};
use crate::rng::GaRng;
use error::io;
use loa_records::EpochReport;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

/// Who does the work and what the terminal shows, for a run or an experiment.
#[derive(Clone, Debug, Default)]
pub struct WorkOptions {
    /// Embedded worker threads (0 only with a cluster).
    pub threads: usize,
    /// Also serve the tasks to remote workers (cluster mode).
    pub cluster: Option<crate::cluster::ClusterOptions>,
    /// Set (e.g. by Ctrl-C) to stop after the work in hand.
    pub stop: Arc<AtomicBool>,
    /// Show progress on standard error.
    pub progress: bool,
}

impl WorkOptions {
    /// `threads` embedded workers, no cluster, no display.
    pub fn embedded(threads: usize) -> WorkOptions {
        WorkOptions { threads, ..WorkOptions::default() }
    }
}

/// How to run: its work, and what only a run has.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// Workers, stopping, display.
    pub work: WorkOptions,
    /// `master run` only: replace a directory that holds run files but no usable checkpoint.
    pub force: bool,
    /// Fault injection: stop at this phase boundary (tests).
    pub halt: Option<Halt>,
    /// Stop at the first epoch boundary at which the run's clock reaches this budget.
    pub budget: clock::Budget,
    /// Keep only this many of the newest epoch checkpoints, deleting older ones as new ones
    /// are written (`None`: keep every one). Not part of the configuration, so a checkpoint's
    /// bytes do not depend on it.
    pub keep_checkpoints: Option<u32>,
    /// Also serve the live dashboard (a read-only web page).
    #[cfg(feature = "dashboard")]
    pub dashboard: Option<dashboard::DashboardOptions>,
}

impl RunOptions {
    /// Embedded workers on `threads` threads, no display, no cluster.
    pub fn embedded(threads: usize) -> RunOptions {
        RunOptions { work: WorkOptions::embedded(threads), ..RunOptions::default() }
    }
}

/// How a run ended.
#[derive(Clone, Debug, PartialEq)]
pub struct RunSummary {
    /// Epochs completed.
    pub epoch: u32,
    /// Generations completed.
    pub generation: u64,
    /// Whether the run stopped early on request (Ctrl-C, or its budget spent).
    pub stopped: bool,
    /// Why it stopped, if its budget ([`RunOptions::budget`]) was spent.
    pub out_of_budget: Option<String>,
    /// The last epoch's report.
    pub last_report: Option<EpochReport>,
}

/// The files a run writes in its directory (`--force` removes these and nothing else).
fn run_files(dir: &RunDir) -> [PathBuf; 6] {
    [dir.checkpoints(), dir.generations(), dir.epochs(), dir.validation(), dir.log(), dir.config()]
}

/// Whether `dir` holds a checkpoint that loads: `Ok(true)` if so, `Ok(false)` if it holds no run
/// files at all, `Err(problems)` if it holds run files but nothing usable (no problem: no
/// checkpoint at all).
fn usable(dir: &RunDir) -> Result<bool, Vec<CheckpointError>> {
    if !run_files(dir).iter().any(|p| p.exists()) {
        return Ok(false);
    }
    let mut problems = Vec::new();
    let epochs = resume::epoch_checkpoints(dir).into_iter().map(|(_, path)| path);
    for path in std::iter::once(dir.latest_checkpoint()).chain(epochs).filter(|p| p.exists()) {
        match RunState::load(&path) {
            Ok(_) => return Ok(true),
            Err(e) => problems.push(e),
        }
    }
    Err(problems)
}

/// Starts a new run in `out`. A directory that already holds a usable run is refused; one that
/// holds run files but no usable checkpoint (a run killed before its first checkpoint) is
/// refused too unless `options.force`, which removes those files first. The initial population
/// is checkpointed before its benchmark, so a crash from then on can be resumed.
pub fn start(config: ExperimentConfig, out: &Path, options: &RunOptions) -> Result<RunSummary, RunError> {
    config.validate()?;
    // The scheme's settings in full, as the run directory and the checkpoints keep them.
    let config = crate::selection::normalized(&config)?;
    let mut scheme = crate::selection::build(&config)?;
    let dir = RunDir::new(out);
    match usable(&dir) {
        Ok(true) => return Err(RunError::Exists(out.to_path_buf())),
        Ok(false) => {}
        Err(problems) if !options.force => return Err(RunError::Unusable { dir: out.to_path_buf(), problems }),
        Err(_) => remove_run_files(&dir)?,
    }
    // Made before anything is written, so a missing or malformed network file leaves no run
    // files.
    let (mut rng, mut serials) = (GaRng::from_seed(config.seed), SerialCounter::default());
    let population = match scheme.given_population(&config, &mut serials)? {
        Some(population) => population,
        None => initial_population(&config, config.network, &mut rng, &mut serials)?,
    };
    if let Some(other) = population.iter().map(|i| i.chromosome.topology()).find(|&t| t != config.network) {
        let why = format!(
            "the run's network is {} but its initial network is {other}: set `network` to the file's shape, or give a \
             network of the run's",
            config.network
        );
        return Err(ConfigError::Invalid { key: "network".into(), why }.into());
    }
    let state = RunState {
        scheme_state: scheme.save().map_err(RunError::SchemeState)?,
        config,
        generation: 0,
        epoch: 0,
        serials,
        rng,
        population: population.iter().cloned().map(StoredIndividual::from).collect(),
        epochs: Vec::new(),
        clock: Default::default(),
    };
    let existed = out.exists();
    std::fs::create_dir_all(dir.checkpoints()).map_err(io(&dir.checkpoints()))?;
    std::fs::write(dir.config(), state.config.to_toml()).map_err(io(&dir.config()))?;
    state.save(&dir.latest_checkpoint())?;
    Halt::check(options.halt.as_ref(), HaltPoint::BeforeFirstBenchmark)?;
    let result = execute(&dir, state, options);
    if matches!(result, Err(RunError::Pool(_) | RunError::Dashboard(..))) {
        // The run never began (an address in use): leave the directory as it was, so that the
        // same command can be given again.
        remove_run_files(&dir)?;
        if !existed {
            let _ = std::fs::remove_dir(out);
        }
    }
    result
}

/// Removes the files a run writes in `dir`.
fn remove_run_files(dir: &RunDir) -> Result<(), RunError> {
    for path in run_files(dir) {
        let removed = if path.is_dir() { std::fs::remove_dir_all(&path) } else { std::fs::remove_file(&path) };
        match removed {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(RunError::Io(path, e)),
            _ => {}
        }
    }
    Ok(())
}

fn execute(dir: &RunDir, state: RunState, options: &RunOptions) -> Result<RunSummary, RunError> {
    let log = RunLog::new(dir.clone(), Instant::now());
    // In cluster mode the run may have no embedded worker at all.
    let pool = WorkerPool::start(options.work.threads, options.work.cluster.as_ref())?;
    let (metrics, progress) = (MetricsFiles(dir.clone()), Progress::new(options.work.progress, &state));
    if let Some(server) = &pool.server {
        // Each worker holds a connection: the limit bounds how many can come.
        let limit = server.open_files.map_or(String::new(), |n| format!(" (open-files limit {n}: one a worker)"));
        let line = format!("serving workers on {}{limit}", server.addr);
        log.line(&line);
        progress.say(&line);
    }
    #[cfg(feature = "dashboard")]
    let dashboard =
        dashboard::start(dir, &state, &pool.scheduler, pool.server.as_ref(), options.dashboard.as_ref(), &log)?;
    #[cfg_attr(not(feature = "dashboard"), allow(unused_mut))]
    let mut subscribers: Vec<&dyn Subscriber> = vec![&metrics, &log, &progress];
    #[cfg(feature = "dashboard")]
    subscribers.extend(dashboard.as_ref().map(|d| d.subscriber()));
    let runner = Runner {
        dir,
        scheduler: &pool.scheduler,
        options,
        subscribers: &subscribers,
        cluster: pool.server.as_ref().map(|s| Arc::clone(&s.counters)),
        drops_seen: Default::default(),
        joins_seen: Default::default(),
        clock: clock::SessionClock::start(state.clock),
    };
    let result = runner.run(state);
    #[cfg(feature = "dashboard")]
    if let Some(dashboard) = dashboard {
        dashboard.finish(&options.work.stop);
    }
    if matches!(&result, Ok(summary) if !summary.stopped) {
        pool.scheduler.close_for_good();
    }
    if let Some(summary) = pool.finish() {
        log.line(&summary);
    }
    result
}

/// Which individual of an epoch `master export` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pick {
    /// The one at this index of the population (0-based).
    Index(usize),
    /// The epoch's best by benchmark ([`EpochReport::champion`]).
    Best,
    /// The network the run's validation plays at that epoch
    /// ([`crate::selection::Scheme::validated`]): the best by benchmark unless the scheme keeps a
    /// network of its own (ES's centre, PBT's best learner).
    Validated,
}

/// An individual written by [`export`].
#[derive(Clone, Debug, PartialEq)]
pub struct Exported {
    /// Its index in the population.
    pub index: usize,
    /// Its birth serial.
    pub serial: u64,
    /// Its chromosome as JSON (what `loa` reads as `net:DEPTH:FILE`).
    pub json: String,
}

/// Writes the individual `pick` of the population saved at the end of `epoch` as chromosome
/// JSON.
pub fn export(dir: &Path, epoch: u32, pick: Pick) -> Result<Exported, RunError> {
    let state = load(resume::run_dir(dir)?.epoch_checkpoint(epoch))?;
    let index = match pick {
        Pick::Index(index) => index,
        Pick::Best => {
            let best = state.epochs.iter().rfind(|r| r.epoch == epoch).and_then(EpochReport::champion);
            let index = best.and_then(|b| state.population.iter().position(|i| i.serial == b.serial));
            index.ok_or(RunError::NoBest(epoch))?
        }
        Pick::Validated => {
            let report = state.epochs.iter().rfind(|r| r.epoch == epoch).ok_or(RunError::NoBest(epoch))?;
            let survivors = state.individuals()?;
            let validated = state.scheme()?.validated(&survivors, report).ok_or(RunError::NoBest(epoch))?;
            let index = state.population.iter().position(|i| i.serial == validated.serial);
            index.ok_or(RunError::NoBest(epoch))?
        }
    };
    let count = state.population.len();
    let stored = state.population.get(index).ok_or(RunError::NoIndividual { epoch, index, count })?;
    let json = crate::population::Individual::try_from(stored.clone())?.chromosome.to_json();
    Ok(Exported { index, serial: stored.serial, json })
}

/// The last epoch of the run in `dir` that has an epoch checkpoint (what `master export`
/// exports unless told an epoch).
pub fn last_epoch(dir: &Path) -> Result<u32, RunError> {
    let run = resume::run_dir(dir)?;
    let last = resume::epoch_checkpoints(&run).last().map(|(epoch, _)| *epoch);
    last.ok_or_else(|| RunError::NoCheckpoint(run.epoch_checkpoint(0)))
}

/// The checkpoint at `path`, which must exist.
fn load(path: PathBuf) -> Result<RunState, RunError> {
    if !path.exists() {
        return Err(RunError::NoCheckpoint(path));
    }
    Ok(RunState::load(&path)?)
}
