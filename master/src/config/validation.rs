//! The optional `[validation]` section of a run: the run's best network against held-out
//! opponents every few epochs, from openings of a seed of its own (docs/config.md).

use super::ConfigError;
use loa_engine::players::MAX_DEPTH;
use loa_engine::spec::{PlayerText, parse_player};
use loa_engine::tasks::{FixedPlayer, MAX_OPENING_PLIES};
use serde::{Deserialize, Serialize};

/// Most opponents a validation plays.
pub const MAX_OPPONENTS: usize = 16;
/// Most matches against one opponent per validation.
pub const MAX_MATCHES: u32 = 100_000;

/// Held-out validation: which opponents, how many matches, how often, from which openings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ValidationConfig {
    /// The opponents' player specs (fixed players: `aloa:D`, `random:D[:SALT]`, ...).
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
    /// Checks every value; errors name the key (`validation.KEY`).
    pub fn check(&self) -> Result<(), ConfigError> {
        let bad = |key: &str, why: String| Err(ConfigError::Invalid { key: format!("validation.{key}"), why });
        if self.opponents.is_empty() {
            return bad("opponents", "needs at least one player spec, e.g. [\"aloa:3\"]".into());
        }
        if self.opponents.len() > MAX_OPPONENTS {
            return bad("opponents", format!("at most {MAX_OPPONENTS}, got {}", self.opponents.len()));
        }
        self.players()?;
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
        if self.opening_plies > MAX_OPENING_PLIES {
            return bad("opening_plies", format!("must be 0 to {MAX_OPENING_PLIES}, got {}", self.opening_plies));
        }
        if let Some(depth) = self.network_depth
            && (depth == 0 || depth > MAX_DEPTH)
        {
            return bad("network_depth", format!("must be 1..={MAX_DEPTH}, got {depth}"));
        }
        Ok(())
    }

    /// The opponents as players, in order; a spec that is not a fixed player is an error naming
    /// `validation.opponents` and the spec.
    pub fn players(&self) -> Result<Vec<FixedPlayer>, ConfigError> {
        let fixed = |spec: &String| {
            let not = |why: String| ConfigError::Invalid {
                key: "validation.opponents".into(),
                why: format!("`{spec}`: {why}"),
            };
            match parse_player(spec).map_err(not)? {
                PlayerText::Fixed(player) => Ok(player),
                PlayerText::Other { kind, .. } => Err(not(format!(
                    "unknown player kind `{kind}`: use aloa:D, aloa-normal:D, random:D[:SALT] or randomann:D:SEED"
                ))),
                _ => Err(not(
                    "not a fixed player: use aloa:D, aloa-normal:D, random:D[:SALT] or randomann:D:SEED".into()
                )),
            }
        };
        self.opponents.iter().map(fixed).collect()
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
        assert!(err("opponents = [\"aloa:30\"]").contains("`validation.opponents`: `aloa:30`: the depth"));
        assert!(err("opponents = [\"chess:3\"]").contains("unknown player kind `chess`"));
        assert!(err("opponents = [\"randomann:3\"]").contains("not a fixed player"));
        assert!(err(&format!("{o}matches = 3")).contains("`validation.matches`: must be even"));
        assert!(err(&format!("{o}matches = 0")).contains("`validation.matches`"));
        assert!(err(&format!("{o}every = 0")).contains("`validation.every`: must be at least 1"));
        assert!(err(&format!("{o}seed = 9223372036854775808")).contains("seed"));
        assert!(err(&format!("{o}opening_plies = 41")).contains("`validation.opening_plies`: must be 0 to 40"));
        assert!(err(&format!("{o}network_depth = 0")).contains("`validation.network_depth`: must be 1..="));
        assert!(err(&format!("{o}oponents = 1")).contains("oponents"));
    }
}
