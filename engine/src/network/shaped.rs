//! The generic evaluator: a network of any [`Topology`], with a plain reference pass and an
//! incremental first layer.
//!
//! The first hidden layer's pre-activations, less the extra features', are linear in the pieces,
//! as in the thesis's fast path ([`super::Network`]): a base row plus a row per own piece and one
//! per opponent piece. Here the rows are fixed-point integers (units of 2⁻³²), so a
//! [`ShapedAccumulator`] is an exact sum, whatever order the pieces were added and removed in:
//! updated move by move, it equals the one computed from scratch bit for bit, and the value is a
//! function of the position alone (the search may reuse it across transpositions). Weights are at
//! most ±10⁶ and a piece changes at most ten inputs of at most 1 each, so every sum stays below
//! 2³¹ in magnitude and the 64-bit sums cannot overflow; rounding each row to 2⁻³² costs far less
//! than f32's own rounding of a pre-activation near 1. Extra features (piece and quad counts,
//! Euler numbers) are not linear in the pieces: they are computed and added when a leaf is
//! evaluated.

use super::shape::MAX_UNITS;
use super::simd::Supported;
use super::{Chromosome, ShapeError, Topology, tanh, tanh_many};
use crate::search::Evaluator;
use crate::{Bitboard, Color, Move, Position, Square};

/// One fixed-point value per first-layer hidden unit (unused units stay 0).
type Fixed = [i64; MAX_UNITS];

/// Units of a fixed-point row: 2³².
const SCALE: f64 = 4_294_967_296.0;

/// The most extra feature inputs a shape has.
const MAX_FEATURES: usize = 10;

/// The first layer's rows: the empty board's, and each square's for an own and an opponent
/// piece (zero for squares off the shape's board); and its weights from the extra features, one
/// column per feature, so a leaf adds a feature's term to every unit in one vector loop.
struct Rows {
    base: Fixed,
    own: [Fixed; 64],
    opponent: [Fixed; 64],
    feature_columns: Vec<[f32; MAX_UNITS]>,
}

/// The first hidden layer's linear part for one position and point of view, in fixed point;
/// updated move by move with [`ShapedNetwork::update`].
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct ShapedAccumulator {
    sums: Fixed,
    pov: Color,
}

impl ShapedAccumulator {
    /// The side whose point of view this is.
    pub fn pov(&self) -> Color {
        self.pov
    }
}

impl std::fmt::Debug for ShapedAccumulator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let used = self.sums.iter().rposition(|&s| s != 0).map_or(0, |i| i + 1);
        f.debug_struct("ShapedAccumulator").field("pov", &self.pov).field("sums", &&self.sums[..used]).finish()
    }
}

/// A network of any shape, ready to evaluate; its evaluations lie in [−1, 1].
#[derive(Clone)]
pub struct ShapedNetwork {
    topology: Topology,
    weights: Vec<f32>,
    rows: std::sync::Arc<Rows>,
    /// The vector path the hidden layer's tanh runs on (the same bits on every path).
    path: Supported,
}

impl std::fmt::Debug for ShapedNetwork {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ShapedNetwork").field("topology", &self.topology).finish_non_exhaustive()
    }
}

impl ShapedNetwork {
    /// The network of `chromosome`'s shape and weights, its rows precomputed.
    pub fn new(chromosome: &Chromosome) -> ShapedNetwork {
        let topology = chromosome.topology();
        let weights = chromosome.weights().to_vec();
        let rows = std::sync::Arc::new(build_rows(&topology, &weights));
        ShapedNetwork { topology, weights, rows, path: Supported::detected() }
    }

    /// [`ShapedNetwork::new`], if `chromosome` is of shape `expected`.
    pub fn expecting(expected: Topology, chromosome: &Chromosome) -> Result<ShapedNetwork, ShapeError> {
        if chromosome.topology() != expected {
            return Err(ShapeError::Mismatch { expected, found: chromosome.topology() });
        }
        Ok(ShapedNetwork::new(chromosome))
    }

    /// The shape.
    pub fn topology(&self) -> Topology {
        self.topology
    }

    /// The reference first-layer pre-activations, straight from the inputs: `b_h + Σ_i
    /// W1[h][i]·x_i` in f32, summed in input order (unused units 0).
    pub fn pre_activations_plain(&self, pos: &Position, pov: Color) -> [f32; MAX_UNITS] {
        let t = &self.topology;
        let mut x = vec![0.0; t.input_count()];
        t.encode(pos.pieces(pov), pos.pieces(pov.opponent()), &mut x);
        let mut pre = [0.0; MAX_UNITS];
        for (h, pre) in pre.iter_mut().enumerate().take(t.hidden_count()) {
            let mut sum = self.weights[t.hidden_bias_index(h)];
            for (i, xi) in x.iter().enumerate() {
                sum += self.weights[t.input_weight_index(h, i)] * xi;
            }
            *pre = sum;
        }
        pre
    }

    /// The reference evaluation: the plain forward pass, every layer `tanh(b + Σ W·a)` summed
    /// in input order.
    pub fn evaluate_plain(&self, pos: &Position, pov: Color) -> f32 {
        self.value_after_first_layer(self.pre_activations_plain(pos, pov))
    }

    /// The accumulator for `pos` from `pov`, from scratch: the base row plus a row per piece.
    pub fn accumulator(&self, pos: &Position, pov: Color) -> ShapedAccumulator {
        let rows = &*self.rows;
        let mut sums = rows.base;
        for sq in pos.pieces(pov) {
            add(&mut sums, &rows.own[sq.index()]);
        }
        for sq in pos.pieces(pov.opponent()) {
            add(&mut sums, &rows.opponent[sq.index()]);
        }
        ShapedAccumulator { sums, pov }
    }

    /// The accumulator after `mv` is played in `pos_before` (legal there, or a pass): the
    /// mover's row moves from `from` to `to`, a captured piece's row goes.
    pub fn update(&self, acc: &ShapedAccumulator, pos_before: &Position, mv: Move) -> ShapedAccumulator {
        if mv.is_pass() {
            return *acc;
        }
        let rows = &*self.rows;
        let mover = pos_before.side_to_move();
        let (mover_rows, victim_rows) =
            if mover == acc.pov { (&rows.own, &rows.opponent) } else { (&rows.opponent, &rows.own) };
        let mut next = *acc;
        add(&mut next.sums, &mover_rows[mv.to().index()]);
        sub(&mut next.sums, &mover_rows[mv.from().index()]);
        if pos_before.pieces(mover.opponent()).contains(mv.to()) {
            sub(&mut next.sums, &victim_rows[mv.to().index()]);
        }
        next
    }

    /// The first layer's pre-activations of an accumulator of `pos`: its sums in f32, plus the
    /// extra features' terms (computed now, summed in input order).
    pub fn pre_activations(&self, acc: &ShapedAccumulator, pos: &Position) -> [f32; MAX_UNITS] {
        let t = &self.topology;
        let width = t.hidden_count();
        let mut pre = [0.0f32; MAX_UNITS];
        for (p, s) in pre.iter_mut().zip(&acc.sums).take(width) {
            // Exact but for the one rounding to f32 (the division is by a power of two).
            *p = (*s as f64 / SCALE) as f32;
        }
        let columns = &self.rows.feature_columns;
        if !columns.is_empty() {
            let mut features = [0.0f32; MAX_FEATURES];
            let features = &mut features[..columns.len()];
            t.features(pos.pieces(acc.pov), pos.pieces(acc.pov.opponent()), features);
            // Feature by feature across the units: each unit still adds its terms in input
            // order, so the sums are those of the plain pass's order, and the loop vectorises.
            for (column, f) in columns.iter().zip(features.iter()) {
                for (p, w) in pre[..width].iter_mut().zip(&column[..width]) {
                    *p += w * f;
                }
            }
        }
        pre
    }

    /// The evaluation of an accumulator of `pos`, from its point of view, in [−1, 1].
    pub fn evaluate_accumulator(&self, acc: &ShapedAccumulator, pos: &Position) -> f32 {
        self.value_after_first_layer(self.pre_activations(acc, pos))
    }

    /// The fast evaluation of `pos` from `pov` (accumulator from scratch, then the layers).
    pub fn evaluate(&self, pos: &Position, pov: Color) -> f32 {
        self.evaluate_accumulator(&self.accumulator(pos, pov), pos)
    }

    /// The network's value from the first layer's pre-activations: tanh of them, then each
    /// further layer `tanh(b + Σ_i W[u][i]·a_i)` summed in input order, the output last.
    fn value_after_first_layer(&self, pre: [f32; MAX_UNITS]) -> f32 {
        let t = &self.topology;
        // Whole vectors of 16 lanes on the widest path: the lanes past the layer's units hold 0,
        // whose tanh is 0, and are never read.
        let mut activations = [0.0f32; MAX_UNITS];
        let lanes = t.hidden_count().next_multiple_of(16).min(MAX_UNITS);
        tanh_many(self.path, &pre[..lanes], &mut activations[..lanes]);
        for layer in 1..=t.layer_count() {
            let (inputs, units) = t.layer_size(layer);
            // The layer's block: its weights unit-major, then its biases.
            let start = t.layer_start(layer);
            let (rows, biases) = self.weights[start..start + (inputs + 1) * units].split_at(inputs * units);
            let mut next = [0.0f32; MAX_UNITS];
            for ((out, row), bias) in next.iter_mut().zip(rows.chunks_exact(inputs)).zip(biases) {
                let mut sum = *bias;
                for (w, a) in row.iter().zip(&activations[..inputs]) {
                    sum += w * a;
                }
                *out = tanh(sum);
            }
            activations = next;
        }
        activations[0]
    }
}

fn add(sums: &mut Fixed, row: &Fixed) {
    for (s, r) in sums.iter_mut().zip(row) {
        *s += r;
    }
}

fn sub(sums: &mut Fixed, row: &Fixed) {
    for (s, r) in sums.iter_mut().zip(row) {
        *s -= r;
    }
}

/// `value` in units of 2⁻³², rounded to the nearest.
fn fixed(value: f64) -> i64 {
    (value * SCALE).round() as i64
}

/// The base row and the per-square rows from the weights and [`Topology::encode`]'s linear
/// inputs, each summed in f64 and rounded once to fixed point.
fn build_rows(t: &Topology, weights: &[f32]) -> Rows {
    let linear = t.first_feature_input();
    let w1 = |h: usize, i: usize| f64::from(weights[t.input_weight_index(h, i)]);
    let encode = |own: Bitboard, opponent: Bitboard| {
        let mut x = vec![0.0f32; t.input_count()];
        t.encode_linear(own, opponent, &mut x);
        x.truncate(linear);
        x
    };
    let empty = encode(Bitboard::EMPTY, Bitboard::EMPTY);
    let row = |x: &[f32]| {
        let changes: Vec<(usize, f64)> = x
            .iter()
            .zip(&empty)
            .enumerate()
            .filter(|(_, (x, e))| x != e)
            .map(|(i, (x, e))| (i, f64::from(*x) - f64::from(*e)))
            .collect();
        let mut fixed_row = [0i64; MAX_UNITS];
        for (h, lane) in fixed_row.iter_mut().enumerate().take(t.hidden_count()) {
            *lane = fixed(changes.iter().map(|&(i, delta)| w1(h, i) * delta).sum());
        }
        fixed_row
    };
    let mut base = [0i64; MAX_UNITS];
    for (h, lane) in base.iter_mut().enumerate().take(t.hidden_count()) {
        let weighted: f64 = empty.iter().enumerate().map(|(i, e)| w1(h, i) * f64::from(*e)).sum();
        *lane = fixed(f64::from(weights[t.hidden_bias_index(h)]) + weighted);
    }
    let mut own = [[0i64; MAX_UNITS]; 64];
    let mut opponent = [[0i64; MAX_UNITS]; 64];
    for sq in Square::all().filter(|sq| sq.file() < t.side() && sq.rank() < t.side()) {
        let alone = Bitboard::from_square(sq);
        own[sq.index()] = row(&encode(alone, Bitboard::EMPTY));
        opponent[sq.index()] = row(&encode(Bitboard::EMPTY, alone));
    }
    let first = t.first_feature_input();
    let feature_columns = (0..t.feature_input_count())
        .map(|j| {
            let mut column = [0.0f32; MAX_UNITS];
            for (h, w) in column.iter_mut().enumerate().take(t.hidden_count()) {
                *w = weights[t.input_weight_index(h, first + j)];
            }
            column
        })
        .collect();
    Rows { base, own, opponent, feature_columns }
}

/// The search's evaluator for any shape: accumulators carried down the tree, updated per move.
impl Evaluator for ShapedNetwork {
    type State = ShapedAccumulator;

    /// The accumulator's sums are exact, so the value depends on the position alone.
    const PATH_INDEPENDENT: bool = true;

    fn root_state(&self, pos: &Position, pov: Color) -> ShapedAccumulator {
        self.accumulator(pos, pov)
    }

    #[inline]
    fn child_state(&self, state: &ShapedAccumulator, pos: &Position, mv: Move) -> ShapedAccumulator {
        self.update(state, pos, mv)
    }

    #[inline]
    fn evaluate(&self, state: &ShapedAccumulator, pos: &Position) -> f32 {
        self.evaluate_accumulator(state, pos)
    }
}
