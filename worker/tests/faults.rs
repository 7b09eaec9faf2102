//! Faults with remote workers: the crash matrix over the cluster, a hung worker whose tasks are
//! backed up by idle ones, and crafted gRPC messages (oversized, wrong wire types, an outcome
//! for another worker's lease).

mod common;
use common::*;

use loa_master::cluster::ClusterOptions;
use loa_master::config::ExperimentConfig;
use loa_master::run::{Halt, HaltPoint, RunDir, RunError, RunOptions, RunSummary, WorkOptions, resume, start};
use loa_proto::pb;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tonic::Code;

/// A master in cluster mode on an ephemeral port running `run` in the background; returns its
/// address and the thread with the run's result.
fn cluster_master(
    lease: Duration,
    halt: Option<HaltPoint>,
    run: impl FnOnce(RunOptions) -> Result<RunSummary, RunError> + Send + 'static,
) -> (SocketAddr, std::thread::JoinHandle<Result<RunSummary, RunError>>) {
    let mut cluster = ClusterOptions::new("127.0.0.1:0".parse().unwrap(), Some(TOKEN.into()));
    cluster.lease_time = lease;
    let bound = Arc::clone(&cluster.bound);
    let halt = halt.map(|point| Halt { point, abort: false });
    let work = WorkOptions { cluster: Some(cluster), ..WorkOptions::embedded(0) };
    let options = RunOptions { work, halt, ..RunOptions::default() };
    let thread = std::thread::spawn(move || run(options));
    let started = Instant::now();
    loop {
        if let Some(addr) = bound.get() {
            return (*addr, thread);
        }
        if thread.is_finished() {
            // Halted before it served (the halt before the first benchmark comes first).
            return ("127.0.0.1:1".parse().unwrap(), thread);
        }
        assert!(started.elapsed() < Duration::from_secs(10), "the master did not start listening");
        std::thread::sleep(Duration::from_millis(2));
    }
}

fn workers(addr: SocketAddr, n: usize, prefix: &str) -> Vec<loa_worker::WorkerHandle> {
    (0..n).map(|i| worker(addr, &format!("{prefix}{i}"), TOKEN)).collect()
}

fn same_run_and_lines(a: &Path, b: &Path, epochs: u32, what: &str) {
    same_run(a, b, epochs);
    assert_eq!(generation_lines(&RunDir::new(a)), generation_lines(&RunDir::new(b)), "{what}");
}

#[test]
fn a_cluster_run_halted_at_phase_boundaries_resumes_to_the_embedded_run() {
    let (tmp, reference, _) = dirs();
    let config = tiny(2, 1);
    embedded(&config, &reference);
    for (i, point) in [
        HaltPoint::BeforeFirstBenchmark,
        HaltPoint::MidBenchmark(0),
        HaltPoint::MidGeneration(1),
        HaltPoint::AfterGenerationLine(1),
        HaltPoint::AfterGeneration(2),
        HaltPoint::MidBenchmark(1),
        HaltPoint::AfterEpochCheckpoint(1),
    ]
    .into_iter()
    .enumerate()
    {
        let run = tmp.path().join(format!("halted-{i}"));
        let (c, out) = (config.clone(), run.clone());
        let (addr, thread) = cluster_master(Duration::from_secs(5), Some(point), move |o| start(c, &out, &o));
        let first = workers(addr, 2, "a");
        match thread.join().unwrap() {
            Err(RunError::Halted(p)) => assert_eq!(p, point),
            other => panic!("{point}: expected a halt, got {other:?}"),
        }
        first.into_iter().for_each(|w| drop(w.kill()));
        let out = run.clone();
        let (addr, thread) = cluster_master(Duration::from_secs(5), None, move |o| resume(&out, None, None, &o));
        let second = workers(addr, 2, "b");
        let summary = thread.join().unwrap().unwrap();
        assert_eq!((summary.epoch, summary.stopped), (2, false), "{point}");
        second.into_iter().for_each(|w| drop(w.stop()));
        same_run_and_lines(&reference, &run, 2, &point.to_string());
    }
}

#[test]
fn a_hung_worker_costs_seconds_not_the_lease_time() {
    let (_tmp, reference, cluster) = dirs();
    let config = ExperimentConfig { epochs: 1, ..tiny(1, 1) };
    embedded(&config, &reference);
    let lease = Duration::from_secs(60);
    let began = Instant::now();
    let (c, out) = (config.clone(), cluster.clone());
    let (addr, thread) = cluster_master(lease, None, move |o| start(c, &out, &o));
    // A worker that leases two tasks and then hangs: its stream stays open, it never sends
    // again. Only backup copies can finish its tasks before the lease time.
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let hung = runtime.block_on(async {
        let mut c = raw(addr, Some(TOKEN)).await;
        let mut stream = RawStream::register(&mut c, registration("hung", 0), 2).await;
        assert_eq!(stream.tasks(2).await.len(), 2);
        (c, stream)
    });
    let steady = worker(addr, "steady", TOKEN);
    let summary = thread.join().unwrap().unwrap();
    let took = began.elapsed();
    assert_eq!(summary.epoch, 1);
    assert!(took < Duration::from_secs(20), "took {took:?}: the hung worker's leases waited for the lease time");
    drop(hung);
    steady.stop().unwrap();
    same_run_and_lines(&reference, &cluster, 1, "hung worker");
    let log = String::from_utf8(read(&RunDir::new(&cluster).log())).unwrap();
    let summary = log.lines().find(|l| l.contains("cluster:")).unwrap_or_default();
    let backups: u64 = summary
        .split(", ")
        .find_map(|part| part.strip_suffix(" backup copies").and_then(|n| n.parse().ok()))
        .unwrap_or_else(|| panic!("no backup count in {summary:?}"));
    assert!(backups >= 2, "{summary}");
}

/// A message with `RegisterRequest`'s field numbers and the wrong wire types.
#[derive(Clone, PartialEq, prost::Message)]
struct WrongTypes {
    #[prost(string, tag = "1")]
    protocol: String,
    #[prost(uint64, tag = "2")]
    name: u64,
}

#[test]
fn crafted_messages_are_refused_and_the_run_goes_on() {
    let (_tmp, reference, cluster) = dirs();
    let config = tiny(1, 1);
    embedded(&config, &reference);
    let (c, out) = (config.clone(), cluster.clone());
    let (addr, thread) = cluster_master(Duration::from_secs(5), None, move |o| start(c, &out, &o));
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let (mut a, mut b) = (raw(addr, Some(TOKEN)).await, raw(addr, Some(TOKEN)).await);
        let mut a_stream = RawStream::register(&mut a, registration("a", 0), 1).await;
        let mut b_stream = RawStream::register(&mut b, registration("b", 0), 0).await;
        let a_id = a_stream.id;
        let (task_id, task) =
            loa_proto::convert::task_from_proto(a_stream.tasks(1).await.remove(0), &|_| None).unwrap();
        let played = Ok(task.run().unwrap());
        let outcome = loa_proto::convert::outcome_to_proto(task_id, &played, 0);

        // An outcome for another worker's lease: refused, and the task stays a's.
        let receipt = b_stream.deliver(vec![outcome.clone()], 0).await.unwrap();
        assert_eq!((receipt.accepted, receipt.refused.len()), (0, 1));
        assert!(receipt.refused[0].reason.contains("not leased to this worker"), "{receipt:?}");

        // Oversized: a 2 MiB failure message, over the 1 MiB message limit, breaks the stream.
        let huge =
            pb::Outcome { task_id, result: Some(pb::outcome::Result::Failure("x".repeat(2 << 20))), leased_to: 0 };
        let status = b_stream.deliver(vec![huge], 0).await.unwrap_err();
        assert!(
            matches!(status.code(), Code::OutOfRange | Code::ResourceExhausted | Code::Cancelled | Code::Unknown),
            "{status:?}"
        );

        // Wrong wire types for the fields of a RegisterRequest.
        let channel =
            tonic::transport::Endpoint::from_shared(format!("http://{addr}")).unwrap().connect().await.unwrap();
        let mut grpc = tonic::client::Grpc::new(channel);
        grpc.ready().await.unwrap();
        let mut request = tonic::Request::new(WrongTypes { protocol: "two".into(), name: 7 });
        request.metadata_mut().insert("authorization", loa_proto::bearer(TOKEN).parse().unwrap());
        let path = tonic::codegen::http::uri::PathAndQuery::from_static("/loa.v2.Master/Register");
        let codec = tonic_prost::ProstCodec::<WrongTypes, pb::RegisterReply>::default();
        let status = grpc.unary(request, path, codec).await.unwrap_err();
        assert_ne!(status.code(), Code::Ok);
        assert!(status.message().to_lowercase().contains("decode"), "{status:?}");

        // A well-formed outcome that does not fit its task (the pairing's sides swapped): refused
        // with the task named, and its sender dropped.
        let mut swapped = outcome.clone();
        let Some(pb::outcome::Result::Match(m)) = swapped.result.as_mut() else { panic!("match tasks") };
        let first = &mut m.matches[0];
        (first.a, first.b) = (first.b, first.a);
        let status = a_stream.deliver(vec![swapped], 0).await.unwrap_err();
        assert_eq!(status.code(), Code::InvalidArgument, "{status:?}");
        assert!(status.message().contains(&format!("outcome of task {task_id}")), "{}", status.message());

        // The dropped holder's outcome, sent from a registration of its own under its old id, is
        // refused: that id holds no lease any more, and the task goes to another worker.
        let mut again = RawStream::register(&mut a, registration("a again", 0), 0).await;
        let leased_to_a = pb::Outcome { leased_to: a_id, ..outcome };
        let receipt = again.deliver(vec![leased_to_a], 0).await.unwrap();
        assert_eq!((receipt.accepted, receipt.refused.len()), (0, 1), "{receipt:?}");
        assert!(receipt.refused[0].reason.contains("does not know"), "{receipt:?}");
        again.leave().await;
    });
    let honest = worker(addr, "honest", TOKEN);
    let summary = thread.join().unwrap().unwrap();
    assert_eq!(summary.epoch, 1);
    honest.stop().unwrap();
    same_run_and_lines(&reference, &cluster, 1, "crafted messages");
    let log = String::from_utf8(read(&RunDir::new(&cluster).log())).unwrap();
    assert!(log.contains("2 not leased to their sender"), "{log}");
}
