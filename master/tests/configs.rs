//! Every run configuration committed under `experiments/` parses and validates with this build,
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
                ExperimentConfig::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                checked += 1;
            }
        }
    }
    ExperimentConfig::read(&root.join("thesis.toml")).unwrap();
    assert!(checked >= 7, "only {checked} configurations found");
}
