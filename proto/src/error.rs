//! Why a message from the network was refused.

use std::fmt;

/// A field of a message that is missing or out of range. The master answers a request with such
/// a field with `INVALID_ARGUMENT` and this message; a worker reports a task with one as failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProtoError {
    /// The field's path, e.g. `tournament.entrants[2].weights[17]`.
    pub field: String,
    /// What is wrong with it.
    pub problem: String,
}

impl ProtoError {
    /// An error in `field`.
    pub fn new(field: impl Into<String>, problem: impl Into<String>) -> ProtoError {
        ProtoError { field: field.into(), problem: problem.into() }
    }

    /// The same error inside `parent` (so paths read from the outermost message in).
    pub fn within(mut self, parent: &str) -> ProtoError {
        self.field = format!("{parent}.{}", self.field);
        self
    }
}

impl fmt::Display for ProtoError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.problem)
    }
}

impl std::error::Error for ProtoError {}
