//! The lines `loa engine` reads, parsed into [`Command`]s with errors that name what is wrong.

use loa_engine::{Position, PositionError};
use std::fmt;

/// One line of input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// `uci`: identify, list the options, `uciok`.
    Uci,
    /// `isready`: `readyok`.
    IsReady,
    /// `ucinewgame`: the next position starts a new game.
    NewGame,
    /// `position startpos|fen BOARD SIDE [moves M...]`.
    Position {
        /// The position before the moves: `None` for `startpos`, the session's start position.
        start: Option<Position>,
        /// The moves as written, still to be checked.
        moves: Vec<String>,
    },
    /// `go [depth N] [movetime MS] [wtime MS] ...`.
    Go(GoLimit),
    /// `setoption name NAME value VALUE`.
    SetOption {
        /// The option's name as written.
        name: String,
        /// Everything after `value` (spaces kept: file names may hold them).
        value: String,
    },
    /// `stop`: searches are short and answered before the next line is read, so there is
    /// never one to stop.
    Stop,
    /// `quit`.
    Quit,
}

/// How deep a `go` searches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GoLimit {
    /// The player's own depth (`go`, `go movetime MS`, `go wtime ...`, `go infinite`).
    OwnDepth,
    /// `go depth N`: N plies with the player's evaluator.
    Depth(u32),
}

/// Why a line is not a command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProtocolError {
    /// The first word is no command.
    Unknown {
        /// The word.
        word: String,
    },
    /// A known command with wrong arguments.
    Usage {
        /// The command.
        command: &'static str,
        /// What is wrong.
        problem: String,
    },
    /// The position text after `fen` is not a position.
    Position(PositionError),
}

/// The commands, for the message that names an unknown one.
const COMMANDS: &str = "uci, isready, ucinewgame, position, go, setoption, stop, quit";

fn usage(command: &str) -> &'static str {
    match command {
        "position" => "position startpos [moves M...] or position fen BOARD SIDE [moves M...]",
        "go" => "go [depth N] [movetime MS]",
        "setoption" => "setoption name NAME value VALUE",
        _ => "the command alone",
    }
}

impl fmt::Display for ProtocolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProtocolError::Unknown { word } => write!(f, "unknown command `{word}` (commands: {COMMANDS})"),
            ProtocolError::Usage { command, problem } => {
                write!(f, "{command}: {problem} (write {})", usage(command))
            }
            ProtocolError::Position(e) => {
                write!(f, "position: bad position text: {e} (e.g. position fen {} moves b1-b3)", loa_engine::START_TEXT)
            }
        }
    }
}

impl std::error::Error for ProtocolError {}

/// Parses one line; `Ok(None)` for a blank line.
pub fn parse(line: &str) -> Result<Option<Command>, ProtocolError> {
    let mut words = line.split_whitespace();
    let Some(word) = words.next() else { return Ok(None) };
    let rest: Vec<&str> = words.collect();
    let usage = |command, problem: String| ProtocolError::Usage { command, problem };
    let alone = |command: &'static str, c: Command| match rest.first() {
        None => Ok(c),
        Some(extra) => Err(usage(command, format!("unexpected `{extra}`"))),
    };
    Ok(Some(match word {
        "uci" => alone("uci", Command::Uci)?,
        "isready" => alone("isready", Command::IsReady)?,
        "ucinewgame" => alone("ucinewgame", Command::NewGame)?,
        "stop" => alone("stop", Command::Stop)?,
        "quit" => alone("quit", Command::Quit)?,
        "position" => parse_position(&rest)?,
        "go" => Command::Go(parse_go(&rest)?),
        "setoption" => parse_setoption(line)?,
        _ => return Err(ProtocolError::Unknown { word: word.to_string() }),
    }))
}

fn parse_position(words: &[&str]) -> Result<Command, ProtocolError> {
    let usage = |problem: String| ProtocolError::Usage { command: "position", problem };
    let (start, rest) = match words {
        ["startpos", rest @ ..] => (None, rest),
        ["fen", board, side, rest @ ..] => {
            (Some(format!("{board} {side}").parse().map_err(ProtocolError::Position)?), rest)
        }
        ["fen", ..] => return Err(usage("`fen` needs the board and the side to move".into())),
        [] => return Err(usage("missing `startpos` or `fen`".into())),
        [other, ..] => return Err(usage(format!("expected `startpos` or `fen`, found `{other}`"))),
    };
    let moves = match rest {
        [] => Vec::new(),
        ["moves", moves @ ..] => moves.iter().map(|m| m.to_string()).collect(),
        [other, ..] => return Err(usage(format!("expected `moves` after the position, found `{other}`"))),
    };
    Ok(Command::Position { start, moves })
}

fn parse_go(words: &[&str]) -> Result<GoLimit, ProtocolError> {
    let usage = |problem: String| ProtocolError::Usage { command: "go", problem };
    let max = loa_engine::players::MAX_DEPTH;
    let mut limit = GoLimit::OwnDepth;
    let mut words = words.iter();
    while let Some(&word) = words.next() {
        match word {
            "infinite" => {}
            "depth" | "movetime" | "wtime" | "btime" | "winc" | "binc" | "movestogo" => {
                let value = words.next().ok_or_else(|| usage(format!("`{word}` needs a number")))?;
                let number: i64 =
                    value.parse().map_err(|_| usage(format!("`{word}` needs a whole number, not `{value}`")))?;
                // Players search to a fixed depth, so time limits do not change the move (see
                // docs/engine-protocol.md); they are read only to be checked.
                if word == "depth" {
                    match u32::try_from(number) {
                        Ok(d) if (1..=max).contains(&d) => limit = GoLimit::Depth(d),
                        _ => return Err(usage(format!("depth must be 1..={max}, not {number}"))),
                    }
                }
            }
            other => return Err(usage(format!("unknown limit `{other}`"))),
        }
    }
    Ok(limit)
}

fn parse_setoption(line: &str) -> Result<Command, ProtocolError> {
    let usage = |problem: &str| ProtocolError::Usage { command: "setoption", problem: problem.to_string() };
    let rest = line.trim().strip_prefix("setoption").unwrap_or_default().trim_start();
    let rest =
        rest.strip_prefix("name").filter(|r| r.starts_with(char::is_whitespace)).ok_or(usage("missing `name`"))?;
    // The name runs to the word `value`; the value is the rest of the line, spaces included.
    let (name, value) = match rest.find(" value ") {
        Some(i) => (&rest[..i], rest[i + " value ".len()..].trim()),
        None if rest.trim_end().ends_with(" value") => (rest.trim_end().trim_end_matches(" value"), ""),
        None => (rest, ""),
    };
    let name = name.trim();
    if name.is_empty() {
        return Err(usage("missing the option's name"));
    }
    Ok(Command::SetOption { name: name.to_string(), value: value.to_string() })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(line: &str) -> Command {
        parse(line).unwrap().unwrap()
    }

    fn err(line: &str) -> String {
        parse(line).unwrap_err().to_string()
    }

    #[test]
    fn commands_parse() {
        assert_eq!(ok("uci"), Command::Uci);
        assert_eq!(ok("  isready \r"), Command::IsReady);
        assert_eq!(parse("   ").unwrap(), None);
        assert_eq!(ok("position startpos"), Command::Position { start: None, moves: vec![] });
        let fen = format!("position fen {} moves b1-b3 h2-f2", loa_engine::START_TEXT);
        assert_eq!(
            ok(&fen),
            Command::Position { start: Some(Position::start()), moves: vec!["b1-b3".into(), "h2-f2".into()] }
        );
        assert_eq!(ok("go"), Command::Go(GoLimit::OwnDepth));
        assert_eq!(ok("go depth 4"), Command::Go(GoLimit::Depth(4)));
        assert_eq!(ok("go movetime 1000"), Command::Go(GoLimit::OwnDepth));
        assert_eq!(ok("go wtime 60000 btime -5 winc 0 binc 0 movestogo 20"), Command::Go(GoLimit::OwnDepth));
        assert_eq!(
            ok("setoption name Player value net:3:/tmp/my nets/a.json"),
            Command::SetOption { name: "Player".into(), value: "net:3:/tmp/my nets/a.json".into() }
        );
        assert_eq!(ok("setoption name Seed value"), Command::SetOption { name: "Seed".into(), value: "".into() });
    }

    #[test]
    fn bad_lines_are_named() {
        assert_eq!(err("hello"), format!("unknown command `hello` (commands: {COMMANDS})"));
        assert!(err("uci now").starts_with("uci: unexpected `now`"));
        assert!(err("position").starts_with("position: missing `startpos` or `fen`"));
        assert!(err("position fen .bbbbbb./w......w").starts_with("position: `fen` needs the board and the side"));
        assert!(err("position fen x b").contains("bad position text: board must have 5 to 8 ranks"));
        assert!(
            err("position startpos b1-b3").starts_with("position: expected `moves` after the position, found `b1-b3`")
        );
        assert!(err("go depth").starts_with("go: `depth` needs a number"));
        assert!(err("go depth 0").starts_with("go: depth must be 1..=12, not 0"));
        assert!(err("go depth 99").starts_with("go: depth must be 1..=12, not 99"));
        assert!(err("go movetime soon").starts_with("go: `movetime` needs a whole number, not `soon`"));
        assert!(err("go nodes 5").starts_with("go: unknown limit `nodes`"));
        assert!(err("setoption Player value x").starts_with("setoption: missing `name`"));
        assert!(err("setoption name  value x").starts_with("setoption: missing the option's name"));
    }
}
