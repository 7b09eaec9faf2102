//! The thesis's two units of work, played the direct way: a knockout tournament of four and a
//! two-game benchmark match. Workers only play match tasks; these are the independent
//! implementations the match task's knockout and one-pairing formats are checked against.

use loa_engine::aloa::Aloa;
use loa_engine::game::{MatchSide, Player, benchmark_score, color_in_game, play_match};
use loa_engine::network::{Chromosome, Network};
use loa_engine::players::{AloaPlayer, RandomPlayer, RememberingPlayer};
use loa_engine::random::derive_seed;
use loa_engine::tasks::{GameSummary, MatchSummary, Reference};
use loa_engine::{Position, Rules};
use std::sync::Arc;

/// A chromosome with its birth serial.
#[derive(Clone, Debug)]
pub struct Entrant {
    /// Birth serial: lower is older; the older chromosome is A in a match.
    pub serial: u64,
    /// The weights.
    pub chromosome: Arc<Chromosome>,
}

/// A knockout tournament of four (docs/spec.md §5): the two lowest serials meet, the other two meet, the
/// winners meet.
#[derive(Clone, Debug)]
pub struct TournamentTask {
    /// The four entrants, in any order, with distinct serials.
    pub entrants: Vec<Entrant>,
    /// The rules.
    pub rules: Rules,
    /// The network players' search depth.
    pub depth: u32,
    /// Seeds any randomness the games need (none for network players).
    pub seed: u64,
}

/// A tournament's result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TournamentOutcome {
    /// Entrant index of the tournament winner.
    pub winner: usize,
    /// The two semi-finals and the final, in that order.
    pub matches: [MatchSummary; 3],
}

/// A two-game benchmark match of one chromosome against a reference player: the chromosome has
/// Black in game 0 and White in game 1.
#[derive(Clone, Debug)]
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

/// A benchmark match's result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BenchmarkOutcome {
    /// Game 0 (chromosome black) and game 1 (chromosome white).
    pub games: [GameSummary; 2],
    /// The chromosome's benchmark score in each game (docs/spec.md §6).
    pub scores: [u32; 2],
}

/// The summary of the match between `a` (entrant `ia`, A) and `b` (entrant `ib`) from `start`,
/// played directly with the game module.
pub fn direct_match(
    a: &dyn Player,
    b: &dyn Player,
    rules: &Rules,
    start: Position,
    seed: u64,
    ia: usize,
    ib: usize,
) -> MatchSummary {
    let record = play_match(a, b, rules, start, seed);
    MatchSummary {
        a: ia,
        b: ib,
        winner: record.winner,
        criterion: record.criterion,
        games: [GameSummary::from(&record.games[0]), GameSummary::from(&record.games[1])],
    }
}

fn knockout_match(
    players: &[RememberingPlayer<Arc<Network>>],
    a: usize,
    b: usize,
    task: &TournamentTask,
    round: u64,
) -> MatchSummary {
    direct_match(&players[a], &players[b], &task.rules, Position::start(), derive_seed(task.seed, round), a, b)
}

/// Plays a knockout tournament of four entrants with distinct serials.
pub fn play_tournament(task: &TournamentTask) -> TournamentOutcome {
    assert_eq!(task.entrants.len(), 4, "a tournament of four");
    let mut by_serial: Vec<usize> = (0..4).collect();
    by_serial.sort_by_key(|&i| task.entrants[i].serial);
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
    TournamentOutcome { winner: last.winner_index(), matches: [semi1, semi2, last] }
}

/// Plays a benchmark match.
pub fn play_benchmark(task: &BenchmarkTask) -> BenchmarkOutcome {
    let net = RememberingPlayer::new(Arc::new(Network::new(&task.entrant.chromosome)), task.depth);
    let reference: Box<dyn Player> = match task.reference {
        Reference::Aloa { evaluator, depth } => Box::new(AloaPlayer { eval: Aloa::new(evaluator), depth }),
        Reference::Random { depth } => Box::new(RandomPlayer { depth, salt: 0 }),
    };
    let record = play_match(&net, &*reference, &task.rules, Position::start(), task.seed);
    let games = [GameSummary::from(&record.games[0]), GameSummary::from(&record.games[1])];
    let scores = [0, 1].map(|g| benchmark_score(games[g].outcome, games[g].plies, color_in_game(MatchSide::A, g)));
    BenchmarkOutcome { games, scores }
}
