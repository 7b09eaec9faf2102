//! Pins the bytes of a short run's checkpoints for the thesis scheme, as computed on main before
//! the reshaping of issue 9 (commit fdaa0b0): any change to breeding, task seeds, the games or the
//! checkpoint encoding shows up here as a different digest. If a change of results is intended,
//! say so in the commit and update the digests.

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
