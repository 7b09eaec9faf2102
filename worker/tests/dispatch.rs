//! Leases riding on outcomes (issue 14): a `Complete` that asks for tasks (`max_tasks`) gets them
//! in its reply, leased as by `Lease`, and so does each request on a `Deliver` stream, answered
//! in order as `Complete` would answer it. Workers that deliver on the stream, workers that call
//! `Complete`, older workers that call `Lease` after every `Complete`, and all together write the
//! checkpoints of an embedded run byte for byte, every task counted once, and so does a worker
//! meeting a master older than both; the master refuses a malformed `max_tasks` naming it, before
//! it records anything (a refusal on the stream answers that request and the stream goes on),
//! and never leases to a caller it does not know or whose outcome it refuses. Workers that
//! deliver their outcomes in batches (`DeliverBatches`) write the same checkpoints, and each
//! batch is answered request by request as `Deliver` would answer them.

use loa_master::cluster::{self, ClusterOptions};
use loa_master::scheduler::Scheduler;
use loa_proto::convert::result_to_proto;
use loa_proto::pb;
use loa_worker::{WorkerOptions, WorkerReport, spawn};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tonic::Code;

mod common;
use common::*;

/// How a test worker talks to the master.
#[derive(Clone, Copy, PartialEq)]
enum Way {
    /// Outcomes on a `Deliver` stream, each carrying the next lease (the default).
    Stream,
    /// Outcomes four at a time on a `DeliverBatches` stream.
    Batches,
    /// A `Complete` call an outcome, carrying the next lease.
    Combined,
    /// A `Lease` and a `Complete` a task, as workers before issue 14.
    Separate,
}

/// A worker on `addr` with `slots` slots that talks to the master `way`.
fn worker_with(addr: std::net::SocketAddr, name: &str, slots: usize, way: Way) -> loa_worker::WorkerHandle {
    let mut options = WorkerOptions::new(format!("http://{addr}"));
    options.slots = slots;
    options.token = Some(TOKEN.into());
    options.name = name.into();
    options.max_backoff = Duration::from_millis(200);
    options.complete_leases = way != Way::Separate;
    options.delivery_stream = matches!(way, Way::Stream | Way::Batches);
    options.batch = if way == Way::Batches { 4 } else { 1 };
    spawn(options).unwrap()
}

/// A cluster run of `config` into `out` with workers `(name, slots, way)`; their reports.
fn run_with(
    config: &loa_master::config::ExperimentConfig,
    out: &std::path::Path,
    workers: &[(&str, usize, Way)],
) -> Vec<WorkerReport> {
    let m = master(config, out, Duration::from_secs(5));
    let handles: Vec<_> = workers.iter().map(|&(name, slots, way)| worker_with(m.addr, name, slots, way)).collect();
    m.thread.join().unwrap();
    handles.into_iter().map(|w| w.stop().unwrap()).collect()
}

/// A master that serves as one older than issue 14's combined call and stream (it never offers
/// leases in `Complete` replies, nor `Deliver`), running `config` into `out` in the background.
fn older_master(config: &loa_master::config::ExperimentConfig, out: &std::path::Path) -> Master {
    let mut cluster = ClusterOptions::new("127.0.0.1:0".parse().unwrap(), Some(TOKEN.into()));
    cluster.lease_time = Duration::from_secs(5);
    cluster.complete_leases = false;
    cluster.delivery_stream = false;
    cluster.batch_delivery = false;
    let bound = Arc::clone(&cluster.bound);
    let options = loa_master::run::RunOptions { cluster: Some(cluster), ..loa_master::run::RunOptions::embedded(0) };
    let (config, out) = (config.clone(), out.to_path_buf());
    let thread = std::thread::spawn(move || loa_master::run::start(config, &out, &options).unwrap());
    let started = std::time::Instant::now();
    let addr = loop {
        if let Some(addr) = bound.get() {
            break *addr;
        }
        assert!(started.elapsed() < Duration::from_secs(10), "the master did not start listening");
        std::thread::sleep(Duration::from_millis(5));
    };
    Master { addr, stop: Arc::default(), thread }
}

/// Population 12: 4 generations of 12 knockouts, and 3 benchmarks of 12 networks.
const TASKS: u64 = 4 * 12 + 3 * 12;

#[test]
fn stream_combined_separate_mixed_and_older_master_runs_give_the_checkpoints_of_an_embedded_run() {
    let tmp = tempfile::tempdir().unwrap();
    // Batches larger than what the workers hold ahead, so later tasks can ride on outcomes.
    let mut config = tiny(2, 1);
    config.population = 12;
    let reference = tmp.path().join("embedded");
    embedded(&config, &reference);
    let each_task_once = |reports: &[WorkerReport]| {
        let accepted: u64 = reports.iter().map(|r| r.accepted).sum();
        assert_eq!(accepted, TASKS, "{reports:?}");
        assert!(reports.iter().all(|r| r.undelivered == 0 && r.abandoned == 0), "{reports:?}");
    };

    // One single-slot worker delivering on a stream, leasing with its outcomes: after a batch's
    // first Lease, its tasks come in the stream's answers (it holds two ahead, so all but two of
    // each batch), and every outcome went on the stream.
    let stream = tmp.path().join("stream");
    let r = run_with(&config, &stream, &[("stream", 1, Way::Stream)]);
    same_run(&reference, &stream, 2);
    each_task_once(&r);
    assert!(r[0].leased_with_outcomes >= TASKS / 2, "{r:?}");
    assert_eq!(r[0].streamed, TASKS, "{r:?}");
    // Its cache met the ids in the master's order across Lease replies and the stream's answers:
    // nothing was fetched, and the survivors came back by id.
    assert!(r[0].fetched == 0 && r[0].cache_hits > 0, "{r:?}");

    // The same worker delivering four outcomes a message: some went in batches (the last of each
    // generation's tasks go alone when none is left to play, and how many others wait for a
    // batch depends on how fast replies come back: 36 of 84 on a loaded machine, where this
    // asked for half, in main's build too), and the run is the same.
    let batches = tmp.path().join("batches");
    let r = run_with(&config, &batches, &[("batches", 1, Way::Batches)]);
    same_run(&reference, &batches, 2);
    each_task_once(&r);
    assert_eq!(r[0].streamed, TASKS, "{r:?}");
    assert!(r[0].batched > 0 && r[0].leased_with_outcomes >= TASKS / 2, "{r:?}");
    assert!(r[0].fetched == 0 && r[0].cache_hits > 0, "{r:?}");

    // The same worker calling Complete with each outcome instead.
    let combined = tmp.path().join("combined");
    let r = run_with(&config, &combined, &[("combined", 1, Way::Combined)]);
    same_run(&reference, &combined, 2);
    each_task_once(&r);
    assert!(r[0].leased_with_outcomes >= TASKS / 2, "{r:?}");
    assert_eq!(r[0].streamed, 0, "{r:?}");
    assert!(r[0].fetched == 0 && r[0].cache_hits > 0, "{r:?}");

    // The same worker leasing the old way (Lease after every Complete): the same run.
    let separate = tmp.path().join("separate");
    let r = run_with(&config, &separate, &[("separate", 1, Way::Separate)]);
    same_run(&reference, &separate, 2);
    each_task_once(&r);
    assert_eq!((r[0].leased_with_outcomes, r[0].streamed), (0, 0), "{r:?}");

    // All kinds at once, and a two-slot worker whose outcomes take turns on its stream.
    let mixed = tmp.path().join("mixed");
    let workers = [
        ("new", 1, Way::Stream),
        ("old", 1, Way::Separate),
        ("wide", 2, Way::Stream),
        ("call", 1, Way::Combined),
        ("batch", 2, Way::Batches),
    ];
    let r = run_with(&config, &mixed, &workers);
    same_run(&reference, &mixed, 2);
    each_task_once(&r);
    assert_eq!(r[4].streamed, r[4].accepted, "{r:?}");
    assert_eq!((r[1].leased_with_outcomes, r[1].streamed, r[3].streamed), (0, 0, 0), "{r:?}");
    // Whether anyone leases with its outcomes here is a race, so it is not asserted: a step of
    // 12 tasks is less than the five workers' Lease calls ask for (17), so the calls waiting when
    // it is queued can drain it, and every outcome then finds nothing left. It failed that way
    // once in CI and 1 run in 8 on a loaded machine, main's build as well; the single-worker
    // runs above show that each way leases with its outcomes.
    assert_eq!(r[0].streamed + r[2].streamed, r[0].accepted + r[2].accepted, "{r:?}");
    assert_eq!(r[0].batched + r[2].batched, 0, "{r:?}");
    assert!(r.iter().all(|w| w.fetched == 0), "{r:?}");

    // A worker that would deliver on a stream and lease with its outcomes, meeting a master
    // older than both: it calls Complete and leases with Lease alone, and the run is the same.
    let older = tmp.path().join("older");
    let m = older_master(&config, &older);
    let w = worker_with(m.addr, "new-on-old", 1, Way::Batches);
    m.thread.join().unwrap();
    let r = vec![w.stop().unwrap()];
    same_run(&reference, &older, 2);
    each_task_once(&r);
    assert_eq!((r[0].leased_with_outcomes, r[0].streamed, r[0].batched), (0, 0, 0), "{r:?}");
}

/// Whether each network of a task on the wire came with its weights.
fn with_weights(task: &pb::Task) -> Vec<bool> {
    let Some(pb::task::Kind::Match(m)) = &task.kind else { panic!("a match task") };
    m.entrants
        .iter()
        .filter_map(|e| match &e.kind {
            Some(pb::match_entrant::Kind::Network(n)) => Some(!n.weights_le.is_empty() || !n.weights.is_empty()),
            _ => None,
        })
        .collect()
}

#[test]
fn complete_leases_the_next_tasks_and_refuses_a_malformed_max_tasks() {
    let games = [[1, 2, 3, 4], [1, 5, 6, 7], [8, 9, 10, 11], [12, 13, 14, 15]];
    let (scheduler, server, complete) = serving(None, &games);
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let mut client = raw(server.addr(), None).await;
        let reply = client.register(register("a")).await.unwrap().into_inner();
        assert!(reply.complete_leases, "the master offers leases with outcomes");
        let a = reply.worker_id;
        let lease = pb::LeaseRequest { worker_id: a, max_tasks: 1, wait_ms: 0 };
        let t0 = client.lease(lease).await.unwrap().into_inner().tasks;
        assert_eq!(t0.iter().map(|t| t.id).collect::<Vec<_>>(), [0]);

        // More than a call may lease: refused naming the field, and nothing recorded.
        let status = client.complete(complete(a, 0, 65)).await.unwrap_err();
        assert_eq!(status.code(), Code::InvalidArgument, "{status:?}");
        assert!(status.message().starts_with("max_tasks: at most 64"), "{}", status.message());
        assert!(scheduler.task(0).is_some(), "the refused call recorded nothing");
        assert_eq!(scheduler.stats().completed, 0);

        // The outcome, and two tasks leased with it: task 1 names network 1 again, which task 0
        // brought, so it comes by id (the mirror counts Lease and Complete replies alike).
        let reply = client.complete(complete(a, 0, 2)).await.unwrap().into_inner();
        assert_eq!(reply.completion, pb::Completion::Accepted as i32);
        assert_eq!(reply.tasks.iter().map(|t| t.id).collect::<Vec<_>>(), [1, 2]);
        assert_eq!(with_weights(&reply.tasks[0]), [false, true, true, true]);
        assert_eq!(with_weights(&reply.tasks[1]), [true; 4]);
        // They are a's leases: its outcomes count (no PERMISSION_DENIED), and max_tasks 0, as
        // older workers send, leases nothing.
        let reply = client.complete(complete(a, 1, 0)).await.unwrap().into_inner();
        assert_eq!((reply.completion, reply.tasks.len()), (pb::Completion::Accepted as i32, 0));
        assert_eq!(scheduler.stats().queued, 1);

        // A worker whose outcome is refused (it never leased task 2) gets no tasks either.
        let b = client.register(register("b")).await.unwrap().into_inner().worker_id;
        let status = client.complete(complete(b, 2, 1)).await.unwrap_err();
        assert_eq!(status.code(), Code::PermissionDenied, "{status:?}");
        assert_eq!(scheduler.stats().queued, 1);
        // An outcome under an id this master never issued is kept (task ids are fixed), but
        // nothing is leased to nobody.
        let reply = client.complete(complete(7, 2, 1)).await.unwrap().into_inner();
        assert_eq!((reply.completion, reply.tasks.len()), (pb::Completion::Accepted as i32, 0));
        assert_eq!(scheduler.stats().queued, 1);
        // A duplicate outcome still brings work to a worker that asks.
        let reply = client.complete(complete(b, 0, 1)).await.unwrap().into_inner();
        assert_eq!(reply.completion, pb::Completion::Duplicate as i32);
        assert_eq!(reply.tasks.iter().map(|t| t.id).collect::<Vec<_>>(), [3]);
        let reply = client.complete(complete(b, 3, 1)).await.unwrap().into_inner();
        assert_eq!((reply.completion, reply.tasks.len()), (pb::Completion::Accepted as i32, 0));
    });
    assert_eq!(scheduler.stats().completed, 4);
    assert_eq!(server.counters().invalid.load(std::sync::atomic::Ordering::Relaxed), 1);
    scheduler.close();
    server.shutdown();
}

/// A single-slot worker's registration, with a chromosome cache of 4096.
fn register(name: &str) -> pb::RegisterRequest {
    pb::RegisterRequest {
        name: name.into(),
        slots: 1,
        chromosome_cache: 4096,
        weight_bytes: true,
        ..Default::default()
    }
}

/// A master (with `token`, if any) serving one knockout task per entry of `games` (task i plays
/// `games[i]`), and the request completing a task with its true outcome.
fn serving(
    token: Option<&str>,
    games: &[[u64; 4]],
) -> (Arc<Scheduler>, cluster::Server, impl Fn(u64, u64, u32) -> pb::CompleteRequest + use<>) {
    let scheduler = Arc::new(Scheduler::new(Duration::from_secs(30)));
    let options = ClusterOptions::new("127.0.0.1:0".parse().unwrap(), token.map(str::to_owned));
    let server = cluster::serve(&scheduler, &options).unwrap();
    scheduler.submit(games.iter().enumerate().map(|(i, g)| (i as u64, knockout(*g))).collect());
    let outcomes: Vec<_> = games.iter().map(|g| result_to_proto(&Ok(knockout(*g).run().unwrap()))).collect();
    let complete = move |worker_id, task_id: u64, max_tasks| pb::CompleteRequest {
        worker_id,
        task_id,
        result: Some(outcomes[task_id as usize].clone()),
        max_tasks,
    };
    (scheduler, server, complete)
}

/// What a master serving with options changed by `change` says to a worker registering.
fn registered_with(change: impl FnOnce(&mut ClusterOptions)) -> pb::RegisterReply {
    let scheduler = Arc::new(Scheduler::new(Duration::from_secs(30)));
    let mut options = ClusterOptions::new("127.0.0.1:0".parse().unwrap(), None);
    change(&mut options);
    let server = cluster::serve(&scheduler, &options).unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let reply = runtime.block_on(async {
        let register = pb::RegisterRequest {
            name: "c".into(),
            slots: 1,
            chromosome_cache: 0,
            weight_bytes: true,
            ..Default::default()
        };
        raw(server.addr(), None).await.register(register).await.unwrap().into_inner()
    });
    scheduler.close();
    server.shutdown();
    reply
}

#[test]
fn deliver_answers_each_outcome_in_order_as_complete_would() {
    let (scheduler, server, complete) = serving(Some(TOKEN), &[[1, 2, 3, 4], [1, 5, 6, 7], [8, 9, 10, 11]]);
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        // The stream is a call like the others: a wrong token is refused when it opens.
        let (_requests, outbound) = loa_proto::delivery::request_channel();
        let status = raw(server.addr(), Some("wrong")).await.deliver(outbound).await.err().unwrap();
        assert_eq!(status.code(), Code::Unauthenticated, "{status:?}");

        let mut client = raw(server.addr(), Some(TOKEN)).await;
        let reply = client.register(register("a")).await.unwrap().into_inner();
        assert!(reply.delivery_stream, "the master offers the stream");
        let a = reply.worker_id;
        let lease = pb::LeaseRequest { worker_id: a, max_tasks: 1, wait_ms: 0 };
        assert_eq!(client.lease(lease).await.unwrap().into_inner().tasks[0].id, 0);
        let (requests, outbound) = loa_proto::delivery::request_channel();
        let answers = client.deliver(outbound).await.unwrap().into_inner();
        let mut stream = loa_proto::delivery::DeliveryStream::new(requests, answers);

        // A refused request is answered with Complete's status, records nothing, and the
        // stream goes on.
        let refused = stream.complete(complete(a, 0, 65)).await.unwrap().unwrap_err();
        assert_eq!(refused.code(), Code::InvalidArgument, "{refused:?}");
        assert!(refused.message().starts_with("max_tasks: at most 64"), "{}", refused.message());
        assert_eq!(scheduler.stats().completed, 0);
        // The outcome, and the next two tasks leased with it (task 1 names network 1 again, so
        // it comes by id), as Complete's reply would carry them.
        let reply = stream.complete(complete(a, 0, 2)).await.unwrap().unwrap();
        assert_eq!(reply.completion, pb::Completion::Accepted as i32);
        assert_eq!(reply.tasks.iter().map(|t| t.id).collect::<Vec<_>>(), [1, 2]);
        assert_eq!(with_weights(&reply.tasks[0]), [false, true, true, true]);
        // The same outcome again is a duplicate; an outcome of a task a never leased is refused.
        let reply = stream.complete(complete(a, 0, 0)).await.unwrap().unwrap();
        assert_eq!(reply.completion, pb::Completion::Duplicate as i32);
        let b = client
            .register(pb::RegisterRequest {
                name: "b".into(),
                slots: 1,
                chromosome_cache: 0,
                weight_bytes: true,
                ..Default::default()
            })
            .await
            .unwrap()
            .into_inner()
            .worker_id;
        let refused = stream.complete(complete(b, 1, 1)).await.unwrap().unwrap_err();
        assert_eq!(refused.code(), Code::PermissionDenied, "{refused:?}");
        // Answers stay in order after the errors.
        for task in [1, 2] {
            let reply = stream.complete(complete(a, task, 0)).await.unwrap().unwrap();
            assert_eq!((reply.completion, reply.tasks.len()), (pb::Completion::Accepted as i32, 0), "task {task}");
        }
    });
    assert_eq!(scheduler.stats().completed, 3);
    assert_eq!(server.counters().invalid.load(std::sync::atomic::Ordering::Relaxed), 1);
    scheduler.close();
    server.shutdown();

    // A master serving as one older than the stream does not offer it.
    assert!(!registered_with(|older| older.delivery_stream = false).delivery_stream);
}

#[test]
fn deliver_batches_answers_each_outcome_in_order_and_refuses_a_batch_over_its_bounds_whole() {
    let games = [[1, 2, 3, 4], [1, 5, 6, 7], [8, 9, 10, 11], [12, 13, 14, 15], [16, 17, 18, 19]];
    let (scheduler, server, complete) = serving(Some(TOKEN), &games);
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let (_requests, outbound) = loa_proto::delivery::request_channel();
        let status = raw(server.addr(), Some("wrong")).await.deliver_batches(outbound).await.err().unwrap();
        assert_eq!(status.code(), Code::Unauthenticated, "{status:?}");

        let mut client = raw(server.addr(), Some(TOKEN)).await;
        let reply = client.register(register("a")).await.unwrap().into_inner();
        assert!(reply.batch_delivery, "the master offers batches");
        let a = reply.worker_id;
        let lease = pb::LeaseRequest { worker_id: a, max_tasks: 2, wait_ms: 0 };
        let ids: Vec<u64> = client.lease(lease).await.unwrap().into_inner().tasks.iter().map(|t| t.id).collect();
        assert_eq!(ids, [0, 1]);
        let (requests, outbound) = loa_proto::delivery::request_channel();
        let answers = client.deliver_batches(outbound).await.unwrap().into_inner();
        let mut stream = loa_proto::delivery::BatchStream::new(requests, answers);

        // Over the bounds: every request refused naming them, nothing recorded, and the stream
        // goes on. 65 outcomes, or tasks asked for in all (33 + 32 + 0 on valid outcomes).
        let too_many: Vec<_> = (0..65).map(|_| complete(a, 0, 0)).collect();
        let answers = stream.complete_all(too_many, 0).await.unwrap();
        assert_eq!(answers.len(), 65);
        for answer in &answers {
            let refused = answer.as_ref().unwrap_err();
            assert_eq!(refused.code(), Code::InvalidArgument, "{refused:?}");
            assert!(refused.message().contains("got 65 asking for 0"), "{}", refused.message());
        }
        let asking = vec![complete(a, 0, 33), complete(a, 1, 32)];
        let answers = stream.complete_all(asking, 0).await.unwrap();
        assert!(answers.iter().all(|a| a.as_ref().unwrap_err().message().contains("got 2 asking for 65")));
        assert_eq!(scheduler.stats().completed, 0);
        assert_eq!(server.counters().invalid.load(std::sync::atomic::Ordering::Relaxed), 2);

        // An empty batch gets an empty answer.
        assert!(stream.complete_all(Vec::new(), 0).await.unwrap().is_empty());

        // Each request is answered as Deliver would, in order: two outcomes (the last leasing
        // tasks 2 and 3), a duplicate, and one refused (b never leased task 4), which does not
        // stop the ones after it.
        let b = client.register(register("b")).await.unwrap().into_inner().worker_id;
        let batch = vec![complete(a, 0, 0), complete(a, 1, 2), complete(a, 0, 0), complete(b, 4, 0), complete(a, 1, 0)];
        let answers = stream.complete_all(batch, 0).await.unwrap();
        let completion = |i: usize| answers[i].as_ref().unwrap().completion;
        assert_eq!(completion(0), pb::Completion::Accepted as i32);
        assert_eq!(completion(1), pb::Completion::Accepted as i32);
        let leased = &answers[1].as_ref().unwrap().tasks;
        assert_eq!(leased.iter().map(|t| t.id).collect::<Vec<_>>(), [2, 3]);
        assert!(answers[0].as_ref().unwrap().tasks.is_empty());
        assert_eq!(completion(2), pb::Completion::Duplicate as i32);
        assert_eq!(answers[3].as_ref().unwrap_err().code(), Code::PermissionDenied);
        assert_eq!(completion(4), pb::Completion::Duplicate as i32);
        // The leases are a's: its outcomes of them count.
        let answers = stream.complete_all(vec![complete(a, 2, 0), complete(a, 3, 0)], 0).await.unwrap();
        assert!(answers.iter().all(|a| a.as_ref().unwrap().completion == pb::Completion::Accepted as i32));
    });
    assert_eq!(scheduler.stats().completed, 4);
    assert_eq!(scheduler.stats().queued, 1);
    scheduler.close();
    server.shutdown();

    // A master serving as one older than batches does not offer them.
    assert!(!registered_with(|older| older.batch_delivery = false).batch_delivery);
}

#[test]
fn a_batch_that_leaves_its_worker_with_nothing_waits_for_tasks_only_when_asked() {
    let games = [[1, 2, 3, 4], [1, 5, 6, 7], [8, 9, 10, 11], [12, 13, 14, 15]];
    let (scheduler, server, complete) = serving(None, &games);
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let mut client = raw(server.addr(), None).await;
        let a = client.register(register("a")).await.unwrap().into_inner().worker_id;
        let b = client.register(register("b")).await.unwrap().into_inner().worker_id;
        for (worker, expected) in [(a, [0, 1]), (b, [2, 3])] {
            let lease = pb::LeaseRequest { worker_id: worker, max_tasks: 2, wait_ms: 0 };
            let ids: Vec<u64> = client.lease(lease).await.unwrap().into_inner().tasks.iter().map(|t| t.id).collect();
            assert_eq!(ids, expected);
        }
        let (requests, outbound) = loa_proto::delivery::request_channel();
        let answers = client.deliver_batches(outbound).await.unwrap().into_inner();
        let mut stream = loa_proto::delivery::BatchStream::new(requests, answers);
        let leased = |answers: &[loa_proto::delivery::Answer]| -> Vec<u64> {
            answers.last().unwrap().as_ref().unwrap().tasks.iter().map(|t| t.id).collect()
        };

        // Not asked to wait: the reply comes at once, with nothing to lease.
        let begun = Instant::now();
        let answers = stream.complete_all(vec![complete(a, 0, 0), complete(a, 1, 2)], 0).await.unwrap();
        assert!(leased(&answers).is_empty());
        assert!(begun.elapsed() < Duration::from_millis(500), "{:?}", begun.elapsed());

        // Asked, but b still holds task 3 (it may yet deliver it on this stream): at once.
        let begun = Instant::now();
        let answers = stream.complete_all(vec![complete(b, 2, 1)], 10_000).await.unwrap();
        assert!(leased(&answers).is_empty());
        assert!(begun.elapsed() < Duration::from_millis(500), "{:?}", begun.elapsed());

        // a holds nothing: its reply waits the time asked, and nothing comes.
        let begun = Instant::now();
        let answers = stream.complete_all(vec![complete(a, 0, 2)], 300).await.unwrap();
        assert_eq!(answers[0].as_ref().unwrap().completion, pb::Completion::Duplicate as i32);
        assert!(leased(&answers).is_empty());
        assert!(begun.elapsed() >= Duration::from_millis(300), "{:?}", begun.elapsed());

        // Tasks submitted while it waits come in the reply, which a Lease call would have fetched.
        let submitter = Arc::clone(&scheduler);
        let next_step = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(300));
            submitter.submit(vec![(4, knockout(games[0])), (5, knockout(games[1]))]);
        });
        let begun = Instant::now();
        let answers = stream.complete_all(vec![complete(a, 1, 2)], 10_000).await.unwrap();
        let waited = begun.elapsed();
        assert_eq!(leased(&answers), [4, 5]);
        assert!(waited >= Duration::from_millis(250) && waited < Duration::from_secs(5), "{waited:?}");
        next_step.join().unwrap();
    });
    assert_eq!(scheduler.stats().completed, 3);
    scheduler.close();
    server.shutdown();
}
