//! Bounds checked on a message's bytes before prost decodes them: how large a request to the
//! master may be, and how many elements its repeated fields may hold.
//!
//! Prost builds every element of a repeated field before anyone can count them, and an empty
//! element costs 2 bytes on the wire but tens in memory: a request of 1 MiB could make the master
//! allocate tens of MiB. So each repeated field a peer can send is counted on the wire first, and
//! a message with more elements than a legal one holds is refused without being built.

use crate::ProtoError;
use crate::limits::{MAX_PEER_IDS, MAX_TASKS_PER_MESSAGE};
use crate::pb;
use loa_engine::tasks::{MAX_ENTRANTS, MAX_MATCHES, MAX_SELF_PLAY_GAMES};
use prost::encoding::decode_varint;

/// Largest request the master decodes (bytes).
///
/// The largest legal request is a `WorkerMessage` of [`MAX_TASKS_PER_MESSAGE`] (64)
/// outcomes, each the larger of a failure of [`crate::limits::MAX_FAILURE_BYTES`] and a match
/// outcome of [`MAX_MATCHES`] (256) matches of at most 32 bytes each (five small varints and two
/// games of three): about 64 × 8.2 KiB = 525 KiB. A self-play outcome holds at most
/// [`loa_engine::tasks::MAX_SELF_PLAY_MOVES`] moves of 2 bytes and a byte a variation, under
/// 100 KiB, so workers send fewer of them to a message, as many as fit this bound
/// ([`crate::convert::outcome_size_bound`]). Registrations (a name of 200 bytes) and fetches (64
/// task ids and 1 024 ids of 18 bytes) are far smaller. A test builds that largest message and checks
/// that it fits with room to spare, and that the bound is not twice what it needs.
pub const MAX_REQUEST_BYTES: usize = 640 << 10;

/// A message type's bounds on the wire, checked before prost decodes it.
pub trait WireBounds {
    /// Refuses `bytes` if a repeated field holds more elements than a legal message has. Bytes
    /// that do not parse pass: prost then refuses them, having built no more than was counted.
    fn check_wire(_bytes: &[u8]) -> Result<(), ProtoError> {
        Ok(())
    }
}

// Messages only the master sends, and the master's own replies, are bounded by their size.
impl WireBounds for pb::RegisterRequest {}
impl WireBounds for pb::RegisterReply {}
impl WireBounds for pb::MasterMessage {}
impl WireBounds for pb::FetchChromosomesReply {}
impl WireBounds for crate::v1::RegisterRequest {}
impl WireBounds for crate::v1::RegisterReply {}

impl WireBounds for pb::WorkerMessage {
    fn check_wire(bytes: &[u8]) -> Result<(), ProtoError> {
        let mut outcomes = Counter::new("outcomes", MAX_TASKS_PER_MESSAGE);
        each_field(bytes, |number, payload| match number {
            2 => {
                let i = outcomes.count(1)?;
                check_outcome(payload.unwrap_or_default()).map_err(|e| e.within(&format!("outcomes[{i}]")))
            }
            _ => Ok(()),
        })
    }
}

impl WireBounds for pb::FetchChromosomesRequest {
    fn check_wire(bytes: &[u8]) -> Result<(), ProtoError> {
        let mut task_ids = Counter::new("task_ids", MAX_TASKS_PER_MESSAGE);
        let mut ids = Counter::new("ids", MAX_TASKS_PER_MESSAGE * MAX_ENTRANTS);
        each_field(bytes, |number, payload| match (number, payload) {
            // Packed: one varint per id.
            (1, Some(packed)) => task_ids.count(varints(packed)).map(drop),
            (1, None) => task_ids.count(1).map(drop),
            (2, _) => ids.count(1).map(drop),
            _ => Ok(()),
        })
    }
}

impl WireBounds for pb::PeerRequest {
    fn check_wire(bytes: &[u8]) -> Result<(), ProtoError> {
        let mut ids = Counter::new("ids", MAX_PEER_IDS);
        each_field(bytes, |number, _| if number == 1 { ids.count(1).map(drop) } else { Ok(()) })
    }
}

/// An outcome's matches or games, summed over every occurrence of its `match` or `self_play`
/// field (prost merges them). A game's moves are bytes, built as one allocation: the request's
/// size bounds them.
fn check_outcome(bytes: &[u8]) -> Result<(), ProtoError> {
    let mut matches = Counter::new("match.matches", MAX_MATCHES);
    let mut games = Counter::new("self_play.games", MAX_SELF_PLAY_GAMES);
    each_field(bytes, |number, payload| match (number, payload) {
        (5, Some(outcome)) => {
            each_field(outcome, |number, _| if number == 1 { games.count(1).map(drop) } else { Ok(()) })
        }
        (2, Some(outcome)) => each_field(outcome, |number, payload| match (number, payload) {
            (1, summary) => {
                let i = matches.count(1)?;
                check_match(summary.unwrap_or_default()).map_err(|e| e.within(&format!("match.matches[{i}]")))
            }
            _ => Ok(()),
        }),
        _ => Ok(()),
    })
}

/// A match's games: two.
fn check_match(bytes: &[u8]) -> Result<(), ProtoError> {
    let mut games = Counter::new("games", 2);
    each_field(bytes, |number, _| if number == 5 { games.count(1).map(drop) } else { Ok(()) })
}

/// Elements of one repeated field counted against its bound.
struct Counter {
    field: &'static str,
    max: usize,
    seen: usize,
}

impl Counter {
    fn new(field: &'static str, max: usize) -> Counter {
        Counter { field, max, seen: 0 }
    }

    /// Counts `n` more; the index of the first of them, or the refusal once past the bound.
    fn count(&mut self, n: usize) -> Result<usize, ProtoError> {
        let first = self.seen;
        self.seen = self.seen.saturating_add(n);
        if self.seen > self.max {
            let problem = format!("more than {} elements, the most a legal message holds: refused unread", self.max);
            return Err(ProtoError::new(self.field, problem));
        }
        Ok(first)
    }
}

/// Calls `visit` with each field's number and, for a length-delimited field, its bytes; stops at
/// the first error `visit` returns, or quietly where the bytes stop parsing.
fn each_field(
    mut bytes: &[u8],
    mut visit: impl FnMut(u64, Option<&[u8]>) -> Result<(), ProtoError>,
) -> Result<(), ProtoError> {
    while !bytes.is_empty() {
        let Ok(key) = decode_varint(&mut bytes) else { return Ok(()) };
        let payload = match key & 7 {
            0 => match decode_varint(&mut bytes) {
                Ok(_) => None,
                Err(_) => return Ok(()),
            },
            1 | 5 => {
                let width = if key & 7 == 1 { 8 } else { 4 };
                let Some(rest) = bytes.get(width..) else { return Ok(()) };
                bytes = rest;
                None
            }
            2 => {
                let Ok(len) = decode_varint(&mut bytes) else { return Ok(()) };
                let Some(payload) = usize::try_from(len).ok().and_then(|len| bytes.get(..len)) else { return Ok(()) };
                bytes = &bytes[payload.len()..];
                Some(payload)
            }
            // Groups, which prost refuses.
            _ => return Ok(()),
        };
        visit(key >> 3, payload)?;
    }
    Ok(())
}

/// How many varints a packed run holds (a byte without its top bit ends one).
fn varints(packed: &[u8]) -> usize {
    packed.iter().filter(|&&b| b & 0x80 == 0).count()
}

#[cfg(test)]
mod tests;
