//! `loa td`'s guarantees: a run is a function of its configuration, whatever the number of
//! threads, and a resume from any snapshot ends where the uninterrupted run ends.

use loa_cli::td::{TdConfig, TdOptions, TdState, resume, start};
use std::path::Path;

fn config() -> TdConfig {
    TdConfig::parse(
        "seed = 4\ngames = 16\nbatch = 4\ndepth = 1\ncheckpoint_every = 8\nlearning_rate = 0.05\n\
         [network]\nboard_side = 5\ninputs = [\"board\"]\nhidden = [12]\n\
         [validation]\nopponents = [\"random:1\"]\nmatches = 4\nevery = 8\n",
    )
    .unwrap()
}

fn options(threads: usize) -> TdOptions {
    TdOptions { threads, stop_after_cpu: None, quiet: true }
}

fn weights(dir: &Path) -> Vec<u64> {
    TdState::read(&TdState::latest_path(dir)).unwrap().model.weights.iter().map(|w| w.to_bits()).collect()
}

/// The validation lines without their clocks.
fn validation(dir: &Path) -> Vec<(u64, u32, u32, u32)> {
    let lines = loa_records::jsonl::read::<loa_records::ValidationRecord>(&dir.join("validation.jsonl")).unwrap();
    lines.records.iter().map(|r| (r.generation, r.wins, r.losses, r.ties)).collect()
}

#[test]
fn one_thread_and_three_give_the_same_weights_and_validations() {
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let summary = start(config(), a.path(), options(1)).unwrap();
    assert!(summary.finished && summary.games == 16);
    start(config(), b.path(), options(3)).unwrap();
    assert_eq!(weights(a.path()), weights(b.path()));
    assert_eq!(validation(a.path()), validation(b.path()));
    // Validations at 0, 8 and 16 games; the weights moved.
    assert_eq!(validation(a.path()).iter().map(|v| v.0).collect::<Vec<_>>(), vec![0, 8, 16]);
    let initial = TdState::initial(config());
    assert_ne!(initial.model.weights, TdState::read(&TdState::latest_path(a.path())).unwrap().model.weights);
}

#[test]
fn a_resume_from_a_snapshot_ends_where_the_whole_run_ends() {
    let whole = tempfile::tempdir().unwrap();
    start(config(), whole.path(), options(2)).unwrap();
    let resumed = tempfile::tempdir().unwrap();
    let copy = |from: &Path, to: &Path| {
        std::fs::create_dir_all(to.join("checkpoints")).unwrap();
        for name in ["td.toml", "state.json", "td.jsonl", "validation.jsonl", "checkpoints/td-000000008.json"] {
            std::fs::copy(from.join(name), to.join(name)).unwrap();
        }
    };
    copy(whole.path(), resumed.path());
    let summary = resume(resumed.path(), Some(8), options(2)).unwrap();
    assert!(summary.finished);
    assert_eq!(weights(whole.path()), weights(resumed.path()));
    assert_eq!(validation(whole.path()), validation(resumed.path()));
    let batches =
        |dir: &Path| loa_records::jsonl::read::<loa_cli::td::BatchRecord>(&dir.join("td.jsonl")).unwrap().records.len();
    assert_eq!(batches(resumed.path()), 4);
}

#[test]
fn a_second_start_in_a_run_directory_and_a_damaged_state_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    start(config(), dir.path(), options(1)).unwrap();
    let err = start(config(), dir.path(), options(1)).unwrap_err();
    assert!(err.contains("holds a TD run already"), "{err}");
    std::fs::write(TdState::latest_path(dir.path()), "{\"format\": 1, \"games\": 3}").unwrap();
    let err = resume(dir.path(), None, options(1)).unwrap_err();
    assert!(err.contains("not a TD state file"), "{err}");
    let err = resume(dir.path(), Some(5), options(1)).unwrap_err();
    assert!(err.contains("no such state"), "{err}");
}

#[test]
fn the_committed_td_configurations_parse() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../experiments/td");
    let mut count = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "toml") {
            let text = std::fs::read_to_string(&path).unwrap();
            TdConfig::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            count += 1;
        }
    }
    assert!(count >= 3, "experiments/td holds {count} configurations");
}
