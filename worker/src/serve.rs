//! A worker's life: connect, start the player threads and the network loops, stop, report.

use crate::session::{Ended, Session};
use crate::{Control, WorkerError, WorkerOptions, WorkerReport, client, players};
use loa_proto::cache::ChromosomeCache;
use loa_proto::peers::{PeerService, PeerToken, Peers};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Polls `control` until it says stop, so loops blocked in a call notice at once.
async fn stopped(control: &Control) {
    while !control.stopping() {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Runs a worker until stopped, refused, or (with `give_up_after`) the master is gone; a master
/// never reached in that time is [`WorkerError::NeverReached`].
pub fn run(options: WorkerOptions, control: Control) -> Result<WorkerReport, WorkerError> {
    options.check()?;
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(WorkerError::Io)?;
    runtime.block_on(serve(options, control))
}

async fn serve(options: WorkerOptions, control: Control) -> Result<WorkerReport, WorkerError> {
    let client = client::connect(&options.master, options.token.as_deref(), options.tls_ca.as_deref())
        .map_err(WorkerError::Options)?;
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let local = Arc::new(players::Local::default());
    let players_done = Arc::new(AtomicBool::new(false));
    let players = players::spawn(options.slots, &local, &tx, &control, &players_done).map_err(WorkerError::Io)?;
    drop(tx); // the players hold the only senders: the channel closes when they are done
    let salt = options.name.bytes().fold(0u64, |h, b| loa_engine::random::derive_seed(h, u64::from(b)));
    let cache = Arc::new(Mutex::new(ChromosomeCache::new(options.chromosome_cache)));
    let peer_token = PeerToken::default();
    let peer_service = match options.peer_listen {
        Some(address) => Some(serve_peers(address, &cache, &peer_token, &control).await?),
        None => None,
    };
    let peer_port = peer_service.as_ref().map_or(0, |(port, _)| *port);
    let session = Session {
        client,
        options,
        control: control.clone(),
        local: Arc::clone(&local),
        last_contact: Mutex::new(Instant::now()),
        told_unreachable: Mutex::new(None),
        report: Mutex::default(),
        salt,
        cache,
        peers: Peers::new(peer_token.clone()),
        peer_token,
        peer_port,
        flush_deadline: Mutex::new(None),
        credential: Mutex::default(),
    };
    let ended = session.run(rx).await;
    players_done.store(true, Ordering::Release);
    if !control.killed() {
        // A crash lets the players finish their game in the background and throws it away.
        let _ = tokio::task::spawn_blocking(move || players.into_iter().for_each(|p| drop(p.join()))).await;
    }
    if let Some((_, serving)) = peer_service {
        // Stopped with the worker (the control says so); its calls in progress are cut short.
        serving.abort();
    }
    let mut report = session.report.lock().unwrap_or_else(|p| p.into_inner()).clone();
    report.played = local.played.load(Ordering::Relaxed);
    match ended {
        Ended::Failed(e) => Err(e),
        Ended::MasterGone => Ok(WorkerReport { master_gone: true, ..report }),
        Ended::Stopped => Ok(report),
    }
}

/// Starts serving the chromosomes of `cache` to other workers on `address`: the port bound, and
/// the server's task. Fails at once, naming the address, if it cannot be bound.
async fn serve_peers(
    address: std::net::SocketAddr,
    cache: &Arc<Mutex<ChromosomeCache>>,
    token: &PeerToken,
    control: &Control,
) -> Result<(u16, tokio::task::JoinHandle<()>), WorkerError> {
    let listener = tokio::net::TcpListener::bind(address)
        .await
        .map_err(|e| WorkerError::Options(format!("--peer-listen {address}: {e}")))?;
    let port = listener.local_addr().map_err(WorkerError::Io)?.port();
    let service = PeerService::new(Arc::clone(cache), token.clone());
    let control = control.clone();
    let serving = tokio::spawn(async move {
        if let Err(e) = service.serve(listener, stopped(&control)).await {
            eprintln!("worker: the peer service stopped: {e}");
        }
    });
    Ok((port, serving))
}
