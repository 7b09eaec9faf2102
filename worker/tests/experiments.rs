//! A match experiment played by remote workers writes the file an embedded run writes.

mod common;
use common::*;

use loa_master::cluster::ClusterOptions;
use loa_master::experiment::{ExperimentOptions, MatchExperiment, run};
use std::sync::Arc;
use std::time::{Duration, Instant};

#[test]
fn remote_workers_write_the_file_of_an_embedded_experiment() {
    let tmp = tempfile::tempdir().unwrap();
    let config = MatchExperiment::from_toml(
        "a = \"randomann:1\"\nb = \"random:2\"\nmatches = 6\nseed = 3\nswap_colours = true\n\
         matches_per_task = 2\nopening_plies = 2\n[rules]\nply_cap = 40\n",
    )
    .unwrap();
    let embedded = tmp.path().join("embedded.jsonl");
    run(&config, &embedded, &ExperimentOptions::embedded(1)).unwrap();

    let cluster = ClusterOptions::new("127.0.0.1:0".parse().unwrap(), Some(TOKEN.into()));
    let bound = Arc::clone(&cluster.bound);
    let remote = tmp.path().join("remote.jsonl");
    let options = ExperimentOptions { cluster: Some(cluster), ..ExperimentOptions::embedded(0) };
    let (c, out) = (config.clone(), remote.clone());
    let master = std::thread::spawn(move || run(&c, &out, &options));
    let started = Instant::now();
    let addr = loop {
        if let Some(addr) = bound.get() {
            break *addr;
        }
        assert!(started.elapsed() < Duration::from_secs(10), "the master did not start listening");
        std::thread::sleep(Duration::from_millis(2));
    };
    let workers: Vec<_> = (0..2).map(|i| worker(addr, &format!("w{i}"), TOKEN)).collect();
    let report = master.join().unwrap().unwrap();
    for w in workers {
        let _ = w.stop();
    }
    assert_eq!(report.total.series.matches, 12);
    assert!(report.cluster.is_some());
    assert_eq!(read(&embedded), read(&remote));
}
