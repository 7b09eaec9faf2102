//! Checkpoints: the bytes of a short thesis run's checkpoints in format 7, and checkpoints
//! written by older builds (`tests/data/`, formats 1 to 6), which must load and resume exactly as
//! those builds ran them. A resumed old run writes format 7, so it is compared with the old
//! build's next checkpoint by content: configuration, generator, serials, every weight bit for
//! bit, the epoch reports and the scheme's state.

use loa_master::checkpoint::RunState;
use loa_master::config::ExperimentConfig;
use loa_master::run::{RunDir, RunOptions, start};
use loa_master::selection::evolution_strategies::{self, EsConfig, EsOptimizer};
use loa_master::selection::{SchemeState, mu_plus_lambda};
use std::path::{Path, PathBuf};

/// FNV-1a, 64 bits: a fixed, dependency-free digest (collisions do not matter here; any change
/// of a single byte changes it).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3))
}

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name)
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

/// Any change to breeding, task seeds, the games or the checkpoint encoding shows up here as a
/// different digest (what runs compute is pinned apart from the encoding in `results.rs`).
#[test]
fn a_short_thesis_run_writes_the_pinned_checkpoints() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run");
    start(pinned_config(), &out, &RunOptions::embedded(2)).unwrap();
    let dir = RunDir::new(&out);
    let digest = |p: PathBuf| format!("{:016x}", fnv1a(&std::fs::read(&p).unwrap()));
    let found = [digest(dir.epoch_checkpoint(0)), digest(dir.epoch_checkpoint(1)), digest(dir.epoch_checkpoint(2))];
    assert_eq!(found, ["8d6c9dc5f0f7bee8", "2c31021c44e990b2", "5a4acdeb6da5f30a"]);
}

/// Asserts that two states are the same run at the same point, every weight bit for bit.
fn same_state(found: &RunState, expected: &RunState, what: &str) {
    let bits = |s: &RunState| -> Vec<(u64, String, Vec<u32>)> {
        s.population
            .iter()
            .map(|i| (i.serial, i.topology.clone(), i.weights.iter().map(|w| w.to_bits()).collect()))
            .collect()
    };
    assert!(bits(found) == bits(expected), "{what}: the population differs");
    assert_eq!(found.config, expected.config, "{what}: configuration");
    assert_eq!((found.generation, found.epoch), (expected.generation, expected.epoch), "{what}");
    assert_eq!((&found.serials, &found.rng), (&expected.serials, &expected.rng), "{what}: serials and generator");
    assert_eq!(found.epochs, expected.epochs, "{what}: epoch reports");
    assert!(found.scheme_state == expected.scheme_state, "{what}: the scheme's state differs");
}

/// Resumes the epoch-1 checkpoint `epoch_1` (alone in a fresh run directory) for one epoch with
/// this build, and checks that it writes format 7 holding what the old build's epoch-2
/// checkpoint `epoch_2` holds (but for the target, the run's `epochs`, which `resume` sets).
fn resumes_as_the_old_build_ran(epoch_1: &str, epoch_2: &str) {
    let tmp = tempfile::tempdir().unwrap();
    let run = RunDir::new(tmp.path().join("run"));
    std::fs::create_dir_all(run.checkpoints()).unwrap();
    std::fs::copy(data(epoch_1), run.epoch_checkpoint(1)).unwrap();
    loa_master::run::resume(run.root(), Some(1), Some(1), &RunOptions::embedded(2)).unwrap();
    let bytes = std::fs::read(run.epoch_checkpoint(2)).unwrap();
    assert_eq!(bytes[8..12], 7u32.to_le_bytes(), "{epoch_1}: resumed in format 7");
    let resumed = RunState::decode(&bytes, &run.epoch_checkpoint(2)).unwrap();
    let mut old = RunState::load(&data(epoch_2)).unwrap();
    assert_eq!(old.epoch, 2);
    old.config.epochs = resumed.config.epochs;
    same_state(&resumed, &old, epoch_2);
}

/// The format-`format` checkpoint `name`'s format version.
fn format_of(name: &str) -> u32 {
    let bytes = std::fs::read(data(name)).unwrap();
    u32::from_le_bytes(bytes[8..12].try_into().unwrap())
}

fn es_settings(state: &RunState) -> EsConfig {
    assert_eq!(state.config.selection.scheme.name, "evolution-strategies");
    state.config.selection.scheme.settings.clone().try_into().unwrap()
}

/// A knockout checkpoint written by main at fdaa0b0 (format 1, with its configuration): it
/// loads as what this build computes for the same run, and resuming either gives the same.
#[test]
fn a_knockout_checkpoint_of_format_1_loads_and_resumes_identically() {
    assert_eq!(format_of("fdaa0b0-epoch-00001.ckpt"), 1);
    let config = ExperimentConfig::read(&data("fdaa0b0-tiny.toml")).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let fresh = RunDir::new(tmp.path().join("fresh"));
    start(config, fresh.root(), &RunOptions::embedded(2)).unwrap();
    let old = RunState::load(&data("fdaa0b0-epoch-00001.ckpt")).unwrap();
    same_state(&RunState::load(&fresh.epoch_checkpoint(1)).unwrap(), &old, "epoch 1");
    let run = RunDir::new(tmp.path().join("old"));
    std::fs::create_dir_all(run.checkpoints()).unwrap();
    std::fs::copy(data("fdaa0b0-epoch-00001.ckpt"), run.epoch_checkpoint(1)).unwrap();
    for dir in [&run, &fresh] {
        loa_master::run::resume(dir.root(), Some(1), Some(1), &RunOptions::embedded(1)).unwrap();
    }
    let bytes = |p: PathBuf| std::fs::read(p).unwrap();
    assert!(bytes(run.epoch_checkpoint(2)) == bytes(fresh.epoch_checkpoint(2)), "resumed epoch 2 differs");
}

/// The long ES run (`experiments/evolve/long-es-ladder.toml`, epochs 1 and 2), written by main at
/// 63a23ae in format 2, before the ES settings grew: the newer settings take the defaults that
/// do what that build did.
#[test]
fn an_evolution_strategies_checkpoint_of_format_2_loads_and_resumes_as_the_old_build_ran() {
    assert_eq!(format_of("63a23ae-es-epoch-00001.ckpt"), 2);
    let state = RunState::load(&data("63a23ae-es-epoch-00001.ckpt")).unwrap();
    let es = es_settings(&state);
    let j = &es.judging;
    assert_eq!((es.sigma, es.learning_rate, j.fixed_matches, j.opening_plies, j.ladder.len()), (0.3, 0.1, 3, 4, 5));
    assert_eq!((es.learning_rate_half_life, es.weight_decay, state.config.population), (0, 0.0, 64));
    assert_eq!((state.generation, state.epoch, state.population.len()), (10, 1, 1));
    assert!(es.initial_network.is_empty());
    resumes_as_the_old_build_ran("63a23ae-es-epoch-00001.ckpt", "63a23ae-es-epoch-00002.ckpt");
}

/// A small ES run with a learning-rate half-life, weight decay and a hall of fame, written by
/// main at 48c7dde in format 3, before `initial_network` existed.
#[test]
fn an_evolution_strategies_checkpoint_of_format_3_loads_and_resumes_as_the_old_build_ran() {
    assert_eq!(format_of("48c7dde-es-epoch-00001.ckpt"), 3);
    let state = RunState::load(&data("48c7dde-es-epoch-00001.ckpt")).unwrap();
    let es = es_settings(&state);
    // The values the old build ran with (seed 77, population 8, depth 1; σ 0.1, α 0.05, 2
    // opponents, random:1, 2 opening plies, a hall of fame of 1, half-life 3, weight decay 0.01).
    assert_eq!((state.config.seed, state.config.population, es.sigma, es.learning_rate), (77, 8, 0.1, 0.05));
    let j = &es.judging;
    assert_eq!((j.opponents, j.fixed_opponents.as_slice(), j.opening_plies), (2, &["random:1".to_string()][..], 2));
    assert_eq!((j.hall_of_fame, es.learning_rate_half_life, es.weight_decay), (1, 3, 0.01));
    assert!(es.initial_network.is_empty());
    let scheme = evolution_strategies::State::load(&state.scheme_state).unwrap();
    assert_eq!((state.generation, state.epoch, state.population.len(), scheme.judged.hall_of_fame.len()), (2, 1, 1, 2));
    resumes_as_the_old_build_ran("48c7dde-es-epoch-00001.ckpt", "48c7dde-es-epoch-00002.ckpt");
}

/// A small ES run started from a network file, written by main at 02600be in format 4, before
/// `symmetry` existed (seed 78, population 8, σ 0.1, α 0.05, random:1 twice from 2-ply openings,
/// half-life 3, weight decay 0.01, `initial_network = "start.json"`).
#[test]
fn an_evolution_strategies_checkpoint_of_format_4_loads_and_resumes_as_the_old_build_ran() {
    use loa_engine::network::symmetry::WeightTying;
    assert_eq!(format_of("02600be-es-epoch-00001.ckpt"), 4);
    let state = RunState::load(&data("02600be-es-epoch-00001.ckpt")).unwrap();
    let es = es_settings(&state);
    assert_eq!((state.config.seed, state.config.population, es.sigma, es.learning_rate), (78, 8, 0.1, 0.05));
    assert_eq!((es.judging.fixed_matches, es.learning_rate_half_life, es.weight_decay), (2, 3, 0.01));
    assert_eq!((es.initial_network.as_str(), es.symmetry, es.sigma_half_life), ("start.json", WeightTying::None, 0));
    assert_eq!((state.generation, state.epoch, state.population.len()), (2, 1, 1));
    resumes_as_the_old_build_ran("02600be-es-epoch-00001.ckpt", "02600be-es-epoch-00002.ckpt");
}

/// A small tied ES run with both half-lives, weight decay, a hall of fame and a fixed opponent,
/// written by main at bbaac1f in format 5, before `optimizer` existed (seed 79, equivariant).
#[test]
fn an_evolution_strategies_checkpoint_of_format_5_loads_and_resumes_as_the_old_build_ran() {
    use loa_engine::network::symmetry::WeightTying;
    assert_eq!(format_of("bbaac1f-es-epoch-00001.ckpt"), 5);
    let state = RunState::load(&data("bbaac1f-es-epoch-00001.ckpt")).unwrap();
    let es = es_settings(&state);
    assert_eq!((state.config.seed, state.config.population, es.sigma, es.learning_rate), (79, 8, 0.1, 0.05));
    assert_eq!((es.symmetry, es.sigma_half_life, es.judging.hall_of_fame), (WeightTying::Equivariant, 3, 1));
    assert_eq!(es.optimizer, EsOptimizer::Plain);
    assert_eq!((state.generation, state.epoch, state.population.len()), (2, 1, 1));
    resumes_as_the_old_build_ran("bbaac1f-es-epoch-00001.ckpt", "bbaac1f-es-epoch-00002.ckpt");
}

/// ES runs written by main at 7178a3b in format 6 (`7178a3b-es-*.toml`): one stepping with Adam
/// up a ladder (Adam's moments after the memory), one plain, tied, with both half-lives, weight
/// decay and a hall of fame.
#[test]
fn evolution_strategies_checkpoints_of_format_6_load_and_resume_as_the_old_build_ran() {
    assert_eq!(format_of("7178a3b-es-adam-epoch-00001.ckpt"), 6);
    let adam = RunState::load(&data("7178a3b-es-adam-epoch-00001.ckpt")).unwrap();
    let written = ExperimentConfig::read(&data("7178a3b-es-adam.toml")).unwrap();
    assert_eq!(adam.config, loa_master::selection::normalized(&written).unwrap());
    assert_eq!(es_settings(&adam).optimizer, EsOptimizer::Adam);
    let scheme = evolution_strategies::State::load(&adam.scheme_state).unwrap();
    assert_eq!((scheme.adam.updates, scheme.adam.first.len()), (1, 2041));
    resumes_as_the_old_build_ran("7178a3b-es-adam-epoch-00001.ckpt", "7178a3b-es-adam-epoch-00002.ckpt");

    assert_eq!(format_of("7178a3b-es-plain-epoch-00001.ckpt"), 6);
    let plain = RunState::load(&data("7178a3b-es-plain-epoch-00001.ckpt")).unwrap();
    let es = es_settings(&plain);
    assert_eq!((es.optimizer, es.sigma_half_life, es.weight_decay), (EsOptimizer::Plain, 2, 0.01));
    let scheme = evolution_strategies::State::load(&plain.scheme_state).unwrap();
    assert_eq!((scheme.adam.updates, scheme.judged.hall_of_fame.len()), (0, 2));
    resumes_as_the_old_build_ran("7178a3b-es-plain-epoch-00001.ckpt", "7178a3b-es-plain-epoch-00002.ckpt");
}

/// A (μ + λ) run with self-adaptive steps, a hall of fame and a ladder, written by main at
/// 7178a3b in format 2 (`7178a3b-mpl-steps.toml`): the memory and then the steps after the
/// state.
#[test]
fn a_mu_plus_lambda_checkpoint_of_format_2_with_steps_loads_and_resumes_as_the_old_build_ran() {
    assert_eq!(format_of("7178a3b-mpl-steps-epoch-00001.ckpt"), 2);
    let state = RunState::load(&data("7178a3b-mpl-steps-epoch-00001.ckpt")).unwrap();
    let scheme = mu_plus_lambda::State::load(&state.scheme_state).unwrap();
    let serials: Vec<u64> = state.population.iter().map(|i| i.serial).collect();
    assert_eq!(scheme.steps.iter().map(|&(s, _)| s).collect::<Vec<_>>(), serials);
    assert!(scheme.steps.iter().any(|&(_, step)| step != 0.05), "{:?}", scheme.steps);
    assert_eq!((scheme.judged.rung, scheme.judged.hall_of_fame.len()), (1, 1));
    resumes_as_the_old_build_ran("7178a3b-mpl-steps-epoch-00001.ckpt", "7178a3b-mpl-steps-epoch-00002.ckpt");
}

/// `payload` under a header of format `version`.
fn rewrap(version: u32, payload: &[u8]) -> Vec<u8> {
    let mut out = b"LOAEVOCK".to_vec();
    out.extend_from_slice(&version.to_le_bytes());
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(&crc32fast::hash(payload).to_le_bytes());
    out.extend_from_slice(payload);
    out
}

/// Old files that are not what their format wrote are refused, naming the file and the part.
#[test]
fn old_files_that_are_not_what_their_format_wrote_are_refused_by_name() {
    let payload = |name: &str| std::fs::read(data(name)).unwrap()[24..].to_vec();
    let refused = |version: u32, payload: &[u8], file: &str| {
        let err = RunState::decode(&rewrap(version, payload), Path::new(file)).unwrap_err().to_string();
        assert!(err.contains(file), "{err}");
        err
    };
    // Format 1 of (μ + λ) or ES came from a build whose settings format 2 changed.
    let mu = payload("7178a3b-mpl-steps-epoch-00001.ckpt");
    let err = refused(1, &mu, "old.ckpt");
    assert!(err.contains("format version 1") && err.contains("docs/checkpoints.md names the last"), "{err}");
    // Cut inside the hall of fame.
    let err = refused(2, &mu[..mu.len() - 100], "cut.ckpt");
    assert!(err.contains("scheme memory"), "{err}");
    // Format 6's bytes read as an older format misread the settings (one of them a string's
    // length of about 8 · 10^18 bytes, which the decoding bound refuses without allocating).
    let adam = payload("7178a3b-es-adam-epoch-00001.ckpt");
    for old in [2, 3, 4, 5] {
        let err = refused(old, &adam, "es.ckpt");
        assert!(err.contains("cannot decode") || err.contains("configuration"), "format {old}: {err}");
    }
    // Cut inside Adam's moments.
    let err = refused(6, &adam[..adam.len() - 100], "moments.ckpt");
    assert!(err.contains("Adam's moments"), "{err}");
    // (μ + λ) was never written in format 3.
    let err = refused(3, &mu, "mu.ckpt");
    assert!(err.contains("format-3 file holding a mu-plus-lambda run"), "{err}");
}
