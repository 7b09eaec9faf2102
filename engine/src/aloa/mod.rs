//! ALoA, the reference evaluator (docs/spec.md §4), after Winands' evaluators for MIA ("The Quad
//! Heuristic in Lines of Action", §5.2) and Garcia's quad + centralisation evaluator.
//!
//! For each side with `n` pieces (see [`SideFeatures`] for the exact measurements):
//!
//! - **concentration**: the pieces' summed Chebyshev distance to their (unrounded) centre of
//!   mass, minus the least sum `n` pieces can have, averaged over the pieces: `a` squares; the
//!   term is `−W·a`. Winands takes the inverse `1/a` (which needs a guard at `a = 0`). We tried
//!   `W/(1 + a)` too: as normal evaluators the two were equally strong at depth 3, but only
//!   with the linear form did adding the quad term win more games than it lost (see
//!   [`AloaWeights`]).
//! - **centralisation of the centre of mass**: minus `W` per square the centre of mass stands
//!   from the board centre (Chebyshev), slightly preferring formations away from the edges.
//! - **centralisation of the pieces**: `W` × Garcia's weighted board (ring 0 on the edge … 3 on
//!   the four centre squares).
//! - **edge penalty**: minus `W` per piece on the edge.
//! - **quads** ([`AloaKind::Quad`] only): `W3` per Q3 and `W4` per Q4 (2×2 windows with three
//!   or four own pieces) whose centre is within distance 2 of the centre of mass. A Q3/Q4
//!   cannot be broken by one capture, so such formations are solid.
//!
//! On a smaller board every term is measured on that board: its centre, its rings and its edge
//! ([`SideFeatures::on`]; on 8×8 exactly the values above).
//!
//! The evaluation is own total minus opponent total, integer-valued (hence exact in `f32`) and
//! clamped inside `(-EVAL_LIMIT, EVAL_LIMIT)`. No side-to-move bonus: the fixed-depth search
//! evaluates all its leaves with the same side to move, so a constant tempo bonus would change no
//! decision, and without it the evaluation is exactly antisymmetric. Connections are not looked
//! at (as in MIA's normal evaluator); a connected side is terminal and the search scores it.

mod features;
mod geometry;
mod totals;

pub use features::{MIN_DISTANCE_SUM, SideFeatures};

use features::{LANES, MovedFeatures};
use totals::{TOTALS, TotalsCache};

use crate::search::{EVAL_LIMIT, Evaluator};
use crate::{Bitboard, BoardSize, Color, Move, Position};
use serde::{Deserialize, Serialize};
use std::fmt;

/// Which of Winands' evaluators ALoA follows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AloaKind {
    /// The quad evaluator: the normal terms plus the quad term (the reference player).
    #[default]
    Quad,
    /// The normal evaluator: centre of mass, centralisation and edge terms only.
    Normal,
}

/// The weights of the terms, per side, in evaluation units. Signs are built in: every weight is
/// meant to be positive (a penalty's weight is subtracted).
///
/// Integers, so the evaluation is an exact integer. The defaults put concentration first (the
/// core of MIA's evaluator): bringing one of 12 pieces two squares closer is worth about
/// 300·24/144 = 50, a new solid quad near the centre of mass 10, leaving the edge for the next
/// ring 10 + 3, and the centre of mass is a small tie-breaker, as both sources describe. They come from
/// self-play at depth 3 from 2-random-ply openings (thousands of games per setting): the normal
/// evaluator was insensitive to its weights within a factor of two (concentration 150..1200,
/// edge 0..10; edge 25 and the MIA-style rounded centre of mass lost clearly), and the quad
/// term helped only a little, at about 10 per quad (1982–1862–156 and 979–941–80 against the
/// normal kind in two runs of 4000 and 2000 games; 20 per quad was even, 40 lost clearly, counting quads anywhere instead of near the
/// centre of mass lost, and dividing them by the piece count lost).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AloaWeights {
    /// Penalty per square of average excess distance `a` to the centre of mass: `−W·a`.
    pub concentration: i32,
    /// Penalty per square (Chebyshev, fractions floored) between the centre of mass and the
    /// board centre.
    pub com_centralisation: i32,
    /// Value per ring step of a piece on Garcia's weighted board:
    ///
    /// ```text
    /// 0 0 0 0 0 0 0 0
    /// 0 1 1 1 1 1 1 0
    /// 0 1 2 2 2 2 1 0
    /// 0 1 2 3 3 2 1 0
    /// 0 1 2 3 3 2 1 0
    /// 0 1 2 2 2 2 1 0
    /// 0 1 1 1 1 1 1 0
    /// 0 0 0 0 0 0 0 0
    /// ```
    ///
    /// Rings rather than Euclidean distance: from a central square a piece reaches more of the
    /// board in one move, and rings treat the 8 directions alike, like the Chebyshev distances
    /// used everywhere else.
    pub centralisation: i32,
    /// Penalty per piece on the edge (fewer move directions, usually far from the centre of
    /// mass).
    pub edge: i32,
    /// Value per Q3 near the centre of mass (quad kind only).
    pub quad3: i32,
    /// Value per Q4 near the centre of mass (quad kind only).
    pub quad4: i32,
}

impl Default for AloaWeights {
    fn default() -> Self {
        AloaWeights { concentration: 300, com_centralisation: 4, centralisation: 3, edge: 10, quad3: 10, quad4: 10 }
    }
}

/// The largest weight magnitude accepted: keeps every intermediate far inside `i32`.
pub const MAX_WEIGHT: i32 = 10_000;

/// A weight outside `-MAX_WEIGHT..=MAX_WEIGHT`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WeightOutOfRange {
    /// The weight's field name.
    pub name: &'static str,
    /// Its value.
    pub value: i32,
}

impl fmt::Display for WeightOutOfRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ALoA weight `{}` = {} is outside ±{MAX_WEIGHT}", self.name, self.value)
    }
}

impl std::error::Error for WeightOutOfRange {}

/// One side's weighted terms (penalties already negative); their sum is the side's total.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SideTerms {
    /// `−⌊W · excess / n²⌋`, i.e. `−W·a` (`excess` is in units of `1/n` squares, summed over
    /// `n` pieces).
    pub concentration: i32,
    /// `−⌊W · com_offcentre / 2n⌋`.
    pub com_centralisation: i32,
    /// `W · ring_sum`.
    pub centralisation: i32,
    /// `−W · edge`.
    pub edge: i32,
    /// `W3 · near_q3 + W4 · near_q4` (0 for the normal kind).
    pub quads: i32,
}

impl SideTerms {
    /// The side's total.
    pub fn total(&self) -> i32 {
        self.concentration + self.com_centralisation + self.centralisation + self.edge + self.quads
    }
}

/// The ALoA evaluator: a kind and its weights. Its search state is an [`AloaState`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Aloa {
    kind: AloaKind,
    weights: AloaWeights,
}

impl Default for Aloa {
    fn default() -> Self {
        Aloa::quad()
    }
}

impl Aloa {
    /// An evaluator of `kind` with the default weights.
    pub fn new(kind: AloaKind) -> Aloa {
        Aloa { kind, weights: AloaWeights::default() }
    }

    /// An evaluator of `kind` with `weights`, each of which must be within ±[`MAX_WEIGHT`].
    pub fn with_weights(kind: AloaKind, weights: AloaWeights) -> Result<Aloa, WeightOutOfRange> {
        let w = weights;
        for (name, value) in [
            ("concentration", w.concentration),
            ("com_centralisation", w.com_centralisation),
            ("centralisation", w.centralisation),
            ("edge", w.edge),
            ("quad3", w.quad3),
            ("quad4", w.quad4),
        ] {
            if !(-MAX_WEIGHT..=MAX_WEIGHT).contains(&value) {
                return Err(WeightOutOfRange { name, value });
            }
        }
        Ok(Aloa { kind, weights })
    }

    /// The reference player's evaluator: the quad kind with the default weights.
    pub fn quad() -> Aloa {
        Aloa::new(AloaKind::Quad)
    }

    /// Winands' normal evaluator with the default weights (the quad term left out).
    pub fn normal() -> Aloa {
        Aloa::new(AloaKind::Normal)
    }

    /// The kind.
    pub fn kind(&self) -> AloaKind {
        self.kind
    }

    /// The weights.
    pub fn weights(&self) -> AloaWeights {
        self.weights
    }

    /// The weighted terms of one side's `pieces` on the 8×8 board (all 0 for no pieces).
    #[inline]
    pub fn side_terms(&self, pieces: Bitboard) -> SideTerms {
        self.side_terms_on(BoardSize::STANDARD, pieces)
    }

    /// The weighted terms of one side's `pieces` on the `size` board (all 0 for no pieces).
    #[inline]
    pub fn side_terms_on(&self, size: BoardSize, pieces: Bitboard) -> SideTerms {
        let with_quads = self.kind == AloaKind::Quad;
        let f = SideFeatures::on(size, pieces, with_quads);
        if f.count == 0 {
            return SideTerms::default();
        }
        let w = &self.weights;
        // Counts are ≤ 64 and weights ≤ MAX_WEIGHT, so no product below leaves i32.
        let (n, n2) = (f.count as i32, (f.count * f.count) as i32);
        SideTerms {
            concentration: -(w.concentration * f.excess as i32 / n2),
            com_centralisation: -(w.com_centralisation * f.com_offcentre as i32 / (2 * n)),
            centralisation: w.centralisation * f.ring_sum as i32,
            edge: -w.edge * f.edge as i32,
            quads: if with_quads { w.quad3 * f.near_q3 as i32 + w.quad4 * f.near_q4 as i32 } else { 0 },
        }
    }

    /// The evaluation of `pos` for `pov` as an integer: `pov`'s total minus the opponent's,
    /// clamped strictly inside `±EVAL_LIMIT`.
    #[inline]
    pub fn score(&self, pos: &Position, pov: Color) -> i32 {
        let own = self.side_terms_on(pos.size(), pos.pieces(pov)).total();
        let other = self.side_terms_on(pos.size(), pos.pieces(pov.opponent())).total();
        const LIMIT: i32 = EVAL_LIMIT as i32 - 1;
        (own - other).clamp(-LIMIT, LIMIT)
    }
}

/// Division of the numerators of [`Aloa::moved_totals`] by one divisor `d` from 1 to 144 (`n²`
/// or `2n` for `n` ≤ 12 pieces) as a multiplication, which vectorises where a division does
/// not. With `M = ⌈2^31 / d⌉ = (2^31 + e) / d`, `0 ≤ e < d`: `x·M / 2^31 = x/d + x·e / (d·2^31)`,
/// and for `x·e < 2^31` the second part is below `1/d`, too little to carry `x/d`, whose
/// fraction is at most `(d − 1)/d`, past the next integer. So the floor is exact for
/// `x < 2^31 / 143`, about 1.5·10^7; the numerators are weights (≤ [`MAX_WEIGHT`]) times
/// measurements of at most 7·12², at most 1.008·10^7 (`divisor_quotients_are_exact`). `M` fits
/// in 32 bits, so each lane is one 32 × 32 → 64-bit multiplication.
#[derive(Clone, Copy, Debug)]
struct Divisor {
    magic: u32,
}

impl Divisor {
    #[inline(always)]
    fn new(d: u32) -> Divisor {
        Divisor { magic: (1u32 << 31).div_ceil(d) }
    }

    /// `x / d`, for `x` below the bound above.
    #[inline(always)]
    fn quotient(self, x: u32) -> u32 {
        ((u64::from(x) * u64::from(self.magic)) >> 31) as u32
    }
}

/// ALoA's search state: the point of view and both sides' totals ([`SideTerms::total`]) for the
/// position, so a move recomputes only the sides whose pieces it changes (the mover's, and the
/// victim's on a capture) instead of both sides at every leaf.
#[derive(Clone, Copy, Debug)]
pub struct AloaState {
    pov: Color,
    /// Totals by [`Color::index`].
    totals: [i32; 2],
    /// The epoch of this thread's totals cache the state was made in (see [`TotalsCache`]).
    epoch: u32,
}

/// Equal states evaluate alike: same point of view and totals (the cache epoch is bookkeeping).
impl PartialEq for AloaState {
    fn eq(&self, other: &AloaState) -> bool {
        (self.pov, self.totals) == (other.pov, other.totals)
    }
}

impl Eq for AloaState {}

impl AloaState {
    /// The point of view.
    pub fn pov(&self) -> Color {
        self.pov
    }

    /// This state with `mover`'s total `own` and the other side's `other`. Both written at
    /// once: storing one by index and then copying the state made the copy wait for the store
    /// (a failed store-to-load forwarding; perf put half of `child_state`'s samples on it).
    #[inline(always)]
    fn with_totals(&self, mover: Color, own: i32, other: i32) -> AloaState {
        let totals = if mover.index() == 0 { [own, other] } else { [other, own] };
        AloaState { totals, ..*self }
    }
}

impl Aloa {
    /// [`Evaluator::child_state`] for a move that is not a pass, with this thread's totals
    /// cache borrowed: the mover's total, and the victim's after a capture, from the cache (or
    /// measured directly if the cache has changed hands since `state` was made).
    #[inline(always)]
    fn child_state_with(&self, cache: &mut TotalsCache, state: &AloaState, pos: &Position, mv: Move) -> AloaState {
        let (from, to) = (mv.from().bit(), mv.to().bit());
        let mover = pos.side_to_move();
        let captures = pos.enemy().0 & to != 0;
        let (own, enemy) = (pos.own().0 ^ (from | to), pos.enemy().0 & !to);
        let current = cache.epoch == state.epoch;
        let mover_total = self.total_with(cache, current, pos.size(), own);
        // The board, not the move's flag, decides, exactly as `Position::play` does.
        let other = if captures {
            self.total_with(cache, current, pos.size(), enemy)
        } else {
            state.totals[mover.opponent().index()]
        };
        state.with_totals(mover, mover_total, other)
    }

    /// The total of `pieces` on the `size` board: from the cache if it is `current` (still the
    /// state's), else measured. A method rather than a closure, which the compiler did not
    /// inline once it captured the board.
    #[inline(always)]
    fn total_with(&self, cache: &mut TotalsCache, current: bool, size: BoardSize, pieces: u64) -> i32 {
        if current { cache.total(pieces) } else { self.side_terms_on(size, Bitboard(pieces)).total() }
    }

    /// `side_terms(pieces − from[l] + to[l]).total()` in lane `l`, for [`LANES`] moves of the
    /// pieces of one side (1 to 12 pieces; see [`MovedFeatures::of`]), lane by lane in the
    /// same integer arithmetic (`child_states_equal_measured_states_for_any_weights`); the
    /// divisions by a divisor every lane shares, with [`Divisor`].
    #[inline]
    fn moved_totals(&self, size: BoardSize, pieces: Bitboard, from: &[u8; LANES], to: &[u8; LANES]) -> [i32; LANES] {
        let with_quads = self.kind == AloaKind::Quad;
        let m = MovedFeatures::of(size, pieces, from, to, with_quads);
        let w = &self.weights;
        let (by_n2, by_2n) = (Divisor::new(m.count * m.count), Divisor::new(2 * m.count));
        // `−(w·v / d)` with Rust's quotient (rounded towards zero) is `∓(|w|·v / d)` for v ≥ 0;
        // the sign is the weight's, the same in every lane.
        let term = |weight: i32, value: i32, d: Divisor| {
            let q = d.quotient(weight.unsigned_abs() * value as u32) as i32;
            if weight < 0 { q } else { -q }
        };
        let mut totals = [0i32; LANES];
        for (l, total) in totals.iter_mut().enumerate() {
            let concentration = term(w.concentration, m.excess[l], by_n2);
            let com_centralisation = term(w.com_centralisation, m.com_offcentre[l], by_2n);
            let quads = if with_quads { w.quad3 * m.near_q3[l] + w.quad4 * m.near_q4[l] } else { 0 };
            *total = concentration + com_centralisation + w.centralisation * m.ring_sum[l] - w.edge * m.edge[l] + quads;
        }
        totals
    }
}

impl Evaluator for Aloa {
    type State = AloaState;

    /// The totals are exact integers of the piece sets, however they were reached.
    const PATH_INDEPENDENT: bool = true;

    fn root_state(&self, pos: &Position, pov: Color) -> AloaState {
        let totals = Color::ALL.map(|c| self.side_terms_on(pos.size(), pos.pieces(c)).total());
        let mut ordered = [0; 2];
        for (c, t) in Color::ALL.iter().zip(totals) {
            ordered[c.index()] = t;
        }
        let epoch = TOTALS.with_borrow_mut(|cache| cache.claim(self, pos.size()));
        AloaState { pov, totals: ordered, epoch }
    }

    #[inline]
    fn child_state(&self, state: &AloaState, pos: &Position, mv: Move) -> AloaState {
        if mv.is_pass() {
            return *state;
        }
        TOTALS.with_borrow_mut(|cache| self.child_state_with(cache, state, pos, mv))
    }

    /// The mover's totals measured together, 8 moves at a time
    /// (`Aloa::moved_totals`), not looked up: at a leaf's parent, where the search asks for
    /// them, many were missing from the totals cache (each miss measured a set on its own, a
    /// few hundred instructions), and the lookups' unpredictable branch and loads cost time
    /// even when they hit; a batch, branch-free and mostly vector instructions, made ALoA's
    /// moves faster. Victims of captures still go through the cache, with one borrow of
    /// it for all the moves (reaching a thread-local cost about as many instructions as a
    /// lookup itself).
    #[inline]
    fn child_states(&self, state: &AloaState, pos: &Position, moves: &[Move], states: &mut [AloaState]) {
        let mover = pos.side_to_move();
        let (own, enemy) = (pos.own(), pos.enemy().0);
        TOTALS.with_borrow_mut(|cache| {
            let current = cache.epoch == state.epoch;
            for (moves, states) in moves.chunks(LANES).zip(states.chunks_mut(LANES)) {
                // A pass's lane measures the pieces unmoved (from = to = a1) and is dropped. The
                // squares are packed a byte a lane into registers: stored a byte at a time, the
                // arrays were read back as a whole before the stores could forward (perf put a
                // good share of this function on that load).
                let (mut from, mut to) = (0u64, 0u64);
                for (l, &mv) in moves.iter().enumerate() {
                    if !mv.is_pass() {
                        from |= (mv.from().index() as u64) << (8 * l);
                        to |= (mv.to().index() as u64) << (8 * l);
                    }
                }
                // A Position's sides hold 1 to 12 pieces, as `moved_totals` needs.
                let totals = self.moved_totals(pos.size(), own, &from.to_le_bytes(), &to.to_le_bytes());
                for ((next, &mv), &total) in states.iter_mut().zip(moves).zip(&totals) {
                    if mv.is_pass() {
                        *next = *state;
                        continue;
                    }
                    // The board, not the move's flag, decides, exactly as `Position::play` does.
                    let to = mv.to().bit();
                    let other = if enemy & to == 0 {
                        state.totals[mover.opponent().index()]
                    } else if current {
                        cache.total(enemy & !to)
                    } else {
                        self.side_terms_on(pos.size(), Bitboard(enemy & !to)).total()
                    };
                    *next = state.with_totals(mover, total, other);
                }
            }
        });
    }

    #[inline]
    fn evaluate(&self, state: &AloaState, _pos: &Position) -> f32 {
        const LIMIT: i32 = EVAL_LIMIT as i32 - 1;
        let own = state.totals[state.pov.index()];
        let other = state.totals[state.pov.opponent().index()];
        // Exactly `score`; |score| < 2^24, so the conversion is exact.
        (own - other).clamp(-LIMIT, LIMIT) as f32
    }
}

#[cfg(test)]
mod tests;
