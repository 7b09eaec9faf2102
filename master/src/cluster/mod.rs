//! Cluster mode: the master serves its [`Scheduler`] to remote workers over gRPC (`loa-proto`,
//! `docs/protocol.md`). The server runs on a small tokio runtime in a background thread and
//! talks to the run only through the scheduler, as embedded workers do. [`serve`] starts it.
//!
//! - `service`: the `Master` service: registration, each worker's stream, fetches; and
//!   version 1's, refused by name.
//! - `directory`: which workers serve which chromosomes to their peers.
//! - `token`: the shared-token check in front of every call.
//! - `malformed`: counting the requests refused before any handler sees them.

mod directory;
mod malformed;
mod service;
mod token;

use loa_proto::admit::{Admission, Admitting, MarkCalled};
use malformed::CountMalformed;
use service::{MasterService, RefuseVersionOne};
use token::TokenCheck;
use tonic::service::interceptor::InterceptedService;

use crate::scheduler::Scheduler;
use loa_proto::pb::master_server::MasterServer;
use loa_proto::v1::master_server::MasterServer as V1MasterServer;
use std::net::SocketAddr;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError};
use std::time::Duration;

/// How to serve workers.
#[derive(Clone, Debug)]
pub struct ClusterOptions {
    /// Address to listen on (port 0: any free port, see `bound`).
    pub listen: SocketAddr,
    /// Shared token workers must present; `None` accepts every caller.
    pub token: Option<String>,
    /// How long a lease lasts without a heartbeat; a worker silent this long is dropped.
    pub lease_time: Duration,
    /// Set to the address actually bound once the server listens (for port 0 and tests).
    pub bound: Arc<OnceLock<SocketAddr>>,
    /// The share of remote workers' outcomes verified by replay.
    pub verify: crate::scheduler::VerifyRate,
    /// The share of verifications the master plays itself rather than lease a copy to
    /// another worker (default 10 %), which catches workers that lie alike.
    pub verify_by_master: crate::scheduler::VerifyRate,
    /// The key that picks which outcomes are verified, for tests that must know it
    /// ([`crate::scheduler::sampled`]); `None`, always on a cluster: random, the master's own.
    pub verify_key: Option<u64>,
    /// Serve over TLS with this certificate and key (workers then use `https://` URLs).
    pub tls: Option<TlsIdentity>,
    /// How many connections the master holds, and for how long an idle one.
    pub connections: loa_proto::admit::ConnectionLimits,
    /// The only worker names that may register (`None`: any name). A name is the worker's own
    /// claim, not a secret: this keeps out workers started for another run or by mistake, not a
    /// token holder who gives an allowed name.
    pub allowed_workers: Option<std::collections::BTreeSet<String>>,
}

/// The master's TLS certificate chain and private key, both PEM.
#[derive(Clone)]
pub struct TlsIdentity {
    /// The certificate chain, PEM.
    pub cert_pem: Vec<u8>,
    /// The private key, PEM.
    pub key_pem: Vec<u8>,
}

impl std::fmt::Debug for TlsIdentity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never print the key.
        f.debug_struct("TlsIdentity").field("cert_pem", &format_args!("{} bytes", self.cert_pem.len())).finish()
    }
}

/// A TLS certificate or key file that cannot be read: the file and why.
#[derive(Debug, thiserror::Error)]
#[error("{}: {}", .0.display(), .1)]
pub struct TlsFileError(pub std::path::PathBuf, #[source] pub std::io::Error);

impl TlsIdentity {
    /// Reads the certificate and key from PEM files, naming the file that cannot be read.
    pub fn read(cert: &std::path::Path, key: &std::path::Path) -> Result<TlsIdentity, TlsFileError> {
        let read = |p: &std::path::Path| std::fs::read(p).map_err(|e| TlsFileError(p.to_path_buf(), e));
        Ok(TlsIdentity { cert_pem: read(cert)?, key_pem: read(key)? })
    }
}

impl ClusterOptions {
    /// Listen on `listen` with `token` and 30 s leases.
    pub fn new(listen: SocketAddr, token: Option<String>) -> ClusterOptions {
        ClusterOptions {
            listen,
            token,
            lease_time: Duration::from_secs(30),
            bound: Arc::default(),
            tls: None,
            verify: Default::default(),
            verify_key: None,
            verify_by_master: crate::scheduler::VerifyRate::DEFAULT_BY_MASTER,
            connections: Default::default(),
            allowed_workers: None,
        }
    }
}

/// Why the master dropped a remote worker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropReason {
    /// Its stream broke (the process died, or the network between us failed).
    ConnectionClosed,
    /// No message for longer than the lease time.
    Silent,
    /// It sent a message that does not decode or validate.
    MalformedOutcome,
    /// An outcome it sent differs from the master's own play of the task.
    Quarantined,
}

impl std::fmt::Display for DropReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            DropReason::ConnectionClosed => "its stream broke",
            DropReason::Silent => "silent for the lease time",
            DropReason::MalformedOutcome => "it sent a malformed message",
            DropReason::Quarantined => "quarantined: it sent a false outcome",
        })
    }
}

/// A worker the master dropped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dropped {
    /// The name it registered with.
    pub name: String,
    /// Why.
    pub reason: DropReason,
}

/// What the service counted (the scheduler counts the rest).
#[derive(Debug, Default)]
pub struct Counters {
    /// Calls refused for a missing or wrong token.
    pub refused: AtomicU64,
    /// Requests refused as malformed (`INVALID_ARGUMENT`).
    pub invalid: AtomicU64,
    /// Networks sent as their id alone (the worker holds them).
    pub sent_by_id: AtomicU64,
    /// Networks sent as their origins, for the worker to make.
    pub sent_by_origin: AtomicU64,
    /// Networks sent by id, with peers to fetch them from.
    pub sent_from_peers: AtomicU64,
    /// Networks sent with their weights.
    pub sent_with_weights: AtomicU64,
    /// Protobuf bytes of the tasks sent (without gRPC and HTTP/2 framing).
    pub task_bytes: AtomicU64,
    /// Connections not accepted for want of file descriptors (or kernel memory).
    pub accept_failures: Arc<AtomicU64>,
    /// Chromosomes workers fetched from the master.
    pub fetched: AtomicU64,
    /// Task streams workers opened: a registered worker asks for tasks only once it has one.
    pub streams: AtomicU64,
    /// The account of the server's connections, once it serves.
    pub admission: OnceLock<Arc<Admission>>,
    /// Failures workers reported that the master checked by playing the task itself.
    pub replayed: AtomicU64,
    /// Of those, the failures the master reproduced (each ends the run).
    pub reproduced: AtomicU64,
    /// Every worker dropped so far, in order (workers that left on their own are not here).
    drops: Mutex<Vec<Dropped>>,
    /// The name of every worker registered so far, in order.
    joins: Mutex<Vec<String>>,
}

impl Counters {
    /// Every worker dropped so far, in order.
    pub fn drops(&self) -> Vec<Dropped> {
        lock(&self.drops).clone()
    }

    /// The name of every worker registered so far, in order.
    pub fn joins(&self) -> Vec<String> {
        lock(&self.joins).clone()
    }
}

/// Locks `m`: every update under the cluster's locks is one step, so a poisoned one is consistent.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A running gRPC server. Dropping it stops accepting calls, lets calls in progress finish
/// (`SHUTDOWN_GRACE` at most), then drops every connection left and waits for the server thread
/// (`SHUTDOWN_LIMIT` at most): whatever the workers do, the master goes on.
pub struct Server {
    /// The address the server listens on.
    pub addr: SocketAddr,
    /// The process's open-files limit once serving began (raised to the hard limit), if readable.
    pub open_files: Option<u64>,
    /// The service's counters (shared: clone the `Arc` to keep them past the server).
    pub counters: Arc<Counters>,
    stop: tokio::sync::watch::Sender<bool>,
    thread: Option<std::thread::JoinHandle<()>>,
    /// Disconnected when the server thread ends.
    ended: std::sync::mpsc::Receiver<()>,
}

/// How long a graceful shutdown may wait for calls in progress.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(3);
/// How long the runtime may take to drop what is left after the grace: a task stuck in a
/// poll would otherwise hold the runtime's drop, and with it the master's exit, for ever.
const SHUTDOWN_DROP: Duration = Duration::from_secs(1);
/// The longest [`Server`]'s drop waits for the server thread before leaving it behind.
const SHUTDOWN_LIMIT: Duration = Duration::from_secs(5);

/// Starts serving `scheduler` on `options.listen`. Fails at once if the address cannot be bound,
/// the token is blank, or the TLS certificate and key are not usable.
pub fn serve(scheduler: &Arc<Scheduler>, options: &ClusterOptions) -> std::io::Result<Server> {
    // Whatever the caller checked: an empty token would let every call in.
    if let Some(problem) = options.token.as_deref().and_then(|t| loa_proto::check_token(t, false).err()) {
        return Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, format!("the cluster token {problem}")));
    }
    // Checked before binding, so a bad certificate is reported before anything listens.
    let limits = options.connections;
    let mut builder = tonic::transport::Server::builder()
        .http2_keepalive_interval(limits.keepalive)
        .http2_keepalive_timeout(Some(limits.keepalive_timeout));
    if let Some(tls) = &options.tls {
        let identity = tonic::transport::Identity::from_pem(&tls.cert_pem, &tls.key_pem);
        // The TLS handshake within the handshake time too (the first call's deadline covers it).
        let tls = tonic::transport::ServerTlsConfig::new().identity(identity).timeout(limits.handshake);
        builder = builder
            .tls_config(tls)
            .map_err(|e| std::io::Error::other(format!("TLS certificate or key: {}", error_chain(&e))))?;
    }
    let listener = std::net::TcpListener::bind(options.listen)?;
    // Thousands of workers connect at once when a run starts or the master restarts.
    loa_proto::accept::widen_backlog(&listener)?;
    listener.set_nonblocking(true)?;
    let addr = listener.local_addr()?;
    let open_files = loa_proto::accept::raise_open_files_limit();
    let runtime =
        tokio::runtime::Builder::new_multi_thread().worker_threads(2).thread_name("loa-rpc").enable_all().build()?;
    let counters = Arc::new(Counters::default());
    let service = MasterService::new(Arc::clone(scheduler), options.lease_time, Arc::clone(&counters))?
        .allow_workers(options.allowed_workers.clone());
    let reaper = service.clone();
    let accepting = Arc::clone(&counters.accept_failures);
    let admission = Admission::new(limits, "master");
    counters.admission.set(Arc::clone(&admission)).ok();
    let grpc = MasterServer::new(service)
        .max_decoding_message_size(loa_proto::bounds::MAX_REQUEST_BYTES)
        .max_encoding_message_size(loa_proto::MAX_MESSAGE_BYTES);
    let check = TokenCheck::new(options.token.as_deref(), Arc::clone(&counters));
    let version_one = V1MasterServer::new(RefuseVersionOne { counters: Arc::clone(&counters) });
    let counted = Arc::clone(&counters);
    let (stop, mut stopped) = tokio::sync::watch::channel(false);
    let (ending, ended) = std::sync::mpsc::channel::<()>();
    let listener = {
        let _guard = runtime.enter();
        tokio::net::TcpListener::from_std(listener)?
    };
    let thread = std::thread::Builder::new().name("loa-rpc-main".into()).spawn(move || {
        // Dropped last, whatever happens: that is what `Server`'s drop waits for.
        let _ending = ending;
        runtime.block_on(async move {
            let reaping = tokio::spawn(async move { reaper.reap_forever().await });
            let accepted = loa_proto::accept::Accepting::new(listener, accepting, "master");
            let incoming = Admitting::new(accepted, Arc::clone(&admission));
            let mut signal = stopped.clone();
            let server = builder
                .add_service(CountMalformed::new(
                    InterceptedService::new(MarkCalled::new(grpc, Arc::clone(&admission)), check.clone()),
                    Arc::clone(&counted),
                ))
                .add_service(CountMalformed::new(
                    InterceptedService::new(MarkCalled::new(version_one, Arc::clone(&admission)), check),
                    counted,
                ))
                .serve_with_incoming_shutdown(incoming, async move {
                    let _ = signal.wait_for(|s| *s).await;
                });
            let deadline = async move {
                let _ = stopped.wait_for(|s| *s).await;
                tokio::time::sleep(SHUTDOWN_GRACE).await;
            };
            tokio::select! {
                result = server => {
                    if let Err(e) = result {
                        eprintln!("master: the gRPC server stopped: {e}");
                    }
                }
                () = deadline => {}
            }
            reaping.abort();
        });
        // Cancels what is left (calls stuck on a frozen or dead peer, their connections),
        // without waiting for ever on a task that does not yield.
        runtime.shutdown_timeout(SHUTDOWN_DROP);
    })?;
    let _ = options.bound.set(addr);
    Ok(Server { addr, counters, stop, thread: Some(thread), ended, open_files })
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.stop.send(true);
        let Some(thread) = self.thread.take() else { return };
        match self.ended.recv_timeout(SHUTDOWN_LIMIT) {
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                // Left behind: the process exits without it, and a batch job ends.
                eprintln!(
                    "master: the gRPC server did not stop within {} s; leaving it behind",
                    SHUTDOWN_LIMIT.as_secs()
                );
            }
            _ => {
                let _ = thread.join();
            }
        }
    }
}

/// An error and its sources on one line (tonic's top-level messages are terse).
fn error_chain(e: &dyn std::error::Error) -> String {
    let chain: Vec<String> = std::iter::successors(Some(e), |e| e.source()).map(|e| e.to_string()).collect();
    chain.join(": ")
}

/// Most dropped workers [`summary`] names; the rest are counted.
const DROPS_NAMED: usize = 16;

/// A one-line account of the cluster's traffic for the run log.
pub fn summary(stats: &crate::scheduler::SchedulerStats, counters: &Counters) -> String {
    use std::sync::atomic::Ordering::Relaxed;
    let drops = counters.drops();
    let mut named: Vec<String> = drops.iter().take(DROPS_NAMED).map(|d| format!("{} ({})", d.name, d.reason)).collect();
    if drops.len() > DROPS_NAMED {
        named.push(format!("{} more", drops.len() - DROPS_NAMED));
    }
    let named = if named.is_empty() { String::new() } else { format!(": {}", named.join("; ")) };
    let admitted = |count: fn(&Admission) -> &std::sync::atomic::AtomicU64| {
        counters.admission.get().map_or(0, |a| count(a).load(Relaxed))
    };
    format!(
        "cluster: {} outcomes accepted, {} re-leased, {} backup copies, {} duplicates, {} unknown, \
         {} not leased to their sender, {} failed, {} reported failures played by the master ({} \
         reproduced); verification: {} verified, {} mismatches, {} liars quarantined, {} outcomes played \
         again, {} rollbacks; networks sent {} by id, {} by origin, {} from \
         peers and {} with weights, {} fetched; tasks sent in {} KiB; {} calls refused (token), {} \
         malformed requests, {} connections not accepted (out of file descriptors), {} connections closed over \
         the caps, {} closed without a call in the handshake time, {} workers dropped{named}",
        stats.completed,
        stats.re_leased,
        stats.backups,
        stats.duplicates,
        stats.unknown,
        stats.not_leased,
        stats.failed,
        counters.replayed.load(Relaxed),
        counters.reproduced.load(Relaxed),
        stats.verified,
        stats.mismatches,
        stats.quarantined,
        stats.replayed,
        stats.rollbacks,
        counters.sent_by_id.load(Relaxed),
        counters.sent_by_origin.load(Relaxed),
        counters.sent_from_peers.load(Relaxed),
        counters.sent_with_weights.load(Relaxed),
        counters.fetched.load(Relaxed),
        counters.task_bytes.load(Relaxed) / 1024,
        counters.refused.load(Relaxed),
        counters.invalid.load(Relaxed),
        counters.accept_failures.load(Relaxed),
        admitted(|a| &a.over_cap),
        admitted(|a| &a.no_call),
        drops.len()
    )
}
