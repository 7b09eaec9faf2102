//! Accepted connections that tell the service when they close, so the workers registered over a
//! connection are dropped as soon as it is gone (a crashed worker process, a lost network).

use std::net::SocketAddr;
use std::pin::Pin;
use std::task::{Context, Poll};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::sync::mpsc::UnboundedSender;
use tonic::transport::server::{Connected, TcpConnectInfo};

/// A TCP connection that sends its peer's address on `closed` when the server drops it (hyper
/// drops a connection once the peer has closed it or it failed).
pub struct TrackedStream {
    inner: TcpStream,
    peer: Option<SocketAddr>,
    closed: UnboundedSender<SocketAddr>,
}

impl TrackedStream {
    /// Wraps an accepted connection.
    pub fn new(inner: TcpStream, closed: UnboundedSender<SocketAddr>) -> TrackedStream {
        let peer = inner.peer_addr().ok();
        // Outcomes are small and latency-bound: do not wait to fill packets.
        let _ = inner.set_nodelay(true);
        TrackedStream { inner, peer, closed }
    }
}

impl Drop for TrackedStream {
    fn drop(&mut self) {
        if let Some(peer) = self.peer {
            let _ = self.closed.send(peer);
        }
    }
}

impl Connected for TrackedStream {
    type ConnectInfo = TcpConnectInfo;

    fn connect_info(&self) -> TcpConnectInfo {
        TcpConnectInfo { local_addr: self.inner.local_addr().ok(), remote_addr: self.peer }
    }
}

impl AsyncRead for TrackedStream {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl AsyncWrite for TrackedStream {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
}
