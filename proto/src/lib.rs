//! The gRPC protocol between the master and its workers (version 5, `loa.proto`, told in
//! `docs/protocol.md`). prost types stay at this boundary: a malformed message is refused with a
//! [`ProtoError`] naming the field before it reaches the scheduler or a game.
//!
//! - [`pb`]: the generated code; [`v1`]: version 1's registration, refused by name.
//! - [`convert`]: messages to and from the engine's task types, validating what comes in.
//! - [`cache`]: the worker's chromosome cache, the master's mirror of it, and resolving networks.
//! - [`codec`]: prost's codec through contiguous slices. [`peers`]: workers serving each other
//!   chromosomes. [`accept`]: accepting connections by the thousand; [`admit`]: how many, and
//!   for how long idle. [`bounds`]: the largest
//!   request, and repeated fields counted on the wire before prost builds them.
//! - [`limits`]: how much one message may carry (the most used are re-exported here).
//! - [`check_token`]: what a usable token is (never empty).

#![warn(missing_docs)]
pub mod accept;
pub mod admit;
pub mod bounds;
pub mod cache;
pub mod codec;
pub mod convert;
mod error;
pub mod limits;
pub mod peers;
mod token;

pub use error::ProtoError;
use error::each;
pub use limits::{MAX_MESSAGE_BYTES, MAX_TASKS_PER_MESSAGE, MAX_WANTED};
pub use token::{MIN_PUBLIC_TOKEN, TokenError, check_token};

/// The message of the UNAVAILABLE status that ends a worker's stream once the run is over (it
/// finished; a master stopped to be resumed says otherwise): the worker leaves instead of
/// waiting for the master to come back.
pub const RUN_OVER: &str = "the run is over";

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
pub const PROTOCOL_VERSION: u32 = 5;

/// The metadata key of the shared token (`authorization: Bearer <token>`).
pub const TOKEN_HEADER: &str = "authorization";

/// The metadata key of a worker's own credential (`RegisterReply.credential`), which every call
/// after its registration carries.
pub const CREDENTIAL_HEADER: &str = "loa-credential";

/// `message` as a request carrying `credential` (none if it cannot be a header value, which the
/// master then refuses).
pub fn with_credential<T>(message: T, credential: &str) -> tonic::Request<T> {
    let mut request = tonic::Request::new(message);
    if let Ok(value) = credential.parse() {
        request.metadata_mut().insert(CREDENTIAL_HEADER, value);
    }
    request
}

/// The metadata value carrying `token`.
pub fn bearer(token: &str) -> String {
    format!("Bearer {token}")
}

/// Whether a presented token is the expected one, in time independent of where they differ, so
/// it cannot be guessed byte by byte from response times.
pub fn same_token(given: &[u8], expected: &[u8]) -> bool {
    given.len() == expected.len() && given.iter().zip(expected).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}
