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
    assert!(stderr(&o).contains("no checkpoint"), "{}", stderr(&o));
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
    assert!(!o.status.success() && err.contains("--dashboard-token") && err.contains("--insecure-dashboard"), "{err}");
    assert!(!out.exists());
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
fn bench_dispatch_counts_ids_and_compares_side_by_side() {
    // Every task the same four networks: each stub gets them with weights once, then by id.
    let o = master(&[
        "bench-dispatch",
        "--tasks",
        "60",
        "--clients",
        "2",
        "--samples",
        "1",
        "--depth",
        "1",
        "--reuse",
        "repeat",
    ]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(out.contains("networks sent: 232 by id, 8 with weights; 0 fetched"), "{out}");
    assert!(out.contains("2 stub workers over 1 connection in"), "{out}");
    // The codec's share, timed alone both ways (the bench refuses if their bytes differ).
    let encoding = out.lines().find(|l| l.contains("a reply's encoding alone")).unwrap_or_else(|| panic!("{out}"));
    assert!(encoding.contains("1 answers of a task by id") && encoding.contains("prost's"), "{out}");
    // A connection each, as real workers have: the same networks sent.
    let o = master(&["bench-dispatch", "--tasks", "60", "--clients", "2", "--connections", "2", "--samples", "1"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(out.contains("2 stub workers over 2 connections in"), "{out}");
    // In three steps, one after another: every task dispatched, the networks cached across steps.
    let args = ["bench-dispatch", "--tasks", "61", "--clients", "2", "--samples", "1", "--depth", "1"];
    let o = master(&[&args[..], &["--reuse", "repeat", "--steps", "3"]].concat());
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(out.contains("dispatch: 61 tasks in 3 steps to 2 stub workers"), "{out}");
    assert!(out.contains("networks sent: 236 by id, 8 with weights; 0 fetched"), "{out}");
    for (steps, why) in [("0", "--steps must be in 1..=61"), ("62", "--steps must be in 1..=61")] {
        let o = master(&[&args[..], &["--reuse", "repeat", "--steps", steps]].concat());
        assert!(!o.status.success() && stderr(&o).contains(why), "{}", stderr(&o));
    }
    let o = master(&[&args[..], &["--reuse", "knockout", "--steps", "2"]].concat());
    assert!(!o.status.success() && stderr(&o).contains("steps are its generations"), "{}", stderr(&o));
    // After an untimed step of the first step's size: its 20 tasks dispatched too (80 more
    // networks by id, none more with weights), and said so.
    let o = master(&[&args[..], &["--reuse", "repeat", "--steps", "3", "--warm-up"]].concat());
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(out.contains("dispatch: 61 tasks in 3 steps after an untimed step of 20 (counted"), "{out}");
    assert!(out.contains("networks sent: 316 by id, 8 with weights; 0 fetched"), "{out}");
    let o = master(&[&args[..], &["--warm-up"]].concat());
    assert!(!o.status.success() && stderr(&o).contains("--warm-up: the knockout"), "{}", stderr(&o));
    // Side by side with itself (as with main's binary): one round, both figures, the ratios.
    let me = env!("CARGO_BIN_EXE_master");
    let args = ["bench-dispatch", "--tasks", "40", "--clients", "2", "--samples", "1", "--depth", "1"];
    let o = master(&[&args[..], &["--baseline", me, "--rounds", "1"]].concat());
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(out.contains("1 interleaved rounds") && out.contains("master CPU per task, median"), "{out}");
    assert!(out.contains("collecting thread, median") && out.contains("both, best"), "{out}");
    assert!(out.contains("--reuse knockout --chromosome-cache 4096"), "{out}");
}

#[test]
fn bench_dispatch_sends_new_networks_as_origins_made_from_parents_the_stubs_serve_each_other() {
    // Ten generations of 8 knockouts: after the first (whose parents nobody holds yet), the new
    // networks go as their origins and the stubs make them from parents they fetch from each
    // other; the weights are the first population's and some of the first generation's.
    let args = ["bench-dispatch", "--tasks", "80", "--clients", "4", "--samples", "1", "--depth", "1"];
    let o = master(&[&args[..], &["--reuse", "knockout", "--population", "8", "--peers"]].concat());
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", stderr(&o));
    // The number just before `before` on the line starting with `line`.
    let number = |line: &str, before: &str| -> u64 {
        let l = out.lines().find(|l| l.trim_start().starts_with(line)).unwrap_or_else(|| panic!("{line}: {out}"));
        let head = l.split(before).next().unwrap_or_default();
        head.rsplit([' ', ',']).find(|w| !w.is_empty()).and_then(|w| w.parse().ok()).unwrap_or_else(|| panic!("{out}"))
    };
    let (by_id, with_weights) = (number("networks sent", " by id"), number("networks sent", " with weights"));
    let (by_origin, made) = (number("origins:", " networks sent as"), number("origins:", ", fetched"));
    let (from_peers, peer_fetched) = (number("origins:", " by id from peers"), number("origins:", " chromosomes from"));
    let fetched = number("networks sent", " fetched;");
    assert_eq!(by_id + with_weights + by_origin + from_peers, 80 * 4, "{out}");
    assert!(with_weights <= 8 + 24 && by_origin >= 9 * 24 - 8, "{out}");
    assert!(made <= by_origin && by_origin - made <= fetched && peer_fetched > 0, "{out}");
    // Light stubs take the networks as sent: the master sends the same way, nothing is made.
    let o = master(&[&args[..], &["--reuse", "knockout", "--population", "8", "--peers", "--light-stubs"]].concat());
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success() && out.contains("light stubs (nothing made or fetched)"), "{out}");
}
