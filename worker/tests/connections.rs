//! The master's connection limits against a run: connections the test opens and leaves silent
//! fill the caps, so workers are refused until the handshake time closes them, and a flood goes
//! on while the run does; the checkpoints are still an embedded run's. Over TLS, a connection
//! that never finishes its TLS handshake is closed at the handshake time as a plain one is.

use loa_master::cluster::{self, ClusterOptions, TlsIdentity};
use loa_master::run::{RunDir, start};
use loa_master::scheduler::Scheduler;
use loa_proto::admit::ConnectionLimits;
use std::io::{Read, Write};
use std::net::{IpAddr, SocketAddr, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

mod common;
use common::*;

/// A TCP connection to `addr` from the loopback address `from`.
fn connect_from(addr: SocketAddr, from: &str) -> TcpStream {
    try_connect_from(addr, from).unwrap()
}

/// [`connect_from`], or why not (the master stopped listening).
fn try_connect_from(addr: SocketAddr, from: &str) -> std::io::Result<TcpStream> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    runtime.block_on(async {
        let socket = tokio::net::TcpSocket::new_v4()?;
        socket.bind(SocketAddr::new(from.parse::<IpAddr>().unwrap(), 0))?;
        socket.connect(addr).await?.into_std()
    })
}

/// Whether the server closes `socket` within `within`: it reads until the end (or a reset).
fn closed_within(socket: &mut TcpStream, within: Duration) -> bool {
    socket.set_nonblocking(false).unwrap();
    socket.set_read_timeout(Some(within)).unwrap();
    let started = Instant::now();
    let mut buf = [0u8; 4096];
    loop {
        match socket.read(&mut buf) {
            Ok(0) => return true,
            Ok(_) => {} // the server's SETTINGS and the like
            Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => {
                return false;
            }
            Err(_) => return true, // reset
        }
        if started.elapsed() > within {
            return false;
        }
    }
}

/// The HTTP/2 client preface's first 12 bytes: a connection that stops half-way through it.
const HALF_PREFACE: &[u8] = b"PRI * HTTP/2";

/// The number before `label` in the run log's cluster summary line.
fn count(line: &str, label: &str) -> u64 {
    let before = line.split(&format!(" {label}")).next().unwrap();
    before.rsplit([' ', ':']).next().unwrap().parse().unwrap_or_else(|_| panic!("{label} in {line}"))
}

#[test]
fn a_run_behind_full_caps_and_a_flood_of_silent_connections_matches_an_embedded_run() {
    let (_tmp, reference, cluster) = dirs();
    let config = tiny(4, 3);
    let expected = embedded(&config, &reference);
    let handshake = Duration::from_secs(1);
    let mut options = ClusterOptions::new("127.0.0.1:0".parse().unwrap(), Some(TOKEN.into()));
    options.lease_time = Duration::from_secs(10);
    options.connections = ConnectionLimits {
        handshake,
        keepalive: Some(Duration::from_secs(1)),
        keepalive_timeout: Duration::from_secs(10),
        per_address: 3,
        total: 6,
    };
    let run = {
        let (config, out) = (config.clone(), cluster.clone());
        move |options| start(config, &out, &options).unwrap()
    };
    let master = master_with(options, run);
    // Both caps full before any worker comes: 127.0.0.1 (the workers' address) at its 3, and
    // the total at its 6 with three more, one of them half-way through the HTTP/2 preface.
    let mut fillers: Vec<TcpStream> = ["127.0.0.1", "127.0.0.1", "127.0.0.1", "127.0.0.2", "127.0.0.2", "127.0.0.3"]
        .into_iter()
        .map(|from| connect_from(master.addr, from))
        .collect();
    fillers[5].write_all(HALF_PREFACE).unwrap();
    // Over the total: closed at once. Accepted in order, so the fillers were taken first.
    let mut over = connect_from(master.addr, "127.0.0.4");
    assert!(closed_within(&mut over, Duration::from_secs(30)), "a seventh connection was kept");
    let filled = Instant::now();
    // The workers are refused until the fillers' handshake time closes them.
    let workers: Vec<_> = (0..2).map(|i| worker(master.addr, &format!("w{i}"), TOKEN)).collect();
    // While the run goes on, a silent connection every 50 ms from one address: at most its
    // cap of 3 are held at once, each for the handshake time, the rest closed at once; the
    // workers' places (2 of the 6) are never wanted by it.
    let flooding = Arc::new(AtomicBool::new(true));
    let flood = {
        let (flooding, addr) = (Arc::clone(&flooding), master.addr);
        std::thread::spawn(move || {
            let mut held = Vec::new();
            // Until told, or until the master, its run over, no longer listens.
            while flooding.load(Ordering::Acquire) {
                let Ok(socket) = try_connect_from(addr, "127.0.0.5") else { break };
                held.push(socket);
                held.retain_mut(|s: &mut TcpStream| !closed_within(s, Duration::from_millis(1)));
                std::thread::sleep(Duration::from_millis(50));
            }
            held.len()
        })
    };
    for (i, filler) in fillers.iter_mut().enumerate() {
        assert!(closed_within(filler, Duration::from_secs(60)), "filler {i}: still open");
    }
    assert!(filled.elapsed() >= handshake - Duration::from_millis(100), "closed before the handshake time");
    let started = Instant::now();
    while !master.thread.is_finished() {
        assert!(started.elapsed() < Duration::from_secs(120), "no progress");
        std::thread::sleep(Duration::from_millis(20));
    }
    let summary = master.thread.join().unwrap();
    flooding.store(false, Ordering::Release);
    flood.join().unwrap();
    let reports: Vec<_> = workers.into_iter().map(|w| w.stop().unwrap()).collect();
    assert_eq!(summary, expected);
    same_run(&reference, &cluster, 4);
    assert_eq!(generation_lines(&RunDir::new(&reference)), generation_lines(&RunDir::new(&cluster)));
    assert!(reports.iter().all(|r| r.undelivered == 0), "{reports:?}");
    // The caps and the handshake time did act on this run.
    let log = std::fs::read_to_string(RunDir::new(&cluster).log()).unwrap();
    let line = log.lines().find(|l| l.contains(" cluster: ")).unwrap_or_else(|| panic!("no summary: {log}"));
    assert!(count(line, "connections closed over the caps") >= 1, "{line}");
    assert!(count(line, "closed without a call in the handshake time") >= 6, "{line}");
}

/// A self-signed certificate for 127.0.0.1.
fn tls_identity() -> TlsIdentity {
    let cert = rcgen::generate_simple_self_signed(vec!["127.0.0.1".to_owned()]).unwrap();
    TlsIdentity { cert_pem: cert.cert.pem().into_bytes(), key_pem: cert.signing_key.serialize_pem().into_bytes() }
}

/// The first bytes of a TLS ClientHello: a handshake record's header announcing 512 bytes, and
/// the handshake message's type and length, then nothing more.
const HALF_CLIENT_HELLO: &[u8] = &[0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03, 0x03];

#[test]
fn over_tls_a_connection_that_never_finishes_its_handshake_is_closed_at_the_handshake_time() {
    let handshake = Duration::from_secs(2);
    let scheduler = Arc::new(Scheduler::new(Duration::from_secs(30)));
    let mut options = ClusterOptions::new("127.0.0.1:0".parse().unwrap(), Some(TOKEN.into()));
    options.tls = Some(tls_identity());
    // Keep-alive out of the way: only the handshake time can close these connections.
    options.connections = ConnectionLimits { handshake, keepalive: None, ..ConnectionLimits::default() };
    let server = cluster::serve(&scheduler, &options).unwrap();
    let started = Instant::now();
    let mut silent = connect_from(server.addr, "127.0.0.1");
    let mut half = connect_from(server.addr, "127.0.0.1");
    half.write_all(HALF_CLIENT_HELLO).unwrap();
    // Generous: the machine may be loaded; without a deadline they stay open for good.
    for (what, socket) in [("silent", &mut silent), ("half a ClientHello", &mut half)] {
        assert!(closed_within(socket, Duration::from_secs(30)), "{what}: still open");
        assert!(
            started.elapsed() >= handshake - Duration::from_millis(100),
            "{what}: closed before the handshake time"
        );
    }
    scheduler.close();
}
