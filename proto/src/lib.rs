//! The gRPC service between the loa-evolve master and its remote workers.
//!
//! - [`pb`]: the messages and the tonic client and server generated from `loa.proto`.
//! - [`convert`]: conversions between those messages and the engine's [`Task`] and
//!   [`TaskOutcome`], validating everything that comes off the network.
//! - [`cache`]: chromosome caching (issue 14): the bounded [`cache::Lru`] a worker keeps its
//!   chromosomes in and the master mirrors it with, and how a worker resolves the networks a task
//!   names by id alone.
//! - [`codec`]: prost's gRPC codec, reserving each message's buffer whole (issue 14).
//! - [`delivery`]: the worker's end of `Deliver` and `DeliverBatches`, Complete as one stream
//!   (issue 14), one outcome or several a message.
//! - [`peers`]: workers serving each other the chromosomes they hold (issue 14), so new networks
//!   travel as their origins and their parents come from peers rather than from the master.
//!
//! prost types stay at the boundary: the master and workers work with the engine's types and
//! convert at the edge, so a malformed message is rejected with a [`ProtoError`] naming the
//! field before it reaches the scheduler or a game.
//!
//! [`Task`]: loa_engine::tasks::Task
//! [`TaskOutcome`]: loa_engine::tasks::TaskOutcome

pub mod accept;
pub mod cache;
pub mod codec;
pub mod convert;
pub mod delivery;
mod error;
pub mod peers;

pub use error::ProtoError;

/// Code generated from `loa.proto` (package `loa.v1`).
#[allow(missing_docs, clippy::all, clippy::pedantic)]
pub mod pb {
    tonic::include_proto!("loa.v1");
}

/// Most tasks one call leases (`LeaseRequest.max_tasks` is clamped to it; a
/// `CompleteRequest.max_tasks` above it is refused).
pub const MAX_TASKS_PER_CALL: u32 = 64;

/// The metadata key of the shared token (`authorization: Bearer <token>`).
pub const TOKEN_HEADER: &str = "authorization";

/// The metadata value carrying `token`.
pub fn bearer(token: &str) -> String {
    format!("Bearer {token}")
}

/// Whether a presented token equals the expected one, compared in time independent of where
/// the first difference is, so a token cannot be guessed byte by byte from response times.
pub fn same_token(given: &[u8], expected: &[u8]) -> bool {
    given.len() == expected.len() && given.iter().zip(expected).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}
