//! Why a scheme could not plan or select a generation, or take up a saved state.

use super::adam::AdamError;
use super::cma::CmaError;
use super::learning::LearnerError;
use crate::codec::CodecError;
use loa_engine::network::ChromosomeError;

/// Why a scheme could not plan a generation or select from its outcomes.
#[derive(Debug, thiserror::Error)]
pub enum SelectionError {
    /// Too few survivors to breed (a loaded checkpoint always has enough).
    #[error("{scheme}: {found} survivors, and breeding needs at least {needed}")]
    TooFewSurvivors {
        /// The scheme.
        scheme: &'static str,
        /// Survivors found.
        found: usize,
        /// Survivors needed.
        needed: usize,
    },
    /// A chromosome could not be made.
    #[error("{0}")]
    Chromosome(#[from] ChromosomeError),
    /// Not one outcome per planned task.
    #[error("{found} outcomes for {tasks} tasks")]
    OutcomeCount {
        /// Outcomes handed back.
        found: usize,
        /// Tasks planned.
        tasks: usize,
    },
    /// An outcome does not fit its task (a worker bug).
    #[error("task {task}: {why}")]
    Outcome {
        /// The task's index in the plan.
        task: usize,
        /// What does not fit.
        why: String,
    },
    /// Adam could not step.
    #[error("{0}")]
    Adam(#[source] AdamError),
    /// CMA-ES refused the generation's fitnesses.
    #[error("{0}")]
    Cma(#[source] CmaError),
    /// The plan handed back is not one this scheme made (a bug of the caller).
    #[error("a plan made by another scheme")]
    ForeignPlan,
    /// Asked to plan before its state was set up (by the run's start or a restore: a bug of
    /// the caller).
    #[error("the method was asked to plan before the run set it up")]
    NotStarted,
}

/// Why a scheme could not take up a saved state.
#[derive(Debug, thiserror::Error)]
pub enum StateError {
    /// The bytes do not decode as the scheme's state.
    #[error("the scheme's state does not decode: {0}")]
    Decode(#[source] CodecError),
    /// A layout of the state this build does not know.
    #[error("the scheme's state has layout {found}, this build reads layout {known}")]
    Version {
        /// The layout found.
        found: u32,
        /// The layout this build reads.
        known: u32,
    },
    /// The population does not fit the scheme.
    #[error("a population of {found} individuals: {expected}")]
    Population {
        /// Individuals found.
        found: usize,
        /// What the scheme needs, in words.
        expected: String,
    },
    /// The ladder's rung is past the configured ladder.
    #[error("ladder rung {rung} of a ladder of {rungs} rungs")]
    Rung {
        /// The rung.
        rung: u32,
        /// Rungs configured.
        rungs: usize,
    },
    /// A self-adaptive mutation step is out of range.
    #[error("individual {serial}'s mutation step {step} is out of range")]
    Step {
        /// Its individual.
        serial: u64,
        /// The step.
        step: f64,
    },
    /// Adam's moments do not fit the network.
    #[error("{0}")]
    Adam(#[source] AdamError),
    /// CMA-ES's state does not fit the run.
    #[error("{0}")]
    Cma(#[source] CmaError),
    /// A learner does not fit the run.
    #[error("{0}")]
    Learner(#[source] LearnerError),
    /// A learner's step settings are out of range.
    #[error("a learner's α {learning_rate} or λ {lambda} is out of range")]
    Steps {
        /// Its α.
        learning_rate: f64,
        /// Its λ.
        lambda: f64,
    },
    /// A learner has played part of a batch.
    #[error("{games} games learnt from, not a whole number of batches of {batch}")]
    Games {
        /// Games learnt from.
        games: u64,
        /// The batch.
        batch: u32,
    },
}
