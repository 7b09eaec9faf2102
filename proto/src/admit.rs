//! Bounding the connections a server holds, since the token is checked per call and anyone who
//! can reach the port can open connections: at most [`ConnectionLimits::per_address`] from one
//! address and [`ConnectionLimits::total`] in all ([`Admitting`] closes the others as they are
//! accepted), and a connection that has made no authenticated call within
//! [`ConnectionLimits::handshake`] is closed ([`Admitted`]; [`MarkCalled`] tells it of its first
//! call). HTTP/2 keep-alive, which the server sets from the same limits, closes connections that
//! stop answering afterwards.

use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, ready};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio_stream::Stream;
use tonic::codegen::{Service, http};
use tonic::server::NamedService;
use tonic::transport::server::{Connected, TcpConnectInfo, TlsConnectInfo};

/// How many connections a server holds, and for how long an idle one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConnectionLimits {
    /// A connection that has made no authenticated call this long after it was accepted is
    /// closed (TLS and HTTP/2 handshakes included).
    pub handshake: Duration,
    /// An HTTP/2 PING is sent after this long without a frame from the peer (`None`: never).
    pub keepalive: Option<Duration>,
    /// A connection whose peer has not answered a PING this long is closed.
    pub keepalive_timeout: Duration,
    /// Most connections open at once from one IP address.
    pub per_address: usize,
    /// Most connections open at once in all.
    pub total: usize,
}

impl Default for ConnectionLimits {
    /// 10 s to make a first call, a PING after 20 s of silence with 20 s to answer it (as the
    /// workers do), 256 connections an address (workers behind one NAT share one) and 16 384
    /// in all (about 25 KiB each while idle).
    fn default() -> ConnectionLimits {
        ConnectionLimits {
            handshake: Duration::from_secs(10),
            keepalive: Some(Duration::from_secs(20)),
            keepalive_timeout: Duration::from_secs(20),
            per_address: 256,
            total: 16_384,
        }
    }
}

/// The connections open now, by address, and those that have not made a call yet.
#[derive(Debug, Default)]
struct Open {
    by_address: HashMap<IpAddr, usize>,
    total: usize,
    /// Whether each open connection (by its peer's address and port) has made a call.
    called: HashMap<SocketAddr, Arc<AtomicBool>>,
}

/// The shared account of a server's connections.
#[derive(Debug)]
pub struct Admission {
    limits: ConnectionLimits,
    open: Mutex<Open>,
    /// Connections closed at once for being over a cap.
    pub over_cap: AtomicU64,
    /// Connections closed for making no call within the handshake time.
    pub no_call: AtomicU64,
    who: &'static str,
}

impl Admission {
    /// An account under `limits`; `who` names the server in its messages (e.g. "master").
    pub fn new(limits: ConnectionLimits, who: &'static str) -> Arc<Admission> {
        Arc::new(Admission {
            limits,
            open: Mutex::default(),
            over_cap: AtomicU64::new(0),
            no_call: AtomicU64::new(0),
            who,
        })
    }

    /// The limits in force.
    pub fn limits(&self) -> ConnectionLimits {
        self.limits
    }

    fn open(&self) -> MutexGuard<'_, Open> {
        self.open.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Takes a connection from `peer` if both caps allow it.
    fn admit(self: &Arc<Self>, peer: SocketAddr) -> Option<Ticket> {
        let mut open = self.open();
        let from_address = open.by_address.get(&peer.ip()).copied().unwrap_or(0);
        if from_address >= self.limits.per_address || open.total >= self.limits.total {
            drop(open);
            let n = self.over_cap.fetch_add(1, Ordering::Relaxed) + 1;
            // Said once and then every 1000th: a flood must not flood the log too.
            if n == 1 || n.is_multiple_of(1000) {
                let (per, total) = (self.limits.per_address, self.limits.total);
                eprintln!(
                    "{}: closed a connection from {peer}: over the caps of {per} connections an address and \
                     {total} in all ({n} so far)",
                    self.who
                );
            }
            return None;
        }
        *open.by_address.entry(peer.ip()).or_default() += 1;
        open.total += 1;
        let called = Arc::new(AtomicBool::new(false));
        open.called.insert(peer, Arc::clone(&called));
        Some(Ticket { admission: Arc::clone(self), peer, called })
    }

    /// The connection from `peer` made an authenticated call: its handshake time is over.
    pub fn called(&self, peer: SocketAddr) {
        if let Some(called) = self.open().called.remove(&peer) {
            called.store(true, Ordering::Relaxed);
        }
    }

    /// Connections open now.
    pub fn open_now(&self) -> usize {
        self.open().total
    }
}

/// A connection's place in the account, given back when it closes.
struct Ticket {
    admission: Arc<Admission>,
    peer: SocketAddr,
    called: Arc<AtomicBool>,
}

impl Drop for Ticket {
    fn drop(&mut self) {
        let mut open = self.admission.open();
        open.total -= 1;
        if let Some(n) = open.by_address.get_mut(&self.peer.ip()) {
            *n -= 1;
            if *n == 0 {
                open.by_address.remove(&self.peer.ip());
            }
        }
        // Not a newer connection's entry, should the peer's port be in use again already.
        if open.called.get(&self.peer).is_some_and(|c| Arc::ptr_eq(c, &self.called)) {
            open.called.remove(&self.peer);
        }
    }
}

/// An accepted connection within the caps, read with a deadline until its first call.
pub struct Admitted<C> {
    inner: C,
    ticket: Ticket,
    deadline: Option<Pin<Box<tokio::time::Sleep>>>,
}

impl<C: AsyncRead + Unpin> AsyncRead for Admitted<C> {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let this = &mut *self;
        if this.deadline.is_some() && this.ticket.called.load(Ordering::Relaxed) {
            this.deadline = None;
        }
        if let Some(deadline) = this.deadline.as_mut() {
            // Polled (so it wakes this task) whether or not bytes trickle in.
            if deadline.as_mut().poll(cx).is_ready() {
                this.ticket.admission.no_call.fetch_add(1, Ordering::Relaxed);
                let seconds = this.ticket.admission.limits.handshake.as_secs_f64();
                return Poll::Ready(Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    format!("no call within the handshake time ({seconds} s)"),
                )));
            }
        }
        Pin::new(&mut this.inner).poll_read(cx, buf)
    }
}

impl<C: AsyncWrite + Unpin> AsyncWrite for Admitted<C> {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
}

impl<C: Connected> Connected for Admitted<C> {
    type ConnectInfo = C::ConnectInfo;

    fn connect_info(&self) -> C::ConnectInfo {
        self.inner.connect_info()
    }
}

/// The connections of a stream of accepted TCP connections that the caps allow, each with its
/// handshake deadline; the others are closed as they come.
pub struct Admitting<S> {
    accepted: S,
    admission: Arc<Admission>,
}

impl<S> Admitting<S> {
    /// Admits from `accepted` under `admission`.
    pub fn new(accepted: S, admission: Arc<Admission>) -> Admitting<S> {
        Admitting { accepted, admission }
    }
}

impl<S> Stream for Admitting<S>
where
    S: Stream<Item = io::Result<tokio::net::TcpStream>> + Unpin,
{
    type Item = io::Result<Admitted<tokio::net::TcpStream>>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        loop {
            let stream = match ready!(Pin::new(&mut self.accepted).poll_next(cx)) {
                None => return Poll::Ready(None),
                Some(Err(e)) => return Poll::Ready(Some(Err(e))),
                Some(Ok(stream)) => stream,
            };
            // A connection whose peer is already gone has nothing to serve.
            let Ok(peer) = stream.peer_addr() else { continue };
            // Dropped, so closed, when over a cap.
            let Some(ticket) = self.admission.admit(peer) else { continue };
            let deadline = Some(Box::pin(tokio::time::sleep(self.admission.limits.handshake)));
            return Poll::Ready(Some(Ok(Admitted { inner: stream, ticket, deadline })));
        }
    }
}

/// A gRPC service that tells [`Admission`] of each call it gets. Put inside the token check,
/// so only authenticated calls end a connection's handshake time.
#[derive(Clone)]
pub struct MarkCalled<S> {
    inner: S,
    admission: Arc<Admission>,
}

impl<S> MarkCalled<S> {
    /// `inner`, telling `admission` of its calls.
    pub fn new(inner: S, admission: Arc<Admission>) -> MarkCalled<S> {
        MarkCalled { inner, admission }
    }
}

impl<S, B> Service<http::Request<B>> for MarkCalled<S>
where
    S: Service<http::Request<B>>,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = S::Future;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: http::Request<B>) -> Self::Future {
        let extensions = request.extensions();
        let tcp = extensions
            .get::<TcpConnectInfo>()
            .or_else(|| extensions.get::<TlsConnectInfo<TcpConnectInfo>>().map(TlsConnectInfo::get_ref));
        if let Some(peer) = tcp.and_then(TcpConnectInfo::remote_addr) {
            self.admission.called(peer);
        }
        self.inner.call(request)
    }
}

impl<S: NamedService> NamedService for MarkCalled<S> {
    const NAME: &'static str = S::NAME;
}
