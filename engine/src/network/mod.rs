//! The network evaluator of docs/spec.md §3 and the chromosome files it is built from.
//!
//! - [`Chromosome`], [`Topology`]: the weights and the shape they belong to (board side, inputs,
//!   hidden layers; [`ShapeError`]s name what is wrong with one); JSON files
//!   (`{"topology": "board-nonad-100-20-1", "weights": [...]}`) with typed [`ChromosomeError`]s.
//! - [`ShapedNetwork`]: any shape's evaluator, a plain reference pass and an exact incremental
//!   first layer; the thesis's layout has the fast [`Network`] below, and
//!   [`crate::players::ShapedPlayer`] picks between them once per player.
//! - [`inputs`](fn@inputs): the thesis shape's 100 inputs (64 board cells, 36 nonads) from a side's
//!   point of view.
//! - [`Network`]: the thesis's 100-20-1 tanh network. [`Network::evaluate_plain`] is the reference forward
//!   pass; [`Accumulator`] holds the hidden pre-activations, built from per-square tables and
//!   updated incrementally move by move (the fast path the search uses), and
//!   [`Network::bound_accumulators`] bounds its output unit's input cheaply, and
//!   [`inputs_at_most`] and [`inputs_at_least`] say where `tanh` of it crosses a value, so the
//!   search settles most leaves against its window without evaluating them.
//! - [`symmetry`]: the board's eight symmetries and weight tyings that make an evaluation
//!   invariant under them (fewer free parameters for evolution).
//! - [`tanh`](fn@tanh): a portable tanh, so every machine computes bit-identical evaluations.
//! - [`simd`]: the vector paths of the batched evaluations (AVX-512, AVX2, portable), the one
//!   place that chooses among them.
//!
//! Determinism: every float operation here is an IEEE add, multiply or divide, in an order fixed
//! by the code, with no platform `libm`. The one other is in `tanh`: on the paths with FMA (and in
//! a build whose target has it), three steps whose product is exact are fused multiply-adds, which
//! round as the separate multiply and add do. Rust never fuses a multiply and an add by itself, and
//! each lane of every vector path does the scalar code's operations, so games replay bit for bit
//! on any x86-64, whatever the build target and the path.

mod chromosome;
mod error;
mod forward;
mod inputs;
mod json;
mod shape;
mod shaped;
pub mod simd;
pub mod symmetry;
mod tanh;

pub use crate::random::SplitMix64;
pub use chromosome::{Chromosome, ChromosomeId, MAX_ABS_WEIGHT, little_endian_bytes, random_uniform, weight_from_bits};
pub use error::ChromosomeError;
pub use forward::{Accumulator, Encoding, Network, PlainNetwork};
pub use inputs::{BOARD_INPUTS, INPUTS, NONAD_INPUTS, board_input_index, inputs, nonad_input_index};
pub use shape::{Inputs, MAX_LAYERS, MAX_SIDE, MAX_UNITS, MIN_SIDE, ShapeError, Topology};
pub use shaped::{ShapedAccumulator, ShapedNetwork};
pub use tanh::{
    TANH_ERROR, TANH_ESTIMATE_ERROR, TANH_SATURATION, inputs_at_least, inputs_at_most, tanh, tanh_estimate, tanh_many,
    tanh_unfused,
};

/// Hidden units of the thesis's shape (the fast [`Network`]'s).
pub const HIDDEN: usize = 20;
