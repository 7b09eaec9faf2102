//! Why a run, a resume or an export stopped with an error.

use super::halt::HaltPoint;
use crate::checkpoint::{CheckpointError, InvalidState};
use crate::codec::CodecError;
use crate::config::ConfigError;
use crate::pool::PoolError;
use crate::selection::SelectionError;
use loa_engine::network::ChromosomeError;
use std::path::PathBuf;

/// Why a run stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The configuration is invalid.
    #[error("{0}")]
    Config(#[from] ConfigError),
    /// A checkpoint could not be written or read.
    #[error("{0}")]
    Checkpoint(#[from] CheckpointError),
    /// A file or directory could not be used.
    #[error("{0}: {1}")]
    Io(PathBuf, #[source] std::io::Error),
    /// `master run` refuses to overwrite a usable run.
    #[error("{0} already holds a run: use `master resume {0}` or another --out")]
    Exists(PathBuf),
    /// `master run` found run files but no usable checkpoint, and was not told `--force`.
    #[error(
        "{dir} holds run files but no usable checkpoint ({why}): start over with `master run ... --out {dir} --force`",
        why = problems_text(problems)
    )]
    Unusable {
        /// The run directory.
        dir: PathBuf,
        /// Why each checkpoint found could not be used (none: no checkpoint was written).
        problems: Vec<CheckpointError>,
    },
    /// `--from-epoch` names an epoch whose checkpoint the run directory does not hold.
    #[error(
        "epoch {epoch} has no checkpoint (never reached, or deleted by --keep-checkpoints); {}",
        match kept.as_slice() {
            [] => "the run holds no epoch checkpoint".to_owned(),
            kept => format!("epochs with checkpoints: {}", kept.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")),
        }
    )]
    EpochNotKept {
        /// The epoch asked for.
        epoch: u32,
        /// The epochs whose checkpoints the run holds, in order.
        kept: Vec<u32>,
    },
    /// The run directory has no such checkpoint.
    #[error("no checkpoint {0}")]
    NoCheckpoint(PathBuf),
    /// The run directory does not exist.
    #[error("{0}: no such run directory (give the --out of a `master run`)")]
    NoRunDir(PathBuf),
    /// `latest.ckpt` is missing or unusable, but an epoch checkpoint loads.
    #[error(
        "{error}; epoch {epoch}'s checkpoint is intact: resume from it with \
         `master resume {dir} --from-epoch {epoch}` (the generations after it are played again)",
        dir = dir.display()
    )]
    LatestUnusable {
        /// Why `latest.ckpt` cannot be used.
        error: Box<RunError>,
        /// The run directory.
        dir: PathBuf,
        /// The newest epoch whose checkpoint loads.
        epoch: u32,
    },
    /// `master export --best` found no benchmark of the epoch's population in its checkpoint.
    #[error("epoch {0}'s checkpoint has no benchmark of its population: choose one with --individual")]
    NoBest(u32),
    /// An individual is invalid.
    #[error("{0}")]
    Chromosome(#[from] ChromosomeError),
    /// A worker could not play a task (a bug: tasks made by the master are valid).
    #[error("a worker could not play a task: {0}")]
    Task(#[source] loa_engine::tasks::TaskFailure),
    /// A task with an external engine, which the master plays itself, failed. Nothing of the
    /// step is recorded, so a resume plays it again.
    #[error("{0} (the run stopped before recording the step: once the engine works, `master resume` plays it again)")]
    Local(#[from] crate::local::LocalError),
    /// A counter of the run reached its largest value (a run from a checkpoint near the bounds
    /// it is checked against on load).
    #[error("the run has reached its last {counter} ({max}) and cannot go on: resume from an earlier checkpoint")]
    Exhausted {
        /// Which counter: "generation" or "epoch".
        counter: &'static str,
        /// Its largest value.
        max: u64,
    },
    /// An outcome does not fit its task (a worker bug).
    #[error("a task's outcome does not fit it: {0}")]
    Outcome(String),
    /// The selection scheme could not plan a generation or select from its outcomes.
    #[error("selection: {0}")]
    Selection(#[from] SelectionError),
    /// The run's state is not one it can continue from.
    #[error("the run's state: {0}")]
    State(#[from] InvalidState),
    /// The selection scheme's state could not be saved.
    #[error("the selection scheme's state: {0}")]
    SchemeState(#[source] CodecError),
    /// The workers or the cluster service could not start.
    #[error("{0}")]
    Pool(#[from] PoolError),
    /// The dashboard could not start.
    #[error("cannot serve the dashboard on {0}: {1} (choose another --dashboard address)")]
    Dashboard(std::net::SocketAddr, #[source] std::io::Error),
    /// `master export` asked for an individual the population does not have.
    #[error("epoch {epoch} has individuals 0..{count}; there is no individual {index}")]
    NoIndividual {
        /// The epoch asked for.
        epoch: u32,
        /// The index asked for.
        index: usize,
        /// The population size.
        count: usize,
    },
    /// The run reached its configured halt point (fault injection for tests).
    #[error("halted at {0} (fault injection)")]
    Halted(HaltPoint),
}

/// Why each checkpoint could not be used, or that none was written.
fn problems_text(problems: &[CheckpointError]) -> String {
    let why: Vec<String> = problems.iter().map(ToString::to_string).collect();
    if why.is_empty() { "no checkpoint was written".to_owned() } else { why.join("; ") }
}

/// Maps an IO error on `path` to a [`RunError`].
pub(crate) fn io(path: &std::path::Path) -> impl FnOnce(std::io::Error) -> RunError + '_ {
    move |e| RunError::Io(path.to_path_buf(), e)
}
