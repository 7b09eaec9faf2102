//! Why a run, a resume or an export stopped with an error.

use super::halt::HaltPoint;
use crate::checkpoint::{CheckpointError, InvalidState};
use crate::codec::CodecError;
use crate::config::ConfigError;
use crate::selection::SelectionError;
use loa_engine::network::ChromosomeError;
use std::path::PathBuf;

/// Why a run stopped with an error.
#[derive(Debug)]
pub enum RunError {
    /// The configuration is invalid.
    Config(ConfigError),
    /// A checkpoint could not be written or read.
    Checkpoint(CheckpointError),
    /// A file or directory could not be used.
    Io(PathBuf, std::io::Error),
    /// `master run` refuses to overwrite a usable run.
    Exists(PathBuf),
    /// `master run` found run files but no usable checkpoint, and was not told `--force`.
    Unusable {
        /// The run directory.
        dir: PathBuf,
        /// Why each checkpoint found could not be used (none: no checkpoint was written).
        problems: Vec<CheckpointError>,
    },
    /// The run directory has no such checkpoint.
    NoCheckpoint(PathBuf),
    /// An individual is invalid.
    Chromosome(ChromosomeError),
    /// A worker could not play a task (a bug: tasks made by the master are valid).
    Task(loa_engine::tasks::TaskFailure),
    /// An outcome does not fit its task (a worker bug).
    Outcome(String),
    /// The selection scheme could not plan a generation or select from its outcomes.
    Selection(SelectionError),
    /// The run's state is not one it can continue from.
    State(InvalidState),
    /// The selection scheme's state could not be saved.
    SchemeState(CodecError),
    /// The cluster service could not start.
    Cluster(String),
    /// The dashboard could not start.
    Dashboard(String),
    /// `master export` asked for an individual the population does not have.
    NoIndividual {
        /// The epoch asked for.
        epoch: u32,
        /// The index asked for.
        index: usize,
        /// The population size.
        count: usize,
    },
    /// The run reached its configured halt point (fault injection for tests).
    Halted(HaltPoint),
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
            RunError::Unusable { dir, problems } => {
                let why: Vec<String> = problems.iter().map(ToString::to_string).collect();
                let why = if why.is_empty() { "no checkpoint was written".to_owned() } else { why.join("; ") };
                write!(
                    f,
                    "{} holds run files but no usable checkpoint ({why}): start over with `master run ... --out {} \
                     --force`",
                    dir.display(),
                    dir.display()
                )
            }
            RunError::NoCheckpoint(p) => write!(f, "no checkpoint {}", p.display()),
            RunError::Chromosome(e) => write!(f, "{e}"),
            RunError::Task(e) => write!(f, "a worker could not play a task: {e}"),
            RunError::Outcome(e) => write!(f, "a task's outcome does not fit it: {e}"),
            RunError::Selection(e) => write!(f, "selection: {e}"),
            RunError::State(e) => write!(f, "the run's state: {e}"),
            RunError::SchemeState(e) => write!(f, "the selection scheme's state: {e}"),
            RunError::Cluster(e) => write!(f, "cluster service: {e}"),
            RunError::Dashboard(e) => write!(f, "{e}"),
            RunError::NoIndividual { epoch, index, count } => {
                write!(f, "epoch {epoch} has individuals 0..{count}; there is no individual {index}")
            }
            RunError::Halted(point) => write!(f, "halted at {point} (fault injection)"),
        }
    }
}

impl std::error::Error for RunError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            RunError::Config(e) => Some(e),
            RunError::Checkpoint(e) => Some(e),
            RunError::Io(_, e) => Some(e),
            RunError::Chromosome(e) => Some(e),
            RunError::Task(e) => Some(e),
            RunError::Selection(e) => Some(e),
            RunError::State(e) => Some(e),
            RunError::SchemeState(e) => Some(e),
            _ => None,
        }
    }
}

impl From<InvalidState> for RunError {
    fn from(e: InvalidState) -> Self {
        RunError::State(e)
    }
}

impl From<SelectionError> for RunError {
    fn from(e: SelectionError) -> Self {
        RunError::Selection(e)
    }
}

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

/// Maps an IO error on `path` to a [`RunError`].
pub(crate) fn io(path: &std::path::Path) -> impl FnOnce(std::io::Error) -> RunError + '_ {
    move |e| RunError::Io(path.to_path_buf(), e)
}
