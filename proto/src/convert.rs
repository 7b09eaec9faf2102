//! Conversions between the wire messages and the engine's task types.
//!
//! Going out (engine to wire) cannot fail. Coming in (wire to engine) checks every field a
//! malicious or buggy peer could get wrong, so nothing past this module has to: known topologies,
//! the topology's weight count, finite weights within range, weights that hash to the id sent
//! with them, known enum values, exactly two games per match.
//!
//! A task is checked by the engine's own [`MatchTask::validate`], whose errors are translated to
//! the wire's field paths (so the wire and the engine cannot disagree on what a valid task is),
//! after the fields only the wire has: entrant kinds, topologies, weights and fixed players'
//! specs (`convert/matches.rs`). An outcome cannot be checked against its task here (the master
//! sends the task, the worker the outcome); its entrant indices are only checked to be below
//! [`MAX_ENTRANTS`] and its match count to be 1 to [`MAX_MATCHES`]. The master, which holds the
//! task, checks the rest with [`MatchTask::check_outcome`].
//!
//! [`MatchTask::validate`]: loa_engine::tasks::MatchTask::validate
//! [`MatchTask::check_outcome`]: loa_engine::tasks::MatchTask::check_outcome
//! [`MAX_ENTRANTS`]: loa_engine::tasks::MAX_ENTRANTS
//! [`MAX_MATCHES`]: loa_engine::tasks::MAX_MATCHES

use crate::ProtoError;
use crate::pb;
use loa_engine::game::{Criterion, MatchSide};
use loa_engine::network::{Chromosome, ChromosomeId, Topology, little_endian_bytes};
use loa_engine::tasks::{GameSummary, MatchSummary, MatchTask, TaskFailure, TaskResult};
use loa_engine::{BothConnected, Color, EndReason, NoMoves, Outcome, Rules};
use std::sync::Arc;

mod matches;
mod origin;

pub use origin::{
    MAX_PEER_ADDRESS, MAX_SOURCES, check_peer_address, origin_from_proto, origin_to_proto, source_to_proto,
    sources_from_proto,
};

// ---- Engine to wire ----

fn rules_to_proto(rules: &Rules) -> pb::Rules {
    pb::Rules {
        both_connected: match rules.both_connected {
            BothConnected::Draw => pb::BothConnected::Draw,
            BothConnected::MoverWins => pb::BothConnected::MoverWins,
        } as i32,
        no_moves: match rules.no_moves {
            NoMoves::Loses => pb::NoMoves::Loses,
            NoMoves::Passes => pb::NoMoves::Passes,
        } as i32,
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

/// How a network travels to a receiver, as the sender decides from what it knows of the
/// receiver: the master's mirror of a worker's cache, and which peers hold what.
#[derive(Clone, Debug, PartialEq)]
pub enum Sending {
    /// Its id alone: the receiver holds it.
    Id,
    /// Its id, topology and origin ([`Chromosome::origin`]; its weights if it has none), with
    /// sources for the parents the receiver lacks: the receiver makes it again.
    Origin(Vec<pb::Source>),
    /// Its id alone, with sources to fetch it from.
    Sources(Vec<pb::Source>),
    /// Its id and its weights.
    Weights,
}

/// A network entrant on the wire: its id always, and the rest as `decide` says.
fn network_to_proto(
    serial: u64,
    chromosome: &Chromosome,
    decide: &mut dyn FnMut(&Chromosome) -> Sending,
) -> pb::Entrant {
    let id = chromosome.id();
    let mut entrant = pb::Entrant { serial, id: Some(id_to_proto(id)), ..pb::Entrant::default() };
    match (decide(chromosome), chromosome.origin()) {
        (Sending::Id, _) => return entrant,
        (Sending::Sources(sources), _) => {
            entrant.sources = sources;
            return entrant;
        }
        (Sending::Origin(sources), Some(origin)) => {
            entrant.topology = chromosome.topology().name().to_owned();
            entrant.origin = Some(origin_to_proto(origin));
            entrant.sources = sources;
            return entrant;
        }
        (Sending::Origin(_) | Sending::Weights, _) => {}
    }
    entrant.topology = chromosome.topology().name().to_owned();
    // One copy of the weights' memory on little-endian machines.
    entrant.weights = little_endian_bytes(chromosome.weights()).into_owned();
    entrant
}

/// Whether a network on the wire carries its weights, rather than its id alone.
pub fn has_weights(e: &pb::Entrant) -> bool {
    !e.weights.is_empty()
}

/// A chromosome with its weights, as a [`pb::FetchChromosomesReply`] carries it (serial 0).
pub fn chromosome_to_proto(chromosome: &Chromosome) -> pb::Entrant {
    network_to_proto(0, chromosome, &mut |_| Sending::Weights)
}

/// An entrant index on the wire. Valid tasks and outcomes have indices below 16; an index too
/// large for the wire becomes `u32::MAX`, which the receiver refuses, rather than wrapping to a
/// valid one.
fn index_to_proto(i: usize) -> u32 {
    u32::try_from(i).unwrap_or(u32::MAX)
}

/// The wire form of task `id`, every network with its weights.
pub fn task_to_proto(id: u64, task: &MatchTask) -> pb::Task {
    task_to_proto_sending(id, task, &mut |_| Sending::Weights)
}

/// The wire form of task `id`, each network travelling as `decide` says (by id, by origin, from
/// peers, or with its weights). `decide` is called once per network entrant, in the order the
/// receiver meets them (entrants in order), so a caller can keep a mirror of the receiver's
/// cache.
pub fn task_to_proto_sending(id: u64, task: &MatchTask, decide: &mut dyn FnMut(&Chromosome) -> Sending) -> pb::Task {
    matches::task_to_proto(id, task, decide)
}

fn game_to_proto(g: &GameSummary) -> pb::GameSummary {
    pb::GameSummary {
        outcome: match g.outcome {
            Outcome::Win(Color::Black) => pb::GameOutcome::BlackWins,
            Outcome::Win(Color::White) => pb::GameOutcome::WhiteWins,
            Outcome::Draw => pb::GameOutcome::Draw,
        } as i32,
        reason: match g.reason {
            EndReason::Connected => pb::EndReason::Connected,
            EndReason::BothConnected => pb::EndReason::BothConnected,
            EndReason::NoMoves => pb::EndReason::NoMoves,
            EndReason::PlyCap => pb::EndReason::PlyCap,
        } as i32,
        plies: g.plies,
    }
}

fn match_to_proto(m: &MatchSummary) -> pb::MatchSummary {
    pb::MatchSummary {
        a: index_to_proto(m.a),
        b: index_to_proto(m.b),
        winner: match m.winner {
            MatchSide::A => pb::MatchSide::A,
            MatchSide::B => pb::MatchSide::B,
        } as i32,
        criterion: match m.criterion {
            Criterion::WonBoth => pb::Criterion::WonBoth,
            Criterion::WonAndDrew => pb::Criterion::WonAndDrew,
            Criterion::FasterWin => pb::Criterion::FasterWin,
            Criterion::DefaultToA => pb::Criterion::DefaultToA,
        } as i32,
        games: m.games.iter().map(game_to_proto).collect(),
    }
}

/// The wire form of task `task_id`'s result (its outcome, or the message of why it failed),
/// leased under worker id `leased_to` (0: the id of the stream it goes on).
pub fn outcome_to_proto(task_id: u64, result: &TaskResult, leased_to: u64) -> pb::Outcome {
    let result = match result {
        Ok(m) => {
            pb::outcome::Result::Match(pb::MatchOutcome { matches: m.matches.iter().map(match_to_proto).collect() })
        }
        Err(failure) => pb::outcome::Result::Failure(failure.wire_message()),
    };
    pb::Outcome { task_id, result: Some(result), leased_to }
}

// ---- Wire to engine ----

fn known<E: TryFrom<i32>>(field: &str, value: i32) -> Result<E, ProtoError> {
    E::try_from(value).map_err(|_| ProtoError::new(field, format!("unknown value {value}")))
}

fn rules_from_proto(rules: Option<pb::Rules>) -> Result<Rules, ProtoError> {
    let rules = rules.ok_or_else(|| ProtoError::new("rules", "missing"))?;
    let both_connected = match known("rules.both_connected", rules.both_connected)? {
        pb::BothConnected::Draw => BothConnected::Draw,
        pb::BothConnected::MoverWins => BothConnected::MoverWins,
        pb::BothConnected::Unspecified => return Err(ProtoError::new("rules.both_connected", "unspecified")),
    };
    let no_moves = match known("rules.no_moves", rules.no_moves)? {
        pb::NoMoves::Loses => NoMoves::Loses,
        pb::NoMoves::Passes => NoMoves::Passes,
        pb::NoMoves::Unspecified => return Err(ProtoError::new("rules.no_moves", "unspecified")),
    };
    Ok(Rules { both_connected, no_moves, ply_cap: rules.ply_cap })
}

/// Where an id-only network finds its chromosome: the worker's cache and what it fetched (see
/// [`crate::cache`]). `&|_| None` for a receiver that keeps nothing.
pub type Resolve<'a> = &'a dyn Fn(ChromosomeId) -> Option<Arc<Chromosome>>;

/// A network entrant from the wire: its weights, checked against the id it claims, or its id
/// alone, resolved by `resolve`. Returns its serial and chromosome.
fn network_from_proto(field: &str, e: pb::Entrant, resolve: Resolve<'_>) -> Result<(u64, Arc<Chromosome>), ProtoError> {
    let serial = e.serial;
    if !has_weights(&e) {
        let id = e.id.as_ref().ok_or_else(|| ProtoError::new(format!("{field}.id"), "missing"))?;
        let id = id_from_proto(id);
        let chromosome = resolve(id).ok_or_else(|| {
            ProtoError::new(format!("{field}.id"), format!("chromosome {id} is neither sent nor known here"))
        })?;
        if !e.topology.is_empty() && e.topology != chromosome.topology().name() {
            return Err(ProtoError::new(
                format!("{field}.topology"),
                format!("{:?}, but chromosome {id} is a {}", e.topology, chromosome.topology()),
            ));
        }
        return Ok((serial, chromosome));
    }
    Ok((serial, Arc::new(chromosome_from_proto(field, e)?)))
}

/// A chromosome sent with its weights: validated, and hashing to the id it claims.
pub fn chromosome_from_proto(field: &str, e: pb::Entrant) -> Result<Chromosome, ProtoError> {
    let topology = Topology::from_name(&e.topology)
        .ok_or_else(|| ProtoError::new(format!("{field}.topology"), format!("unknown topology {:?}", e.topology)))?;
    let claimed = e.id.as_ref().ok_or_else(|| ProtoError::new(format!("{field}.id"), "missing"))?;
    let n = e.weights.len();
    if !n.is_multiple_of(4) {
        return Err(ProtoError::new(format!("{field}.weights"), format!("{n} bytes, not 4 per weight")));
    }
    let expected = topology.weight_count();
    if n / 4 != expected {
        return Err(ProtoError::new(
            format!("{field}.weights"),
            format!("{} weights, but {topology} has {expected}", n / 4),
        ));
    }
    let weights: Vec<f32> = e.weights.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
    if let Some((index, value)) = weights.iter().enumerate().find(|(_, w)| !w.is_finite()) {
        return Err(ProtoError::new(format!("{field}.weights[{index}]"), format!("{value} is not finite")));
    }
    // Chromosome::new re-checks length and finiteness and adds the magnitude bound.
    let chromosome = Chromosome::new(topology, weights)
        .map_err(|err| ProtoError::new(format!("{field}.weights"), err.to_string()))?;
    let claimed = id_from_proto(claimed);
    if chromosome.id() != claimed {
        return Err(ProtoError::new(
            format!("{field}.id"),
            format!("the weights hash to {}, not to the id {claimed} sent with them", chromosome.id()),
        ));
    }
    Ok(chromosome)
}

/// A task from the wire, validated, with its id; a network sent as its id alone is refused.
pub fn task_from_proto(task: pb::Task) -> Result<(u64, MatchTask), ProtoError> {
    task_from_proto_with(task, &|_| None)
}

/// A task from the wire, validated, with its id, networks sent as their id alone found by
/// `resolve`.
pub fn task_from_proto_with(task: pb::Task, resolve: Resolve<'_>) -> Result<(u64, MatchTask), ProtoError> {
    let id = task.id;
    Ok((id, matches::task_from_proto(task, resolve)?))
}

/// An entrant index below `entrants`.
fn index(field: &str, value: u32, entrants: usize) -> Result<usize, ProtoError> {
    if (value as usize) < entrants {
        Ok(value as usize)
    } else {
        Err(ProtoError::new(field, format!("entrant index {value} is not below {entrants}")))
    }
}

/// A game's summary; fields named relative to it (see [`ProtoError::within`]).
fn game_from_proto(g: &pb::GameSummary) -> Result<GameSummary, ProtoError> {
    let outcome = match known("outcome", g.outcome)? {
        pb::GameOutcome::BlackWins => Outcome::Win(Color::Black),
        pb::GameOutcome::WhiteWins => Outcome::Win(Color::White),
        pb::GameOutcome::Draw => Outcome::Draw,
        pb::GameOutcome::Unspecified => return Err(ProtoError::new("outcome", "unspecified")),
    };
    let reason = match known("reason", g.reason)? {
        pb::EndReason::Connected => EndReason::Connected,
        pb::EndReason::BothConnected => EndReason::BothConnected,
        pb::EndReason::NoMoves => EndReason::NoMoves,
        pb::EndReason::PlyCap => EndReason::PlyCap,
        pb::EndReason::Unspecified => return Err(ProtoError::new("reason", "unspecified")),
    };
    Ok(GameSummary { outcome, reason, plies: g.plies })
}

/// Exactly two games; fields named relative to the list (`[1].reason`, or the list itself).
fn two_games(games: &[pb::GameSummary]) -> Result<[GameSummary; 2], ProtoError> {
    match games {
        [g0, g1] => {
            Ok([game_from_proto(g0).map_err(|e| e.within("[0]"))?, game_from_proto(g1).map_err(|e| e.within("[1]"))?])
        }
        _ => Err(ProtoError::new("", format!("2 games expected, got {}", games.len()))),
    }
}

/// A match between entrant indices below `entrants`; fields named relative to it. Every
/// outcome a worker sends goes through here, so valid ones build no path strings.
fn match_from_proto(m: &pb::MatchSummary, entrants: usize) -> Result<MatchSummary, ProtoError> {
    let a = index("a", m.a, entrants)?;
    let b = index("b", m.b, entrants)?;
    if a == b {
        return Err(ProtoError::new("b", format!("entrant {b} cannot play itself")));
    }
    let winner = match known("winner", m.winner)? {
        pb::MatchSide::A => MatchSide::A,
        pb::MatchSide::B => MatchSide::B,
        pb::MatchSide::Unspecified => return Err(ProtoError::new("winner", "unspecified")),
    };
    let criterion = match known("criterion", m.criterion)? {
        pb::Criterion::WonBoth => Criterion::WonBoth,
        pb::Criterion::WonAndDrew => Criterion::WonAndDrew,
        pb::Criterion::FasterWin => Criterion::FasterWin,
        pb::Criterion::DefaultToA => Criterion::DefaultToA,
        pb::Criterion::Unspecified => return Err(ProtoError::new("criterion", "unspecified")),
    };
    Ok(MatchSummary { a, b, winner, criterion, games: two_games(&m.games).map_err(|e| e.within("games"))? })
}

/// An outcome from the wire, validated: its task id, the worker id it was leased under (0: the
/// stream's), and the outcome or the worker's failure message.
pub fn outcome_from_proto(outcome: &pb::Outcome) -> Result<(u64, u64, TaskResult), ProtoError> {
    let result = match &outcome.result {
        Some(pb::outcome::Result::Match(m)) => Ok(matches::outcome_from_proto(m)?),
        Some(pb::outcome::Result::Failure(message)) => Err(TaskFailure::Reported(message.clone())),
        None => return Err(ProtoError::new("result", "missing: neither an outcome nor a failure")),
    };
    Ok((outcome.task_id, outcome.leased_to, result))
}

#[cfg(test)]
mod tests;
