//! What a new user meets with the `master` binary: `show` (its held-out validation too),
//! `export --best`, `--stop-after`, progress lines on a pipe, `run.log`'s times, what a resume from an earlier
//! epoch sets aside, checkpoint and `config.toml` problems, an address in use, a configuration
//! of the other kind, completions.

use loa_records::{EpochReport, RunDir, ValidationRecord, jsonl};
use std::path::Path;
use std::process::{Command, Output};

fn master(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_master")).args(args).output().expect("run master")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// `epochs` epochs of one generation with 4 networks at 1 ply: well under a second.
fn tiny(dir: &Path, epochs: u32) -> String {
    let config = dir.join(format!("tiny-{epochs}.toml"));
    let text = format!(
        "seed = 3\nepochs = {epochs}\npopulation = 4\ngenerations_per_epoch = 1\nnetwork_depth = 1\n\
         [benchmark]\ndepth = 1\n[rules]\nply_cap = 30\n"
    );
    std::fs::write(&config, text).unwrap();
    config.to_str().unwrap().to_owned()
}

/// Runs `tiny(epochs)` into `dir/name` quietly; returns the run directory.
fn run(dir: &Path, name: &str, epochs: u32) -> String {
    let out = dir.join(name).to_str().unwrap().to_owned();
    let o = master(&["run", "--config", &tiny(dir, epochs), "--out", &out, "--quiet", "--threads", "1"]);
    assert!(o.status.success(), "{}", stderr(&o));
    out
}

fn epochs_file(dir: &str) -> Vec<EpochReport> {
    jsonl::read(&RunDir::new(dir).epochs()).unwrap().records
}

#[test]
fn a_piped_run_prints_a_line_per_generation_and_logs_iso_times() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run");
    let o = master(&["run", "--config", &tiny(tmp.path(), 2), "--out", out.to_str().unwrap(), "--threads", "1"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    let generations: Vec<&str> = text.lines().filter(|l| l.starts_with("generation ")).collect();
    assert_eq!(generations.len(), 2, "{text}");
    assert!(generations[1].starts_with("generation 2: 24 games"), "{text}");
    assert!(text.contains("epoch 2: benchmark best") && text.contains("finished at epoch 2"), "{text}");
    // Each log line: `2026-11-27T12:00:00Z +0.0s MESSAGE`.
    let log = std::fs::read_to_string(RunDir::new(&out).log()).unwrap();
    for line in log.lines() {
        let (time, rest) = line.split_at(20);
        let shape = time.bytes().enumerate().all(|(i, b)| match i {
            4 | 7 => b == b'-',
            10 => b == b'T',
            13 | 16 => b == b':',
            19 => b == b'Z',
            _ => b.is_ascii_digit(),
        });
        assert!(shape && time.starts_with("20") && rest.starts_with(" +") && rest.contains("s "), "{line}");
    }
    assert!(log.lines().last().unwrap().ends_with("finished: 2 epochs, 2 generations"), "{log}");
}

#[test]
fn a_run_whose_output_pipe_closes_goes_on_to_the_end() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run");
    let mut child = Command::new(env!("CARGO_BIN_EXE_master"))
        .args(["run", "--config", &tiny(tmp.path(), 3), "--out", out.to_str().unwrap(), "--threads", "1"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The reader goes away at once (as `| head -0` would): every line meets a closed pipe.
    drop(child.stdout.take());
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!stderr(&o).contains("panicked"), "{}", stderr(&o));
    let log = std::fs::read_to_string(RunDir::new(&out).log()).unwrap();
    assert!(log.lines().last().unwrap().ends_with("finished: 3 epochs, 3 generations"), "{log}");
}

#[test]
fn show_summarizes_a_run_and_export_best_writes_the_best_of_an_epoch() {
    let tmp = tempfile::tempdir().unwrap();
    let out = run(tmp.path(), "run", 3);
    let o = master(&["show", &out, "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let shown: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let facts =
        ["seed", "population", "scheme", "target_epochs", "reference", "generation", "epoch"].map(|k| &shown[k]);
    assert_eq!(facts.map(ToString::to_string), ["3", "4", "\"knockout\"", "3", "\"aloa:1\"", "3", "3"]);
    assert_eq!(shown["checkpoints"], serde_json::json!([0, 1, 2, 3]));
    let file = epochs_file(&out);
    let lines = shown["epochs"].as_array().unwrap();
    assert_eq!(lines.len(), file.len());
    for (line, report) in lines.iter().zip(&file) {
        assert_eq!(
            (line["epoch"].as_u64(), line["best"].as_u64()),
            (Some(report.epoch.into()), Some(report.best.into()))
        );
        assert_eq!((line["mean"].as_f64(), line["median"].as_f64()), (Some(report.mean), Some(report.median)));
        // The best: the highest combined score, ties to the lower serial; entries are in
        // population order.
        let top = report.entries.iter().map(|e| e.combined).max().unwrap();
        let serial = report.entries.iter().filter(|e| e.combined == top).map(|e| e.serial).min().unwrap();
        let index = report.entries.iter().position(|e| e.serial == serial).unwrap();
        assert_eq!(
            (line["best_serial"].as_u64(), line["best_individual"].as_u64()),
            (Some(serial), Some(index as u64))
        );
        let epoch = report.epoch.to_string();
        let best = master(&["export", &out, "--epoch", &epoch, "--best"]);
        let picked = master(&["export", &out, "--epoch", &epoch, "--individual", &index.to_string()]);
        assert!(best.status.success() && best.stdout == picked.stdout, "epoch {epoch}: {}", stderr(&best));
        assert!(stderr(&best).contains(&format!("individual {index} (serial {serial})")), "{}", stderr(&best));
    }
    let text = stdout(&master(&["show", &out]));
    assert!(text.contains("at generation 3, epoch 3: finished") && text.contains("checkpoints: epochs 0..3"), "{text}");
    assert!(text.contains("against aloa:1") && text.contains(&format!("{:>5}", file[3].best)), "{text}");
    // One of --individual and --best, not both; the help names commands that exist.
    for args in
        [&["export", &out, "--epoch", "1"][..], &["export", &out, "--epoch", "1", "--best", "--individual", "0"]]
    {
        let o = master(args);
        assert!(!o.status.success() && stderr(&o).contains("--best"), "{}", stderr(&o));
    }
    let help = stdout(&master(&["export", "--help"]));
    assert!(help.contains("loa play --opponent net:3:FILE") && !help.contains("loa --player"), "{help}");
    let o = master(&["show", tmp.path().join("none").to_str().unwrap()]);
    assert!(!o.status.success() && stderr(&o).contains("no such run directory"), "{}", stderr(&o));
}

#[test]
fn show_prints_the_latest_validation_of_each_opponent() {
    let tmp = tempfile::tempdir().unwrap();
    let plain = run(tmp.path(), "plain", 1);
    assert!(!stdout(&master(&["show", &plain])).contains("validation"), "a run without [validation] says nothing");
    let config = tmp.path().join("validating.toml");
    let validation = "[validation]\nopponents = [\"aloa:1\", \"random:1\"]\nmatches = 4\nseed = 5\n";
    std::fs::write(&config, std::fs::read_to_string(tiny(tmp.path(), 2)).unwrap() + validation).unwrap();
    let out = tmp.path().join("run").to_str().unwrap().to_owned();
    let o = master(&["run", "--config", config.to_str().unwrap(), "--out", &out, "--quiet", "--threads", "1"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let file: Vec<ValidationRecord> = jsonl::read(&RunDir::new(&out).validation()).unwrap().records;
    assert_eq!(file.len(), 6, "epochs 0-2, two opponents");
    // A line of an epoch the checkpoint has not finished (a crash before its checkpoint) is not
    // the latest: a resume redoes it.
    let ahead = ValidationRecord { epoch: 3, wins: 0, win_rate: 0.0, ..file[4].clone() };
    jsonl::append_line(&RunDir::new(&out).validation(), &ahead).unwrap();
    let shown: serde_json::Value = serde_json::from_str(&stdout(&master(&["show", &out, "--json"]))).unwrap();
    let latest: Vec<ValidationRecord> = serde_json::from_value(shown["validation"].clone()).unwrap();
    assert_eq!(latest, file[4..]);
    let text = stdout(&master(&["show", &out]));
    assert!(text.contains("held-out validation, latest"), "{text}");
    for r in &file[4..] {
        let line = text.lines().find(|l| l.trim_start().starts_with(&r.opponent)).unwrap_or_else(|| panic!("{text}"));
        let cells: Vec<&str> = line.split_whitespace().collect();
        let interval = format!("{:.1}-{:.1}", 100.0 * r.win_rate_low, 100.0 * r.win_rate_high);
        let counts = [r.epoch, r.matches, r.wins, r.losses, r.ties].map(|n| n.to_string());
        assert_eq!(cells[1..6], counts, "{line}");
        assert_eq!(cells[6..10], [format!("{:.1}", 100.0 * r.win_rate), "%".into(), interval, "%".into()], "{line}");
        assert!(line.ends_with(&format!("{} s", r.wall_seconds.round())), "{line}: {r:?}");
    }
}

#[test]
fn stop_after_ends_the_session_at_an_epoch_and_says_how_to_continue() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run").to_str().unwrap().to_owned();
    let config = tiny(tmp.path(), 2);
    let o =
        master(&["run", "--config", &config, "--out", &out, "--quiet", "--threads", "1", "--stop-after", "0.000001"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("stopped at epoch 0 (generation 0)"), "{text}");
    assert!(
        text.contains("this session's wall-clock time") && text.contains(&format!("master resume {out}")),
        "{text}"
    );
    let log = std::fs::read_to_string(RunDir::new(&out).log()).unwrap();
    assert!(log.contains("has reached its budget of 0.000001 s: stopping at the end of the epoch"), "{log}");
    let o = master(&["resume", &out, "--quiet", "--stop-after-cpu", "2h"]);
    assert!(o.status.success() && stdout(&o).contains("finished at epoch 2"), "{}", stderr(&o));
    for bad in ["0", "2d", "-1h"] {
        let o = master(&["resume", &out, &format!("--stop-after={bad}")]);
        assert!(!o.status.success() && stderr(&o).contains("90m, 2h"), "{bad}: {}", stderr(&o));
    }
}

#[test]
fn a_resume_from_an_earlier_epoch_sets_the_later_ones_aside() {
    let tmp = tempfile::tempdir().unwrap();
    let out = run(tmp.path(), "run", 3);
    let dir = RunDir::new(&out);
    let before = |path: std::path::PathBuf| std::fs::read(path).unwrap();
    let (epoch_2, epoch_3, latest, epochs) = (
        before(dir.epoch_checkpoint(2)),
        before(dir.epoch_checkpoint(3)),
        before(dir.latest_checkpoint()),
        before(dir.epochs()),
    );
    let o = master(&["resume", &out, "--from-epoch", "1", "--epochs", "1", "--quiet"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let said = stderr(&o);
    assert!(said.contains("resuming from epoch 1: dropping epochs 2..3 (2 epochs)"), "{said}");
    assert!(said.contains("The run now goes to epoch 2"), "{said}");
    assert!(std::fs::read_to_string(dir.log()).unwrap().contains("resuming from epoch 1: dropping epochs 2..3"));
    // Everything as it was is kept aside; the run's own files go no further than epoch 2.
    let aside: Vec<_> =
        std::fs::read_dir(dir.checkpoints()).unwrap().flatten().map(|e| e.path()).filter(|p| p.is_dir()).collect();
    let [aside] = &aside[..] else { panic!("{aside:?}") };
    assert!(said.contains(&aside.display().to_string()), "{said}");
    let kept = |name: &str| std::fs::read(aside.join(name)).unwrap();
    assert!(
        kept("epoch-00002.ckpt") == epoch_2 && kept("epoch-00003.ckpt") == epoch_3 && kept("latest.ckpt") == latest
    );
    assert!(kept("epochs.jsonl") == epochs);
    assert!(!dir.epoch_checkpoint(3).exists());
    let o = master(&["export", &out, "--epoch", "3", "--best"]);
    assert!(!o.status.success() && stderr(&o).contains("no checkpoint"), "{}", stderr(&o));
    // The replayed epoch 2 benchmarks as the one set aside did (runs are deterministic; the
    // checkpoints differ in their target epoch).
    let replayed = epochs_file(&out);
    assert_eq!(replayed[..], jsonl::read::<EpochReport>(&aside.join("epochs.jsonl")).unwrap().records[..3]);
    let text = stdout(&master(&["show", &out]));
    assert!(text.contains("checkpoints: epochs 0..2") && text.contains("set aside by a resume"), "{text}");
    // From the last epoch, with nothing after it: nothing to set aside.
    let o = master(&["resume", &out, "--from-epoch", "2", "--epochs", "1", "--quiet"]);
    assert!(o.status.success() && !stderr(&o).contains("dropping"), "{}", stderr(&o));
    assert!(stderr(&o).contains("resuming from epoch 2, the last one recorded: the run now goes to epoch 3"));
    // A latest.ckpt past the epoch, without a later epoch checkpoint: it is set aside, in a
    // directory of its own.
    std::fs::remove_file(dir.epoch_checkpoint(3)).unwrap();
    let latest = before(dir.latest_checkpoint());
    let o = master(&["resume", &out, "--from-epoch", "2", "--epochs", "1", "--quiet"]);
    assert!(o.status.success() && stderr(&o).contains("dropping the generations after epoch 2"), "{}", stderr(&o));
    let dirs: Vec<_> = std::fs::read_dir(dir.checkpoints()).unwrap().flatten().filter(|e| e.path().is_dir()).collect();
    assert_eq!(dirs.len(), 2);
    assert!(dirs.iter().any(|d| std::fs::read(d.path().join("latest.ckpt")).is_ok_and(|b| b == latest)));
}

#[test]
fn a_config_toml_the_tool_wrote_is_not_called_edited() {
    // The README's two commands in a row: `--epochs 2` writes `epochs = 5` to config.toml itself.
    let tmp = tempfile::tempdir().unwrap();
    let out = run(tmp.path(), "run", 3);
    let o = master(&["resume", &out, "--epochs", "2", "--quiet"]);
    assert!(o.status.success() && !stderr(&o).contains("config.toml"), "{}", stderr(&o));
    let o = master(&["resume", &out, "--from-epoch", "1", "--quiet"]);
    let said = stderr(&o);
    assert!(o.status.success(), "{said}");
    assert!(!said.contains("config.toml") && !RunDir::new(&out).root().join("config.toml.ignored").exists(), "{said}");
    assert!(said.contains("dropping epochs 2..5 (4 epochs)") && said.contains("now goes to epoch 3"), "{said}");
    assert!(stdout(&o).contains("finished at epoch 3"), "{}", stdout(&o));
}

#[test]
fn broken_checkpoints_are_called_truncated_and_intact_epochs_are_offered() {
    let tmp = tempfile::tempdir().unwrap();
    let out = run(tmp.path(), "run", 2);
    let latest = RunDir::new(&out).latest_checkpoint();
    for bytes in [&b"LOAE"[..], b"LOAEVOCK\x07\x00\x00\x00"] {
        std::fs::write(&latest, bytes).unwrap();
        let o = master(&["resume", &out, "--quiet"]);
        let err = stderr(&o);
        assert!(
            !o.status.success() && err.contains("truncated or corrupt") && !err.contains("not a loa-evolve"),
            "{err}"
        );
        assert!(err.contains(&format!("master resume {out} --from-epoch 2")), "{err}");
    }
    let text = stdout(&master(&["show", &out]));
    assert!(text.contains("epoch-00002.ckpt (checkpoint") && text.contains("truncated"), "{text}");
    std::fs::write(&latest, b"hello, world").unwrap();
    assert!(stderr(&master(&["resume", &out, "--quiet"])).contains("not a loa-evolve checkpoint"));
    let o = master(&["resume", &out, "--from-epoch", "2", "--epochs", "1", "--quiet"]);
    assert!(o.status.success() && stdout(&o).contains("finished at epoch 3"), "{}", stderr(&o));
}

#[test]
fn show_reads_what_it_can_when_every_checkpoint_is_damaged() {
    let tmp = tempfile::tempdir().unwrap();
    let out = run(tmp.path(), "run", 2);
    let dir = RunDir::new(&out);
    let intact = stdout(&master(&["show", &out]));
    for entry in std::fs::read_dir(dir.checkpoints()).unwrap().flatten() {
        std::fs::write(entry.path(), b"LOAE").unwrap();
    }
    let o = master(&["show", &out]);
    let text = stdout(&o);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(text.contains("truncated") && text.contains("shown from config.toml and epochs.jsonl"), "{text}");
    assert!(text.contains("cannot be resumed or exported"), "{text}");
    // Each epoch's line is the one the checkpoint gave.
    let lines =
        |t: &str| t.lines().skip_while(|l| !l.starts_with(" epoch")).take(4).map(str::to_owned).collect::<Vec<_>>();
    assert_eq!(lines(&text), lines(&intact), "{text}");
}

#[test]
fn export_takes_the_last_epoch_unless_told_one() {
    let tmp = tempfile::tempdir().unwrap();
    let out = run(tmp.path(), "run", 2);
    let of = |args: &[&str]| {
        let o = master(&[&["export", &out, "--best"][..], args].concat());
        assert!(o.status.success(), "{}", stderr(&o));
        (stdout(&o), stderr(&o))
    };
    let (two, one) = (of(&["--epoch", "2"]), of(&["--epoch", "1"]));
    assert_eq!(of(&[]), two);
    assert_eq!(of(&["--epoch", "latest"]), two);
    assert!(two.1.contains("epoch 2's best"), "{}", two.1);
    assert_ne!(one.1, two.1, "epoch 1 is another epoch: {}", one.1);
    let o = master(&["export", &out, "--epoch", "last"]);
    assert!(!o.status.success() && stderr(&o).contains("`last` is not an epoch number or `latest`"), "{}", stderr(&o));
}

#[test]
fn config_toml_edits_are_reported_and_the_checkpoint_configuration_is_kept() {
    let tmp = tempfile::tempdir().unwrap();
    let straight = run(tmp.path(), "straight", 4);
    let out = run(tmp.path(), "run", 1);
    let dir = RunDir::new(&out);
    let original = std::fs::read_to_string(dir.config()).unwrap();
    std::fs::write(dir.config(), original.replace("population = 4", "population = 6")).unwrap();
    // A resume refused for its flags changes nothing.
    assert!(!master(&["resume", &out, "--epochs", "0", "--quiet"]).status.success());
    assert!(!dir.root().join("config.toml.ignored").exists());
    let o = master(&["resume", &out, "--epochs", "1", "--quiet"]);
    let said = stderr(&o);
    assert!(o.status.success() && said.contains("differs") && said.contains("`population`"), "{said}");
    let ignored = std::fs::read_to_string(dir.root().join("config.toml.ignored")).unwrap();
    assert!(ignored.contains("population = 6"), "the edit is kept");
    let config: toml::Table = toml::from_str(&std::fs::read_to_string(dir.config()).unwrap()).unwrap();
    assert_eq!((config["population"].as_integer(), config["epochs"].as_integer()), (Some(4), Some(2)));
    // Invalid TOML, then no file: said, and the run goes on as the uninterrupted one.
    std::fs::write(dir.config(), "population = = 6\n").unwrap();
    let o = master(&["resume", &out, "--epochs", "1", "--quiet"]);
    assert!(o.status.success() && stderr(&o).contains("config.toml is not a valid configuration"), "{}", stderr(&o));
    std::fs::remove_file(dir.config()).unwrap();
    let o = master(&["resume", &out, "--epochs", "1", "--quiet"]);
    assert!(o.status.success() && stderr(&o).contains("config.toml is missing"), "{}", stderr(&o));
    assert!(std::fs::read_to_string(dir.config()).unwrap().contains("population = 4"));
    let o = master(&["resume", &out, "--epochs", "1", "--quiet"]);
    assert!(o.status.success() && !stderr(&o).contains("config.toml"), "an unchanged file: {}", stderr(&o));
    let straight = RunDir::new(&straight);
    assert!(std::fs::read(dir.epoch_checkpoint(4)).unwrap() == std::fs::read(straight.epoch_checkpoint(4)).unwrap());
}

#[test]
fn an_address_in_use_leaves_no_run_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let out = tmp.path().join("run");
    let config = tiny(tmp.path(), 1);
    let mut flags = vec![["--listen", addr.as_str()]];
    if cfg!(feature = "dashboard") {
        flags.push(["--dashboard", addr.as_str()]);
    }
    for flag in flags {
        let o =
            master(&["run", "--config", &config, "--out", out.to_str().unwrap(), "--threads", "1", flag[0], flag[1]]);
        assert!(!o.status.success() && stderr(&o).contains(&format!("choose another {}", flag[0])), "{}", stderr(&o));
        assert!(!out.exists(), "{}: the run directory is removed", flag[0]);
    }
    // An existing empty directory stays, empty.
    std::fs::create_dir(&out).unwrap();
    let o = master(&["run", "--config", &config, "--out", out.to_str().unwrap(), "--listen", &addr]);
    assert!(!o.status.success() && std::fs::read_dir(&out).unwrap().next().is_none());
    let o = master(&["run", "--config", &config, "--out", out.to_str().unwrap(), "--quiet"]);
    assert!(o.status.success(), "the same command without the address: {}", stderr(&o));
}

#[test]
fn a_configuration_of_the_other_kind_is_named_with_its_command() {
    let tmp = tempfile::tempdir().unwrap();
    let run_config = tiny(tmp.path(), 1);
    let experiment = Path::new(env!("CARGO_MANIFEST_DIR")).join("../experiments/e2.toml");
    let experiment = experiment.to_str().unwrap();
    let out = tmp.path().join("out");
    let o = master(&["experiment", "--config", &run_config, "--out", out.to_str().unwrap()]);
    let err = stderr(&o);
    assert!(
        err.contains("is a run configuration") && err.contains(&format!("master run --config {run_config}")),
        "{err}"
    );
    let o = master(&["run", "--config", experiment, "--out", out.to_str().unwrap()]);
    let err = stderr(&o);
    assert!(err.contains("is a match experiment") && err.contains("`master experiment --config"), "{err}");
    assert!(!out.exists());
}

#[test]
fn completions_are_printed_for_each_shell() {
    for (shell, mark) in [("bash", "_master()"), ("zsh", "#compdef master"), ("fish", "complete -c master")] {
        let o = master(&["completions", shell]);
        let script = stdout(&o);
        assert!(o.status.success() && script.contains(mark) && script.contains("resume"), "{shell}: {script:.300}");
    }
    assert!(!master(&["completions", "tcsh"]).status.success());
}

#[cfg(feature = "dashboard")]
#[test]
fn a_lingering_dashboard_says_that_the_run_finished() {
    let tmp = tempfile::tempdir().unwrap();
    let (config, out) = (tiny(tmp.path(), 1), tmp.path().join("run"));
    let flags = ["--dashboard", "127.0.0.1:0", "--dashboard-linger", "1", "--quiet"];
    let o = master(&[&["run", "--config", &config, "--out", out.to_str().unwrap()][..], &flags].concat());
    let err = stderr(&o);
    assert!(
        o.status.success() && err.contains("the run has finished at epoch 1 (generation 1); the dashboard"),
        "{err}"
    );
    assert!(err.contains("stays up on http://127.0.0.1:") && err.contains("for 1 s (Ctrl-C to stop it)"), "{err}");
}
