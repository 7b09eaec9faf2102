//! The master of loa-evolve: runs the thesis's genetic algorithm (docs/spec.md §5) over workers.
//!
//! - [`config`]: the experiment configuration (TOML, thesis defaults, validation, operators).
//! - [`rng`]: the run's portable random number generator, saved in checkpoints.
//! - [`population`]: individuals with birth serials, and their stored form.
//! - [`codec`]: the binary form of stored state, read with a bound on what it allocates.
//! - [`generation`]: the initial population, children, and survivors bred into knockout groups.
//! - [`selection`]: selection schemes by name: a population into tasks, outcomes into survivors.
//! - [`scheduler`]: tasks leased to workers that come, go and fail; embedded worker threads.
//! - [`checkpoint`]: the run state, written atomically and verified on load.
//! - [`metrics`]: the run's records (`loa-records`) made from the engine's task outcomes.
//! - [`run`]: a run from start or checkpoint to its last epoch; export of individuals.
//! - [`cluster`]: the gRPC service that lets remote workers use the scheduler.
//! - [`pool`]: a scheduler with its embedded workers and cluster service, started and finished.
//! - [`experiment`]: match experiments played as tasks through the scheduler.
//! - [`local`]: tasks with an external engine, which the master plays itself (never a worker).
//! - [`files`]: the configuration files read by kind, a file of another kind named as such.

#![warn(missing_docs)]
pub mod checkpoint;
pub mod cluster;
pub mod codec;
pub mod config;
pub mod experiment;
pub mod files;
pub mod generation;
pub mod local;
pub mod metrics;
pub mod pool;
pub mod population;
pub mod rng;
pub mod run;
pub mod scheduler;
pub mod selection;
