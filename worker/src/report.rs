//! What a worker did, and why it could not run.

/// What a worker did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WorkerReport {
    /// Times it registered (more than 1: the master forgot it or restarted).
    pub registrations: u64,
    /// Tasks played.
    pub played: u64,
    /// Outcomes the master kept.
    pub accepted: u64,
    /// Outcomes the master already had from another worker.
    pub duplicates: u64,
    /// Outcomes for tasks the master did not know (e.g. from an earlier run).
    pub unknown: u64,
    /// Outcomes that could not be delivered.
    pub undelivered: u64,
    /// It stopped because the master it had joined stayed unreachable for `give_up_after`.
    pub master_gone: bool,
    /// Networks that came with their weights.
    pub received: u64,
    /// Networks sent as their id alone and found in the chromosome cache.
    pub cache_hits: u64,
    /// Networks sent as their id alone that the cache lacked, fetched from the master.
    pub fetched: u64,
    /// Leased tasks dropped because the master no longer had their chromosomes: their outcome was
    /// in already.
    pub abandoned: u64,
    /// Networks made from their origins.
    pub made: u64,
    /// Chromosomes fetched from other workers.
    pub from_peers: u64,
    /// Chromosomes asked of other workers and not got from them.
    pub peer_misses: u64,
    /// Origins and sources that could not be used (those networks came from the master).
    pub unusable: u64,
}

/// Why a worker could not run.
#[derive(Debug, thiserror::Error)]
pub enum WorkerError {
    /// Bad options (URL, token, slots).
    #[error("{0}")]
    Options(String),
    /// The master refused our token.
    #[error("the master refused this worker: {0} (check --token)")]
    Refused(String),
    /// The master's TLS certificate is not trusted (not signed by the CA given).
    #[error("the master's TLS certificate is not trusted: {0} (check --tls-ca)")]
    Untrusted(String),
    /// The master speaks another protocol version (the message names both).
    #[error("the master refused this worker: {0}")]
    Version(String),
    /// The master never answered in the `give_up_after` seconds the worker waited.
    #[error(
        "never reached the master at {master} in {waited} s: {reason} (is it running, and is --master its address?)"
    )]
    NeverReached {
        /// The master's URL.
        master: String,
        /// Seconds waited.
        waited: u64,
        /// Why the last attempt failed, e.g. "connection refused".
        reason: String,
    },
    /// Threads or the runtime could not start.
    #[error("cannot start: {0}")]
    Io(std::io::Error),
}
