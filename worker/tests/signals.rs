//! A worker keeps SIGPIPE ignored: it talks to its master and peers over sockets,
//! whose writes (hyper's `writev`) raise SIGPIPE when the other side has gone; with the
//! signal's default action that killed the worker instead of failing the call, which it retries.

#![cfg(target_os = "linux")]

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A worker process, once it has connected to a "master" that only accepts (returned too, so
/// it stays open): connected means its main has set up its signals, which come before it joins.
fn connected_worker() -> (Child, std::net::TcpListener) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let worker = Command::new(env!("CARGO_BIN_EXE_worker"))
        .args(["--master", &url, "--slots", "1"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the worker");
    listener.set_nonblocking(true).unwrap();
    let started = Instant::now();
    while listener.accept().is_err() {
        assert!(started.elapsed() < Duration::from_secs(30), "the worker never connected");
        std::thread::sleep(Duration::from_millis(20));
    }
    (worker, listener)
}

#[test]
fn a_worker_ignores_sigpipe() {
    let (mut worker, _master) = connected_worker();
    let status = std::fs::read_to_string(format!("/proc/{}/status", worker.id())).unwrap();
    worker.kill().unwrap();
    worker.wait().unwrap();
    let mask = status.lines().find_map(|l| l.strip_prefix("SigIgn:")).expect("a SigIgn line").trim();
    // SIGPIPE is signal 13: bit 12 of the mask.
    let ignored = u64::from_str_radix(mask, 16).unwrap() & (1 << 12) != 0;
    assert!(ignored, "the worker takes SIGPIPE's default action: SigIgn {mask}");
}

/// SIGTERM (what Slurm's scancel, a service manager or `kill` sends) stops a worker as Ctrl-C
/// does, cleanly, rather than killing it with the tasks it holds.
#[test]
fn a_worker_stops_cleanly_on_sigterm() {
    use std::os::unix::process::ExitStatusExt;
    let (mut worker, _master) = connected_worker();
    let sent = Command::new("kill").args(["-TERM", &worker.id().to_string()]).status().unwrap();
    assert!(sent.success(), "kill -TERM failed");
    let stopped = Instant::now();
    let status = loop {
        if let Some(status) = worker.try_wait().unwrap() {
            break status;
        }
        if stopped.elapsed() > Duration::from_secs(30) {
            worker.kill().unwrap();
            panic!("the worker was still running 30 s after SIGTERM");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(status.signal(), None, "SIGTERM killed the worker instead of stopping it: {status:?}");
}
