//! The `worker` binary as a user meets it: it says when it registers, loses the master and cannot
//! reach it; a master it never reached is an error naming the address and why; bad flags and
//! unknown hosts are refused before anything else is said; shell completions.

use std::process::{Command, Output};
use std::time::{Duration, Instant};

mod common;
use common::*;

fn worker(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_worker")).args(args).output().expect("run worker")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn a_worker_says_when_it_registers_and_leaves_when_told_the_run_is_over() {
    let (_tmp, _, out) = dirs();
    // No embedded workers: the run needs this worker to finish, and ends while it waits.
    let m = master(&tiny(1, 1), &out, Duration::from_secs(5));
    let url = format!("http://{}", m.addr);
    let started = Instant::now();
    let o = worker(&["--master", &url, "--token", TOKEN, "--slots", "1", "--give-up-after", "60"]);
    m.thread.join().unwrap();
    let err = stderr(&o);
    assert!(o.status.success(), "{err}");
    let at = |needle: &str| err.find(needle).unwrap_or_else(|| panic!("no `{needle}` in\n{err}"));
    let registered = at(&format!("worker: registered with {url} as worker "));
    assert!(err[registered..].lines().next().unwrap().ends_with(", 1 slot"), "{err}");
    let over = at(&format!("worker: the master at {url} says the run is over: leaving"));
    let stopped = at("worker: stopped: ");
    assert!(registered < over && over < stopped, "{err}");
    assert!(!err.contains("retrying"), "told the run is over, it does not wait for the master: {err}");
    assert!(!err.contains("worker: stopped: 0 tasks played"), "it played the run's tasks: {err}");
    assert!(started.elapsed() < Duration::from_secs(40), "it left without waiting out --give-up-after");
}

#[test]
fn a_master_never_reached_is_said_every_30_s_and_then_an_error_naming_its_address_and_why() {
    // A port nothing listens on (bound, then freed).
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let url = format!("http://127.0.0.1:{port}");
    // Attempts come at most 5 s apart, so one falls between 30 s and 40 s.
    let o = worker(&["--master", &url, "--slots", "1", "--give-up-after", "40"]);
    let err = stderr(&o);
    assert!(!o.status.success(), "{err}");
    let said =
        |what: &str| err.lines().filter(|l| l.starts_with(&format!("worker: {what} the master at {url}"))).count();
    assert_eq!((said("cannot reach"), said("still cannot reach")), (1, 1), "{err}");
    let first = format!("{url}: connection refused; retrying for 40 s more (--give-up-after)");
    let again = format!("worker: still cannot reach the master at {url} after 3");
    let last = format!("worker: error: never reached the master at {url} in 40 s: connection refused");
    assert!(err.contains(&first) && err.contains(&again) && err.contains(&last), "{err}");
    assert!(!err.contains("registered") && !err.contains("the master is gone"), "{err}");
}

#[test]
fn an_unknown_host_is_refused_at_once_naming_it() {
    let started = Instant::now();
    // `.invalid` never resolves (RFC 6761).
    let o = worker(&["--master", "http://no-such-host.invalid:50051", "--slots", "1", "--give-up-after", "600"]);
    let err = stderr(&o);
    assert!(!o.status.success(), "{err}");
    assert!(started.elapsed() < Duration::from_secs(60), "it retried: {err}");
    assert!(
        err.contains("cannot find the master's host \"no-such-host.invalid\"") && err.contains("--master"),
        "{err}"
    );
}

#[test]
fn out_of_range_flags_are_the_only_thing_said() {
    for (flag, value, range) in [("--slots", "0", "1..=1024"), ("--batch", "65", "1..=64")] {
        let o = worker(&["--master", "http://127.0.0.1:1", flag, value]);
        assert!(!o.status.success());
        assert_eq!(stderr(&o), format!("worker: error: {flag} must be in {range}, got {value}\n"));
    }
}

#[test]
fn completions_are_printed_for_each_shell() {
    for (shell, marker) in [("bash", "_worker()"), ("zsh", "#compdef worker"), ("fish", "complete -c worker")] {
        let o = worker(&["completions", shell]);
        let script = String::from_utf8_lossy(&o.stdout);
        assert!(o.status.success(), "{shell}: {}", stderr(&o));
        assert!(script.contains(marker) && script.contains("give-up-after"), "{shell}: {script}");
    }
    let o = worker(&["completions", "cmd.exe"]);
    assert!(!o.status.success() && stderr(&o).contains("bash"), "{}", stderr(&o));
}

#[test]
fn a_blank_token_is_refused_before_anything_else() {
    for (flags, env) in [(&["--token", ""][..], None), (&["--token", " "][..], None), (&[][..], Some(""))] {
        let mut command = Command::new(env!("CARGO_BIN_EXE_worker"));
        command.args(["--master", "http://127.0.0.1:1", "--give-up-after", "1"]).args(flags).env_remove("LOA_TOKEN");
        if let Some(value) = env {
            command.env("LOA_TOKEN", value);
        }
        let o = command.output().unwrap();
        let err = stderr(&o);
        assert!(!o.status.success() && err.contains("--token is empty"), "{flags:?} {env:?}: {err}");
        assert!(!err.contains("cannot reach"), "refused before any call: {err}");
    }
}
