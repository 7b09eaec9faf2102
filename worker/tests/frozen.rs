//! A worker frozen with SIGSTOP (a process the kernel keeps, with its connection open, but that
//! never reads or writes) holds neither the run nor the master's exit: its leases are backed up
//! by the others, and once the run is over the master stops serving within seconds, as a batch
//! system expects of a job's last step.

#![cfg(target_os = "linux")]

mod common;
use common::*;

use loa_master::run::RunDir;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A worker process of one slot serving the master at `addr`.
fn worker_process(addr: std::net::SocketAddr, name: &str) -> Child {
    Command::new(env!("CARGO_BIN_EXE_worker"))
        .args(["--master", &format!("http://{addr}"), "--slots", "1", "--name", name, "--token", TOKEN])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the worker")
}

/// Sends `signal` (`STOP`, `CONT`) to `child`.
fn signal(child: &Child, signal: &str) {
    let status = Command::new("kill").args([&format!("-{signal}"), &child.id().to_string()]).status().unwrap();
    assert!(status.success(), "kill -{signal} failed");
}

/// Waits until the run's log has a line containing `text` (or the master thread ended).
fn wait_for_line(dir: &RunDir, text: &str, master: &Master) -> bool {
    let started = Instant::now();
    loop {
        let log = std::fs::read_to_string(dir.log()).unwrap_or_default();
        if log.contains(text) {
            return true;
        }
        if master.thread.is_finished() {
            return false;
        }
        assert!(started.elapsed() < Duration::from_secs(120), "no line {text:?} in the run log");
        std::thread::sleep(Duration::from_millis(2));
    }
}

#[test]
fn a_worker_frozen_near_the_end_neither_holds_the_run_nor_the_masters_exit() {
    let (_tmp, reference, cluster) = dirs();
    let config = tiny(2, 1);
    embedded(&config, &reference);
    // A lease far longer than the test: only backups and a bounded shutdown end it in time.
    let master = master(&config, &cluster, Duration::from_secs(600));
    let mut frozen = worker_process(master.addr, "frozen");
    let mut steady = worker_process(master.addr, "steady");
    let dir = RunDir::new(&cluster);
    // Frozen in the middle of the last epoch, with its stream open and most likely a lease.
    let in_time = wait_for_line(&dir, "generation 3:", &master);
    signal(&frozen, "STOP");
    let finished = wait_for_line(&dir, "finished:", &master);
    let at_finish = Instant::now();
    let exited_in_time = (0..1000).any(|_| {
        std::thread::sleep(Duration::from_millis(10));
        master.thread.is_finished()
    });
    let after = at_finish.elapsed();
    signal(&frozen, "CONT");
    let summary = master.thread.join().unwrap();
    for w in [&mut frozen, &mut steady] {
        w.kill().unwrap();
        w.wait().unwrap();
    }
    assert!(in_time, "the run ended before the worker could be frozen");
    assert!(finished, "the run ended without finishing");
    assert!(exited_in_time, "the master was still serving {after:?} after the run finished");
    assert!(after < Duration::from_secs(10), "the master took {after:?} to exit after the run finished");
    assert_eq!((summary.epoch, summary.stopped), (2, false));
    same_run(&reference, &cluster, 2);
}
