//! Held-out validation: the epoch's best network against the `[validation]` opponents, as a
//! match experiment of the same openings would score it; the same lines for any number of
//! threads; and a run halted anywhere around a validation resumes to the uninterrupted run's
//! lines and checkpoints, its clock summed over its sessions.

use loa_master::checkpoint::{RunClock, RunState};
use loa_master::config::ExperimentConfig;
use loa_master::experiment::{ExperimentOptions, MatchExperiment};
use loa_master::run::{Halt, HaltPoint, Pick, RunDir, RunError, RunOptions, export, resume, start};
use loa_records::ValidationRecord;
use std::path::Path;

const VALIDATION: &str = "[validation]\nopponents = [\"aloa:1\", \"random:1\"]\nmatches = 6\nseed = 41\n";

/// A knockout of 4 survivors at 2 ply, 3 epochs of 2 generations, validated every epoch.
fn knockout(extra: &str) -> ExperimentConfig {
    let text = format!(
        "seed = 12\nepochs = 3\npopulation = 4\ngenerations_per_epoch = 2\nnetwork_depth = 2\n\
         [benchmark]\ndepth = 1\n[rules]\nply_cap = 60\n{VALIDATION}{extra}"
    );
    ExperimentConfig::from_toml(&text).unwrap()
}

fn records(dir: &RunDir) -> Vec<ValidationRecord> {
    loa_records::jsonl::read::<ValidationRecord>(&dir.validation()).unwrap().records
}

fn deterministic(dir: &RunDir) -> Vec<ValidationRecord> {
    records(dir).iter().map(ValidationRecord::deterministic_part).collect()
}

/// A checkpoint's state with its clock (which measures the machine) zeroed.
fn state(path: &Path) -> RunState {
    RunState { clock: RunClock::default(), ..RunState::load(path).unwrap() }
}

/// Asserts that two runs of 3 epochs hold the same validation lines (but for timing), the same
/// checkpoints (but for their clocks) and the same `epochs.jsonl`.
fn same_run(a: &Path, b: &Path, what: &str) {
    let (a, b) = (RunDir::new(a), RunDir::new(b));
    assert_eq!(deterministic(&a), deterministic(&b), "{what}: validation.jsonl");
    for epoch in 0..=3 {
        assert_eq!(state(&a.epoch_checkpoint(epoch)), state(&b.epoch_checkpoint(epoch)), "{what}: epoch {epoch}");
    }
    assert_eq!(state(&a.latest_checkpoint()), state(&b.latest_checkpoint()), "{what}: latest");
    assert_eq!(std::fs::read(a.epochs()).unwrap(), std::fs::read(b.epochs()).unwrap(), "{what}: epochs.jsonl");
}

#[test]
fn each_validation_scores_the_epochs_best_as_a_match_experiment_of_the_same_openings_would() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    start(knockout(""), &run, &RunOptions::embedded(2)).unwrap();
    let dir = RunDir::new(&run);
    let lines = records(&dir);
    assert_eq!(lines.len(), 8, "epochs 0 to 3, two opponents each");
    let mut decided = 0;
    for (i, r) in lines.iter().enumerate() {
        let epoch = (i / 2) as u32;
        assert_eq!((r.epoch, r.generation, r.matches), (epoch, 2 * u64::from(epoch), 6));
        assert_eq!(r.opponent, ["aloa:1", "random:1"][i % 2]);
        // The network is the epoch's best by benchmark, as `export --best` writes it.
        let best = export(&run, epoch, Pick::Best).unwrap();
        assert_eq!(r.serial, best.serial, "{r:?}");
        assert_eq!(export(&run, epoch, Pick::Validated).unwrap(), best);
        // The same network in a match experiment with swapped colours: the same openings, the
        // network A then B, criterion 4 a tie.
        let net = tmp.path().join(format!("best-{epoch}.json"));
        std::fs::write(&net, &best.json).unwrap();
        let experiment = MatchExperiment::from_toml(&format!(
            "a = \"net:2:{}\"\nb = \"{}\"\nmatches = 3\nseed = 41\nopening_plies = 4\nswap_colours = true\n\
             [rules]\nply_cap = 60\n",
            net.display(),
            r.opponent
        ))
        .unwrap();
        let out = tmp.path().join(format!("e-{i}.jsonl"));
        let report = loa_master::experiment::run(&experiment, &out, &ExperimentOptions::embedded(1)).unwrap();
        let t = &report.total;
        assert_eq!((r.wins, r.losses, r.ties), (t.decided[0], t.decided[1], t.ties), "{r:?}");
        decided += r.wins + r.losses;
        assert_eq!(r.win_rate, f64::from(r.wins) / 6.0);
        assert!(r.win_rate_low <= r.win_rate && r.win_rate <= r.win_rate_high);
    }
    assert!(decided > 0, "some validation match is decided: {lines:?}");
    // Summed time never goes back.
    assert!(lines.windows(2).all(|w| w[0].wall_seconds <= w[1].wall_seconds && w[0].cpu_seconds <= w[1].cpu_seconds));
}

#[test]
fn validation_is_the_same_for_one_and_two_threads_and_every_k_epochs() {
    let tmp = tempfile::tempdir().unwrap();
    let (one, two) = (tmp.path().join("one"), tmp.path().join("two"));
    start(knockout("every = 2\n"), &one, &RunOptions::embedded(1)).unwrap();
    start(knockout("every = 2\n"), &two, &RunOptions::embedded(2)).unwrap();
    same_run(&one, &two, "1 and 2 threads");
    let epochs: Vec<u32> = records(&RunDir::new(&one)).iter().map(|r| r.epoch).collect();
    assert_eq!(epochs, [0, 0, 2, 2]);
    // The checkpoints of a run that validates carry its clock.
    let clock = RunState::load(&RunDir::new(&one).latest_checkpoint()).unwrap().clock;
    assert!(clock.wall_seconds > 0.0 && clock.wall_seconds >= records(&RunDir::new(&one))[3].wall_seconds);
}

#[test]
fn a_run_without_validation_writes_no_validation_file_and_no_clock() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    let mut config = knockout("");
    config.validation = None;
    config.epochs = 1;
    start(config, &run, &RunOptions::embedded(2)).unwrap();
    let dir = RunDir::new(&run);
    assert!(!dir.validation().exists());
    assert!(!std::fs::read_to_string(dir.config()).unwrap().contains("validation"));
    assert_eq!(RunState::load(&dir.latest_checkpoint()).unwrap().clock, RunClock::default());
}

#[test]
fn evolution_strategies_validate_their_centre_not_the_best_of_epoch_0() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    let es = "[selection.scheme.evolution-strategies]\nsigma = 0.1\nlearning_rate = 0.05\nopponents = 1\n";
    let mut config = knockout(es);
    config.epochs = 2;
    start(config, &run, &RunOptions::embedded(2)).unwrap();
    let lines = records(&RunDir::new(&run));
    assert_eq!(lines.len(), 6);
    for r in lines {
        // The stored population is the centre alone, but for the random population of epoch 0,
        // whose first is the first centre.
        let stored = RunState::load(&RunDir::new(&run).epoch_checkpoint(r.epoch)).unwrap().population;
        let size = if r.epoch == 0 { 4 } else { 1 };
        assert_eq!((stored.len(), stored[0].serial), (size, r.serial), "{r:?}");
        assert_eq!(export(&run, r.epoch, Pick::Validated).unwrap().serial, r.serial, "{r:?}");
        if r.epoch == 0 {
            // Here the best of epoch 0 by benchmark is another network (which the GAs would play).
            assert_ne!(export(&run, 0, Pick::Best).unwrap().serial, r.serial);
        }
    }
}

/// Every boundary around epoch 1's validation, and a halt in the validation the resume redoes.
const POINTS: [HaltPoint; 7] = [
    HaltPoint::MidValidation(0),
    HaltPoint::AfterEpochLine(0),
    HaltPoint::AfterGeneration(2),
    HaltPoint::MidBenchmark(1),
    HaltPoint::MidValidation(1),
    HaltPoint::AfterEpochLine(1),
    HaltPoint::AfterEpochCheckpoint(1),
];

#[test]
fn a_run_halted_around_a_validation_resumes_to_the_uninterrupted_runs_lines() {
    let tmp = tempfile::tempdir().unwrap();
    let reference = tmp.path().join("reference");
    start(knockout(""), &reference, &RunOptions::embedded(2)).unwrap();
    for (i, point) in POINTS.into_iter().enumerate() {
        let run = tmp.path().join(format!("halted-{i}"));
        let options = RunOptions { halt: Some(Halt { point, abort: false }), ..RunOptions::embedded(2) };
        match start(knockout(""), &run, &options) {
            Err(RunError::Halted(p)) => assert_eq!(p, point),
            other => panic!("{point}: expected a halt, got {other:?}"),
        }
        let dir = RunDir::new(&run);
        let before = RunState::load(&dir.latest_checkpoint()).unwrap().clock;
        resume(&run, None, None, &RunOptions::embedded(1)).unwrap();
        same_run(&reference, &run, &point.to_string());
        // The resumed session counts on from the checkpoint's clock.
        let after: Vec<ValidationRecord> = records(&dir).into_iter().filter(|r| r.generation > 2).collect();
        assert!(after.iter().all(|r| r.wall_seconds >= before.wall_seconds), "{point}: {after:?} {before:?}");
    }
    // A resume from an earlier epoch drops the later lines, then writes them again.
    let run = tmp.path().join("halted-0");
    resume(&run, Some(1), None, &RunOptions::embedded(2)).unwrap();
    same_run(&reference, &run, "from epoch 1");
}

#[test]
fn the_clock_is_summed_over_sessions() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    let mut config = knockout("");
    config.epochs = 1;
    start(config, &run, &RunOptions::embedded(2)).unwrap();
    let dir = RunDir::new(&run);
    let first = RunState::load(&dir.latest_checkpoint()).unwrap().clock;
    std::thread::sleep(std::time::Duration::from_millis(300));
    resume(&run, None, Some(1), &RunOptions::embedded(2)).unwrap();
    let second = records(&dir).into_iter().rfind(|r| r.epoch == 2).unwrap();
    // The pause between the sessions is not the run's: epoch 2's line counts from the first
    // session's total, plus the second session's work.
    assert!(second.wall_seconds >= first.wall_seconds, "{second:?} {first:?}");
    assert!(second.wall_seconds < first.wall_seconds + 0.3 + 60.0);
    let last = RunState::load(&dir.latest_checkpoint()).unwrap().clock;
    assert!(last.wall_seconds >= second.wall_seconds && last.cpu_seconds >= second.cpu_seconds);
}
