//! A fault-injecting TCP proxy, as toxiproxy is, to put between remote workers and the master:
//! latency with jitter, a bandwidth cap, stalls, partitions that heal, and random resets,
//! switched at run time from a test ([`FaultProxy::apply`]) or a script (the line protocol of
//! [`control`] on a local port, `loa-bench proxy`).
//!
//! It listens on and connects to this machine's own addresses only: it is a test instrument,
//! not a relay.

pub mod control;
mod faults;
mod link;

pub use faults::{COMMANDS, Command, Faults};

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{oneshot, watch};

/// Why a proxy could not start, or a control command was refused.
#[derive(Debug, thiserror::Error)]
pub enum ProxyError {
    /// An address is not one of this machine's.
    #[error(
        "{what} {addr}: not an address of this machine; the proxy only listens on and connects to local \
         addresses (e.g. 127.0.0.1)"
    )]
    NotLocal {
        /// Which address (`--listen`, `--upstream`, `--control`).
        what: &'static str,
        /// The address.
        addr: SocketAddr,
    },
    /// A port could not be bound.
    #[error("cannot listen on {addr}: {source}; pick a free port (or port 0 for any)")]
    Bind {
        /// The address.
        addr: SocketAddr,
        /// Why.
        source: std::io::Error,
    },
    /// The proxy's runtime could not start.
    #[error("cannot start the proxy's runtime: {0}")]
    Runtime(std::io::Error),
    /// A control line is not a command.
    #[error("{line:?}: {problem}; the commands are: {COMMANDS}")]
    Command {
        /// The line.
        line: String,
        /// What is wrong with it.
        problem: String,
    },
}

/// Where a proxy listens and what it forwards to.
#[derive(Clone, Debug)]
pub struct ProxyOptions {
    /// Where clients connect (port 0: any free port).
    pub listen: SocketAddr,
    /// Where their connections go.
    pub upstream: SocketAddr,
    /// Where the control interface listens, if anywhere.
    pub control: Option<SocketAddr>,
    /// Seeds the jitter and the reset draws, so a proxy's faults repeat.
    pub seed: u64,
}

/// What a proxy did, counted as it goes.
#[derive(Debug, Default)]
pub(crate) struct Counters {
    connections: AtomicU64,
    refused: AtomicU64,
    resets: AtomicU64,
    held: AtomicU64,
    chunks: AtomicU64,
    bytes_up: AtomicU64,
    bytes_down: AtomicU64,
}

/// What a proxy did so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ProxyCounts {
    /// Connections forwarded to the upstream.
    pub connections: u64,
    /// Connections refused during a partition.
    pub refused: u64,
    /// Connections the proxy reset.
    pub resets: u64,
    /// Chunks of bytes held back by a stall or a partition.
    pub held: u64,
    /// Chunks passed on.
    pub chunks: u64,
    /// Bytes from clients to the upstream.
    pub bytes_up: u64,
    /// Bytes from the upstream to clients.
    pub bytes_down: u64,
}

impl Counters {
    fn snapshot(&self) -> ProxyCounts {
        let get = |c: &AtomicU64| c.load(Ordering::Relaxed);
        ProxyCounts {
            connections: get(&self.connections),
            refused: get(&self.refused),
            resets: get(&self.resets),
            held: get(&self.held),
            chunks: get(&self.chunks),
            bytes_up: get(&self.bytes_up),
            bytes_down: get(&self.bytes_down),
        }
    }
}

impl std::fmt::Display for ProxyCounts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} connections, {} refused, {} resets, {} chunks held, {} chunks passed, {} B up, {} B down",
            self.connections, self.refused, self.resets, self.held, self.chunks, self.bytes_up, self.bytes_down
        )
    }
}

/// A running proxy, on a thread of its own; dropping it stops it.
pub struct FaultProxy {
    addr: SocketAddr,
    control: Option<SocketAddr>,
    faults: watch::Sender<Faults>,
    counters: Arc<Counters>,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl FaultProxy {
    /// Binds the proxy's ports and starts forwarding, with no fault in force.
    pub fn start(options: &ProxyOptions) -> Result<FaultProxy, ProxyError> {
        local("--listen", options.listen)?;
        local("--upstream", options.upstream)?;
        if let Some(control) = options.control {
            local("--control", control)?;
        }
        let runtime =
            tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(ProxyError::Runtime)?;
        let bind = |addr: SocketAddr| {
            let _guard = runtime.enter();
            std::net::TcpListener::bind(addr)
                .and_then(|l| l.set_nonblocking(true).map(|()| l))
                .and_then(TcpListener::from_std)
                .map_err(|source| ProxyError::Bind { addr, source })
        };
        let listener = bind(options.listen)?;
        let controller = options.control.map(bind).transpose()?;
        let addr = listener.local_addr().map_err(|source| ProxyError::Bind { addr: options.listen, source })?;
        let control = controller.as_ref().and_then(|c| c.local_addr().ok());
        let (faults, watching) = watch::channel(Faults::default());
        let counters = Arc::new(Counters::default());
        let (stop, stopped) = oneshot::channel();
        let served = Served { upstream: options.upstream, faults: faults.clone(), counters: Arc::clone(&counters) };
        let seed = options.seed;
        let thread = std::thread::spawn(move || {
            runtime.block_on(async move {
                if let Some(controller) = controller {
                    tokio::spawn(control::serve(controller, served.clone()));
                }
                tokio::select! {
                    () = accept(listener, served, watching, seed) => {}
                    _ = stopped => {}
                }
            });
        });
        Ok(FaultProxy { addr, control, faults, counters, stop: Some(stop), thread: Some(thread) })
    }

    /// Where clients connect.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Where the control interface listens, if it does.
    pub fn control_addr(&self) -> Option<SocketAddr> {
        self.control
    }

    /// Applies a control command now.
    pub fn apply(&self, command: &Command) {
        self.faults.send_modify(|f| command.apply(f, Instant::now()));
    }

    /// The faults in force.
    pub fn faults(&self) -> Faults {
        self.faults.borrow().clone()
    }

    /// What the proxy did so far.
    pub fn counts(&self) -> ProxyCounts {
        self.counters.snapshot()
    }

    /// Serves until the process ends (for `loa-bench proxy`).
    pub fn serve_forever(mut self) {
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for FaultProxy {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// What the accept loop and the control interface share.
#[derive(Clone)]
pub(crate) struct Served {
    upstream: SocketAddr,
    faults: watch::Sender<Faults>,
    counters: Arc<Counters>,
}

/// Accepts connections and forwards each through the faults, until dropped.
async fn accept(listener: TcpListener, served: Served, faults: watch::Receiver<Faults>, seed: u64) {
    let mut serial = 0u64;
    loop {
        let Ok((client, _)) = listener.accept().await else {
            // Out of descriptors, most likely: wait for some to close rather than spin.
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            continue;
        };
        if faults.borrow().partitioned(Instant::now()) {
            served.counters.refused.fetch_add(1, Ordering::Relaxed);
            let _ = client.set_zero_linger();
            continue;
        }
        serial += 1;
        let (served, faults) = (served.clone(), faults.clone());
        tokio::spawn(async move {
            let Ok(server) = TcpStream::connect(served.upstream).await else {
                // The upstream refused: so does the proxy, as a direct connection would be.
                let _ = client.set_zero_linger();
                return;
            };
            served.counters.connections.fetch_add(1, Ordering::Relaxed);
            link::forward(client, server, faults, served.counters, seed.wrapping_add(serial.wrapping_mul(0x9e37)))
                .await;
        });
    }
}

/// Refuses an address that is not this machine's: one a socket cannot bind to.
fn local(what: &'static str, addr: SocketAddr) -> Result<(), ProxyError> {
    let ip = addr.ip();
    if ip.is_loopback() || (!ip.is_unspecified() && std::net::UdpSocket::bind(SocketAddr::new(ip, 0)).is_ok()) {
        Ok(())
    } else {
        Err(ProxyError::NotLocal { what, addr })
    }
}

#[cfg(test)]
mod tests;
