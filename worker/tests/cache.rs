//! Chromosome caching through the whole cluster path: runs with cached chromosomes and with a
//! one-chromosome cache give the checkpoints of an embedded run, byte for byte; a worker sent ids
//! it lacks fetches them and plays the same games; the master sends ids only for what a worker's
//! cache holds, serves fetches from open tasks only, and bounds them.

use loa_engine::network::{Chromosome, random_uniform};
use loa_master::cluster::{self, ClusterOptions};
use loa_master::scheduler::Scheduler;
use loa_proto::convert::{id_from_proto, id_to_proto};
use loa_proto::pb;
use loa_worker::{WorkerReport, spawn};
use std::sync::Arc;
use std::time::Duration;
use tonic::Code;

mod common;
use common::*;

/// A cluster run of `config` into `out` with one worker whose cache keeps `kept` chromosomes; the
/// worker's report.
fn run_with_cache(config: &loa_master::config::ExperimentConfig, out: &std::path::Path, kept: usize) -> WorkerReport {
    let m = master(config, out, Duration::from_secs(5));
    let mut options = worker_options(&format!("http://{}", m.addr), &format!("cache-{kept}"), TOKEN, None);
    options.chromosome_cache = kept;
    let worker = spawn(options).unwrap();
    m.thread.join().unwrap();
    worker.stop().unwrap()
}

#[test]
fn cached_and_one_chromosome_caches_give_the_checkpoints_of_an_embedded_run() {
    let tmp = tempfile::tempdir().unwrap();
    let config = tiny(2, 1);
    let reference = tmp.path().join("embedded");
    embedded(&config, &reference);

    // One worker plays every task, so every survivor and benchmarked network comes back to it.
    let cached = tmp.path().join("cached");
    let r = run_with_cache(&config, &cached, 4096);
    same_run(&reference, &cached, 2);
    assert!(r.cache_hits > 0 && r.fetched == 0 && r.abandoned == 0, "{r:?}");
    // 4 generations of 4 knockouts of 4, and 3 benchmarks of 4 networks.
    assert_eq!(r.received + r.cache_hits + r.made, 64 + 12, "{r:?}");

    // A one-chromosome cache, announced as it is: the master's mirror is exact, so nothing is
    // ever fetched.
    let tiny_cache = tmp.path().join("tiny");
    let r = run_with_cache(&config, &tiny_cache, 1);
    same_run(&reference, &tiny_cache, 2);
    assert!(r.fetched == 0 && r.abandoned == 0, "{r:?}");
}

/// A master that sends its one task with every network named by id alone, as to a worker whose
/// cache it believes holds them, and serves the worker's fetches from the task; it keeps the
/// outcome it gets.
struct Forgetful {
    task: loa_engine::tasks::Task,
    fetches: std::sync::Mutex<Vec<pb::FetchChromosomesRequest>>,
    outcome: Arc<std::sync::Mutex<Option<pb::Outcome>>>,
}

/// The credential [`Forgetful`] gives, which the worker's stream and fetches must carry.
const FORGETFUL_CREDENTIAL: &str = "00000000000000015ec7e7";

/// Refuses a call without [`FORGETFUL_CREDENTIAL`], as a master does.
fn credited<T>(request: &tonic::Request<T>) -> Result<(), tonic::Status> {
    let given = request.metadata().get(loa_proto::CREDENTIAL_HEADER).map(|v| v.as_bytes());
    match given == Some(FORGETFUL_CREDENTIAL.as_bytes()) {
        true => Ok(()),
        false => Err(tonic::Status::unauthenticated(format!("wrong worker credential: {given:?}"))),
    }
}

#[tonic::async_trait]
impl pb::master_server::Master for Forgetful {
    async fn register(
        &self,
        _: tonic::Request<pb::RegisterRequest>,
    ) -> Result<tonic::Response<pb::RegisterReply>, tonic::Status> {
        let credential = FORGETFUL_CREDENTIAL.into();
        Ok(tonic::Response::new(pb::RegisterReply {
            worker_id: 1,
            lease_seconds: 30,
            peer_token: String::new(),
            credential,
        }))
    }

    type WorkStream = tokio_stream::wrappers::ReceiverStream<Result<pb::MasterMessage, tonic::Status>>;

    async fn work(
        &self,
        request: tonic::Request<tonic::Streaming<pb::WorkerMessage>>,
    ) -> Result<tonic::Response<Self::WorkStream>, tonic::Status> {
        credited(&request)?;
        let mut inbound = request.into_inner();
        let task = loa_proto::convert::task_to_proto(0, &self.task, &mut |_| loa_proto::convert::Sending::Id);
        let (out, messages) = tokio::sync::mpsc::channel(4);
        out.send(Ok(pb::MasterMessage { tasks: vec![task], receipt: None })).await.unwrap();
        let kept = Arc::clone(&self.outcome);
        tokio::spawn(async move {
            while let Ok(Some(message)) = inbound.message().await {
                if let Some(outcome) = message.outcomes.into_iter().next() {
                    *kept.lock().unwrap() = Some(outcome);
                    let receipt = pb::Receipt { accepted: 1, ..Default::default() };
                    let _ = out.send(Ok(pb::MasterMessage { tasks: vec![], receipt: Some(receipt) })).await;
                }
            }
        });
        Ok(tonic::Response::new(tokio_stream::wrappers::ReceiverStream::new(messages)))
    }

    async fn fetch_chromosomes(
        &self,
        request: tonic::Request<pb::FetchChromosomesRequest>,
    ) -> Result<tonic::Response<pb::FetchChromosomesReply>, tonic::Status> {
        credited(&request)?;
        self.fetches.lock().unwrap().push(request.get_ref().clone());
        let asked = request.into_inner().ids.iter().map(id_from_proto).collect::<Vec<_>>();
        let chromosomes = asked
            .iter()
            .filter_map(|&id| self.task.chromosomes().find(|c| c.id() == id))
            .map(|c| loa_proto::convert::chromosome_to_proto(c))
            .collect();
        Ok(tonic::Response::new(pb::FetchChromosomesReply { chromosomes }))
    }
}

#[test]
fn a_worker_sent_ids_it_lacks_fetches_them_and_plays_the_same_games() {
    // Network 1 twice: asked for and fetched once.
    let task = knockout([1, 2, 1, 3]);
    let outcome = Arc::new(std::sync::Mutex::new(None));
    let master = Arc::new(Forgetful { task: task.clone(), fetches: Default::default(), outcome: Arc::clone(&outcome) });
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    listener.set_nonblocking(true).unwrap();
    let serving = Arc::clone(&master);
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        runtime.block_on(async move {
            let incoming =
                tokio_stream::wrappers::TcpListenerStream::new(tokio::net::TcpListener::from_std(listener).unwrap());
            let service = pb::master_server::MasterServer::from_arc(serving);
            let _ = tonic::transport::Server::builder().add_service(service).serve_with_incoming(incoming).await;
        });
    });
    let worker = spawn(worker_options(&format!("http://{addr}"), "forgotten", TOKEN, None)).unwrap();
    let began = std::time::Instant::now();
    while outcome.lock().unwrap().is_none() {
        assert!(began.elapsed() < Duration::from_secs(30), "no outcome came");
        std::thread::sleep(Duration::from_millis(10));
    }
    let report = worker.stop().unwrap();
    let fetches = master.fetches.lock().unwrap().clone();
    assert_eq!(fetches.len(), 1, "one fetch for the message's ids");
    assert_eq!((fetches[0].task_ids.clone(), fetches[0].ids.len()), (vec![0], 3));
    assert_eq!((report.fetched, report.cache_hits, report.accepted), (3, 0, 1), "{report:?}");
    let sent = outcome.lock().unwrap().take().unwrap();
    let (id, _, played) = loa_proto::convert::outcome_from_proto(&sent).unwrap();
    assert_eq!((id, played), (0, Ok(task.run().unwrap())));
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
        let mut client = raw(server.addr, None).await;
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
        let credited = |request| loa_proto::with_credential(request, &plain.credential);
        let reply =
            client.fetch_chromosomes(credited(fetch(vec![0, 2], vec![&one, &eight, &two]))).await.unwrap().into_inner();
        let got: Vec<_> = reply
            .chromosomes
            .into_iter()
            .map(|e| {
                let id = e.id.as_ref().map(id_from_proto);
                (loa_proto::convert::chromosome_from_proto(&e).unwrap().weights().to_vec(), id)
            })
            .collect();
        assert_eq!(got.len(), 3);
        for c in [&one, &two, &eight] {
            assert!(got.contains(&(c.weights().to_vec(), Some(c.id()))), "{} missing", c.id());
        }
        let reply = client.fetch_chromosomes(credited(fetch(vec![1], vec![&eight]))).await.unwrap().into_inner();
        assert!(reply.chromosomes.is_empty());
        let outcome = knockout([1, 2, 3, 4]).run().unwrap();
        let receipt = cached.deliver(vec![loa_proto::convert::outcome_to_proto(0, &Ok(outcome), 0)], 0).await.unwrap();
        assert_eq!(receipt.accepted, 1);
        let reply = client.fetch_chromosomes(credited(fetch(vec![0], vec![&one, &two]))).await.unwrap().into_inner();
        assert!(reply.chromosomes.is_empty(), "task 0 is done");
        // Too many tasks for one call: refused.
        let err = client.fetch_chromosomes(credited(fetch((0..65).collect(), vec![&one]))).await.unwrap_err();
        assert_eq!(err.code(), Code::InvalidArgument, "{err:?}");
    });
    let counters = &server.counters;
    assert_eq!(counters.fetched.load(std::sync::atomic::Ordering::Relaxed), 3);
    scheduler.close();
    drop(server);
}

#[test]
fn a_cache_large_enough_gets_repeated_networks_by_id() {
    let scheduler = Arc::new(Scheduler::new(Duration::from_secs(30)));
    let server = cluster::serve(&scheduler, &ClusterOptions::new("127.0.0.1:0".parse().unwrap(), None)).unwrap();
    scheduler.submit(vec![(0, knockout([1, 2, 3, 4])), (1, knockout([4, 5, 1, 6]))]);
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let mut client = raw(server.addr, None).await;
        let mut stream = RawStream::register(&mut client, registration("raw", 4096), 2).await;
        let tasks = stream.tasks(2).await;
        let sent: Vec<bool> = tasks.iter().flat_map(networks).map(|(w, _)| w.is_some()).collect();
        // 4 and 1 come again in the second task of the same message: by id.
        assert_eq!(sent, [true, true, true, true, false, true, false, true]);
    });
    let counters = &server.counters;
    assert_eq!(counters.sent_by_id.load(std::sync::atomic::Ordering::Relaxed), 2);
    assert_eq!(counters.sent_with_weights.load(std::sync::atomic::Ordering::Relaxed), 6);
    scheduler.close();
    drop(server);
}
