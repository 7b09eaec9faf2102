//! Network shapes: the board a network reads, its inputs, its hidden layers, and from them its
//! chromosome's length and layout (docs/spec.md §3).
//!
//! - [`Topology`]: one shape, validated; named in files (`board-nonad-100-20-1`,
//!   `5x5-board-25-12-1`) and readable from a `[network]` config section.
//! - [`Inputs`]: which inputs a shape has; [`Topology::encode`] computes them.
//! - [`ShapeError`]: what is wrong with a shape, a name or a chromosome given for another shape.

mod config;
mod error;
mod features;
mod name;

pub use error::ShapeError;

use super::Encoding;

/// The smallest board side a network may read.
pub const MIN_SIDE: u8 = 5;
/// The largest board side (the standard board).
pub const MAX_SIDE: u8 = 8;
/// The most hidden layers a network may have.
pub const MAX_LAYERS: usize = 3;
/// The most units a hidden layer may have: room for every shape worth evolving, and a bound that
/// keeps the generic evaluator's accumulator a fixed-size array.
pub const MAX_UNITS: usize = 64;

/// Which inputs a network reads, in this order (docs/spec.md §3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Inputs {
    /// One input per board cell: N².
    pub board: bool,
    /// One input per 3×3 window inside the board: (N − 2)².
    pub nonads: bool,
    /// How the board cells encode the opponent's pieces.
    pub encoding: Encoding,
    /// Each side's piece count: 2 inputs.
    pub pieces: bool,
    /// Each side's quad counts Q1, Q3 and Qd: 6 inputs.
    pub quads: bool,
    /// Each side's Euler number: 2 inputs.
    pub euler: bool,
}

impl Inputs {
    /// The thesis's: board cells and nonads, docs/spec.md §3's encoding, no extra features.
    pub const THESIS: Inputs =
        Inputs { board: true, nonads: true, encoding: Encoding::Spec, pieces: false, quads: false, euler: false };

    /// Board cells alone (the 25 inputs of the 5×5 network of the thesis's related work).
    pub const BOARD: Inputs = Inputs { nonads: false, ..Inputs::THESIS };

    /// Whether any input features are added at evaluation time (not linear in the pieces).
    pub const fn has_features(&self) -> bool {
        self.pieces || self.quads || self.euler
    }
}

/// A network's shape: the side N of the board it reads (5 to 8), its [`Inputs`], 1 to 3 tanh
/// hidden layers of 1 to 64 units each, and one tanh output. Always valid.
///
/// Files name the shape (its [`Display`](std::fmt::Display) form, which [`str::parse`] reads
/// back), so a chromosome is never read with the wrong layout, and chromosome ids hash the name.
/// Serde writes the name and reads either the name or a `[network]` table (docs/config.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Topology {
    side: u8,
    inputs: Inputs,
    hidden: [u16; MAX_LAYERS],
    layers: u8,
}

impl Default for Topology {
    /// The thesis's shape.
    fn default() -> Topology {
        Topology::THESIS
    }
}

impl Topology {
    /// The thesis's shape (docs/spec.md §3): 8×8, 64 board + 36 nonad inputs, 20 tanh hidden
    /// units, 1 tanh output; 2041 weights. Named `board-nonad-100-20-1`.
    pub const THESIS: Topology = Topology { side: 8, inputs: Inputs::THESIS, hidden: [20, 0, 0], layers: 1 };

    /// The shape with these parts, checked.
    pub fn new(side: u8, inputs: Inputs, hidden: &[usize]) -> Result<Topology, ShapeError> {
        if !(MIN_SIDE..=MAX_SIDE).contains(&side) {
            return Err(ShapeError::BoardSide { side: side.into() });
        }
        if !(inputs.board || inputs.nonads || inputs.has_features()) {
            return Err(ShapeError::NoInputs);
        }
        if inputs.encoding == Encoding::Printed && !inputs.board {
            return Err(ShapeError::PrintedWithoutBoard);
        }
        if hidden.is_empty() || hidden.len() > MAX_LAYERS {
            return Err(ShapeError::LayerCount { count: hidden.len() });
        }
        let mut sizes = [0; MAX_LAYERS];
        for (layer, (&units, size)) in hidden.iter().zip(&mut sizes).enumerate() {
            if !(1..=MAX_UNITS).contains(&units) {
                return Err(ShapeError::LayerSize { layer, units });
            }
            *size = units as u16;
        }
        Ok(Topology { side, inputs, hidden: sizes, layers: hidden.len() as u8 })
    }

    /// The topology called `name` in files, if any (see [`str::parse`] for why not).
    pub fn from_name(name: &str) -> Option<Topology> {
        name.parse().ok()
    }

    /// The name used in chromosome files, e.g. `board-nonad-100-20-1`.
    pub fn name(&self) -> String {
        self.to_string()
    }

    /// Whether this is the thesis's layout read by the fast `Network` (8×8, board cells and
    /// nonads, 20 hidden units, no extra features; either encoding).
    pub fn is_thesis_layout(&self) -> bool {
        *self == Topology { inputs: Inputs { encoding: self.inputs.encoding, ..Inputs::THESIS }, ..Topology::THESIS }
    }

    /// The side N of the board the network reads (it occupies files a.. and ranks 1..N).
    pub const fn side(&self) -> u8 {
        self.side
    }

    /// The inputs.
    pub const fn inputs(&self) -> Inputs {
        self.inputs
    }

    /// The hidden layers' sizes, first layer first.
    pub fn hidden(&self) -> impl ExactSizeIterator<Item = usize> + '_ {
        self.hidden[..self.layers as usize].iter().map(|&u| usize::from(u))
    }

    /// Number of board-cell inputs: N² or none.
    pub const fn board_input_count(&self) -> usize {
        if self.inputs.board { self.cells() } else { 0 }
    }

    /// Number of nonad inputs: (N − 2)² or none.
    pub const fn nonad_input_count(&self) -> usize {
        let inner = self.side as usize - 2;
        if self.inputs.nonads { inner * inner } else { 0 }
    }

    /// Number of extra feature inputs, which come last.
    pub const fn feature_input_count(&self) -> usize {
        let i = &self.inputs;
        2 * i.pieces as usize + 6 * i.quads as usize + 2 * i.euler as usize
    }

    /// Number of network inputs.
    pub const fn input_count(&self) -> usize {
        self.board_input_count() + self.nonad_input_count() + self.feature_input_count()
    }

    /// Index of the first extra feature input.
    pub const fn first_feature_input(&self) -> usize {
        self.board_input_count() + self.nonad_input_count()
    }

    /// Number of units of the first hidden layer.
    pub const fn hidden_count(&self) -> usize {
        self.hidden[0] as usize
    }

    /// Number of hidden layers.
    pub const fn layer_count(&self) -> usize {
        self.layers as usize
    }

    /// Inputs and units of layer `layer` (0 = the first hidden layer, `layer_count()` = the
    /// output), so `(inputs, units)`.
    pub fn layer_size(&self, layer: usize) -> (usize, usize) {
        let inputs = if layer == 0 { self.input_count() } else { usize::from(self.hidden[layer - 1]) };
        let units = if layer == self.layer_count() { 1 } else { usize::from(self.hidden[layer]) };
        (inputs, units)
    }

    /// Index of layer `layer`'s first weight: the layers' blocks follow one another, each its
    /// weights unit-major (`inputs·unit + input`) and then its biases.
    pub fn layer_start(&self, layer: usize) -> usize {
        (0..layer)
            .map(|l| {
                let (inputs, units) = self.layer_size(l);
                (inputs + 1) * units
            })
            .sum()
    }

    /// Index of the weight from input `input` to unit `unit` of layer `layer`.
    pub fn layer_weight_index(&self, layer: usize, unit: usize, input: usize) -> usize {
        self.layer_start(layer) + self.layer_size(layer).0 * unit + input
    }

    /// Index of unit `unit`'s bias in layer `layer`.
    pub fn layer_bias_index(&self, layer: usize, unit: usize) -> usize {
        let (inputs, units) = self.layer_size(layer);
        self.layer_start(layer) + inputs * units + unit
    }

    /// Chromosome length: every layer's weights and biases, the output's last.
    pub fn weight_count(&self) -> usize {
        self.layer_start(self.layer_count() + 1)
    }

    /// Index of the weight from input `input` to first-layer hidden unit `hidden` (docs/spec.md
    /// §3: `100·h + i` in the thesis's shape).
    pub const fn input_weight_index(&self, hidden: usize, input: usize) -> usize {
        self.input_count() * hidden + input
    }

    /// Index of first-layer hidden unit `hidden`'s bias.
    pub const fn hidden_bias_index(&self, hidden: usize) -> usize {
        self.input_count() * self.hidden_count() + hidden
    }

    /// Index of the weight from unit `hidden` of the last hidden layer to the output.
    pub fn output_weight_index(&self, hidden: usize) -> usize {
        self.layer_weight_index(self.layer_count(), 0, hidden)
    }

    /// Index of the output bias (the last weight).
    pub fn output_bias_index(&self) -> usize {
        self.weight_count() - 1
    }

    /// Number of board cells, N².
    const fn cells(&self) -> usize {
        self.side as usize * self.side as usize
    }
}

#[cfg(test)]
mod tests;
