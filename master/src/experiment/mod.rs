//! Experiments: two players, many two-game matches played as tasks through the scheduler (on
//! embedded workers or a cluster of `worker`s), every game written as `analysis matches` reads.
//! A match with an external engine (`engine:CMD`) is played by the master itself, on
//! `--threads` threads of its own ([`crate::local`]): no worker runs a program it is named.
//! The output is a function of the configuration alone: tasks have fixed ids, outcomes are
//! collected by id and written in match order, so any number of workers writes the same bytes.
//!
//! - [`config`]: the experiment file (`experiments/eN.toml`).
//! - [`side`]: each player's spec ([`loa_engine::spec`]) with its files read, a `run:` spec
//!   expanded into the run's survivors by epoch.
//! - [`plan`]: matches, tasks and the per-game lines.

pub mod config;
pub mod plan;
pub mod side;

pub use config::MatchExperiment;
pub use plan::{MatchTally, PlannedMatch};
pub use side::{Side, SideError};

use crate::config::ConfigError;
use crate::local::{LocalTask, Work};
use crate::pool::{PoolError, WorkerPool};
use crate::scheduler::TaskId;
use loa_engine::spec::PlayerSpec;
use loa_engine::tasks::{MatchSummary, OutcomeMismatch, Task, TaskOutcome};
use loa_records::jsonl::write_lines;
use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// How to play an experiment: workers, stopping (nothing is written then), display.
pub type ExperimentOptions = crate::run::WorkOptions;

/// Why an experiment stopped without results.
#[derive(Debug, thiserror::Error)]
pub enum ExperimentError {
    /// The configuration is invalid.
    #[error("{0}")]
    Config(#[from] ConfigError),
    /// A player's files could not be used: its key (`a` or `b`), and why.
    #[error("player `{0}`: {1}")]
    Player(&'static str, #[source] SideError),
    /// The experiment would play more matches than its `max_matches`.
    #[error(
        "the experiment plans {planned} two-game matches, more than max_matches = {max}: name fewer epochs or \
         entrants, lower `matches`, or raise `max_matches` if the machine can hold and play them"
    )]
    TooManyMatches {
        /// Matches it would play.
        planned: u128,
        /// The configured bound.
        max: u64,
    },
    /// No worker could play: `threads` 0 without a cluster.
    #[error("no workers: give --threads at least 1, or --listen")]
    NoWorkers,
    /// The workers could not start.
    #[error("{0}")]
    Pool(#[from] PoolError),
    /// A task failed or its outcome does not fit it: the task's id, and why.
    #[error("task {0}: {1}")]
    Task(TaskId, String),
    /// Stopped on request before every task was played.
    #[error("stopped before every match was played; nothing written")]
    Stopped,
    /// A match with an external engine, which the master plays itself, failed.
    #[error("{0}")]
    Local(#[from] crate::local::LocalError),
    /// Writing an output file failed.
    #[error("{0}: {1}")]
    Io(PathBuf, #[source] std::io::Error),
}

/// The results of an experiment: its tallies (the file has every game).
#[derive(Clone, Debug)]
pub struct ExperimentReport {
    /// The configuration's title.
    pub title: String,
    /// Player A's spec, then B's.
    pub specs: [String; 2],
    /// All matches.
    pub total: MatchTally,
    /// Per epoch of a `run:` spec for A: the epoch and its matches.
    pub by_epoch: Vec<(u32, MatchTally, PathBuf)>,
    /// Tasks played.
    pub tasks: usize,
    /// Wall time.
    pub wall: Duration,
    /// The cluster summary, when serving remote workers.
    pub cluster: Option<String>,
}

fn pct(n: u32, of: u32) -> f64 {
    if of == 0 { 0.0 } else { 100.0 * f64::from(n) / f64::from(of) }
}

/// The 95 % Wilson score interval of `n` successes in `of` trials, in percent (0-100 for none).
fn wilson(n: u32, of: u32) -> (f64, f64) {
    loa_records::interval::wilson95(n.into(), of.into()).map_or((0.0, 100.0), |(lo, hi)| (100.0 * lo, 100.0 * hi))
}

/// "n (p %, 95 % CI lo-hi)".
fn share(n: u32, of: u32) -> String {
    let (lo, hi) = wilson(n, of);
    format!("{n} ({:.1} %, CI {lo:.1}-{hi:.1})", pct(n, of))
}

fn tally_lines(f: &mut fmt::Formatter<'_>, t: &MatchTally, indent: &str) -> fmt::Result {
    let (m, [a, b]) = (t.series.matches, &t.series.sides);
    writeln!(
        f,
        "{indent}matches, docs/spec.md §5 (criterion 4 gives the match to its A): A won {}, B won {}",
        share(a.matches_won, m),
        share(b.matches_won, m)
    )?;
    writeln!(
        f,
        "{indent}matches, criterion 4 as a tie: A won {}, B won {}, tied {} ({} of them A's by default)",
        share(t.decided[0], m),
        share(t.decided[1], m),
        share(t.ties, m),
        t.ties_to_first
    )
}

impl fmt::Display for ExperimentReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.title.is_empty() {
            writeln!(f, "{}", self.title)?;
        }
        let ([spec_a, spec_b], t, tasks) = (&self.specs, &self.total.series, self.tasks);
        let (games, matches, a, at_cap) = (t.games, t.matches, &t.sides[0], self.total.games_at_cap);
        let secs = self.wall.as_secs_f64();
        writeln!(
            f,
            "A = {spec_a}, B = {spec_b}: {matches} two-game matches ({games} games, {tasks} tasks) in {secs:.1} s"
        )?;
        writeln!(f, "  games: mean {:.1} plies, {at_cap} ({:.1} %) at the ply cap", t.mean_plies, pct(at_cap, games))?;
        writeln!(
            f,
            "  games, A's view: won {}, lost {}, drawn {}; A's mean score {:.2}",
            share(a.wins, games),
            share(a.losses, games),
            share(a.draws, games),
            a.mean_score
        )?;
        tally_lines(f, &self.total, "  ")?;
        for (epoch, tally, path) in &self.by_epoch {
            writeln!(f, "  epoch {epoch} ({}):", path.display())?;
            tally_lines(f, tally, "    ")?;
        }
        if let Some(c) = &self.cluster {
            writeln!(f, "  {c}")?;
        }
        Ok(())
    }
}

/// The task of `work` if it is the master's to play.
fn local_task(work: Work) -> Option<LocalTask> {
    match work {
        Work::Master(task) => Some(task),
        Work::Worker(_) => None,
    }
}

/// Plays `tasks` (with their ids) on the workers: their outcomes in order, and the cluster
/// summary when serving remote workers.
#[allow(clippy::type_complexity)]
fn play_on_workers(
    tasks: &[(&TaskId, &plan::PlannedTask)],
    options: &ExperimentOptions,
    started: Instant,
) -> Result<(Vec<Result<TaskOutcome, String>>, Option<String>), ExperimentError> {
    let pool = WorkerPool::start(options.threads, options.cluster.as_ref())?;
    if let Some(server) = &pool.server {
        eprintln!("serving workers on {}", server.addr);
    }
    let ids: Vec<TaskId> = tasks.iter().map(|(id, _)| **id).collect();
    pool.scheduler.submit(tasks.iter().map(|(id, t)| (**id, Task::Match(t.task.clone()))).collect());
    let total = tasks.len();
    let collected = pool.scheduler.collect(
        &ids,
        || options.stop.load(Ordering::Acquire),
        |done| {
            // Standard error is unbuffered: the line shows at once.
            if options.progress {
                let _ = write!(std::io::stderr(), "\r{done}/{total} tasks, {:.0} s", started.elapsed().as_secs_f64());
            }
        },
    );
    if options.progress {
        eprintln!();
    }
    if collected.is_some() {
        pool.scheduler.close_for_good();
    }
    let cluster = pool.finish();
    let outcomes = collected.ok_or(ExperimentError::Stopped)?;
    Ok((outcomes.into_iter().map(|o| o.map_err(|e| e.to_string())).collect(), cluster))
}

/// The per-epoch file beside `out`: `NAME.epoch-NNNNN.jsonl`.
pub fn epoch_path(out: &Path, epoch: u32) -> PathBuf {
    let stem = out.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    out.with_file_name(format!("{stem}.epoch-{epoch:05}.jsonl"))
}

/// Plays the experiment and writes every game to `out` (and, for a `run:` spec for A naming
/// several epochs, each epoch's games to [`epoch_path`] too).
pub fn run(
    config: &MatchExperiment,
    out: &Path,
    options: &ExperimentOptions,
) -> Result<ExperimentReport, ExperimentError> {
    let started = Instant::now();
    config.validate()?;
    let (spec_a, spec_b) = config.players()?;
    let a = Side::prepare(&spec_a).map_err(|e| ExperimentError::Player("a", e))?;
    let b = Side::prepare(&spec_b).map_err(|e| ExperimentError::Player("b", e))?;
    a.plays_on(config.board).map_err(|e| ExperimentError::Player("a", e))?;
    b.plays_on(config.board).map_err(|e| ExperimentError::Player("b", e))?;
    // With an engine in every match the master plays them all itself: no worker is needed.
    let engine = [&a, &b].iter().any(|side| matches!(side.spec, PlayerSpec::Engine { .. }));
    if options.threads == 0 && options.cluster.is_none() && !engine {
        return Err(ExperimentError::NoWorkers);
    }
    // Counted before the plan is built, which holds every match.
    let planned = config.planned_matches(a.entrants());
    if planned > u128::from(config.max_matches) {
        return Err(ExperimentError::TooManyMatches { planned, max: config.max_matches });
    }
    let planned = plan::plan_matches(config.seed, config.matches, config.swap_colours, &a, &b);
    let tasks = plan::plan_tasks(&planned, &a, &b, config);
    let ids: Vec<TaskId> = (0..tasks.len() as u64).collect();
    let (own, theirs): (Vec<_>, Vec<_>) = ids.iter().zip(&tasks).partition(|(_, t)| !t.engines.is_empty());
    let stopped = || options.stop.load(Ordering::Acquire);
    // The master's own first: an engine that fails says so before the workers' share is played.
    let own_work: Vec<LocalTask> = own.iter().filter_map(|(_, t)| local_task(t.work())).collect();
    let own_done = AtomicUsize::new(0);
    let own_refs: Vec<&LocalTask> = own_work.iter().collect();
    let ours = crate::local::play_all(&own_refs, options.threads, &stopped, &own_done)?;
    let mut ours = ours.ok_or(ExperimentError::Stopped)?.into_iter().map(|o| Ok(TaskOutcome::Match(o)));
    let (theirs, cluster) = match theirs.is_empty() {
        true => (Vec::new(), None),
        false => play_on_workers(&theirs, options, started)?,
    };
    let mut theirs = theirs.into_iter();
    // Back in task order.
    let outcomes: Vec<Result<TaskOutcome, String>> = tasks
        .iter()
        .map(|t| if t.engines.is_empty() { theirs.next() } else { ours.next() })
        .collect::<Option<_>>()
        .ok_or_else(|| ExperimentError::Task(0, "fewer outcomes than tasks".into()))?;

    // Tasks hold consecutive matches in order, and a checked outcome has one summary a pairing.
    let mut played: Vec<(PlannedMatch, MatchSummary)> = Vec::with_capacity(planned.len());
    for ((id, planned_task), outcome) in ids.iter().zip(&tasks).zip(outcomes) {
        let bad = |why: String| ExperimentError::Task(*id, why);
        let outcome = outcome.map_err(bad)?.into_match();
        let outcome = outcome.ok_or_else(|| bad(OutcomeMismatch::Kind.to_string()))?;
        planned_task.task.check_outcome(&outcome).map_err(|e| bad(e.to_string()))?;
        played.extend(planned_task.matches.iter().map(|&index| planned[index]).zip(outcome.matches));
    }

    // The match file of `played` with `spec` as the first player, and its tally.
    let series = |played: &[(PlannedMatch, MatchSummary)], spec: &str, path: &Path| {
        let (lines, tally) = plan::series_lines(played, [spec, &config.b], config);
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| ExperimentError::Io(dir.to_path_buf(), e))?;
        }
        write_lines(path, &lines).map_err(|e| ExperimentError::Io(path.to_path_buf(), e))?;
        Ok::<_, ExperimentError>(tally)
    };
    let total_tally = series(&played, &config.a, out)?;
    let mut by_epoch = Vec::new();
    if let PlayerSpec::Run { depth, dir, epochs } = &a.spec
        && epochs.len() > 1
    {
        for &epoch in epochs {
            let subset: Vec<(PlannedMatch, MatchSummary)> = played
                .iter()
                .filter(|(m, _)| a.nets.get(m.a_entrant).and_then(|n| n.epoch) == Some(epoch))
                .copied()
                .collect();
            let spec = PlayerSpec::Run { depth: *depth, dir: dir.clone(), epochs: vec![epoch] }.to_string();
            let path = epoch_path(out, epoch);
            by_epoch.push((epoch, series(&subset, &spec, &path)?, path));
        }
    }
    Ok(ExperimentReport {
        title: config.title.clone(),
        specs: [config.a.clone(), config.b.clone()],
        total: total_tally,
        by_epoch,
        tasks: tasks.len(),
        wall: started.elapsed(),
        cluster,
    })
}
