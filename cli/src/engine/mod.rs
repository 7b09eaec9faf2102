//! `loa engine`: a player behind a line protocol in the style of UCI, so that a GUI, a
//! tournament manager or another engine can play it (docs/engine-protocol.md).
//!
//! - [`command`]: the lines read, parsed into [`Command`]s.
//! - [`Engine`]: the session: the player, the game seed and the position, and the replies.
//!
//! The player is made from the same specs as `loa match`'s, and plays its moves: given the
//! game's seed (option `Seed`) and the moves since the game's start, it chooses what it would
//! choose in `loa match`.

pub mod command;

use crate::apply::{ApplyError, apply_moves};
use command::{Command, GoLimit, ProtocolError};
use loa_engine::aloa::AloaKind;
use loa_engine::players::PlayerDebug;
use loa_engine::spec::{Accepts, PlayerSpec, PreparedPlayer, SpecError};
use loa_engine::tasks::FixedPlayer;
use loa_engine::{Position, Rules};
use std::collections::HashMap;
use std::fmt;
use std::io::{self, BufRead, Write};
use std::sync::Arc;

/// The player an engine plays until told otherwise: the reference player, `aloa:5`.
pub fn default_player() -> PlayerSpec {
    PlayerSpec::Fixed(FixedPlayer::Aloa { evaluator: AloaKind::Quad, depth: 5 })
}

/// Why a command could not be carried out; the engine says so and reads on.
#[derive(Debug)]
pub enum EngineError {
    /// The line is not a command.
    Protocol(ProtocolError),
    /// A move of `position ... moves` was refused.
    Moves(ApplyError),
    /// The `Player` option's value is not a usable player.
    Player(PlayerChoiceError),
    /// The `Seed` option's value is not a whole number.
    Seed {
        /// The value as written.
        value: String,
    },
    /// `setoption` names no option this engine has.
    UnknownOption {
        /// The name as written.
        name: String,
    },
    /// `go` with no position: the last `position` was refused.
    NoPosition,
    /// `go` on a board the player cannot play (a network on a board other than 8×8).
    Board(SpecError),
}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineError::Protocol(e) => write!(f, "{e}"),
            EngineError::Moves(e) => write!(f, "position: {e}; no position is set until a good `position` command"),
            EngineError::Player(e) => write!(f, "option Player: {e}; the player is unchanged"),
            EngineError::Seed { value } => {
                write!(
                    f,
                    "option Seed: `{value}` is not a whole number 0..=18446744073709551615; the seed is unchanged"
                )
            }
            EngineError::UnknownOption { name } => write!(f, "unknown option `{name}` (options: Player, Seed)"),
            EngineError::NoPosition => {
                write!(f, "go: no position (the last `position` command was refused); send a good one first")
            }
            EngineError::Board(e) => {
                write!(f, "go: {e}; choose another player with `setoption name Player value aloa:5`")
            }
        }
    }
}

impl std::error::Error for EngineError {}

/// Why a player spec cannot be an engine's player.
#[derive(Debug)]
pub enum PlayerChoiceError {
    /// Not a spec, or its file cannot be used.
    Spec(SpecError),
    /// A player that draws a fresh network per match, which an engine has none of.
    FreshNetwork {
        /// The spec as written.
        spec: String,
    },
    /// An external engine: the engine would only pass its lines on.
    External {
        /// The spec as written.
        spec: String,
    },
}

impl fmt::Display for PlayerChoiceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlayerChoiceError::Spec(e) => write!(f, "{e}"),
            PlayerChoiceError::FreshNetwork { spec } => write!(
                f,
                "`{spec}` draws a new network for every match, and an engine plays no matches: give the network's \
                 seed, e.g. {spec}:1"
            ),
            PlayerChoiceError::External { spec } => write!(
                f,
                "`{spec}` is another engine: run that program itself, or give `loa engine` a player of its own"
            ),
        }
    }
}

impl std::error::Error for PlayerChoiceError {}

/// The position to search and the plies played since the game's start (the ply cap counts them).
#[derive(Clone, Copy, Debug)]
struct Game {
    pos: Position,
    plies: u32,
}

/// One engine session: the player, its game seed and the current position.
pub struct Engine {
    spec: PlayerSpec,
    /// The player at each depth asked for so far, made when first asked for.
    players: HashMap<u32, Arc<dyn PlayerDebug>>,
    seed: u64,
    /// What `startpos` and `ucinewgame` set up.
    start: Position,
    game: Option<Game>,
    rules: Rules,
}

/// Whether to read on after a command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Read the next line.
    Continue,
    /// `quit` was read.
    Quit,
}

impl Engine {
    /// A session playing [`default_player`] with seed 0 from the start position.
    pub fn new() -> Engine {
        Engine {
            spec: default_player(),
            players: HashMap::new(),
            seed: 0,
            start: Position::start(),
            game: Some(Game { pos: Position::start(), plies: 0 }),
            rules: Rules::default(),
        }
    }

    /// A session playing `player` (a player spec) with game seed `seed` from the start position.
    pub fn with_player(player: &str, seed: u64) -> Result<Engine, PlayerChoiceError> {
        let mut engine = Engine::new().with_seed(seed);
        engine.set_player(player)?;
        Ok(engine)
    }

    /// The same session with `start` (any board size) as the start position `startpos` and
    /// `ucinewgame` set up.
    pub fn with_start(mut self, start: Position) -> Engine {
        self.start = start;
        self.game = Some(Game { pos: start, plies: 0 });
        self
    }

    /// The same session with game seed `seed`.
    pub fn with_seed(mut self, seed: u64) -> Engine {
        self.seed = seed;
        self
    }

    /// Carries out one line, writing the replies to `out` (flushed). Errors are written as
    /// `info string error: ...` lines; the session goes on.
    pub fn handle(&mut self, line: &str, out: &mut impl Write) -> io::Result<Flow> {
        let command = match command::parse(line) {
            Ok(Some(c)) => c,
            Ok(None) => return Ok(Flow::Continue),
            // Every `go` gets a `bestmove`, so that a program waiting for one never hangs.
            Err(e) if line.split_whitespace().next() == Some("go") => {
                error(out, &EngineError::Protocol(e))?;
                writeln!(out, "bestmove (none)")?;
                return out.flush().map(|()| Flow::Continue);
            }
            Err(e) => return error(out, &EngineError::Protocol(e)).map(|()| Flow::Continue),
        };
        match command {
            Command::Uci => {
                writeln!(out, "id name loa-evolve {}", env!("CARGO_PKG_VERSION"))?;
                writeln!(out, "id author the loa-evolve authors")?;
                // The defaults shown are the current values: what `--player` and `--seed` gave.
                writeln!(out, "option name Player type string default {}", self.spec)?;
                writeln!(out, "option name Seed type string default {}", self.seed)?;
                writeln!(out, "uciok")?;
            }
            Command::IsReady => writeln!(out, "readyok")?,
            Command::NewGame => self.game = Some(Game { pos: self.start, plies: 0 }),
            Command::Position { start, moves } => match apply_moves(start.unwrap_or(self.start), &moves, &self.rules) {
                Ok(pos) => self.game = Some(Game { pos, plies: moves.len() as u32 }),
                Err(e) => {
                    self.game = None;
                    error(out, &EngineError::Moves(e))?;
                }
            },
            Command::Go(limit) => self.go(limit, out)?,
            Command::SetOption { name, value } => {
                if let Err(e) = self.set_option(&name, &value) {
                    error(out, &e)?;
                }
            }
            Command::Stop => {}
            Command::Quit => return Ok(Flow::Quit),
        }
        out.flush()?;
        Ok(Flow::Continue)
    }

    fn set_option(&mut self, name: &str, value: &str) -> Result<(), EngineError> {
        if name.eq_ignore_ascii_case("player") {
            self.set_player(value).map_err(EngineError::Player)
        } else if name.eq_ignore_ascii_case("seed") {
            self.seed = value.parse().map_err(|_| EngineError::Seed { value: value.to_string() })?;
            Ok(())
        } else {
            Err(EngineError::UnknownOption { name: name.to_string() })
        }
    }

    /// Reads any file the spec names now, so that a bad one is reported at once.
    fn set_player(&mut self, text: &str) -> Result<(), PlayerChoiceError> {
        let spec = PlayerSpec::parse_in(text, Accepts::Playable).map_err(PlayerChoiceError::Spec)?;
        let player = prepare(&spec)?;
        self.players = HashMap::from([(spec.depth(), player)]);
        self.spec = spec;
        Ok(())
    }

    fn go(&mut self, limit: GoLimit, out: &mut impl Write) -> io::Result<()> {
        match self.search(limit) {
            Ok(Searched::Move { depth, mv, value, nodes }) => {
                writeln!(out, "info depth {depth} nodes {nodes} string value {value}")?;
                writeln!(out, "bestmove {mv}")
            }
            Ok(Searched::Over(why)) => {
                writeln!(out, "info string game over: {why}")?;
                writeln!(out, "bestmove (none)")
            }
            Err(e) => {
                error(out, &e)?;
                writeln!(out, "bestmove (none)")
            }
        }
    }

    fn search(&mut self, limit: GoLimit) -> Result<Searched, EngineError> {
        let Game { pos, plies } = self.game.ok_or(EngineError::NoPosition)?;
        if let Some(end) = pos.game_end(&self.rules) {
            return Ok(Searched::Over(end.to_string()));
        }
        if self.rules.ply_cap > 0 && plies >= self.rules.ply_cap {
            return Ok(Searched::Over(format!("draw at the ply cap ({plies} plies played)")));
        }
        self.spec.plays_on(pos.size()).map_err(EngineError::Board)?;
        let depth = match limit {
            GoLimit::OwnDepth => self.spec.depth(),
            GoLimit::Depth(d) => d,
        };
        let player = match self.players.get(&depth) {
            Some(p) => Arc::clone(p),
            None => {
                let p = prepare(&self.spec.with_depth(depth)).map_err(EngineError::Player)?;
                self.players.insert(depth, Arc::clone(&p));
                p
            }
        };
        let result = player.choose(&pos, &self.rules, plies, self.seed);
        Ok(match result.best {
            Some(mv) => Searched::Move { depth, mv: mv.to_string(), value: result.value, nodes: result.nodes },
            None => Searched::Over("the side to move has no legal move".into()),
        })
    }
}

impl Default for Engine {
    fn default() -> Engine {
        Engine::new()
    }
}

/// What a `go` found.
enum Searched {
    Move { depth: u32, mv: String, value: f32, nodes: u64 },
    Over(String),
}

fn prepare(spec: &PlayerSpec) -> Result<Arc<dyn PlayerDebug>, PlayerChoiceError> {
    match spec.prepare().map_err(PlayerChoiceError::Spec)? {
        PreparedPlayer::Fixed(p) => Ok(p),
        PreparedPlayer::FreshRandomAnn { .. } => Err(PlayerChoiceError::FreshNetwork { spec: spec.to_string() }),
        PreparedPlayer::Engine { .. } => Err(PlayerChoiceError::External { spec: spec.to_string() }),
    }
}

fn error(out: &mut impl Write, e: &EngineError) -> io::Result<()> {
    // An info string runs to the end of the line, so a message must be one line; input echoed
    // in it may hold control characters, which are written escaped (`\0`, `\r`).
    let mut message = String::new();
    for c in e.to_string().chars() {
        if c.is_control() { message.extend(c.escape_debug()) } else { message.push(c) }
    }
    writeln!(out, "info string error: {message}")?;
    out.flush()
}

/// Runs `engine` over `input` and `output` until `quit` or the end of input. A line that is
/// not UTF-8 is refused like any bad line.
pub fn run(mut engine: Engine, mut input: impl BufRead, mut output: impl Write) -> io::Result<()> {
    let mut bytes = Vec::new();
    loop {
        bytes.clear();
        if input.read_until(b'\n', &mut bytes)? == 0 {
            return Ok(());
        }
        let flow = match std::str::from_utf8(&bytes) {
            Ok(line) => engine.handle(line, &mut output)?,
            Err(_) => {
                writeln!(output, "info string error: the line is not UTF-8 text; send commands as plain text")?;
                output.flush()?;
                Flow::Continue
            }
        };
        if flow == Flow::Quit {
            return Ok(());
        }
    }
}

#[cfg(test)]
mod tests;
