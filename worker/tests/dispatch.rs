//! Leases riding on outcomes (issue 14): a `Complete` that asks for tasks (`max_tasks`) gets them
//! in its reply, leased as by `Lease`. Workers that use it, older workers that call `Lease` after
//! every `Complete`, and both together write the checkpoints of an embedded run byte for byte,
//! every task counted once, and so does a worker meeting a master older than the call; the master
//! refuses a malformed `max_tasks` naming it, before it records anything, and never leases to a
//! caller it does not know or whose outcome it refuses.

use loa_master::cluster::{self, ClusterOptions};
use loa_master::scheduler::Scheduler;
use loa_proto::convert::result_to_proto;
use loa_proto::pb;
use loa_worker::{WorkerOptions, WorkerReport, spawn};
use std::sync::Arc;
use std::time::Duration;
use tonic::Code;

mod common;
use common::*;

/// A worker on `addr` with `slots` slots that leases with its outcomes or (`combined` false) as
/// workers before issue 14 did.
fn worker_with(addr: std::net::SocketAddr, name: &str, slots: usize, combined: bool) -> loa_worker::WorkerHandle {
    let mut options = WorkerOptions::new(format!("http://{addr}"));
    options.slots = slots;
    options.token = Some(TOKEN.into());
    options.name = name.into();
    options.max_backoff = Duration::from_millis(200);
    options.complete_leases = combined;
    spawn(options).unwrap()
}

/// A cluster run of `config` into `out` with workers `(name, slots, combined)`; their reports.
fn run_with(
    config: &loa_master::config::ExperimentConfig,
    out: &std::path::Path,
    workers: &[(&str, usize, bool)],
) -> Vec<WorkerReport> {
    let m = master(config, out, Duration::from_secs(5));
    let handles: Vec<_> =
        workers.iter().map(|&(name, slots, combined)| worker_with(m.addr, name, slots, combined)).collect();
    m.thread.join().unwrap();
    handles.into_iter().map(|w| w.stop().unwrap()).collect()
}

/// A master that serves as one older than issue 14's combined call (it never offers leases in
/// `Complete` replies), running `config` into `out` in the background.
fn older_master(config: &loa_master::config::ExperimentConfig, out: &std::path::Path) -> Master {
    let mut cluster = ClusterOptions::new("127.0.0.1:0".parse().unwrap(), Some(TOKEN.into()));
    cluster.lease_time = Duration::from_secs(5);
    cluster.complete_leases = false;
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
fn combined_separate_mixed_and_older_master_runs_give_the_checkpoints_of_an_embedded_run() {
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

    // One single-slot worker leasing with its outcomes: after a batch's first Lease, its tasks
    // come in Complete replies (it holds two ahead, so all but two of each batch).
    let combined = tmp.path().join("combined");
    let r = run_with(&config, &combined, &[("combined", 1, true)]);
    same_run(&reference, &combined, 2);
    each_task_once(&r);
    assert!(r[0].leased_with_outcomes >= TASKS / 2, "{r:?}");
    // Its cache met the ids in the master's order across Lease and Complete replies: nothing was
    // fetched, and the survivors came back by id.
    assert!(r[0].fetched == 0 && r[0].cache_hits > 0, "{r:?}");

    // The same worker leasing the old way (Lease after every Complete): the same run.
    let separate = tmp.path().join("separate");
    let r = run_with(&config, &separate, &[("separate", 1, false)]);
    same_run(&reference, &separate, 2);
    each_task_once(&r);
    assert_eq!(r[0].leased_with_outcomes, 0, "{r:?}");

    // Both kinds at once, and a two-slot worker whose outcomes come in together.
    let mixed = tmp.path().join("mixed");
    let r = run_with(&config, &mixed, &[("new", 1, true), ("old", 1, false), ("wide", 2, true)]);
    same_run(&reference, &mixed, 2);
    each_task_once(&r);
    assert_eq!(r[1].leased_with_outcomes, 0, "{r:?}");
    assert!(r[0].leased_with_outcomes + r[2].leased_with_outcomes > 0, "{r:?}");
    assert!(r.iter().all(|w| w.fetched == 0), "{r:?}");

    // A worker that would lease with its outcomes, meeting a master older than that: it leases
    // with Lease alone, and the run is the same.
    let older = tmp.path().join("older");
    let m = older_master(&config, &older);
    let w = worker_with(m.addr, "new-on-old", 1, true);
    m.thread.join().unwrap();
    let r = vec![w.stop().unwrap()];
    same_run(&reference, &older, 2);
    each_task_once(&r);
    assert_eq!(r[0].leased_with_outcomes, 0, "{r:?}");
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
    let scheduler = Arc::new(Scheduler::new(Duration::from_secs(30)));
    let server = cluster::serve(&scheduler, &ClusterOptions::new("127.0.0.1:0".parse().unwrap(), None)).unwrap();
    let games = [[1, 2, 3, 4], [1, 5, 6, 7], [8, 9, 10, 11], [12, 13, 14, 15]];
    scheduler.submit(games.iter().enumerate().map(|(i, g)| (i as u64, knockout(*g))).collect());
    let outcome = |t: usize| Some(result_to_proto(&Ok(knockout(games[t]).run().unwrap())));
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let mut client = raw(server.addr(), None).await;
        let register = |name: &str| pb::RegisterRequest {
            name: name.into(),
            slots: 1,
            chromosome_cache: 4096,
            weight_bytes: true,
        };
        let reply = client.register(register("a")).await.unwrap().into_inner();
        assert!(reply.complete_leases, "the master offers leases with outcomes");
        let a = reply.worker_id;
        let lease = pb::LeaseRequest { worker_id: a, max_tasks: 1, wait_ms: 0 };
        let t0 = client.lease(lease).await.unwrap().into_inner().tasks;
        assert_eq!(t0.iter().map(|t| t.id).collect::<Vec<_>>(), [0]);

        // More than a call may lease: refused naming the field, and nothing recorded.
        let complete = |worker_id, task_id: u64, max_tasks| pb::CompleteRequest {
            worker_id,
            task_id,
            result: outcome(task_id as usize),
            max_tasks,
        };
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
