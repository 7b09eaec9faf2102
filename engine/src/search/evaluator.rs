//! The evaluator interface the search calls at its leaves.

use crate::random::RandomHeuristic;
use crate::{Color, Move, Position};

/// Every static evaluation lies strictly inside `(-EVAL_LIMIT, EVAL_LIMIT)`; terminal positions
/// score beyond it (see [`crate::search::WIN`]).
pub const EVAL_LIMIT: f32 = 100_000.0;

/// A static evaluation function, seen from one side (the *point of view*, `pov`), with optional
/// incremental state carried down the search tree.
///
/// The search calls [`Evaluator::root_state`] once per search, [`Evaluator::child_state`] for
/// every move it makes, and [`Evaluator::evaluate`] at non-terminal leaves. An evaluator that
/// keeps no state uses `State = Color` (the point of view) and ignores the moves.
///
/// Determinism: `evaluate` must be a pure function of the state and position, computed the same
/// way on every machine (fixed summation order, no platform `libm` calls whose last bit may
/// differ between systems), so that games replay bit for bit on any worker.
pub trait Evaluator {
    /// Incremental state: e.g. a network's hidden-layer accumulator. Small and `Copy`.
    type State: Copy;

    /// Whether [`Evaluator::evaluate`] is a function of the position and the point of view
    /// alone, whatever moves led there: then the search may reuse the value of a subtree for
    /// the same position reached by another move order (a transposition table), and the result
    /// stays exactly that of [`super::minimax`]. False when the state carries rounding that
    /// depends on the path (a network's accumulator is summed move by move in floating point,
    /// so two move orders can differ in the last bit).
    const PATH_INDEPENDENT: bool = false;

    /// The state for `pos` evaluated from `pov`'s side, computed from scratch.
    fn root_state(&self, pos: &Position, pov: Color) -> Self::State;

    /// The state after `mv` is played in `pos` (`pos` is the position *before* the move; `mv`
    /// is legal there, or [`Move::PASS`]).
    fn child_state(&self, state: &Self::State, pos: &Position, mv: Move) -> Self::State;

    /// The states after each of `moves` in `pos` (as for [`Evaluator::child_state`]):
    /// `states[i]` must be exactly `child_state(state, pos, moves[i])`. The slices have equal
    /// lengths. An evaluator overrides this when a batch saves work (ALoA looks up its cache of
    /// side totals once for all); the default goes one by one.
    #[inline]
    fn child_states(&self, state: &Self::State, pos: &Position, moves: &[Move], states: &mut [Self::State]) {
        for (next, &mv) in states.iter_mut().zip(moves) {
            *next = self.child_state(state, pos, mv);
        }
    }

    /// The value of `pos` for the point of view fixed in `state`: higher is better for it, and
    /// strictly inside `(-EVAL_LIMIT, EVAL_LIMIT)`. `pos` is not terminal.
    fn evaluate(&self, state: &Self::State, pos: &Position) -> f32;

    /// Whether [`Evaluator::bound_many`] is much cheaper than evaluating: then the search bounds
    /// a leaf first and evaluates it exactly only where the bounds do not decide.
    const BOUNDS: bool = false;

    /// Bounds on several leaves' *keys*: `lo[i] ≤ key ≤ hi[i]` (equal lengths). A key is a
    /// number that tells which side of a value the leaf's value lies on through
    /// [`Evaluator::key_at_most`] and [`Evaluator::key_at_least`], so the search compares bounds
    /// with a window without turning them into values (a network's key is its output unit's
    /// input, its value the `tanh` of that). The default's key is the value, given exactly
    /// (`lo[i] = hi[i]`). An evaluator that wraps another forwards all three together.
    #[inline]
    fn bound_many(&self, states: &[Self::State], positions: &[Position], lo: &mut [f32], hi: &mut [f32]) {
        self.evaluate_many(states, positions, lo);
        hi.copy_from_slice(lo);
    }

    /// A key `k` such that every leaf whose key is at most `k` has a value at most `value`:
    /// NaN (which no comparison passes) if there is none. The default's key is the value.
    #[inline]
    fn key_at_most(&self, value: f32) -> f32 {
        value
    }

    /// A key `k` such that every leaf whose key is at least `k` has a value at least `value`:
    /// NaN if there is none. The default's key is the value.
    #[inline]
    fn key_at_least(&self, value: f32) -> f32 {
        value
    }

    /// Evaluates several leaves at once: `values[i]` must be exactly (bit for bit)
    /// `evaluate(&states[i], &positions[i])`. The slices have equal lengths. An evaluator
    /// overrides this when it can overlap or vectorise the work; the default goes one by one.
    #[inline]
    fn evaluate_many(&self, states: &[Self::State], positions: &[Position], values: &mut [f32]) {
        for ((v, state), pos) in values.iter_mut().zip(states).zip(positions) {
            *v = self.evaluate(state, pos);
        }
    }
}

/// A shared evaluator evaluates like the one it points to (players share one network).
impl<E: Evaluator + ?Sized> Evaluator for std::sync::Arc<E> {
    type State = E::State;

    const PATH_INDEPENDENT: bool = E::PATH_INDEPENDENT;

    #[inline]
    fn root_state(&self, pos: &Position, pov: Color) -> Self::State {
        (**self).root_state(pos, pov)
    }

    #[inline]
    fn child_state(&self, state: &Self::State, pos: &Position, mv: Move) -> Self::State {
        (**self).child_state(state, pos, mv)
    }

    #[inline]
    fn child_states(&self, state: &Self::State, pos: &Position, moves: &[Move], states: &mut [Self::State]) {
        (**self).child_states(state, pos, moves, states)
    }

    #[inline]
    fn evaluate(&self, state: &Self::State, pos: &Position) -> f32 {
        (**self).evaluate(state, pos)
    }

    #[inline]
    fn evaluate_many(&self, states: &[Self::State], positions: &[Position], values: &mut [f32]) {
        (**self).evaluate_many(states, positions, values)
    }

    const BOUNDS: bool = E::BOUNDS;

    #[inline]
    fn bound_many(&self, states: &[Self::State], positions: &[Position], lo: &mut [f32], hi: &mut [f32]) {
        (**self).bound_many(states, positions, lo, hi)
    }

    #[inline]
    fn key_at_most(&self, value: f32) -> f32 {
        (**self).key_at_most(value)
    }

    #[inline]
    fn key_at_least(&self, value: f32) -> f32 {
        (**self).key_at_least(value)
    }
}

impl Evaluator for RandomHeuristic {
    type State = Color;

    /// A hash of the position and the point of view.
    const PATH_INDEPENDENT: bool = true;

    fn root_state(&self, _pos: &Position, pov: Color) -> Color {
        pov
    }

    fn child_state(&self, pov: &Color, _pos: &Position, _mv: Move) -> Color {
        *pov
    }

    fn evaluate(&self, pov: &Color, pos: &Position) -> f32 {
        self.value(pos, *pov)
    }
}
