//! The units of work a master hands to workers (SPEC §5): a knockout tournament of four
//! chromosomes, a benchmark match of one chromosome against a reference player, and the generic
//! match task ([`MatchTask`], in `tasks/matches.rs`) that is meant to replace both: entrants
//! (networks or fixed players) and a format (given pairs, or a knockout bracket).
//!
//! A task carries everything needed to play it (chromosomes, rules, depths, seed), so any
//! worker, in-process or remote, computes the same outcome: games are deterministic, and the only
//! randomness (the random heuristic's) comes from the task's seed.

use crate::aloa::{Aloa, AloaKind};
use crate::game::{Criterion, GameRecord, MatchSide, Player, benchmark_score, color_in_game, play_match};
use crate::network::{Chromosome, Network};
use crate::players::{AloaPlayer, RandomPlayer, RememberingPlayer};
use crate::random::derive_seed;
use crate::{EndReason, Outcome, Position, Rules};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

mod matches;

pub use matches::{
    FixedPlayer, MAX_ENTRANTS, MAX_MATCHES, MAX_OPENING_PLIES, MatchEntrant, MatchFormat, MatchTask, MatchTaskOutcome,
    OPENING_SEED_LABEL, OutcomeMismatch, Pairing, play_match_task,
};

/// A chromosome with its birth serial.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Entrant {
    /// Birth serial: lower is older; the older chromosome is A in a match.
    pub serial: u64,
    /// The weights.
    pub chromosome: Arc<Chromosome>,
}

/// A knockout tournament of four (SPEC §5): the two lowest serials meet, the other two meet, the
/// winners meet.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TournamentTask {
    /// The four entrants, in any order.
    pub entrants: Vec<Entrant>,
    /// The rules.
    pub rules: Rules,
    /// The network players' search depth.
    pub depth: u32,
    /// Seeds any randomness the games need (none for network players).
    pub seed: u64,
}

/// The reference player of a benchmark match.
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

/// A two-game benchmark match of one chromosome against a reference player: the chromosome has
/// Black in game 0 and White in game 1.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BenchmarkTask {
    /// The chromosome being measured.
    pub entrant: Entrant,
    /// Its opponent.
    pub reference: Reference,
    /// The network's search depth.
    pub depth: u32,
    /// The rules.
    pub rules: Rules,
    /// Seeds the reference's randomness, if any.
    pub seed: u64,
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

/// The result of a tournament.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TournamentOutcome {
    /// Entrant index of the tournament winner.
    pub winner: usize,
    /// The two semi-finals and the final, in that order.
    pub matches: [MatchSummary; 3],
}

/// The result of a benchmark match.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BenchmarkOutcome {
    /// Game 0 (chromosome black) and game 1 (chromosome white).
    pub games: [GameSummary; 2],
    /// The chromosome's benchmark score in each game (SPEC §5).
    pub scores: [u32; 2],
}

/// Why a task cannot be played.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TaskError {
    /// A tournament needs exactly four entrants.
    EntrantCount(usize),
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
    /// A pairing's opening is longer than [`MAX_OPENING_PLIES`].
    OpeningPlies {
        /// The pairing's index.
        pairing: usize,
        /// The plies it asks for.
        plies: u32,
    },
}

impl std::fmt::Display for TaskError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TaskError::EntrantCount(n) => write!(f, "a tournament needs 4 entrants, got {n}"),
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
            TaskError::OpeningPlies { pairing, plies } => {
                write!(f, "pairing {pairing}: {plies} opening plies, at most {MAX_OPENING_PLIES}")
            }
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
}

impl std::fmt::Display for TaskFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TaskFailure::Invalid(e) => write!(f, "invalid task: {e}"),
            TaskFailure::Malformed(e) => write!(f, "malformed task: {e}"),
            TaskFailure::Reported(e) => write!(f, "a worker reported: {e}"),
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

fn check_depth(depth: u32) -> Result<(), TaskError> {
    if depth == 0 || depth > crate::players::MAX_DEPTH { Err(TaskError::Depth(depth)) } else { Ok(()) }
}

/// Plays a match between entrants `a` and `b` (A must have the lower serial).
fn knockout_match(
    players: &[RememberingPlayer<Arc<Network>>],
    a: usize,
    b: usize,
    task: &TournamentTask,
    round: u64,
) -> MatchSummary {
    let record = play_match(&players[a], &players[b], &task.rules, Position::start(), derive_seed(task.seed, round));
    MatchSummary {
        a,
        b,
        winner: record.winner,
        criterion: record.criterion,
        games: [GameSummary::from(&record.games[0]), GameSummary::from(&record.games[1])],
    }
}

/// Plays a knockout tournament.
pub fn play_tournament(task: &TournamentTask) -> Result<TournamentOutcome, TaskError> {
    if task.entrants.len() != 4 {
        return Err(TaskError::EntrantCount(task.entrants.len()));
    }
    check_depth(task.depth)?;
    let mut by_serial: Vec<usize> = (0..4).collect();
    by_serial.sort_by_key(|&i| task.entrants[i].serial);
    if let Some(w) = by_serial.windows(2).find(|w| task.entrants[w[0]].serial == task.entrants[w[1]].serial) {
        return Err(TaskError::DuplicateSerial(task.entrants[w[0]].serial));
    }
    let players: Vec<_> = task
        .entrants
        .iter()
        .map(|e| RememberingPlayer::new(Arc::new(Network::new(&e.chromosome)), task.depth))
        .collect();
    let semi1 = knockout_match(&players, by_serial[0], by_serial[1], task, 0);
    let semi2 = knockout_match(&players, by_serial[2], by_serial[3], task, 1);
    let (w1, w2) = (semi1.winner_index(), semi2.winner_index());
    let (a, b) = if task.entrants[w1].serial < task.entrants[w2].serial { (w1, w2) } else { (w2, w1) };
    let last = knockout_match(&players, a, b, task, 2);
    Ok(TournamentOutcome { winner: last.winner_index(), matches: [semi1, semi2, last] })
}

/// Plays a benchmark match.
pub fn play_benchmark(task: &BenchmarkTask) -> Result<BenchmarkOutcome, TaskError> {
    check_depth(task.depth)?;
    let net = RememberingPlayer::new(Arc::new(Network::new(&task.entrant.chromosome)), task.depth);
    let reference: Box<dyn Player> = match task.reference {
        Reference::Aloa { evaluator, depth } => {
            check_depth(depth)?;
            Box::new(AloaPlayer { eval: Aloa::new(evaluator), depth })
        }
        Reference::Random { depth } => {
            check_depth(depth)?;
            Box::new(RandomPlayer { depth, salt: 0 })
        }
    };
    let record = play_match(&net, &*reference, &task.rules, Position::start(), task.seed);
    let games = [GameSummary::from(&record.games[0]), GameSummary::from(&record.games[1])];
    let scores = [0, 1].map(|g| benchmark_score(games[g].outcome, games[g].plies, color_in_game(MatchSide::A, g)));
    Ok(BenchmarkOutcome { games, scores })
}

/// Any unit of work.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Task {
    /// A knockout tournament of four.
    Tournament(TournamentTask),
    /// A benchmark match against a reference player.
    Benchmark(BenchmarkTask),
    /// A generic match task: pairs or a knockout over networks and fixed players.
    Match(MatchTask),
}

/// The outcome of a [`Task`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum TaskOutcome {
    /// A tournament's outcome.
    Tournament(TournamentOutcome),
    /// A benchmark match's outcome.
    Benchmark(BenchmarkOutcome),
    /// A match task's outcome.
    Match(MatchTaskOutcome),
}

impl Task {
    /// Plays the task.
    pub fn run(&self) -> Result<TaskOutcome, TaskError> {
        match self {
            Task::Tournament(t) => play_tournament(t).map(TaskOutcome::Tournament),
            Task::Benchmark(b) => play_benchmark(b).map(TaskOutcome::Benchmark),
            Task::Match(m) => play_match_task(m).map(TaskOutcome::Match),
        }
    }

    /// The chromosomes of the task's networks, in the order they travel on the wire (entrants in
    /// order; fixed players have none).
    pub fn chromosomes(&self) -> Vec<&Arc<Chromosome>> {
        match self {
            Task::Tournament(t) => t.entrants.iter().map(|e| &e.chromosome).collect(),
            Task::Benchmark(b) => vec![&b.entrant.chromosome],
            Task::Match(m) => m
                .entrants
                .iter()
                .filter_map(|e| match e {
                    MatchEntrant::Network { chromosome, .. } => Some(chromosome),
                    MatchEntrant::Fixed { .. } => None,
                })
                .collect(),
        }
    }

    /// Network weights the task carries, which dominate its size on the wire (see also
    /// [`MatchTask::wire_size_bound`]).
    pub fn weight_count(&self) -> usize {
        match self {
            Task::Tournament(t) => t.entrants.iter().map(|e| e.chromosome.weights().len()).sum(),
            Task::Benchmark(b) => b.entrant.chromosome.weights().len(),
            Task::Match(m) => m.weight_count(),
        }
    }
}

impl TaskOutcome {
    /// Games the task played (a knockout of four plays three two-game matches, a match task two
    /// per match).
    pub fn game_count(&self) -> u32 {
        match self {
            TaskOutcome::Tournament(t) => 2 * t.matches.len() as u32,
            TaskOutcome::Benchmark(b) => b.games.len() as u32,
            TaskOutcome::Match(m) => m.game_count(),
        }
    }

    /// Plies played over all the task's games.
    pub fn plies(&self) -> u32 {
        match self {
            TaskOutcome::Tournament(t) => t.matches.iter().flat_map(|m| m.games.iter()).map(|g| g.plies).sum(),
            TaskOutcome::Benchmark(b) => b.games.iter().map(|g| g.plies).sum(),
            TaskOutcome::Match(m) => m.plies(),
        }
    }
}
