//! `--stop-after` and `--stop-after-cpu`: a session stops cleanly at the end of the first epoch
//! at which the run's clock reaches its budget, and a resume continues to what an uninterrupted
//! run computes; runs that validate count their time over all their sessions.

use loa_master::checkpoint::{RunClock, RunState};
use loa_master::config::ExperimentConfig;
use loa_master::run::clock::Budget;
use loa_master::run::{RunDir, RunOptions, RunSummary, resume, start};
use loa_records::ValidationRecord;
use std::path::Path;

/// 3 epochs of 2 generations of a knockout of 4 survivors at 1 ply; with `validation`, every
/// epoch's best plays two fixed opponents.
fn config(validation: bool) -> ExperimentConfig {
    let mut text = "seed = 21\nepochs = 3\npopulation = 4\ngenerations_per_epoch = 2\nnetwork_depth = 1\n\
                    [benchmark]\ndepth = 1\n[rules]\nply_cap = 40\n"
        .to_owned();
    if validation {
        text.push_str("[validation]\nopponents = [\"aloa:1\", \"random:1\"]\nmatches = 8\nseed = 3\n");
    }
    ExperimentConfig::from_toml(&text).unwrap()
}

fn with_budget(wall_seconds: Option<f64>, cpu_seconds: Option<f64>) -> RunOptions {
    RunOptions { budget: Budget { wall_seconds, cpu_seconds }, ..RunOptions::embedded(2) }
}

fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A checkpoint's state with its clock (which measures the machine) zeroed.
fn state(path: &Path) -> RunState {
    RunState { clock: RunClock::default(), ..RunState::load(path).unwrap() }
}

fn stopped_at(summary: &RunSummary, epoch: u32, what: &str) {
    assert_eq!((summary.epoch, summary.generation, summary.stopped), (epoch, 2 * u64::from(epoch), true), "{what}");
    let why = summary.out_of_budget.as_deref().unwrap_or_else(|| panic!("{what}: no reason given"));
    assert!(why.contains("has reached its budget"), "{what}: {why}");
}

#[test]
fn a_run_without_validation_stops_after_its_first_epoch_and_resumes_to_the_same_bytes() {
    let tmp = tempfile::tempdir().unwrap();
    let (straight, budgeted) = (tmp.path().join("straight"), tmp.path().join("budgeted"));
    start(config(false), &straight, &RunOptions::embedded(2)).unwrap();
    let summary = start(config(false), &budgeted, &with_budget(Some(1e-9), None)).unwrap();
    assert_eq!((summary.epoch, summary.generation, summary.stopped), (0, 0, true));
    assert!(summary.out_of_budget.unwrap().starts_with("this session's wall-clock time"));
    let (a, b) = (RunDir::new(&straight), RunDir::new(&budgeted));
    // Stopped where a clean stop leaves a run: epoch 0 checkpointed, latest.ckpt the same.
    assert_eq!(read(&b.latest_checkpoint()), read(&b.epoch_checkpoint(0)));
    assert_eq!(read(&b.epoch_checkpoint(0)), read(&a.epoch_checkpoint(0)));
    assert!(!b.epoch_checkpoint(1).exists());
    // A budget nothing reaches changes nothing; the resume ends where the uninterrupted run does.
    let finished = resume(&budgeted, None, None, &with_budget(Some(1e6), Some(1e6))).unwrap();
    assert_eq!((finished.epoch, finished.stopped, finished.out_of_budget), (3, false, None));
    for epoch in 0..=3 {
        assert_eq!(read(&a.epoch_checkpoint(epoch)), read(&b.epoch_checkpoint(epoch)), "epoch {epoch}");
    }
    assert_eq!(read(&a.latest_checkpoint()), read(&b.latest_checkpoint()));
    assert_eq!(read(&a.epochs()), read(&b.epochs()));
    let lines = |dir: &RunDir| String::from_utf8(read(&dir.generations())).unwrap().lines().count();
    assert_eq!((lines(&a), lines(&b)), (6, 6), "one line per generation");
}

#[test]
fn a_validating_run_counts_its_budget_over_its_sessions_and_resumes_to_the_same_run() {
    let tmp = tempfile::tempdir().unwrap();
    let (straight, budgeted) = (tmp.path().join("straight"), tmp.path().join("budgeted"));
    start(config(true), &straight, &RunOptions::embedded(2)).unwrap();
    let b = RunDir::new(&budgeted);
    // A tiny wall-clock budget: the run stops after epoch 0's benchmark and validation.
    let summary = start(config(true), &budgeted, &with_budget(Some(1e-9), None)).unwrap();
    stopped_at(&summary, 0, "first session");
    assert!(summary.out_of_budget.unwrap().starts_with("the run's wall-clock time"));
    assert_eq!(read(&b.latest_checkpoint()), read(&b.epoch_checkpoint(0)));
    // The same budget again: the run's time is already past it, so the session stops at once
    // and writes nothing.
    let latest = read(&b.latest_checkpoint());
    let summary = resume(&budgeted, None, None, &with_budget(Some(1e-9), None)).unwrap();
    stopped_at(&summary, 0, "second session");
    assert_eq!(read(&b.latest_checkpoint()), latest);
    // A CPU budget a microsecond past what the run has spent: not reached at the start (the
    // checkpoint's clock is below it), reached once epoch 1 has been played.
    let spent = RunState::load(&b.latest_checkpoint()).unwrap().clock;
    let budget = spent.cpu_seconds + 1e-6;
    let summary = resume(&budgeted, None, None, &with_budget(None, Some(budget))).unwrap();
    stopped_at(&summary, 1, "third session");
    assert!(summary.out_of_budget.unwrap().starts_with("the run's CPU time"));
    let clock = RunState::load(&b.latest_checkpoint()).unwrap().clock;
    assert!(clock.cpu_seconds >= budget && clock.wall_seconds > spent.wall_seconds, "{clock:?}");
    // Without a budget it runs to the end, to the uninterrupted run's checkpoints and lines.
    let finished = resume(&budgeted, None, None, &RunOptions::embedded(1)).unwrap();
    assert_eq!((finished.epoch, finished.stopped), (3, false));
    let a = RunDir::new(&straight);
    for epoch in 0..=3 {
        assert_eq!(state(&a.epoch_checkpoint(epoch)), state(&b.epoch_checkpoint(epoch)), "epoch {epoch}");
    }
    assert_eq!(state(&a.latest_checkpoint()), state(&b.latest_checkpoint()));
    assert_eq!(read(&a.epochs()), read(&b.epochs()));
    let lines = |dir: &RunDir| -> Vec<ValidationRecord> {
        let records = loa_records::jsonl::read::<ValidationRecord>(&dir.validation()).unwrap().records;
        records.iter().map(ValidationRecord::deterministic_part).collect()
    };
    assert_eq!(lines(&a), lines(&b));
    assert_eq!(lines(&b).len(), 8);
    // The lines carry the run's time over its sessions: it never goes back.
    let timed = loa_records::jsonl::read::<ValidationRecord>(&b.validation()).unwrap().records;
    assert!(timed.windows(2).all(|w| w[0].wall_seconds <= w[1].wall_seconds && w[0].cpu_seconds <= w[1].cpu_seconds));
}
