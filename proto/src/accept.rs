//! Accepting connections from thousands of callers (the master's service, a worker's peer
//! service): raising the open-files limit, widening the listen backlog, and [`Accepting`], which
//! pauses after running out of descriptors rather than let tonic spin a core retrying.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll, ready};
use std::time::Duration;
use tokio_stream::Stream;

/// How long accepting pauses after running out of descriptors (or kernel memory).
pub const PAUSE: Duration = Duration::from_millis(100);

/// What accepting takes connections from: a TCP listener, or a stand-in in tests.
pub trait Accept {
    /// The accepted connection.
    type Connection;
    /// Polls for the next connection, as [`tokio::net::TcpListener::poll_accept`] does.
    fn poll_accept(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<Self::Connection>>;
}

impl Accept for tokio::net::TcpListener {
    type Connection = tokio::net::TcpStream;

    fn poll_accept(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<tokio::net::TcpStream>> {
        tokio::net::TcpListener::poll_accept(self, cx).map_ok(|(stream, _)| {
            // Without it a small reply (a receipt, a lease of one task) waits for the peer's
            // delayed acknowledgement, some 40 ms, whenever data is in flight: tonic sets it only
            // on the listeners it accepts from itself. A socket that refuses still serves.
            let _ = stream.set_nodelay(true);
            stream
        })
    }
}

/// The connections of `A`, pausing after a failure for want of resources; other failures (a
/// connection reset before it was accepted, say) are passed on, and tonic goes on after them.
pub struct Accepting<A> {
    source: A,
    pause: Option<Pin<Box<tokio::time::Sleep>>>,
    failures: Arc<AtomicU64>,
    who: &'static str,
}

impl<A: Accept> Accepting<A> {
    /// Accepts from `source`, counting failures for want of resources in `failures`; `who`
    /// names the server in the message (e.g. "master").
    pub fn new(source: A, failures: Arc<AtomicU64>, who: &'static str) -> Accepting<A> {
        Accepting { source, pause: None, failures, who }
    }
}

/// Whether `e` says the process or system ran out of something, rather than that one
/// connection failed: then the next `accept` fails the same way until something is freed.
fn out_of_resources(e: &io::Error) -> bool {
    #[cfg(unix)]
    {
        matches!(e.raw_os_error(), Some(libc::EMFILE | libc::ENFILE | libc::ENOBUFS | libc::ENOMEM))
    }
    #[cfg(not(unix))]
    {
        e.kind() == io::ErrorKind::OutOfMemory
    }
}

impl<A: Accept + Unpin> Stream for Accepting<A> {
    type Item = io::Result<A::Connection>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        loop {
            if let Some(pause) = self.pause.as_mut() {
                ready!(pause.as_mut().poll(cx));
                self.pause = None;
            }
            match ready!(self.source.poll_accept(cx)) {
                Err(e) if out_of_resources(&e) => {
                    if self.failures.fetch_add(1, Ordering::Relaxed) == 0 {
                        eprintln!(
                            "{}: cannot accept a connection ({e}); pausing {} ms after each such failure \
                             (raise the open-files limit, ulimit -n, for more connections)",
                            self.who,
                            PAUSE.as_millis()
                        );
                    }
                    self.pause = Some(Box::pin(tokio::time::sleep(PAUSE)));
                }
                other => return Poll::Ready(Some(other)),
            }
        }
    }
}

/// The listen backlog asked for by [`widen_backlog`]; the kernel caps it at its maximum
/// (`net.core.somaxconn` on Linux).
pub const BACKLOG: i32 = 65_535;

/// Listens on `listener` (already listening, as `bind` leaves it) with a backlog of [`BACKLOG`]
/// connections instead of the standard library's 128, which drops connections when thousands
/// come at once. Listening again only changes the backlog.
pub fn widen_backlog(listener: &std::net::TcpListener) -> io::Result<()> {
    socket2::SockRef::from(listener).listen(BACKLOG)
}

/// Raises this process's soft limit on open files to its hard limit; returns the soft limit
/// now in force (`None` where it cannot be read).
pub fn raise_open_files_limit() -> Option<u64> {
    #[cfg(unix)]
    {
        let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
        // SAFETY: getrlimit writes the struct it is given, which lives on this stack frame.
        if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } != 0 {
            return None;
        }
        if limit.rlim_cur < limit.rlim_max {
            let raised = libc::rlimit { rlim_cur: limit.rlim_max, rlim_max: limit.rlim_max };
            // SAFETY: setrlimit reads the struct it is given; raising the soft limit up to the
            // hard one needs no privilege, and a refusal leaves the limit as it was.
            if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) } == 0 {
                limit = raised;
            }
        }
        #[allow(clippy::unnecessary_cast, reason = "rlim_t is u64 on Linux, not on every unix")]
        Some(limit.rlim_cur as u64)
    }
    #[cfg(not(unix))]
    {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;
    use tokio_stream::StreamExt;

    /// Connections numbered in order, and failures, as scripted.
    struct Script(VecDeque<io::Result<u32>>, Arc<AtomicU64>);

    impl Accept for Script {
        type Connection = u32;
        fn poll_accept(&mut self, _: &mut Context<'_>) -> Poll<io::Result<u32>> {
            self.1.fetch_add(1, Ordering::Relaxed);
            match self.0.pop_front() {
                Some(next) => Poll::Ready(next),
                None => Poll::Pending,
            }
        }
    }

    fn os(code: i32) -> io::Result<u32> {
        Err(io::Error::from_raw_os_error(code))
    }

    #[tokio::test(start_paused = true)]
    async fn out_of_descriptors_pauses_and_a_lost_connection_does_not() {
        let script = VecDeque::from([Ok(1), os(libc::EMFILE), os(libc::EMFILE), os(libc::ECONNABORTED), Ok(2)]);
        let (polls, failures) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)));
        let mut accepting = Accepting::new(Script(script, Arc::clone(&polls)), Arc::clone(&failures), "test");
        let begun = tokio::time::Instant::now();
        assert_eq!(accepting.next().await.map(|c| c.ok()), Some(Some(1)));
        assert_eq!(begun.elapsed(), Duration::ZERO);
        // Two EMFILEs: a pause after each, and one poll of the listener each.
        let aborted = accepting.next().await.expect("a connection or an error");
        assert_eq!(aborted.err().and_then(|e| e.raw_os_error()), Some(libc::ECONNABORTED));
        assert_eq!(begun.elapsed(), 2 * PAUSE);
        assert_eq!(polls.load(Ordering::Relaxed), 4);
        assert_eq!(failures.load(Ordering::Relaxed), 2);
        assert_eq!(accepting.next().await.map(|c| c.ok()), Some(Some(2)));
        assert_eq!(begun.elapsed(), 2 * PAUSE, "no pause after a lost connection");
    }

    /// Accepted sockets send small messages at once: no waiting for a delayed acknowledgement.
    #[tokio::test]
    async fn accepted_connections_send_without_delay() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let mut accepting = Accepting::new(listener, Arc::default(), "test");
        let _client = tokio::net::TcpStream::connect(addr).await.unwrap();
        let accepted = accepting.next().await.expect("a connection").unwrap();
        assert!(accepted.nodelay().unwrap());
    }

    #[test]
    fn the_soft_limit_is_raised_to_the_hard_one() {
        let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
        // SAFETY: as in raise_open_files_limit.
        assert_eq!(unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) }, 0);
        // One below the hard limit first (harmless to the tests running beside this one), so
        // the raise has something to do even where soft and hard limits are equal.
        if limit.rlim_max != libc::RLIM_INFINITY && limit.rlim_cur == limit.rlim_max {
            let lowered = libc::rlimit { rlim_cur: limit.rlim_max - 1, rlim_max: limit.rlim_max };
            // SAFETY: as in raise_open_files_limit; lowering the soft limit needs no privilege.
            assert_eq!(unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &lowered) }, 0);
        }
        let now = raise_open_files_limit().expect("readable on unix");
        // SAFETY: as above.
        assert_eq!(unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) }, 0);
        assert_eq!(now, limit.rlim_cur, "the limit in force is the one reported");
        // An unlimited hard limit is more than Linux lets a process have: left as it was.
        if limit.rlim_max != libc::RLIM_INFINITY {
            assert_eq!(limit.rlim_cur, limit.rlim_max);
        }
    }

    #[test]
    fn a_widened_backlog_holds_hundreds_of_connections_waiting_at_once() {
        // 400 connections before any is accepted: with the standard library's 128 the kernel
        // drops the handshakes past the 129th (their connects time out); widened, all wait.
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        widen_backlog(&listener).unwrap();
        let address = listener.local_addr().unwrap();
        let somaxconn =
            std::fs::read_to_string("/proc/sys/net/core/somaxconn").ok().and_then(|s| s.trim().parse().ok());
        let wanted = somaxconn.unwrap_or(4096usize).min(400);
        // Up to the first that times out (on loopback a connect that waits is a dropped one).
        let connected: Vec<_> = (0..wanted)
            .map_while(|_| std::net::TcpStream::connect_timeout(&address, Duration::from_millis(200)).ok())
            .collect();
        listener.set_nonblocking(true).unwrap();
        let mut accepted = 0;
        while listener.accept().is_ok() {
            accepted += 1;
        }
        assert_eq!((connected.len(), accepted), (wanted, wanted));
    }
}
