//! External engines (`engine:CMD`) as a run's validation opponent, as its benchmark's reference
//! and as a player of a match experiment: `loa engine` as the program gives exactly the results
//! of the player it plays, in process. The master plays those matches itself, with or without
//! workers; a failing engine stops the run with an error naming it, its checkpoints intact.

use loa_master::checkpoint::{RunClock, RunState};
use loa_master::config::ExperimentConfig;
use loa_master::experiment::{ExperimentOptions, MatchExperiment};
use loa_master::run::{RunDir, RunOptions, start};
use loa_records::{GenerationRecord, MatchGameRecord, MatchLine, ValidationRecord, jsonl};
use std::path::{Path, PathBuf};

/// The `loa` binary beside the tests' `master` (`cargo build --release` builds both).
fn loa() -> PathBuf {
    let loa = Path::new(env!("CARGO_BIN_EXE_master")).with_file_name("loa");
    assert!(loa.exists(), "{} is not built: `cargo build --release` builds every binary", loa.display());
    loa
}

/// `loa engine` playing `player`, as a spec.
fn engine(player: &str) -> String {
    format!("engine:{} engine --player {player}", loa().display())
}

/// A tiny run: 4 networks at 1 ply, 2 epochs of 1 generation, `extra` appended.
fn config(extra: &str) -> ExperimentConfig {
    let text = format!(
        "seed = 5\nepochs = 2\npopulation = 4\ngenerations_per_epoch = 1\nnetwork_depth = 1\n[rules]\nply_cap = 40\n\
         {extra}"
    );
    ExperimentConfig::from_toml(&text).unwrap()
}

fn validation(dir: &RunDir) -> Vec<ValidationRecord> {
    let records = jsonl::read::<ValidationRecord>(&dir.validation()).unwrap().records;
    // The opponent's name is the spec; the numbers must agree.
    records.iter().map(|r| ValidationRecord { opponent: String::new(), ..r.deterministic_part() }).collect()
}

fn generations(dir: &RunDir) -> Vec<GenerationRecord> {
    let records = jsonl::read::<GenerationRecord>(&dir.generations()).unwrap().records;
    records.iter().map(GenerationRecord::deterministic_part).collect()
}

/// The populations and benchmark reports of a checkpoint (its clock and configuration aside).
fn state(path: &Path) -> RunState {
    let state = RunState::load(path).unwrap();
    RunState { clock: RunClock::default(), config: ExperimentConfig::default(), ..state }
}

/// Runs `a` and `b` and asserts they computed the same run: epochs, generations, validation
/// numbers and checkpoints.
fn same_runs(a: ExperimentConfig, b: ExperimentConfig, options: &RunOptions, what: &str) {
    let tmp = tempfile::tempdir().unwrap();
    let dirs = [tmp.path().join("a"), tmp.path().join("b")];
    for (config, dir) in [a, b].into_iter().zip(&dirs) {
        start(config, dir, options).unwrap_or_else(|e| panic!("{what}: {e}"));
    }
    let [a, b] = dirs.map(RunDir::new);
    assert_eq!(std::fs::read(a.epochs()).unwrap(), std::fs::read(b.epochs()).unwrap(), "{what}: epochs.jsonl");
    assert_eq!(generations(&a), generations(&b), "{what}: generations.jsonl");
    if a.validation().exists() || b.validation().exists() {
        let (va, vb) = (validation(&a), validation(&b));
        assert!(!va.is_empty(), "{what}: validated");
        assert_eq!(va, vb, "{what}: validation.jsonl");
    }
    for epoch in 0..=2 {
        assert_eq!(state(&a.epoch_checkpoint(epoch)), state(&b.epoch_checkpoint(epoch)), "{what}: epoch {epoch}");
    }
}

#[test]
fn an_engine_as_validation_opponent_gives_the_in_process_players_records() {
    let opponents = |spec: &str| {
        config(&format!(
            "[benchmark]\ndepth = 1\n[validation]\nopponents = [\"random:1\", \"{spec}\"]\nmatches = 6\nseed = 3\n"
        ))
    };
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    start(opponents(&engine("aloa:3")), &run, &RunOptions::embedded(2)).unwrap();
    let records = jsonl::read::<ValidationRecord>(&RunDir::new(&run).validation()).unwrap().records;
    assert_eq!(records.len(), 6, "epochs 0 to 2, two opponents");
    assert_eq!(records[1].opponent, engine("aloa:3"));
    assert!(records.iter().all(|r| r.wins + r.losses + r.ties == 6), "{records:?}");
    // The first opponent is what holds the engine's place in its tasks: the engine played.
    let numbers = |r: &ValidationRecord| (r.wins, r.losses, r.ties);
    assert!(records.chunks(2).any(|p| numbers(&p[0]) != numbers(&p[1])), "{records:?}");
    same_runs(opponents(&engine("aloa:3")), opponents("aloa:3"), &RunOptions::embedded(2), "validation");
}

#[test]
fn an_engine_as_the_benchmarks_reference_gives_the_in_process_references_reports() {
    let by_engine = config(&format!("[benchmark]\nengine = \"{} engine --player aloa:2\"\n", loa().display()));
    let in_process = config("[benchmark]\nreference = \"aloa\"\ndepth = 2\n");
    same_runs(by_engine, in_process, &RunOptions::embedded(1), "benchmark");
}

/// The games of an experiment's file, without the players' names.
fn games(path: &Path) -> Vec<MatchGameRecord> {
    let lines = jsonl::read::<MatchLine>(path).unwrap().records;
    let games = lines.into_iter().filter_map(|l| if let MatchLine::Game(g) = l { Some(g) } else { None });
    games.map(|g| MatchGameRecord { black: String::new(), white: String::new(), ..g }).collect()
}

#[test]
fn an_engine_in_an_experiment_plays_the_in_process_players_games_without_any_worker() {
    let tmp = tempfile::tempdir().unwrap();
    let experiment = |b: &str| {
        MatchExperiment::from_toml(&format!(
            "a = \"random:1:4\"\nb = \"{b}\"\nmatches = 5\nmatches_per_task = 2\nseed = 8\nopening_plies = 2\n\
             swap_colours = true\n[rules]\nply_cap = 50\n"
        ))
        .unwrap()
    };
    let (inside, outside) = (tmp.path().join("inside.jsonl"), tmp.path().join("outside.jsonl"));
    let report = loa_master::experiment::run(&experiment("aloa:2"), &inside, &ExperimentOptions::embedded(2)).unwrap();
    // No thread for workers: the master plays an engine's matches itself.
    let by_engine =
        loa_master::experiment::run(&experiment(&engine("aloa:2")), &outside, &ExperimentOptions::embedded(0)).unwrap();
    assert_eq!(games(&inside).len(), 20);
    assert_eq!(games(&inside), games(&outside));
    assert_eq!(report.total.decided, by_engine.total.decided);
    assert_eq!(by_engine.specs[1], engine("aloa:2"));
}

#[test]
fn a_failing_engine_stops_the_run_with_an_error_naming_it_and_loses_no_checkpoint() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    // `true` leaves at once, before the protocol's greeting.
    let failing =
        config("[benchmark]\ndepth = 1\n[validation]\nopponents = [\"aloa:1\", \"engine:true\"]\nmatches = 2\n");
    let e = start(failing, &run, &RunOptions::embedded(2)).unwrap_err().to_string();
    assert!(e.starts_with("engine `true`: it ended (exit status: 0) before answering the greeting `uci`"), "{e}");
    assert!(e.contains("`master resume` plays it again"), "{e}");
    // The initial population's checkpoint is there to resume from; epoch 0 was not recorded.
    let dir = RunDir::new(&run);
    let latest = RunState::load(&dir.latest_checkpoint()).unwrap();
    assert!(latest.epochs.is_empty(), "epoch 0 is recorded only once its validation is done");
    assert!(!dir.validation().exists() || validation(&dir).is_empty());
}
