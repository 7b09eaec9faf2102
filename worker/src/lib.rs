//! The worker: joins a master over gRPC (`loa-proto`) and plays the tasks it leases on `slots`
//! threads with [`MatchTask::run`]. It retries an absent master with capped back-off and
//! registers again with one that forgot it; [`Control::stop`] (Ctrl-C) makes it finish the tasks
//! in hand, deliver them and leave, [`Control::kill`] drops everything as a crash would.
//!
//! - [`options`]: how to run a worker ([`WorkerOptions`]).
//! - [`serve`]: [`run`], a worker's life from connecting to leaving.
//! - [`control`]: [`Control`] to stop it, [`spawn`] and [`WorkerHandle`] for a background worker.
//! - [`report`]: [`WorkerReport`], what it did, and [`WorkerError`].
//! - `session` (registering and the stream), `players` (the player threads and their local
//!   queue), `client` (the connection, token and back-off): internals.
//!
//! [`MatchTask::run`]: loa_engine::tasks::MatchTask::run

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
