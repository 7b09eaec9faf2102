//! `loa replay FILE N`: game N of a `loa match --out` file played again from its start, each
//! recorded move checked, so a game can be looked at move by move.

use crate::apply::{ApplyError, apply_moves};
use loa_engine::{Position, PositionError, Rules};
use loa_records::matches::{MatchGameRecord, MatchLine};
use loa_records::{self as records, RecordError, jsonl};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Why a game could not be replayed.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    /// The file is missing or is not a match file.
    #[error(transparent)]
    Read(#[from] RecordError),
    /// No game N in the file.
    #[error("{path}: no game {n}: the file holds games 1 to {games}", path = .path.display())]
    NoGame {
        /// The file.
        path: PathBuf,
        /// As asked.
        n: usize,
        /// Games in the file.
        games: usize,
    },
    /// The game was written without its moves.
    #[error(
        "{path}: game {n} has no moves recorded (written by a build before match files kept moves, or by \
         `master experiment`); `loa match --out` writes them",
        path = .path.display()
    )]
    NoMoves {
        /// The file.
        path: PathBuf,
        /// The game.
        n: usize,
    },
    /// The recorded start is not position text.
    #[error("{path}: game {n}'s start `{text}`: {source}", path = .path.display())]
    Start {
        /// The file.
        path: PathBuf,
        /// The game.
        n: usize,
        /// The start as recorded.
        text: String,
        /// Why it does not parse.
        source: PositionError,
    },
    /// A recorded move is refused where it is played.
    #[error("{path}: game {n}: {source}", path = .path.display())]
    Move {
        /// The file.
        path: PathBuf,
        /// The game.
        n: usize,
        /// The move, its place and the position (boxed: a position is large beside the rest).
        source: Box<ApplyError>,
    },
    /// `--ply` past the game's end.
    #[error("--ply {ply}: game {n} has {plies} plies")]
    Ply {
        /// As asked.
        ply: usize,
        /// The game.
        n: usize,
        /// Its plies.
        plies: usize,
    },
}

/// Game `n` (from 1, in file order) of the match file at `path`, with the ply cap its series
/// was played under (the summary line's; the default if the file has none).
pub fn read_game(path: &Path, n: usize) -> Result<(MatchGameRecord, Rules), ReplayError> {
    let lines = jsonl::read::<MatchLine>(path)?.records;
    let mut rules = Rules::default();
    let mut games = Vec::new();
    for line in lines {
        match line {
            MatchLine::Game(game) => games.push(game),
            MatchLine::Summary(summary) => rules.ply_cap = summary.ply_cap,
        }
    }
    let count = games.len();
    let game = n.checked_sub(1).and_then(|i| games.into_iter().nth(i));
    let game = game.ok_or_else(|| ReplayError::NoGame { path: path.to_path_buf(), n, games: count })?;
    if game.moves.is_empty() && game.plies > 0 {
        return Err(ReplayError::NoMoves { path: path.to_path_buf(), n });
    }
    Ok((game, rules))
}

/// The positions of game `n` of `path`: the start, then the one after each move, every move
/// checked as `loa apply` checks it.
pub fn replay(path: &Path, n: usize) -> Result<(MatchGameRecord, Vec<Position>), ReplayError> {
    let (game, rules) = read_game(path, n)?;
    let start: Position = game.start.parse().map_err(|source| ReplayError::Start {
        path: path.to_path_buf(),
        n,
        text: game.start.clone(),
        source,
    })?;
    let mut positions = vec![start];
    for (i, text) in game.moves.iter().enumerate() {
        let before = positions[i];
        let after = apply_moves(before, std::slice::from_ref(text), &rules).map_err(|mut source| {
            source.index = i + 1;
            ReplayError::Move { path: path.to_path_buf(), n, source: Box::new(source) }
        })?;
        positions.push(after);
    }
    Ok((game, positions))
}

fn outcome(o: records::Outcome) -> String {
    match o {
        records::Outcome::Win(records::Color::Black) => "Black wins".into(),
        records::Outcome::Win(records::Color::White) => "White wins".into(),
        records::Outcome::Draw => "draw".into(),
    }
}

/// What `loa replay` prints: the players and the start, then each ply's move and the position
/// after it, then the result as recorded.
pub fn replay_text(game: &MatchGameRecord, positions: &[Position]) -> String {
    let mut out = format!("black: {}\nwhite: {}\nstart: {}\n", game.black, game.white, game.start);
    for (i, (mv, pos)) in game.moves.iter().zip(&positions[1..]).enumerate() {
        let _ = writeln!(out, "{:>3}. {mv:<6} {pos}", i + 1);
    }
    let reason = match game.reason {
        records::EndReason::Connected => "connected",
        records::EndReason::BothConnected => "both connected",
        records::EndReason::NoMoves => "no moves",
        records::EndReason::PlyCap => "ply cap",
    };
    let _ = writeln!(out, "result: {} ({reason}) after {} plies", outcome(game.outcome), game.plies);
    out
}
