//! docs/first-experiment.md, run as written: its commands, in a directory laid out as the
//! repository is (`experiments/quick.toml`, `target/release/` holding the binaries), then what
//! each was to leave behind.
//!
//! `loa` and `analysis` are other packages' binaries: the test takes them from beside this
//! package's `master`, where a build of the workspace puts them.

use loa_records::{MatchLine, RunDir, jsonl};
use std::path::Path;
use std::process::Command;

const DOC: &str = include_str!("../../docs/first-experiment.md");

/// The page's shell block.
fn commands() -> &'static str {
    let block = DOC.split("```sh\n").nth(1).and_then(|b| b.split("\n```").next());
    block.expect("docs/first-experiment.md has a ```sh block")
}

#[test]
fn the_first_experiment_runs_as_written() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let bin = root.join("target/release");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::create_dir_all(root.join("experiments")).unwrap();
    std::fs::copy(
        concat!(env!("CARGO_MANIFEST_DIR"), "/../experiments/quick.toml"),
        root.join("experiments/quick.toml"),
    )
    .unwrap();
    let master = Path::new(env!("CARGO_BIN_EXE_master"));
    for name in ["master", "loa", "analysis"] {
        let built = master.with_file_name(name);
        assert!(built.exists(), "{} is not built: `cargo build --release` builds every binary", built.display());
        std::os::unix::fs::symlink(&built, bin.join(name)).unwrap();
    }
    let o = Command::new("bash").args(["-euo", "pipefail", "-c", commands()]).current_dir(root).output().unwrap();
    let (out, err) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert!(o.status.success(), "{out}\n{err}");
    // Both runs finished their 3 epochs; the ES run with its scheme, the other without.
    for (run, es) in [("runs/first-ga", false), ("runs/first-es", true)] {
        let epochs = jsonl::read::<loa_records::EpochReport>(&RunDir::new(root.join(run)).epochs()).unwrap();
        assert_eq!(epochs.records.last().map(|e| e.epoch), Some(3), "{run}");
        let config = std::fs::read_to_string(root.join(run).join("config.toml")).unwrap();
        assert_eq!(config.contains("[selection.scheme.evolution-strategies]"), es, "{run}: {config}");
    }
    assert!(out.contains("run runs/first-es: seed 1, population 24, scheme evolution-strategies"), "{out}");
    // The exported network played 20 games from seeded openings, each with its moves.
    loa_engine::network::Chromosome::read(root.join("first-es.json")).unwrap();
    let lines = jsonl::read::<MatchLine>(&root.join("first-es-aloa.jsonl")).unwrap().records;
    let games: Vec<_> = lines.iter().filter_map(|l| if let MatchLine::Game(g) = l { Some(g) } else { None }).collect();
    assert_eq!(games.len(), 20);
    assert!(games.iter().all(|g| g.moves.len() as u32 == g.plies), "every game has its moves");
    assert!(games.windows(3).any(|w| w[0].start != w[2].start), "pairs start from different openings");
    assert!(!err.contains("warning"), "seeded openings draw no warning: {err}");
    assert!(out.contains("result: ") && out.contains("  1. "), "the replay: {out}");
    for file in ["first-compare/compare.md", "first-es-report/report.md", "first-es-csv/epochs.csv"] {
        assert!(root.join(file).exists(), "{file}");
    }
    let compare = std::fs::read_to_string(root.join("first-compare/compare.md")).unwrap();
    assert!(compare.contains("too few epochs") && !compare.contains("rising"), "{compare}");
}
