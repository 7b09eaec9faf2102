//! Networks sent as their origins and fetched from peers, through the whole cluster
//! path: workers that make new networks from their parents, and workers that serve each other
//! the chromosomes they hold, write the checkpoints of an embedded run byte for byte, also when
//! a serving worker dies mid-run; the master counts what it sent how.

use loa_master::run::RunDir;
use loa_worker::{WorkerOptions, WorkerReport, spawn};
use std::time::Duration;

mod common;
use common::*;

/// The numbers in the run log's cluster summary: networks sent by id, by origin, from peers,
/// with weights, and fetched.
fn sent(out: &std::path::Path) -> [u64; 5] {
    let log = String::from_utf8(read(&RunDir::new(out).log())).unwrap();
    let line = log.lines().find(|l| l.contains("cluster:")).unwrap_or_else(|| panic!("no summary: {log}"));
    let count = |suffix: &str| -> u64 {
        let before = line.split(suffix).next().unwrap_or_else(|| panic!("{suffix:?} in {line}"));
        before.rsplit(' ').next().and_then(|n| n.parse().ok()).unwrap_or_else(|| panic!("{suffix:?} in {line}"))
    };
    [count(" by id"), count(" by origin"), count(" from peers"), count(" with weights"), count(" fetched")]
}

fn options(m: &Master, name: &str) -> WorkerOptions {
    worker_options(&format!("http://{}", m.addr), name, TOKEN, None)
}

#[test]
fn a_worker_makes_new_networks_from_their_origins_and_the_run_is_the_same() {
    let (_tmp, reference, cluster) = dirs();
    let config = tiny(2, 1);
    embedded(&config, &reference);
    let m = master(&config, &cluster, Duration::from_secs(5));
    let w = spawn(options(&m, "maker")).unwrap();
    m.thread.join().unwrap();
    let r = w.stop().unwrap();
    same_run(&reference, &cluster, 2);
    // One worker plays every task, so it holds every survivor, the parents of every new network:
    // 4 generations of 4 knockouts of 4, and 3 benchmarks of 4 networks. Only the first
    // population (read back from its checkpoint, which keeps weights, not origins) comes with
    // weights.
    assert_eq!(r.received + r.cache_hits + r.made, 64 + 12, "{r:?}");
    assert_eq!(r.received, 4, "{r:?}");
    // Of the 48 new networks, all but those equal to one seen before are made: crossing a
    // survivor with its own earlier child, at a cut before that child's, gives the child again,
    // which the cache holds.
    assert!(r.made >= 44, "{r:?}");
    assert_eq!((r.fetched, r.unusable, r.from_peers, r.peer_misses), (0, 0, 0, 0), "{r:?}");
    assert_eq!(sent(&cluster), [r.cache_hits, r.made, 0, 4, 0]);
}

/// A cluster run of `config` into `out` with `n` single-slot workers serving peers on loopback,
/// worker `i`'s options changed by `change(i, ...)`; with `kill`, the first worker is killed once
/// the first epoch is done.
fn run_with_peers(
    config: &loa_master::config::ExperimentConfig,
    out: &std::path::Path,
    n: usize,
    kill: bool,
    change: impl Fn(usize, &mut WorkerOptions),
) -> Vec<WorkerReport> {
    let m = master(config, out, Duration::from_secs(2));
    let mut workers: Vec<_> = (0..n)
        .map(|i| {
            let mut o = options(&m, &format!("peer-{i}"));
            o.peer_listen = Some("127.0.0.1:0".parse().unwrap());
            change(i, &mut o);
            spawn(o).unwrap()
        })
        .collect();
    if kill {
        let epochs = RunDir::new(out).epochs();
        let started = std::time::Instant::now();
        while !epochs.exists() || std::fs::read_to_string(&epochs).unwrap_or_default().lines().count() < 2 {
            assert!(started.elapsed() < Duration::from_secs(60), "no progress");
            std::thread::sleep(Duration::from_millis(5));
        }
        workers.remove(0).kill().unwrap();
    }
    m.thread.join().unwrap();
    workers.into_iter().map(|w| w.stop().unwrap()).collect()
}

fn peer_config() -> loa_master::config::ExperimentConfig {
    let mut config = tiny(3, 1);
    config.population = 12;
    config
}

#[test]
fn workers_serving_each_other_parents_give_the_checkpoints_of_an_embedded_run() {
    let (_tmp, reference, cluster) = dirs();
    let config = peer_config();
    embedded(&config, &reference);
    let reports = run_with_peers(&config, &cluster, 4, false, |_, _| {});
    same_run(&reference, &cluster, 3);
    let total = |f: fn(&WorkerReport) -> u64| reports.iter().map(f).sum::<u64>();
    let [by_id, by_origin, from_peers, with_weights, fetched] = sent(&cluster);
    // 6 generations of 12 knockouts of 4, and 4 benchmarks of 12.
    assert_eq!(by_id + by_origin + from_peers + with_weights, 6 * 12 * 4 + 4 * 12, "{:?}", sent(&cluster));
    // Only the first population comes with weights. Every new network (6 × 12 × 3) goes as its
    // origin (but for one now and then equal to a network seen before, which goes by id), and
    // is made from parents the worker holds or fetches from peers.
    assert_eq!(with_weights, 12, "{:?}", sent(&cluster));
    let made = total(|r| r.made);
    assert!(by_origin + 4 >= 6 * 12 * 3 && made <= by_origin && made + total(|r| r.fetched) + 4 >= by_origin);
    assert!(from_peers > 0 && total(|r| r.from_peers) >= from_peers, "{reports:?}");
    // A worker asks the master only after a peer failed it; nothing made a wrong chromosome.
    assert!(fetched == 0 || total(|r| r.peer_misses) > 0, "{reports:?}");
    assert_eq!(total(|r| r.unusable), 0, "{reports:?}");
}

#[test]
fn a_serving_worker_that_dies_is_no_source_any_more() {
    let (_tmp, reference, cluster) = dirs();
    let config = peer_config();
    embedded(&config, &reference);
    let reports = run_with_peers(&config, &cluster, 3, true, |_, _| {});
    same_run(&reference, &cluster, 3);
    // Its stream broke, so the master dropped it and named it no more.
    assert!(reports.iter().all(|r| r.accepted > 0 && r.unusable == 0), "{reports:?}");
}

#[test]
fn a_peer_nobody_can_reach_costs_fetches_not_results() {
    let (_tmp, reference, cluster) = dirs();
    let config = peer_config();
    embedded(&config, &reference);
    // Every worker announces a host its service does not listen on (127.0.0.2, while it listens
    // on 127.0.0.1): registered as sources, every fetch from a peer fails. With one such worker
    // among reachable ones, whether anyone ever asks it depends on which worker holds which
    // parent, so a run could pass without a single miss.
    let reports = run_with_peers(&config, &cluster, 3, false, |_, o| {
        o.peer_host = Some("127.0.0.2".into());
    });
    same_run(&reference, &cluster, 3);
    let total = |f: fn(&WorkerReport) -> u64| reports.iter().map(f).sum::<u64>();
    assert!(total(|r| r.peer_misses) > 0 && total(|r| r.fetched) > 0, "{reports:?}");
    assert_eq!(total(|r| r.unusable), 0, "{reports:?}");
}

#[test]
fn peer_services_are_registered_checked_and_given_one_token() {
    use loa_master::cluster::{self, ClusterOptions};
    use loa_master::scheduler::Scheduler;
    use loa_proto::pb;
    use std::sync::Arc;
    use tonic::Code;
    let scheduler = Arc::new(Scheduler::new(Duration::from_secs(30)));
    let server = cluster::serve(&scheduler, &ClusterOptions::new("127.0.0.1:0".parse().unwrap(), None)).unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let mut client = raw(server.addr, None).await;
        let register = |port: u32, host: &str| pb::RegisterRequest {
            peer_port: port,
            peer_host: host.into(),
            ..registration("peer", 16)
        };
        for (port, host, field) in [
            (0, "node-1", "peer_host: given without a peer_port"),
            (70_000, "", "peer_port: 70000 is not a port"),
            (5, "bad host", "peer_host: \"bad host:5\" is not host:port"),
        ] {
            let refused = client.register(register(port, host)).await.unwrap_err();
            assert_eq!(refused.code(), Code::InvalidArgument, "{refused:?}");
            assert!(refused.message().starts_with(field), "{refused:?}");
        }
        assert_eq!(scheduler.workers().len(), 0, "a refused registration registers nothing");
        // One token a master process, 128 random bits, the same for every worker.
        let a = client.register(register(5, "")).await.unwrap().into_inner().peer_token;
        let b = client.register(register(0, "")).await.unwrap().into_inner().peer_token;
        assert!(a.len() == 32 && a.chars().all(|c| c.is_ascii_hexdigit()) && a == b, "{a} {b}");
    });
}
