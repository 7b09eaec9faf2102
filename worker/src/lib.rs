//! The worker: joins a master over gRPC and plays the tasks it leases.
//!
//! [`run`] registers with the master and keeps one stream open to it (protocol version 2,
//! `loa-proto`): it asks for a few tasks per slot ahead so no player thread waits for a round
//! trip, plays them on `slots` threads with [`MatchTask::run`], and sends their outcomes, which
//! renews its leases. When the master is away it retries with capped exponential back-off, and
//! registers again if the master forgot it (a restarted master); outcomes it finished meanwhile
//! are still delivered, since task ids do not change across master restarts. [`Control::stop`]
//! (Ctrl-C) makes it finish the tasks in hand, deliver them and leave; [`Control::kill`] drops
//! everything at once without a word to the master, as a crashed machine would (for tests).
//!
//! New networks come as their origins, which the worker makes from their parents;
//! with `WorkerOptions::peer_listen` it also serves the chromosomes it holds to the master's
//! other workers, which then fetch parents and survivors from it instead of from the master
//! (`loa_proto::peers`).
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
