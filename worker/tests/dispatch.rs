//! The `Work` stream: workers that deliver each outcome as it finishes, in batches, and all
//! together write the checkpoints of an embedded run byte for byte, every task counted once; a
//! message's outcomes are answered by a receipt with the tasks that replace them, and tasks come
//! as soon as there are some for a worker that wants them, never to one that does not; messages
//! beyond the protocol's bounds end the stream, naming the field; and workers and masters of
//! another protocol version are refused at registration, naming both versions.

use loa_master::cluster::{self, ClusterOptions};
use loa_master::scheduler::Scheduler;
use loa_proto::convert::outcome_to_proto;
use loa_proto::pb;
use loa_worker::{WorkerError, WorkerOptions, WorkerReport, spawn};
use std::sync::Arc;
use std::time::Duration;
use tonic::Code;

mod common;
use common::*;

/// A worker on `addr` with `slots` slots delivering `batch` outcomes a message.
fn worker_with(addr: std::net::SocketAddr, name: &str, slots: usize, batch: usize) -> loa_worker::WorkerHandle {
    let mut options = worker_options(&format!("http://{addr}"), name, TOKEN, None);
    options.slots = slots;
    options.batch = batch;
    spawn(options).unwrap()
}

/// A cluster run of `config` into `out` with workers `(name, slots, batch)`; their reports.
fn run_with(
    config: &loa_master::config::ExperimentConfig,
    out: &std::path::Path,
    workers: &[(&str, usize, usize)],
) -> Vec<WorkerReport> {
    let m = master(config, out, Duration::from_secs(5));
    let handles: Vec<_> = workers.iter().map(|&(name, slots, batch)| worker_with(m.addr, name, slots, batch)).collect();
    m.thread.join().unwrap();
    handles.into_iter().map(|w| w.stop().unwrap()).collect()
}

/// Population 12: 4 generations of 12 knockouts, and 3 benchmarks of 12 networks.
const TASKS: u64 = 4 * 12 + 3 * 12;

#[test]
fn single_batched_and_mixed_workers_give_the_checkpoints_of_an_embedded_run() {
    let tmp = tempfile::tempdir().unwrap();
    let mut config = tiny(2, 1);
    config.population = 12;
    let reference = tmp.path().join("embedded");
    embedded(&config, &reference);
    let each_task_once = |reports: &[WorkerReport]| {
        let accepted: u64 = reports.iter().map(|r| r.accepted).sum();
        assert_eq!(accepted, TASKS, "{reports:?}");
        assert!(reports.iter().all(|r| r.undelivered == 0 && r.abandoned == 0 && r.registrations == 1), "{reports:?}");
    };
    for (name, workers) in [
        ("single", vec![("single", 1, 1)]),
        ("batched", vec![("batched", 2, 4)]),
        ("mixed", vec![("a", 1, 1), ("b", 2, 3), ("c", 1, 64)]),
    ] {
        let out = tmp.path().join(name);
        let reports = run_with(&config, &out, &workers);
        same_run(&reference, &out, 2);
        each_task_once(&reports);
    }
}

/// A scheduler with `tasks` knockouts queued, served without a token; the server and scheduler.
fn serving(tasks: u64) -> (Arc<Scheduler>, cluster::Server) {
    let scheduler = Arc::new(Scheduler::new(Duration::from_secs(30)));
    let server = cluster::serve(&scheduler, &ClusterOptions::new("127.0.0.1:0".parse().unwrap(), None)).unwrap();
    scheduler.submit((0..tasks).map(|i| (i, knockout([i + 1, i + 2, i + 3, i + 4]))).collect());
    (scheduler, server)
}

/// The outcome of a task from the wire, played.
fn played(task: pb::Task) -> pb::Outcome {
    let (id, task) = loa_proto::convert::task_from_proto(task, &|_| None).unwrap();
    outcome_to_proto(id, &Ok(task.run().unwrap()), 0)
}

#[test]
fn outcomes_get_a_receipt_with_the_tasks_that_replace_them_and_tasks_come_only_when_wanted() {
    let (scheduler, server) = serving(6);
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let mut client = raw(server.addr, None).await;
        let mut stream = RawStream::register(&mut client, registration("raw", 0), 2).await;
        let first = stream.tasks(2).await;
        assert_eq!(first.iter().map(|t| t.id).collect::<Vec<_>>(), [0, 1]);
        // Two outcomes in one message, asking for one more task: one receipt, and the task.
        let outcomes: Vec<pb::Outcome> = first.into_iter().map(played).collect();
        let receipt = stream.deliver(outcomes.clone(), 1).await.unwrap();
        assert_eq!((receipt.accepted, receipt.duplicates, receipt.unknown), (2, 0, 0));
        assert_eq!(stream.tasks(1).await[0].id, 2);
        // The same outcomes again: duplicates; asking for nothing brings nothing.
        let receipt = stream.deliver(outcomes, 0).await.unwrap();
        assert_eq!((receipt.accepted, receipt.duplicates), (0, 2));
        assert!(stream.tasks.is_empty());
        assert_eq!(scheduler.stats().queued, 3, "tasks 3 to 5 stay queued while nobody wants them");
        // A heartbeat renews and brings nothing; a want brings the rest as soon as asked.
        stream.send(pb::WorkerMessage::default()).await;
        stream.send(pb::WorkerMessage { want: 5, ..Default::default() }).await;
        assert_eq!(stream.tasks(3).await.iter().map(|t| t.id).collect::<Vec<_>>(), [3, 4, 5]);
        // Still wanting two: new tasks go out the moment they are queued.
        scheduler.submit(vec![(9, knockout([9, 8, 7, 6]))]);
        assert_eq!(stream.tasks(1).await[0].id, 9);
        stream.leave().await;
    });
    // Leaving gives the worker's unfinished tasks (2 to 5, and 9) back at once.
    assert_eq!(scheduler.stats().queued, 5);
    assert_eq!(scheduler.workers().len(), 0);
    scheduler.close();
    drop(server);
}

#[test]
fn messages_beyond_the_bounds_end_the_stream_naming_the_field() {
    let (scheduler, server) = serving(2);
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let mut client = raw(server.addr, None).await;
        let ended = async |stream: &mut RawStream| loop {
            match stream.next().await {
                Ok(Some(_)) => continue,
                Ok(None) => panic!("the stream ended without a status"),
                Err(status) => return status,
            }
        };
        let mut stream = RawStream::register(&mut client, registration("many", 0), 1).await;
        let outcome = played(stream.tasks(1).await.remove(0));
        stream.send(pb::WorkerMessage { outcomes: vec![outcome.clone(); 65], ..Default::default() }).await;
        let status = ended(&mut stream).await;
        assert_eq!(status.code(), Code::InvalidArgument);
        // Counted on the wire, before any outcome is decoded.
        assert_eq!(status.message(), "outcomes: more than 64 elements, the most a legal message holds: refused unread");

        let mut stream = RawStream::register(&mut client, registration("greedy", 0), 0).await;
        stream.send(pb::WorkerMessage { want: 1025, ..Default::default() }).await;
        let status = ended(&mut stream).await;
        assert_eq!(status.message(), "want: at most 1024 tasks asked for and not yet sent, got 1025");

        let mut stream = RawStream::register(&mut client, registration("other", 0), 0).await;
        stream.send(pb::WorkerMessage { worker_id: stream.id ^ 1, ..Default::default() }).await;
        let status = ended(&mut stream).await;
        assert!(status.message().starts_with("worker_id: "), "{status:?}");

        // One stream a worker.
        let reply = client.register(registration("twice", 0)).await.unwrap().into_inner();
        let _first = RawStream::open(&mut client, reply.worker_id, &reply.credential, 0).await.unwrap();
        let status = RawStream::open(&mut client, reply.worker_id, &reply.credential, 0).await.err().unwrap();
        assert_eq!(status.code(), Code::FailedPrecondition, "{status:?}");
    });
    // The refused workers were dropped, and their tasks are open again.
    assert_eq!(scheduler.stats().queued, 2);
    scheduler.close();
    drop(server);
}

#[test]
fn workers_and_masters_of_another_protocol_version_are_refused_naming_both() {
    let (scheduler, server) = serving(0);
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        // A worker of version 1 calls version 1's Register.
        let channel = tonic::transport::Endpoint::from_shared(format!("http://{}", server.addr))
            .unwrap()
            .connect()
            .await
            .unwrap();
        let mut v1 = loa_proto::v1::master_client::MasterClient::new(channel);
        let status = v1.register(loa_proto::v1::RegisterRequest { name: "old".into(), slots: 1 }).await.unwrap_err();
        // The one refusal a worker of version 1 does not retry.
        assert_eq!(status.code(), Code::Unauthenticated);
        assert!(status.message().contains("protocol v5") && status.message().contains("worker v1"), "{status:?}");
        // Versions this master does not speak on the call versions 2 to 5 share: version 2, whose
        // tasks had no board, version 3, whose tasks had no self-play, version 4, whose workers
        // had no credential, and a later one.
        let mut client = raw(server.addr, None).await;
        for other in [2, 3, 4, 6] {
            let request = pb::RegisterRequest { protocol: other, ..registration("other", 0) };
            let status = client.register(request).await.unwrap_err();
            assert_eq!(status.code(), Code::FailedPrecondition);
            let message = status.message();
            assert!(message.contains("protocol v5") && message.contains(&format!("worker v{other}")), "{status:?}");
        }
    });
    assert_eq!(scheduler.workers().len(), 0);
    drop(server);

    // A master of version 1 serves only version 1's service: a worker of version 5 stops at once.
    let old_master = version_one_master();
    let mut options = WorkerOptions::new(format!("http://{old_master}")).unwrap();
    options.slots = 1;
    let err = spawn(options).unwrap().join().unwrap_err();
    assert!(matches!(err, WorkerError::Version(_)), "{err}");
    let message = err.to_string();
    assert!(message.contains("protocol v5") && message.contains("protocol v1"), "{message}");
}

/// A master that speaks only protocol version 1's registration, serving in the background.
fn version_one_master() -> std::net::SocketAddr {
    struct Old;
    #[tonic::async_trait]
    impl loa_proto::v1::master_server::Master for Old {
        async fn register(
            &self,
            _: tonic::Request<loa_proto::v1::RegisterRequest>,
        ) -> Result<tonic::Response<loa_proto::v1::RegisterReply>, tonic::Status> {
            Ok(tonic::Response::new(loa_proto::v1::RegisterReply { worker_id: 1, lease_seconds: 30 }))
        }
    }
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    listener.set_nonblocking(true).unwrap();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener).unwrap();
            let incoming = tokio_stream::wrappers::TcpListenerStream::new(listener);
            let _ = tonic::transport::Server::builder()
                .add_service(loa_proto::v1::master_server::MasterServer::new(Old))
                .serve_with_incoming(incoming)
                .await;
        });
    });
    addr
}
