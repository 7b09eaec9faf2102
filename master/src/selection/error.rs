//! Why a scheme could not plan or select a generation, or take up a saved state.

use super::adam::AdamError;
use crate::codec::CodecError;
use loa_engine::network::ChromosomeError;
use std::fmt;

/// Why a scheme could not plan a generation or select from its outcomes.
#[derive(Debug)]
pub enum SelectionError {
    /// Too few survivors to breed (a loaded checkpoint always has enough).
    TooFewSurvivors {
        /// The scheme.
        scheme: &'static str,
        /// Survivors found.
        found: usize,
        /// Survivors needed.
        needed: usize,
    },
    /// A chromosome could not be made.
    Chromosome(ChromosomeError),
    /// Not one outcome per planned task.
    OutcomeCount {
        /// Outcomes handed back.
        found: usize,
        /// Tasks planned.
        tasks: usize,
    },
    /// An outcome does not fit its task (a worker bug).
    Outcome {
        /// The task's index in the plan.
        task: usize,
        /// What does not fit.
        why: String,
    },
    /// Adam could not step.
    Adam(AdamError),
    /// The plan handed back is not one this scheme made (a bug of the caller).
    ForeignPlan,
}

impl fmt::Display for SelectionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SelectionError::TooFewSurvivors { scheme, found, needed } => {
                write!(f, "{scheme}: {found} survivors, and breeding needs at least {needed}")
            }
            SelectionError::Chromosome(e) => write!(f, "{e}"),
            SelectionError::OutcomeCount { found, tasks } => write!(f, "{found} outcomes for {tasks} tasks"),
            SelectionError::Outcome { task, why } => write!(f, "task {task}: {why}"),
            SelectionError::Adam(e) => write!(f, "{e}"),
            SelectionError::ForeignPlan => f.write_str("a plan made by another scheme"),
        }
    }
}

impl std::error::Error for SelectionError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SelectionError::Chromosome(e) => Some(e),
            SelectionError::Adam(e) => Some(e),
            _ => None,
        }
    }
}

impl From<ChromosomeError> for SelectionError {
    fn from(e: ChromosomeError) -> Self {
        SelectionError::Chromosome(e)
    }
}

/// Why a scheme could not take up a saved state.
#[derive(Debug)]
pub enum StateError {
    /// The bytes do not decode as the scheme's state.
    Decode(CodecError),
    /// A layout of the state this build does not know.
    Version {
        /// The layout found.
        found: u32,
        /// The layout this build reads.
        known: u32,
    },
    /// The population does not fit the scheme.
    Population {
        /// Individuals found.
        found: usize,
        /// What the scheme needs, in words.
        expected: String,
    },
    /// The ladder's rung is past the configured ladder.
    Rung {
        /// The rung.
        rung: u32,
        /// Rungs configured.
        rungs: usize,
    },
    /// A self-adaptive mutation step is out of range.
    Step {
        /// Its individual.
        serial: u64,
        /// The step.
        step: f64,
    },
    /// Adam's moments do not fit the network.
    Adam(AdamError),
}

impl fmt::Display for StateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StateError::Decode(e) => write!(f, "the scheme's state does not decode: {e}"),
            StateError::Version { found, known } => {
                write!(f, "the scheme's state has layout {found}, this build reads layout {known}")
            }
            StateError::Population { found, expected } => write!(f, "a population of {found} individuals: {expected}"),
            StateError::Rung { rung, rungs } => write!(f, "ladder rung {rung} of a ladder of {rungs} rungs"),
            StateError::Step { serial, step } => {
                write!(f, "individual {serial}'s mutation step {step} is out of range")
            }
            StateError::Adam(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for StateError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            StateError::Decode(e) => Some(e),
            StateError::Adam(e) => Some(e),
            _ => None,
        }
    }
}
