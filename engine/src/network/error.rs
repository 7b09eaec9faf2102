//! What can be wrong with a chromosome or its file.

use super::{ShapeError, Topology};
use std::fmt;
use std::path::PathBuf;

/// Why a chromosome could not be made, read or written. Every message names the problem.
#[derive(Debug)]
#[non_exhaustive]
pub enum ChromosomeError {
    /// The topology needs `expected` weights; `found` were given.
    WrongLength {
        /// The topology the weights were meant for.
        topology: Topology,
        /// Its chromosome length.
        expected: usize,
        /// The number given.
        found: usize,
    },
    /// Weight `index` is infinite or NaN (e.g. `1e39` in a file overflows f32).
    NonFiniteWeight {
        /// Position in the chromosome.
        index: usize,
        /// The value.
        value: f32,
    },
    /// Weight `index` is beyond ±[`super::MAX_ABS_WEIGHT`].
    WeightTooLarge {
        /// Position in the chromosome.
        index: usize,
        /// The value.
        value: f32,
    },
    /// The file names a topology this version does not know.
    UnknownTopology {
        /// The name in the file.
        name: String,
    },
    /// The file's shape name is not a valid shape (the error says why).
    Shape(ShapeError),
    /// The file has fields other than `topology` and `weights`.
    UnknownFields {
        /// Their names, in file order.
        names: Vec<String>,
    },
    /// The file lacks a required field.
    MissingField {
        /// `topology` or `weights`.
        name: &'static str,
    },
    /// Not JSON, or not the expected shape (serde's message gives line and column).
    Json(serde_json::Error),
    /// Reading or writing the file failed.
    Io {
        /// `read` or `write`.
        action: &'static str,
        /// The chromosome file.
        path: PathBuf,
        /// What the operating system said.
        source: std::io::Error,
    },
    /// The file at `path` was read but its contents are wrong.
    InFile {
        /// The chromosome file.
        path: PathBuf,
        /// What is wrong with it.
        source: Box<ChromosomeError>,
    },
}

impl fmt::Display for ChromosomeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ChromosomeError::WrongLength { topology, expected, found } => {
                write!(
                    f,
                    "network shape {topology} needs {expected} weights, found {found}: \
                     the weights are not of that shape, or the list is cut short"
                )
            }
            ChromosomeError::NonFiniteWeight { index, value } => {
                write!(f, "weight {index} is not a finite number ({value})")
            }
            ChromosomeError::WeightTooLarge { index, value } => {
                write!(f, "weight {index} is {value}, beyond the limit ±{}", super::MAX_ABS_WEIGHT)
            }
            ChromosomeError::UnknownTopology { name } => {
                write!(
                    f,
                    "unknown network shape {name:?} (names are like {} or 5x5-board-25-12-1; see docs/spec.md §3)",
                    Topology::THESIS
                )
            }
            ChromosomeError::UnknownFields { names } => {
                write!(f, "unknown field(s) {names:?} in chromosome (expected only \"topology\" and \"weights\")")
            }
            ChromosomeError::Shape(e) => write!(f, "{e}"),
            ChromosomeError::MissingField { name } => write!(f, "chromosome has no {name:?} field"),
            ChromosomeError::Json(e) => write!(f, "malformed chromosome JSON: {e}"),
            ChromosomeError::Io { action, path, source } => {
                write!(f, "cannot {action} chromosome file {}: {source}", path.display())
            }
            ChromosomeError::InFile { path, source } => {
                write!(f, "chromosome file {}: {source}", path.display())
            }
        }
    }
}

impl std::error::Error for ChromosomeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ChromosomeError::Json(e) => Some(e),
            ChromosomeError::Io { source, .. } => Some(source),
            ChromosomeError::InFile { source, .. } => Some(source.as_ref()),
            ChromosomeError::Shape(e) => Some(e),
            _ => None,
        }
    }
}
