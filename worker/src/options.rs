//! How to run a worker.

use std::time::Duration;

/// The most player threads a worker runs: far more than any machine's cores, and a bound on
/// the threads a mistyped `--slots` would start (each with its own stack).
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
    /// Tasks held per slot (one playing, the rest waiting), so players never idle.
    pub ahead: usize,
    /// Longest pause between attempts to reach an absent master.
    pub max_backoff: Duration,
    /// Exit (successfully) once the master has not answered for this long; `None`: wait forever.
    pub give_up_after: Option<Duration>,
    /// Chromosomes kept between tasks, least recently used first out, so the master
    /// can send a network's id instead of its weights; 0 keeps none (every task then carries its
    /// weights). About 8 KiB each.
    pub chromosome_cache: usize,
    /// The capacity to announce to the master instead of `chromosome_cache`. Only for tests: a
    /// worker that announces more than it keeps lacks chromosomes the master believes it holds,
    /// and must fetch them.
    pub announced_cache: Option<usize>,
    /// Outcomes delivered together in one message, 1 to 64: the worker holds this many tasks
    /// more than `slots × ahead`, so its players keep playing while a batch is on its way, and
    /// sends its finished outcomes when it has this many or when its queue of unstarted tasks is
    /// empty (so an outcome waits at most for the tasks in hand). 1 (the default) delivers each
    /// outcome as it finishes. For masters serving thousands of workers, whose cost is per
    /// message: a batch of K costs the master about one message's work each way instead of K.
    pub batch: usize,
    /// Serve the chromosomes this worker holds to other workers of its master on this address
    /// (port 0: any free port), so the master can name it as a source instead of
    /// sending weights itself. `None` (the default) serves none.
    pub peer_listen: Option<std::net::SocketAddr>,
    /// The host other workers reach that service at; `None`: the address the master sees this
    /// worker's connection come from.
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
            ahead: 2,
            max_backoff: Duration::from_secs(5),
            give_up_after: None,
            chromosome_cache: loa_proto::cache::DEFAULT_CAPACITY,
            announced_cache: None,
            batch: 1,
            peer_listen: None,
            peer_host: None,
        }
    }
}
