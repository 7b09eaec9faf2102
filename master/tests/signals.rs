//! A master serving workers keeps SIGPIPE ignored (issue 14): hyper writes to sockets with
//! `writev`, which raises SIGPIPE when the peer has gone, so with the signal's default action a
//! worker vanishing at the wrong moment killed the master (5 000 stub workers connecting at
//! once died of it). Only `master export`, which just prints, takes the default action, so
//! that `master export ... | head` ends quietly.

#![cfg(target_os = "linux")]

use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Whether process `pid` ignores SIGPIPE (signal 13: bit 12 of the `SigIgn` mask).
fn ignores_sigpipe(pid: u32) -> bool {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("the process's /proc entry");
    let mask = status.lines().find_map(|l| l.strip_prefix("SigIgn:")).expect("a SigIgn line").trim();
    u64::from_str_radix(mask, 16).expect("a hexadecimal mask") & (1 << 12) != 0
}

#[test]
fn a_master_serving_workers_ignores_sigpipe() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("c.toml");
    std::fs::write(&config, "population = 4\n").unwrap();
    let out = dir.path().join("run");
    let bound = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = bound.local_addr().unwrap().port();
    drop(bound);
    let mut master = Command::new(env!("CARGO_BIN_EXE_master"))
        .args(["run", "--config", config.to_str().unwrap(), "--out", out.to_str().unwrap()])
        .args(["--listen", &format!("127.0.0.1:{port}"), "--threads", "0", "--quiet"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the master");
    // Listening means main has long passed where it sets the signal's action.
    let started = Instant::now();
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(started.elapsed() < Duration::from_secs(30), "the master never listened");
        std::thread::sleep(Duration::from_millis(20));
    }
    let ignored = ignores_sigpipe(master.id());
    master.kill().unwrap();
    master.wait().unwrap();
    assert!(ignored, "the serving master takes SIGPIPE's default action: a vanished worker can kill it");
}
