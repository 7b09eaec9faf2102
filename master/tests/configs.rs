//! Every run configuration and network committed under `experiments/` loads with this build,
//! so the commands in the experiments' READMEs work as written.

use loa_master::config::ExperimentConfig;
use std::path::Path;

#[test]
fn committed_run_configurations_are_valid() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../experiments");
    let mut paths = Vec::new();
    for dir in ["evolve", "evolve/seeds", "evolve/results"] {
        for entry in std::fs::read_dir(root.join(dir)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "toml") {
                paths.push(path);
            }
        }
    }
    // The seeded comparison keeps each run's configuration, to replay it (seeds-eval.sh).
    let mut kept = 0;
    for entry in std::fs::read_dir(root.join("evolve/results/seeds")).unwrap() {
        let path = entry.unwrap().path().join("config.toml");
        if path.exists() {
            paths.push(path);
            kept += 1;
        }
    }
    for path in &paths {
        let config = ExperimentConfig::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        loa_master::selection::build(&config).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
    loa_master::selection::build(&ExperimentConfig::read(&root.join("thesis.toml")).unwrap()).unwrap();
    assert!(paths.len() >= 11, "only {} configurations found", paths.len());
    assert!(kept >= 8, "only {kept} kept runs' configurations found");
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
            assert_eq!(net.weights().len(), 2041, "{}", path.display());
            loaded += 1;
        }
    }
    assert!(loaded >= 11, "only {loaded} networks found");
}
