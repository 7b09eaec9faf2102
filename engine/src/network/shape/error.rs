//! What can be wrong with a network shape or its name.

use super::{MAX_LAYERS, MAX_SIDE, MAX_UNITS, MIN_SIDE, Topology};
use std::fmt;

/// Why a shape could not be made or named, or a chromosome does not fit where it was given. Each
/// message names the field or token at fault and what to write instead.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ShapeError {
    /// `board_side` is outside 5..=8.
    BoardSide {
        /// The side given.
        side: u64,
    },
    /// No input at all.
    NoInputs,
    /// The printed encoding changes only board cells, and there are none.
    PrintedWithoutBoard,
    /// `hidden` has no layer or more than [`MAX_LAYERS`].
    LayerCount {
        /// The number of layers given.
        count: usize,
    },
    /// A hidden layer has no unit or more than [`MAX_UNITS`].
    LayerSize {
        /// The layer, 0 for the first.
        layer: usize,
        /// Its units.
        units: usize,
    },
    /// A name's token is not a board size, an input or a number where one belongs.
    NameToken {
        /// The name.
        name: String,
        /// The token.
        token: String,
    },
    /// A name lists the same input twice, or inputs out of their order.
    NameOrder {
        /// The name.
        name: String,
    },
    /// A name lacks its input count, its hidden layers or its output `1`.
    NameLayers {
        /// The name.
        name: String,
    },
    /// A name's input count is not the number its inputs make.
    NameInputCount {
        /// The name.
        name: String,
        /// The count written.
        written: usize,
        /// The count of its inputs.
        actual: usize,
    },
    /// A name describes a valid shape but not in its one spelling.
    NotCanonical {
        /// The name.
        name: String,
        /// The shape's name.
        canonical: String,
    },
    /// A chromosome of shape `found` was given where one of shape `expected` was asked for.
    Mismatch {
        /// The shape asked for.
        expected: Topology,
        /// The chromosome's shape.
        found: Topology,
    },
}

impl fmt::Display for ShapeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ShapeError::BoardSide { side } => {
                write!(f, "board_side {side} is not supported: use {MIN_SIDE} to {MAX_SIDE}")
            }
            ShapeError::NoInputs => {
                write!(
                    f,
                    "inputs: a network needs at least one of \"board\", \"nonad\", \"pieces\", \"quads\", \"euler\""
                )
            }
            ShapeError::PrintedWithoutBoard => {
                write!(
                    f,
                    "encoding \"printed\" changes only the board inputs: add \"board\" to the inputs or use \"spec\""
                )
            }
            ShapeError::LayerCount { count } => {
                write!(f, "hidden: {count} hidden layers; use 1 to {MAX_LAYERS}, e.g. [20] or [32, 16]")
            }
            ShapeError::LayerSize { layer, units } => {
                write!(f, "hidden: layer {} has {units} units; use 1 to {MAX_UNITS}", layer + 1)
            }
            ShapeError::NameToken { name, token } => write!(
                f,
                "network shape {name:?}: unknown part {token:?} (a name is [NxN-]INPUTS-COUNT-HIDDEN...-1, \
                 e.g. board-nonad-100-20-1 or 5x5-board-25-12-1; inputs are board, printed, nonad, pieces, quads, euler)"
            ),
            ShapeError::NameOrder { name } => write!(
                f,
                "network shape {name:?}: list each input once, in the order board, printed, nonad, pieces, quads, euler"
            ),
            ShapeError::NameLayers { name } => write!(
                f,
                "network shape {name:?}: after the inputs write their count, the hidden layers' sizes and the output 1, \
                 e.g. board-nonad-100-20-1"
            ),
            ShapeError::NameInputCount { name, written, actual } => {
                write!(f, "network shape {name:?}: its inputs number {actual}, not {written}; write {actual}")
            }
            ShapeError::NotCanonical { name, canonical } => {
                write!(f, "network shape {name:?} is written {canonical:?}; use that name")
            }
            ShapeError::Mismatch { expected, found } => write!(
                f,
                "the chromosome's network shape is {found}, but {expected} was asked for: \
                 give a chromosome of shape {expected} or ask for {found}"
            ),
        }
    }
}

impl std::error::Error for ShapeError {}
