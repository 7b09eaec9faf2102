//! Chromosome caching through the whole cluster path: runs with cached chromosomes,
//! with a worker that lacks what the master believes it holds (so it must fetch), and with a
//! one-chromosome cache all give the checkpoints of an embedded run, byte for byte; the master
//! sends ids only for what a worker's cache holds, serves fetches from open tasks only, and
//! bounds them.

use loa_engine::network::{Chromosome, random_uniform};
use loa_master::cluster::{self, ClusterOptions};
use loa_master::scheduler::Scheduler;
use loa_proto::convert::{id_from_proto, id_to_proto};
use loa_proto::pb;
use loa_worker::{WorkerOptions, WorkerReport, spawn};
use std::sync::Arc;
use std::time::Duration;
use tonic::Code;

mod common;
use common::*;

/// A cluster run of `config` into `out` with one worker whose cache keeps `kept` chromosomes and
/// announces `announced`; the worker's report.
fn run_with_cache(
    config: &loa_master::config::ExperimentConfig,
    out: &std::path::Path,
    kept: usize,
    announced: usize,
) -> WorkerReport {
    let m = master(config, out, Duration::from_secs(5));
    let mut options = WorkerOptions::new(format!("http://{}", m.addr));
    options.slots = 1;
    options.token = Some(TOKEN.into());
    options.name = format!("cache-{kept}-{announced}");
    options.max_backoff = Duration::from_millis(200);
    options.chromosome_cache = kept;
    options.announced_cache = Some(announced);
    let worker = spawn(options).unwrap();
    m.thread.join().unwrap();
    worker.stop().unwrap()
}

#[test]
fn cached_fetched_and_one_chromosome_caches_give_the_checkpoints_of_an_embedded_run() {
    let tmp = tempfile::tempdir().unwrap();
    let config = tiny(2, 1);
    let reference = tmp.path().join("embedded");
    embedded(&config, &reference);

    // One worker plays every task, so every survivor and benchmarked network comes back to it.
    let cached = tmp.path().join("cached");
    let r = run_with_cache(&config, &cached, 4096, 4096);
    same_run(&reference, &cached, 2);
    assert!(r.cache_hits > 0 && r.fetched == 0 && r.abandoned == 0, "{r:?}");
    // 4 generations of 4 knockouts of 4, and 3 benchmarks of 4 networks.
    assert_eq!(r.received + r.cache_hits + r.made, 64 + 12, "{r:?}");

    // A worker that keeps nothing but announces a cache (as after losing lease replies): every
    // network sent by id is fetched, and the run is the same.
    let fetched = tmp.path().join("fetched");
    let r = run_with_cache(&config, &fetched, 0, 4096);
    same_run(&reference, &fetched, 2);
    assert!(r.cache_hits == 0 && r.fetched > 0 && r.abandoned == 0, "{r:?}");
    // (A network named twice in one lease reply is fetched once.)
    assert!(r.received + r.fetched <= 64 + 12 && r.received < 64 + 12, "{r:?}");

    // A one-chromosome cache, announced as it is: the master's mirror is exact, so nothing is
    // ever fetched.
    let tiny_cache = tmp.path().join("tiny");
    let r = run_with_cache(&config, &tiny_cache, 1, 1);
    same_run(&reference, &tiny_cache, 2);
    assert!(r.fetched == 0 && r.abandoned == 0, "{r:?}");
}

/// Each network of a leased task: `Some(weights)` if sent with them, `None` if by id alone; and
/// the ids.
fn networks(task: &pb::Task) -> Vec<(Option<Vec<f32>>, loa_engine::network::ChromosomeId)> {
    task.entrants
        .iter()
        .filter_map(|e| match &e.kind {
            Some(pb::match_entrant::Kind::Network(n)) => {
                let weights: Vec<f32> =
                    n.weights.chunks_exact(4).map(|b| f32::from_le_bytes(b.try_into().unwrap())).collect();
                let weights = (!weights.is_empty()).then_some(weights);
                Some((weights, id_from_proto(n.id.as_ref().expect("every network carries its id"))))
            }
            _ => None,
        })
        .collect()
}

/// Asks for one more task on `stream` and takes it.
async fn lease_one(stream: &mut RawStream) -> pb::Task {
    stream.send(pb::WorkerMessage { want: 1, ..Default::default() }).await;
    stream.tasks(1).await.remove(0)
}

#[test]
fn the_master_sends_ids_for_what_a_cache_holds_and_serves_fetches_from_open_tasks() {
    let scheduler = Arc::new(Scheduler::new(Duration::from_secs(30)));
    let server = cluster::serve(&scheduler, &ClusterOptions::new("127.0.0.1:0".parse().unwrap(), None)).unwrap();
    scheduler.submit(vec![
        (0, knockout([1, 2, 3, 4])),
        (1, knockout([1, 5, 6, 7])),
        (2, knockout([8, 5, 9, 10])),
        (3, knockout([1, 2, 3, 4])),
    ]);
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let mut client = raw(server.addr(), None).await;
        let mut cached = RawStream::register(&mut client, registration("cached", 2), 0).await;
        // A cache of 2: task 0 with weights (keeping 3 and 4); task 1 then needs all of its own
        // (1 was evicted) and keeps 6 and 7.
        let t0 = lease_one(&mut cached).await;
        assert!(networks(&t0).iter().all(|(w, _)| w.is_some()));
        assert_eq!(networks(&t0)[0].0.as_deref(), Some(random_uniform(1).weights()));
        let t1 = lease_one(&mut cached).await;
        assert!(networks(&t1).iter().all(|(w, _)| w.is_some()));
        // Task 2 names 5 again: evicted too. A worker that keeps nothing leases task 3: weights.
        let t2 = lease_one(&mut cached).await;
        assert_eq!(networks(&t2).iter().filter(|(w, _)| w.is_none()).count(), 0);
        let mut plain = RawStream::register(&mut client, registration("plain", 0), 0).await;
        let t3 = lease_one(&mut plain).await;
        assert!(networks(&t3).iter().all(|(w, _)| w.is_some()));
        assert_eq!(networks(&t3)[0].1, random_uniform(1).id());
        assert_eq!(networks(&t3)[0].0.as_deref(), Some(random_uniform(1).weights()));

        // Fetches: from an open task, what it names; nothing it does not name; nothing from a
        // task whose outcome is in.
        let fetch = |tasks: Vec<u64>, ids: Vec<&Chromosome>| pb::FetchChromosomesRequest {
            task_ids: tasks,
            ids: ids.iter().map(|c| id_to_proto(c.id())).collect(),
        };
        let (one, two, eight) = (random_uniform(1), random_uniform(2), random_uniform(8));
        let reply = client.fetch_chromosomes(fetch(vec![0, 2], vec![&one, &eight, &two])).await.unwrap().into_inner();
        let got: Vec<_> = reply
            .chromosomes
            .into_iter()
            .map(|e| {
                let id = e.id.as_ref().map(id_from_proto);
                (loa_proto::convert::chromosome_from_proto("fetched", e).unwrap().weights().to_vec(), id)
            })
            .collect();
        assert_eq!(got.len(), 3);
        for c in [&one, &two, &eight] {
            assert!(got.contains(&(c.weights().to_vec(), Some(c.id()))), "{} missing", c.id());
        }
        let reply = client.fetch_chromosomes(fetch(vec![1], vec![&eight])).await.unwrap().into_inner();
        assert!(reply.chromosomes.is_empty());
        let outcome = knockout([1, 2, 3, 4]).run().unwrap();
        let receipt = cached.deliver(vec![loa_proto::convert::outcome_to_proto(0, &Ok(outcome), 0)], 0).await.unwrap();
        assert_eq!(receipt.accepted, 1);
        let reply = client.fetch_chromosomes(fetch(vec![0], vec![&one, &two])).await.unwrap().into_inner();
        assert!(reply.chromosomes.is_empty(), "task 0 is done");
        // Too many tasks for one call: refused.
        let err = client.fetch_chromosomes(fetch((0..65).collect(), vec![&one])).await.unwrap_err();
        assert_eq!(err.code(), Code::InvalidArgument, "{err:?}");
    });
    let counters = server.counters();
    assert_eq!(counters.fetched.load(std::sync::atomic::Ordering::Relaxed), 3);
    scheduler.close();
    server.shutdown();
}

#[test]
fn a_cache_large_enough_gets_repeated_networks_by_id() {
    let scheduler = Arc::new(Scheduler::new(Duration::from_secs(30)));
    let server = cluster::serve(&scheduler, &ClusterOptions::new("127.0.0.1:0".parse().unwrap(), None)).unwrap();
    scheduler.submit(vec![(0, knockout([1, 2, 3, 4])), (1, knockout([4, 5, 1, 6]))]);
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let mut client = raw(server.addr(), None).await;
        let mut stream = RawStream::register(&mut client, registration("raw", 4096), 2).await;
        let tasks = stream.tasks(2).await;
        let sent: Vec<bool> = tasks.iter().flat_map(networks).map(|(w, _)| w.is_some()).collect();
        // 4 and 1 come again in the second task of the same message: by id.
        assert_eq!(sent, [true, true, true, true, false, true, false, true]);
    });
    let counters = server.counters();
    assert_eq!(counters.sent_by_id.load(std::sync::atomic::Ordering::Relaxed), 2);
    assert_eq!(counters.sent_with_weights.load(std::sync::atomic::Ordering::Relaxed), 6);
    scheduler.close();
    server.shutdown();
}
