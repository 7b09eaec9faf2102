//! Runs on other boards, network shapes and starts: the same guarantees as the thesis's runs
//! (the same result on any number of threads, a halted run resumes to the uninterrupted one),
//! with every network of the run's shape, and every task on the run's board.

use loa_master::checkpoint::{RunClock, RunState};
use loa_master::config::ExperimentConfig;
use loa_master::run::{Halt, HaltPoint, Pick, RunDir, RunError, RunOptions, export, resume, start};
use loa_records::ValidationRecord;
use std::path::Path;

fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A checkpoint's state with its clock (which measures the machine) zeroed.
fn state(path: &Path) -> RunState {
    RunState { clock: RunClock::default(), ..RunState::load(path).unwrap() }
}

/// Every epoch checkpoint and the latest (but for their clocks), `epochs.jsonl` and
/// `validation.jsonl` (but for its timing) of two runs of `epochs` epochs.
fn same_run(a: &Path, b: &Path, epochs: u32, what: &str) {
    let (a, b) = (RunDir::new(a), RunDir::new(b));
    for epoch in 0..=epochs {
        assert_eq!(state(&a.epoch_checkpoint(epoch)), state(&b.epoch_checkpoint(epoch)), "{what}: epoch {epoch}");
    }
    assert_eq!(state(&a.latest_checkpoint()), state(&b.latest_checkpoint()), "{what}: latest");
    assert_eq!(read(&a.epochs()), read(&b.epochs()), "{what}: epochs.jsonl");
    let validations = |d: &RunDir| {
        let lines = loa_records::jsonl::read::<ValidationRecord>(&d.validation()).unwrap().records;
        lines.into_iter().map(|r| (r.epoch, r.serial, r.opponent, r.wins, r.losses, r.ties)).collect::<Vec<_>>()
    };
    assert_eq!(validations(&a), validations(&b), "{what}: validation.jsonl");
}

/// The thesis's 5×5 setting in miniature: a 25-12-1 network, the knockout, ALoA(1) as the
/// benchmark, validation against ALoA and the random heuristic from 6-ply openings.
const KNOCKOUT_5X5: &str = "seed = 55\nepochs = 2\npopulation = 4\ngenerations_per_epoch = 2\n\
    network_depth = 1\n[benchmark]\ndepth = 1\n[rules]\nply_cap = 40\n\
    [network]\nboard_side = 5\ninputs = [\"board\"]\nhidden = [12]\n\
    [validation]\nopponents = [\"aloa:1\", \"random:1\"]\nmatches = 8\nopening_plies = 6\nseed = 3\n";

/// 6×6 with nonads and the extra features, two hidden layers, evolution strategies with a hall
/// of fame and a ladder.
const ES_6X6: &str = "seed = 66\nepochs = 2\npopulation = 4\ngenerations_per_epoch = 2\n\
    network_depth = 1\n[benchmark]\nreference = \"random\"\ndepth = 1\n[rules]\nply_cap = 40\n\
    [network]\nboard_side = 6\ninputs = [\"board\", \"nonad\", \"pieces\", \"quads\", \"euler\"]\nhidden = [6, 4]\n\
    [selection.scheme.evolution-strategies]\nsigma = 0.1\nopponents = 1\nfixed_matches = 2\n\
    opening_plies = 12\nhall_of_fame = 1\nladder = [\"random:1\", \"aloa:1\"]\nsymmetry = \"none\"\n";

fn config(text: &str) -> ExperimentConfig {
    ExperimentConfig::from_toml(text).unwrap()
}

/// The shape named in every survivor exported from epoch `epoch`.
fn survivor_shapes(run: &Path, epoch: u32) -> Vec<String> {
    (0..)
        .map_while(|index| export(run, epoch, Pick::Index(index)).ok())
        .map(|exported| {
            let value: serde_json::Value = serde_json::from_str(&exported.json).unwrap();
            value["topology"].as_str().unwrap().to_owned()
        })
        .collect()
}

#[test]
fn a_5x5_run_is_the_same_on_any_thread_count_and_after_a_halt() {
    let tmp = tempfile::tempdir().unwrap();
    let (one, three, halted) = (tmp.path().join("one"), tmp.path().join("three"), tmp.path().join("halted"));
    let summary = start(config(KNOCKOUT_5X5), &one, &RunOptions::embedded(1)).unwrap();
    assert_eq!((summary.epoch, summary.generation, summary.stopped), (2, 4, false));
    start(config(KNOCKOUT_5X5), &three, &RunOptions::embedded(3)).unwrap();
    same_run(&one, &three, 2, "1 and 3 threads");
    for epoch in 0..=2 {
        assert_eq!(survivor_shapes(&one, epoch), vec!["5x5-board-25-12-1"; 4], "epoch {epoch}");
    }
    let kept = String::from_utf8(read(&RunDir::new(&one).config())).unwrap();
    assert!(kept.contains("network = \"5x5-board-25-12-1\""), "{kept}");

    let halt = Halt { point: HaltPoint::MidGeneration(3), abort: false };
    let options = RunOptions { halt: Some(halt), ..RunOptions::embedded(2) };
    assert!(matches!(start(config(KNOCKOUT_5X5), &halted, &options), Err(RunError::Halted(_))));
    resume(&halted, None, None, &RunOptions::embedded(1)).unwrap();
    same_run(&one, &halted, 2, "halted and resumed");
}

#[test]
fn a_6x6_evolution_strategies_run_with_extra_inputs_is_deterministic_and_resumes() {
    let tmp = tempfile::tempdir().unwrap();
    let (two, halted) = (tmp.path().join("two"), tmp.path().join("halted"));
    start(config(ES_6X6), &two, &RunOptions::embedded(2)).unwrap();
    let halt = Halt { point: HaltPoint::AfterEpochLine(1), abort: false };
    let options = RunOptions { halt: Some(halt), ..RunOptions::embedded(1) };
    assert!(matches!(start(config(ES_6X6), &halted, &options), Err(RunError::Halted(_))));
    resume(&halted, None, None, &RunOptions::embedded(3)).unwrap();
    let (a, b) = (RunDir::new(&two), RunDir::new(&halted));
    for epoch in 0..=2 {
        assert_eq!(read(&a.epoch_checkpoint(epoch)), read(&b.epoch_checkpoint(epoch)), "epoch {epoch}");
    }
    assert_eq!(read(&a.epochs()), read(&b.epochs()));
    let shape = config(ES_6X6).network.to_string();
    assert!(shape.starts_with("6x6-board-nonad-pieces-quads-euler-") && shape.ends_with("-6-4-1"), "{shape}");
    assert_eq!(survivor_shapes(&two, 2), vec![shape]);
}

#[test]
fn the_start_is_played_and_kept() {
    let tmp = tempfile::tempdir().unwrap();
    let standard = "seed = 8\nepochs = 1\npopulation = 4\ngenerations_per_epoch = 1\nnetwork_depth = 1\n\
        [benchmark]\ndepth = 1\n[rules]\nply_cap = 40\n";
    let eggs = format!("start = \"scrambled-eggs\"\n{standard}");
    let (a, b) = (tmp.path().join("standard"), tmp.path().join("eggs"));
    start(config(standard), &a, &RunOptions::embedded(2)).unwrap();
    start(config(&eggs), &b, &RunOptions::embedded(2)).unwrap();
    // Every benchmark game starts from the run's start, so the epoch-0 report differs.
    assert_ne!(read(&RunDir::new(&a).epochs()), read(&RunDir::new(&b).epochs()));
    let kept = String::from_utf8(read(&RunDir::new(&b).config())).unwrap();
    assert!(kept.lines().any(|l| l == "start = \"scrambled-eggs\""), "{kept}");
    let standard_kept = String::from_utf8(read(&RunDir::new(&a).config())).unwrap();
    let written = |key: &str| standard_kept.lines().any(|l| l.starts_with(&format!("{key} =")));
    assert!(!written("start") && !written("network"), "defaults are not written out: {standard_kept}");
}

#[test]
fn an_initial_network_of_another_shape_is_refused_before_anything_is_written() {
    let tmp = tempfile::tempdir().unwrap();
    let net = tmp.path().join("thesis.json");
    loa_engine::network::random_uniform(1).write(&net).unwrap();
    let text = format!(
        "population = 4\nnetwork = \"5x5-board-25-12-1\"\n[selection.scheme.evolution-strategies]\n\
         initial_network = \"{}\"\nsymmetry = \"none\"\nopponents = 1\n",
        net.display()
    );
    let out = tmp.path().join("run");
    let err = start(config(&text), &out, &RunOptions::embedded(1)).unwrap_err().to_string();
    assert!(err.contains("5x5-board-25-12-1") && err.contains("board-nonad-100-20-1"), "{err}");
    assert!(!out.join("checkpoints").exists());
}
