//! The worker: joins a master over gRPC and plays the tasks it leases.
//!
//! [`run`] registers with the master, keeps a few tasks per slot leased ahead so no player thread
//! waits for a round trip, plays them on `slots` threads with [`Task::run`], reports outcomes and
//! sends heartbeats. When the master is away it retries with capped exponential back-off, and
//! registers again if the master forgot it (a restarted master); outcomes it finished meanwhile
//! are still delivered, since task ids do not change across master restarts. [`Control::stop`]
//! (Ctrl-C) makes it finish the tasks in hand, deliver them and leave; [`Control::kill`] drops
//! everything at once without a word to the master, as a crashed machine would (for tests).
//!
//! [`Task::run`]: loa_engine::tasks::Task::run

mod client;
mod players;
mod session;

use session::{Ended, Session};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

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

/// Stops a running worker from another thread.
#[derive(Clone, Debug, Default)]
pub struct Control {
    stop: Arc<AtomicBool>,
    kill: Arc<AtomicBool>,
}

impl Control {
    /// Finish the tasks in hand, deliver their outcomes, leave.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Release);
    }
    /// Stop at once: no more calls, no outcomes, no leave (a simulated crash).
    pub fn kill(&self) {
        self.kill.store(true, Ordering::Release);
    }
    /// Whether [`Control::stop`] or [`Control::kill`] was called.
    pub fn stopping(&self) -> bool {
        self.stop.load(Ordering::Acquire) || self.killed()
    }
    /// Whether [`Control::kill`] was called.
    pub fn killed(&self) -> bool {
        self.kill.load(Ordering::Acquire)
    }
}

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
    /// Leased tasks dropped unstarted when stopping (the master leases them again).
    pub dropped: u64,
    /// It stopped because the master stayed unreachable for `give_up_after`.
    pub master_gone: bool,
}

/// Why a worker could not run.
#[derive(Debug)]
pub enum WorkerError {
    /// Bad options (URL, token, slots).
    Options(String),
    /// The master refused our token.
    Refused(String),
    /// The master's TLS certificate is not trusted (not signed by the CA given).
    Untrusted(String),
    /// Threads or the runtime could not start.
    Io(std::io::Error),
}

impl std::fmt::Display for WorkerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WorkerError::Options(e) => f.write_str(e),
            WorkerError::Refused(e) => write!(f, "the master refused this worker: {e} (check --token)"),
            WorkerError::Untrusted(e) => {
                write!(f, "the master's TLS certificate is not trusted: {e} (check --tls-ca)")
            }
            WorkerError::Io(e) => write!(f, "cannot start: {e}"),
        }
    }
}

impl std::error::Error for WorkerError {}

/// Polls `control` until it says stop, so loops blocked in a call notice at once.
async fn stopped(control: &Control) {
    while !control.stopping() {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Runs a worker until stopped, refused, or (with `give_up_after`) the master is gone.
pub fn run(options: WorkerOptions, control: Control) -> Result<WorkerReport, WorkerError> {
    if options.slots == 0 {
        return Err(WorkerError::Options("--slots must be at least 1".into()));
    }
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(WorkerError::Io)?;
    runtime.block_on(serve(options, control))
}

async fn serve(options: WorkerOptions, control: Control) -> Result<WorkerReport, WorkerError> {
    let client = client::connect(&options.master, options.token.as_deref(), options.tls_ca.as_deref())
        .map_err(WorkerError::Options)?;
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let local = Arc::new(players::Local::default());
    let players_stop = Arc::new(AtomicBool::new(false));
    let players = players::spawn(options.slots, &local, &tx, &players_stop, &control.kill).map_err(WorkerError::Io)?;
    drop(tx); // the players hold the only senders: the channel closes when they are done
    let salt = options.name.bytes().fold(0u64, |h, b| loa_engine::random::derive_seed(h, u64::from(b)));
    let session = Arc::new(Session {
        client,
        options,
        control: control.clone(),
        local: Arc::clone(&local),
        worker: AtomicU64::new(0),
        heartbeat: Mutex::new(Duration::from_secs(1)),
        last_contact: Mutex::new(Instant::now()),
        report: Mutex::default(),
        salt,
    });
    let reporter = tokio::spawn(Arc::clone(&session).report_loop(rx));
    let beating = {
        let session = Arc::clone(&session);
        tokio::spawn(async move { session.heartbeat_loop().await })
    };
    let ended = tokio::select! {
        ended = session.lease_loop() => ended,
        () = stopped(&control) => Ended::Stopped,
    };
    players_stop.store(true, Ordering::Release);
    let dropped = local.clear() as u64;
    if control.killed() {
        // A crash: the players finish their game in the background and throw it away.
        reporter.abort();
        beating.abort();
    } else {
        let _ = tokio::task::spawn_blocking(move || players.into_iter().for_each(|p| drop(p.join()))).await;
        // Heartbeats go on while the last outcomes are delivered, so their leases stay ours.
        let _ = reporter.await;
        beating.abort();
        session.leave().await;
    }
    let mut report = session.report.lock().unwrap_or_else(|p| p.into_inner()).clone();
    report.played = local.played.load(Ordering::Relaxed);
    report.dropped = dropped;
    match ended {
        Ended::Refused(message) => Err(WorkerError::Refused(message)),
        Ended::Untrusted(message) => Err(WorkerError::Untrusted(message)),
        Ended::MasterGone => Ok(WorkerReport { master_gone: true, ..report }),
        Ended::Stopped => Ok(report),
    }
}

/// A worker running on its own thread.
pub struct WorkerHandle {
    control: Control,
    thread: std::thread::JoinHandle<Result<WorkerReport, WorkerError>>,
}

/// Starts a worker on a background thread.
pub fn spawn(options: WorkerOptions) -> std::io::Result<WorkerHandle> {
    let control = Control::default();
    let inner = control.clone();
    let thread = std::thread::Builder::new().name("worker".into()).spawn(move || run(options, inner))?;
    Ok(WorkerHandle { control, thread })
}

impl WorkerHandle {
    /// Its control.
    pub fn control(&self) -> &Control {
        &self.control
    }

    /// Stops it gracefully and waits for it.
    pub fn stop(self) -> Result<WorkerReport, WorkerError> {
        self.control.stop();
        self.join()
    }

    /// Kills it (no leave, no outcomes) and waits for its network side to end.
    pub fn kill(self) -> Result<WorkerReport, WorkerError> {
        self.control.kill();
        self.join()
    }

    /// Waits for it to end on its own.
    pub fn join(self) -> Result<WorkerReport, WorkerError> {
        self.thread.join().unwrap_or_else(|_| Err(WorkerError::Options("the worker thread panicked".into())))
    }
}
