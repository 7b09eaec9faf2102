//! A match experiment's configuration (`experiments/eN.toml`): two players, how many two-game
//! matches, the seed, the openings, the rules and whether colours are swapped. Every error names
//! its key: an unknown one (serde), a value out of range or an unreadable player spec (`validate`).

use crate::config::{ConfigError, FileKind, parse_toml};
use loa_engine::openings::max_opening_plies;
use loa_engine::spec::PlayerSpec;
use loa_engine::tasks::MAX_MATCHES;
use loa_engine::{BoardSize, Position, Rules, Start};
use serde::Deserialize;

/// Most two-game matches per entrant of A (bounds an experiment's size and memory).
pub const MAX_MATCHES_PER_ENTRANT: u32 = 1_000_000;

/// The default bound on an experiment's two-game matches in all (`max_matches`): about a GiB of
/// plan and outcomes, and days of play on one machine.
pub const DEFAULT_MAX_MATCHES: u64 = 10_000_000;

/// A match experiment: player `a` against player `b`.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MatchExperiment {
    /// A one-line description, printed with the results.
    #[serde(default)]
    pub title: String,
    /// Player A (see [`PlayerSpec`]): the player described in the output file (its "first
    /// player"), A of every match unless colours are swapped.
    pub a: String,
    /// Player B.
    pub b: String,
    /// Two-game matches for each entrant of A (a `run:` spec has one entrant per survivor of
    /// each epoch named; every other spec has one), each from its own seed.
    pub matches: u32,
    /// The experiment seed: match `j` has seed `derive_seed(seed, j)`, as pair `j` of `loa match
    /// --seed SEED`.
    #[serde(default)]
    pub seed: u64,
    /// Uniformly random plies before each match (0: the start position), so deterministic
    /// players play different games.
    #[serde(default)]
    pub opening_plies: u32,
    /// Also play every match with B as A (same seed, same opening), so each player is A (who wins
    /// criterion 4's ties) in half the matches.
    #[serde(default)]
    pub swap_colours: bool,
    /// Two-game matches per task: smaller tasks share out better over few matches and many
    /// workers. Results do not depend on it.
    #[serde(default = "default_matches_per_task")]
    pub matches_per_task: u32,
    /// The rules variant (default: docs/spec.md §2's tournament rules with a 100-ply cap).
    #[serde(default)]
    pub rules: Rules,
    /// The board (`5x5` to `8x8`, default 8x8); every network of both players must read it.
    #[serde(default)]
    pub board: BoardSize,
    /// The start position on the board: `standard` (default) or `scrambled-eggs` (8x8 only).
    #[serde(default)]
    pub start: Start,
    /// Most two-game matches the experiment may play in all (swapped ones counted), checked once
    /// the players' files are read and before anything is planned: a `run:` spec over many
    /// epochs of a large population multiplies `matches` by every survivor.
    #[serde(default = "default_max_matches")]
    pub max_matches: u64,
}

fn default_matches_per_task() -> u32 {
    4
}

fn default_max_matches() -> u64 {
    DEFAULT_MAX_MATCHES
}

impl MatchExperiment {
    /// The kind of file a match experiment is (`crate::files` reads it).
    pub const FILE: FileKind = FileKind {
        what: "a match experiment",
        command: "experiment",
        out: "GAMES.jsonl",
        reads: |text| parse_toml::<MatchExperiment>(text).is_ok(),
    };

    /// Parses and validates TOML text.
    pub fn from_toml(text: &str) -> Result<MatchExperiment, ConfigError> {
        let config: MatchExperiment = parse_toml(text)?;
        config.validate()?;
        Ok(config)
    }

    /// The two players' specs, parsed (files are not read yet).
    pub fn players(&self) -> Result<(PlayerSpec, PlayerSpec), ConfigError> {
        let parse = |key: &str, text: &str| {
            text.parse::<PlayerSpec>().map_err(|e| ConfigError::Invalid { key: key.into(), why: e.to_string() })
        };
        Ok((parse("a", &self.a)?, parse("b", &self.b)?))
    }

    /// Two-game matches the experiment plays when A has `entrants` entrants (swapped ones
    /// counted), in a type no experiment overflows.
    pub fn planned_matches(&self, entrants: usize) -> u128 {
        entrants as u128 * u128::from(self.matches) * if self.swap_colours { 2 } else { 1 }
    }

    /// The position every match starts from before its random opening.
    pub fn start_position(&self) -> Position {
        // Checked by `validate`; the usual start is the fallback only of an unchecked config.
        self.start.position(self.board).unwrap_or_else(|_| Position::start())
    }

    /// Checks every value's range and both player specs.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let bad = |key: &str, why: String| Err(ConfigError::Invalid { key: key.into(), why });
        let (a, b) = self.players()?;
        if let (Some(da), Some(db)) = (a.network_depth(), b.network_depth())
            && da != db
        {
            return bad("b", format!("networks on both sides must search the same depth: A {da}, B {db}"));
        }
        if self.matches == 0 || self.matches > MAX_MATCHES_PER_ENTRANT {
            return bad("matches", format!("must be 1..={MAX_MATCHES_PER_ENTRANT}, got {}", self.matches));
        }
        if let Err(e) = self.start.position(self.board) {
            return bad("start", e.to_string());
        }
        let most = max_opening_plies(self.board);
        if self.opening_plies > most {
            let why = format!("must be at most {most} on the {} board, got {}", self.board, self.opening_plies);
            return bad("opening_plies", why);
        }
        if self.matches_per_task == 0 || self.matches_per_task as usize > MAX_MATCHES {
            return bad("matches_per_task", format!("must be 1..={MAX_MATCHES}, got {}", self.matches_per_task));
        }
        if self.max_matches == 0 {
            return bad("max_matches", "must be at least 1".into());
        }
        if self.rules.ply_cap == 0 || self.rules.ply_cap > 10_000 {
            return bad("rules.ply_cap", format!("must be 1..=10000 so every game ends, got {}", self.rules.ply_cap));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = "a = \"random:3\"\nb = \"aloa:5\"\nmatches = 10\n";

    #[test]
    fn a_small_file_gets_the_defaults() {
        let c = MatchExperiment::from_toml(GOOD).unwrap();
        assert_eq!((c.matches, c.seed, c.opening_plies, c.swap_colours, c.matches_per_task), (10, 0, 0, false, 4));
        assert_eq!(c.rules, Rules::default());
        assert_eq!(c.max_matches, 10_000_000);
        assert_eq!((c.board, c.start), (BoardSize::STANDARD, Start::Standard));
    }

    #[test]
    fn the_board_bounds_the_openings_and_the_start() {
        let on = |extra: &str| MatchExperiment::from_toml(&format!("{GOOD}{extra}")).map_err(|e| e.to_string());
        let small = on("board = \"6x6\"\nopening_plies = 12").unwrap();
        assert_eq!(small.start_position().to_string(), ".bbbb./w....w/w....w/w....w/w....w/.bbbb. b");
        let long = on("board = \"6x6\"\nopening_plies = 13").unwrap_err();
        assert!(long.contains("`opening_plies`: must be at most 12 on the 6x6 board"), "{long}");
        let eggs = on("board = \"5x5\"\nstart = \"scrambled-eggs\"").unwrap_err();
        assert!(eggs.contains("`start`") && eggs.contains("8x8 board only"), "{eggs}");
        assert!(on("board = \"9x9\"").unwrap_err().contains("9x9"));
    }

    #[test]
    fn planned_matches_count_every_entrant_and_swap_without_overflow() {
        let c = MatchExperiment::from_toml(GOOD).unwrap();
        assert_eq!(c.planned_matches(3), 30);
        let swapped = MatchExperiment { swap_colours: true, matches: MAX_MATCHES_PER_ENTRANT, ..c };
        assert_eq!(swapped.planned_matches(usize::MAX), 2 * 1_000_000 * u128::from(u64::MAX));
    }

    #[test]
    fn errors_name_the_key() {
        let err = |extra: &str| MatchExperiment::from_toml(&format!("{GOOD}{extra}")).unwrap_err().to_string();
        assert!(err("matchs = 3").contains("matchs"), "{}", err("matchs = 3"));
        assert!(err("opening_plies = 41").contains("`opening_plies`"));
        assert!(err("matches_per_task = 0").contains("`matches_per_task`"));
        assert!(err("matches_per_task = 257").contains("`matches_per_task`"));
        assert!(err("[rules]\nply_cap = 0").contains("`rules.ply_cap`"));
        assert!(err("[rules]\nply_kap = 5").contains("ply_kap"));
        assert!(err("swap_colours = \"yes\"").contains("swap_colours"));
        assert!(err("max_matches = 0").contains("`max_matches`"));
        let bad = |text: &str| MatchExperiment::from_toml(text).unwrap_err().to_string();
        assert!(bad("a = \"random:3\"\nb = \"aloa:5\"\nmatches = 0").contains("`matches`"));
        assert!(bad("a = \"random:3\"\nb = \"aloa:5\"").contains("matches"));
        assert!(bad("a = \"chess:3\"\nb = \"aloa:5\"\nmatches = 1").contains("invalid `a`"));
        assert!(bad("a = \"random:3\"\nb = \"aloa:0\"\nmatches = 1").contains("invalid `b`"));
        assert!(bad("a = \"net:3:x.json\"\nb = \"net:4:y.json\"\nmatches = 1").contains("same depth"));
    }
}
