//! The crash test matrix: a run halted at every phase boundary and resumed gives the
//! checkpoints and metrics lines of an uninterrupted run, byte for byte (generation lines up to
//! their wall-clock fields). Halts are injected in-process here (`RunOptions::halt`); the
//! command-line tests in `cli.rs` abort and kill -9 the real binary, and the worker crate's
//! `crash.rs` repeats the matrix with remote workers.

use loa_master::config::ExperimentConfig;
use loa_master::run::{Halt, HaltPoint, RunDir, RunError, RunOptions, resume, start};
use loa_records::GenerationRecord;
use std::path::Path;

/// 4 survivors, 2 generations per epoch, 3 epochs, 1-ply players and short games.
fn tiny() -> ExperimentConfig {
    let mut c = ExperimentConfig {
        seed: 777,
        epochs: 3,
        population: 4,
        generations_per_epoch: 2,
        network_depth: 1,
        ..Default::default()
    };
    c.benchmark.depth = 1;
    c.rules.ply_cap = 40;
    c
}

fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The deterministic part of every line of `generations.jsonl` (see
/// [`GenerationRecord::deterministic_part`]).
pub fn generation_lines(dir: &RunDir) -> Vec<GenerationRecord> {
    let lines = loa_records::jsonl::read::<GenerationRecord>(&dir.generations()).unwrap();
    lines.records.iter().map(GenerationRecord::deterministic_part).collect()
}

/// Asserts that two run directories hold the same run: every epoch checkpoint, the latest
/// checkpoint, `epochs.jsonl` byte for byte and the deterministic part of `generations.jsonl`.
fn same_run(a: &Path, b: &Path, epochs: u32, what: &str) {
    let (a, b) = (RunDir::new(a), RunDir::new(b));
    for epoch in 0..=epochs {
        assert_eq!(read(&a.epoch_checkpoint(epoch)), read(&b.epoch_checkpoint(epoch)), "{what}: epoch {epoch}");
    }
    assert_eq!(read(&a.latest_checkpoint()), read(&b.latest_checkpoint()), "{what}: latest");
    assert_eq!(read(&a.epochs()), read(&b.epochs()), "{what}: epochs.jsonl");
    assert_eq!(generation_lines(&a), generation_lines(&b), "{what}: generations.jsonl");
}

/// Every phase boundary of the first two epochs: the epoch-0 benchmark, a generation, the last
/// generation of an epoch and the benchmark that follows it.
const POINTS: [HaltPoint; 11] = [
    HaltPoint::BeforeFirstBenchmark,
    HaltPoint::MidBenchmark(0),
    HaltPoint::AfterEpochLine(0),
    HaltPoint::AfterEpochCheckpoint(0),
    HaltPoint::MidGeneration(1),
    HaltPoint::AfterGenerationLine(1),
    HaltPoint::AfterGeneration(1),
    HaltPoint::AfterGeneration(2),
    HaltPoint::MidBenchmark(1),
    HaltPoint::AfterEpochLine(1),
    HaltPoint::AfterEpochCheckpoint(1),
];

#[test]
fn a_run_halted_at_any_phase_boundary_resumes_to_the_uninterrupted_run() {
    let tmp = tempfile::tempdir().unwrap();
    let reference = tmp.path().join("reference");
    start(tiny(), &reference, &RunOptions::embedded(2)).unwrap();
    for (i, point) in POINTS.into_iter().enumerate() {
        let run = tmp.path().join(format!("halted-{i}"));
        let options = RunOptions { halt: Some(Halt { point, abort: false }), ..RunOptions::embedded(2) };
        match start(tiny(), &run, &options) {
            Err(RunError::Halted(p)) => assert_eq!(p, point),
            other => panic!("{point}: expected a halt, got {other:?}"),
        }
        let resumed = resume(&run, None, None, &RunOptions::embedded(1)).unwrap();
        assert_eq!((resumed.epoch, resumed.generation, resumed.stopped), (3, 6, false), "{point}");
        same_run(&reference, &run, 3, &point.to_string());
    }
}

#[test]
fn two_crashes_in_a_row_and_a_resume_from_an_epoch_still_give_the_same_run() {
    let tmp = tempfile::tempdir().unwrap();
    let (reference, run) = (tmp.path().join("reference"), tmp.path().join("run"));
    start(tiny(), &reference, &RunOptions::embedded(1)).unwrap();
    let halt = |point| RunOptions { halt: Some(Halt { point, abort: false }), ..RunOptions::embedded(2) };
    assert!(matches!(start(tiny(), &run, &halt(HaltPoint::AfterGeneration(2))), Err(RunError::Halted(_))));
    // Crash again during the pending benchmark the resume does first.
    assert!(matches!(resume(&run, None, None, &halt(HaltPoint::AfterEpochLine(1))), Err(RunError::Halted(_))));
    resume(&run, None, None, &RunOptions::embedded(2)).unwrap();
    same_run(&reference, &run, 3, "two crashes");
    // Replaying from epoch 1 rewrites the metrics to the same lines.
    resume(&run, Some(1), None, &RunOptions::embedded(2)).unwrap();
    same_run(&reference, &run, 3, "replay from epoch 1");
}

#[test]
fn run_refuses_a_usable_run_and_needs_force_for_an_unusable_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    // Killed before the epoch-0 benchmark finished: the initial checkpoint makes it resumable,
    // so `run` refuses it even with --force.
    let halted =
        RunOptions { halt: Some(Halt { point: HaltPoint::MidBenchmark(0), abort: false }), ..RunOptions::embedded(1) };
    assert!(matches!(start(tiny(), &run, &halted), Err(RunError::Halted(_))));
    let forced = RunOptions { force: true, ..RunOptions::embedded(1) };
    let err = start(tiny(), &run, &forced).unwrap_err().to_string();
    assert!(err.contains("already holds a run") && err.contains("master resume"), "{err}");
    // A directory with run files but no usable checkpoint (killed before the first checkpoint,
    // or its checkpoints destroyed): refused with the way out, replaced with --force.
    std::fs::remove_dir_all(RunDir::new(&run).checkpoints()).unwrap();
    let err = start(tiny(), &run, &RunOptions::embedded(1)).unwrap_err().to_string();
    assert!(err.contains("no usable checkpoint") && err.contains("--force"), "{err}");
    let dir = RunDir::new(&run);
    std::fs::create_dir_all(dir.checkpoints()).unwrap();
    std::fs::write(dir.latest_checkpoint(), b"garbage").unwrap();
    let err = start(tiny(), &run, &RunOptions::embedded(1)).unwrap_err().to_string();
    assert!(err.contains("not a loa-evolve checkpoint") && err.contains("--force"), "{err}");
    let unrelated = run.join("notes.txt");
    std::fs::write(&unrelated, b"mine").unwrap();
    let summary = start(tiny(), &run, &forced).unwrap();
    assert_eq!(summary.epoch, 3);
    assert_eq!(read(&unrelated), b"mine", "--force removes run files only");
    let reference = tmp.path().join("reference");
    start(tiny(), &reference, &RunOptions::embedded(2)).unwrap();
    same_run(&reference, &run, 3, "forced");
}

/// The hall of fame joins the state between an epoch's line and its checkpoint: halts around it
/// (with a decaying learning rate and σ and weight decay, functions of the generation, and tied
/// weights, whose first centre is projected) resume to the uninterrupted run (and the
/// checkpoints are format 7), stepping plainly or with Adam (whose moments the checkpoints
/// carry).
#[test]
fn a_run_with_a_hall_of_fame_halted_around_an_epoch_resumes_to_the_uninterrupted_run() {
    let text = "seed = 9\nepochs = 2\npopulation = 4\ngenerations_per_epoch = 1\nnetwork_depth = 1\n\
                [benchmark]\ndepth = 1\n[rules]\nply_cap = 40\n\
                [selection.scheme.evolution-strategies]\nsigma = 0.1\nlearning_rate = 0.05\nopponents = 1\n\
                hall_of_fame = 2\nfitness = \"benchmark-score\"\nlearning_rate_half_life = 1\nweight_decay = 0.5\n\
                symmetry = \"invariant\"\nsigma_half_life = 1\n";
    let mut sizes = Vec::new();
    for optimizer in ["plain", "adam"] {
        let config = ExperimentConfig::from_toml(&format!("{text}optimizer = \"{optimizer}\"\n")).unwrap();
        let tmp = tempfile::tempdir().unwrap();
        let reference = tmp.path().join("reference");
        start(config.clone(), &reference, &RunOptions::embedded(2)).unwrap();
        for (i, point) in [HaltPoint::AfterEpochLine(0), HaltPoint::MidGeneration(1), HaltPoint::AfterEpochLine(1)]
            .into_iter()
            .enumerate()
        {
            let run = tmp.path().join(format!("halted-{i}"));
            let options = RunOptions { halt: Some(Halt { point, abort: false }), ..RunOptions::embedded(2) };
            assert!(matches!(start(config.clone(), &run, &options), Err(RunError::Halted(_))), "{optimizer} {point}");
            resume(&run, None, None, &RunOptions::embedded(1)).unwrap();
            same_run(&reference, &run, 2, &format!("{optimizer} {point}"));
        }
        let latest = read(&RunDir::new(&reference).latest_checkpoint());
        assert_eq!(latest[8..12], 7u32.to_le_bytes());
        sizes.push(latest.len());
    }
    // Adam's checkpoint carries two moments per weight.
    assert!(sizes[1] > sizes[0] + 2 * 2041 * 8, "{sizes:?}");
}
