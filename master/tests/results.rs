//! Pins what runs compute, independently of how checkpoints store it: for short runs of the
//! thesis's knockout, (μ + λ) and evolution strategies, the digest of every epoch's survivors
//! (as `master export` writes them), of `generations.jsonl` and `epochs.jsonl` without their
//! timing fields, and of a match experiment's game file over a run's survivors.
//!
//! The digests were computed before the protocol, checkpoint and scheme code was reshaped
//! (commit 7178a3b) and must not change unless a change of results is intended and said so.

use loa_master::config::ExperimentConfig;
use loa_master::run::{RunDir, RunOptions, start};
use std::path::Path;

/// FNV-1a, 64 bits: a fixed, dependency-free digest.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3))
}

/// Fields that measure the machine rather than the run.
const TIMING: [&str; 4] = ["seconds", "games_per_second", "workers", "worker_detail"];

/// A metrics file's lines with the timing fields removed, re-serialised.
fn without_timing(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    let mut out = String::new();
    for line in text.lines() {
        let mut value: serde_json::Value = serde_json::from_str(line).unwrap();
        if let Some(map) = value.as_object_mut() {
            for key in TIMING {
                map.remove(key);
            }
        }
        out.push_str(&value.to_string());
        out.push('\n');
    }
    out
}

/// The digests of a run of `config` on `threads` embedded workers: survivors of every epoch,
/// `generations.jsonl`, `epochs.jsonl` (each without timing).
fn run_digests(config: &str, threads: usize) -> [String; 3] {
    let config = ExperimentConfig::from_toml(config).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run");
    start(config.clone(), &out, &RunOptions::embedded(threads)).unwrap();
    let dir = RunDir::new(&out);
    let mut survivors = String::new();
    for epoch in 0..=config.epochs {
        for index in 0.. {
            match loa_master::run::export(&out, epoch, loa_master::run::Pick::Index(index)) {
                Ok(exported) => survivors.push_str(&exported.json),
                Err(_) => break,
            }
        }
    }
    let hex = |bytes: &[u8]| format!("{:016x}", fnv1a(bytes));
    [
        hex(survivors.as_bytes()),
        hex(without_timing(&dir.generations()).as_bytes()),
        hex(without_timing(&dir.epochs()).as_bytes()),
    ]
}

const KNOCKOUT: &str = "seed = 20261127\nepochs = 2\npopulation = 6\ngenerations_per_epoch = 2\n\
    network_depth = 2\n[benchmark]\ndepth = 2\n[rules]\nply_cap = 60\n";

/// Self-adaptive steps, per-neuron crossover, a ladder, a fixed opponent and a hall of fame.
const MU_PLUS_LAMBDA: &str = "seed = 5\nepochs = 2\npopulation = 4\ngenerations_per_epoch = 2\n\
    network_depth = 1\n[benchmark]\nreference = \"random\"\ndepth = 1\n[rules]\nply_cap = 40\n\
    [mutation]\nprobability = 0.5\n[mutation.operator.self-adaptive]\nsigma = 0.05\ntau = 0.1\n\
    [crossover]\noperator = \"per-neuron\"\n\
    [selection.scheme.mu-plus-lambda]\noffspring = 1\nopponents = 2\nfixed_opponents = [\"random:1\"]\n\
    fixed_matches = 2\nopening_plies = 2\nhall_of_fame = 1\nladder = [\"random:1:3\", \"aloa:1\"]\n\
    promote_at = 0.3\nfitness = \"benchmark-score\"\n";

/// Equivariant tying, Adam, both half-lives, weight decay, a ladder and a hall of fame.
const EVOLUTION_STRATEGIES: &str = "seed = 6\nepochs = 2\npopulation = 6\ngenerations_per_epoch = 2\n\
    network_depth = 1\n[benchmark]\nreference = \"aloa\"\ndepth = 1\n[rules]\nply_cap = 40\n\
    [selection.scheme.evolution-strategies]\nsigma = 0.1\nlearning_rate = 0.05\nopponents = 1\n\
    fixed_matches = 2\nopening_plies = 2\nhall_of_fame = 1\nladder = [\"random:1\", \"aloa:1\"]\n\
    promote_at = 0.3\nfitness = \"benchmark-score\"\nsymmetry = \"equivariant\"\noptimizer = \"adam\"\n\
    learning_rate_half_life = 3\nsigma_half_life = 5\nweight_decay = 0.01\n";

#[test]
fn a_knockout_run_computes_the_pinned_results() {
    let found = run_digests(KNOCKOUT, 2);
    assert_eq!(found, ["9f588f87c67872b8", "39abc63cd12a27cb", "633838a37e4806ac"]);
}

#[test]
fn a_mu_plus_lambda_run_computes_the_pinned_results() {
    let found = run_digests(MU_PLUS_LAMBDA, 1);
    assert_eq!(found, ["562646a004050db8", "b6aa27e934de82bb", "060a3aa6a17f0577"]);
}

#[test]
fn an_evolution_strategies_run_computes_the_pinned_results() {
    let found = run_digests(EVOLUTION_STRATEGIES, 3);
    assert_eq!(found, ["135e97fb35496f77", "3c8b756ca6f1f914", "e227a9b0ddfdfea6"]);
}

/// A match experiment over a run's survivors of both epochs, against a fixed player and the
/// survivors of another epoch: its game files.
#[test]
fn a_match_experiment_writes_the_pinned_game_files() {
    use loa_master::experiment::{ExperimentOptions, MatchExperiment, epoch_path, run};
    let tmp = tempfile::tempdir().unwrap();
    let run_dir = tmp.path().join("run");
    start(ExperimentConfig::from_toml(KNOCKOUT).unwrap(), &run_dir, &RunOptions::embedded(2)).unwrap();
    let config = MatchExperiment::from_toml(&format!(
        "a = \"run:1:{}:epochs=0-2\"\nb = \"aloa:1\"\nmatches = 2\nswap_colours = true\nopening_plies = 2\n\
         seed = 3\n[rules]\nply_cap = 40\n",
        run_dir.display()
    ))
    .unwrap();
    let out = tmp.path().join("e.jsonl");
    run(&config, &out, &ExperimentOptions::embedded(2)).unwrap();
    // The player names hold the run's path, which is a fresh temporary directory each time.
    let mut all = String::new();
    for epoch in 0..=2 {
        all.push_str(&std::fs::read_to_string(epoch_path(&out, epoch)).unwrap());
    }
    let all = all.replace(&run_dir.display().to_string(), "RUN");
    assert_eq!(format!("{:016x}", fnv1a(all.as_bytes())), "3d543a4661301a34");
}
