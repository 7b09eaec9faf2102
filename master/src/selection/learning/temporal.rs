//! The TD(λ) update of one game (Sutton, 1988; in the form TD-Gammon used), and TD-Leaf(λ)'s
//! (Baxter, Tridgell and Weaver, KnightCap), which takes its predictions at the leaves of the
//! searches' principal variations.
//!
//! The network evaluates a position from a point of view (it has no side-to-move input), so a
//! game is two sequences of predictions, Black's and White's, and each learns towards the
//! game's result from its side. Along a sequence `V_0, V_1, …, V_{T−1}` and the result `z`:
//! `δ_t = V_{t+1} − V_t` (with `V_T = z`), `e_t = λ·e_{t−1} + ∇V_t`, and the weights move by
//! `α·Σ_t δ_t·e_t`. The weights stay fixed during the game (offline TD(λ)), so the update is a
//! function of the game and the weights alone, whichever worker played the game.

use super::model::Model;
use loa_engine::tasks::{PlayedGame, game_over};
use loa_engine::{Color, Outcome, Position, Rules};

/// Where a prediction is taken: a position the network evaluates, or a finished game whose
/// value is its result (a leaf past the game's end), which no weight changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Prediction {
    /// The network's value of the position.
    Position(Position),
    /// The result of a game over here.
    Over(Outcome),
}

/// A game as a learner sees it: the predictions along it, and its result.
#[derive(Clone, Debug, PartialEq)]
pub struct Game {
    /// One per position in which a move was chosen: the position itself (TD(λ)) or the leaf of
    /// the search that chose the move (TD-Leaf).
    pub predictions: Vec<Prediction>,
    /// How it ended.
    pub outcome: Outcome,
}

/// The result of `outcome` from `pov`'s side: 1 for a win, −1 for a loss, 0 for a draw or a tie.
fn result_for(outcome: Outcome, pov: Color) -> f64 {
    match outcome.winner() {
        Some(winner) if winner == pov => 1.0,
        Some(_) => -1.0,
        None => 0.0,
    }
}

impl Game {
    /// The game `played` from `opening` under `rules`, its predictions at the positions where
    /// moves were chosen, or with `leaves` at the leaves of their principal variations. The
    /// moves were checked against the task ([`loa_engine::tasks::SelfPlayTask::check_outcome`]).
    pub fn new(opening: Position, played: &PlayedGame, rules: &Rules, leaves: bool) -> Game {
        let mut predictions = Vec::with_capacity(played.moves.len());
        let mut pos = opening;
        for (ply, &mv) in played.moves.iter().enumerate() {
            let after = pos.play(mv);
            let prediction = match played.leaves.get(ply).filter(|_| leaves) {
                Some(variation) => {
                    let leaf = variation.iter().fold(after, |p, &m| p.play(m));
                    let plies = (ply + 1 + variation.len()) as u32;
                    match game_over(&leaf, rules, plies) {
                        Some((outcome, _)) => Prediction::Over(outcome),
                        None => Prediction::Position(leaf),
                    }
                }
                None => Prediction::Position(pos),
            };
            predictions.push(prediction);
            pos = after;
        }
        Game { predictions, outcome: played.outcome }
    }
}

/// What one game's update measured.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct UpdateStats {
    /// Predictions updated (two per position).
    pub steps: u64,
    /// The sum of the squared temporal differences.
    pub squared_error: f64,
}

impl UpdateStats {
    /// Both games' figures together.
    pub fn add(&mut self, other: UpdateStats) {
        self.steps += other.steps;
        self.squared_error += other.squared_error;
    }
}

/// The value of `prediction` from `pov`'s side, its gradient into `grad` (zero for a finished
/// game's).
fn predict(model: &Model, prediction: &Prediction, pov: Color, grad: &mut [f64]) -> f64 {
    match prediction {
        Prediction::Position(pos) => model.value_and_gradient(&model.inputs(pos, pov), grad),
        Prediction::Over(outcome) => {
            grad.iter_mut().for_each(|g| *g = 0.0);
            result_for(*outcome, pov)
        }
    }
}

/// Adds `rate` times TD(λ)'s weight change for `game` under `model` to `change` (of the
/// weights' length).
pub fn add_update(model: &Model, game: &Game, lambda: f64, rate: f64, change: &mut [f64]) -> UpdateStats {
    let n = model.weights.len();
    let mut stats = UpdateStats::default();
    let (mut trace, mut grad, mut next_grad) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
    for pov in Color::ALL {
        let Some(first) = game.predictions.first() else {
            continue;
        };
        trace.iter_mut().for_each(|e| *e = 0.0);
        let mut value = predict(model, first, pov, &mut grad);
        for t in 0..game.predictions.len() {
            for (e, g) in trace.iter_mut().zip(&grad) {
                *e = lambda * *e + g;
            }
            let next = match game.predictions.get(t + 1) {
                Some(prediction) => predict(model, prediction, pov, &mut next_grad),
                None => result_for(game.outcome, pov),
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
    use loa_engine::{BoardSize, Start};

    fn tiny() -> Model {
        Model::init(Topology::new(5, Inputs::BOARD, &[3]).unwrap(), 5, 0.2)
    }

    fn game(plies: usize, outcome: Outcome) -> Game {
        let start = Start::Standard.position(BoardSize::new(5).unwrap()).unwrap();
        let positions: Vec<Position> = loa_engine::openings::sample_positions_from(&start, plies, 9);
        Game { predictions: positions.into_iter().map(Prediction::Position).collect(), outcome }
    }

    fn position(p: &Prediction) -> &Position {
        match p {
            Prediction::Position(pos) => pos,
            Prediction::Over(_) => panic!("a position"),
        }
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
            let v = model.value_and_gradient(&model.inputs(position(&g.predictions[0]), pov), &mut grad);
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
            let z = result_for(g.outcome, pov);
            for p in &g.predictions {
                let mut grad = vec![0.0; model.weights.len()];
                let v = model.value_and_gradient(&model.inputs(position(p), pov), &mut grad);
                for (e, g) in expected.iter_mut().zip(&grad) {
                    *e += 0.05 * (z - v) * g;
                }
            }
        }
        for (a, b) in change.iter().zip(&expected) {
            assert!((a - b).abs() < 1e-12, "{a} vs {b}");
        }
    }

    /// A prediction at a finished game is its result and moves no weight: at λ = 0 the game
    /// ending there changes only the predictions before it, towards that result.
    #[test]
    fn a_finished_leaf_predicts_its_result_and_has_no_gradient() {
        let model = tiny();
        let mut g = game(3, Outcome::Draw);
        g.predictions[2] = Prediction::Over(Outcome::Win(Color::Black));
        let mut change = vec![0.0; model.weights.len()];
        let stats = add_update(&model, &g, 0.0, 0.1, &mut change);
        let mut expected = vec![0.0; model.weights.len()];
        for pov in Color::ALL {
            let (mut grad, mut next) = (vec![0.0; model.weights.len()], vec![0.0; model.weights.len()]);
            let v0 = model.value_and_gradient(&model.inputs(position(&g.predictions[0]), pov), &mut grad);
            let v1 = model.value_and_gradient(&model.inputs(position(&g.predictions[1]), pov), &mut next);
            let z = result_for(Outcome::Win(Color::Black), pov);
            for ((e, a), b) in expected.iter_mut().zip(&grad).zip(&next) {
                // δ_0 = V_1 − V_0 at V_0; δ_1 = z_leaf − V_1 at V_1; δ_2 = 0 (a draw after a
                // finished leaf of value z: z_game − z_leaf is taken with no gradient).
                *e += 0.1 * (v1 - v0) * a + 0.1 * (z - v1) * b;
            }
        }
        for (a, b) in change.iter().zip(&expected) {
            assert!((a - b).abs() < 1e-15, "{a} vs {b}");
        }
        assert_eq!(stats.steps, 6);
    }

    /// Stepping repeatedly on one decided game moves every prediction towards its result.
    #[test]
    fn repeated_updates_move_predictions_towards_the_result() {
        let mut model = tiny();
        let g = game(4, Outcome::Win(Color::Black));
        let values = |m: &Model| -> Vec<f64> {
            g.predictions.iter().map(|p| m.value(&m.inputs(position(p), Color::Black))).collect()
        };
        let before = values(&model);
        for _ in 0..50 {
            let mut change = vec![0.0; model.weights.len()];
            add_update(&model, &g, 0.7, 0.05, &mut change);
            model.weights.iter_mut().zip(&change).for_each(|(w, c)| *w += c);
        }
        for (b, a) in before.iter().zip(&values(&model)) {
            assert!(1.0 - a < 1.0 - b, "{b} → {a}: not closer to the win");
        }
    }

    /// A played game's predictions: the positions where moves were chosen, or the leaves.
    #[test]
    fn a_played_game_gives_its_positions_or_its_leaves() {
        use loa_engine::tasks::{SelfPlayGame, SelfPlayTask};
        let shape = Topology::new(5, Inputs::BOARD, &[3]).unwrap();
        let network = std::sync::Arc::new(Model::init(shape, 3, 0.5).chromosome().unwrap());
        let rules = Rules { ply_cap: 30, ..Rules::default() };
        let task = SelfPlayTask {
            serial: 0,
            network,
            depth: 2,
            rules,
            board: BoardSize::new(5).unwrap(),
            start: Start::Standard,
            games: vec![SelfPlayGame { seed: 3, opening_plies: 2 }],
            leaves: true,
        };
        let played = &task.run().unwrap().games[0];
        let opening = task.opening(&task.games[0]).unwrap();
        let roots = Game::new(opening, played, &rules, false);
        let leaves = Game::new(opening, played, &rules, true);
        assert_eq!((roots.predictions.len(), leaves.predictions.len()), (played.moves.len(), played.moves.len()));
        let mut pos = opening;
        for (t, &mv) in played.moves.iter().enumerate() {
            assert_eq!(roots.predictions[t], Prediction::Position(pos));
            let leaf = played.leaves[t].iter().fold(pos.play(mv), |p, &m| p.play(m));
            match leaves.predictions[t] {
                Prediction::Position(p) => assert_eq!(p, leaf),
                Prediction::Over(_) => assert!(leaf.game_end(&rules).is_some() || t + 1 + played.leaves[t].len() >= 30),
            }
            pos = pos.play(mv);
        }
    }
}
