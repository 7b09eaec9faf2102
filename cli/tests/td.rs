//! `loa td`'s guarantees: a run is a function of its configuration, whatever the number of
//! threads, and a resume from any snapshot ends where the uninterrupted run ends; a decaying
//! step size and the averaged network do what docs/td.md says.

use loa_cli::td::{TdConfig, TdOptions, TdState, add_update, resume, self_play, start, validate};
use loa_engine::Rules;
use loa_engine::random::derive_seed;
use std::path::Path;

const BASE: &str = "seed = 4\ngames = 16\nbatch = 4\ndepth = 1\ncheckpoint_every = 8\nlearning_rate = 0.05\n";
const REST: &str = "[network]\nboard_side = 5\ninputs = [\"board\"]\nhidden = [12]\n\
                    [validation]\nopponents = [\"random:1\"]\nmatches = 4\nevery = 8\n";

fn config() -> TdConfig {
    TdConfig::parse(&format!("{BASE}{REST}")).unwrap()
}

/// The same run with α halving every 8 games and the average over 16 games (the whole run).
fn averaged() -> TdConfig {
    TdConfig::parse(&format!("{BASE}learning_rate_half_life = 8\naverage_games = 16\n{REST}")).unwrap()
}

fn state(dir: &Path, games: Option<u64>) -> TdState {
    TdState::read(&games.map_or(TdState::latest_path(dir), |g| TdState::snapshot_path(dir, g))).unwrap()
}

fn options(threads: usize) -> TdOptions {
    TdOptions { threads, stop_after_cpu: None, quiet: true }
}

fn weights(dir: &Path) -> Vec<u64> {
    let state = state(dir, None);
    let average = state.average.iter().flat_map(|a| a.weights.clone());
    state.model.weights.iter().copied().chain(average).map(|w| w.to_bits()).collect()
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
    for config in [config(), averaged()] {
        resume_ends_where_the_whole_run_ends(config);
    }
}

/// The weights and, if the run keeps one, their average, to the bit.
fn resume_ends_where_the_whole_run_ends(config: TdConfig) {
    let whole = tempfile::tempdir().unwrap();
    start(config, whole.path(), options(2)).unwrap();
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

/// The decay, checked against TD(λ) replayed by hand: the step from 4 to 8 games uses α·2^(−4/8).
#[test]
fn a_half_life_scales_each_batchs_step() {
    let dir = tempfile::tempdir().unwrap();
    let config = TdConfig { checkpoint_every: 4, ..averaged() };
    start(config.clone(), dir.path(), options(1)).unwrap();
    let (before, after) = (state(dir.path(), Some(4)).model, state(dir.path(), Some(8)).model);
    let (rules, opening) = (Rules::default(), config.start_position().unwrap());
    let chromosome = before.chromosome().unwrap();
    let mut change = vec![0.0; before.weights.len()];
    for k in 4..8 {
        let game = self_play(&chromosome, config.depth, &rules, &opening, config.opening_plies, derive_seed(4, k));
        add_update(&before, &game, config.lambda, 0.05 / 2f64.sqrt(), &mut change);
    }
    assert!(change.iter().any(|c| c.abs() > 1e-9), "the batch moved nothing");
    for ((b, c), a) in before.weights.iter().zip(&change).zip(&after.weights) {
        assert!((b + c - a).abs() < 1e-12, "{b} + {c} vs {a}");
    }
}

/// Within its horizon the average is the mean of the weights after each batch, and it is what
/// `net.json` holds and what the validation measures.
#[test]
fn the_averaged_network_is_the_mean_of_the_batches_and_is_what_is_measured() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = TdConfig { checkpoint_every: 4, ..averaged() };
    // Enough matches for the two networks to score apart.
    config.validation.as_mut().unwrap().matches = 40;
    start(config.clone(), dir.path(), options(1)).unwrap();
    let last = state(dir.path(), None);
    let snapshots: Vec<TdState> = [4, 8, 12, 16].iter().map(|&g| state(dir.path(), Some(g))).collect();
    let average = last.average.as_ref().unwrap();
    for (i, a) in average.weights.iter().enumerate() {
        let mean = snapshots.iter().map(|s| s.model.weights[i]).sum::<f64>() / 4.0;
        assert!((a - mean).abs() < 1e-12, "weight {i}: {a} vs {mean}");
    }
    assert_ne!(average.weights, last.model.weights);

    let net = loa_engine::network::Chromosome::read(dir.path().join("net.json")).unwrap();
    assert_eq!(net, average.chromosome().unwrap());
    let v = config.validation.as_ref().unwrap();
    let counts = validate(&average.chromosome().unwrap(), &config, v, 1).unwrap();
    // The latest weights score otherwise here, so the line tells which network was measured.
    assert_ne!(validate(&last.model.chromosome().unwrap(), &config, v, 1).unwrap(), counts);
    let last_line = *validation(dir.path()).last().unwrap();
    assert_eq!((last_line.0, last_line.1, last_line.2, last_line.3), (16, counts[0][0], counts[0][1], counts[0][2]));
}
