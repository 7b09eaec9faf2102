//! The worker: joins a master over gRPC (`loa-proto`) and plays the tasks it leases on `slots`
//! threads with [`Task::run`], retrying an absent master with capped back-off.
//!
//! - [`options`]: how to run a worker ([`WorkerOptions`]). [`serve`]: [`run`], its whole life.
//! - [`control`]: [`Control`] to stop or kill it, [`spawn`] and [`WorkerHandle`] to run it in
//!   the background. [`report`]: [`WorkerReport`], what it did, and [`WorkerError`].
//! - Internals: `session` (registering and the stream), `players` (the player threads and their
//!   queue), `client` (the connection, token and back-off).
//!
//! [`Task::run`]: loa_engine::tasks::Task::run

#![warn(missing_docs)]
mod client;
pub mod control;
pub mod options;
mod players;
pub mod report;
pub mod serve;
mod session;

pub use control::{Control, WorkerHandle, spawn};
pub use options::WorkerOptions;
pub use report::{WorkerError, WorkerReport};
pub use serve::run;

/// "1 slot", "2 slots".
pub fn slots(n: usize) -> String {
    format!("{n} slot{}", if n == 1 { "" } else { "s" })
}
