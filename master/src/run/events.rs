//! What a run tells the world as it goes: [`RunEvent`]s sent to [`Subscriber`]s, which write
//! the metrics files ([`MetricsFiles`]) and the log ([`RunLog`]), draw the progress bars and feed
//! a dashboard. Events come before the checkpoint that records the same step, so a crash between
//! the two leaves a metrics line that `resume` cuts back and redoes.

use super::RunError;
use crate::cluster::Dropped;
use crate::scheduler::SchedulerStats;
use loa_records::jsonl::append_line;
use loa_records::{EpochReport, GenerationRecord, RunDir, WorkerRecord};
use std::io::Write;
use std::net::SocketAddr;
use std::time::Instant;

/// The step a run is working on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Breeding and the tournaments of this generation.
    Generation(u64),
    /// The benchmark that ends this epoch (0: the initial population).
    Benchmark(u32),
}

/// Something that happened in a run.
#[derive(Clone, Copy, Debug)]
pub enum RunEvent<'a> {
    /// The run starts or resumes at this point, aiming for `target` epochs.
    Started {
        /// Generations completed.
        generation: u64,
        /// Epochs completed.
        epoch: u32,
        /// The configured number of epochs.
        target: u32,
        /// Generations per epoch.
        generations_per_epoch: u32,
    },
    /// The cluster service listens on this address, with this open-files limit (each worker
    /// holds a connection; `None` where it cannot be read).
    Serving(SocketAddr, Option<u64>),
    /// A step's tasks were submitted.
    StepStarted {
        /// The step.
        step: Step,
        /// Its task count.
        tasks: usize,
    },
    /// Tasks done so far in the current step, with the scheduler's counters (about 10 times a
    /// second).
    Progress {
        /// Tasks of the step with an outcome.
        done: usize,
        /// The scheduler's counters.
        stats: &'a SchedulerStats,
    },
    /// A generation finished; its checkpoint follows.
    GenerationDone(&'a GenerationRecord),
    /// What each remote worker did in a generation (cluster mode).
    Workers {
        /// The generation.
        generation: u64,
        /// One record per worker registered at its end.
        records: &'a [WorkerRecord],
    },
    /// An epoch's benchmark finished; its checkpoints follow.
    EpochDone(&'a EpochReport),
    /// The master dropped a remote worker.
    WorkerDropped(&'a Dropped),
    /// An epoch's champion (its best benchmarked network) joined the hall of fame.
    Champion {
        /// The epoch.
        epoch: u32,
        /// The champion's birth serial.
        serial: u64,
        /// Champions in the hall of fame now.
        members: usize,
    },
    /// The run stopped early on request (Ctrl-C); `master resume` continues it.
    Stopped {
        /// Generations completed.
        generation: u64,
        /// Epochs completed.
        epoch: u32,
    },
    /// The run reached its target.
    Finished {
        /// Generations completed.
        generation: u64,
        /// Epochs completed.
        epoch: u32,
    },
    /// The cluster's traffic over the whole run, at its end.
    ClusterSummary(&'a str),
}

/// Receives a run's events. A subscriber whose work is part of the run's record (the metrics
/// files) returns its failures, which stop the run; the others swallow theirs.
pub trait Subscriber: Send + Sync {
    /// Handles one event.
    fn notify(&self, event: &RunEvent<'_>) -> Result<(), RunError>;
}

/// Appends `generations.jsonl` and `epochs.jsonl` lines.
pub struct MetricsFiles {
    dir: RunDir,
}

impl MetricsFiles {
    /// The metrics files of `dir`.
    pub fn new(dir: RunDir) -> MetricsFiles {
        MetricsFiles { dir }
    }
}

impl Subscriber for MetricsFiles {
    fn notify(&self, event: &RunEvent<'_>) -> Result<(), RunError> {
        let (path, result) = match event {
            RunEvent::GenerationDone(record) => (self.dir.generations(), append_line(&self.dir.generations(), record)),
            RunEvent::EpochDone(report) => (self.dir.epochs(), append_line(&self.dir.epochs(), report)),
            _ => return Ok(()),
        };
        result.map_err(super::error::io(&path))
    }
}

/// Most workers a [`RunLog`] line names; the rest are summed up, so the log stays readable.
pub const WORKERS_LISTED: usize = 16;

/// The human-readable `run.log`: one timestamped line per notable event.
pub struct RunLog {
    dir: RunDir,
    started: Instant,
}

impl RunLog {
    /// The log of `dir`, timing from `started`.
    pub fn new(dir: RunDir, started: Instant) -> RunLog {
        RunLog { dir, started }
    }

    /// Appends a line (a log that cannot be written does not stop the run).
    pub fn line(&self, message: &str) {
        let stamp = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
        let line = format!("[unix {stamp} | +{:.1}s] {message}\n", self.started.elapsed().as_secs_f64());
        if let Ok(mut f) = std::fs::OpenOptions::new().create(true).append(true).open(self.dir.log()) {
            let _ = f.write_all(line.as_bytes());
        }
    }
}

impl Subscriber for RunLog {
    fn notify(&self, event: &RunEvent<'_>) -> Result<(), RunError> {
        let message = match event {
            RunEvent::Started { generation, epoch, target, .. } => {
                format!("run at generation {generation} epoch {epoch}, target {target} epochs")
            }
            RunEvent::Serving(addr, open_files) => {
                let limit = open_files.map_or(String::new(), |n| format!(" (open-files limit {n}: one a worker)"));
                format!("serving workers on {addr}{limit}")
            }
            RunEvent::GenerationDone(r) => {
                let fitness = r.fitness.as_ref().map_or(String::new(), |f| {
                    let fixed = f.vs_fixed.map_or(String::new(), |v| format!(", {v:.2} vs fixed opponents"));
                    let rung = match (f.rung, f.vs_rung) {
                        (Some(r), Some(p)) => format!(", ladder rung {r} {p:.2} points/game"),
                        _ => String::new(),
                    };
                    let step = f.mean_step.map_or(String::new(), |s| format!(", mean step {s:.4}"));
                    format!("; {} per game best {:.2} mean {:.2}{fixed}{rung}{step}", f.unit, f.best, f.mean)
                });
                format!(
                    "generation {}: {} games, {:.1} plies/game, {:.1} games/s, {} survivors kept{fitness}",
                    r.generation, r.games, r.mean_plies, r.games_per_second, r.survivors_kept
                )
            }
            RunEvent::Workers { generation, records } => worker_line(*generation, records),
            RunEvent::EpochDone(r) => {
                format!("epoch {}: benchmark best {} mean {:.1} median {:.1}", r.epoch, r.best, r.mean, r.median)
            }
            RunEvent::WorkerDropped(d) => format!("worker {} dropped: {}", d.name, d.reason),
            RunEvent::Champion { epoch, serial, members } => {
                format!("hall of fame: #{serial}, epoch {epoch}'s best, joins ({members} champions)")
            }
            RunEvent::Stopped { generation, epoch } => format!("stopped at generation {generation} (epoch {epoch})"),
            RunEvent::Finished { generation, epoch } => format!("finished: {epoch} epochs, {generation} generations"),
            RunEvent::ClusterSummary(s) => (*s).to_owned(),
            RunEvent::StepStarted { .. } | RunEvent::Progress { .. } => return Ok(()),
        };
        self.line(&message);
        Ok(())
    }
}

/// One line for the log: each worker's tasks done during a generation and its rate (the first
/// [`WORKERS_LISTED`]), and how many were seen straggling.
pub fn worker_line(generation: u64, records: &[WorkerRecord]) -> String {
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
