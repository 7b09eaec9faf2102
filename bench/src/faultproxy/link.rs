//! One proxied connection: bytes each way through the faults in force.

use super::{Counters, Faults};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::{mpsc, watch};
use tokio::time::Instant;

/// The most bytes read at a time, and so the grain of delays and resets.
const CHUNK: usize = 16 * 1024;
/// Chunks in flight each way: with [`CHUNK`], at most 1 MiB held per direction.
const IN_FLIGHT: usize = 64;
/// How often a connection draws whether it is reset.
const RESET_TICK: Duration = Duration::from_millis(50);

/// A small deterministic generator (splitmix64) for jitter and resets, so a proxy's faults
/// repeat for a seed.
pub struct Dice(u64);

impl Dice {
    /// A generator from `seed`.
    pub fn new(seed: u64) -> Dice {
        Dice(seed)
    }

    /// A uniform draw in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        (z ^ (z >> 31)) as f64 / (u64::MAX as f64 + 1.0)
    }
}

/// How a connection ended.
enum End {
    /// Both sides closed.
    Closed,
    /// A side failed: the other is reset too.
    Failed,
    /// The proxy reset it.
    Reset,
}

/// Forwards between `client` and `server` until both close, one fails or a reset is drawn.
pub async fn forward(
    mut client: TcpStream,
    mut server: TcpStream,
    faults: watch::Receiver<Faults>,
    counters: Arc<Counters>,
    seed: u64,
) {
    let _ = (client.set_nodelay(true), server.set_nodelay(true));
    let end = {
        let (client_read, client_write) = client.split();
        let (server_read, server_write) = server.split();
        let (up_tx, up_rx) = mpsc::channel(IN_FLIGHT);
        let (down_tx, down_rx) = mpsc::channel(IN_FLIGHT);
        let pipes = async {
            tokio::try_join!(
                read(client_read, up_tx, faults.clone(), Dice::new(seed)),
                write(up_rx, server_write, faults.clone(), &counters, true),
                read(server_read, down_tx, faults.clone(), Dice::new(seed ^ 0x5555)),
                write(down_rx, client_write, faults.clone(), &counters, false),
            )
        };
        tokio::select! {
            done = pipes => if done.is_ok() { End::Closed } else { End::Failed },
            () = reset_drawn(faults.clone(), Dice::new(seed ^ 0xaaaa)) => End::Reset,
        }
    };
    if matches!(end, End::Reset) {
        counters.resets.fetch_add(1, Ordering::Relaxed);
    }
    if !matches!(end, End::Closed) {
        // A zero linger makes the close an RST, as a reset or a failed peer would send.
        let _ = (client.set_zero_linger(), server.set_zero_linger());
    }
}

/// A chunk on its way, due at an instant.
struct Chunk {
    data: Data,
    due: Instant,
}

/// What a chunk carries: bytes, or how the side that sent them ended. An end passes through the
/// faults as bytes do, so a peer hears of it only once a stall or partition lets it through.
enum Data {
    Bytes(Vec<u8>),
    Closed,
    Failed(std::io::Error),
}

/// Reads `from` into chunks stamped with their due time (latency plus jitter, in order).
async fn read(
    mut from: impl AsyncRead + Unpin,
    to: mpsc::Sender<Chunk>,
    faults: watch::Receiver<Faults>,
    mut dice: Dice,
) -> std::io::Result<()> {
    let mut last_due = Instant::now();
    loop {
        let mut buffer = vec![0; CHUNK];
        let data = match from.read(&mut buffer).await {
            Ok(0) => Data::Closed,
            Ok(n) => {
                buffer.truncate(n);
                Data::Bytes(buffer)
            }
            Err(e) => Data::Failed(e),
        };
        let delay = {
            let f = faults.borrow();
            f.latency + f.jitter.mul_f64(dice.unit())
        };
        last_due = last_due.max(Instant::now() + delay);
        let end = !matches!(data, Data::Bytes(_));
        if to.send(Chunk { data, due: last_due }).await.is_err() || end {
            return Ok(());
        }
    }
}

/// Writes chunks to `to` once due, not while a stall or partition holds, within the bandwidth.
async fn write(
    mut chunks: mpsc::Receiver<Chunk>,
    mut to: impl AsyncWrite + Unpin,
    mut faults: watch::Receiver<Faults>,
    counters: &Counters,
    up: bool,
) -> std::io::Result<()> {
    // When the cap lets the next byte through.
    let mut free_at = Instant::now();
    while let Some(chunk) = chunks.recv().await {
        tokio::time::sleep_until(chunk.due).await;
        if wait_while_held(&mut faults).await {
            counters.held.fetch_add(1, Ordering::Relaxed);
        }
        let bytes = match chunk.data {
            Data::Bytes(bytes) => bytes,
            Data::Closed => return to.shutdown().await,
            Data::Failed(e) => return Err(e),
        };
        let cap = faults.borrow().bandwidth;
        for piece in bytes.chunks(cap.map_or(CHUNK, |b| (b as usize / 20).clamp(1, CHUNK))) {
            if let Some(cap) = cap {
                free_at = free_at.max(Instant::now()) + Duration::from_secs_f64(piece.len() as f64 / cap as f64);
                tokio::time::sleep_until(free_at).await;
            }
            to.write_all(piece).await?;
            let counter = if up { &counters.bytes_up } else { &counters.bytes_down };
            counter.fetch_add(piece.len() as u64, Ordering::Relaxed);
        }
        counters.chunks.fetch_add(1, Ordering::Relaxed);
    }
    Ok(())
}

/// Waits while a stall or partition holds; whether it waited.
pub async fn wait_while_held(faults: &mut watch::Receiver<Faults>) -> bool {
    let mut waited = false;
    loop {
        let (holding, until) = {
            let f = faults.borrow_and_update();
            (f.holding(std::time::Instant::now()), f.partition_until)
        };
        if !holding {
            return waited;
        }
        waited = true;
        // A partition ends by itself at its instant; a stall when the faults change.
        let heal = until.map_or(Instant::now() + Duration::from_secs(3600), Instant::from_std);
        tokio::select! {
            changed = faults.changed() => if changed.is_err() { return waited },
            () = tokio::time::sleep_until(heal) => {}
        }
    }
}

/// Returns when a reset is drawn: each [`RESET_TICK`] with the chance the rate in force gives.
async fn reset_drawn(faults: watch::Receiver<Faults>, mut dice: Dice) {
    let mut tick = tokio::time::interval(RESET_TICK);
    loop {
        tick.tick().await;
        let rate = faults.borrow().resets_per_second;
        if rate > 0.0 && dice.unit() < 1.0 - (-rate * RESET_TICK.as_secs_f64()).exp() {
            return;
        }
    }
}
