//! The fast path's precomputed rows ([`Tables`]): the empty board's pre-activations and, for
//! every square, what an own or an opponent piece there adds.

use super::super::inputs::{INPUTS, encode};
use super::super::simd::{GROUP, Lanes};
use super::super::{HIDDEN, Topology};
use super::bounds;
use crate::{Bitboard, Square};

/// The fast path's precomputed rows (12.5 KB: fits in L1 cache).
#[derive(Clone)]
pub(super) struct Tables {
    pub(super) base: Lanes,
    pub(super) own: [Lanes; 64],
    pub(super) opponent: [Lanes; 64],
    pub(super) output_weights: Lanes,
    /// The 20 output weights repeated for each accumulator of a group (the packed layout of
    /// [`Network::evaluate_accumulators`]).
    pub(super) grouped_output_weights: [f32; GROUP * HIDDEN],
    pub(super) output_bias: f32,
    /// How far the output unit's input can be from its estimate ([`bounds`]).
    pub(super) value_margin: f32,
}

/// The inputs a lone piece changes from the empty board's, with the changes, for every square:
/// what [`build_tables`] needs of [`encode`], which is the same for every network, so it is
/// computed once per process rather than once per network.
struct LonePieceInputs {
    empty: [f32; INPUTS],
    /// By square: an own piece's changes, then an opponent piece's.
    changes: Vec<[InputChanges; 2]>,
}

/// The inputs (in input order) whose value differs from the empty board's, and by how much.
#[derive(Clone, Copy)]
struct InputChanges {
    count: usize,
    inputs: [(usize, f64); MAX_CHANGES],
}

/// The most inputs a lone piece changes: its board cell and its share of up to 9 nonads.
const MAX_CHANGES: usize = 10;

impl InputChanges {
    fn between(x: &[f32; INPUTS], empty: &[f32; INPUTS]) -> InputChanges {
        let mut changes = InputChanges { count: 0, inputs: [(0, 0.0); MAX_CHANGES] };
        for (i, (x, e)) in x.iter().zip(empty).enumerate() {
            let delta = f64::from(*x) - f64::from(*e);
            if delta != 0.0 {
                changes.inputs[changes.count] = (i, delta);
                changes.count += 1;
            }
        }
        assert!(changes.count > 0, "a piece always changes its board input");
        changes
    }

    fn iter(&self) -> impl Iterator<Item = &(usize, f64)> {
        self.inputs[..self.count].iter()
    }
}

/// Every square's [`LonePieceInputs`], computed on first use.
static LONE_PIECE_INPUTS: std::sync::LazyLock<LonePieceInputs> = std::sync::LazyLock::new(|| {
    let empty = encode(Bitboard::EMPTY, Bitboard::EMPTY);
    let changes = Square::all()
        .map(|sq| {
            let alone = Bitboard::from_square(sq);
            [encode(alone, Bitboard::EMPTY), encode(Bitboard::EMPTY, alone)].map(|x| InputChanges::between(&x, &empty))
        })
        .collect();
    LonePieceInputs { empty, changes }
});

/// Precomputes the base row and the per-square rows from the weights and [`encode`], summing in
/// f64 and rounding once so the rows are as exact as f32 allows.
pub(super) fn build_tables(topology: Topology, weights: &[f32]) -> Tables {
    let w1 = |h: usize, i: usize| f64::from(weights[topology.input_weight_index(h, i)]);
    // Row h of W1 applied to the inputs' changes. The inputs a lone piece leaves unchanged
    // contribute ±0 terms, which are skipped: adding ±0 to a sum leaves it unchanged unless
    // every term so far was zero (only then can the sign of a zero sum differ), and the piece's
    // own board cell always changes, so each sum has a nonzero term and the rows are bit for
    // bit those of the full sums, for a tenth of the work.
    let row = |changes: &InputChanges| {
        let mut lanes = Lanes::ZERO;
        for (h, lane) in lanes.0.iter_mut().take(HIDDEN).enumerate() {
            let sum: f64 = changes.iter().map(|&(i, delta)| w1(h, i) * delta).sum();
            *lane = sum as f32;
        }
        lanes
    };
    let LonePieceInputs { empty, changes } = &*LONE_PIECE_INPUTS;
    let mut base = Lanes::ZERO;
    for (h, lane) in base.0.iter_mut().take(HIDDEN).enumerate() {
        let weighted: f64 = (0..INPUTS).map(|i| w1(h, i) * f64::from(empty[i])).sum();
        *lane = (f64::from(weights[topology.hidden_bias_index(h)]) + weighted) as f32;
    }
    let mut output_weights = Lanes::ZERO;
    for (h, lane) in output_weights.0.iter_mut().take(HIDDEN).enumerate() {
        *lane = weights[topology.output_weight_index(h)];
    }
    let mut own = [Lanes::ZERO; 64];
    let mut opponent = [Lanes::ZERO; 64];
    for (sq, [own_piece, opponent_piece]) in changes.iter().enumerate() {
        own[sq] = row(own_piece);
        opponent[sq] = row(opponent_piece);
    }
    let grouped_output_weights = std::array::from_fn(|i| output_weights.0[i % HIDDEN]);
    let output_bias = weights[topology.output_bias_index()];
    let value_margin = bounds::value_margin(&output_weights.0[..HIDDEN], output_bias);
    Tables { base, own, opponent, output_weights, grouped_output_weights, output_bias, value_margin }
}
