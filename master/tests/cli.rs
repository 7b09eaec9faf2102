//! The `master` command: clear one-line errors for bad flags and files, and a tiny run end to end.

use std::process::{Command, Output};

fn master(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_master")).args(args).output().expect("run master")
}

/// One epoch of one generation with 4 networks at 1 ply: well under a second.
const TINY: &str = "seed = 3\nepochs = 1\npopulation = 4\ngenerations_per_epoch = 1\nnetwork_depth = 1\n\
                    [benchmark]\ndepth = 1\n[rules]\nply_cap = 30\n";

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn bad_configs_are_named_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("c.toml");
    let out = dir.path().join("run");
    for (text, expected) in [
        ("populaton = 4", "populaton"),
        ("[mutation]\nprobability = 2.0", "`mutation.probability`"),
        ("population = \"four\"", "population"),
    ] {
        std::fs::write(&config, text).unwrap();
        let o = master(&["run", "--config", config.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"]);
        let err = stderr(&o);
        assert!(!o.status.success() && err.contains(expected), "{text}: {err}");
        assert!(!err.contains("panicked"), "{err}");
        assert!(!out.exists(), "a rejected configuration creates no run directory");
    }
    let o = master(&["resume", dir.path().join("nothing").to_str().unwrap(), "--quiet"]);
    assert!(stderr(&o).contains("nothing: no such run directory"), "{}", stderr(&o));
    let o = master(&["run", "--config", config.to_str().unwrap(), "--out", out.to_str().unwrap(), "--token", "x"]);
    assert!(!o.status.success(), "--token needs --listen");
}

#[test]
fn a_tiny_run_then_export_prints_a_chromosome() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("tiny.toml");
    std::fs::write(&config, TINY).unwrap();
    let out = dir.path().join("run");
    let o = master(&["run", "--config", config.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("finished at epoch 1 (generation 1)"));
    let o = master(&["export", out.to_str().unwrap(), "--epoch", "1", "--individual", "0"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let chromosome = loa_engine::network::Chromosome::from_json(&String::from_utf8_lossy(&o.stdout)).unwrap();
    assert_eq!(chromosome.weights().len(), 2041);
}

/// A config that runs for a second or two: long enough to be killed mid-run.
const KILLABLE: &str = "seed = 5\nepochs = 4\npopulation = 6\ngenerations_per_epoch = 2\nnetwork_depth = 2\n\
                        [benchmark]\ndepth = 2\n[rules]\nply_cap = 60\n";

fn run_args<'a>(config: &'a str, out: &'a str) -> Vec<&'a str> {
    vec!["run", "--config", config, "--out", out, "--quiet", "--threads", "2"]
}

fn same_files(a: &std::path::Path, b: &std::path::Path) {
    let (a, b) = (loa_records::RunDir::new(a), loa_records::RunDir::new(b));
    for epoch in 0..=4 {
        let (x, y) =
            (std::fs::read(a.epoch_checkpoint(epoch)).unwrap(), std::fs::read(b.epoch_checkpoint(epoch)).unwrap());
        assert!(x == y, "epoch {epoch} checkpoints differ");
    }
    assert!(std::fs::read(a.latest_checkpoint()).unwrap() == std::fs::read(b.latest_checkpoint()).unwrap());
    assert_eq!(std::fs::read_to_string(a.epochs()).unwrap(), std::fs::read_to_string(b.epochs()).unwrap());
}

#[test]
fn a_master_aborted_at_a_phase_boundary_or_killed_resumes_to_the_same_run() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("k.toml");
    std::fs::write(&config, KILLABLE).unwrap();
    let config = config.to_str().unwrap();
    let reference = dir.path().join("reference");
    let o = master(&run_args(config, reference.to_str().unwrap()));
    assert!(o.status.success(), "{}", stderr(&o));
    // A real crash at a chosen boundary: the process aborts there (SIGABRT, nothing flushed).
    for point in ["before-first-benchmark", "mid-benchmark:0", "after-generation:2", "after-epoch-line:2"] {
        let out = dir.path().join(point.replace(':', "-"));
        let out = out.to_str().unwrap();
        let o = Command::new(env!("CARGO_BIN_EXE_master"))
            .args(run_args(config, out))
            .env("LOA_HALT_AT", point)
            .output()
            .unwrap();
        assert!(!o.status.success(), "{point}: the process should have aborted");
        let o = master(&["resume", out, "--quiet", "--threads", "2"]);
        assert!(o.status.success(), "{point}: {}", stderr(&o));
        assert!(String::from_utf8_lossy(&o.stdout).contains("finished at epoch 4 (generation 8)"), "{point}");
        same_files(&reference, std::path::Path::new(out));
    }
    // kill -9 at whatever moment the run has reached: after its first generation line appears.
    let out = dir.path().join("killed");
    let mut child = Command::new(env!("CARGO_BIN_EXE_master"))
        .args(run_args(config, out.to_str().unwrap()))
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let generations = out.join("generations.jsonl");
    let started = std::time::Instant::now();
    while !generations.exists() && started.elapsed() < std::time::Duration::from_secs(60) {
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    child.kill().unwrap(); // SIGKILL
    let status = child.wait().unwrap();
    let o = master(&["resume", out.to_str().unwrap(), "--quiet", "--threads", "1"]);
    assert!(o.status.success(), "{}", stderr(&o));
    eprintln!("killed with {status}; resumed: {}", String::from_utf8_lossy(&o.stdout));
    same_files(&reference, &out);
}

#[test]
fn run_on_a_directory_without_a_usable_checkpoint_says_how_to_recover() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("k.toml");
    std::fs::write(&config, KILLABLE.replace("epochs = 4", "epochs = 1")).unwrap();
    let out = dir.path().join("run");
    // What a kill between writing config.toml and the first checkpoint leaves.
    std::fs::create_dir_all(out.join("checkpoints")).unwrap();
    std::fs::write(out.join("config.toml"), "seed = 5\n").unwrap();
    let (config, out) = (config.to_str().unwrap(), out.to_str().unwrap());
    let o = master(&run_args(config, out));
    assert!(!o.status.success() && stderr(&o).contains("--force"), "{}", stderr(&o));
    let o = master(&["resume", out, "--quiet"]);
    assert!(!o.status.success() && stderr(&o).contains("no checkpoint"), "{}", stderr(&o));
    let mut args = run_args(config, out);
    args.push("--force");
    let o = master(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    // Now it holds a usable run: --force does not replace it.
    let o = master(&args);
    assert!(!o.status.success() && stderr(&o).contains("already holds a run"), "{}", stderr(&o));
}

#[test]
fn listening_beyond_loopback_needs_a_token() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("c.toml");
    std::fs::write(&config, "population = 4\n").unwrap();
    let out = dir.path().join("run");
    let o = Command::new(env!("CARGO_BIN_EXE_master"))
        .args(["run", "--config", config.to_str().unwrap(), "--out", out.to_str().unwrap(), "--listen", "0.0.0.0:0"])
        .env_remove("LOA_TOKEN")
        .output()
        .unwrap();
    let err = stderr(&o);
    assert!(!o.status.success() && err.contains("--token") && err.contains("--insecure-no-token"), "{err}");
    assert!(!out.exists());
}

#[test]
fn a_dashboard_beyond_loopback_needs_a_token() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("c.toml");
    std::fs::write(&config, "population = 4\n").unwrap();
    let out = dir.path().join("run");
    let o = Command::new(env!("CARGO_BIN_EXE_master"))
        .args(["run", "--config", config.to_str().unwrap(), "--out", out.to_str().unwrap(), "--dashboard", "0.0.0.0:0"])
        .env_remove("LOA_TOKEN")
        .env_remove("LOA_DASHBOARD_TOKEN")
        .output()
        .unwrap();
    let err = stderr(&o);
    #[cfg(feature = "dashboard")]
    assert!(!o.status.success() && err.contains("--dashboard-token") && err.contains("--insecure-dashboard"), "{err}");
    // A master built with `--no-default-features` says why it has no dashboard.
    #[cfg(not(feature = "dashboard"))]
    assert!(!o.status.success() && err.contains("built without its `dashboard` feature"), "{err}");
    assert!(!out.exists());
}

#[test]
fn experiments_take_no_dashboard_flags() {
    let o = master(&["experiment", "--config", "e.toml", "--out", "e.jsonl", "--dashboard", "127.0.0.1:0"]);
    let err = stderr(&o);
    assert!(!o.status.success() && err.contains("unexpected argument '--dashboard'"), "{err}");
}

#[test]
fn a_loa_token_in_the_environment_does_not_stop_a_run_without_listen() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("c.toml");
    std::fs::write(&config, TINY).unwrap();
    let out = dir.path().join("run");
    let o = Command::new(env!("CARGO_BIN_EXE_master"))
        .args(["run", "--config", config.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"])
        .env("LOA_TOKEN", "for-the-workers")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    // With --listen beyond loopback, LOA_TOKEN counts as the token.
    let o = Command::new(env!("CARGO_BIN_EXE_master"))
        .args(["run", "--config", config.to_str().unwrap(), "--out", dir.path().join("r2").to_str().unwrap()])
        .args(["--listen", "0.0.0.0:0", "--insecure-no-token"])
        .env("LOA_TOKEN", "x")
        .output()
        .unwrap();
    assert!(!o.status.success() && stderr(&o).contains("contradicts"), "{}", stderr(&o));
}

#[test]
fn a_blank_or_short_token_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("c.toml");
    std::fs::write(&config, "population = 4\n").unwrap();
    let out = dir.path().join("run");
    let run = |listen: &str, flags: &[&str], env: Option<&str>| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_master"));
        command.args(["run", "--config", config.to_str().unwrap(), "--out", out.to_str().unwrap()]);
        command.args(["--listen", listen]).args(flags).env_remove("LOA_TOKEN").env_remove("LOA_DASHBOARD_TOKEN");
        if let Some(value) = env {
            command.env("LOA_TOKEN", value);
        }
        command.output().unwrap()
    };
    // The slip `--token "$UNSET"`, on any address, and an empty LOA_TOKEN with --listen.
    for (listen, flags, env, named) in [
        ("0.0.0.0:0", &["--token", ""][..], None, "--token"),
        ("127.0.0.1:0", &["--token", "  "][..], None, "--token"),
        ("0.0.0.0:0", &[][..], Some(""), "LOA_TOKEN"),
        ("127.0.0.1:0", &[][..], Some(""), "LOA_TOKEN"),
        (
            "127.0.0.1:0",
            &["--token", "long-enough", "--dashboard", "127.0.0.1:0", "--dashboard-token", ""][..],
            None,
            "--dashboard-token",
        ),
    ] {
        let o = run(listen, flags, env);
        let err = stderr(&o);
        assert!(!o.status.success() && err.contains(&format!("{named} is empty")), "{flags:?} {env:?}: {err}");
        assert!(!out.exists());
    }
    // Beyond loopback a token must not be guessable; on loopback a short one will do.
    let o = run("0.0.0.0:0", &["--token", "short"], None);
    assert!(!o.status.success() && stderr(&o).contains("at least 16"), "{}", stderr(&o));
    assert!(!out.exists());
}

#[test]
fn a_bad_share_is_named_by_the_flag_it_came_from() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("c.toml");
    std::fs::write(&config, "population = 4\n").unwrap();
    let out = dir.path().join("run");
    for flag in ["--verify", "--verify-by-master"] {
        for value in ["2", "half", "150%"] {
            let (config, run) = (config.to_str().unwrap(), out.to_str().unwrap());
            let o = master(&["run", "--config", config, "--out", run, "--listen", "127.0.0.1:0", flag, value]);
            let err = stderr(&o);
            // Every flag of the two the message names is the one given.
            let named: Vec<&str> = err
                .match_indices("--verify")
                .map(|(at, _)| {
                    let rest = &err[at..];
                    &rest[..rest.find(|c: char| !(c.is_ascii_lowercase() || c == '-')).unwrap_or(rest.len())]
                })
                .collect();
            assert!(!named.is_empty() && named.iter().all(|n| *n == flag), "{flag} {value}: {err}");
            assert!(!o.status.success() && err.contains(&format!("{value:?}")) && err.contains("from 0 to 1"), "{err}");
            assert!(!out.exists());
        }
    }
}

#[test]
fn an_allow_list_with_a_blank_name_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("c.toml");
    std::fs::write(&config, "population = 4\n").unwrap();
    let out = dir.path().join("run");
    let (config, run) = (config.to_str().unwrap(), out.to_str().unwrap());
    for names in ["node1,,node2", ""] {
        // Accepted, the run would wait for workers for good: a deadline makes that a failure.
        let mut child = Command::new(env!("CARGO_BIN_EXE_master"))
            .args(["run", "--config", config, "--out", run, "--listen", "127.0.0.1:0", "--allow-workers", names])
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let started = std::time::Instant::now();
        while child.try_wait().unwrap().is_none() {
            if started.elapsed() > std::time::Duration::from_secs(30) {
                child.kill().unwrap();
                let _ = child.wait();
                panic!("{names:?}: accepted, the master serves");
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let o = child.wait_with_output().unwrap();
        let err = stderr(&o);
        assert!(!o.status.success() && err.contains("--allow-workers") && err.contains("blank"), "{names:?}: {err}");
        assert!(!out.exists());
    }
}
