//! Self-play throughput: one TD run's games, played by embedded threads and by remote
//! single-slot workers, all in one invocation of `loa-bench selfplay`, so the figures share the
//! machine's state. Each way plays the same games (the run's first `games`), and its final
//! checkpoint must equal the first way's byte for byte: the measurement is also a check.
//!
//! Games per second count the generations' own time, as `generations.jsonl` records it (a
//! generation's tasks from submission to its last outcome), so the epoch benchmarks, the
//! checkpoints and the workers' start are left out.

use crate::BenchError;
use loa_master::cluster::ClusterOptions;
use loa_master::config::ExperimentConfig;
use loa_master::run::{RunDir, RunOptions, WorkOptions, start};
use loa_master::scheduler::VerifyRate;
use loa_records::GenerationRecord;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How the games were played.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Way {
    /// On this many threads of the master's process.
    Embedded(usize),
    /// On this many remote workers of one slot each, over loopback gRPC.
    Remote(usize),
}

impl std::fmt::Display for Way {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Way::Embedded(n) => write!(f, "{n} embedded thread{}", if *n == 1 { "" } else { "s" }),
            Way::Remote(n) => write!(f, "{n} remote single-slot worker{}", if *n == 1 { "" } else { "s" }),
        }
    }
}

/// One way's figures.
#[derive(Clone, Debug, PartialEq)]
pub struct Throughput {
    /// How the games were played.
    pub way: Way,
    /// Self-play games played.
    pub games: u64,
    /// Seconds the generations took.
    pub seconds: f64,
    /// Whether the final checkpoint equals the first way's, byte for byte.
    pub identical: bool,
}

impl Throughput {
    /// Games a second.
    pub fn rate(&self) -> f64 {
        self.games as f64 / self.seconds.max(1e-9)
    }
}

/// `config` (a TD run) cut to `games` games in one epoch, without validation.
pub fn cut(config: &ExperimentConfig, games: u64) -> Result<ExperimentConfig, BenchError> {
    let batch = config
        .selection
        .scheme
        .settings
        .get("batch")
        .and_then(toml::Value::as_integer)
        .and_then(|b| u64::try_from(b).ok())
        .ok_or_else(|| BenchError::flag("--config", "a [selection.scheme.td] configuration with its batch"))?;
    if games == 0 || !games.is_multiple_of(batch) {
        return Err(BenchError::flag("--games", format!("a positive multiple of the batch ({batch}), not {games}")));
    }
    let generations = u32::try_from(games / batch).map_err(|_| BenchError::flag("--games", "too many"))?;
    Ok(ExperimentConfig { epochs: 1, generations_per_epoch: generations, validation: None, ..config.clone() })
}

/// Plays `config` each way in `ways`, in order, in directories under `dir`.
pub fn bench_selfplay(config: &ExperimentConfig, ways: &[Way], dir: &Path) -> Result<Vec<Throughput>, BenchError> {
    let mut figures = Vec::new();
    let mut first: Option<Vec<u8>> = None;
    for (i, &way) in ways.iter().enumerate() {
        let out = dir.join(format!("way-{i}"));
        match way {
            Way::Embedded(threads) => {
                start(config.clone(), &out, &RunOptions::embedded(threads)).map_err(engine)?;
            }
            Way::Remote(workers) => remote(config, &out, workers)?,
        }
        let run = RunDir::new(&out);
        let lines = loa_records::jsonl::read::<GenerationRecord>(&run.generations()).map_err(engine)?;
        let games = lines.records.iter().map(|g| u64::from(g.games)).sum();
        let seconds = lines.records.iter().map(|g| g.seconds).sum();
        let checkpoint = std::fs::read(run.latest_checkpoint()).map_err(engine)?;
        let identical = first.get_or_insert_with(|| checkpoint.clone()) == &checkpoint;
        figures.push(Throughput { way, games, seconds, identical });
    }
    Ok(figures)
}

fn engine(e: impl std::fmt::Display) -> BenchError {
    BenchError::Engine(e.to_string())
}

/// The run served to `workers` remote workers of one slot, on loopback, with no embedded thread
/// and no verification (which would play tasks again on the master).
fn remote(config: &ExperimentConfig, out: &Path, workers: usize) -> Result<(), BenchError> {
    const TOKEN: &str = "loa-bench-selfplay";
    let mut cluster = ClusterOptions::new("127.0.0.1:0".parse().expect("an address"), Some(TOKEN.into()));
    cluster.verify = VerifyRate::OFF;
    let bound = Arc::clone(&cluster.bound);
    let work = WorkOptions { cluster: Some(cluster), ..WorkOptions::embedded(0) };
    let options = RunOptions { work, ..RunOptions::default() };
    let (config, dir) = (config.clone(), out.to_path_buf());
    let master = std::thread::spawn(move || start(config, &dir, &options).map(drop).map_err(engine));
    let began = Instant::now();
    let addr = loop {
        if let Some(addr) = bound.get() {
            break *addr;
        }
        if master.is_finished() || began.elapsed() > Duration::from_secs(30) {
            return Err(BenchError::Engine("the master did not start listening".into()));
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let handles = (0..workers)
        .map(|i| {
            let mut options = loa_worker::WorkerOptions::new(format!("http://{addr}")).map_err(engine)?;
            (options.slots, options.token, options.name) = (1, Some(TOKEN.into()), format!("bench-{i}"));
            loa_worker::spawn(options).map_err(engine)
        })
        .collect::<Result<Vec<_>, _>>()?;
    let result = master.join().map_err(|_| BenchError::Engine("the master's thread panicked".into()))?;
    for handle in handles {
        let _ = handle.stop();
    }
    result
}
