//! Every run configuration and network committed under `experiments/` loads with this build,
//! so the commands in the experiments' READMEs work as written.

use loa_master::config::ExperimentConfig;
use loa_records::ValidationRecord;
use std::path::Path;

/// Where the seeded comparisons keep their runs (a directory each: configuration and curve).
const KEPT: [&str; 2] = ["evolve/results/seeds", "td/results/seeds"];

#[test]
fn committed_run_configurations_are_valid() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../experiments");
    let mut paths = Vec::new();
    for dir in ["evolve", "evolve/seeds", "evolve/results", "td"] {
        for entry in std::fs::read_dir(root.join(dir)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "toml") {
                paths.push(path);
            }
        }
    }
    // The seeded comparisons keep each run's configuration, to replay it (seeds-eval.sh).
    let mut kept = 0;
    for dir in KEPT {
        for entry in std::fs::read_dir(root.join(dir)).unwrap() {
            let path = entry.unwrap().path().join("config.toml");
            if path.exists() {
                paths.push(path);
                kept += 1;
            }
        }
    }
    for path in &paths {
        let config = ExperimentConfig::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        loa_master::selection::build(&config).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
    loa_master::selection::build(&ExperimentConfig::read(&root.join("thesis.toml")).unwrap()).unwrap();
    assert!(paths.len() >= 11, "only {} configurations found", paths.len());
    assert!(kept >= 18, "only {kept} kept runs' configurations found");
}

/// Every kept run has its learning curve, and the curve belongs to the configuration beside it:
/// its validations are that configuration's (opponents, matches, every `every` epochs from 0 up
/// to its `epochs`, the epoch its budget stopped it at), with nothing torn. The chart of the
/// seeded comparison is drawn from these files alone.
#[test]
fn kept_learning_curves_match_their_configurations() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../experiments");
    let mut curves = 0;
    for entry in KEPT.iter().flat_map(|dir| std::fs::read_dir(root.join(dir)).unwrap()) {
        let dir = entry.unwrap().path();
        if !dir.is_dir() {
            continue;
        }
        let curve = dir.join("validation.jsonl");
        assert!(curve.exists(), "{}: a kept run without its learning curve", dir.display());
        let config = ExperimentConfig::read(&dir.join("config.toml")).unwrap();
        let validation = config.validation.as_ref().unwrap_or_else(|| panic!("{}: no [validation]", dir.display()));
        let lines = loa_records::jsonl::read::<ValidationRecord>(&curve).unwrap();
        assert_eq!(lines.torn, None, "{}", curve.display());
        let opponents = validation.opponents.len();
        let epochs: Vec<u32> = lines.records.iter().step_by(opponents).map(|r| r.epoch).collect();
        let expected: Vec<u32> = (0..=config.epochs).step_by(validation.every as usize).collect();
        assert_eq!(epochs, expected, "{}: validated epochs", curve.display());
        for (i, record) in lines.records.iter().enumerate() {
            assert_eq!(record.opponent, validation.opponents[i % opponents], "{}", curve.display());
            assert_eq!(record.matches, validation.matches, "{}", curve.display());
            assert_eq!(record.wins + record.losses + record.ties, record.matches, "{}", curve.display());
        }
        curves += 1;
    }
    // Three seeds of each of the four evolution methods and of the two TD networks.
    assert!(curves >= 18, "only {curves} kept learning curves found");
}

#[test]
fn committed_networks_load() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../experiments/nets");
    let mut loaded = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "json") {
            let net =
                loa_engine::network::Chromosome::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            // The thesis's 2041; any other shape as its layers count: (inputs + 1) · units each.
            let t = net.topology();
            let layers: usize = (0..=t.layer_count()).map(|l| t.layer_size(l)).map(|(i, u)| (i + 1) * u).sum();
            assert_eq!(net.weights().len(), layers, "{}", path.display());
            if t == loa_engine::network::Topology::THESIS {
                assert_eq!(layers, 2041, "{}", path.display());
            }
            loaded += 1;
        }
    }
    assert!(loaded >= 11, "only {loaded} networks found");
}
