//! How to run a worker.

use std::time::Duration;

/// The most player threads a worker runs: more than any machine's cores, and a bound on the
/// threads a mistyped `--slots` would start.
pub const MAX_SLOTS: usize = 1024;

/// How to run a worker.
#[derive(Clone, Debug)]
pub struct WorkerOptions {
    /// The master's URL, e.g. `http://node001:50051`.
    pub master: String,
    /// Player threads, 1 to [`MAX_SLOTS`].
    pub slots: usize,
    /// Shared token, if the master wants one.
    pub token: Option<String>,
    /// The CA certificate (PEM) that signed the master's TLS certificate; needed for `https://`.
    pub tls_ca: Option<Vec<u8>>,
    /// A name for the master's displays.
    pub name: String,
    /// Longest pause between attempts to reach an absent master.
    pub max_backoff: Duration,
    /// Exit (successfully) once the master has not answered for this long; `None`: wait forever.
    pub give_up_after: Option<Duration>,
    /// Chromosomes kept between tasks (about 8 KiB each), so the master can send a network's id
    /// instead of its weights; 0 keeps none.
    pub chromosome_cache: usize,
    /// Outcomes delivered together in one message, 1 to 64 (the worker holds as many tasks more,
    /// so its players keep playing meanwhile): a master's cost is per message.
    pub batch: usize,
    /// Serve the chromosomes this worker holds to the master's other workers on this address
    /// (port 0: any free port); `None`: serve none.
    pub peer_listen: Option<std::net::SocketAddr>,
    /// The host other workers reach that service at; `None`: the address the master sees this
    /// worker connect from.
    pub peer_host: Option<String>,
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
            max_backoff: Duration::from_secs(5),
            give_up_after: None,
            chromosome_cache: loa_proto::cache::DEFAULT_CAPACITY,
            batch: 1,
            peer_listen: None,
            peer_host: None,
        }
    }
}
