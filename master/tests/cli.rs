//! The `master` command: clear one-line errors for bad flags and files, and a tiny run end to end.

use std::process::{Command, Output};

fn master(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_master")).args(args).output().expect("run master")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn bad_configs_are_named_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("c.toml");
    let out = dir.path().join("run");
    for (text, expected) in [
        ("populaton = 4", "populaton"),
        ("[mutation]\nprobability = 2.0", "`mutation.probability`"),
        ("population = \"four\"", "population"),
    ] {
        std::fs::write(&config, text).unwrap();
        let o = master(&["run", "--config", config.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"]);
        let err = stderr(&o);
        assert!(!o.status.success() && err.contains(expected), "{text}: {err}");
        assert!(!err.contains("panicked"), "{err}");
        assert!(!out.exists(), "a rejected configuration creates no run directory");
    }
    let o = master(&["resume", dir.path().join("nothing").to_str().unwrap(), "--quiet"]);
    assert!(stderr(&o).contains("no checkpoint"), "{}", stderr(&o));
    let o = master(&["run", "--config", config.to_str().unwrap(), "--out", out.to_str().unwrap(), "--token", "x"]);
    assert!(!o.status.success(), "--token needs --listen");
}

#[test]
fn a_tiny_run_then_export_prints_a_chromosome() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("tiny.toml");
    std::fs::write(
        &config,
        "seed = 3\nepochs = 1\npopulation = 4\ngenerations_per_epoch = 1\nnetwork_depth = 1\n\
         [benchmark]\ndepth = 1\n[rules]\nply_cap = 30\n",
    )
    .unwrap();
    let out = dir.path().join("run");
    let o = master(&["run", "--config", config.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("finished at epoch 1 (generation 1)"));
    let o = master(&["export", out.to_str().unwrap(), "--epoch", "1", "--individual", "0"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let chromosome = loa_engine::network::Chromosome::from_json(&String::from_utf8_lossy(&o.stdout)).unwrap();
    assert_eq!(chromosome.weights().len(), 2041);
}
