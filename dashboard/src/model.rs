//! The JSON shapes of `/api/status` and `/api/epochs?summary=1` (the page reads these; scripts
//! may too). Numbers that are unknown are `null`.

use loa_records::{EpochReport, Figures, GenerationRecord};
use serde::{Deserialize, Serialize};

/// Everything `/api/status` reports.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Status {
    /// `"live"` (a running master) or `"run directory"` (read-only from the files).
    pub source: String,
    /// `"starting"`, `"generation"`, `"benchmark"`, `"stopped"`, `"finished"` or, read from a
    /// run directory, `"recorded"`.
    pub state: String,
    /// The run's configuration and seed.
    pub run: RunInfo,
    /// Generations completed.
    pub generation: u64,
    /// Epochs completed (benchmarked).
    pub epoch: u32,
    /// Epoch reports so far (epoch 0 included).
    pub epochs_recorded: usize,
    /// Whether the run validates against held-out opponents (its configuration has
    /// `[validation]`, or it has validation lines).
    pub validating: bool,
    /// Validation lines so far (one per opponent and validation; `/api/validation` has them).
    pub validations_recorded: usize,
    /// The step in hand (live only).
    pub step: Option<StepInfo>,
    /// How far the run is.
    pub progress: ProgressInfo,
    /// Tournament games per second, one sample per generation (the latest [`crate::HISTORY`]).
    pub games_per_second: Vec<GenerationRate>,
    /// Tasks completed per second over time (live only; the latest [`crate::HISTORY`]).
    pub tasks_per_second: Vec<TaskRate>,
    /// The scheduler's and cluster service's counters (live only).
    pub counts: Option<Counts>,
    /// The workers: live, registered now; from a run directory, the last generation's.
    pub workers: Vec<WorkerRow>,
    /// What the run's method reported about generation `generation` (its line's `fitness` in
    /// `generations.jsonl`: the method's own names and order, groups nested); `null` before the
    /// first generation, for a method that reports nothing, and live after a rollback until the
    /// next generation.
    #[serde(default)]
    pub figures: Option<Figures>,
    /// Things a reader should know (e.g. a cut-off last line).
    pub notes: Vec<String>,
}

/// The run's configuration.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RunInfo {
    /// The run directory's name.
    pub name: String,
    /// The run seed.
    pub seed: Option<u64>,
    /// The population size.
    pub population: Option<u64>,
    /// The epochs the run aims for.
    pub target_epochs: Option<u64>,
    /// Generations per epoch.
    pub generations_per_epoch: Option<u64>,
    /// The networks' shape, e.g. `board-nonad-100-20-1`.
    #[serde(default)]
    pub network: String,
    /// The board the games are played on, e.g. `8x8`.
    #[serde(default)]
    pub board: String,
    /// The start position, `standard` or `scrambled-eggs`.
    #[serde(default)]
    pub start: String,
    /// `config.toml` as written.
    pub config_toml: String,
}

/// The step a live run is working on.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StepInfo {
    /// `"generation"` or `"benchmark"`.
    pub kind: String,
    /// The generation number, or the epoch the benchmark ends.
    pub number: u64,
    /// Its tasks.
    pub tasks: usize,
    /// Its tasks with an outcome.
    pub done: usize,
}

/// How far the run is, in generations.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ProgressInfo {
    /// Generations completed.
    pub generations_done: u64,
    /// Generations the run aims for.
    pub generations_total: u64,
    /// The share done, 0 to 1 (the step in hand counted in part).
    pub fraction: f64,
    /// Seconds since this master process started the run (live only).
    pub elapsed_seconds: Option<f64>,
    /// Seconds left at the pace of this process so far, benchmarks included (live only, after a
    /// first generation).
    pub eta_seconds: Option<f64>,
}

/// Throughput of one generation's tournaments.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GenerationRate {
    /// The generation.
    pub generation: u64,
    /// Its games per second.
    pub games_per_second: f64,
    /// Its wall time.
    pub seconds: f64,
}

impl From<&GenerationRecord> for GenerationRate {
    fn from(g: &GenerationRecord) -> GenerationRate {
        GenerationRate { generation: g.generation, games_per_second: g.games_per_second, seconds: g.seconds }
    }
}

/// Tasks completed per second over an interval.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TaskRate {
    /// The interval's end, seconds since the process started the run.
    pub at_seconds: f64,
    /// Tasks accepted per second in it.
    pub tasks_per_second: f64,
}

/// The scheduler's counters and the cluster service's.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Counts {
    /// Tasks waiting for a worker.
    pub queued: usize,
    /// Tasks leased and not yet done.
    pub in_flight: usize,
    /// Outcomes accepted since the master started.
    pub completed: u64,
    /// Leases given back to the queue (deadline missed or worker gone).
    pub re_leased: u64,
    /// Backup copies of straggling tasks.
    pub backups: u64,
    /// Outcomes dropped because the task already had one.
    pub duplicates: u64,
    /// Outcomes dropped because the task was unknown.
    pub unknown: u64,
    /// Outcomes refused because the sender never held a lease on the task.
    pub not_leased: u64,
    /// Tasks a worker could not play.
    pub failed: u64,
    /// Workers registered.
    pub workers: usize,
    /// Registered workers that are stragglers.
    pub stragglers: usize,
    /// Remote outcomes confirmed by a second player or the master (verification by replay).
    #[serde(default)]
    pub verified: u64,
    /// Remote outcomes a second player contradicted.
    #[serde(default)]
    pub mismatches: u64,
    /// Workers quarantined as liars.
    #[serde(default)]
    pub quarantined: u64,
    /// Liars' outcomes played again in place.
    #[serde(default)]
    pub replayed: u64,
    /// Times the run went back past a liar's outcomes.
    #[serde(default)]
    pub rollbacks: u64,
    /// Remote workers dropped so far (cluster mode).
    pub dropped_workers: Option<u64>,
    /// gRPC calls refused for a wrong or missing token (cluster mode).
    pub refused_calls: Option<u64>,
}

/// One row of the worker table.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct WorkerRow {
    /// The name it registered with.
    pub name: String,
    /// Its slots, if its name says (see [`crate::slots_from_name`]).
    pub slots: Option<u32>,
    /// Tasks done (live: since it registered; recorded: in the last generation).
    pub tasks: u64,
    /// Tasks per second over the same span.
    pub tasks_per_second: f64,
    /// The age of its oldest open lease, seconds (live only).
    pub oldest_lease_seconds: Option<f64>,
    /// Whether it is a straggler.
    pub straggler: bool,
}

/// One epoch's benchmark in brief (`/api/epochs?summary=1`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct EpochSummary {
    /// The epoch.
    pub epoch: u32,
    /// Generations completed at its end.
    pub generation: u64,
    /// The best combined score.
    pub best: u32,
    /// The mean combined score.
    pub mean: f64,
    /// The median combined score.
    pub median: f64,
}

impl From<&EpochReport> for EpochSummary {
    fn from(r: &EpochReport) -> EpochSummary {
        EpochSummary { epoch: r.epoch, generation: r.generation, best: r.best, mean: r.mean, median: r.median }
    }
}

impl ProgressInfo {
    /// Progress at `generations_done` of `generations_total`, with `partial` (0 to 1) of the
    /// next generation done.
    pub fn at(generations_done: u64, generations_total: u64, partial: f64) -> ProgressInfo {
        let fraction = if generations_total == 0 {
            1.0
        } else {
            ((generations_done as f64 + partial.clamp(0.0, 1.0)) / generations_total as f64).clamp(0.0, 1.0)
        };
        ProgressInfo { generations_done, generations_total, fraction, elapsed_seconds: None, eta_seconds: None }
    }
}
