//! Workers reaching the master through a fault-injecting proxy (loa-bench's `faultproxy`):
//! latency with jitter, a stall that heals, random resets. Each run's checkpoints must equal
//! the embedded run's, and each test checks the fault really happened.

mod common;
use common::*;

use loa_bench::faultproxy::{Command, FaultProxy, ProxyCounts, ProxyOptions};
use loa_master::run::RunDir;
use std::io::{Read, Write};
use std::net::SocketAddr;
use std::time::{Duration, Instant};

/// A proxy in front of the master at `upstream`, no fault in force yet.
fn proxy(upstream: SocketAddr, seed: u64) -> FaultProxy {
    let options = ProxyOptions { listen: "127.0.0.1:0".parse().unwrap(), upstream, control: None, seed };
    FaultProxy::start(&options).unwrap()
}

/// Waits until `what` holds of the proxy's counts, for 60 s at most.
fn wait_for(proxy: &FaultProxy, what: &str, holds: impl Fn(&ProxyCounts) -> bool) {
    let started = Instant::now();
    while !holds(&proxy.counts()) {
        assert!(started.elapsed() < Duration::from_secs(60), "never {what}: {}", proxy.counts());
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// How long the master takes to acknowledge an HTTP/2 SETTINGS frame sent through the proxy on
/// a new connection: the frame must reach it and its acknowledgement come back.
fn settings_round_trip(proxy: &FaultProxy) -> Duration {
    let mut stream = std::net::TcpStream::connect(proxy.addr()).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let began = Instant::now();
    stream.write_all(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\0\0\0\x04\0\0\0\0\0").unwrap();
    loop {
        let mut header = [0u8; 9];
        stream.read_exact(&mut header).unwrap();
        let length = u32::from_be_bytes([0, header[0], header[1], header[2]]) as usize;
        stream.read_exact(&mut vec![0u8; length]).unwrap();
        // Type 4 is SETTINGS, flag 1 its acknowledgement.
        if header[3] == 4 && header[4] & 1 == 1 {
            return began.elapsed();
        }
    }
}

#[test]
fn latency_with_jitter_slows_the_run_but_not_its_results() {
    let (_tmp, reference, cluster) = dirs();
    let config = tiny(2, 1);
    embedded(&config, &reference);
    let m = master(&config, &cluster, Duration::from_secs(5));
    let proxy = proxy(m.addr, 1);
    let direct = settings_round_trip(&proxy);
    let latency = Duration::from_millis(150);
    proxy.apply(&Command::Latency { latency, jitter: Duration::from_millis(100) });
    let delayed = settings_round_trip(&proxy);
    // One trip each way at least.
    assert!(delayed >= 2 * latency, "the acknowledgement took {delayed:?} (without latency: {direct:?})");
    let url = format!("http://{}", proxy.addr());
    let workers: Vec<_> = (0..2).map(|i| worker_at(&url, &format!("w{i}"), TOKEN, None)).collect();
    let summary = m.thread.join().unwrap();
    assert_eq!((summary.epoch, summary.stopped), (2, false));
    let reports: Vec<_> = workers.into_iter().map(|w| w.stop().unwrap()).collect();
    assert_eq!(reports.iter().map(|r| r.accepted).sum::<u64>(), 16 + 12, "{reports:?}");
    assert!(proxy.counts().chunks > 0, "{}", proxy.counts());
    same_run(&reference, &cluster, 2);
}

#[test]
fn a_stalled_worker_is_dropped_and_its_leases_go_elsewhere() {
    let (_tmp, reference, cluster) = dirs();
    // Depth 3: tasks long enough that the stalled worker holds leases when the stall begins,
    // and a run that goes on for more than the lease time after it.
    let config = tiny(8, 3);
    embedded(&config, &reference);
    let m = master(&config, &cluster, Duration::from_secs(1));
    let proxy = proxy(m.addr, 2);
    let stalled = worker_at(&format!("http://{}", proxy.addr()), "stalled", TOKEN, None);
    // Tasks came to the stalled worker before the steady one starts: it holds leases.
    wait_for(&proxy, "sent tasks", |c| c.bytes_down > 4096);
    proxy.apply(&Command::Stall(true));
    let steady = worker(m.addr, "steady", TOKEN);
    // The stall lasts until the master drops the worker, or the run ends; then it heals.
    let dir = RunDir::new(&cluster);
    let dropped = |log: &str| {
        log.lines().any(|l| l.contains("worker stalled (1 slots") && l.ends_with("dropped: silent for the lease time"))
    };
    while !dropped(&std::fs::read_to_string(dir.log()).unwrap_or_default()) && !m.thread.is_finished() {
        std::thread::sleep(Duration::from_millis(5));
    }
    proxy.apply(&Command::Stall(false));
    let summary = m.thread.join().unwrap();
    assert_eq!((summary.epoch, summary.stopped), (8, false));
    drop((stalled.stop(), steady.stop().unwrap()));
    let counts = proxy.counts();
    assert!(counts.held > 0, "the stall held nothing: {counts}");
    let log = String::from_utf8(read(&dir.log())).unwrap();
    assert!(dropped(&log), "the stalled worker was not dropped for silence: {log}");
    same_run(&reference, &cluster, 8);
}

#[test]
fn connections_reset_at_random_lose_nothing() {
    let (_tmp, reference, cluster) = dirs();
    // Long enough for several resets at the rate below: two seconds or more.
    let config = tiny(20, 3);
    embedded(&config, &reference);
    let began = Instant::now();
    let m = master(&config, &cluster, Duration::from_secs(5));
    let proxy = proxy(m.addr, 3);
    proxy.apply(&Command::Resets(4.0));
    let url = format!("http://{}", proxy.addr());
    let workers: Vec<_> = (0..2).map(|i| worker_at(&url, &format!("w{i}"), TOKEN, None)).collect();
    let summary = m.thread.join().unwrap();
    let took = began.elapsed();
    assert_eq!((summary.epoch, summary.stopped), (20, false));
    let reports: Vec<_> = workers.into_iter().map(|w| w.stop().unwrap()).collect();
    let counts = proxy.counts();
    assert!(counts.resets > 0, "no connection was reset in {took:?}: {counts}");
    // A reset stream makes a worker register again.
    let registrations: u64 = reports.iter().map(|r| r.registrations).sum();
    assert!(registrations > 2, "the resets broke no stream in {took:?}: {reports:?} ({counts})");
    same_run(&reference, &cluster, 20);
}
