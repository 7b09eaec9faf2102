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

    /// The same error inside `parent` (so paths read from the outermost message in): an index
    /// (`[2].outcome`) joins without a dot, and an error about the whole of `parent` (an empty
    /// field) becomes `parent`'s. Decoders name fields relative to their message and their
    /// callers add the path only on error, so a valid message costs no path strings.
    pub fn within(mut self, parent: &str) -> ProtoError {
        self.field = if self.field.is_empty() {
            parent.to_owned()
        } else if self.field.starts_with('[') {
            format!("{parent}{}", self.field)
        } else {
            format!("{parent}.{}", self.field)
        };
        self
    }
}

impl fmt::Display for ProtoError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.problem)
    }
}

impl std::error::Error for ProtoError {}

#[cfg(test)]
mod tests {
    use super::ProtoError;

    #[test]
    fn paths_join_fields_indices_and_whole_messages() {
        let e = ProtoError::new("outcome", "unspecified").within("[1]").within("games").within("match.matches[0]");
        assert_eq!(e.to_string(), "match.matches[0].games[1].outcome: unspecified");
        let whole = ProtoError::new("", "2 games expected, got 1").within("games").within("benchmark");
        assert_eq!(whole.to_string(), "benchmark.games: 2 games expected, got 1");
    }
}
