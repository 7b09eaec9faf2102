//! Pins the bytes of a short run's checkpoints for the thesis scheme, as computed on main before
//! the reshaping of issue 9 (commit fdaa0b0): any change to breeding, task seeds, the games or the
//! checkpoint encoding shows up here as a different digest. If a change of results is intended,
//! say so in the commit and update the digests. Checkpoints written by older builds
//! (`tests/data/`) must load and resume as those builds ran them.

use loa_master::config::ExperimentConfig;
use loa_master::run::{RunDir, RunOptions, start};

/// FNV-1a, 64 bits: a fixed, dependency-free digest (collisions do not matter here; any change
/// of a single byte changes it).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3))
}

fn pinned_config() -> ExperimentConfig {
    let mut c = ExperimentConfig {
        seed: 20261123,
        epochs: 2,
        population: 6,
        generations_per_epoch: 2,
        network_depth: 2,
        ..Default::default()
    };
    c.benchmark.depth = 2;
    c.rules.ply_cap = 60;
    c
}

#[test]
fn a_short_thesis_run_writes_the_pinned_checkpoints() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run");
    let options = RunOptions::embedded(2);
    start(pinned_config(), &out, &options).unwrap();
    let dir = RunDir::new(&out);
    let digest = |p: std::path::PathBuf| format!("{:016x}", fnv1a(&std::fs::read(&p).unwrap()));
    let found = [digest(dir.epoch_checkpoint(0)), digest(dir.epoch_checkpoint(1)), digest(dir.epoch_checkpoint(2))];
    assert_eq!(found, ["f604f7b9a51c3a17", "4c94ce718ae9d7a1", "08790944cf6cd91f"]);
}

/// A checkpoint written by main at fdaa0b0, before the reshaping (`tests/data/`, with its
/// configuration): it still loads, it is byte for byte what this build writes, and resuming it
/// gives what resuming this build's own checkpoint gives.
#[test]
fn a_checkpoint_from_before_the_reshaping_loads_and_resumes_identically() {
    let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let config = loa_master::config::ExperimentConfig::read(&data.join("fdaa0b0-tiny.toml")).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let fresh = RunDir::new(tmp.path().join("fresh"));
    start(config, fresh.root(), &RunOptions::embedded(2)).unwrap();
    let old = RunDir::new(tmp.path().join("old"));
    std::fs::create_dir_all(old.checkpoints()).unwrap();
    std::fs::copy(data.join("fdaa0b0-epoch-00001.ckpt"), old.epoch_checkpoint(1)).unwrap();
    let bytes = |p: std::path::PathBuf| std::fs::read(p).unwrap();
    assert!(bytes(old.epoch_checkpoint(1)) == bytes(fresh.epoch_checkpoint(1)), "epoch 1 differs from fdaa0b0's");
    for dir in [&old, &fresh] {
        loa_master::run::resume(dir.root(), Some(1), Some(1), &RunOptions::embedded(1)).unwrap();
    }
    assert!(bytes(old.epoch_checkpoint(2)) == bytes(fresh.epoch_checkpoint(2)), "resumed epoch 2 differs");
}

/// The epoch-2 checkpoint this build writes when it resumes the epoch-1 checkpoint `epoch_1`
/// (alone in a fresh run directory) for one epoch.
fn resumed_for_one_epoch(epoch_1: &std::path::Path) -> Vec<u8> {
    let tmp = tempfile::tempdir().unwrap();
    let run = RunDir::new(tmp.path().join("run"));
    std::fs::create_dir_all(run.checkpoints()).unwrap();
    std::fs::copy(epoch_1, run.epoch_checkpoint(1)).unwrap();
    loa_master::run::resume(run.root(), Some(1), Some(1), &RunOptions::embedded(2)).unwrap();
    std::fs::read(run.epoch_checkpoint(2)).unwrap()
}

/// Checkpoints of the long ES run (`experiments/evolve/long-es-ladder.toml`, epochs 1 and 2)
/// written by main at 63a23ae in format 2, before the ES settings grew (`tests/data/`): epoch 1
/// loads with the new settings at their defaults (what that build did), and resuming it for one
/// epoch with this build writes exactly that build's epoch 2 (in format 6).
#[test]
fn an_evolution_strategies_checkpoint_of_format_2_loads_and_resumes_as_the_old_build_ran() {
    use loa_master::checkpoint::RunState;
    use loa_master::config::SelectionScheme;
    let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let old_epoch_1 = data.join("63a23ae-es-epoch-00001.ckpt");
    let state = RunState::load(&old_epoch_1).unwrap();
    let SelectionScheme::EvolutionStrategies(es) = &state.config.selection.scheme else { panic!("{:?}", state.config) };
    // The values of long-es-ladder.toml, read from the old bytes.
    assert_eq!((es.sigma, es.learning_rate, es.fixed_matches, es.opening_plies, es.ladder.len()), (0.3, 0.1, 3, 4, 5));
    assert_eq!((es.learning_rate_half_life, es.weight_decay, state.config.population), (0, 0.0, 64));
    assert_eq!((state.generation, state.epoch, state.population.len()), (10, 1, 1));
    assert!(es.initial_network.is_empty());
    // Written again it is format 6, 13 bytes longer (a 1-byte varint 0 and an 8-byte 0.0 from
    // format 3, an empty string's 1-byte length from format 4, the symmetry's 1-byte variant
    // and a 1-byte varint 0 from format 5, the optimiser's 1-byte variant from format 6).
    let old = std::fs::read(&old_epoch_1).unwrap();
    let new = state.encode().unwrap();
    assert_eq!((old[8..12].to_vec(), new[8..12].to_vec()), (2u32.to_le_bytes().to_vec(), 6u32.to_le_bytes().to_vec()));
    assert_eq!(new.len(), old.len() + 13);

    let resumed = resumed_for_one_epoch(&old_epoch_1);
    let mut old_epoch_2 = RunState::load(&data.join("63a23ae-es-epoch-00002.ckpt")).unwrap();
    // The one difference: the old run's target was 100 000 epochs, the resumed one's is 2.
    assert_eq!(old_epoch_2.config.epochs, 100_000);
    old_epoch_2.config.epochs = 2;
    assert!(resumed == old_epoch_2.encode().unwrap(), "epoch 2 differs from 63a23ae's");
}

/// Checkpoints of a small ES run with a learning-rate half-life, weight decay and a hall of
/// fame, written by main at 48c7dde in format 3, before `initial_network` existed
/// (`tests/data/`; the config is in the test): epoch 1 loads with that setting empty (a random
/// start, what that build did), and resuming it for one epoch with this build writes exactly
/// that build's epoch 2 (in format 6).
#[test]
fn an_evolution_strategies_checkpoint_of_format_3_loads_and_resumes_as_the_old_build_ran() {
    use loa_master::checkpoint::RunState;
    use loa_master::config::SelectionScheme;
    let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let old_epoch_1 = data.join("48c7dde-es-epoch-00001.ckpt");
    let state = RunState::load(&old_epoch_1).unwrap();
    let SelectionScheme::EvolutionStrategies(es) = &state.config.selection.scheme else { panic!("{:?}", state.config) };
    // The values the old build ran with (seed 77, population 8, depth 1; sigma 0.1, learning
    // rate 0.05, 2 opponents, random:1, 2 opening plies, a hall of fame of 1, half-life 3,
    // weight decay 0.01), read from the old bytes.
    assert_eq!((state.config.seed, state.config.population, es.sigma, es.learning_rate), (77, 8, 0.1, 0.05));
    assert_eq!((es.opponents, es.fixed_opponents.as_slice(), es.opening_plies), (2, &["random:1".to_string()][..], 2));
    assert_eq!((es.hall_of_fame, es.learning_rate_half_life, es.weight_decay), (1, 3, 0.01));
    assert!(es.initial_network.is_empty());
    assert_eq!((state.generation, state.epoch, state.population.len(), state.memory.hall_of_fame.len()), (2, 1, 1, 2));
    // Written again it is format 6, 4 bytes longer (an empty string's length, the symmetry's
    // variant, the σ half-life's 0, the optimiser's variant).
    let old = std::fs::read(&old_epoch_1).unwrap();
    let new = state.encode().unwrap();
    assert_eq!((old[8..12].to_vec(), new[8..12].to_vec()), (3u32.to_le_bytes().to_vec(), 6u32.to_le_bytes().to_vec()));
    assert_eq!(new.len(), old.len() + 4);

    let resumed = resumed_for_one_epoch(&old_epoch_1);
    let old_epoch_2 = RunState::load(&data.join("48c7dde-es-epoch-00002.ckpt")).unwrap();
    assert_eq!(old_epoch_2.epoch, 2);
    assert!(resumed == old_epoch_2.encode().unwrap(), "epoch 2 differs from 48c7dde's");
}

/// Checkpoints of a small ES run started from a network file, written by main at 02600be in
/// format 4, before `symmetry` existed (`tests/data/`; seed 78, population 8, depth 1, two
/// epochs of two generations, σ 0.1, α 0.05, one drawn opponent, random:1 twice from 2-ply
/// openings, benchmark-score fitness, half-life 3, weight decay 0.01, `initial_network =
/// "start.json"`, the long run's network): epoch 1 loads with no tying and a constant σ (what
/// that build did),
/// and resuming it for one epoch with this build writes exactly that build's epoch 2.
#[test]
fn an_evolution_strategies_checkpoint_of_format_4_loads_and_resumes_as_the_old_build_ran() {
    use loa_engine::network::symmetry::WeightTying;
    use loa_master::checkpoint::RunState;
    use loa_master::config::SelectionScheme;
    let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let old_epoch_1 = data.join("02600be-es-epoch-00001.ckpt");
    let state = RunState::load(&old_epoch_1).unwrap();
    let SelectionScheme::EvolutionStrategies(es) = &state.config.selection.scheme else { panic!("{:?}", state.config) };
    assert_eq!((state.config.seed, state.config.population, es.sigma, es.learning_rate), (78, 8, 0.1, 0.05));
    assert_eq!((es.fixed_matches, es.learning_rate_half_life, es.weight_decay), (2, 3, 0.01));
    assert_eq!((es.initial_network.as_str(), es.symmetry, es.sigma_half_life), ("start.json", WeightTying::None, 0));
    assert_eq!((state.generation, state.epoch, state.population.len()), (2, 1, 1));
    // Written again it is format 6, 3 bytes longer (the symmetry's variant, the σ half-life's 0,
    // the optimiser's variant).
    let old = std::fs::read(&old_epoch_1).unwrap();
    let new = state.encode().unwrap();
    assert_eq!((old[8..12].to_vec(), new[8..12].to_vec()), (4u32.to_le_bytes().to_vec(), 6u32.to_le_bytes().to_vec()));
    assert_eq!(new.len(), old.len() + 3);

    let resumed = resumed_for_one_epoch(&old_epoch_1);
    let old_epoch_2 = RunState::load(&data.join("02600be-es-epoch-00002.ckpt")).unwrap();
    assert_eq!(old_epoch_2.epoch, 2);
    assert!(resumed == old_epoch_2.encode().unwrap(), "epoch 2 differs from 02600be's");
}

/// Checkpoints of a small tied ES run with both half-lives, weight decay, a hall of fame and a
/// fixed opponent, written by main at bbaac1f in format 5, before `optimizer` existed
/// (`tests/data/`; seed 79, population 8, depth 1, two epochs of two generations, σ 0.1 and α
/// 0.05 each halving every 3 generations, one drawn opponent and random:1 twice from 2-ply
/// openings, benchmark-score fitness, a hall of fame of 1, weight decay 0.01, equivariant
/// tying): epoch 1 loads with plain steps (what that build did), and resuming it for one epoch
/// with this build writes exactly that build's epoch 2.
#[test]
fn an_evolution_strategies_checkpoint_of_format_5_loads_and_resumes_as_the_old_build_ran() {
    use loa_engine::network::symmetry::WeightTying;
    use loa_master::checkpoint::RunState;
    use loa_master::config::{EsOptimizer, SelectionScheme};
    let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let old_epoch_1 = data.join("bbaac1f-es-epoch-00001.ckpt");
    let state = RunState::load(&old_epoch_1).unwrap();
    let SelectionScheme::EvolutionStrategies(es) = &state.config.selection.scheme else { panic!("{:?}", state.config) };
    assert_eq!((state.config.seed, state.config.population, es.sigma, es.learning_rate), (79, 8, 0.1, 0.05));
    assert_eq!((es.symmetry, es.sigma_half_life, es.hall_of_fame), (WeightTying::Equivariant, 3, 1));
    assert_eq!(es.optimizer, EsOptimizer::Plain);
    assert_eq!((state.generation, state.epoch, state.population.len()), (2, 1, 1));
    // Written again it is format 6, 1 byte longer (the optimiser's variant).
    let old = std::fs::read(&old_epoch_1).unwrap();
    let new = state.encode().unwrap();
    assert_eq!((old[8..12].to_vec(), new[8..12].to_vec()), (5u32.to_le_bytes().to_vec(), 6u32.to_le_bytes().to_vec()));
    assert_eq!(new.len(), old.len() + 1);

    let resumed = resumed_for_one_epoch(&old_epoch_1);
    let old_epoch_2 = RunState::load(&data.join("bbaac1f-es-epoch-00002.ckpt")).unwrap();
    assert_eq!(old_epoch_2.epoch, 2);
    assert!(resumed == old_epoch_2.encode().unwrap(), "epoch 2 differs from bbaac1f's");
}
