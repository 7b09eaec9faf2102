//! TD(λ) self-play, the classic rival of evolution (TD-Gammon; Pollack and Blair's "Why did
//! TD-Gammon work?"), and with `leaf = true` TD-Leaf(λ) (Baxter, Tridgell and Weaver's
//! KnightCap), on any network shape and board.
//!
//! One learner: weights in f64, initially uniform in ±`init_range` from the run's seed. Each
//! generation is a batch of `batch` self-play games ([`SelfPlayTask`]s) played with the same
//! weights, game `g` of the run from a random opening seeded by `derive_seed(seed, g)`; their
//! updates ([`learning::add_update`]) are then applied in game order, so the weights are a
//! function of the configuration alone, whoever played the games. The stored population is the
//! network a run measures: the weights rounded to f32, or their moving average
//! (`average_games`, [`learning::fold_in`]). docs/td.md tells the algorithm and its settings.

use super::learning::{Learner, Play, Step};
use super::{Breeding, Plan, Scheme, SchemeState, Selected, SelectionError, StateError};
use super::{own_plan, parse_settings, settings_table};
use crate::codec::CodecError;
use crate::config::{ConfigError, ExperimentConfig};
use crate::population::{Individual, SerialCounter};
use loa_engine::openings::max_opening_plies;
use loa_engine::random::derive_seed;
use loa_engine::tasks::{MAX_SELF_PLAY_GAMES, MAX_SELF_PLAY_MOVES, SelfPlayTask, Task, TaskOutcome};
use loa_records::Figures;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// The method's name in the configuration.
pub const NAME: &str = "td";
const KEY: &str = "selection.scheme.td";

/// Most games of one batch (played with the same weights, then learnt from in order).
pub const MAX_BATCH: u32 = 4096;
/// Most games a half-life or an average may span.
pub const MAX_GAMES: u64 = 100_000_000;

/// The settings, `[selection.scheme.td]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TdConfig {
    /// Games played with the same weights before their updates are applied, in game order: a
    /// generation. Results depend on it, not on who plays the games.
    pub batch: u32,
    /// Random plies before each self-play game (its only randomness).
    pub opening_plies: u32,
    /// α: the step size (at game 0, if it decays).
    pub learning_rate: f64,
    /// α halves every this many games (α·2^(−games/this)); 0: α stays constant.
    pub learning_rate_half_life: u64,
    /// λ: how far back a temporal difference reaches (0: one step; 1: Monte Carlo).
    pub lambda: f64,
    /// Initial weights uniform in ±this.
    pub init_range: f64,
    /// The network measured and stored is a moving average of the weights over about this
    /// many games (the plain mean until then); 0: the weights themselves.
    pub average_games: u64,
    /// TD-Leaf(λ): predictions at the leaves of the searches' principal variations, with the
    /// gradient at the leaf, instead of at the positions searched.
    pub leaf: bool,
    /// Games one task plays (the same games whatever it is: a worker's share of a batch).
    pub games_per_task: u32,
}

impl Default for TdConfig {
    fn default() -> TdConfig {
        TdConfig {
            batch: 8,
            opening_plies: 4,
            learning_rate: 0.01,
            learning_rate_half_life: 0,
            lambda: 0.7,
            init_range: 0.1,
            average_games: 0,
            leaf: false,
            games_per_task: 1,
        }
    }
}

impl TdConfig {
    /// α for the batch that begins after `games` games.
    pub fn learning_rate_at(&self, games: u64) -> f64 {
        match self.learning_rate_half_life {
            0 => self.learning_rate,
            half_life => self.learning_rate * (-(games as f64) / half_life as f64).exp2(),
        }
    }

    /// Checks every setting against the run; errors name the key, in the table `table` (the
    /// method's that holds them).
    pub fn check(&self, table: &str, config: &ExperimentConfig) -> Result<(), ConfigError> {
        let bad = |key: &str, why: String| Err(ConfigError::Invalid { key: format!("{table}.{key}"), why });
        if !(1..=MAX_BATCH).contains(&self.batch) {
            return bad("batch", format!("must be 1 to {MAX_BATCH}, got {}", self.batch));
        }
        let most = max_opening_plies(config.board());
        if self.opening_plies > most {
            return bad(
                "opening_plies",
                format!("must be 0 to {most} on the {} board, got {}", config.board(), self.opening_plies),
            );
        }
        if !(self.learning_rate > 0.0 && self.learning_rate <= 1.0) {
            return bad("learning_rate", format!("must be above 0 and at most 1, got {}", self.learning_rate));
        }
        let h = self.learning_rate_half_life;
        if h > MAX_GAMES {
            let why = format!("must be 0 (a constant α) to {MAX_GAMES} games, got {h}");
            return bad("learning_rate_half_life", why);
        }
        if !(0.0..=1.0).contains(&self.lambda) {
            return bad("lambda", format!("must be 0 to 1, got {}", self.lambda));
        }
        if !(self.init_range > 0.0 && self.init_range <= 1.0) {
            return bad("init_range", format!("must be above 0 and at most 1, got {}", self.init_range));
        }
        let n = self.average_games;
        if n != 0 && !(u64::from(self.batch)..=MAX_GAMES).contains(&n) {
            let why = format!("must be 0 (no average) or batch ({}) to {MAX_GAMES} games, got {n}", self.batch);
            return bad("average_games", why);
        }
        if self.games_per_task == 0 || self.games_per_task as usize > MAX_SELF_PLAY_GAMES {
            let why = format!("must be 1 to {MAX_SELF_PLAY_GAMES}, got {}", self.games_per_task);
            return bad("games_per_task", why);
        }
        let per_move = if self.leaf { u64::from(config.network_depth) } else { 1 };
        let moves = u64::from(self.games_per_task) * u64::from(config.rules.ply_cap) * per_move;
        if moves > MAX_SELF_PLAY_MOVES {
            let why = format!(
                "{} games of up to {} plies (rules.ply_cap){} could bring back {moves} moves, more than the \
                 {MAX_SELF_PLAY_MOVES} a task may: give a task fewer games",
                self.games_per_task,
                config.rules.ply_cap,
                if self.leaf { ", each with its variation," } else { "" }
            );
            return bad("games_per_task", why);
        }
        Ok(())
    }
}

/// What the learner carries from one generation to the next: its weights to the bit, their
/// average, its games.
pub use super::learning::SavedLearner as State;

/// The TD(λ) method with its learner (set when the run starts or resumes).
#[derive(Clone, Debug)]
pub struct Td {
    settings: TdConfig,
    learner: Option<Learner>,
}

/// Builds the method from its settings table.
pub fn build(settings: &toml::Table) -> Result<Box<dyn Scheme>, ConfigError> {
    let settings: TdConfig = parse_settings(NAME, settings)?;
    Ok(Box::new(Td { settings, learner: None }))
}

/// What a generation planned: its games' tasks, and the serial of the network it makes.
struct TdPlan {
    tasks: Vec<SelfPlayTask>,
    serial: u64,
}

impl TdConfig {
    /// How the games of a run `config` are played.
    pub fn play(&self, config: &ExperimentConfig) -> Play {
        Play {
            depth: config.network_depth,
            rules: config.rules,
            board: config.board(),
            start: config.start,
            opening_plies: self.opening_plies,
            leaves: self.leaf,
            games_per_task: self.games_per_task as usize,
        }
    }

    /// Whether the learner keeps a moving average of its weights.
    pub fn averaging(&self) -> bool {
        self.average_games > 0
    }

    /// How the batch that begins after `games` games is learnt from, at α `rate` and λ `lambda`.
    pub fn step(&self, rate: f64, lambda: f64) -> Step {
        Step { rate, lambda, leaf: self.leaf, average_games: self.averaging().then_some(self.average_games) }
    }
}

impl Td {
    fn learner(&self) -> Result<&Learner, SelectionError> {
        self.learner.as_ref().ok_or(SelectionError::NotStarted)
    }

    fn individual(&self, serial: u64) -> Result<Individual, SelectionError> {
        Ok(Individual { serial, chromosome: Arc::new(self.learner()?.measured().chromosome()?) })
    }
}

impl Scheme for Td {
    fn keeps_survivors(&self) -> bool {
        false
    }

    fn settings(&self) -> toml::Table {
        settings_table(&self.settings)
    }

    fn min_population(&self) -> usize {
        1
    }

    fn validate(&self, config: &ExperimentConfig) -> Result<(), ConfigError> {
        if config.population != 1 {
            let why = format!("td trains one network: set population = 1, got {}", config.population);
            return Err(ConfigError::Invalid { key: "population".into(), why });
        }
        self.settings.check(KEY, config)
    }

    /// The initial weights of the run's seed, and the network they make.
    fn given_population(
        &mut self,
        config: &ExperimentConfig,
        serials: &mut SerialCounter,
    ) -> Result<Option<Vec<Individual>>, ConfigError> {
        let s = &self.settings;
        let seed = derive_seed(config.seed, 0x1417);
        self.learner = Some(Learner::new(config.network, seed, s.init_range, s.averaging()));
        let invalid = |e: SelectionError| ConfigError::Invalid { key: "network".into(), why: e.to_string() };
        Ok(Some(vec![self.individual(serials.issue()).map_err(invalid)?]))
    }

    fn plan(&self, survivors: &[Individual], b: &mut Breeding) -> Result<(Plan, Vec<Task>), SelectionError> {
        let learner = self.learner()?;
        let seeds: Vec<u64> =
            (0..u64::from(self.settings.batch)).map(|k| derive_seed(b.config.seed, learner.games + k)).collect();
        let serial = survivors.first().map_or(0, |s| s.serial);
        let tasks = learner.tasks(serial, &seeds, &self.settings.play(b.config))?;
        let wire = tasks.iter().cloned().map(Task::SelfPlay).collect();
        Ok((Box::new(TdPlan { tasks, serial: b.serials.issue() }), wire))
    }

    fn select(&mut self, plan: Plan, outcomes: &[TaskOutcome]) -> Result<Selected, SelectionError> {
        let plan: TdPlan = own_plan(plan)?;
        if outcomes.len() != plan.tasks.len() {
            return Err(SelectionError::OutcomeCount { found: outcomes.len(), tasks: plan.tasks.len() });
        }
        let s = &self.settings;
        let mut learner = self.learner()?.clone();
        let rate = s.learning_rate_at(learner.games);
        let batch = learner.learn(&plan.tasks, outcomes, 0, &s.step(rate, s.lambda))?;
        let figures = Figures::new()
            .with("games", learner.games)
            .with("learning_rate", rate)
            .with("td_error", batch.td_error())
            .with("black_wins", batch.black_wins)
            .with("white_wins", batch.white_wins)
            .with("draws", batch.draws);
        self.learner = Some(learner);
        let next = vec![self.individual(plan.serial)?];
        Ok(Selected { next, tournaments: Vec::new(), survivors_kept: 0, figures: Some(figures), notes: Vec::new() })
    }

    /// The games learnt from and the step the next batch takes.
    fn state_figures(&self) -> Figures {
        self.learner.as_ref().map_or_else(Figures::new, |l| {
            Figures::new().with("games", l.games).with("learning_rate", self.settings.learning_rate_at(l.games))
        })
    }

    fn save(&self) -> Result<Vec<u8>, CodecError> {
        self.learner.as_ref().map(Learner::saved).unwrap_or_default().save()
    }

    fn restore(&mut self, saved: &[u8], survivors: &[Individual], config: &ExperimentConfig) -> Result<(), StateError> {
        let state = State::load(saved)?;
        if survivors.len() != 1 {
            return Err(StateError::Population { found: survivors.len(), expected: "td keeps one network".into() });
        }
        if !state.games.is_multiple_of(u64::from(self.settings.batch)) {
            return Err(StateError::Games { games: state.games, batch: self.settings.batch });
        }
        let averaging = self.settings.averaging();
        self.learner = Some(Learner::restored(state, config.network, averaging).map_err(StateError::Learner)?);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::GaRng;

    #[test]
    fn the_learning_rate_halves_every_half_life() {
        let constant = TdConfig { learning_rate: 0.004, ..TdConfig::default() };
        assert_eq!(constant.learning_rate_at(0), 0.004);
        assert_eq!(constant.learning_rate_at(1_000_000), 0.004);
        let decaying = TdConfig { learning_rate_half_life: 1000, ..constant };
        for (games, rate) in [(0, 0.004), (1000, 0.002), (2000, 0.001), (500, 0.004 / 2f64.sqrt())] {
            assert!((decaying.learning_rate_at(games) - rate).abs() < 1e-15, "{games}");
        }
    }

    fn run(settings: &str) -> (ExperimentConfig, Td) {
        let text = format!("population = 1\nnetwork = \"5x5-board-25-12-1\"\n[selection.scheme.td]\n{settings}");
        let config = ExperimentConfig::from_toml(&text).unwrap();
        let scheme: TdConfig = parse_settings(NAME, &config.selection.scheme.settings).unwrap();
        (config, Td { settings: scheme, learner: None })
    }

    /// A batch planned is the run's games `g` to `g + batch` in tasks of `games_per_task`, and
    /// the network they play is the learner's latest (not its average).
    #[test]
    fn a_plan_is_the_next_batch_of_games_of_the_latest_weights() {
        let (config, mut td) = run("batch = 5\ngames_per_task = 2\naverage_games = 10\n");
        let mut serials = SerialCounter::default();
        let first = td.given_population(&config, &mut serials).unwrap().unwrap();
        let learner = td.learner.as_mut().unwrap();
        learner.games = 15;
        learner.model.weights[0] += 0.5;
        let latest = learner.model.weights[0] as f32;
        let (mut rng, mut serials) = (GaRng::from_seed(1), serials);
        let mut b = Breeding { config: &config, generation: 4, rng: &mut rng, serials: &mut serials };
        let (_, tasks) = td.plan(&first, &mut b).unwrap();
        let games: Vec<Vec<u64>> = tasks
            .iter()
            .map(|t| match t {
                Task::SelfPlay(s) => {
                    assert_eq!(s.network.weights()[0], latest);
                    s.games.iter().map(|g| g.seed).collect()
                }
                Task::Match(_) => panic!("self-play"),
            })
            .collect();
        let seed = |g| derive_seed(config.seed, g);
        assert_eq!(games, [vec![seed(15), seed(16)], vec![seed(17), seed(18)], vec![seed(19)]]);
        // The stored network is the average, which the change did not touch.
        assert_ne!(first[0].chromosome.weights()[0], latest);
    }

    #[test]
    fn a_saved_state_restores_and_one_that_does_not_fit_is_refused() {
        let (config, mut td) = run("batch = 4\naverage_games = 8\n");
        let population = td.given_population(&config, &mut SerialCounter::default()).unwrap().unwrap();
        td.learner.as_mut().unwrap().games = 8;
        let saved = td.save().unwrap();
        let (_, mut back) = run("batch = 4\naverage_games = 8\n");
        back.restore(&saved, &population, &config).unwrap();
        assert_eq!(back.learner, td.learner);
        assert_eq!(back.learner.as_ref().map(|l| l.games), Some(8));
        let refused = |settings: &str, bytes: &[u8], population: &[Individual]| {
            let (config, mut other) = run(settings);
            other.restore(bytes, population, &config).unwrap_err().to_string()
        };
        assert!(refused("batch = 4\n", &saved, &population).contains("holds an average"));
        assert!(refused("batch = 3\naverage_games = 8\n", &saved, &population).contains("8 games"));
        assert!(refused("batch = 4\naverage_games = 8\n", &saved, &[]).contains("td keeps one network"));
        let short = State { games: 0, weights: vec![0.0; 3], average: None }.save().unwrap();
        assert!(refused("batch = 4\n", &short, &population).contains("3 weights"));
        let mut bare = State::load(&saved).unwrap();
        bare.average = None;
        let bare = bare.save().unwrap();
        assert!(refused("batch = 4\naverage_games = 8\n", &bare, &population).contains("holds no average"));
    }
}
