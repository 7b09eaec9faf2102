//! Why a player spec was refused.

use super::{Accepts, EpochListError, MAX_DEPTH};
use crate::network::ChromosomeError;
use crate::players::NetworkBoardError;
use std::fmt;

/// A spec refused: the spec as written, the forms the place takes, and why.
#[derive(Debug)]
pub struct SpecError {
    /// The spec.
    pub spec: String,
    /// The forms the place that refused it takes (its message lists them).
    pub accepts: Accepts,
    /// Why.
    pub problem: SpecProblem,
}

/// What is wrong with a spec.
#[derive(Debug)]
#[non_exhaustive]
pub enum SpecProblem {
    /// No text at all.
    Empty,
    /// The text before the first `:` is no player's kind.
    UnknownKind(String),
    /// No `:D` after the kind.
    MissingDepth,
    /// The depth is not a whole number.
    DepthNotANumber,
    /// The depth is 0 or deeper than [`MAX_DEPTH`].
    DepthOutOfRange,
    /// Text after the depth of a kind that takes none.
    UnexpectedText,
    /// The salt or seed (named) is not a whole number.
    NotANumber(&'static str),
    /// `net:D` without a file.
    MissingChromosomeFile,
    /// `run:D` without a directory.
    MissingRunDir,
    /// `run:D:DIR` without `:epochs=LIST`.
    MissingEpochs,
    /// The epoch list of a `run:` spec does not parse.
    Epochs(EpochListError),
    /// Not a fixed player, where only those are taken.
    NotFixed,
    /// A `run:` spec outside a match experiment.
    RunOutsideExperiment,
    /// `engine:` without a command.
    MissingCommand,
    /// A chromosome file asked of a spec that names none.
    NotANetFile,
    /// The chromosome file could not be used.
    Chromosome(ChromosomeError),
    /// The player cannot play the board asked for.
    Board(NetworkBoardError),
}

impl SpecProblem {
    /// Whether the text itself is at fault (its message then lists the forms to use).
    fn in_text(&self) -> bool {
        !matches!(self, SpecProblem::NotANetFile | SpecProblem::Chromosome(_) | SpecProblem::Board(_))
    }
}

impl fmt::Display for SpecProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SpecProblem::Empty => f.write_str("no player named"),
            SpecProblem::UnknownKind(kind) => write!(f, "unknown player kind `{kind}`"),
            SpecProblem::MissingDepth => f.write_str("missing the search depth"),
            SpecProblem::DepthNotANumber => f.write_str("the depth must be a whole number"),
            SpecProblem::DepthOutOfRange => write!(f, "the depth must be 1..={MAX_DEPTH}"),
            SpecProblem::UnexpectedText => f.write_str("unexpected text after the depth"),
            SpecProblem::NotANumber(what) => write!(f, "the {what} must be a whole number"),
            SpecProblem::MissingChromosomeFile => f.write_str("missing the chromosome file"),
            SpecProblem::MissingRunDir => f.write_str("missing the run directory"),
            SpecProblem::MissingEpochs => f.write_str("missing `:epochs=LIST`"),
            SpecProblem::Epochs(e) => write!(f, "{e}"),
            SpecProblem::NotFixed => f.write_str("not a fixed player (the same in every match)"),
            SpecProblem::RunOutsideExperiment => {
                f.write_str("a run's survivors are players of `master experiment` only, which reads their checkpoints")
            }
            SpecProblem::MissingCommand => f.write_str("missing the command line after `engine:`"),
            SpecProblem::NotANetFile => f.write_str("names no chromosome file"),
            // The chromosome error names the file already.
            SpecProblem::Chromosome(e) => {
                write!(f, "{e} (net:D:FILE reads a chromosome JSON file, as `master export` and `loa imitate` write)")
            }
            SpecProblem::Board(e) => write!(f, "{e}"),
        }
    }
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let spec = &self.spec;
        match &self.problem {
            problem if problem.in_text() => write!(f, "bad player `{spec}`: {problem} (use {})", self.accepts.forms()),
            // It names the file, which is the spec's one part at fault: the path once is clearer.
            problem @ SpecProblem::Chromosome(_) => write!(f, "{problem}"),
            problem => write!(f, "player `{spec}`: {problem}"),
        }
    }
}

impl std::error::Error for SpecError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.problem {
            SpecProblem::Epochs(e) => Some(e),
            SpecProblem::Chromosome(e) => Some(e),
            SpecProblem::Board(e) => Some(e),
            _ => None,
        }
    }
}
