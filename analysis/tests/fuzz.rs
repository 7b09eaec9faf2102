//! Randomised input testing of the run configuration `analysis` reads from a run directory:
//! mutated real configurations and arbitrary text must parse or be refused with a message,
//! within time and memory bounds (`../engine/tests/support/fuzz.rs`). (The metrics lines it
//! reads are tested where they are parsed, in `loa-records`.)

#[path = "../../engine/tests/support/fuzz.rs"]
mod fuzz;

use fuzz::{Decoder, inputs};
use loa_analysis::RunConfig;
use std::path::Path;

#[test]
fn run_configurations() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let seeds: Vec<Vec<u8>> = ["tests/data/quick/config.toml", "../experiments/quick.toml", "../experiments/e1.toml"]
        .iter()
        .map(|p| std::fs::read(root.join(p)).expect("a configuration"))
        .collect();
    let toml = "([a-z_]{1,12} = ([0-9.e-]{1,12}|\"[a-z:0-9]{0,10}\"|true)\n|\\[[a-z.\\-]{1,20}\\]\n){0,8}";
    Decoder::new("analysis: run config toml").check(inputs(seeds, toml), |bytes| {
        RunConfig::parse(&String::from_utf8_lossy(bytes), Path::new("config.toml"))
            .map(drop)
            .map_err(|e| fuzz::message(&e))
    });
}
