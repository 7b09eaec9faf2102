//! A TD run's configuration: a TOML file like a master run's (`experiments/td/*.toml`).

use loa_engine::network::Topology;
use loa_engine::players::MAX_DEPTH;
use loa_engine::spec::{Accepts, PlayerSpec};
use loa_engine::tasks::MAX_OPENING_PLIES;
use loa_engine::{BoardSize, Position, Start};
use serde::{Deserialize, Serialize};

/// Most games a run may plan.
pub const MAX_GAMES: u64 = 100_000_000;
/// Most games of one batch (played with the same weights, then learnt from in order).
pub const MAX_BATCH: u32 = 4096;

/// Everything that defines a TD run: with its seed, the run's every weight.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TdConfig {
    /// Seeds the initial weights and every game's opening.
    pub seed: u64,
    /// Self-play games in all.
    pub games: u64,
    /// Games played with the same weights before their updates are applied, in game order.
    /// Results do not depend on the number of threads, only on this.
    pub batch: u32,
    /// The search depth of move choice in self-play.
    pub depth: u32,
    /// Random plies before each self-play game (its only randomness).
    pub opening_plies: u32,
    /// α: the step size (at game 0, if it decays).
    pub learning_rate: f64,
    /// α halves every this many games (α·2^(−games/this)); absent: α stays constant.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub learning_rate_half_life: Option<u64>,
    /// λ: how far back a temporal difference reaches (0: one step; 1: Monte Carlo).
    pub lambda: f64,
    /// Initial weights uniform in ±this.
    pub init_range: f64,
    /// Keep a numbered snapshot of the state every this many games (the latest state is saved
    /// after every batch).
    pub checkpoint_every: u64,
    /// The network validated and written to `net.json` is a moving average of the weights
    /// over about this many games (the plain mean until then); absent: the weights themselves.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub average_games: Option<u64>,
    /// The start position (on the network's board).
    pub start: Start,
    /// The network's shape, which names the board (docs/spec.md §3).
    pub network: Topology,
    /// Held-out validation, as a master run's `[validation]`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub validation: Option<TdValidation>,
}

impl Default for TdConfig {
    fn default() -> TdConfig {
        TdConfig {
            seed: 1,
            games: 10_000,
            batch: 8,
            depth: 3,
            opening_plies: 4,
            learning_rate: 0.01,
            learning_rate_half_life: None,
            lambda: 0.7,
            init_range: 0.1,
            checkpoint_every: 1_000,
            average_games: None,
            start: Start::Standard,
            network: Topology::THESIS,
            validation: None,
        }
    }
}

/// The validation of a TD run: its network against fixed players from held-out openings,
/// every `every` games (and at game 0), scored as a master run's validation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TdValidation {
    /// Opponents' player specs (`aloa:3`, `random:3`).
    pub opponents: Vec<String>,
    /// Two-game matches against each; even (the network is A in half, from the same openings).
    pub matches: u32,
    /// Games between two validations; a multiple of the batch.
    pub every: u64,
    /// The openings' seed, which training never uses.
    pub seed: u64,
    /// Random plies of each opening.
    pub opening_plies: u32,
    /// The network's depth in validation; absent: the run's `depth`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub depth: Option<u32>,
}

impl Default for TdValidation {
    fn default() -> TdValidation {
        TdValidation { opponents: Vec::new(), matches: 100, every: 1_000, seed: 35, opening_plies: 4, depth: None }
    }
}

impl TdConfig {
    /// Reads and checks the TOML text of a configuration; errors name the key.
    pub fn parse(text: &str) -> Result<TdConfig, String> {
        let config: TdConfig = toml::from_str(text).map_err(|e| e.to_string())?;
        config.check()?;
        Ok(config)
    }

    /// The board the network reads.
    pub fn board(&self) -> BoardSize {
        BoardSize::new(self.network.side()).unwrap_or_default()
    }

    /// The start position on the board.
    pub fn start_position(&self) -> Result<Position, String> {
        self.start.position(self.board()).map_err(|e| format!("start: {e}"))
    }

    /// α for the batch that begins after `games` games.
    pub fn learning_rate_at(&self, games: u64) -> f64 {
        match self.learning_rate_half_life {
            Some(half_life) => self.learning_rate * (-(games as f64) / half_life as f64).exp2(),
            None => self.learning_rate,
        }
    }

    /// Checks every value; errors name the key.
    pub fn check(&self) -> Result<(), String> {
        let bad = |key: &str, why: String| Err(format!("{key}: {why}"));
        if !(1..=MAX_GAMES).contains(&self.games) {
            return bad("games", format!("must be 1 to {MAX_GAMES}, got {}", self.games));
        }
        if !(1..=MAX_BATCH).contains(&self.batch) {
            return bad("batch", format!("must be 1 to {MAX_BATCH}, got {}", self.batch));
        }
        if !(1..=MAX_DEPTH).contains(&self.depth) {
            return bad("depth", format!("must be 1 to {MAX_DEPTH}, got {}", self.depth));
        }
        if self.opening_plies > MAX_OPENING_PLIES {
            return bad("opening_plies", format!("must be 0 to {MAX_OPENING_PLIES}, got {}", self.opening_plies));
        }
        if !(self.learning_rate > 0.0 && self.learning_rate <= 1.0) {
            return bad("learning_rate", format!("must be above 0 and at most 1, got {}", self.learning_rate));
        }
        if let Some(h) = self.learning_rate_half_life
            && !(1..=MAX_GAMES).contains(&h)
        {
            let why = format!("must be 1 to {MAX_GAMES} games (or absent for a constant α), got {h}");
            return bad("learning_rate_half_life", why);
        }
        if !(0.0..=1.0).contains(&self.lambda) {
            return bad("lambda", format!("must be 0 to 1, got {}", self.lambda));
        }
        if !(self.init_range > 0.0 && self.init_range <= 1.0) {
            return bad("init_range", format!("must be above 0 and at most 1, got {}", self.init_range));
        }
        if self.checkpoint_every == 0 || !self.checkpoint_every.is_multiple_of(u64::from(self.batch)) {
            let why = format!("must be a positive multiple of batch ({}), got {}", self.batch, self.checkpoint_every);
            return bad("checkpoint_every", why);
        }
        if let Some(n) = self.average_games
            && !(u64::from(self.batch)..=MAX_GAMES).contains(&n)
        {
            let why =
                format!("must be batch ({}) to {MAX_GAMES} games (or absent for no average), got {n}", self.batch);
            return bad("average_games", why);
        }
        if i64::try_from(self.seed).is_err() {
            return bad("seed", format!("must be at most {} (TOML integers are signed), got {}", i64::MAX, self.seed));
        }
        self.start_position()?;
        if let Some(v) = &self.validation {
            v.check(self)?;
        }
        Ok(())
    }
}

impl TdValidation {
    /// The opponents' specs, parsed.
    pub fn players(&self) -> Result<Vec<PlayerSpec>, String> {
        self.opponents
            .iter()
            .map(|text| {
                PlayerSpec::parse_in(text, Accepts::Playable)
                    .map_err(|e| format!("validation.opponents: `{text}`: {e}"))
            })
            .collect()
    }

    fn check(&self, run: &TdConfig) -> Result<(), String> {
        let bad = |key: &str, why: String| Err(format!("validation.{key}: {why}"));
        if self.opponents.is_empty() || self.opponents.len() > 16 {
            return bad(
                "opponents",
                format!("needs 1 to 16 player specs, e.g. [\"aloa:3\"], got {}", self.opponents.len()),
            );
        }
        for (text, spec) in self.opponents.iter().zip(self.players()?) {
            if matches!(spec, PlayerSpec::Net { .. }) {
                return bad("opponents", format!("`{text}`: a fixed player (aloa, random, randomann), not a file"));
            }
            spec.plays_on(run.board()).map_err(|e| format!("validation.opponents: {e}"))?;
        }
        if self.matches == 0 || self.matches % 2 == 1 || self.matches > 100_000 {
            return bad("matches", format!("must be even, 2 to 100000, got {}", self.matches));
        }
        if self.every == 0 || !self.every.is_multiple_of(u64::from(run.batch)) {
            return bad("every", format!("must be a positive multiple of batch ({}), got {}", run.batch, self.every));
        }
        if self.opening_plies > MAX_OPENING_PLIES {
            return bad("opening_plies", format!("must be 0 to {MAX_OPENING_PLIES}, got {}", self.opening_plies));
        }
        if let Some(depth) = self.depth
            && !(1..=MAX_DEPTH).contains(&depth)
        {
            return bad("depth", format!("must be 1 to {MAX_DEPTH}, got {depth}"));
        }
        if i64::try_from(self.seed).is_err() {
            return bad("seed", format!("must be at most {}, got {}", i64::MAX, self.seed));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_5x5_setting_parses_and_names_its_board() {
        let config = TdConfig::parse(
            "seed = 3\ngames = 64\n[network]\nboard_side = 5\ninputs = [\"board\"]\nhidden = [12]\n\
             [validation]\nopponents = [\"aloa:3\"]\nmatches = 20\nevery = 32\n",
        )
        .unwrap();
        assert_eq!(config.board().side(), 5);
        assert_eq!(config.network.weight_count(), 25 * 12 + 12 + 12 + 1);
        assert_eq!(config.validation.unwrap().every, 32);
    }

    #[test]
    fn bad_values_are_named() {
        for (text, key) in [
            ("games = 0", "games"),
            ("batch = 0", "batch"),
            ("lambda = 1.5", "lambda"),
            ("learning_rate = 0.0", "learning_rate"),
            ("batch = 16\ncheckpoint_every = 20", "checkpoint_every"),
            ("start = \"scrambled-eggs\"\nnetwork = \"5x5-board-25-12-1\"", "start"),
            ("[validation]\nopponents = [\"aloa:3\"]\nmatches = 3", "validation.matches"),
            ("[validation]\nopponents = [\"aloa:3\"]\nevery = 7", "validation.every"),
            ("[validation]\nopponents = [\"nobody:3\"]", "validation.opponents"),
            ("learning_rate_half_life = 0", "learning_rate_half_life"),
            ("batch = 16\ncheckpoint_every = 32\naverage_games = 8", "average_games"),
            ("average_games = 0", "average_games"),
            ("speed = 3", "speed"),
        ] {
            let err = TdConfig::parse(text).unwrap_err();
            assert!(err.contains(key), "{text}: {err}");
        }
    }

    #[test]
    fn the_learning_rate_halves_every_half_life() {
        let constant = TdConfig { learning_rate: 0.004, ..TdConfig::default() };
        assert_eq!(constant.learning_rate_at(0), 0.004);
        assert_eq!(constant.learning_rate_at(1_000_000), 0.004);
        let decaying = TdConfig { learning_rate_half_life: Some(1000), ..constant };
        for (games, rate) in [(0, 0.004), (1000, 0.002), (2000, 0.001), (500, 0.004 / 2f64.sqrt())] {
            assert!((decaying.learning_rate_at(games) - rate).abs() < 1e-15, "{games}");
        }
    }

    #[test]
    fn a_configuration_round_trips_through_toml() {
        let plain = TdConfig {
            validation: Some(TdValidation { opponents: vec!["aloa:3".into()], ..TdValidation::default() }),
            ..TdConfig::default()
        };
        let averaged = TdConfig { learning_rate_half_life: Some(30_000), average_games: Some(5_000), ..plain.clone() };
        for config in [plain, averaged] {
            let text = toml::to_string(&config).unwrap();
            assert_eq!(TdConfig::parse(&text).unwrap(), config);
        }
        // The keys a configuration leaves out stay out: older files and their runs are unchanged.
        let text = toml::to_string(&TdConfig::default()).unwrap();
        assert!(!text.contains("half_life") && !text.contains("average"), "{text}");
    }
}
