//! The gRPC protocol between the loa-evolve master and its remote workers (version 2,
//! `loa.proto`): a worker registers, then keeps one stream open that carries its outcomes to the
//! master and tasks back.
//!
//! - [`pb`]: the messages and the tonic client and server generated from `loa.proto`;
//!   [`v1`]: protocol version 1's registration, which a master of version 2 refuses by name.
//! - [`convert`]: conversions between those messages and the engine's [`MatchTask`] and
//!   [`TaskResult`], validating everything that comes off the network.
//! - [`cache`]: chromosome caching: the bounded [`cache::Lru`] a worker keeps its chromosomes in
//!   and the master mirrors it with, and how a worker resolves the networks a task names by id
//!   alone, makes from their origins or fetches.
//! - [`codec`]: prost's gRPC codec, each message written and read through one contiguous slice.
//! - [`peers`]: workers serving each other the chromosomes they hold, so new networks travel as
//!   their origins and their parents come from peers rather than from the master.
//! - [`accept`]: accepting connections by the thousand (the open-files limit, no busy loop when
//!   it runs out).
//!
//! prost types stay at the boundary: the master and workers work with the engine's types and
//! convert at the edge, so a malformed message is rejected with a [`ProtoError`] naming the
//! field before it reaches the scheduler or a game.
//!
//! [`MatchTask`]: loa_engine::tasks::MatchTask
//! [`TaskResult`]: loa_engine::tasks::TaskResult

pub mod accept;
pub mod cache;
pub mod codec;
pub mod convert;
mod error;
pub mod peers;

pub use error::ProtoError;

/// Code generated from `loa.proto` (package `loa.v2`).
#[allow(missing_docs, clippy::all, clippy::pedantic)]
pub mod pb {
    tonic::include_proto!("loa.v2");
}

/// Code generated from `v1.proto`: protocol version 1's registration (package `loa.v1`).
#[allow(missing_docs, clippy::all, clippy::pedantic)]
pub mod v1 {
    tonic::include_proto!("loa.v1");
}

/// The protocol version this crate speaks (`RegisterRequest.protocol`).
pub const PROTOCOL_VERSION: u32 = 2;

/// Most tasks one message carries, and most outcomes one message may carry.
pub const MAX_TASKS_PER_MESSAGE: usize = 64;

/// The largest message either side sends: 64 of the largest tasks (six networks' weights and
/// 256 pairings each) are about 4 MiB.
pub const MAX_MESSAGE_BYTES: usize = 16 << 20;

/// Most tasks a worker may ask for and not yet have been sent (`WorkerMessage.want`, summed).
pub const MAX_WANTED: u64 = 1024;

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
