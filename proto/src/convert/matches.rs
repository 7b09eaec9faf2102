//! Conversions of the generic match task ([`MatchTask`]) and its outcome; see the parent
//! module's documentation for what is validated here and what only the master can check.

use super::{
    Resolve, Sending, entrant_from_proto, index_to_proto, known, match_from_proto, network_to_proto, rules_from_proto,
    rules_to_proto,
};
use crate::ProtoError;
use crate::pb;
use loa_engine::aloa::AloaKind;
use loa_engine::network::Chromosome;
use loa_engine::players::MAX_DEPTH;
use loa_engine::tasks::{
    Entrant, FixedPlayer, MAX_ENTRANTS, MAX_MATCHES, MAX_OPENING_PLIES, MatchEntrant, MatchFormat, MatchTask,
    MatchTaskOutcome, Pairing, TaskError,
};

// ---- Engine to wire ----

fn match_entrant_to_proto(
    e: &MatchEntrant,
    decide: &mut dyn FnMut(&Chromosome) -> Sending,
    weight_bytes: bool,
) -> pb::MatchEntrant {
    let kind = match e {
        MatchEntrant::Network { serial, chromosome } => {
            pb::match_entrant::Kind::Network(network_to_proto(*serial, chromosome, decide, weight_bytes))
        }
        MatchEntrant::Fixed { serial, player } => {
            let (kind, depth, salt_or_seed) = match *player {
                FixedPlayer::Aloa { evaluator: AloaKind::Quad, depth } => (pb::FixedKind::AloaQuad, depth, 0),
                FixedPlayer::Aloa { evaluator: AloaKind::Normal, depth } => (pb::FixedKind::AloaNormal, depth, 0),
                FixedPlayer::Random { depth, salt } => (pb::FixedKind::Random, depth, salt),
                FixedPlayer::RandomAnn { depth, seed } => (pb::FixedKind::RandomAnn, depth, seed),
                FixedPlayer::RandomAnnPrinted { depth, seed } => (pb::FixedKind::RandomAnnPrinted, depth, seed),
            };
            pb::match_entrant::Kind::Fixed(pb::FixedEntrant { serial: *serial, kind: kind as i32, depth, salt_or_seed })
        }
    };
    pb::MatchEntrant { kind: Some(kind) }
}

/// The wire form of a match task (see [`super::task_to_proto_sending`] for `decide`).
pub(super) fn match_task_to_proto(
    m: &MatchTask,
    decide: &mut dyn FnMut(&Chromosome) -> Sending,
    weight_bytes: bool,
) -> pb::MatchTask {
    let format = match &m.format {
        MatchFormat::Pairs(pairs) => pb::match_task::Format::Pairs(pb::Pairs {
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
        MatchFormat::Knockout { seed } => pb::match_task::Format::Knockout(pb::Knockout { seed: *seed }),
    };
    pb::MatchTask {
        entrants: m.entrants.iter().map(|e| match_entrant_to_proto(e, decide, weight_bytes)).collect(),
        network_depth: m.network_depth,
        rules: Some(rules_to_proto(&m.rules)),
        format: Some(format),
    }
}

// ---- Wire to engine ----

/// Which message an entrant arrived in, for field paths.
fn entrant_kind(e: &MatchEntrant) -> &'static str {
    match e {
        MatchEntrant::Network { .. } => "network",
        MatchEntrant::Fixed { .. } => "fixed",
    }
}

fn fixed_from_proto(field: &str, f: &pb::FixedEntrant) -> Result<MatchEntrant, ProtoError> {
    let (depth, seed) = (f.depth, f.salt_or_seed);
    let aloa = |evaluator| {
        if seed == 0 {
            Ok(FixedPlayer::Aloa { evaluator, depth })
        } else {
            Err(ProtoError::new(format!("{field}.salt_or_seed"), format!("ALoA takes no salt or seed, got {seed}")))
        }
    };
    let player = match known(&format!("{field}.kind"), f.kind)? {
        pb::FixedKind::AloaQuad => aloa(AloaKind::Quad)?,
        pb::FixedKind::AloaNormal => aloa(AloaKind::Normal)?,
        pb::FixedKind::Random => FixedPlayer::Random { depth, salt: seed },
        pb::FixedKind::RandomAnn => FixedPlayer::RandomAnn { depth, seed },
        pb::FixedKind::RandomAnnPrinted => FixedPlayer::RandomAnnPrinted { depth, seed },
        pb::FixedKind::Unspecified => return Err(ProtoError::new(format!("{field}.kind"), "unspecified")),
    };
    // The depth is checked with the rest of the task by `MatchTask::validate`.
    Ok(MatchEntrant::Fixed { serial: f.serial, player })
}

fn match_entrant_from_proto(
    field: &str,
    e: pb::MatchEntrant,
    resolve: Resolve<'_>,
) -> Result<MatchEntrant, ProtoError> {
    match e.kind {
        Some(pb::match_entrant::Kind::Network(n)) => {
            let Entrant { serial, chromosome } = entrant_from_proto(&format!("{field}.network"), n, resolve)?;
            Ok(MatchEntrant::Network { serial, chromosome })
        }
        Some(pb::match_entrant::Kind::Fixed(f)) => fixed_from_proto(&format!("{field}.fixed"), &f),
        None => Err(ProtoError::new(format!("{field}.kind"), "missing: neither a network nor a fixed player")),
    }
}

/// The wire path and problem of an engine validation error.
fn match_task_error(task: &MatchTask, err: TaskError) -> ProtoError {
    let pairing = |p: usize| format!("format.pairs.pairings[{p}]");
    let pairs = match &task.format {
        MatchFormat::Pairs(pairs) => pairs.as_slice(),
        MatchFormat::Knockout { .. } => &[],
    };
    match err {
        TaskError::MatchEntrants(n) => {
            ProtoError::new("entrants", format!("a match task needs 2 to {MAX_ENTRANTS} entrants, got {n}"))
        }
        TaskError::Depth(d) => ProtoError::new("network_depth", format!("search depth {d} is outside 1..={MAX_DEPTH}")),
        TaskError::FixedDepth { entrant, depth } => ProtoError::new(
            format!("entrants[{entrant}].fixed.depth"),
            format!("search depth {depth} is outside 1..={MAX_DEPTH}"),
        ),
        TaskError::DuplicateSerial(serial) => {
            // The second entrant with the serial is the one in error.
            let i = task.entrants.iter().enumerate().filter(|(_, e)| e.serial() == serial).nth(1).map_or(0, |(i, _)| i);
            let kind = task.entrants.get(i).map_or("network", entrant_kind);
            ProtoError::new(format!("entrants[{i}].{kind}.serial"), format!("serial {serial} appears twice"))
        }
        TaskError::MatchCount(n) => {
            ProtoError::new("format.pairs.pairings", format!("a match task plays 1 to {MAX_MATCHES} matches, got {n}"))
        }
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
        TaskError::OpeningPlies { pairing: p, plies } => ProtoError::new(
            format!("{}.opening_plies", pairing(p)),
            format!("{plies} opening plies, at most {}", MAX_OPENING_PLIES),
        ),
        TaskError::KnockoutSize(n) => {
            ProtoError::new("format.knockout", format!("a knockout needs a power of two entrants, got {n}"))
        }
        // Tournament errors; a match task does not make them, but a message is still right.
        other @ TaskError::EntrantCount(_) => ProtoError::new("entrants", other.to_string()),
    }
}

/// A match task from the wire: the wire-only fields checked here, the rest by
/// [`MatchTask::validate`], whose errors name the offending field.
pub(super) fn match_task_from_proto(t: pb::MatchTask, resolve: Resolve<'_>) -> Result<MatchTask, ProtoError> {
    // Counted before converting, so an oversized list is refused before its weights are checked.
    if t.entrants.len() > MAX_ENTRANTS {
        return Err(ProtoError::new(
            "entrants",
            format!("a match task needs 2 to {MAX_ENTRANTS} entrants, got {}", t.entrants.len()),
        ));
    }
    let entrants = t
        .entrants
        .into_iter()
        .enumerate()
        .map(|(i, e)| match_entrant_from_proto(&format!("entrants[{i}]"), e, resolve))
        .collect::<Result<Vec<_>, _>>()?;
    let format = match t.format {
        Some(pb::match_task::Format::Pairs(p)) => MatchFormat::Pairs(
            p.pairings
                .iter()
                .map(|p| Pairing { a: p.a as usize, b: p.b as usize, seed: p.seed, opening_plies: p.opening_plies })
                .collect(),
        ),
        Some(pb::match_task::Format::Knockout(k)) => MatchFormat::Knockout { seed: k.seed },
        None => return Err(ProtoError::new("format", "missing: neither pairs nor a knockout")),
    };
    let task = MatchTask { entrants, network_depth: t.network_depth, rules: rules_from_proto(t.rules)?, format };
    match task.validate() {
        Ok(()) => Ok(task),
        Err(err) => Err(match_task_error(&task, err)),
    }
}

/// A match outcome: 1 to [`MAX_MATCHES`] matches between entrant indices below [`MAX_ENTRANTS`]
/// (the largest task's; see the module documentation for what only the master can check).
pub(super) fn match_outcome_from_proto(m: &pb::MatchOutcome) -> Result<MatchTaskOutcome, ProtoError> {
    if m.matches.is_empty() || m.matches.len() > MAX_MATCHES {
        return Err(ProtoError::new(
            "match.matches",
            format!("1 to {MAX_MATCHES} matches expected, got {}", m.matches.len()),
        ));
    }
    let matches = m
        .matches
        .iter()
        .enumerate()
        .map(|(i, x)| match_from_proto(x, MAX_ENTRANTS).map_err(|e| e.within(&format!("match.matches[{i}]"))))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(MatchTaskOutcome { matches })
}

#[cfg(test)]
mod tests;
