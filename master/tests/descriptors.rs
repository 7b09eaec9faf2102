//! A master out of file descriptors (issue 14: one connection a worker, thousands of workers)
//! waits for one to be freed instead of spinning on failed `accept` calls, says why on its
//! standard error, and counts the connections it could not take.

#![cfg(target_os = "linux")]

use std::io::Read;
use std::net::TcpStream;
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
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

#[test]
fn a_master_out_of_descriptors_waits_instead_of_spinning() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("c.toml");
    std::fs::write(&config, "population = 4\n").unwrap();
    let out = dir.path().join("run");
    let bound = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = bound.local_addr().unwrap().port();
    drop(bound);
    let mut master = Command::new(env!("CARGO_BIN_EXE_master"));
    master
        .args(["run", "--config", config.to_str().unwrap(), "--out", out.to_str().unwrap()])
        .args(["--listen", &format!("127.0.0.1:{port}"), "--threads", "0", "--quiet"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
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
    let mut child = master.spawn().expect("start the master");
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
