//! The units of work a master hands to workers (docs/spec.md §5), as one [`Task`]: a match task
//! ([`MatchTask`], in `tasks/matches.rs`) of entrants (networks or fixed players) and a format
//! (given pairs, or a knockout bracket), whose matches' results come back; or a self-play task
//! ([`SelfPlayTask`], in `tasks/selfplay.rs`), a network playing itself, whose whole games come
//! back.
//!
//! A task carries everything needed to play it (chromosomes, rules, depths, seeds), so any
//! worker, in-process or remote, computes the same outcome: games are deterministic, and the only
//! randomness (the random heuristic's) comes from the task's seed.

use crate::aloa::AloaKind;
use crate::game::{Criterion, GameRecord, MatchSide};
use crate::network::Chromosome;
use crate::{EndReason, Outcome};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

mod matches;
mod selfplay;

pub use matches::{
    FixedPlayer, MAX_ENTRANTS, MAX_MATCHES, MAX_OPENING_PLIES, MatchEntrant, MatchFormat, MatchTask, MatchTaskOutcome,
    OPENING_SEED_LABEL, OutcomeMismatch, Pairing, play_match_task, play_match_task_with,
};
pub use selfplay::{
    MAX_SELF_PLAY_GAMES, MAX_SELF_PLAY_MOVES, PlayedGame, SelfPlayGame, SelfPlayOutcome, SelfPlayTask, game_over,
};

/// A unit of work: what any worker, embedded or remote, plays.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Task {
    /// Matches between entrants; their results come back.
    Match(MatchTask),
    /// A network against itself; its games come back.
    SelfPlay(SelfPlayTask),
}

/// What a played [`Task`] gives: the outcome of its kind.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum TaskOutcome {
    /// A match task's matches.
    Match(MatchTaskOutcome),
    /// A self-play task's games.
    SelfPlay(SelfPlayOutcome),
}

impl From<MatchTask> for Task {
    fn from(task: MatchTask) -> Task {
        Task::Match(task)
    }
}

impl From<SelfPlayTask> for Task {
    fn from(task: SelfPlayTask) -> Task {
        Task::SelfPlay(task)
    }
}

impl From<MatchTaskOutcome> for TaskOutcome {
    fn from(outcome: MatchTaskOutcome) -> TaskOutcome {
        TaskOutcome::Match(outcome)
    }
}

impl From<SelfPlayOutcome> for TaskOutcome {
    fn from(outcome: SelfPlayOutcome) -> TaskOutcome {
        TaskOutcome::SelfPlay(outcome)
    }
}

impl Task {
    /// Plays the task.
    pub fn run(&self) -> Result<TaskOutcome, TaskError> {
        match self {
            Task::Match(t) => t.run().map(TaskOutcome::Match),
            Task::SelfPlay(t) => t.run().map(TaskOutcome::SelfPlay),
        }
    }

    /// Checks everything playing the task needs.
    pub fn validate(&self) -> Result<(), TaskError> {
        match self {
            Task::Match(t) => t.validate(),
            Task::SelfPlay(t) => t.validate(),
        }
    }

    /// Checks that `outcome` is of this task's kind and shape (see [`MatchTask::check_outcome`]
    /// and [`SelfPlayTask::check_outcome`]).
    pub fn check_outcome(&self, outcome: &TaskOutcome) -> Result<(), OutcomeMismatch> {
        match (self, outcome) {
            (Task::Match(t), TaskOutcome::Match(o)) => t.check_outcome(o),
            (Task::SelfPlay(t), TaskOutcome::SelfPlay(o)) => t.check_outcome(o),
            _ => Err(OutcomeMismatch::Kind),
        }
    }

    /// Network weights the task carries: what dominates its size on the wire.
    pub fn weight_count(&self) -> usize {
        match self {
            Task::Match(t) => t.weight_count(),
            Task::SelfPlay(t) => t.network.weights().len(),
        }
    }

    /// The chromosomes of the task's networks, in the order they travel on the wire.
    pub fn chromosomes(&self) -> Box<dyn Iterator<Item = &Arc<Chromosome>> + '_> {
        match self {
            Task::Match(t) => Box::new(t.chromosomes()),
            Task::SelfPlay(t) => Box::new(std::iter::once(&t.network)),
        }
    }

    /// The match task, if it is one.
    pub fn as_match(&self) -> Option<&MatchTask> {
        match self {
            Task::Match(t) => Some(t),
            Task::SelfPlay(_) => None,
        }
    }
}

impl TaskOutcome {
    /// Games played.
    pub fn game_count(&self) -> u32 {
        match self {
            TaskOutcome::Match(o) => o.game_count(),
            TaskOutcome::SelfPlay(o) => u32::try_from(o.games.len()).unwrap_or(u32::MAX),
        }
    }

    /// Plies played over all games.
    pub fn plies(&self) -> u32 {
        match self {
            TaskOutcome::Match(o) => o.plies(),
            TaskOutcome::SelfPlay(o) => o.plies(),
        }
    }

    /// The match outcome, if it is one.
    pub fn into_match(self) -> Option<MatchTaskOutcome> {
        match self {
            TaskOutcome::Match(o) => Some(o),
            TaskOutcome::SelfPlay(_) => None,
        }
    }

    /// The self-play outcome, if it is one.
    pub fn into_self_play(self) -> Option<SelfPlayOutcome> {
        match self {
            TaskOutcome::SelfPlay(o) => Some(o),
            TaskOutcome::Match(_) => None,
        }
    }
}

/// The reference player of the per-epoch benchmark.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Reference {
    /// ALoA with the given evaluator and depth.
    Aloa {
        /// Quad (the ALoA of the thesis) or normal evaluator.
        evaluator: AloaKind,
        /// Search depth.
        depth: u32,
    },
    /// The random heuristic at the given depth.
    Random {
        /// Search depth.
        depth: u32,
    },
}

/// A game without its moves: what masters record.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameSummary {
    /// Who won, or a draw.
    pub outcome: Outcome,
    /// Why it ended.
    pub reason: EndReason,
    /// Plies played.
    pub plies: u32,
}

impl From<&GameRecord> for GameSummary {
    fn from(g: &GameRecord) -> GameSummary {
        GameSummary { outcome: g.outcome, reason: g.reason, plies: g.plies }
    }
}

/// One match of a tournament.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MatchSummary {
    /// Entrant index of A (the lower serial) and of B.
    pub a: usize,
    /// Entrant index of B.
    pub b: usize,
    /// Who won the match.
    pub winner: MatchSide,
    /// Which criterion decided it.
    pub criterion: Criterion,
    /// Game 0 (A black) and game 1 (B black).
    pub games: [GameSummary; 2],
}

impl MatchSummary {
    /// The entrant index of the match winner.
    pub fn winner_index(&self) -> usize {
        if self.winner == MatchSide::A { self.a } else { self.b }
    }
}

/// The result of a benchmark match.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BenchmarkOutcome {
    /// Game 0 (chromosome black) and game 1 (chromosome white).
    pub games: [GameSummary; 2],
    /// The chromosome's benchmark score in each game (docs/spec.md §6).
    pub scores: [u32; 2],
}

/// Why a task cannot be played.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TaskError {
    /// Two entrants share a birth serial.
    DuplicateSerial(u64),
    /// A depth of 0 or above [`crate::players::MAX_DEPTH`].
    Depth(u32),
    /// A match task's entrant count is outside 2..=[`MAX_ENTRANTS`].
    MatchEntrants(usize),
    /// A knockout's entrant count is not a power of two.
    KnockoutSize(usize),
    /// A pairs task's match count is outside 1..=[`MAX_MATCHES`].
    MatchCount(usize),
    /// A fixed player's depth is 0 or above [`crate::players::MAX_DEPTH`].
    FixedDepth {
        /// The entrant's index.
        entrant: usize,
        /// Its depth.
        depth: u32,
    },
    /// A pairing names an entrant index the task does not have.
    NoSuchEntrant {
        /// The pairing's index.
        pairing: usize,
        /// The index it names.
        entrant: usize,
        /// How many entrants the task has.
        entrants: usize,
    },
    /// A pairing pits an entrant against itself.
    SelfPairing {
        /// The pairing's index.
        pairing: usize,
        /// The entrant.
        entrant: usize,
    },
    /// A pairing's opening is longer than the task's board allows
    /// ([`crate::openings::max_opening_plies`]).
    OpeningPlies {
        /// The pairing's index.
        pairing: usize,
        /// The plies it asks for.
        plies: u32,
        /// The most the board allows.
        most: u32,
    },
    /// The task's start position does not exist on its board.
    Start(crate::StartError),
    /// An entrant does not play on the task's board (a network of another board's shape).
    Board {
        /// The entrant's index.
        entrant: usize,
        /// Which shape and board.
        error: crate::players::NetworkBoardError,
    },
    /// A self-play task's game count is outside 1..=[`MAX_SELF_PLAY_GAMES`].
    GameCount(usize),
    /// A self-play game's opening is longer than the task's board allows.
    GameOpeningPlies {
        /// The game's index.
        game: usize,
        /// The plies it asks for.
        plies: u32,
        /// The most the board allows.
        most: u32,
    },
    /// A self-play task without a ply cap: its games' length, and so its outcome's, has no bound.
    Unbounded,
    /// A self-play task whose outcome could hold more than [`MAX_SELF_PLAY_MOVES`] moves.
    TooManyMoves {
        /// Its games × ply cap (× depth, with leaves).
        moves: u64,
    },
}

impl std::fmt::Display for TaskError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TaskError::DuplicateSerial(s) => write!(f, "two entrants share the birth serial {s}"),
            TaskError::Depth(d) => write!(f, "search depth {d} is outside 1..={}", crate::players::MAX_DEPTH),
            TaskError::MatchEntrants(n) => write!(f, "a match task needs 2 to {MAX_ENTRANTS} entrants, got {n}"),
            TaskError::KnockoutSize(n) => write!(f, "a knockout needs a power of two entrants, got {n}"),
            TaskError::MatchCount(n) => write!(f, "a match task plays 1 to {MAX_MATCHES} matches, got {n}"),
            TaskError::FixedDepth { entrant, depth } => {
                write!(f, "entrant {entrant}: search depth {depth} is outside 1..={}", crate::players::MAX_DEPTH)
            }
            TaskError::NoSuchEntrant { pairing, entrant, entrants } => {
                write!(f, "pairing {pairing}: entrant {entrant} does not exist ({entrants} entrants)")
            }
            TaskError::SelfPairing { pairing, entrant } => {
                write!(f, "pairing {pairing}: entrant {entrant} cannot play itself")
            }
            TaskError::OpeningPlies { pairing, plies, most } => {
                write!(f, "pairing {pairing}: {plies} opening plies, at most {most} on this board")
            }
            TaskError::Start(e) => write!(f, "start: {e}"),
            TaskError::Board { entrant, error } => write!(f, "entrant {entrant}: {error}"),
            TaskError::GameCount(n) => write!(f, "a self-play task plays 1 to {MAX_SELF_PLAY_GAMES} games, got {n}"),
            TaskError::GameOpeningPlies { game, plies, most } => {
                write!(f, "game {game}: {plies} opening plies, at most {most} on this board")
            }
            TaskError::Unbounded => write!(f, "a self-play task needs a ply cap, so that its games come back bounded"),
            TaskError::TooManyMoves { moves } => write!(
                f,
                "a self-play task's games could hold {moves} moves (games x ply cap, x depth with leaves), more than \
                 {MAX_SELF_PLAY_MOVES}: give it fewer games"
            ),
        }
    }
}

impl std::error::Error for TaskError {}

/// Why a task has no outcome, as the master learns it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TaskFailure {
    /// The task is invalid (a worker in this process could not play it).
    Invalid(TaskError),
    /// The task reached a worker malformed (it failed the wire's validation there).
    Malformed(String),
    /// A remote worker reported this failure (only its message travels).
    Reported(String),
    /// Playing the task panicked; the panic's message. The worker caught it and lives on.
    Panicked(String),
}

impl std::fmt::Display for TaskFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TaskFailure::Invalid(e) => write!(f, "invalid task: {e}"),
            TaskFailure::Malformed(e) => write!(f, "malformed task: {e}"),
            TaskFailure::Reported(e) => write!(f, "a worker reported: {e}"),
            TaskFailure::Panicked(e) => write!(f, "playing it panicked: {e}"),
        }
    }
}

impl std::error::Error for TaskFailure {}

impl TaskFailure {
    /// The message a worker sends for this failure (a relayed report is not wrapped again).
    pub fn wire_message(&self) -> String {
        match self {
            TaskFailure::Reported(message) => message.clone(),
            other => other.to_string(),
        }
    }
}

impl From<TaskError> for TaskFailure {
    fn from(e: TaskError) -> Self {
        TaskFailure::Invalid(e)
    }
}

/// What a worker returns for a task: its outcome, or why it has none.
pub type TaskResult = Result<TaskOutcome, TaskFailure>;

/// Plays a task with `play`, turning a panic into [`TaskFailure::Panicked`] with its message, so
/// that one bad task costs its outcome and not the thread that played it.
pub fn play_caught(task: &Task, play: impl FnOnce(&Task) -> TaskResult) -> TaskResult {
    // Nothing the closure touches outlives a panic but the task, which playing only reads.
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| play(task)))
        .unwrap_or_else(|payload| Err(TaskFailure::Panicked(panic_message(payload.as_ref()))))
}

/// A panic payload's message: the `&str` or `String` that `panic!` formats, else a placeholder.
fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    match (payload.downcast_ref::<&str>(), payload.downcast_ref::<String>()) {
        (Some(s), _) => (*s).to_owned(),
        (_, Some(s)) => s.clone(),
        _ => "a panic without a message".to_owned(),
    }
}

fn check_depth(depth: u32) -> Result<(), TaskError> {
    if depth == 0 || depth > crate::players::MAX_DEPTH { Err(TaskError::Depth(depth)) } else { Ok(()) }
}
