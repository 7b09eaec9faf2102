//! Tasks ([`Task`]) on the wire, match tasks ([`MatchTask`]) and their outcomes here, self-play
//! in `selfplay`.

use super::{
    Resolve, STARTS, Sending, from_wire, index_to_proto, match_from_proto, network_from_proto, network_to_proto,
    rules_from_proto, rules_to_proto, to_wire,
};
use crate::{ProtoError, each, pb};
use loa_engine::BoardSize;
use loa_engine::network::Chromosome;
use loa_engine::players::MAX_DEPTH;
use loa_engine::spec::SpecError;
use loa_engine::tasks::{
    FixedPlayer, MAX_ENTRANTS, MAX_MATCHES, MatchEntrant, MatchFormat, MatchTask, MatchTaskOutcome, Pairing, Task,
    TaskError,
};

// ---- Engine to wire ----

fn match_entrant_to_proto(e: &MatchEntrant, decide: &mut dyn FnMut(&Chromosome) -> Sending) -> pb::MatchEntrant {
    let kind = match e {
        MatchEntrant::Network { serial, chromosome } => {
            pb::match_entrant::Kind::Network(network_to_proto(*serial, chromosome, decide))
        }
        MatchEntrant::Fixed { serial, player } => {
            pb::match_entrant::Kind::Fixed(pb::FixedEntrant { serial: *serial, player: player.to_string() })
        }
    };
    pb::MatchEntrant { kind: Some(kind) }
}

/// The wire form of task `id`, each network travelling as `decide` says. `decide` is called once
/// per network entrant, in order (the order the receiver meets them, so a caller can mirror its
/// cache).
pub fn task_to_proto(id: u64, task: &Task, decide: &mut dyn FnMut(&Chromosome) -> Sending) -> pb::Task {
    match task {
        Task::Match(m) => match_task_to_proto(id, m, decide),
        Task::SelfPlay(s) => {
            let (format, entrant) = super::selfplay::self_play_to_proto(s, decide);
            pb::Task {
                id,
                entrants: vec![entrant],
                network_depth: s.depth,
                rules: Some(rules_to_proto(&s.rules)),
                format: Some(format),
                board_side: u32::from(s.board.side()),
                start: to_wire(STARTS, s.start),
            }
        }
    }
}

fn match_task_to_proto(id: u64, m: &MatchTask, decide: &mut dyn FnMut(&Chromosome) -> Sending) -> pb::Task {
    let format = match &m.format {
        MatchFormat::Pairs(pairs) => pb::task::Format::Pairs(pb::Pairs {
            pairings: pairs
                .iter()
                .map(|p| pb::Pairing {
                    a: index_to_proto(p.a),
                    b: index_to_proto(p.b),
                    seed: p.seed,
                    opening_plies: p.opening_plies,
                })
                .collect(),
        }),
        MatchFormat::Knockout { seed } => pb::task::Format::Knockout(pb::Knockout { seed: *seed }),
    };
    pb::Task {
        id,
        entrants: m.entrants.iter().map(|e| match_entrant_to_proto(e, decide)).collect(),
        network_depth: m.network_depth,
        rules: Some(rules_to_proto(&m.rules)),
        format: Some(format),
        board_side: u32::from(m.board.side()),
        start: to_wire(STARTS, m.start),
    }
}

// ---- Wire to engine ----

/// A fixed player from its spec, which must be in the form the engine writes (so every valid
/// task has one encoding). Its depth is checked with the rest of the task.
fn fixed_from_proto(f: &pb::FixedEntrant) -> Result<MatchEntrant, ProtoError> {
    let player: FixedPlayer = f.player.parse().map_err(|why: SpecError| ProtoError::new("player", why.to_string()))?;
    if player.to_string() != f.player {
        return Err(ProtoError::new("player", format!("{:?} is not written as {player}", f.player)));
    }
    Ok(MatchEntrant::Fixed { serial: f.serial, player })
}

fn match_entrant_from_proto(e: pb::MatchEntrant, resolve: Resolve<'_>) -> Result<MatchEntrant, ProtoError> {
    match e.kind {
        Some(pb::match_entrant::Kind::Network(n)) => {
            let (serial, chromosome) = network_from_proto(&n, resolve).map_err(|e| e.within("network"))?;
            Ok(MatchEntrant::Network { serial, chromosome })
        }
        Some(pb::match_entrant::Kind::Fixed(f)) => fixed_from_proto(&f).map_err(|e| e.within("fixed")),
        None => Err(ProtoError::new("kind", "missing: neither a network nor a fixed player")),
    }
}

/// The wire path and problem of an engine validation error.
fn match_task_error(task: &MatchTask, err: TaskError) -> ProtoError {
    let pairing = |p: usize| format!("format.pairs.pairings[{p}]");
    let pairs = match &task.format {
        MatchFormat::Pairs(pairs) => pairs.as_slice(),
        MatchFormat::Knockout { .. } => &[],
    };
    // Where the engine's message says all, only the path is added.
    let whole = |field: &str| ProtoError::new(field, err.to_string());
    match err {
        TaskError::MatchEntrants(_) => whole("entrants"),
        TaskError::Depth(_) => whole("network_depth"),
        TaskError::FixedDepth { entrant, depth } => ProtoError::new(
            format!("entrants[{entrant}].fixed.player"),
            format!("search depth {depth} is outside 1..={MAX_DEPTH}"),
        ),
        TaskError::DuplicateSerial(serial) => {
            // The second entrant with the serial is the one in error.
            let i = task.entrants.iter().enumerate().filter(|(_, e)| e.serial() == serial).nth(1).map_or(0, |(i, _)| i);
            let fixed = matches!(task.entrants.get(i), Some(MatchEntrant::Fixed { .. }));
            let kind = if fixed { "fixed" } else { "network" };
            ProtoError::new(format!("entrants[{i}].{kind}.serial"), format!("serial {serial} appears twice"))
        }
        TaskError::MatchCount(_) => whole("format.pairs.pairings"),
        TaskError::NoSuchEntrant { pairing: p, entrant, entrants } => {
            let side = if pairs.get(p).is_some_and(|x| x.a == entrant) { "a" } else { "b" };
            ProtoError::new(
                format!("{}.{side}", pairing(p)),
                format!("entrant {entrant} does not exist ({entrants} entrants)"),
            )
        }
        TaskError::SelfPairing { pairing: p, entrant } => {
            ProtoError::new(format!("{}.b", pairing(p)), format!("entrant {entrant} cannot play itself"))
        }
        TaskError::OpeningPlies { pairing: p, plies, most } => ProtoError::new(
            format!("{}.opening_plies", pairing(p)),
            format!("{plies} opening plies, at most {most} on the {} board", task.board),
        ),
        TaskError::KnockoutSize(_) => whole("format.knockout"),
        TaskError::Start(_) => whole("start"),
        TaskError::Board { entrant, error } => {
            let field = match task.entrants.get(entrant) {
                Some(MatchEntrant::Fixed { .. }) => "fixed.player",
                _ => "network.topology",
            };
            ProtoError::new(format!("entrants[{entrant}].{field}"), error.to_string())
        }
        // A self-play task's errors: a match task never has them.
        other @ (TaskError::GameCount(_)
        | TaskError::GameOpeningPlies { .. }
        | TaskError::Unbounded
        | TaskError::TooManyMoves { .. }) => ProtoError::new("format", other.to_string()),
    }
}

/// A task from the wire with its id, validated (the wire-only fields here, the rest by
/// [`Task::validate`]); networks sent as their id alone are found by `resolve`.
pub fn task_from_proto(t: pb::Task, resolve: Resolve<'_>) -> Result<(u64, Task), ProtoError> {
    // Counted before converting, so an oversized list is refused before its weights are checked.
    let n = t.entrants.len();
    if n > MAX_ENTRANTS {
        return Err(ProtoError::new("entrants", format!("a match task needs 2 to {MAX_ENTRANTS} entrants, got {n}")));
    }
    let board = u8::try_from(t.board_side)
        .ok()
        .and_then(|side| BoardSize::new(side).ok())
        .ok_or_else(|| ProtoError::new("board_side", format!("{} is not a board side: 5 to 8", t.board_side)))?;
    let start = from_wire(STARTS, "start", t.start)?;
    let rules = rules_from_proto(t.rules)?;
    let format = match t.format {
        Some(pb::task::Format::Pairs(p)) => MatchFormat::Pairs(
            p.pairings
                .iter()
                .map(|p| Pairing { a: p.a as usize, b: p.b as usize, seed: p.seed, opening_plies: p.opening_plies })
                .collect(),
        ),
        Some(pb::task::Format::Knockout(k)) => MatchFormat::Knockout { seed: k.seed },
        Some(pb::task::Format::SelfPlay(s)) => {
            let task =
                super::selfplay::self_play_from_proto(s, t.entrants, t.network_depth, rules, board, start, resolve)?;
            task.validate().map_err(self_play_task_error)?;
            return Ok((t.id, Task::SelfPlay(task)));
        }
        None => return Err(ProtoError::new("format", "missing: neither pairs, a knockout nor self-play")),
    };
    let entrants = each("entrants", t.entrants, |e| match_entrant_from_proto(e, resolve))?;
    let task = MatchTask { entrants, network_depth: t.network_depth, rules, board, start, format };
    task.validate().map_err(|err| match_task_error(&task, err))?;
    Ok((t.id, Task::Match(task)))
}

/// The wire path and problem of a self-play task's validation error.
fn self_play_task_error(err: TaskError) -> ProtoError {
    let whole = |field: &str| ProtoError::new(field, err.to_string());
    match err {
        TaskError::Depth(_) => whole("network_depth"),
        TaskError::Start(_) => whole("start"),
        TaskError::Board { error, .. } => ProtoError::new("entrants[0].network.topology", error.to_string()),
        TaskError::GameCount(_) => whole("format.self_play.games"),
        TaskError::GameOpeningPlies { game, plies, most } => ProtoError::new(
            format!("format.self_play.games[{game}].opening_plies"),
            format!("{plies} opening plies, at most {most} on this board"),
        ),
        TaskError::Unbounded | TaskError::TooManyMoves { .. } => whole("rules.ply_cap"),
        other => ProtoError::new("", other.to_string()),
    }
}

/// A match outcome: 1 to [`MAX_MATCHES`] matches between entrant indices below [`MAX_ENTRANTS`]
/// (the master checks it against its task).
pub(super) fn outcome_from_proto(m: &pb::MatchOutcome) -> Result<MatchTaskOutcome, ProtoError> {
    let n = m.matches.len();
    if !(1..=MAX_MATCHES).contains(&n) {
        return Err(ProtoError::new("match.matches", format!("1 to {MAX_MATCHES} matches expected, got {n}")));
    }
    let matches = each("match.matches", &m.matches, |x| match_from_proto(x, MAX_ENTRANTS))?;
    Ok(MatchTaskOutcome { matches })
}

#[cfg(test)]
mod tests;
