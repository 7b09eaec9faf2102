//! The forward pass: the plain reference and the incremental (NNUE-style) fast path.
//!
//! A hidden unit's pre-activation is linear in the pieces: with every cell empty it is
//! `base_h = b_h + Σ_i W1[h][i]·empty_i`, and each own piece on `s` adds `OWN[s][h]` (its board
//! cell going 0.5 → 0.75 plus its share of every nonad around it), each opponent piece `OPP[s][h]`
//! (its cell going 0.5 → 0.25). So an [`Accumulator`] is a sum of table rows, and a move changes
//! two or three rows.

mod bounds;
mod tables;
mod unit_major;

use super::inputs::{encode, inputs};
use super::simd::{GROUP, Isa, Kernel, LANES, Lanes, Supported, output_sum};
use super::tanh::tanh_on;
use super::{Chromosome, HIDDEN, ShapeError, Topology, tanh};
use crate::search::Evaluator;
use crate::{Bitboard, Color, Move, Position};
use tables::{Tables, build_tables};

/// The hidden layer's pre-activations for one position and point of view; cheap to copy and
/// to update move by move with [`Network::update`].
#[derive(Clone, Copy, PartialEq)]
pub struct Accumulator {
    pre: Lanes,
    pov: Color,
}

impl Accumulator {
    /// The side whose point of view this is.
    pub fn pov(&self) -> Color {
        self.pov
    }

    /// The hidden units' pre-activations (before tanh).
    pub fn pre_activations(&self) -> [f32; HIDDEN] {
        std::array::from_fn(|h| self.pre.0[h])
    }
}

impl std::fmt::Debug for Accumulator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Accumulator").field("pov", &self.pov).field("pre", &self.pre_activations()).finish()
    }
}

/// The default-topology network (100 inputs, 20 tanh hidden units, 1 tanh output), ready to
/// evaluate. Its evaluations lie in [-1, 1].
#[derive(Clone)]
pub struct Network {
    topology: Topology,
    weights: Vec<f32>,
    tables: Box<Tables>,
    encoding: Encoding,
}

/// How the board inputs encode the opponent's pieces (experiment E7). The default is docs/spec.md §3's
/// encoding; the other is the one the thesis prints, kept as an option to test it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Encoding {
    /// docs/spec.md §3: own pieces 0.75, opponent pieces 0.25, empty squares 0.5.
    #[default]
    Spec,
    /// The thesis's printed encoding: opponent pieces 0.5, the same as empty squares, so the
    /// network does not see the opponent at all (own pieces and the nonads are unchanged).
    Printed,
}

impl std::fmt::Debug for Network {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Network").field("topology", &self.topology).finish_non_exhaustive()
    }
}

impl Network {
    /// The network with `chromosome`'s weights, its tables precomputed.
    ///
    /// # Panics
    /// If the chromosome is not of the thesis's layout ([`Topology::is_thesis_layout`]): use
    /// [`Network::try_new`], or [`super::ShapedNetwork`] for any shape.
    pub fn new(chromosome: &Chromosome) -> Network {
        Network::try_new(chromosome).unwrap_or_else(|e| panic!("{e}"))
    }

    /// The network with `chromosome`'s weights, reading the board with its shape's encoding; an
    /// error if the chromosome is not of the thesis's layout, the one this evaluator computes.
    pub fn try_new(chromosome: &Chromosome) -> Result<Network, ShapeError> {
        let shape = chromosome.topology();
        if !shape.is_thesis_layout() {
            return Err(ShapeError::Mismatch { expected: Topology::THESIS, found: shape });
        }
        Ok(Network::with_encoding(chromosome, shape.inputs().encoding))
    }

    /// The network with `chromosome`'s weights reading the board with `encoding`.
    ///
    /// # Panics
    /// If the chromosome is not of the thesis's layout, as [`Network::new`].
    pub fn with_encoding(chromosome: &Chromosome, encoding: Encoding) -> Network {
        let topology = chromosome.topology();
        assert!(
            topology.is_thesis_layout(),
            "{}",
            ShapeError::Mismatch { expected: Topology::THESIS, found: topology }
        );
        let weights = chromosome.weights().to_vec();
        let mut tables = Box::new(build_tables(topology, &weights));
        if encoding == Encoding::Printed {
            // An opponent piece reads as an empty square: it changes no input.
            tables.opponent = [Lanes::ZERO; 64];
        }
        Network { topology, weights, tables, encoding }
    }

    /// The board input encoding.
    pub fn encoding(&self) -> Encoding {
        self.encoding
    }

    /// The topology.
    pub fn topology(&self) -> Topology {
        self.topology
    }

    /// The reference pre-activations, straight from the inputs: `b_h + Σ_i W1[h][i]·x_i`,
    /// summed in input order.
    pub fn pre_activations_plain(&self, pos: &Position, pov: Color) -> [f32; HIDDEN] {
        let x = match self.encoding {
            Encoding::Spec => inputs(pos, pov),
            Encoding::Printed => encode(pos.pieces(pov), Bitboard::EMPTY),
        };
        let t = self.topology;
        std::array::from_fn(|h| {
            let mut sum = self.weights[t.hidden_bias_index(h)];
            for (i, xi) in x.iter().enumerate() {
                sum += self.weights[t.input_weight_index(h, i)] * xi;
            }
            sum
        })
    }

    /// The reference evaluation: the plain forward pass, `tanh(b_o + Σ_h V_h·tanh(pre_h))`.
    pub fn evaluate_plain(&self, pos: &Position, pov: Color) -> f32 {
        let t = self.topology;
        let mut sum = self.weights[t.output_bias_index()];
        for (h, pre) in self.pre_activations_plain(pos, pov).iter().enumerate() {
            sum += self.weights[t.output_weight_index(h)] * tanh(*pre);
        }
        tanh(sum)
    }

    /// The accumulator for `pos` from `pov`, from scratch: base row plus one row per piece
    /// (own pieces in square order, then the opponent's).
    pub fn accumulator(&self, pos: &Position, pov: Color) -> Accumulator {
        let tables = &*self.tables;
        let mut pre = tables.base;
        for sq in pos.pieces(pov) {
            pre.add(&tables.own[sq.index()]);
        }
        for sq in pos.pieces(pov.opponent()) {
            pre.add(&tables.opponent[sq.index()]);
        }
        Accumulator { pre, pov }
    }

    /// The accumulator after `mv` is played in `pos_before` (legal there, or a pass, which
    /// changes no piece): the mover's row moves from `from` to `to`, a captured piece's row goes.
    #[inline(always)]
    pub fn update(&self, acc: &Accumulator, pos_before: &Position, mv: Move) -> Accumulator {
        if mv.is_pass() {
            return *acc;
        }
        let tables = &*self.tables;
        let mover = pos_before.side_to_move();
        let (mover_rows, victim_rows) =
            if mover == acc.pov { (&tables.own, &tables.opponent) } else { (&tables.opponent, &tables.own) };
        let (from, to) = (mv.from(), mv.to());
        let mut next = *acc;
        next.pre.add(&mover_rows[to.index()]);
        next.pre.sub(&mover_rows[from.index()]);
        // The board, not the move's flag, decides, exactly as `Position::play` does.
        if pos_before.pieces(mover.opponent()).contains(to) {
            next.pre.sub(&victim_rows[to.index()]);
        }
        next
    }

    /// The evaluation of an accumulator's position from its point of view, in [-1, 1]: scalar
    /// code compiled for the build target, inlined into the search, and the twin the batched
    /// paths ([`Network::evaluate_accumulators`]) are tested against.
    #[inline]
    pub fn evaluate_accumulator(&self, acc: &Accumulator) -> f32 {
        tanh(self.output_input(acc))
    }

    /// The output unit's input `b_o + Σ_h V_h·tanh(pre_h)`, summed in a fixed order: the
    /// evaluation is its [`tanh`](fn@tanh), and the search's bounds are on it
    /// ([`Network::bound_accumulators`]).
    #[inline(always)]
    pub fn output_input(&self, acc: &Accumulator) -> f32 {
        self.output_input_with(acc, tanh)
    }

    /// `b_o + Σ_h V_h·activation(pre_h)`, summed as [`Network::output_input`] sums.
    #[inline(always)]
    fn output_input_with(&self, acc: &Accumulator, activation: impl Fn(f32) -> f32) -> f32 {
        let tables = &*self.tables;
        // All 24 lanes: three whole vectors are cheaper than 20 lanes and a remainder.
        let mut products = [0.0f32; LANES];
        for ((p, pre), v) in products.iter_mut().zip(&acc.pre.0).zip(&tables.output_weights.0) {
            *p = activation(*pre) * v;
        }
        output_sum(tables.output_bias, &products)
    }

    /// The evaluations of several accumulators, bit for bit those of
    /// [`Network::evaluate_accumulator`]: `values[i]` for `accs[i]` (equal lengths), on the
    /// detected path ([`Supported::detected`]).
    ///
    /// Faster per accumulator: the hidden layers of a group of up to 8 accumulators are packed
    /// into 8 × 20 lanes, with none of the accumulators' 4 padding lanes each, so tanh runs 20
    /// 8-lane vectors per group (10 with AVX-512) instead of 24; then the output tanh runs once,
    /// lane by lane over the group, instead of 8 latency-bound scalar times.
    #[inline]
    pub fn evaluate_accumulators(&self, accs: &[Accumulator], values: &mut [f32]) {
        self.evaluate_accumulators_on(Supported::detected(), accs, values);
    }

    /// [`Network::evaluate_accumulators`] on `path`: the same bits on every path.
    #[inline]
    pub fn evaluate_accumulators_on(&self, path: Supported, accs: &[Accumulator], values: &mut [f32]) {
        path.run(EvaluateGroups { network: self, accs, values });
    }

    /// [`Network::evaluate_accumulators`] on the portable path.
    pub fn evaluate_accumulators_portable(&self, accs: &[Accumulator], values: &mut [f32]) {
        self.evaluate_accumulators_on(Supported::PORTABLE, accs, values);
    }

    /// The output unit's inputs `b + Σ_h activation(a_h)·V_h` of a group of up to [`GROUP`]
    /// accumulators (the rest of the array is unused), each summed as [`output_sum`] does: the
    /// hidden units packed into 8 × 20 lanes, with none of the accumulators' 4 padding lanes
    /// each, and the products computed `W` lanes at a time (the path's vector width; a
    /// fixed-size array, which the compiler turns into whole-vector instructions).
    #[inline(always)]
    fn group_output_inputs<I: Isa, const W: usize>(
        &self,
        isa: I,
        accs: &[Accumulator],
        activation: impl Fn(f32) -> f32,
    ) -> [f32; GROUP] {
        let tables = &*self.tables;
        assert!(accs.len() <= GROUP);
        // Each lane written once: the accumulators' copied, the rest (none in a full group)
        // zeroed. Zeroing the whole array first would be a call to memset; zeroing only up to a
        // whole vector would make each group sum a variable number of accumulators.
        let used = (accs.len() * HIDDEN).div_ceil(W) * W;
        let mut lanes = [std::mem::MaybeUninit::<f32>::uninit(); GROUP * HIDDEN];
        for (packed, acc) in lanes.chunks_exact_mut(HIDDEN).zip(accs) {
            for (lane, value) in packed.iter_mut().zip(&acc.pre.0) {
                lane.write(*value);
            }
        }
        for lane in &mut lanes[accs.len() * HIDDEN..] {
            lane.write(0.0);
        }
        // SAFETY: every lane was written just above, and `MaybeUninit<f32>` has the layout of
        // `f32`.
        let hidden = unsafe { std::slice::from_raw_parts_mut(lanes.as_mut_ptr().cast::<f32>(), GROUP * HIDDEN) };
        // Only the lanes in use, rounded up to whole vectors (the rest are never read).
        let weights = &tables.grouped_output_weights[..used];
        let (xs, _) = hidden[..used].as_chunks_mut::<W>();
        let (vs, _) = weights.as_chunks::<W>();
        for (x, v) in xs.iter_mut().zip(vs) {
            for k in 0..W {
                x[k] = activation(x[k]) * v[k];
            }
        }
        let mut inputs = [0.0f32; GROUP];
        for (x, products) in inputs.iter_mut().zip(hidden.as_chunks::<HIDDEN>().0) {
            *x = isa.packed_output_sum(tables.output_bias, products);
        }
        inputs
    }

    /// The fast evaluation of `pos` from `pov` (accumulator from scratch, then the output).
    pub fn evaluate(&self, pos: &Position, pov: Color) -> f32 {
        self.evaluate_accumulator(&self.accumulator(pos, pov))
    }
}

/// [`Network::evaluate_accumulators`] as a [`Kernel`]: groups of up to [`GROUP`], tanh on the
/// path's instructions.
struct EvaluateGroups<'a> {
    network: &'a Network,
    accs: &'a [Accumulator],
    values: &'a mut [f32],
}

impl Kernel for EvaluateGroups<'_> {
    type Output = ();

    #[inline(always)]
    fn run<I: Isa, const W: usize>(self, isa: I) {
        let EvaluateGroups { network, accs, values } = self;
        assert_eq!(accs.len(), values.len());
        for (accs, values) in accs.chunks(GROUP).zip(values.chunks_mut(GROUP)) {
            let mut inputs = network.group_output_inputs::<I, W>(isa, accs, tanh_on::<I>);
            for x in inputs.iter_mut() {
                *x = tanh_on::<I>(*x);
            }
            copy_group(values, &inputs);
        }
    }
}

/// Copies a group's first `values.len()` (at most [`GROUP`]) results into `values` in
/// fixed-size pieces only (moves in registers): a variable-length copy is a call to memcpy,
/// which also costs the vector constants reloaded after it. A whole group is one piece of 8; a
/// part-filled one (the last of a node's moves) pieces of 4, 2 and 1 as its length's bits say.
#[inline(always)]
fn copy_group(values: &mut [f32], group: &[f32; GROUP]) {
    const { assert!(GROUP == 8, "the pieces below cover lengths 1 to 8") };
    let mut at = 0;
    for piece in [8, 4, 2, 1] {
        if values.len() & piece != 0 {
            values[at..at + piece].copy_from_slice(&group[at..at + piece]);
            at += piece;
        }
    }
}

/// The search's fast evaluator: accumulators carried down the tree, updated per move.
impl Evaluator for Network {
    type State = Accumulator;

    fn root_state(&self, pos: &Position, pov: Color) -> Accumulator {
        self.accumulator(pos, pov)
    }

    #[inline]
    fn child_state(&self, state: &Accumulator, pos: &Position, mv: Move) -> Accumulator {
        self.update(state, pos, mv)
    }

    /// One loop of [`Network::update`], inlined: a call per child would cost a leaf's parent
    /// as much as the rest of its bookkeeping.
    #[inline]
    fn child_states(&self, state: &Accumulator, pos: &Position, moves: &[Move], states: &mut [Accumulator]) {
        for (next, &mv) in states.iter_mut().zip(moves) {
            *next = self.update(state, pos, mv);
        }
    }

    #[inline]
    fn evaluate(&self, state: &Accumulator, _pos: &Position) -> f32 {
        self.evaluate_accumulator(state)
    }

    #[inline]
    fn evaluate_many(&self, states: &[Accumulator], _positions: &[Position], values: &mut [f32]) {
        self.evaluate_accumulators(states, values)
    }

    const BOUNDS: bool = true;

    /// Bounds on the output unit's input, whose [`tanh`](fn@tanh) the value is.
    #[inline]
    fn bound_many(&self, states: &[Accumulator], _positions: &[Position], lo: &mut [f32], hi: &mut [f32]) {
        self.bound_accumulators(states, lo, hi)
    }

    #[inline]
    fn key_at_most(&self, value: f32) -> f32 {
        super::tanh::inputs_at_most(value)
    }

    #[inline]
    fn key_at_least(&self, value: f32) -> f32 {
        super::tanh::inputs_at_least(value)
    }
}

/// A [`Network`] that evaluates every leaf with the plain forward pass: the reference for
/// testing the fast path inside a search. Same values up to rounding, much slower.
#[derive(Clone, Debug)]
pub struct PlainNetwork(pub Network);

impl Evaluator for PlainNetwork {
    type State = Color;

    /// The plain pass starts from the position's inputs every time.
    const PATH_INDEPENDENT: bool = true;

    fn root_state(&self, _pos: &Position, pov: Color) -> Color {
        pov
    }

    fn child_state(&self, pov: &Color, _pos: &Position, _mv: Move) -> Color {
        *pov
    }

    fn evaluate(&self, pov: &Color, pos: &Position) -> f32 {
        self.0.evaluate_plain(pos, *pov)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Square;
    use crate::network::inputs::INPUTS;
    use crate::network::random_uniform;

    /// The per-square rows summed over all 100 inputs, zero terms included (the definition).
    fn full_rows(topology: Topology, weights: &[f32]) -> ([Lanes; 64], [Lanes; 64]) {
        let w1 = |h: usize, i: usize| f64::from(weights[topology.input_weight_index(h, i)]);
        let row = |x: &[f32; INPUTS], empty: &[f32; INPUTS]| {
            let mut lanes = Lanes::ZERO;
            for (h, lane) in lanes.0.iter_mut().take(HIDDEN).enumerate() {
                let delta: f64 = (0..INPUTS).map(|i| w1(h, i) * (f64::from(x[i]) - f64::from(empty[i]))).sum();
                *lane = delta as f32;
            }
            lanes
        };
        let empty = encode(Bitboard::EMPTY, Bitboard::EMPTY);
        let (mut own, mut opponent) = ([Lanes::ZERO; 64], [Lanes::ZERO; 64]);
        for sq in Square::all() {
            let alone = Bitboard::from_square(sq);
            own[sq.index()] = row(&encode(alone, Bitboard::EMPTY), &empty);
            opponent[sq.index()] = row(&encode(Bitboard::EMPTY, alone), &empty);
        }
        (own, opponent)
    }

    #[test]
    fn rows_skipping_zero_terms_equal_the_full_sums_bit_for_bit() {
        for seed in 0..40 {
            let chromosome = random_uniform(seed);
            let tables = build_tables(chromosome.topology(), chromosome.weights());
            let (own, opponent) = full_rows(chromosome.topology(), chromosome.weights());
            let bits = |rows: &[Lanes; 64]| rows.iter().flat_map(|r| r.0.map(f32::to_bits)).collect::<Vec<_>>();
            assert_eq!(bits(&tables.own), bits(&own), "seed {seed}");
            assert_eq!(bits(&tables.opponent), bits(&opponent), "seed {seed}");
        }
    }
}
