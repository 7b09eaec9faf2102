//! Conversions between the wire messages and the engine's task types.
//!
//! Going out (engine to wire) cannot fail. Coming in (wire to engine) checks every field a
//! malicious or buggy peer could get wrong, so nothing past this module has to: exactly four
//! entrants with distinct serials, a known topology, the topology's weight count, finite weights
//! within range, depths in `1..=MAX_DEPTH`, known enum values, entrant indices below 4, exactly
//! two games per match and three matches per tournament.
//!
//! A match task ([`MatchTask`]) is checked by the engine's own [`MatchTask::validate`], whose
//! errors are translated to the wire's field paths (so the wire and the engine cannot disagree on
//! what a valid task is), after the fields only the wire has: entrant kinds, topologies, weights,
//! fixed-player kinds and ALoA's unused `salt_or_seed` (which must be 0, so every valid task has
//! one encoding). A match outcome cannot be checked against its task here (the master sends the
//! task, the worker the outcome); its entrant indices are only checked to be below
//! [`MAX_ENTRANTS`] and its match count to be 1 to [`MAX_MATCHES`]. The master, which holds the
//! task, checks the rest with [`MatchTask::check_outcome`]. These conversions live in
//! `convert/matches.rs`.
//!
//! [`MatchTask`]: loa_engine::tasks::MatchTask
//! [`MatchTask::validate`]: loa_engine::tasks::MatchTask::validate
//! [`MatchTask::check_outcome`]: loa_engine::tasks::MatchTask::check_outcome
//! [`MAX_ENTRANTS`]: loa_engine::tasks::MAX_ENTRANTS
//! [`MAX_MATCHES`]: loa_engine::tasks::MAX_MATCHES

use crate::ProtoError;
use crate::pb;
use loa_engine::aloa::AloaKind;
use loa_engine::game::{Criterion, MatchSide};
use loa_engine::network::{Chromosome, ChromosomeId, Topology, little_endian_bytes};
use loa_engine::players::MAX_DEPTH;
use loa_engine::tasks::{
    BenchmarkOutcome, BenchmarkTask, Entrant, GameSummary, MatchSummary, Reference, Task, TaskFailure, TaskOutcome,
    TaskResult, TournamentOutcome, TournamentTask,
};
use loa_engine::{BothConnected, Color, EndReason, NoMoves, Outcome, Rules};
use matches::{match_outcome_from_proto, match_task_from_proto, match_task_to_proto};
use std::sync::Arc;

/// Entrants in a tournament.
const ENTRANTS: usize = 4;

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
/// receiver (issue 14): the master's mirror of a worker's cache, and which peers hold what.
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

/// A network entrant on the wire: its id always, and the rest as `decide` says (see
/// [`task_to_proto_sending`]), weights as bytes if `weight_bytes`.
fn network_to_proto(
    serial: u64,
    chromosome: &Chromosome,
    decide: &mut dyn FnMut(&Chromosome) -> Sending,
    weight_bytes: bool,
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
    if weight_bytes {
        // One copy of the weights' memory on little-endian machines.
        entrant.weights_le = little_endian_bytes(chromosome.weights()).into_owned();
    } else {
        entrant.weights = chromosome.weights().to_vec();
    }
    entrant
}

/// Whether a network on the wire carries its weights (in either form), rather than its id alone.
pub fn has_weights(e: &pb::Entrant) -> bool {
    !e.weights.is_empty() || !e.weights_le.is_empty()
}

/// A chromosome with its weights, as a [`pb::FetchChromosomesReply`] carries it (serial 0).
pub fn chromosome_to_proto(chromosome: &Chromosome, weight_bytes: bool) -> pb::Entrant {
    network_to_proto(0, chromosome, &mut |_| Sending::Weights, weight_bytes)
}

/// An entrant index on the wire. Valid tasks and outcomes have indices below 16; an index too
/// large for the wire becomes `u32::MAX`, which the receiver refuses, rather than wrapping to a
/// valid one.
fn index_to_proto(i: usize) -> u32 {
    u32::try_from(i).unwrap_or(u32::MAX)
}

/// The wire form of task `id`, every network with its weights.
pub fn task_to_proto(id: u64, task: &Task) -> pb::Task {
    task_to_proto_sending(id, task, &mut |_| Sending::Weights, false)
}

/// The wire form of task `id`, where a network whose id `known` accepts travels as its id
/// alone, and any other with its weights. `known` is called once per network entrant, in the
/// order the receiver meets them (tasks' entrants in order), so a caller can keep a mirror of the
/// receiver's cache: the master's per-worker mirror (issue 14). With `weight_bytes` the weights
/// travel as bytes (`weights_le`), for receivers that announced they read them.
pub fn task_to_proto_with(
    id: u64,
    task: &Task,
    known: &mut dyn FnMut(ChromosomeId) -> bool,
    weight_bytes: bool,
) -> pb::Task {
    task_to_proto_sending(id, task, &mut |c| if known(c.id()) { Sending::Id } else { Sending::Weights }, weight_bytes)
}

/// The wire form of task `id`, each network travelling as `decide` says (issue 14: by id, by
/// origin, from peers, or with its weights). `decide` is called once per network entrant, in
/// the order the receiver meets them.
pub fn task_to_proto_sending(
    id: u64,
    task: &Task,
    decide: &mut dyn FnMut(&Chromosome) -> Sending,
    weight_bytes: bool,
) -> pb::Task {
    let mut entrant = |e: &Entrant| network_to_proto(e.serial, &e.chromosome, decide, weight_bytes);
    let kind = match task {
        Task::Tournament(t) => pb::task::Kind::Tournament(pb::TournamentTask {
            entrants: t.entrants.iter().map(&mut entrant).collect(),
            rules: Some(rules_to_proto(&t.rules)),
            depth: t.depth,
            seed: t.seed,
        }),
        Task::Benchmark(b) => {
            let (reference, reference_depth) = match b.reference {
                Reference::Aloa { evaluator: AloaKind::Quad, depth } => (pb::ReferenceKind::AloaQuad, depth),
                Reference::Aloa { evaluator: AloaKind::Normal, depth } => (pb::ReferenceKind::AloaNormal, depth),
                Reference::Random { depth } => (pb::ReferenceKind::Random, depth),
            };
            pb::task::Kind::Benchmark(pb::BenchmarkTask {
                entrant: Some(entrant(&b.entrant)),
                reference: reference as i32,
                reference_depth,
                depth: b.depth,
                rules: Some(rules_to_proto(&b.rules)),
                seed: b.seed,
            })
        }
        Task::Match(m) => pb::task::Kind::Match(match_task_to_proto(m, decide, weight_bytes)),
    };
    pb::Task { id, kind: Some(kind) }
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

/// The wire form of a task's result: its outcome, or the message of why it failed.
pub fn result_to_proto(result: &TaskResult) -> pb::complete_request::Result {
    match result {
        Ok(TaskOutcome::Tournament(t)) => pb::complete_request::Result::Tournament(pb::TournamentOutcome {
            winner: t.winner as u32,
            matches: t.matches.iter().map(match_to_proto).collect(),
        }),
        Ok(TaskOutcome::Benchmark(b)) => pb::complete_request::Result::Benchmark(pb::BenchmarkOutcome {
            games: b.games.iter().map(game_to_proto).collect(),
            scores: b.scores.to_vec(),
        }),
        Ok(TaskOutcome::Match(m)) => pb::complete_request::Result::Match(pb::MatchOutcome {
            matches: m.matches.iter().map(match_to_proto).collect(),
        }),
        Err(failure) => pb::complete_request::Result::Failure(failure.wire_message()),
    }
}

// ---- Wire to engine ----

fn known<E: TryFrom<i32>>(field: &str, value: i32) -> Result<E, ProtoError> {
    E::try_from(value).map_err(|_| ProtoError::new(field, format!("unknown value {value}")))
}

fn depth(field: &str, depth: u32) -> Result<u32, ProtoError> {
    if (1..=MAX_DEPTH).contains(&depth) {
        Ok(depth)
    } else {
        Err(ProtoError::new(field, format!("search depth {depth} is outside 1..={MAX_DEPTH}")))
    }
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
/// alone, resolved by `resolve`.
fn entrant_from_proto(field: &str, e: pb::Entrant, resolve: Resolve<'_>) -> Result<Entrant, ProtoError> {
    if !has_weights(&e)
        && let Some(id) = &e.id
    {
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
        return Ok(Entrant { serial: e.serial, chromosome });
    }
    let serial = e.serial;
    let chromosome = chromosome_from_proto(field, e)?;
    Ok(Entrant { serial, chromosome: Arc::new(chromosome) })
}

/// A chromosome sent with its weights: validated, and hashing to the id it claims (if any: masters
/// older than ids send none).
pub fn chromosome_from_proto(field: &str, mut e: pb::Entrant) -> Result<Chromosome, ProtoError> {
    let topology = Topology::from_name(&e.topology)
        .ok_or_else(|| ProtoError::new(format!("{field}.topology"), format!("unknown topology {:?}", e.topology)))?;
    if !e.weights_le.is_empty() {
        if !e.weights.is_empty() {
            return Err(ProtoError::new(format!("{field}.weights_le"), "sent with weights too: one form only"));
        }
        if !e.weights_le.len().is_multiple_of(4) {
            let n = e.weights_le.len();
            return Err(ProtoError::new(format!("{field}.weights_le"), format!("{n} bytes, not 4 per weight")));
        }
        e.weights = e.weights_le.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
    }
    let expected = topology.weight_count();
    if e.weights.len() != expected {
        return Err(ProtoError::new(
            format!("{field}.weights"),
            format!("{} weights, but {topology} has {expected}", e.weights.len()),
        ));
    }
    if let Some((index, value)) = e.weights.iter().enumerate().find(|(_, w)| !w.is_finite()) {
        return Err(ProtoError::new(format!("{field}.weights[{index}]"), format!("{value} is not finite")));
    }
    // Chromosome::new re-checks length and finiteness and adds the magnitude bound.
    let chromosome = Chromosome::new(topology, e.weights)
        .map_err(|err| ProtoError::new(format!("{field}.weights"), err.to_string()))?;
    if let Some(claimed) = &e.id {
        let claimed = id_from_proto(claimed);
        if chromosome.id() != claimed {
            return Err(ProtoError::new(
                format!("{field}.id"),
                format!("the weights hash to {}, not to the id {claimed} sent with them", chromosome.id()),
            ));
        }
    }
    Ok(chromosome)
}

fn tournament_from_proto(t: pb::TournamentTask, resolve: Resolve<'_>) -> Result<TournamentTask, ProtoError> {
    if t.entrants.len() != ENTRANTS {
        return Err(ProtoError::new(
            "entrants",
            format!("a tournament needs {ENTRANTS} entrants, got {}", t.entrants.len()),
        ));
    }
    let entrants = t
        .entrants
        .into_iter()
        .enumerate()
        .map(|(i, e)| entrant_from_proto(&format!("entrants[{i}]"), e, resolve))
        .collect::<Result<Vec<_>, _>>()?;
    for (i, e) in entrants.iter().enumerate() {
        if entrants[..i].iter().any(|o| o.serial == e.serial) {
            return Err(ProtoError::new(format!("entrants[{i}].serial"), format!("serial {} appears twice", e.serial)));
        }
    }
    Ok(TournamentTask { entrants, rules: rules_from_proto(t.rules)?, depth: depth("depth", t.depth)?, seed: t.seed })
}

fn benchmark_from_proto(b: pb::BenchmarkTask, resolve: Resolve<'_>) -> Result<BenchmarkTask, ProtoError> {
    let entrant =
        entrant_from_proto("entrant", b.entrant.ok_or_else(|| ProtoError::new("entrant", "missing"))?, resolve)?;
    let reference_depth = depth("reference_depth", b.reference_depth)?;
    let reference = match known("reference", b.reference)? {
        pb::ReferenceKind::AloaQuad => Reference::Aloa { evaluator: AloaKind::Quad, depth: reference_depth },
        pb::ReferenceKind::AloaNormal => Reference::Aloa { evaluator: AloaKind::Normal, depth: reference_depth },
        pb::ReferenceKind::Random => Reference::Random { depth: reference_depth },
        pb::ReferenceKind::Unspecified => return Err(ProtoError::new("reference", "unspecified")),
    };
    Ok(BenchmarkTask {
        entrant,
        reference,
        depth: depth("depth", b.depth)?,
        rules: rules_from_proto(b.rules)?,
        seed: b.seed,
    })
}

/// A task from the wire, validated, with its id; a network sent as its id alone is refused.
pub fn task_from_proto(task: pb::Task) -> Result<(u64, Task), ProtoError> {
    task_from_proto_with(task, &|_| None)
}

/// A task from the wire, validated, with its id, networks sent as their id alone found by
/// `resolve`.
pub fn task_from_proto_with(task: pb::Task, resolve: Resolve<'_>) -> Result<(u64, Task), ProtoError> {
    let id = task.id;
    let task = match task.kind {
        Some(pb::task::Kind::Tournament(t)) => {
            Task::Tournament(tournament_from_proto(t, resolve).map_err(|e| e.within("tournament"))?)
        }
        Some(pb::task::Kind::Benchmark(b)) => {
            Task::Benchmark(benchmark_from_proto(b, resolve).map_err(|e| e.within("benchmark"))?)
        }
        Some(pb::task::Kind::Match(m)) => {
            Task::Match(match_task_from_proto(m, resolve).map_err(|e| e.within("match"))?)
        }
        None => return Err(ProtoError::new("kind", "missing: neither a tournament, a benchmark nor a match task")),
    };
    Ok((id, task))
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

fn tournament_outcome_from_proto(t: &pb::TournamentOutcome) -> Result<TournamentOutcome, ProtoError> {
    let winner = index("tournament.winner", t.winner, ENTRANTS)?;
    let matches = match t.matches.as_slice() {
        [m0, m1, m2] => [
            match_from_proto(m0, ENTRANTS).map_err(|e| e.within("tournament.matches[0]"))?,
            match_from_proto(m1, ENTRANTS).map_err(|e| e.within("tournament.matches[1]"))?,
            match_from_proto(m2, ENTRANTS).map_err(|e| e.within("tournament.matches[2]"))?,
        ],
        _ => return Err(ProtoError::new("tournament.matches", format!("3 matches expected, got {}", t.matches.len()))),
    };
    if winner != matches[2].winner_index() {
        return Err(ProtoError::new("tournament.winner", format!("entrant {winner} did not win the final")));
    }
    Ok(TournamentOutcome { winner, matches })
}

fn benchmark_outcome_from_proto(b: &pb::BenchmarkOutcome) -> Result<BenchmarkOutcome, ProtoError> {
    let games = two_games(&b.games).map_err(|e| e.within("benchmark.games"))?;
    let scores = match b.scores.as_slice() {
        [s0, s1] => [*s0, *s1],
        _ => return Err(ProtoError::new("benchmark.scores", format!("2 scores expected, got {}", b.scores.len()))),
    };
    Ok(BenchmarkOutcome { games, scores })
}

/// A task's result from the wire, validated: an outcome, or a worker's failure message.
pub fn result_from_proto(result: Option<&pb::complete_request::Result>) -> Result<TaskResult, ProtoError> {
    match result {
        Some(pb::complete_request::Result::Tournament(t)) => {
            Ok(Ok(TaskOutcome::Tournament(tournament_outcome_from_proto(t)?)))
        }
        Some(pb::complete_request::Result::Benchmark(b)) => {
            Ok(Ok(TaskOutcome::Benchmark(benchmark_outcome_from_proto(b)?)))
        }
        Some(pb::complete_request::Result::Match(m)) => Ok(Ok(TaskOutcome::Match(match_outcome_from_proto(m)?))),
        Some(pb::complete_request::Result::Failure(message)) => Ok(Err(TaskFailure::Reported(message.clone()))),
        None => Err(ProtoError::new("result", "missing: neither an outcome nor a failure")),
    }
}

mod matches;
mod origin;

pub use origin::{
    MAX_PEER_ADDRESS, MAX_SOURCES, check_peer_address, origin_from_proto, origin_to_proto, source_to_proto,
    sources_from_proto,
};

#[cfg(test)]
mod tests;
