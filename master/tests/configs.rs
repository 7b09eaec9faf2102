//! Every run configuration and network committed under `experiments/` loads with this build,
//! so the commands in the experiments' READMEs work as written.

use loa_master::config::ExperimentConfig;
use std::path::Path;

#[test]
fn committed_run_configurations_are_valid() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../experiments");
    let mut checked = 0;
    for dir in ["evolve", "evolve/results"] {
        for entry in std::fs::read_dir(root.join(dir)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "toml") {
                let config = ExperimentConfig::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                loa_master::selection::build(&config).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                checked += 1;
            }
        }
    }
    loa_master::selection::build(&ExperimentConfig::read(&root.join("thesis.toml")).unwrap()).unwrap();
    assert!(checked >= 7, "only {checked} configurations found");
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
