//! The players a run measures its networks against: a validation opponent, the benchmark's
//! reference. Either a fixed player, which a task carries to any worker, or an external engine
//! (`engine:CMD`), whose matches the master plays itself ([`crate::local`]).

use super::ConfigError;
use loa_engine::BoardSize;
use loa_engine::players::NetworkBoardError;
use loa_engine::spec::{Accepts, PlayerSpec};
use loa_engine::tasks::{FixedPlayer, MatchEntrant};
use std::fmt;

/// A held-out opponent or the benchmark's reference.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Opponent {
    /// A player that is the same in every match: its tasks go to the workers.
    Fixed(FixedPlayer),
    /// A program speaking `loa engine`'s protocol, by its command line: only the master runs it.
    Engine(String),
}

impl Opponent {
    /// The opponent `spec` names ([`Accepts::Opponent`]); an error names the setting `key`, the
    /// spec and the forms to use.
    pub fn parse(key: &str, spec: &str) -> Result<Opponent, ConfigError> {
        let invalid = |why: String| ConfigError::Invalid { key: key.to_owned(), why };
        match PlayerSpec::parse_in(spec, Accepts::Opponent).map_err(|e| invalid(e.to_string()))? {
            PlayerSpec::Fixed(player) => Ok(Opponent::Fixed(player)),
            PlayerSpec::Engine { command } => Ok(Opponent::Engine(command)),
            // `Accepts::Opponent` takes no other form.
            other => Err(invalid(format!("bad player `{other}`: use {}", Accepts::Opponent.forms()))),
        }
    }

    /// Whether it plays on `board` (an engine's program answers for itself).
    pub fn plays_on(&self, board: BoardSize) -> Result<(), NetworkBoardError> {
        match self {
            Opponent::Fixed(player) => player.plays_on(board),
            Opponent::Engine(_) => Ok(()),
        }
    }

    /// Its entrant in a task, with the serial `serial`, and the engine's command if it is one
    /// (the entrant then only holds its place: see [`crate::local::stand_in`]).
    pub fn entrant(&self, serial: u64) -> (MatchEntrant, Option<&str>) {
        match self {
            Opponent::Fixed(player) => (MatchEntrant::Fixed { serial, player: *player }, None),
            Opponent::Engine(command) => (crate::local::stand_in(serial), Some(command)),
        }
    }
}

/// Its spec, as `engine:CMD` for an engine.
impl fmt::Display for Opponent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Opponent::Fixed(player) => write!(f, "{player}"),
            Opponent::Engine(command) => write!(f, "engine:{command}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fixed_player_or_an_engine_and_nothing_else() {
        assert_eq!(Opponent::parse("k", "aloa:3").unwrap().to_string(), "aloa:3");
        let engine = Opponent::parse("k", "engine:loa engine --player aloa:3").unwrap();
        assert_eq!(engine, Opponent::Engine("loa engine --player aloa:3".into()));
        assert_eq!(engine.to_string(), "engine:loa engine --player aloa:3");
        assert!(engine.plays_on(BoardSize::MIN).is_ok());
        let (entrant, command) = engine.entrant(7);
        assert_eq!((entrant.serial(), command), (7, Some("loa engine --player aloa:3")));
        let net = Opponent::parse("validation.opponents", "net:2:x.json").unwrap_err().to_string();
        assert!(net.contains("`validation.opponents`: bad player `net:2:x.json`: not a fixed player"), "{net}");
        assert!(net.contains("or engine:CMD"), "{net}");
    }
}
