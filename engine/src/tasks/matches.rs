//! Match tasks: a set of entrants (networks, or fixed players such as ALoA or
//! the random heuristic) and a format (a list of two-game matches between given pairs, or a
//! knockout bracket over all entrants). Every other kind of work the master needs (benchmarks,
//! round robins, K random opponents, curricula, ES perturbations) is built from this one unit,
//! so the wire and the worker never change when the master's experiments do.
//!
//! The task is the whole description of the games: the same task played anywhere gives the same
//! [`MatchTaskOutcome`].

use super::{GameSummary, MatchSummary, TaskError, check_depth};
use crate::aloa::{Aloa, AloaKind};
use crate::game::{Player, play_match};
use crate::network::{Chromosome, Encoding, Network, random_uniform};
use crate::openings::{max_opening_plies, random_opening_from};
use crate::players::{AloaPlayer, PlayerDebug, RandomPlayer, RememberingPlayer, ShapedPlayer, network_plays_on};
use crate::random::derive_seed;
use crate::{BoardSize, Position, Rules, Start};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// Most entrants in one task: bounds a task's size on the wire (16 default networks are about
/// 131 KB, so a lease of the master's 64 largest tasks, about 9 MB with their pairings, stays
/// under its 16 MiB reply limit) and a knockout's bracket (four rounds).
pub const MAX_ENTRANTS: usize = 16;

/// Most matches in one [`MatchFormat::Pairs`] task: bounds a task's duration and its outcome's
/// size (a match summary is about 30 bytes on the wire). A full round robin of 16 entrants is
/// 120 matches, and of 16 entrants with colours swapped 240, so both fit.
pub const MAX_MATCHES: usize = 256;

/// Most random plies before a pairing's match starts on any board: [`random_opening_from`]
/// retries seeds until the opening is a running game, which is quick only well below a random
/// game's length. Smaller boards allow fewer ([`max_opening_plies`]).
pub const MAX_OPENING_PLIES: u32 = max_opening_plies(BoardSize::STANDARD);

/// The label that derives a pairing's opening seed from its match seed. It is the label
/// `loa series` uses for its openings (`cli/src/series.rs`), so a series and a task with the
/// same seed start from the same position; it differs from the game labels 0 and 1.
pub const OPENING_SEED_LABEL: u64 = 0x0B3;

/// A player that is not evolved: the reference and baseline opponents of docs/spec.md §4.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum FixedPlayer {
    /// ALoA (`aloa:DEPTH`) with the given evaluator.
    Aloa {
        /// Quad (the thesis's reference) or normal evaluator.
        evaluator: AloaKind,
        /// Search depth.
        depth: u32,
    },
    /// The random heuristic (`random:DEPTH:SALT`): leaf values keyed by the game seed and `salt`.
    Random {
        /// Search depth.
        depth: u32,
        /// Mixed into the game seed; 0 is the benchmark's random reference.
        salt: u64,
    },
    /// A RandomANN (`randomann:DEPTH:SEED`): a network with the weights
    /// [`random_uniform`]`(seed)`, which the worker draws itself (so they never travel).
    RandomAnn {
        /// Search depth.
        depth: u32,
        /// Seeds the weights.
        seed: u64,
    },
    /// A RandomANN that reads the board with the thesis's printed encoding
    /// ([`Encoding::Printed`]: opponent pieces as empty squares), for experiment E7.
    RandomAnnPrinted {
        /// Search depth.
        depth: u32,
        /// Seeds the weights, as for [`FixedPlayer::RandomAnn`].
        seed: u64,
    },
}

impl FixedPlayer {
    /// The player's search depth.
    pub fn depth(&self) -> u32 {
        match *self {
            FixedPlayer::Aloa { depth, .. }
            | FixedPlayer::Random { depth, .. }
            | FixedPlayer::RandomAnn { depth, .. }
            | FixedPlayer::RandomAnnPrinted { depth, .. } => depth,
        }
    }

    /// Whether the player plays on `size`: ALoA and the random heuristic play every board, a
    /// RandomANN the board of the thesis's network.
    pub fn plays_on(&self, size: BoardSize) -> Result<(), crate::players::NetworkBoardError> {
        match self {
            FixedPlayer::Aloa { .. } | FixedPlayer::Random { .. } => Ok(()),
            FixedPlayer::RandomAnn { .. } | FixedPlayer::RandomAnnPrinted { .. } => {
                network_plays_on(crate::network::Topology::THESIS, size)
            }
        }
    }

    /// The player it is: what a task plays, and what `loa` builds from its spec.
    pub fn player(&self) -> Box<dyn PlayerDebug> {
        match *self {
            FixedPlayer::Aloa { evaluator, depth } => Box::new(AloaPlayer { eval: Aloa::new(evaluator), depth }),
            FixedPlayer::Random { depth, salt } => Box::new(RandomPlayer { depth, salt }),
            FixedPlayer::RandomAnn { depth, seed } => {
                Box::new(RememberingPlayer::new(Arc::new(Network::new(&random_uniform(seed))), depth))
            }
            FixedPlayer::RandomAnnPrinted { depth, seed } => Box::new(RememberingPlayer::new(
                Arc::new(Network::with_encoding(&random_uniform(seed), Encoding::Printed)),
                depth,
            )),
        }
    }
}

/// The player's spec, as `loa` and experiments name it (`aloa:3`, `random:2:7`): the form the
/// wire carries, which parses back to the same player.
impl std::fmt::Display for FixedPlayer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            FixedPlayer::Aloa { evaluator: AloaKind::Quad, depth } => write!(f, "aloa:{depth}"),
            FixedPlayer::Aloa { evaluator: AloaKind::Normal, depth } => write!(f, "aloa-normal:{depth}"),
            FixedPlayer::Random { depth, salt } => write!(f, "random:{depth}:{salt}"),
            FixedPlayer::RandomAnn { depth, seed } => write!(f, "randomann:{depth}:{seed}"),
            FixedPlayer::RandomAnnPrinted { depth, seed } => write!(f, "randomann-printed:{depth}:{seed}"),
        }
    }
}

/// One participant of a match task. Every entrant has a serial: a network's birth serial, or a
/// number the master gives a fixed player. Serials are distinct within a task; a knockout uses
/// them to decide who is A (the lower serial), and records use them to name entrants.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum MatchEntrant {
    /// An evolved network, searching [`MatchTask::network_depth`] plies.
    Network {
        /// Birth serial.
        serial: u64,
        /// The weights.
        chromosome: Arc<Chromosome>,
    },
    /// A fixed player.
    Fixed {
        /// The serial the master gave it.
        serial: u64,
        /// Which player.
        player: FixedPlayer,
    },
}

impl MatchEntrant {
    /// The entrant's serial.
    pub fn serial(&self) -> u64 {
        match self {
            MatchEntrant::Network { serial, .. } | MatchEntrant::Fixed { serial, .. } => *serial,
        }
    }

    /// The weights this entrant sends over the wire (0 for a fixed player).
    pub fn weight_count(&self) -> usize {
        match self {
            MatchEntrant::Network { chromosome, .. } => chromosome.weights().len(),
            MatchEntrant::Fixed { .. } => 0,
        }
    }
}

/// A two-game match between entrants `a` and `b` (indices into [`MatchTask::entrants`]): `a` is A,
/// Black in game 0 and White in game 1, and wins a match the criteria leave undecided (docs/spec.md §5).
/// Game `g` has seed `derive_seed(seed, g)`, exactly as [`play_match`] seeds it. A is whoever the
/// pairing names, whatever the serials (a benchmark's network is A against an older reference),
/// so the master decides who gets the criteria's default.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pairing {
    /// A's entrant index.
    pub a: usize,
    /// B's entrant index.
    pub b: usize,
    /// The match seed.
    pub seed: u64,
    /// Both games start from [`random_opening_from`]`(start, opening_plies, derive_seed(seed,`
    /// [`OPENING_SEED_LABEL`]`), rules)`, `start` being the task's start position; 0 is the
    /// start position itself. At most [`max_opening_plies`] of the task's board.
    pub opening_plies: u32,
}

/// Which matches a task plays.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
// Externally tagged (`{"pairs": [...]}`): serde cannot tag a list internally.
#[serde(rename_all = "kebab-case")]
pub enum MatchFormat {
    /// The given matches, independent of each other, played in order (1 to [`MAX_MATCHES`]).
    Pairs(Vec<Pairing>),
    /// A knockout bracket over all entrants (a power of two, 2 to [`MAX_ENTRANTS`]): round 1
    /// pairs the entrants sorted by serial (the lowest two meet, the next two meet, ...), each
    /// later round pairs the winners of consecutive matches of the round before, and the last
    /// match's winner wins. A is always the lower serial of the two; every match starts from the
    /// task's start position; match `k` (0-based, counted across rounds in play order) has seed
    /// `derive_seed(seed, k)`. For four entrants this is the thesis's tournament, exactly
    /// the tournament of the thesis.
    Knockout {
        /// The tournament seed.
        seed: u64,
    },
}

/// The general unit of work: entrants and the matches they play.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MatchTask {
    /// The entrants (2 to [`MAX_ENTRANTS`], distinct serials), in any order: outcomes name them
    /// by index.
    pub entrants: Vec<MatchEntrant>,
    /// The search depth of every [`MatchEntrant::Network`] (fixed players carry their own).
    pub network_depth: u32,
    /// The rules of every game.
    pub rules: Rules,
    /// The board every game is played on; every network entrant's shape reads it. Left out of
    /// the serialised form when it is the standard 8×8.
    #[serde(default, skip_serializing_if = "is_standard_board")]
    pub board: BoardSize,
    /// The position every game starts from (before a pairing's random opening). Left out of
    /// the serialised form when it is the usual start.
    #[serde(default, skip_serializing_if = "is_usual_start")]
    pub start: Start,
    /// The matches.
    pub format: MatchFormat,
}

fn is_standard_board(board: &BoardSize) -> bool {
    board.is_standard()
}

fn is_usual_start(start: &Start) -> bool {
    *start == Start::Standard
}

/// The result of a [`MatchTask`]: every match, in play order (a pairs task's in the order of its
/// pairings; a knockout's round by round).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MatchTaskOutcome {
    /// The matches; each names its entrants by index.
    pub matches: Vec<MatchSummary>,
}

impl MatchTaskOutcome {
    /// The entrant index of the last match's winner: a knockout's winner. `None` without matches
    /// (which a played task never has).
    pub fn winner(&self) -> Option<usize> {
        self.matches.last().map(MatchSummary::winner_index)
    }

    /// Games played: two per match.
    pub fn game_count(&self) -> u32 {
        // At most MAX_MATCHES matches in a valid outcome, so this cannot overflow in practice;
        // saturating keeps a hand-made outcome from panicking in debug builds.
        u32::try_from(self.matches.len()).unwrap_or(u32::MAX).saturating_mul(2)
    }

    /// Plies played over all games.
    pub fn plies(&self) -> u32 {
        self.matches.iter().flat_map(|m| m.games.iter()).fold(0u32, |sum, g| sum.saturating_add(g.plies))
    }
}

/// Protobuf overhead bounds used by [`MatchTask::wire_size_bound`]: a tag byte, a varint of at
/// most 10 bytes, a length prefix of at most 5 bytes.
const VARINT_FIELD: usize = 1 + 10;
const MESSAGE_HEADER: usize = 1 + 5;

impl MatchTask {
    /// Network weights the task carries: what dominates its size on the wire.
    pub fn weight_count(&self) -> usize {
        self.entrants.iter().map(MatchEntrant::weight_count).sum()
    }

    /// An upper bound on the task's encoded size in bytes (protobuf, `loa.proto`'s `Task` with its
    /// id), so a master can cap the bytes of a lease as well as its task count. Weights are packed
    /// 4-byte floats; every other field is counted at its largest encoding, and a topology name
    /// at 64 bytes (today's is 20).
    pub fn wire_size_bound(&self) -> usize {
        let entrant = |e: &MatchEntrant| {
            let body = match e {
                MatchEntrant::Network { chromosome, .. } => {
                    VARINT_FIELD + (MESSAGE_HEADER + 64) + MESSAGE_HEADER + 4 * chromosome.weights().len()
                }
                MatchEntrant::Fixed { .. } => 3 * VARINT_FIELD + VARINT_FIELD,
            };
            // The MatchEntrant wrapper and the oneof's inner message.
            2 * MESSAGE_HEADER + body
        };
        let pairings = match &self.format {
            MatchFormat::Pairs(pairs) => pairs.len() * (MESSAGE_HEADER + 4 * VARINT_FIELD),
            MatchFormat::Knockout { .. } => VARINT_FIELD,
        };
        // Task (id, wrapper), MatchTask wrapper, depth, rules (3 fields), board and start, format
        // wrappers.
        let fixed =
            VARINT_FIELD + 2 * MESSAGE_HEADER + VARINT_FIELD + MESSAGE_HEADER + 3 * VARINT_FIELD + 2 * VARINT_FIELD;
        fixed + 2 * MESSAGE_HEADER + pairings + self.entrants.iter().map(entrant).sum::<usize>()
    }

    /// Plays the task (see [`play_match_task`]).
    pub fn run(&self) -> Result<MatchTaskOutcome, TaskError> {
        play_match_task(self)
    }

    /// The chromosomes of the task's networks, in the order they travel on the wire (entrants in
    /// order; fixed players have none).
    pub fn chromosomes(&self) -> impl Iterator<Item = &Arc<Chromosome>> {
        self.entrants.iter().filter_map(|e| match e {
            MatchEntrant::Network { chromosome, .. } => Some(chromosome),
            MatchEntrant::Fixed { .. } => None,
        })
    }

    /// The position every game of the task starts from, before a pairing's random opening.
    pub fn start_position(&self) -> Result<Position, TaskError> {
        self.start.position(self.board).map_err(TaskError::Start)
    }

    /// Checks everything [`play_match_task`] needs: entrant count, distinct serials, depths, the
    /// board (its start, and every entrant plays on it), and the format (pairing count, indices,
    /// openings; a knockout's power of two).
    pub fn validate(&self) -> Result<(), TaskError> {
        let n = self.entrants.len();
        if !(2..=MAX_ENTRANTS).contains(&n) {
            return Err(TaskError::MatchEntrants(n));
        }
        check_depth(self.network_depth)?;
        self.start_position()?;
        for (i, e) in self.entrants.iter().enumerate() {
            let board = match e {
                MatchEntrant::Network { chromosome, .. } => network_plays_on(chromosome.topology(), self.board),
                MatchEntrant::Fixed { player, .. } => player.plays_on(self.board),
            };
            board.map_err(|error| TaskError::Board { entrant: i, error })?;
            if let MatchEntrant::Fixed { player, .. } = e {
                let depth = player.depth();
                if check_depth(depth).is_err() {
                    return Err(TaskError::FixedDepth { entrant: i, depth });
                }
            }
            if self.entrants[..i].iter().any(|o| o.serial() == e.serial()) {
                return Err(TaskError::DuplicateSerial(e.serial()));
            }
        }
        match &self.format {
            MatchFormat::Pairs(pairs) => {
                if pairs.is_empty() || pairs.len() > MAX_MATCHES {
                    return Err(TaskError::MatchCount(pairs.len()));
                }
                for (pairing, p) in pairs.iter().enumerate() {
                    for entrant in [p.a, p.b] {
                        if entrant >= n {
                            return Err(TaskError::NoSuchEntrant { pairing, entrant, entrants: n });
                        }
                    }
                    if p.a == p.b {
                        return Err(TaskError::SelfPairing { pairing, entrant: p.a });
                    }
                    let most = max_opening_plies(self.board);
                    if p.opening_plies > most {
                        return Err(TaskError::OpeningPlies { pairing, plies: p.opening_plies, most });
                    }
                }
            }
            MatchFormat::Knockout { .. } => {
                if !n.is_power_of_two() {
                    return Err(TaskError::KnockoutSize(n));
                }
            }
        }
        Ok(())
    }
}

/// Why an outcome does not belong to a task (see [`MatchTask::check_outcome`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutcomeMismatch {
    /// The outcome has the wrong number of matches.
    MatchCount {
        /// The task's match count.
        expected: usize,
        /// The outcome's.
        got: usize,
    },
    /// Match `index` is not between the entrants the task pairs there.
    Pairing {
        /// The match's index in play order.
        index: usize,
        /// The task's A and B.
        expected: (usize, usize),
        /// The outcome's.
        got: (usize, usize),
    },
    /// The outcome is of another kind of task (games for matches, or matches for games).
    Kind,
    /// A self-play outcome has the wrong number of games.
    GameCount {
        /// The task's game count.
        expected: usize,
        /// The outcome's.
        got: usize,
    },
    /// A self-play game is not a legal game from its opening, or does not end as it says.
    Game {
        /// The game's index.
        game: usize,
        /// The ply at which it goes wrong.
        ply: u32,
    },
}

impl std::fmt::Display for OutcomeMismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OutcomeMismatch::MatchCount { expected, got } => {
                write!(f, "the task plays {expected} matches, the outcome has {got}")
            }
            OutcomeMismatch::Pairing { index, expected, got } => write!(
                f,
                "match {index} is between entrants {} and {}, not {} and {}",
                expected.0, expected.1, got.0, got.1
            ),
            OutcomeMismatch::Kind => write!(f, "the outcome is of another kind of task"),
            OutcomeMismatch::GameCount { expected, got } => {
                write!(f, "the task plays {expected} games, the outcome has {got}")
            }
            OutcomeMismatch::Game { game, ply } => write!(
                f,
                "game {game} is not a legal game from its opening ending as it says, its variations within the \
                 depth (ply {ply})"
            ),
        }
    }
}

impl std::error::Error for OutcomeMismatch {}

impl MatchTask {
    /// Checks that `outcome` is shaped like this task's: the right number of matches, each
    /// between the entrants the task pairs there (for a knockout, the bracket the outcome's own
    /// winners make). The wire cannot check this, because the outcome arrives without its task;
    /// the master, which kept the task, can. Game results are not replayed.
    pub fn check_outcome(&self, outcome: &MatchTaskOutcome) -> Result<(), OutcomeMismatch> {
        let got = &outcome.matches;
        let pairs_of = |index: usize, a: usize, b: usize| match got.get(index) {
            Some(m) if (m.a, m.b) == (a, b) => Ok(m.winner_index()),
            Some(m) => Err(OutcomeMismatch::Pairing { index, expected: (a, b), got: (m.a, m.b) }),
            None => Err(OutcomeMismatch::MatchCount { expected: index + 1, got: got.len() }),
        };
        let expected = match &self.format {
            MatchFormat::Pairs(pairs) => {
                for (index, p) in pairs.iter().enumerate() {
                    pairs_of(index, p.a, p.b)?;
                }
                pairs.len()
            }
            MatchFormat::Knockout { .. } => bracket(&self.entrants, pairs_of)?,
        };
        if got.len() == expected { Ok(()) } else { Err(OutcomeMismatch::MatchCount { expected, got: got.len() }) }
    }
}

/// Plays one match of a task.
fn one_match(
    players: &[Box<dyn Player>],
    rules: &Rules,
    number: usize,
    a: usize,
    b: usize,
    start: Position,
    seed: u64,
) -> Result<MatchSummary, TaskError> {
    // Indices were validated; looking them up without indexing keeps a bug here from panicking.
    let missing = |entrant| TaskError::NoSuchEntrant { pairing: number, entrant, entrants: players.len() };
    let pa = players.get(a).ok_or_else(|| missing(a))?;
    let pb = players.get(b).ok_or_else(|| missing(b))?;
    let record = play_match(&**pa, &**pb, rules, start, seed);
    Ok(MatchSummary {
        a,
        b,
        winner: record.winner,
        criterion: record.criterion,
        games: [GameSummary::from(&record.games[0]), GameSummary::from(&record.games[1])],
    })
}

/// Plays a match task after [`MatchTask::validate`]: every match, in play order.
pub fn play_match_task(task: &MatchTask) -> Result<MatchTaskOutcome, TaskError> {
    play_match_task_with(task, |_| None)
}

/// [`play_match_task`], but entrant `i` is played by `stand_in(i)` where that gives a player:
/// how the master plays a task with an external engine itself, the engine's entrant in the task
/// only holding its place (a task names no program, so none reaches a worker).
pub fn play_match_task_with(
    task: &MatchTask,
    mut stand_in: impl FnMut(usize) -> Option<Box<dyn Player>>,
) -> Result<MatchTaskOutcome, TaskError> {
    task.validate()?;
    let start = task.start_position()?;
    // One evaluator per entrant for the whole task (a network's weights are laid out once).
    let players: Vec<Box<dyn Player>> = task
        .entrants
        .iter()
        .enumerate()
        .map(|(i, e)| -> Box<dyn Player> {
            if let Some(player) = stand_in(i) {
                return player;
            }
            match e {
                MatchEntrant::Network { chromosome, .. } => Box::new(ShapedPlayer::new(chromosome, task.network_depth)),
                MatchEntrant::Fixed { player, .. } => player.player() as Box<dyn Player>,
            }
        })
        .collect();
    let matches = match &task.format {
        MatchFormat::Pairs(pairs) => pairs
            .iter()
            .enumerate()
            .map(|(number, p)| {
                let seed = derive_seed(p.seed, OPENING_SEED_LABEL);
                let opening = random_opening_from(&start, p.opening_plies, seed, &task.rules);
                one_match(&players, &task.rules, number, p.a, p.b, opening, p.seed)
            })
            .collect::<Result<Vec<_>, _>>()?,
        MatchFormat::Knockout { seed } => knockout(task, &players, start, *seed)?,
    };
    Ok(MatchTaskOutcome { matches })
}

/// Walks a knockout bracket over `entrants` (see [`MatchFormat::Knockout`]): calls
/// `play(k, a, b)` for match `k` between A = `a` and B = `b`, which returns the winner's index,
/// and returns the number of matches. Playing a task and checking an outcome share it, so they
/// cannot disagree on the bracket.
fn bracket<E>(
    entrants: &[MatchEntrant],
    mut play: impl FnMut(usize, usize, usize) -> Result<usize, E>,
) -> Result<usize, E> {
    let serial = |i: usize| entrants.get(i).map_or(u64::MAX, MatchEntrant::serial);
    // On the stack for every valid task (the master's gRPC threads check each outcome with
    // this); the heap only for an entrant list too long to be valid.
    let mut on_stack = [0usize; MAX_ENTRANTS];
    let mut on_heap = Vec::new();
    let round: &mut [usize] = match on_stack.get_mut(..entrants.len()) {
        Some(round) => round,
        None => {
            on_heap.resize(entrants.len(), 0);
            &mut on_heap
        }
    };
    for (i, r) in round.iter_mut().enumerate() {
        *r = i;
    }
    // Stable, as before (and without allocating for so few).
    round.sort_by_key(|&i| serial(i));
    let (mut len, mut k) = (round.len(), 0);
    while len > 1 {
        // A valid knockout has a power of two entrants, so every round pairs them all. Winner
        // `w` goes to place `w`, whose pair (places 2w and 2w + 1) has been read.
        for w in 0..len / 2 {
            let (x, y) = (round[2 * w], round[2 * w + 1]);
            let (a, b) = if serial(x) < serial(y) { (x, y) } else { (y, x) };
            round[w] = play(k, a, b)?;
            k += 1;
        }
        len /= 2;
    }
    Ok(k)
}

/// Plays a knockout bracket (see [`MatchFormat::Knockout`]).
fn knockout(
    task: &MatchTask,
    players: &[Box<dyn Player>],
    start: Position,
    seed: u64,
) -> Result<Vec<MatchSummary>, TaskError> {
    let mut matches = Vec::with_capacity(task.entrants.len().saturating_sub(1));
    bracket(&task.entrants, |k, a, b| {
        let summary = one_match(players, &task.rules, k, a, b, start, derive_seed(seed, k as u64))?;
        matches.push(summary);
        Ok(summary.winner_index())
    })?;
    Ok(matches)
}
