//! The optional `[validation]` section of a run: the run's best network against held-out
//! opponents every few epochs, from openings of a seed of its own (docs/config.md).

use super::{ConfigError, Opponent};
use loa_engine::BoardSize;
use loa_engine::openings::max_opening_plies;
use loa_engine::players::MAX_DEPTH;
use serde::{Deserialize, Serialize};

/// Most opponents a validation plays.
pub const MAX_OPPONENTS: usize = 16;
/// Most matches against one opponent per validation.
pub const MAX_MATCHES: u32 = 100_000;

/// Held-out validation: which opponents, how many matches, how often, from which openings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ValidationConfig {
    /// The opponents' player specs: fixed players and external engines
    /// ([`loa_engine::spec::Accepts::Opponent`]).
    pub opponents: Vec<String>,
    /// Two-game matches against each opponent per validation; even, so the network is A in half
    /// of them and B in the other half from the same openings.
    pub matches: u32,
    /// Validate every this many epochs (and at epoch 0, the initial population).
    pub every: u32,
    /// The seed of the openings and matches: the same held-out openings at every validation,
    /// drawn from nothing the training uses.
    pub seed: u64,
    /// Random plies of every opening.
    pub opening_plies: u32,
    /// The network's search depth in validation; absent: the run's `network_depth`. A run may
    /// train at a shallow depth and still be measured at the depth it is meant to play.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub network_depth: Option<u32>,
}

impl Default for ValidationConfig {
    fn default() -> Self {
        ValidationConfig {
            opponents: Vec::new(),
            matches: 100,
            every: 1,
            seed: 0,
            opening_plies: 4,
            network_depth: None,
        }
    }
}

impl ValidationConfig {
    /// Checks every value for a run on `board`; errors name the key (`validation.KEY`).
    pub fn check(&self, board: BoardSize) -> Result<(), ConfigError> {
        let bad = |key: &str, why: String| Err(ConfigError::Invalid { key: format!("validation.{key}"), why });
        if self.opponents.is_empty() {
            return bad("opponents", "needs at least one player spec, e.g. [\"aloa:3\"]".into());
        }
        if self.opponents.len() > MAX_OPPONENTS {
            return bad("opponents", format!("at most {MAX_OPPONENTS}, got {}", self.opponents.len()));
        }
        for (spec, player) in self.opponents.iter().zip(self.players()?) {
            if let Err(e) = player.plays_on(board) {
                return bad("opponents", format!("`{spec}`: {e}"));
            }
        }
        if self.matches == 0 || self.matches % 2 == 1 || self.matches > MAX_MATCHES {
            let why = format!(
                "must be even (the network is A in half the matches), 2 to {MAX_MATCHES}, got {}",
                self.matches
            );
            return bad("matches", why);
        }
        if self.every == 0 {
            return bad("every", "must be at least 1 (epochs between two validations)".into());
        }
        if i64::try_from(self.seed).is_err() {
            // Checkpoints keep the configuration as TOML, whose integers are signed.
            return bad("seed", format!("must be at most {}, got {}", i64::MAX, self.seed));
        }
        let most = max_opening_plies(board);
        if self.opening_plies > most {
            return bad(
                "opening_plies",
                format!("must be 0 to {most} on the {board} board, got {}", self.opening_plies),
            );
        }
        if let Some(depth) = self.network_depth
            && (depth == 0 || depth > MAX_DEPTH)
        {
            return bad("network_depth", format!("must be 1..={MAX_DEPTH}, got {depth}"));
        }
        Ok(())
    }

    /// The opponents as players, in order; a spec that is neither a fixed player nor an
    /// external engine is an error naming `validation.opponents` and the spec.
    pub fn players(&self) -> Result<Vec<Opponent>, ConfigError> {
        self.opponents.iter().map(|spec| Opponent::parse("validation.opponents", spec)).collect()
    }

    /// Whether the run validates at the end of `epoch`.
    pub fn due(&self, epoch: u32) -> bool {
        epoch.is_multiple_of(self.every.max(1))
    }
}

#[cfg(test)]
mod tests {
    use crate::config::ExperimentConfig;

    fn err(text: &str) -> String {
        ExperimentConfig::from_toml(&format!("[validation]\n{text}")).unwrap_err().to_string()
    }

    #[test]
    fn a_section_reads_with_defaults_and_absent_is_none() {
        assert_eq!(ExperimentConfig::from_toml("").unwrap().validation, None);
        let c = ExperimentConfig::from_toml("[validation]\nopponents = [\"aloa:3\", \"random:3\"]\n").unwrap();
        let v = c.validation.unwrap();
        assert_eq!((v.matches, v.every, v.seed, v.opening_plies, v.network_depth), (100, 1, 0, 4, None));
        assert_eq!(v.players().unwrap().len(), 2);
        assert!(v.due(0) && v.due(3));
        let v = super::ValidationConfig { every: 5, ..v };
        assert!(v.due(0) && v.due(10) && !v.due(3));
    }

    #[test]
    fn bad_values_name_their_key() {
        assert!(err("").contains("`validation.opponents`: needs at least one"), "{}", err(""));
        let o = "opponents = [\"aloa:3\"]\n";
        assert!(err("opponents = [\"aloa:30\"]").contains("`validation.opponents`: bad player `aloa:30`: the depth"));
        assert!(err("opponents = [\"chess:3\"]").contains("unknown player kind `chess`"));
        let fresh = err("opponents = [\"randomann:3\"]");
        assert!(fresh.contains("`randomann:3`: not a fixed player") && fresh.contains("randomann:D:SEED"), "{fresh}");
        assert!(err(&format!("{o}matches = 3")).contains("`validation.matches`: must be even"));
        assert!(err(&format!("{o}matches = 0")).contains("`validation.matches`"));
        assert!(err(&format!("{o}every = 0")).contains("`validation.every`: must be at least 1"));
        assert!(err(&format!("{o}seed = 9223372036854775808")).contains("seed"));
        assert!(err(&format!("{o}opening_plies = 41")).contains("`validation.opening_plies`: must be 0 to 40"));
        assert!(err(&format!("{o}network_depth = 0")).contains("`validation.network_depth`: must be 1..="));
        assert!(err(&format!("{o}oponents = 1")).contains("oponents"));
    }

    #[test]
    fn a_small_board_allows_shorter_openings_and_no_randomann() {
        let on_5x5 = |text: &str| {
            let config = format!("network = \"5x5-board-25-12-1\"\n[validation]\n{text}");
            ExperimentConfig::from_toml(&config).map(|_| ()).map_err(|e| e.to_string())
        };
        assert_eq!(on_5x5("opponents = [\"aloa:3\", \"random:2\"]\nopening_plies = 6"), Ok(()));
        let long = on_5x5("opponents = [\"aloa:3\"]\nopening_plies = 7").unwrap_err();
        assert!(long.contains("`validation.opening_plies`: must be 0 to 6 on the 5x5 board"), "{long}");
        let ann = on_5x5("opponents = [\"randomann:3:1\"]").unwrap_err();
        assert!(ann.contains("`validation.opponents`: `randomann:3:1`") && ann.contains("8x8"), "{ann}");
    }
}
