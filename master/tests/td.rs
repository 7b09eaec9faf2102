//! The TD method as a run: the same checkpoints with one or two threads, with TD-Leaf and the
//! averaged network; three epochs straight equal two resumed for one more; the stored network
//! is the learner's (its average with `average_games`) and exports; settings are named when
//! wrong.

use loa_master::checkpoint::RunState;
use loa_master::config::ExperimentConfig;
use loa_master::run::{Pick, RunDir, RunOptions, export, resume, start};
use loa_master::selection::SchemeState;
use loa_master::selection::learning::Model;
use loa_master::selection::td;
use loa_records::ValidationRecord;
use std::path::Path;

fn config(epochs: u32, extra: &str) -> ExperimentConfig {
    let text = format!(
        "seed = 5\npopulation = 1\nepochs = {epochs}\ngenerations_per_epoch = 2\nnetwork_depth = 2\n\
         [benchmark]\ndepth = 1\n[rules]\nply_cap = 40\n\
         [network]\nboard_side = 5\ninputs = [\"board\"]\nhidden = [6]\n\
         [selection.scheme.td]\nbatch = 4\nopening_plies = 2\n{extra}"
    );
    ExperimentConfig::from_toml(&text).unwrap()
}

fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn learner(dir: &Path, epoch: u32) -> td::State {
    let state = RunState::load(&RunDir::new(dir).epoch_checkpoint(epoch)).unwrap();
    td::State::load(&state.scheme_state).unwrap()
}

#[test]
fn td_runs_are_deterministic_across_threads_and_resume_bit_for_bit() {
    for extra in ["", "leaf = true\n", "average_games = 8\nlearning_rate_half_life = 20\n"] {
        let tmp = tempfile::tempdir().unwrap();
        let (one, two, resumed) = (tmp.path().join("one"), tmp.path().join("two"), tmp.path().join("resumed"));
        start(config(3, extra), &one, &RunOptions::embedded(1)).unwrap();
        start(config(3, extra), &two, &RunOptions::embedded(2)).unwrap();
        start(config(2, extra), &resumed, &RunOptions::embedded(2)).unwrap();
        let r = resume(&resumed, None, Some(1), &RunOptions::embedded(1)).unwrap();
        assert_eq!((r.epoch, r.generation), (3, 6));
        let (a, b, c) = (RunDir::new(&one), RunDir::new(&two), RunDir::new(&resumed));
        for epoch in 0..=3 {
            assert!(read(&a.epoch_checkpoint(epoch)) == read(&b.epoch_checkpoint(epoch)), "{extra}epoch {epoch}");
        }
        assert!(read(&a.epoch_checkpoint(3)) == read(&c.epoch_checkpoint(3)), "{extra}resumed");
        assert_eq!(read(&a.epochs()), read(&c.epochs()));
        // 6 batches of 4 games, and the weights moved.
        let (first, last) = (learner(&one, 0), learner(&one, 3));
        assert_eq!((first.games, last.games), (0, 24), "{extra}");
        assert_ne!(first.weights, last.weights);
        // The stored network is the learner's, rounded, or its average's.
        let state = RunState::load(&a.epoch_checkpoint(3)).unwrap();
        let stored = state.individuals().unwrap();
        let measured = last.average.clone().unwrap_or(last.weights.clone());
        let model = Model::from_weights(state.config.network, measured).unwrap();
        assert_eq!(stored.len(), 1);
        assert_eq!(stored[0].chromosome.weights(), model.chromosome().unwrap().weights(), "{extra}");
        assert_eq!(last.average.is_some(), extra.contains("average"));
        let exported = export(&one, 3, Pick::Best).unwrap();
        assert_eq!(exported.serial, stored[0].serial);
    }
}

/// Population-based training over four learners, ranked every two generations: the same
/// checkpoints on one and two threads, and resumed; the learners are apart, and a ranking moved
/// some learner's steps.
#[test]
fn pbt_runs_are_deterministic_across_threads_and_resume_bit_for_bit() {
    use loa_master::selection::pbt;
    let config = |epochs: u32| pbt_config(epochs, "");
    let tmp = tempfile::tempdir().unwrap();
    let (one, two, resumed) = (tmp.path().join("one"), tmp.path().join("two"), tmp.path().join("resumed"));
    start(config(3), &one, &RunOptions::embedded(1)).unwrap();
    start(config(3), &two, &RunOptions::embedded(2)).unwrap();
    start(config(2), &resumed, &RunOptions::embedded(2)).unwrap();
    resume(&resumed, None, Some(1), &RunOptions::embedded(1)).unwrap();
    let (a, b, c) = (RunDir::new(&one), RunDir::new(&two), RunDir::new(&resumed));
    for epoch in 0..=3 {
        assert!(read(&a.epoch_checkpoint(epoch)) == read(&b.epoch_checkpoint(epoch)), "epoch {epoch}");
    }
    assert!(read(&a.epoch_checkpoint(3)) == read(&c.epoch_checkpoint(3)), "resumed");
    let state = RunState::load(&a.epoch_checkpoint(3)).unwrap();
    let pbt = pbt::State::load(&state.scheme_state).unwrap();
    assert_eq!((pbt.members.len(), pbt.rankings, state.individuals().unwrap().len()), (4, 3, 4));
    assert!(pbt.members.iter().all(|m| m.learner.games == 24), "6 batches of 4 games each");
    let steps: Vec<(f64, f64)> = pbt.members.iter().map(|m| (m.learning_rate, m.lambda)).collect();
    assert!(steps.iter().any(|&s| s != (0.01, 0.7)), "a ranking moved some steps: {steps:?}");
}

/// Four learners as [`config`]'s, ranked every two generations against `random:1`.
fn pbt_config(epochs: u32, extra: &str) -> ExperimentConfig {
    let text = config(epochs, "").to_toml().replace("population = 1", "population = 4").replace(
        "[selection.scheme.td]",
        "[selection.scheme.pbt]\nready = 2\nrank_matches = 4\nrank_opponents = [\"random:1\"]",
    );
    ExperimentConfig::from_toml(&(text + extra)).unwrap()
}

/// A PBT run validates the best learner of its last ranking, not the best by benchmark, and
/// `export --validated` writes that network.
#[test]
fn pbt_exports_the_network_it_validated() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    start(pbt_config(3, "[validation]\nopponents = [\"random:1\"]\nmatches = 2\n"), &run, &RunOptions::embedded(2))
        .unwrap();
    let validations = loa_records::jsonl::read::<ValidationRecord>(&RunDir::new(&run).validation()).unwrap();
    let serials: Vec<u64> = validations.records.iter().map(|r| r.serial).collect();
    assert_eq!(serials.len(), 4, "epochs 0 to 3");
    let mut other = 0;
    for (epoch, serial) in (0..).zip(serials) {
        assert_eq!(export(&run, epoch, Pick::Validated).unwrap().serial, serial, "epoch {epoch}");
        other += usize::from(export(&run, epoch, Pick::Best).unwrap().serial != serial);
    }
    // Here the best by benchmark is another learner at some epoch.
    assert!(other > 0, "--best and --validated agree at every epoch");
}

#[test]
fn td_leaf_learns_other_weights_than_td() {
    let tmp = tempfile::tempdir().unwrap();
    let (plain, leaf) = (tmp.path().join("plain"), tmp.path().join("leaf"));
    start(config(1, ""), &plain, &RunOptions::embedded(2)).unwrap();
    start(config(1, "leaf = true\n"), &leaf, &RunOptions::embedded(2)).unwrap();
    // The same initial weights and games, other predictions.
    assert_eq!(learner(&plain, 0).weights, learner(&leaf, 0).weights);
    assert_ne!(learner(&plain, 1).weights, learner(&leaf, 1).weights);
}

#[test]
fn bad_td_settings_are_named() {
    let err = |extra: &str, top: &str| {
        let text = format!(
            "population = 1\n{top}[network]\nboard_side = 5\ninputs = [\"board\"]\nhidden = [6]\n\
             [selection.scheme.td]\n{extra}"
        );
        let config = ExperimentConfig::from_toml(&text).map_err(|e| e.to_string())?;
        loa_master::selection::build(&config).map(drop).map_err(|e| e.to_string())
    };
    assert_eq!(err("", ""), Ok(()));
    for (extra, top, key) in [
        ("batch = 0", "", "selection.scheme.td.batch"),
        ("lambda = 1.5", "", "selection.scheme.td.lambda"),
        ("learning_rate = 0.0", "", "selection.scheme.td.learning_rate"),
        ("learning_rate_half_life = 100000001", "", "selection.scheme.td.learning_rate_half_life"),
        ("batch = 16\naverage_games = 8", "", "selection.scheme.td.average_games"),
        ("opening_plies = 7", "", "selection.scheme.td.opening_plies"),
        ("games_per_task = 0", "", "selection.scheme.td.games_per_task"),
        ("games_per_task = 64\nleaf = true", "[rules]\nply_cap = 1000\n", "selection.scheme.td.games_per_task"),
        ("speed = 3", "", "selection.scheme.td.speed"),
    ] {
        let message = err(extra, top).unwrap_err();
        assert!(message.contains(&format!("`{key}`")), "{extra}: {message}");
    }
    // One learner: a population of two is refused, saying what to set.
    let two = ExperimentConfig::from_toml("population = 2\n[selection.scheme.td]\n").unwrap();
    let message = loa_master::selection::build(&two).err().unwrap().to_string();
    assert!(message.contains("`population`") && message.contains("set population = 1"), "{message}");
}
