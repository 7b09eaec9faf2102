//! The forward pass: the plain reference and the incremental (NNUE-style) fast path.
//!
//! A hidden unit's pre-activation is linear in the pieces: with every cell empty it is
//! `base_h = b_h + Σ_i W1[h][i]·empty_i`, and each own piece on `s` adds `OWN[s][h]` (its board
//! cell going 0.5 → 0.75 plus its share of every nonad around it), each opponent piece `OPP[s][h]`
//! (its cell going 0.5 → 0.25). So an [`Accumulator`] is a sum of table rows, and a move changes
//! two or three rows.

mod bounds;
mod unit_major;

use super::inputs::{INPUTS, encode, inputs};
use super::{Chromosome, HIDDEN, Topology, tanh};
use crate::search::Evaluator;
use crate::{Bitboard, Color, Move, Position, Square};

/// Hidden units padded to whole SIMD vectors (3 × 8 f32); padding lanes stay 0.
const LANES: usize = 24;

/// One row of hidden-unit values, aligned for vector loads.
#[derive(Clone, Copy, PartialEq)]
#[repr(C, align(32))]
struct Lanes([f32; LANES]);

impl Lanes {
    const ZERO: Lanes = Lanes([0.0; LANES]);

    #[inline(always)]
    fn add(&mut self, row: &Lanes) {
        for (a, b) in self.0.iter_mut().zip(&row.0) {
            *a += b;
        }
    }

    #[inline(always)]
    fn sub(&mut self, row: &Lanes) {
        for (a, b) in self.0.iter_mut().zip(&row.0) {
            *a -= b;
        }
    }
}

/// The fast path's precomputed rows (12.5 KB: fits in L1 cache).
#[derive(Clone)]
struct Tables {
    base: Lanes,
    own: [Lanes; 64],
    opponent: [Lanes; 64],
    output_weights: Lanes,
    /// The 20 output weights repeated for each accumulator of a group (the packed layout of
    /// [`Network::evaluate_accumulators_portable`]).
    grouped_output_weights: [f32; GROUP * HIDDEN],
    output_bias: f32,
    /// How far the output unit's input can be from its estimate ([`bounds`]).
    value_margin: f32,
}

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

/// How the board inputs encode the opponent's pieces (experiment E7). The default is SPEC §3's
/// encoding; the other is the one the thesis prints, kept as an option to test it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Encoding {
    /// SPEC §3: own pieces 0.75, opponent pieces 0.25, empty squares 0.5.
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
    pub fn new(chromosome: &Chromosome) -> Network {
        Network::with_encoding(chromosome, Encoding::Spec)
    }

    /// The network with `chromosome`'s weights reading the board with `encoding`.
    pub fn with_encoding(chromosome: &Chromosome, encoding: Encoding) -> Network {
        let topology = chromosome.topology();
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

    /// The evaluation of an accumulator's position from its point of view, in [-1, 1].
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
    /// [`Network::evaluate_accumulator`]: `values[i]` for `accs[i]` (equal lengths).
    ///
    /// Faster per accumulator: groups of up to 8 are evaluated together (see
    /// [`Network::evaluate_accumulators_portable`]); on a processor with AVX-512 the same code,
    /// compiled for it, runs 16 lanes per instruction. Every lane does the same IEEE operations
    /// either way, so the bits do not depend on the path (tested against the scalar path).
    #[inline]
    pub fn evaluate_accumulators(&self, accs: &[Accumulator], values: &mut [f32]) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx512f") {
            // SAFETY: the processor has AVX-512F, checked just above.
            unsafe { self.evaluate_accumulators_avx512(accs, values) };
            return;
        }
        self.evaluate_accumulators_portable(accs, values);
    }

    /// [`Network::evaluate_accumulators`] compiled with AVX-512F enabled.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f")]
    fn evaluate_accumulators_avx512(&self, accs: &[Accumulator], values: &mut [f32]) {
        self.evaluate_groups::<16>(accs, values);
    }

    /// [`Network::evaluate_accumulators`] on the build target's instructions alone (the twin the
    /// tests compare the AVX-512 path with; the same results, bit for bit).
    ///
    /// The hidden layers of a group of up to 8 accumulators are packed into 8 × 20 lanes, with
    /// none of the accumulators' 4 padding lanes each, so tanh runs 20 8-lane vectors per group
    /// instead of 24; then the output tanh runs once, lane by lane over the group, instead of 8
    /// latency-bound scalar times.
    pub fn evaluate_accumulators_portable(&self, accs: &[Accumulator], values: &mut [f32]) {
        self.evaluate_groups::<8>(accs, values);
    }

    /// The group evaluation, tanh over `W` lanes at a time (the vector width it is compiled
    /// for; any `W` gives the same bits, as every lane is independent).
    #[inline(always)]
    fn evaluate_groups<const W: usize>(&self, accs: &[Accumulator], values: &mut [f32]) {
        assert_eq!(accs.len(), values.len());
        for (accs, values) in accs.chunks(GROUP).zip(values.chunks_mut(GROUP)) {
            let mut inputs = self.group_output_inputs::<W>(accs, tanh);
            for x in inputs.iter_mut() {
                *x = tanh(*x);
            }
            copy_group(values, &inputs);
        }
    }

    /// The output unit's inputs `b + Σ_h activation(a_h)·V_h` of a group of up to [`GROUP`]
    /// accumulators (the rest of the array is unused), each summed as [`output_sum`] does: the
    /// hidden units packed into 8 × 20 lanes, with none of the accumulators' 4 padding lanes
    /// each, and the products computed `W` lanes at a time (the vector width it is compiled
    /// for; a fixed-size array, which the compiler turns into whole-vector instructions).
    #[inline(always)]
    fn group_output_inputs<const W: usize>(
        &self,
        accs: &[Accumulator],
        activation: impl Fn(f32) -> f32,
    ) -> [f32; GROUP] {
        let tables = &*self.tables;
        assert!(accs.len() <= GROUP);
        // Each lane written once: the accumulators' copied, the rest (none in a full group)
        // zeroed. Zeroing the whole array first was a call to memset on the portable path (5 %
        // of a match there); zeroing only up to a whole vector made each group sum a variable
        // number of accumulators, 4 % slower with AVX-512.
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
            *x = packed_output_sum(tables.output_bias, products);
        }
        inputs
    }

    /// The fast evaluation of `pos` from `pov` (accumulator from scratch, then the output).
    pub fn evaluate(&self, pos: &Position, pov: Color) -> f32 {
        self.evaluate_accumulator(&self.accumulator(pos, pov))
    }
}

/// Accumulators evaluated together by [`Network::evaluate_accumulators`].
const GROUP: usize = 8;

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

/// `bias + Σ products` in a fixed order: lanes `j`, `j + 8` and `j + 16` added first, then a
/// tree over the 8 lane sums. The 4 padding lanes hold `+0` (`tanh(+0) · 0`), and adding them
/// is not a no-op in IEEE arithmetic (`−0 + +0 = +0`), so every layout adds them.
#[inline(always)]
fn output_sum(bias: f32, products: &[f32; LANES]) -> f32 {
    let lanes: [f32; 8] = std::array::from_fn(|j| (products[j] + products[j + 8]) + products[j + 16]);
    let [l0, l1, l2, l3, l4, l5, l6, l7] = lanes;
    let sum = ((l0 + l4) + (l2 + l6)) + ((l1 + l5) + (l3 + l7));
    bias + sum
}

/// [`output_sum`] of one accumulator's 20 products packed without padding (the padding lanes
/// read as `+0`), bit for bit: the same additions in the same order, four lanes at a time.
///
/// Written with SSE (part of x86-64's baseline) because the compiler, given `output_sum` for each
/// of a group's accumulators, vectorised across them with one gather per lane (a quarter of the
/// batched evaluation's time); within one accumulator the order is the usual horizontal sum.
#[inline(always)]
fn packed_output_sum(bias: f32, products: &[f32; HIDDEN]) -> f32 {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{
            _mm_add_ps, _mm_add_ss, _mm_cvtss_f32, _mm_loadu_ps, _mm_movehl_ps, _mm_setzero_ps, _mm_shuffle_ps,
        };
        // SAFETY: SSE is in every x86-64 processor; each load reads 4 lanes at offsets 0-16 of
        // the 20, all in bounds, and `loadu` needs no alignment.
        unsafe {
            let at = |i: usize| _mm_loadu_ps(products.as_ptr().add(i));
            // Lanes j and j + 4 of output_sum's eight: (p[j] + p[j+8]) + p[j+16], where p[20..24]
            // is the +0 padding (adding it is not a no-op: −0 + +0 = +0).
            let low = _mm_add_ps(_mm_add_ps(at(0), at(8)), at(16));
            let high = _mm_add_ps(_mm_add_ps(at(4), at(12)), _mm_setzero_ps());
            // (l0 + l4, l1 + l5, l2 + l6, l3 + l7), then ((l0 + l4) + (l2 + l6), (l1 + l5) + (l3 + l7)).
            let pairs = _mm_add_ps(low, high);
            let halves = _mm_add_ps(pairs, _mm_movehl_ps(pairs, pairs));
            let sum = _mm_add_ss(halves, _mm_shuffle_ps::<1>(halves, halves));
            bias + _mm_cvtss_f32(sum)
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let mut lanes = [0.0f32; LANES];
        lanes[..HIDDEN].copy_from_slice(products);
        output_sum(bias, &lanes)
    }
}

/// The inputs a lone piece changes from the empty board's, with the changes, for every square:
/// what [`build_tables`] needs of [`encode`], which is the same for every network (computing
/// it for each network was most of building its tables: 0.9 % of a thesis epoch).
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
fn build_tables(topology: Topology, weights: &[f32]) -> Tables {
    let w1 = |h: usize, i: usize| f64::from(weights[topology.input_weight_index(h, i)]);
    // Row h of W1 applied to the inputs' changes. The inputs a lone piece leaves unchanged
    // contribute ±0 terms, which are skipped: adding ±0 to a sum leaves it unchanged unless
    // every term so far was zero (only then can the sign of a zero sum differ), and the piece's
    // own board cell always changes, so each sum has a nonzero term and the rows are bit for
    // bit those of the full sums. (A tenth of the work: building the tables was a tenth of a
    // network game.)
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

    /// One loop of [`Network::update`], inlined (as a call a child, it cost a leaf's parent
    /// as much as the rest of its bookkeeping).
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
