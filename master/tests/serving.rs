//! A master serving workers, as a process (one connection a worker, thousands of workers):
//! - out of file descriptors, it waits for one to be freed instead of spinning on failed
//!   `accept` calls, says why on its standard error, and counts the connections it could not
//!   take;
//! - it keeps SIGPIPE ignored: hyper writes to sockets with `writev`, which raises SIGPIPE when
//!   the peer has gone, so with the signal's default action a worker vanishing at the wrong
//!   moment could kill the master. Only `master export`, which just prints, takes the default
//!   action, so that `master export ... | head` ends quietly.

#![cfg(target_os = "linux")]

use std::io::Read;
use std::net::TcpStream;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// CPU seconds (user + system) process `pid` has used.
fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("the master's /proc entry");
    let fields: Vec<&str> = stat.rsplit_once(')').expect("stat's command field").1.split_whitespace().collect();
    // utime and stime, the 14th and 15th fields (the 12th and 13th after the command).
    let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
    // SAFETY: sysconf has no preconditions.
    ticks as f64 / unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64
}

/// `master run` of a 4-chromosome population serving workers on a port the system picks, with
/// `setup` applied to its command; returns it, listening, with its port and its directory.
///
/// The port is read back from `run.log` rather than chosen beforehand: a port found free and
/// released can be taken again (by another test's connections) before the master binds it,
/// and the test would then talk to someone else's socket.
fn serving_master(setup: impl FnOnce(&mut Command)) -> (Child, u16, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("c.toml");
    std::fs::write(&config, "population = 4\n").unwrap();
    let out = dir.path().join("run");
    let mut master = Command::new(env!("CARGO_BIN_EXE_master"));
    master
        .args(["run", "--config", config.to_str().unwrap(), "--out", out.to_str().unwrap()])
        .args(["--listen", "127.0.0.1:0", "--threads", "0", "--quiet"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    setup(&mut master);
    let mut child = master.spawn().expect("start the master");
    let started = Instant::now();
    let port = loop {
        let log = std::fs::read_to_string(out.join("run.log")).unwrap_or_default();
        let serving = log.lines().find_map(|l| l.split_once("serving workers on ")).map(|(_, rest)| rest);
        if let Some(addr) = serving.and_then(|rest| rest.split_whitespace().next()) {
            break addr.parse::<std::net::SocketAddr>().expect("the address run.log names").port();
        }
        if let Some(status) = child.try_wait().unwrap() {
            let mut stderr = String::new();
            child.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
            panic!("the master ended ({status}) before serving: {stderr}");
        }
        assert!(started.elapsed() < Duration::from_secs(30), "the master never said where it serves");
        std::thread::sleep(Duration::from_millis(20));
    };
    (child, port, dir)
}

#[test]
fn a_master_out_of_descriptors_waits_instead_of_spinning() {
    let (mut child, port, _dir) = serving_master(|master| {
        // SAFETY: only setrlimit, which is async-signal-safe, runs between fork and exec.
        unsafe {
            master.pre_exec(|| {
                // Hard and soft: the master cannot raise it, so it runs out at about 40 connections.
                let limit = libc::rlimit { rlim_cur: 64, rlim_max: 64 };
                if libc::setrlimit(libc::RLIMIT_NOFILE, &limit) == 0 {
                    Ok(())
                } else {
                    Err(std::io::Error::last_os_error())
                }
            });
        }
    });
    let started = Instant::now();
    let mut connections = Vec::new();
    while connections.is_empty() && started.elapsed() < Duration::from_secs(30) {
        match TcpStream::connect(("127.0.0.1", port)) {
            Ok(c) => connections.push(c),
            Err(_) => std::thread::sleep(Duration::from_millis(20)),
        }
    }
    assert!(!connections.is_empty(), "the master never listened");
    // More connections than it has descriptors for: the kernel queues them in the backlog.
    connections.extend((0..100).filter_map(|_| TcpStream::connect(("127.0.0.1", port)).ok()));
    std::thread::sleep(Duration::from_millis(300));
    let before = cpu_seconds(child.id());
    std::thread::sleep(Duration::from_secs(2));
    let used = cpu_seconds(child.id()) - before;
    drop(connections);
    child.kill().unwrap();
    child.wait().unwrap();
    let mut stderr = String::new();
    child.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
    // Spinning, it used a whole core (2 s of 2 s with main's build before the fix); waiting,
    // a few milliseconds.
    assert!(used < 0.5, "the master used {used:.2} CPU seconds in 2 s while out of descriptors");
    assert!(stderr.contains("master: cannot accept a connection"), "{stderr}");
}

/// Whether process `pid` ignores SIGPIPE (signal 13: bit 12 of the `SigIgn` mask).
fn ignores_sigpipe(pid: u32) -> bool {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("the process's /proc entry");
    let mask = status.lines().find_map(|l| l.strip_prefix("SigIgn:")).expect("a SigIgn line").trim();
    u64::from_str_radix(mask, 16).expect("a hexadecimal mask") & (1 << 12) != 0
}

#[test]
fn a_master_serving_workers_ignores_sigpipe() {
    let (mut master, port, _dir) = serving_master(|_| {});
    // Listening means main has long passed where it sets the signal's action.
    let started = Instant::now();
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(started.elapsed() < Duration::from_secs(30), "the master never listened");
        std::thread::sleep(Duration::from_millis(20));
    }
    let ignored = ignores_sigpipe(master.id());
    // An ended process's mask reads as empty: the check above only counts while it runs.
    assert!(master.try_wait().unwrap().is_none(), "the master ended while serving");
    master.kill().unwrap();
    master.wait().unwrap();
    assert!(ignored, "the serving master takes SIGPIPE's default action: a vanished worker can kill it");
}

#[test]
fn a_master_without_workers_says_it_waits_for_them() {
    let (mut child, _port, dir) = serving_master(|_| {});
    let log = dir.path().join("run").join("run.log");
    let started = Instant::now();
    let said = loop {
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        if let Some(line) = text.lines().find(|l| l.contains("waiting for workers")) {
            break line.to_owned();
        }
        if started.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            panic!("no word of waiting in 30 s: {text}");
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let _ = child.kill();
    let _ = child.wait();
    assert!(
        said.contains("waiting for workers: 0 connected, ") && said.ends_with("tasks of this step to play"),
        "{said}"
    );
}
