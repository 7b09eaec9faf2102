//! The layout of a run directory.

use std::path::{Path, PathBuf};

/// The files of a run directory:
///
/// ```text
/// RUN/config.toml                  the configuration, for people and tools
/// RUN/checkpoints/epoch-NNNNN.ckpt the state at the end of each epoch (kept)
/// RUN/checkpoints/latest.ckpt      the state after the last finished step
/// RUN/generations.jsonl            one GenerationRecord per generation
/// RUN/epochs.jsonl                 one EpochReport per epoch (epoch 0: the initial population)
/// RUN/validation.jsonl             ValidationRecords, with a `[validation]` section only
/// RUN/run.log                      the human-readable log
/// ```
#[derive(Clone, Debug)]
pub struct RunDir {
    root: PathBuf,
}

impl RunDir {
    /// The run directory at `root`.
    pub fn new(root: impl Into<PathBuf>) -> RunDir {
        RunDir { root: root.into() }
    }
    /// The directory itself.
    pub fn root(&self) -> &Path {
        &self.root
    }
    /// Where checkpoints go.
    pub fn checkpoints(&self) -> PathBuf {
        self.root.join("checkpoints")
    }
    /// The checkpoint written at the end of `epoch` (kept for good).
    pub fn epoch_checkpoint(&self, epoch: u32) -> PathBuf {
        self.checkpoints().join(format!("epoch-{epoch:05}.ckpt"))
    }
    /// The checkpoint of the last finished step (overwritten as the run goes).
    pub fn latest_checkpoint(&self) -> PathBuf {
        self.checkpoints().join("latest.ckpt")
    }
    /// One JSON line per generation.
    pub fn generations(&self) -> PathBuf {
        self.root.join("generations.jsonl")
    }
    /// One JSON line per epoch.
    pub fn epochs(&self) -> PathBuf {
        self.root.join("epochs.jsonl")
    }
    /// The validation lines (runs with a `[validation]` section).
    pub fn validation(&self) -> PathBuf {
        self.root.join("validation.jsonl")
    }
    /// The human-readable log.
    pub fn log(&self) -> PathBuf {
        self.root.join("run.log")
    }
    /// A copy of the configuration (TOML).
    pub fn config(&self) -> PathBuf {
        self.root.join("config.toml")
    }
}
