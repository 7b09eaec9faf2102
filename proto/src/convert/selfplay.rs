//! Self-play tasks ([`SelfPlayTask`]) and their outcomes on the wire: the task is a [`pb::Task`]
//! with one network entrant and the `self_play` format, so its network travels (by id, origin
//! or weights) as every task's networks do.

use super::{OUTCOMES, REASONS, Resolve, Sending, from_wire, network_from_proto, network_to_proto, to_wire};
use crate::{ProtoError, each, pb};
use loa_engine::network::Chromosome;
use loa_engine::players::MAX_DEPTH;
use loa_engine::tasks::{MAX_SELF_PLAY_GAMES, PlayedGame, SelfPlayGame, SelfPlayOutcome, SelfPlayTask};
use loa_engine::{BoardSize, Move, Rules, Start};

// ---- Engine to wire ----

/// The `self_play` format and the entrant of `task`, its network travelling as `decide` says.
pub(super) fn self_play_to_proto(
    task: &SelfPlayTask,
    decide: &mut dyn FnMut(&Chromosome) -> Sending,
) -> (pb::task::Format, pb::MatchEntrant) {
    let games = task.games.iter().map(|g| pb::SelfPlayGame { seed: g.seed, opening_plies: g.opening_plies }).collect();
    let network = network_to_proto(task.serial, &task.network, decide);
    let entrant = pb::MatchEntrant { kind: Some(pb::match_entrant::Kind::Network(network)) };
    (pb::task::Format::SelfPlay(pb::SelfPlay { games, leaves: task.leaves }), entrant)
}

fn moves_to_bytes(moves: &[Move], out: &mut Vec<u8>) {
    out.extend(moves.iter().flat_map(|m| m.to_bits().to_le_bytes()));
}

fn played_to_proto(g: &PlayedGame) -> pb::PlayedGame {
    let mut moves = Vec::with_capacity(2 * g.moves.len());
    moves_to_bytes(&g.moves, &mut moves);
    let mut leaves = Vec::new();
    for variation in &g.leaves {
        // A variation is shorter than the deepest search, so its length fits a byte.
        leaves.push(u8::try_from(variation.len()).unwrap_or(u8::MAX));
        moves_to_bytes(variation, &mut leaves);
    }
    pb::PlayedGame { outcome: to_wire(OUTCOMES, g.outcome), reason: to_wire(REASONS, g.reason), moves, leaves }
}

/// The wire form of a self-play outcome.
pub(super) fn outcome_to_proto(o: &SelfPlayOutcome) -> pb::SelfPlayOutcome {
    pb::SelfPlayOutcome { games: o.games.iter().map(played_to_proto).collect() }
}

/// An upper bound on the bytes of `o` on the wire, inside its `Outcome` (so a worker can cut its
/// messages below the master's request limit).
pub(super) fn outcome_size_bound(o: &SelfPlayOutcome) -> usize {
    // Per game: the message header, two enums and the two length-prefixed byte fields.
    let game = |g: &PlayedGame| {
        6 + 2 * 3 + 2 * 6 + 2 * g.moves.len() + g.leaves.iter().map(|v| 1 + 2 * v.len()).sum::<usize>()
    };
    6 + o.games.iter().map(game).sum::<usize>()
}

// ---- Wire to engine ----

/// The self-play task of a [`pb::Task`] whose format is `self_play`: exactly one network
/// entrant; the rest is checked by [`SelfPlayTask::validate`] (by the caller).
pub(super) fn self_play_from_proto(
    s: pb::SelfPlay,
    entrants: Vec<pb::MatchEntrant>,
    depth: u32,
    rules: Rules,
    board: BoardSize,
    start: Start,
    resolve: Resolve<'_>,
) -> Result<SelfPlayTask, ProtoError> {
    let network = match entrants.as_slice() {
        [pb::MatchEntrant { kind: Some(pb::match_entrant::Kind::Network(n)) }] => n,
        [_] => return Err(ProtoError::new("entrants[0]", "a self-play task's entrant is a network")),
        other => {
            return Err(ProtoError::new("entrants", format!("a self-play task has 1 entrant, got {}", other.len())));
        }
    };
    let (serial, network) = network_from_proto(network, resolve).map_err(|e| e.within("entrants[0].network"))?;
    let n = s.games.len();
    if !(1..=MAX_SELF_PLAY_GAMES).contains(&n) {
        let problem = format!("1 to {MAX_SELF_PLAY_GAMES} games expected, got {n}");
        return Err(ProtoError::new("format.self_play.games", problem));
    }
    let games = s.games.iter().map(|g| SelfPlayGame { seed: g.seed, opening_plies: g.opening_plies }).collect();
    Ok(SelfPlayTask { serial, network, depth, rules, board, start, games, leaves: s.leaves })
}

/// Moves from their 2-byte forms; `field` names the bytes on error.
fn moves_from_bytes(field: &str, bytes: &[u8]) -> Result<Vec<Move>, ProtoError> {
    if !bytes.len().is_multiple_of(2) {
        return Err(ProtoError::new(field, format!("{} bytes, not 2 a move", bytes.len())));
    }
    bytes
        .chunks_exact(2)
        .enumerate()
        .map(|(i, b)| {
            let bits = u16::from_le_bytes([b[0], b[1]]);
            Move::from_packed(bits)
                .ok_or_else(|| ProtoError::new(format!("{field}[{i}]"), format!("{bits:#06x} is no move")))
        })
        .collect()
}

fn leaves_from_bytes(bytes: &[u8]) -> Result<Vec<Vec<Move>>, ProtoError> {
    let mut variations = Vec::new();
    let mut rest = bytes;
    while let Some((&n, after)) = rest.split_first() {
        let i = variations.len();
        let n = usize::from(n);
        if n >= MAX_DEPTH as usize {
            return Err(ProtoError::new(
                format!("leaves[{i}]"),
                format!("{n} moves, longer than any search's variation"),
            ));
        }
        let Some((moves, after)) = after.split_at_checked(2 * n) else {
            return Err(ProtoError::new(format!("leaves[{i}]"), format!("{n} moves announced, fewer sent")));
        };
        variations.push(moves_from_bytes(&format!("leaves[{i}]"), moves)?);
        rest = after;
    }
    Ok(variations)
}

fn played_from_proto(g: &pb::PlayedGame) -> Result<PlayedGame, ProtoError> {
    Ok(PlayedGame {
        outcome: from_wire(OUTCOMES, "outcome", g.outcome)?,
        reason: from_wire(REASONS, "reason", g.reason)?,
        moves: moves_from_bytes("moves", &g.moves)?,
        leaves: leaves_from_bytes(&g.leaves)?,
    })
}

/// A self-play outcome: 1 to [`MAX_SELF_PLAY_GAMES`] games of valid moves (the master replays
/// them against its task).
pub(super) fn outcome_from_proto(o: &pb::SelfPlayOutcome) -> Result<SelfPlayOutcome, ProtoError> {
    let n = o.games.len();
    if !(1..=MAX_SELF_PLAY_GAMES).contains(&n) {
        let problem = format!("1 to {MAX_SELF_PLAY_GAMES} games expected, got {n}");
        return Err(ProtoError::new("self_play.games", problem));
    }
    Ok(SelfPlayOutcome { games: each("self_play.games", &o.games, played_from_proto)? })
}

#[cfg(test)]
mod tests;
