//! Why a message from the network was refused.

/// A field of a message that is missing or out of range. The master answers a request with such
/// a field with `INVALID_ARGUMENT` and this message; a worker reports a task with one as failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {problem}")]
pub struct ProtoError {
    /// The field's path, e.g. `entrants[2].network.weights[17]`.
    pub field: String,
    /// What is wrong with it.
    pub problem: String,
}

impl ProtoError {
    /// An error in `field`.
    pub fn new(field: impl Into<String>, problem: impl Into<String>) -> ProtoError {
        ProtoError { field: field.into(), problem: problem.into() }
    }

    /// The same error inside `parent` (an empty field: the whole of `parent`). Decoders name
    /// fields relative to their message and callers add the path on error only, so a valid
    /// message builds no path strings.
    pub fn within(mut self, parent: &str) -> ProtoError {
        self.field = if self.field.is_empty() { parent.to_owned() } else { format!("{parent}.{}", self.field) };
        self
    }
}

/// `items` converted by `convert`, an error named within `list[i]` (the path built on error only).
pub(crate) fn each<T, U>(
    list: &str,
    items: impl IntoIterator<Item = T>,
    mut convert: impl FnMut(T) -> Result<U, ProtoError>,
) -> Result<Vec<U>, ProtoError> {
    items.into_iter().enumerate().map(|(i, x)| convert(x).map_err(|e| e.within(&format!("{list}[{i}]")))).collect()
}

#[cfg(test)]
mod tests {
    use super::ProtoError;

    #[test]
    fn paths_join_fields_and_whole_messages() {
        let e = ProtoError::new("outcome", "unspecified").within("games[1]").within("match.matches[0]");
        assert_eq!(e.to_string(), "match.matches[0].games[1].outcome: unspecified");
        let whole = ProtoError::new("", "2 parents, but the first step takes 1").within("origin").within("entrants[1]");
        assert_eq!(whole.to_string(), "entrants[1].origin: 2 parents, but the first step takes 1");
    }
}
