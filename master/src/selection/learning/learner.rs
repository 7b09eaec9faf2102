//! A TD learner: its weights, their moving average and the games it has learnt from; the
//! self-play tasks of its next batch, and the batch's games learnt from in order.

use super::{Game, Model, ModelError, UpdateStats, add_update, fold_in};
use crate::selection::SelectionError;
use loa_engine::network::{ChromosomeError, Topology};
use loa_engine::tasks::{SelfPlayGame, SelfPlayOutcome, SelfPlayTask, TaskOutcome};
use loa_engine::{BoardSize, Rules, Start};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// How a learner's games are played: the same for every batch of a run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Play {
    /// The search depth of move choice.
    pub depth: u32,
    /// The rules of every game.
    pub rules: Rules,
    /// The board.
    pub board: BoardSize,
    /// The position openings start from.
    pub start: Start,
    /// Random plies before each game.
    pub opening_plies: u32,
    /// Whether the games come back with their principal variations (TD-Leaf).
    pub leaves: bool,
    /// Games a task plays.
    pub games_per_task: usize,
}

/// How a batch is learnt from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Step {
    /// α.
    pub rate: f64,
    /// λ.
    pub lambda: f64,
    /// Predictions at the leaves (TD-Leaf) rather than the positions searched.
    pub leaf: bool,
    /// The average's horizon in games, if the learner keeps one.
    pub average_games: Option<u64>,
}

/// What a batch was: its games' results and how far the predictions were from each other.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Batch {
    /// The temporal differences.
    pub update: UpdateStats,
    /// Games Black won.
    pub black_wins: u32,
    /// Games White won.
    pub white_wins: u32,
    /// Draws and ties.
    pub draws: u32,
}

impl Batch {
    /// The mean squared temporal difference.
    pub fn td_error(&self) -> f64 {
        self.update.squared_error / self.update.steps.max(1) as f64
    }

    /// Both batches together.
    pub fn add(&mut self, other: Batch) {
        self.update.add(other.update);
        (self.black_wins, self.white_wins, self.draws) =
            (self.black_wins + other.black_wins, self.white_wins + other.white_wins, self.draws + other.draws);
    }
}

/// A learner's weights in f64, their moving average if it keeps one, and its games.
#[derive(Clone, Debug, PartialEq)]
pub struct Learner {
    /// The weights self-play plays with.
    pub model: Model,
    /// Their moving average (the network measured), if the learner keeps one.
    pub average: Option<Model>,
    /// Games learnt from.
    pub games: u64,
}

/// A learner as saved: weights to the bit (bincode keeps f64 exactly).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SavedLearner {
    /// Games learnt from.
    pub games: u64,
    /// The weights.
    pub weights: Vec<f64>,
    /// Their moving average, if kept.
    pub average: Option<Vec<f64>>,
}

impl crate::selection::SchemeState for SavedLearner {}

impl Learner {
    /// A learner of `topology` whose weights are uniform in ±`range` from `seed`, keeping an
    /// average if `averaging`.
    pub fn new(topology: Topology, seed: u64, range: f64, averaging: bool) -> Learner {
        let model = Model::init(topology, seed, range);
        let average = averaging.then(|| model.clone());
        Learner { model, average, games: 0 }
    }

    /// The network measured and stored: the average if the learner keeps one.
    pub fn measured(&self) -> &Model {
        self.average.as_ref().unwrap_or(&self.model)
    }

    /// The self-play tasks of games `seeds` (one a game, in order) with the latest weights.
    pub fn tasks(&self, serial: u64, seeds: &[u64], play: &Play) -> Result<Vec<SelfPlayTask>, ChromosomeError> {
        let network = Arc::new(self.model.chromosome()?);
        let games: Vec<SelfPlayGame> =
            seeds.iter().map(|&seed| SelfPlayGame { seed, opening_plies: play.opening_plies }).collect();
        Ok(games
            .chunks(play.games_per_task.max(1))
            .map(|games| SelfPlayTask {
                serial,
                network: Arc::clone(&network),
                depth: play.depth,
                rules: play.rules,
                board: play.board,
                start: play.start,
                games: games.to_vec(),
                leaves: play.leaves,
            })
            .collect())
    }

    /// Learns from the games of `tasks`, whose outcomes are `outcomes` (task `first` being the
    /// first of them in the plan, for errors), all with the same weights, then applied in game
    /// order.
    pub fn learn(
        &mut self,
        tasks: &[SelfPlayTask],
        outcomes: &[TaskOutcome],
        first: usize,
        step: &Step,
    ) -> Result<Batch, SelectionError> {
        let mut change = vec![0.0; self.model.weights.len()];
        let mut batch = Batch::default();
        let mut played = 0u64;
        for (index, (task, outcome)) in tasks.iter().zip(outcomes).enumerate() {
            let bad = |why: String| SelectionError::Outcome { task: first + index, why };
            let outcome: &SelfPlayOutcome = match outcome {
                TaskOutcome::SelfPlay(o) => o,
                TaskOutcome::Match(_) => return Err(bad("matches came back for a self-play task".into())),
            };
            task.check_outcome(outcome).map_err(|e| bad(e.to_string()))?;
            for (spec, game) in task.games.iter().zip(&outcome.games) {
                let opening = task.opening(spec).map_err(|e| bad(e.to_string()))?;
                match game.outcome.winner() {
                    Some(loa_engine::Color::Black) => batch.black_wins += 1,
                    Some(loa_engine::Color::White) => batch.white_wins += 1,
                    None => batch.draws += 1,
                }
                let game = Game::new(opening, game, &task.rules, step.leaf);
                batch.update.add(add_update(&self.model, &game, step.lambda, step.rate, &mut change));
                played += 1;
            }
        }
        self.model.weights.iter_mut().zip(&change).for_each(|(w, c)| *w += c);
        self.games += played;
        if let (Some(average), Some(horizon)) = (&mut self.average, step.average_games) {
            fold_in(average, &self.model, played, self.games, horizon);
        }
        Ok(batch)
    }

    /// The learner as saved.
    pub fn saved(&self) -> SavedLearner {
        SavedLearner {
            games: self.games,
            weights: self.model.weights.clone(),
            average: self.average.as_ref().map(|m| m.weights.clone()),
        }
    }

    /// The learner `saved` of a run whose network is `topology`, keeping an average if
    /// `averaging`.
    pub fn restored(saved: SavedLearner, topology: Topology, averaging: bool) -> Result<Learner, LearnerError> {
        let model = Model::from_weights(topology, saved.weights).map_err(LearnerError::Model)?;
        let average = match (saved.average, averaging) {
            (Some(weights), true) => Some(Model::from_weights(topology, weights).map_err(LearnerError::Model)?),
            (None, false) => None,
            (saved, _) => return Err(LearnerError::Average { saved: saved.is_some() }),
        };
        Ok(Learner { model, average, games: saved.games })
    }
}

/// Why a saved learner does not fit the run.
#[derive(Debug, thiserror::Error)]
pub enum LearnerError {
    /// Its weights do not fit the run's network.
    #[error("the learner's weights: {0}")]
    Model(#[source] ModelError),
    /// It keeps an average of the weights, or not, against the configuration.
    #[error("{}", if *saved {
        "the state holds an average of the weights, but the configuration sets no average_games"
    } else {
        "the state holds no average of the weights, but the configuration sets average_games"
    })]
    Average {
        /// Whether the state holds one.
        saved: bool,
    },
}
