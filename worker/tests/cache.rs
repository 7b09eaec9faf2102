//! Chromosome caching (issue 14) through the whole cluster path: runs with cached chromosomes,
//! with a worker that lacks what the master believes it holds (so it must fetch), and with a
//! one-chromosome cache all give the checkpoints of an embedded run, byte for byte; the master
//! sends ids only for what a worker's cache holds, serves fetches from open tasks only, and
//! bounds them.

use loa_engine::network::{Chromosome, random_uniform};
use loa_engine::tasks::Task;
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
    // Ids and weights only, as before origins (which worker/tests/origins.rs covers).
    options.origins = false;
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
    assert_eq!(r.received + r.cache_hits, 64 + 12, "{r:?}");

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
    let Some(pb::task::Kind::Match(m)) = &task.kind else { panic!("a match task") };
    m.entrants
        .iter()
        .filter_map(|e| match &e.kind {
            Some(pb::match_entrant::Kind::Network(n)) => {
                assert!(n.weights.is_empty() || n.weights_le.is_empty(), "one form only");
                let bytes: Vec<f32> =
                    n.weights_le.chunks_exact(4).map(|b| f32::from_le_bytes(b.try_into().unwrap())).collect();
                let weights =
                    if !n.weights.is_empty() { Some(n.weights.clone()) } else { (!bytes.is_empty()).then_some(bytes) };
                Some((weights, id_from_proto(n.id.as_ref().expect("every network carries its id"))))
            }
            _ => None,
        })
        .collect()
}

async fn lease_one(client: &mut Raw, worker: u64) -> pb::Task {
    let request = pb::LeaseRequest { worker_id: worker, max_tasks: 1, wait_ms: 0 };
    let mut tasks = client.lease(request).await.unwrap().into_inner().tasks;
    assert_eq!(tasks.len(), 1);
    tasks.remove(0)
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
        // Worker "cached" reads weights as bytes; "plain" is a worker older than both.
        let register = |cache| pb::RegisterRequest {
            name: "raw".into(),
            slots: 1,
            chromosome_cache: cache,
            weight_bytes: cache > 0,
            ..Default::default()
        };
        let cached = client.register(register(2)).await.unwrap().into_inner().worker_id;
        // A cache of 2: task 0 with weights (keeping 3 and 4); task 1 then needs all of its own
        // (1 was evicted) and keeps 6 and 7.
        let t0 = lease_one(&mut client, cached).await;
        assert!(networks(&t0).iter().all(|(w, _)| w.is_some()));
        assert_eq!(networks(&t0)[0].0.as_deref(), Some(random_uniform(1).weights()));
        let t1 = lease_one(&mut client, cached).await;
        assert!(networks(&t1).iter().all(|(w, _)| w.is_some()));
        // Task 2 names 5 again: evicted too. A worker that keeps nothing leases task 3: weights.
        let t2 = lease_one(&mut client, cached).await;
        assert_eq!(networks(&t2).iter().filter(|(w, _)| w.is_none()).count(), 0);
        let plain = client.register(register(0)).await.unwrap().into_inner().worker_id;
        let t3 = lease_one(&mut client, plain).await;
        assert!(networks(&t3).iter().all(|(w, _)| w.is_some()));
        assert_eq!(networks(&t3)[0].1, random_uniform(1).id());
        // Each in the form its worker reads: bytes for "cached", floats for the older "plain".
        let bytes = |t: &pb::Task| match &t.kind {
            Some(pb::task::Kind::Match(m)) => m.entrants.iter().all(|e| match &e.kind {
                Some(pb::match_entrant::Kind::Network(n)) => n.weights.is_empty() && !n.weights_le.is_empty(),
                _ => true,
            }),
            _ => false,
        };
        assert!(bytes(&t0) && !bytes(&t3));
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
        let outcome = Task::run(&knockout([1, 2, 3, 4])).unwrap();
        let done = pb::CompleteRequest {
            worker_id: cached,
            task_id: 0,
            result: Some(loa_proto::convert::result_to_proto(&Ok(outcome))),
            max_tasks: 0,
        };
        client.complete(done).await.unwrap();
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
        let request = pb::RegisterRequest {
            name: "raw".into(),
            slots: 1,
            chromosome_cache: 4096,
            weight_bytes: false,
            ..Default::default()
        };
        let worker = client.register(request).await.unwrap().into_inner().worker_id;
        let request = pb::LeaseRequest { worker_id: worker, max_tasks: 2, wait_ms: 0 };
        let tasks = client.lease(request).await.unwrap().into_inner().tasks;
        let sent: Vec<bool> = tasks.iter().flat_map(networks).map(|(w, _)| w.is_some()).collect();
        // 4 and 1 come again in the second task of the same reply: by id.
        assert_eq!(sent, [true, true, true, true, false, true, false, true]);
    });
    let counters = server.counters();
    assert_eq!(counters.sent_by_id.load(std::sync::atomic::Ordering::Relaxed), 2);
    assert_eq!(counters.sent_with_weights.load(std::sync::atomic::Ordering::Relaxed), 6);
    scheduler.close();
    server.shutdown();
}
