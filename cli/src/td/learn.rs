//! The TD(λ) update of one game (Sutton, 1988; in the form TD-Gammon used).
//!
//! The network evaluates a position from a point of view (it has no side-to-move input), so a
//! game is two sequences of predictions, Black's and White's, and each learns towards the
//! game's result from its side. Along a sequence `V_0, V_1, …, V_{T−1}` and the result `z`:
//! `δ_t = V_{t+1} − V_t` (with `V_T = z`), `e_t = λ·e_{t−1} + ∇V_t`, and the weights move by
//! `α·Σ_t δ_t·e_t`. The weights stay fixed during the game (offline TD(λ)), so the update is a
//! function of the game and the weights alone, whichever thread played the game.

use super::model::Model;
use super::selfplay::SelfPlayGame;
use loa_engine::Color;

/// What one game's update measured.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct UpdateStats {
    /// Predictions updated (two per position).
    pub steps: u64,
    /// The sum of the squared temporal differences.
    pub squared_error: f64,
}

/// Adds `rate` times TD(λ)'s weight change for `game` under `model` to `change` (of the
/// weights' length).
pub fn add_update(model: &Model, game: &SelfPlayGame, lambda: f64, rate: f64, change: &mut [f64]) -> UpdateStats {
    let n = model.weights.len();
    let mut stats = UpdateStats::default();
    let (mut trace, mut grad, mut next_grad) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
    for pov in Color::ALL {
        let Some(first) = game.positions.first() else {
            continue;
        };
        trace.iter_mut().for_each(|e| *e = 0.0);
        let mut value = model.value_and_gradient(&model.inputs(first, pov), &mut grad);
        for t in 0..game.positions.len() {
            for (e, g) in trace.iter_mut().zip(&grad) {
                *e = lambda * *e + g;
            }
            let next = match game.positions.get(t + 1) {
                Some(pos) => model.value_and_gradient(&model.inputs(pos, pov), &mut next_grad),
                None => game.result_for(pov),
            };
            let delta = next - value;
            for (c, e) in change.iter_mut().zip(&trace) {
                *c += rate * delta * e;
            }
            stats.steps += 1;
            stats.squared_error += delta * delta;
            value = next;
            std::mem::swap(&mut grad, &mut next_grad);
        }
    }
    stats
}

#[cfg(test)]
mod tests {
    use super::*;
    use loa_engine::network::{Inputs, Topology};
    use loa_engine::{BoardSize, Outcome, Position, Start};

    fn tiny() -> Model {
        Model::init(Topology::new(5, Inputs::BOARD, &[3]).unwrap(), 5, 0.2)
    }

    fn game(plies: usize, outcome: Outcome) -> SelfPlayGame {
        let start = Start::Standard.position(BoardSize::new(5).unwrap()).unwrap();
        let positions: Vec<Position> = loa_engine::openings::sample_positions_from(&start, plies, 9);
        SelfPlayGame { positions, outcome }
    }

    /// λ = 0 on a one-position game: the update is α·(z − V)·∇V, written out.
    #[test]
    fn one_step_at_lambda_zero_is_the_delta_rule() {
        let model = tiny();
        let g = game(1, Outcome::Win(Color::Black));
        let mut change = vec![0.0; model.weights.len()];
        add_update(&model, &g, 0.0, 0.1, &mut change);
        let mut expected = vec![0.0; model.weights.len()];
        for (pov, z) in [(Color::Black, 1.0), (Color::White, -1.0)] {
            let mut grad = vec![0.0; model.weights.len()];
            let v = model.value_and_gradient(&model.inputs(&g.positions[0], pov), &mut grad);
            for (e, g) in expected.iter_mut().zip(&grad) {
                *e += 0.1 * (z - v) * g;
            }
        }
        for (a, b) in change.iter().zip(&expected) {
            assert!((a - b).abs() < 1e-15, "{a} vs {b}");
        }
    }

    /// λ = 1 is the Monte Carlo update: every prediction moves towards the final result,
    /// `α·Σ_t (z − V_t)·∇V_t` (the sum of the differences telescopes).
    #[test]
    fn lambda_one_is_the_monte_carlo_update() {
        let model = tiny();
        let g = game(5, Outcome::Win(Color::White));
        let mut change = vec![0.0; model.weights.len()];
        add_update(&model, &g, 1.0, 0.05, &mut change);
        let mut expected = vec![0.0; model.weights.len()];
        for pov in Color::ALL {
            let z = g.result_for(pov);
            for pos in &g.positions {
                let mut grad = vec![0.0; model.weights.len()];
                let v = model.value_and_gradient(&model.inputs(pos, pov), &mut grad);
                for (e, g) in expected.iter_mut().zip(&grad) {
                    *e += 0.05 * (z - v) * g;
                }
            }
        }
        for (a, b) in change.iter().zip(&expected) {
            assert!((a - b).abs() < 1e-12, "{a} vs {b}");
        }
    }

    /// Stepping repeatedly on one decided game moves every prediction towards its result.
    #[test]
    fn repeated_updates_move_predictions_towards_the_result() {
        let mut model = tiny();
        let g = game(4, Outcome::Win(Color::Black));
        let before: Vec<f64> = g.positions.iter().map(|p| model.value(&model.inputs(p, Color::Black))).collect();
        for _ in 0..50 {
            let mut change = vec![0.0; model.weights.len()];
            add_update(&model, &g, 0.7, 0.05, &mut change);
            model.weights.iter_mut().zip(&change).for_each(|(w, c)| *w += c);
        }
        let after: Vec<f64> = g.positions.iter().map(|p| model.value(&model.inputs(p, Color::Black))).collect();
        for (b, a) in before.iter().zip(&after) {
            assert!(1.0 - a < 1.0 - b, "{b} → {a}: not closer to the win");
        }
    }
}
