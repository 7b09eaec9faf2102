//! How to run a worker.

use std::time::Duration;

/// How to run a worker.
#[derive(Clone, Debug)]
pub struct WorkerOptions {
    /// The master's URL, e.g. `http://node001:50051`.
    pub master: String,
    /// Player threads.
    pub slots: usize,
    /// Shared token, if the master wants one.
    pub token: Option<String>,
    /// The CA certificate (PEM) that signed the master's TLS certificate; needed for `https://`.
    pub tls_ca: Option<Vec<u8>>,
    /// A name for the master's displays.
    pub name: String,
    /// Tasks held per slot (one playing, the rest waiting), so players never idle.
    pub ahead: usize,
    /// Longest pause between attempts to reach an absent master.
    pub max_backoff: Duration,
    /// Exit (successfully) once the master has not answered for this long; `None`: wait forever.
    pub give_up_after: Option<Duration>,
}

impl WorkerOptions {
    /// Options for joining `master` with one slot per core, named after the host and process.
    pub fn new(master: impl Into<String>) -> WorkerOptions {
        let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
            .map(|h| h.trim().to_owned())
            .or_else(|_| std::env::var("HOSTNAME"))
            .unwrap_or_else(|_| "worker".to_owned());
        WorkerOptions {
            master: master.into(),
            slots: std::thread::available_parallelism().map_or(1, |n| n.get()),
            token: None,
            tls_ca: None,
            name: format!("{host}:{}", std::process::id()),
            ahead: 2,
            max_backoff: Duration::from_secs(5),
            give_up_after: None,
        }
    }
}
