//! Conversions between the wire messages and the engine's task types. Going out cannot fail;
//! coming in checks every field a buggy or hostile peer could get wrong and names it: the task
//! as a whole by the engine's own [`MatchTask::validate`](loa_engine::tasks::MatchTask::validate)
//! (so wire and engine agree on what a valid task is), the rest here and in `matches` (tasks,
//! outcomes) and `origin` (origins, sources). An outcome travels without its task: the master
//! checks it against the task.

use crate::ProtoError;
use crate::limits::MAX_FAILURE_BYTES;
use crate::pb;
use loa_engine::game::{Criterion, MatchSide};
use loa_engine::network::{Chromosome, ChromosomeId, Topology, little_endian_bytes};
use loa_engine::tasks::{GameSummary, MatchSummary, TaskFailure, TaskOutcome, TaskResult};
use loa_engine::{BothConnected, Color, EndReason, NoMoves, Outcome, Rules, Start};
use std::sync::Arc;

mod matches;
mod origin;
mod selfplay;

pub use matches::{task_from_proto, task_to_proto};
pub use origin::{
    MAX_PEER_ADDRESS, MAX_SOURCES, check_peer_address, origin_from_proto, origin_to_proto, source_to_proto,
    sources_from_proto,
};

/// The values of an enum in pairs, wire and engine: one table converts both ways. A wire value
/// without a pair (`UNSPECIFIED`) is refused coming in.
type Table<W, E> = [(W, E)];

const BOTH_CONNECTED: &Table<pb::BothConnected, BothConnected> =
    &[(pb::BothConnected::Draw, BothConnected::Draw), (pb::BothConnected::MoverWins, BothConnected::MoverWins)];
const NO_MOVES: &Table<pb::NoMoves, NoMoves> =
    &[(pb::NoMoves::Loses, NoMoves::Loses), (pb::NoMoves::Passes, NoMoves::Passes)];
const STARTS: &Table<pb::Start, Start> =
    &[(pb::Start::Standard, Start::Standard), (pb::Start::ScrambledEggs, Start::ScrambledEggs)];
const OUTCOMES: &Table<pb::GameOutcome, Outcome> = &[
    (pb::GameOutcome::BlackWins, Outcome::Win(Color::Black)),
    (pb::GameOutcome::WhiteWins, Outcome::Win(Color::White)),
    (pb::GameOutcome::Draw, Outcome::Draw),
];
const REASONS: &Table<pb::EndReason, EndReason> = &[
    (pb::EndReason::Connected, EndReason::Connected),
    (pb::EndReason::BothConnected, EndReason::BothConnected),
    (pb::EndReason::NoMoves, EndReason::NoMoves),
    (pb::EndReason::PlyCap, EndReason::PlyCap),
];
const SIDES: &Table<pb::MatchSide, MatchSide> = &[(pb::MatchSide::A, MatchSide::A), (pb::MatchSide::B, MatchSide::B)];
const CRITERIA: &Table<pb::Criterion, Criterion> = &[
    (pb::Criterion::WonBoth, Criterion::WonBoth),
    (pb::Criterion::WonAndDrew, Criterion::WonAndDrew),
    (pb::Criterion::FasterWin, Criterion::FasterWin),
    (pb::Criterion::DefaultToA, Criterion::DefaultToA),
];

/// The wire value of `value` (every engine value has a pair).
fn to_wire<W: Copy + Into<i32>, E: PartialEq>(table: &Table<W, E>, value: E) -> i32 {
    table.iter().find(|(_, e)| *e == value).map_or(0, |&(w, _)| w.into())
}

/// The engine value of wire value `value`, given as `field`.
fn from_wire<W: TryFrom<i32> + PartialEq, E: Copy>(
    table: &Table<W, E>,
    field: &str,
    value: i32,
) -> Result<E, ProtoError> {
    let wire = W::try_from(value).map_err(|_| ProtoError::new(field, format!("unknown value {value}")))?;
    table.iter().find(|(w, _)| *w == wire).map(|&(_, e)| e).ok_or_else(|| ProtoError::new(field, "unspecified"))
}

// ---- Engine to wire ----

fn rules_to_proto(rules: &Rules) -> pb::Rules {
    pb::Rules {
        both_connected: to_wire(BOTH_CONNECTED, rules.both_connected),
        no_moves: to_wire(NO_MOVES, rules.no_moves),
        ply_cap: rules.ply_cap,
    }
}

/// The wire form of a chromosome's id.
pub fn id_to_proto(id: ChromosomeId) -> pb::ChromosomeId {
    pb::ChromosomeId { high: id.high(), low: id.low() }
}

/// The id on the wire as the engine's.
pub fn id_from_proto(id: &pb::ChromosomeId) -> ChromosomeId {
    ChromosomeId::from_halves(id.high, id.low)
}

/// How a network travels to a receiver, as the sender decides from what it knows the receiver
/// holds (see `docs/protocol.md`).
#[derive(Clone, Debug, PartialEq)]
pub enum Sending {
    /// Its id alone: the receiver holds it.
    Id,
    /// Its id, topology and origin, with sources for the parents the receiver lacks: the receiver
    /// makes it. A network without an origin goes with its weights instead.
    Origin(Vec<pb::Source>),
    /// Its id, with sources to fetch it from.
    Sources(Vec<pb::Source>),
    /// Its id and weights.
    Weights,
}

/// A network entrant on the wire: its id always, and the rest as `decide` says.
fn network_to_proto(
    serial: u64,
    chromosome: &Chromosome,
    decide: &mut dyn FnMut(&Chromosome) -> Sending,
) -> pb::Entrant {
    let mut entrant = pb::Entrant { serial, id: Some(id_to_proto(chromosome.id())), ..pb::Entrant::default() };
    match (decide(chromosome), chromosome.origin()) {
        (Sending::Id, _) => {}
        (Sending::Sources(sources), _) => entrant.sources = sources,
        (Sending::Origin(sources), Some(origin)) => {
            entrant.topology = chromosome.topology().name().to_owned();
            entrant.origin = Some(origin_to_proto(origin));
            entrant.sources = sources;
        }
        (Sending::Origin(_) | Sending::Weights, _) => {
            entrant.topology = chromosome.topology().name().to_owned();
            // One copy of the weights' memory on little-endian machines.
            entrant.weights = little_endian_bytes(chromosome.weights()).into_owned();
        }
    }
    entrant
}

/// A chromosome with its weights, as a [`pb::FetchChromosomesReply`] carries it (serial 0).
pub fn chromosome_to_proto(chromosome: &Chromosome) -> pb::Entrant {
    network_to_proto(0, chromosome, &mut |_| Sending::Weights)
}

/// An entrant index on the wire; one too large becomes `u32::MAX`, which the receiver refuses,
/// rather than wrap to a valid one.
fn index_to_proto(i: usize) -> u32 {
    u32::try_from(i).unwrap_or(u32::MAX)
}

fn game_to_proto(g: &GameSummary) -> pb::GameSummary {
    pb::GameSummary { outcome: to_wire(OUTCOMES, g.outcome), reason: to_wire(REASONS, g.reason), plies: g.plies }
}

fn match_to_proto(m: &MatchSummary) -> pb::MatchSummary {
    pb::MatchSummary {
        a: index_to_proto(m.a),
        b: index_to_proto(m.b),
        winner: to_wire(SIDES, m.winner),
        criterion: to_wire(CRITERIA, m.criterion),
        games: m.games.iter().map(game_to_proto).collect(),
    }
}

/// `message` cut to at most `max` bytes on a character boundary, marked as cut.
fn cut(mut message: String, max: usize) -> String {
    const MARK: &str = "…";
    if message.len() > max {
        let mut end = max - MARK.len();
        while !message.is_char_boundary(end) {
            end -= 1;
        }
        message.truncate(end);
        message.push_str(MARK);
    }
    message
}

/// The wire form of task `task_id`'s result (its outcome, or why it failed), leased under worker
/// id `leased_to` (0: the id of the stream it goes on).
pub fn outcome_to_proto(task_id: u64, result: &TaskResult, leased_to: u64) -> pb::Outcome {
    let result = match result {
        Ok(TaskOutcome::Match(m)) => {
            pb::outcome::Result::Match(pb::MatchOutcome { matches: m.matches.iter().map(match_to_proto).collect() })
        }
        Ok(TaskOutcome::SelfPlay(o)) => pb::outcome::Result::SelfPlay(selfplay::outcome_to_proto(o)),
        Err(failure) => pb::outcome::Result::Failure(cut(failure.wire_message(), MAX_FAILURE_BYTES)),
    };
    pb::Outcome { task_id, result: Some(result), leased_to }
}

/// An upper bound on the bytes `result`'s [`pb::Outcome`] takes inside a message: a worker
/// fills its messages up to the master's request limit with it.
pub fn outcome_size_bound(result: &TaskResult) -> usize {
    // Task id, leased-to, the oneof's header.
    const HEADER: usize = 2 * 11 + 6;
    HEADER
        + match result {
            // Five small varints and two games of three, a match.
            Ok(TaskOutcome::Match(m)) => 6 + 40 * m.matches.len(),
            Ok(TaskOutcome::SelfPlay(o)) => selfplay::outcome_size_bound(o),
            Err(_) => MAX_FAILURE_BYTES,
        }
}

// ---- Wire to engine ----
//
// Fields are named relative to the message converted and callers add the path on error only
// ([`ProtoError::within`]), so a valid message builds no path strings.

fn rules_from_proto(rules: Option<pb::Rules>) -> Result<Rules, ProtoError> {
    let rules = rules.ok_or_else(|| ProtoError::new("rules", "missing"))?;
    Ok(Rules {
        both_connected: from_wire(BOTH_CONNECTED, "rules.both_connected", rules.both_connected)?,
        no_moves: from_wire(NO_MOVES, "rules.no_moves", rules.no_moves)?,
        ply_cap: rules.ply_cap,
    })
}

/// Where a network sent as its id alone finds its chromosome (`&|_| None`: nowhere).
pub type Resolve<'a> = &'a dyn Fn(ChromosomeId) -> Option<Arc<Chromosome>>;

/// A network entrant from the wire: its weights, checked against the id it claims, or its id
/// alone, found by `resolve`. Returns its serial and chromosome.
fn network_from_proto(e: &pb::Entrant, resolve: Resolve<'_>) -> Result<(u64, Arc<Chromosome>), ProtoError> {
    if !e.weights.is_empty() {
        return Ok((e.serial, Arc::new(chromosome_from_proto(e)?)));
    }
    let id = id_from_proto(e.id.as_ref().ok_or_else(|| ProtoError::new("id", "missing"))?);
    let chromosome =
        resolve(id).ok_or_else(|| ProtoError::new("id", format!("chromosome {id} is neither sent nor known here")))?;
    if !e.topology.is_empty() && e.topology != chromosome.topology().name() {
        let problem = format!("{:?}, but chromosome {id} is a {}", e.topology, chromosome.topology());
        return Err(ProtoError::new("topology", problem));
    }
    Ok((e.serial, chromosome))
}

/// A chromosome sent with its weights: validated, and hashing to the id it claims.
pub fn chromosome_from_proto(e: &pb::Entrant) -> Result<Chromosome, ProtoError> {
    let topology = Topology::from_name(&e.topology)
        .ok_or_else(|| ProtoError::new("topology", format!("unknown topology {:?}", e.topology)))?;
    let claimed = id_from_proto(e.id.as_ref().ok_or_else(|| ProtoError::new("id", "missing"))?);
    let n = e.weights.len();
    if !n.is_multiple_of(4) {
        return Err(ProtoError::new("weights", format!("{n} bytes, not 4 per weight")));
    }
    let expected = topology.weight_count();
    if n / 4 != expected {
        return Err(ProtoError::new("weights", format!("{} weights, but {topology} has {expected}", n / 4)));
    }
    let weights: Vec<f32> = e.weights.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
    if let Some((index, value)) = weights.iter().enumerate().find(|(_, w)| !w.is_finite()) {
        return Err(ProtoError::new(format!("weights[{index}]"), format!("{value} is not finite")));
    }
    // Chromosome::new adds the magnitude bound.
    let chromosome = Chromosome::new(topology, weights).map_err(|err| ProtoError::new("weights", err.to_string()))?;
    if chromosome.id() != claimed {
        let problem = format!("the weights hash to {}, not to the id {claimed} sent with them", chromosome.id());
        return Err(ProtoError::new("id", problem));
    }
    Ok(chromosome)
}

/// An entrant index below `entrants`.
fn index(field: &str, value: u32, entrants: usize) -> Result<usize, ProtoError> {
    let i = value as usize;
    (i < entrants)
        .then_some(i)
        .ok_or_else(|| ProtoError::new(field, format!("entrant index {i} is not below {entrants}")))
}

fn game_from_proto(g: &pb::GameSummary) -> Result<GameSummary, ProtoError> {
    Ok(GameSummary {
        outcome: from_wire(OUTCOMES, "outcome", g.outcome)?,
        reason: from_wire(REASONS, "reason", g.reason)?,
        plies: g.plies,
    })
}

/// A match between entrant indices below `entrants`.
fn match_from_proto(m: &pb::MatchSummary, entrants: usize) -> Result<MatchSummary, ProtoError> {
    let a = index("a", m.a, entrants)?;
    let b = index("b", m.b, entrants)?;
    if a == b {
        return Err(ProtoError::new("b", format!("entrant {b} cannot play itself")));
    }
    let winner = from_wire(SIDES, "winner", m.winner)?;
    let criterion = from_wire(CRITERIA, "criterion", m.criterion)?;
    let games = match m.games.as_slice() {
        [g0, g1] => [
            game_from_proto(g0).map_err(|e| e.within("games[0]"))?,
            game_from_proto(g1).map_err(|e| e.within("games[1]"))?,
        ],
        games => return Err(ProtoError::new("games", format!("2 games expected, got {}", games.len()))),
    };
    Ok(MatchSummary { a, b, winner, criterion, games })
}

/// An outcome from the wire, validated: its task id, the worker id it was leased under (0: the
/// stream's), and the outcome or the worker's failure message.
pub fn outcome_from_proto(outcome: &pb::Outcome) -> Result<(u64, u64, TaskResult), ProtoError> {
    let result = match &outcome.result {
        Some(pb::outcome::Result::Match(m)) => Ok(TaskOutcome::Match(matches::outcome_from_proto(m)?)),
        Some(pb::outcome::Result::SelfPlay(o)) => Ok(TaskOutcome::SelfPlay(selfplay::outcome_from_proto(o)?)),
        Some(pb::outcome::Result::Failure(message)) if message.len() > MAX_FAILURE_BYTES => {
            let problem = format!("{} bytes, more than the {MAX_FAILURE_BYTES} a worker sends", message.len());
            return Err(ProtoError::new("failure", problem));
        }
        Some(pb::outcome::Result::Failure(message)) => Err(TaskFailure::Reported(message.clone())),
        None => return Err(ProtoError::new("result", "missing: neither an outcome nor a failure")),
    };
    Ok((outcome.task_id, outcome.leased_to, result))
}

/// The conversions of match tasks alone, for the tests of what predates self-play.
#[cfg(test)]
pub(crate) mod match_only {
    use super::{Resolve, Sending};
    use crate::{ProtoError, pb};
    use loa_engine::network::Chromosome;
    use loa_engine::tasks::{MatchTask, Task};

    /// [`super::task_to_proto`] of a match task.
    pub fn task_to_proto(id: u64, task: &MatchTask, decide: &mut dyn FnMut(&Chromosome) -> Sending) -> pb::Task {
        super::task_to_proto(id, &Task::Match(task.clone()), decide)
    }

    /// [`super::task_from_proto`] of a match task.
    pub fn task_from_proto(t: pb::Task, resolve: Resolve<'_>) -> Result<(u64, MatchTask), ProtoError> {
        match super::task_from_proto(t, resolve)? {
            (id, Task::Match(m)) => Ok((id, m)),
            (_, Task::SelfPlay(_)) => Err(ProtoError::new("format", "a self-play task")),
        }
    }
}

#[cfg(test)]
mod tests;
