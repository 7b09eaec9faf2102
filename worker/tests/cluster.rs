//! A master in cluster mode with in-process workers on 127.0.0.1: the same checkpoints as an
//! embedded run, workers that crash, wrong tokens and malformed messages.

use loa_master::cluster::TlsIdentity;
use loa_master::run::{RunDir, resume};
use loa_proto::pb;
use loa_worker::{WorkerError, WorkerOptions, spawn};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};
use tonic::Code;

mod common;
use common::*;

#[test]
fn three_remote_workers_give_the_checkpoints_of_an_embedded_run() {
    let (_tmp, reference, cluster) = dirs();
    let config = tiny(2, 1);
    let expected = embedded(&config, &reference);
    let m = master(&config, &cluster, Duration::from_secs(5));
    let workers: Vec<_> = (0..3).map(|i| worker(m.addr, &format!("w{i}"), TOKEN)).collect();
    let summary = m.thread.join().unwrap();
    assert_eq!(summary, expected);
    let reports: Vec<_> = workers.into_iter().map(|w| w.stop().unwrap()).collect();
    let accepted: u64 = reports.iter().map(|r| r.accepted).sum();
    // 4 generations of 4 tournaments (one per survivor), plus 3 benchmarks of 4 individuals.
    assert_eq!(accepted, 16 + 12, "{reports:?}");
    // Tasks this small may all go to the first workers to connect, so only the total is fixed.
    assert!(reports.iter().all(|r| r.registrations == 1 && r.undelivered == 0), "{reports:?}");
    same_run(&reference, &cluster, 2);
    // run.log has a per-worker line for each generation, whose counts add up to its 4 tasks.
    let log = String::from_utf8(read(&RunDir::new(&cluster).log())).unwrap();
    // Registrations are logged: w0's at least, as w0 took part in every generation.
    assert!(log.lines().any(|l| l.contains("worker w0 (1 slots, 127.0.0.1:") && l.ends_with(" registered")), "{log}");
    let lines: Vec<_> = log.lines().filter(|l| l.contains("workers, generation")).collect();
    assert_eq!(lines.len(), 4, "{log}");
    for line in lines {
        let tasks: u64 = line
            .split([':', ';'])
            .filter(|part| part.contains(" tasks "))
            .filter_map(|part| part.split(" tasks ").next()?.rsplit(' ').next()?.parse::<u64>().ok())
            .sum();
        assert_eq!(tasks, 4, "{line}");
        assert!(line.contains("w0 (1 slots"), "{line}");
    }
    // generations.jsonl has the same detail, per worker (an embedded run's has none).
    let embedded_generations = String::from_utf8(read(&RunDir::new(&reference).generations())).unwrap();
    assert!(!embedded_generations.contains("worker_detail"), "{embedded_generations}");
    let generations = String::from_utf8(read(&RunDir::new(&cluster).generations())).unwrap();
    for line in generations.lines() {
        let record: loa_records::GenerationRecord = serde_json::from_str(line).unwrap();
        assert_eq!(record.worker_detail.iter().map(|w| w.tasks).sum::<u64>(), 4, "{line}");
        assert_eq!(record.worker_detail.len(), 3, "{line}");
    }
}

#[test]
fn a_crashed_worker_is_dropped_and_its_tasks_replayed_elsewhere() {
    let (_tmp, reference, cluster) = dirs();
    // Depth 2 makes tasks long enough that the crash happens mid-run.
    let config = tiny(3, 2);
    embedded(&config, &reference);
    let m = master(&config, &cluster, Duration::from_secs(1));
    // A worker that leases two tasks and vanishes, deterministically holding leases.
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let mut c = raw(m.addr, Some(TOKEN)).await;
        let mut stream = RawStream::register(&mut c, registration("vanishing", 0), 2).await;
        assert_eq!(stream.tasks(2).await.len(), 2);
    });
    drop(runtime);
    let doomed = worker(m.addr, "doomed", TOKEN);
    let steady = worker(m.addr, "steady", TOKEN);
    // The epoch-0 benchmark is done once its line is written (the initial population's
    // checkpoint exists from the start).
    let epochs = RunDir::new(&cluster).epochs();
    let started = Instant::now();
    while !epochs.exists() {
        assert!(started.elapsed() < Duration::from_secs(20), "no progress");
        std::thread::sleep(Duration::from_millis(5));
    }
    // A real worker killed mid-run: no outcomes, no leave.
    let crash = doomed.kill().unwrap();
    assert_eq!(crash.registrations, 1);
    let newcomer = worker(m.addr, "newcomer", TOKEN);
    let summary = m.thread.join().unwrap();
    assert_eq!((summary.epoch, summary.stopped), (3, false));
    same_run(&reference, &cluster, 3);
    let (steady, newcomer) = (steady.stop().unwrap(), newcomer.stop().unwrap());
    assert!(steady.accepted > 0 && newcomer.accepted > 0, "{steady:?} {newcomer:?}");
    let log = String::from_utf8(read(&RunDir::new(&cluster).log())).unwrap();
    // The vanished worker's two leases came back to the queue (on the lease deadline, or when it
    // was dropped as silent), and the doomed worker's, if it held any.
    let summary = log.lines().find(|l| l.contains("cluster:")).unwrap_or_default();
    let re_leased: u64 = summary
        .split(", ")
        .find_map(|part| part.strip_suffix(" re-leased").and_then(|n| n.parse().ok()))
        .unwrap_or_else(|| panic!("no re-leased count in {summary:?}"));
    assert!(re_leased >= 2, "{log}");
    // Both were dropped as soon as their streams broke, named in the log and the summary,
    // and the dead worker is not listed in the generations that followed its drop.
    for name in ["vanishing", "doomed"] {
        let dropped = format!("worker {name} (1 slots, 127.0.0.1:");
        let line = log.lines().find(|l| l.contains(&dropped) && l.contains(") dropped: "));
        let line = line.unwrap_or_else(|| panic!("{name} not dropped: {log}"));
        assert!(line.ends_with("dropped: its stream broke"), "{line}");
        assert!(summary.contains(&format!("{name} (1 slots")), "{summary}");
    }
    // The drop is the last line that names it (its registration comes first).
    let after_drop = log.rsplit("worker doomed (1 slots").next().unwrap_or_default();
    let worker_lines: Vec<_> = after_drop.lines().filter(|l| l.contains("workers, generation")).collect();
    assert!(worker_lines.iter().all(|l| !l.contains("doomed")), "{worker_lines:?}");
}

#[test]
fn wrong_tokens_and_malformed_messages_are_refused_and_the_run_goes_on() {
    let (_tmp, reference, cluster) = dirs();
    let config = tiny(1, 1);
    let expected = embedded(&config, &reference);
    let m = master(&config, &cluster, Duration::from_secs(5));

    // A worker with the wrong token gives up at once with a clear error.
    let err = worker(m.addr, "intruder", "wrong").join().unwrap_err();
    assert!(matches!(err, WorkerError::Refused(_)), "{err}");

    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let mut anonymous = raw(m.addr, None).await;
        let status = anonymous.register(registration("x", 0)).await.unwrap_err();
        assert_eq!(status.code(), Code::Unauthenticated);

        let mut c = raw(m.addr, Some(TOKEN)).await;
        let status = c.register(pb::RegisterRequest { slots: 0, ..registration("x", 0) }).await.unwrap_err();
        assert_eq!(status.code(), Code::InvalidArgument);
        let reply = c.register(registration("raw", 0)).await.unwrap().into_inner();
        let (id, credential) = (reply.worker_id, reply.credential);
        let status = RawStream::open(&mut c, id ^ 1, &credential, 0).await.err().unwrap();
        assert_eq!((status.code(), status.message()), (Code::NotFound, "unknown worker: re-register"));

        let mut stream = RawStream::open(&mut c, id, &credential, 1).await.unwrap();
        let task = stream.tasks(1).await.remove(0);
        let (task_id, engine_task) = loa_proto::convert::task_from_proto(task, &|_| None).unwrap();
        let outcome = Ok(engine_task.run().unwrap());
        let good = loa_proto::convert::outcome_to_proto(task_id, &outcome, 0);

        // A malformed outcome: refused with the field named, not recorded, and the worker that
        // sent it dropped (its lease goes back to the queue); its id is unknown from then on.
        let mut bad = good.clone();
        let Some(pb::outcome::Result::Match(m)) = bad.result.as_mut() else { panic!("the master sends match tasks") };
        m.matches[0].games.pop();
        let status = stream.deliver(vec![bad], 0).await.unwrap_err();
        assert_eq!(status.code(), Code::InvalidArgument);
        assert!(status.message().contains("outcomes[0].match.matches[0].games"), "{}", status.message());
        let status = RawStream::open(&mut c, id, &credential, 0).await.err().unwrap();
        assert_eq!(status.code(), Code::NotFound, "the garbage sender was dropped");

        // Registered again: a valid outcome for a task id the master never issued is counted as
        // unknown. The real outcome, leased under the dropped id, and failures under that id or
        // one never issued are refused naming why: none is recorded, so no failure ends the run.
        let mut stream = RawStream::register(&mut c, registration("raw", 0), 0).await;
        let unknown = loa_proto::convert::outcome_to_proto(1 << 50, &outcome, 0);
        let receipt = stream.deliver(vec![unknown], 0).await.unwrap();
        assert_eq!((receipt.accepted, receipt.unknown), (0, 1));
        let failure = Err(loa_engine::tasks::TaskFailure::Reported("forged".into()));
        let stale = [
            loa_proto::convert::outcome_to_proto(task_id, &outcome, id),
            loa_proto::convert::outcome_to_proto(task_id, &failure, id),
            loa_proto::convert::outcome_to_proto(task_id, &failure, (id ^ (1 << 40)) | 1),
        ];
        let receipt = stream.deliver(stale.to_vec(), 0).await.unwrap();
        assert_eq!((receipt.accepted, receipt.duplicates, receipt.refused.len()), (0, 0, 3), "{receipt:?}");
        for refusal in &receipt.refused {
            assert_eq!(refusal.task_id, task_id);
            assert!(refusal.reason.contains("a worker id this master does not know"), "{}", refusal.reason);
        }
        stream.leave().await;
    });

    let honest = worker(m.addr, "honest", TOKEN);
    let summary = m.thread.join().unwrap();
    assert_eq!(summary, expected);
    same_run(&reference, &cluster, 1);
    honest.stop().unwrap();
    m.stop.store(true, Ordering::Release);
    let log = String::from_utf8(read(&RunDir::new(&cluster).log())).unwrap();
    assert!(log.contains("0 duplicates, 1 unknown, 3 not leased to their sender, 0 failed"), "{log}");
    assert!(log.contains("2 calls refused (token), 2 malformed requests"), "{log}");
}

#[test]
fn a_run_over_tls_matches_an_embedded_run_and_untrusting_workers_are_refused() {
    let (_tmp, reference, cluster) = dirs();
    let config = tiny(1, 1);
    let expected = embedded(&config, &reference);
    // A self-signed certificate for the address the workers dial, and an unrelated one.
    let master_cert = rcgen::generate_simple_self_signed(vec!["127.0.0.1".to_owned()]).unwrap();
    let stranger = rcgen::generate_simple_self_signed(vec!["127.0.0.1".to_owned()]).unwrap();
    let tls = TlsIdentity {
        cert_pem: master_cert.cert.pem().into_bytes(),
        key_pem: master_cert.signing_key.serialize_pem().into_bytes(),
    };
    let m = master_tls(&config, &cluster, Duration::from_secs(5), Some(tls));
    let url = format!("https://{}", m.addr);

    // A worker trusting another CA gives up at once, naming the certificate problem.
    let err = worker_at(&url, "untrusting", TOKEN, Some(&stranger.cert.pem())).join().unwrap_err();
    assert!(matches!(err, WorkerError::Untrusted(_)), "{err}");
    assert!(err.to_string().contains("--tls-ca"), "{err}");
    // Without a CA an https URL is refused before any call; with one, an http URL is.
    let err = worker_at(&url, "no-ca", TOKEN, None).join().unwrap_err();
    assert!(matches!(&err, WorkerError::Options(m) if m.contains("--tls-ca")), "{err}");
    let plain = format!("http://{}", m.addr);
    let err = worker_at(&plain, "mixed", TOKEN, Some(&master_cert.cert.pem())).join().unwrap_err();
    assert!(matches!(&err, WorkerError::Options(m) if m.contains("https://")), "{err}");

    let trusting = worker_at(&url, "trusting", TOKEN, Some(&master_cert.cert.pem()));
    let summary = m.thread.join().unwrap();
    assert_eq!(summary, expected);
    same_run(&reference, &cluster, 1);
    let report = trusting.stop().unwrap();
    // 2 generations of 4 tournaments and 2 benchmarks of 4 individuals, all over TLS.
    assert_eq!((report.accepted, report.undelivered), (16, 0), "{report:?}");
}

#[test]
fn a_master_stopped_and_resumed_on_its_port_gets_its_workers_back() {
    let (_tmp, reference, cluster) = dirs();
    // The stop comes after epoch 0; the resumed part must outlast the workers' retry pauses by
    // far, or the first worker back plays it all before the other retries (CI saw that when the
    // resumed part took 60 ms against pauses of up to 200 ms). Four epochs at depth 3 take about
    // 0.4 s here, against pauses of at most 20 ms.
    let config = tiny(4, 3);
    let expected = embedded(&config, &reference);
    let first = master(&config, &cluster, Duration::from_secs(5));
    let addr = first.addr;
    let workers: Vec<_> = (0..2)
        .map(|i| {
            let options = worker_options(&format!("http://{addr}"), &format!("w{i}"), TOKEN, None);
            spawn(WorkerOptions { max_backoff: Duration::from_millis(20), ..options }).unwrap()
        })
        .collect();
    // The epoch-0 benchmark is done once its line is written (the initial population's
    // checkpoint exists from the start).
    let epochs = RunDir::new(&cluster).epochs();
    let started = Instant::now();
    while !epochs.exists() {
        assert!(started.elapsed() < Duration::from_secs(20), "no progress");
        std::thread::sleep(Duration::from_millis(5));
    }
    // Stop the master mid-run (as Ctrl-C does): it drops the work in hand and stops serving.
    first.stop.store(true, Ordering::Release);
    let stopped = first.thread.join().unwrap();
    assert!(stopped.stopped && stopped.epoch < 2, "{stopped:?}");

    // A new master on the same port resumes; the same worker processes, which kept retrying,
    // register with it again and finish the run.
    let dir = cluster.clone();
    let second =
        master_on(addr, Duration::from_secs(5), None, move |options| resume(&dir, None, None, &options).unwrap());
    assert_eq!(second.addr, addr);
    let summary = second.thread.join().unwrap();
    assert_eq!((summary.epoch, summary.generation, summary.stopped), (4, 8, false));
    assert_eq!(summary.last_report, expected.last_report);
    same_run(&reference, &cluster, 4);
    let reports: Vec<_> = workers.into_iter().map(|w| w.stop().unwrap()).collect();
    // Both served both masters: registered once with each.
    assert!(reports.iter().all(|r| r.registrations == 2), "{reports:?}");
    assert!(reports.iter().map(|r| r.accepted).sum::<u64>() > 0, "{reports:?}");
}

#[test]
fn a_run_that_validates_on_remote_workers_writes_the_validation_lines_of_an_embedded_run() {
    let (_tmp, reference, cluster) = dirs();
    let mut config = tiny(2, 1);
    config.validation = Some(loa_master::config::ValidationConfig {
        opponents: vec!["aloa:1".into(), "random:1".into()],
        matches: 6,
        seed: 9,
        ..Default::default()
    });
    let expected = embedded(&config, &reference);
    let m = master(&config, &cluster, Duration::from_secs(5));
    let workers: Vec<_> = (0..2).map(|i| worker(m.addr, &format!("w{i}"), TOKEN)).collect();
    assert_eq!(m.thread.join().unwrap(), expected);
    let accepted: u64 = workers.into_iter().map(|w| w.stop().unwrap().accepted).sum();
    // 4 generations of 4 tournaments, 3 benchmarks of 4 individuals, and 3 validations of
    // 2 opponents × 2 tasks (3 openings, 2 a task).
    assert_eq!(accepted, 16 + 12 + 12);
    let lines = |dir: &std::path::Path| {
        let records = loa_records::jsonl::read::<loa_records::ValidationRecord>(&RunDir::new(dir).validation());
        records.unwrap().records.iter().map(loa_records::ValidationRecord::deterministic_part).collect::<Vec<_>>()
    };
    let expected_lines = lines(&reference);
    assert_eq!(expected_lines.len(), 6);
    assert_eq!(lines(&cluster), expected_lines);
    assert_eq!(read(&RunDir::new(&cluster).epochs()), read(&RunDir::new(&reference).epochs()));
}

#[test]
fn remote_workers_play_a_5x5_run_with_its_own_network_shape_as_an_embedded_run_does() {
    let (_tmp, reference, cluster) = dirs();
    let mut config = tiny(2, 1);
    config.network = "5x5-board-25-12-1".parse().unwrap();
    config.rules.ply_cap = 30;
    let expected = embedded(&config, &reference);
    let m = master(&config, &cluster, Duration::from_secs(5));
    let workers: Vec<_> = (0..2).map(|i| worker(m.addr, &format!("w{i}"), TOKEN)).collect();
    assert_eq!(m.thread.join().unwrap(), expected);
    let accepted: u64 = workers.into_iter().map(|w| w.stop().unwrap().accepted).sum();
    assert_eq!(accepted, 16 + 12, "every tournament and benchmark task played remotely");
    same_run(&reference, &cluster, 2);
    let kept = String::from_utf8(read(&RunDir::new(&cluster).config())).unwrap();
    assert!(kept.lines().any(|l| l == "network = \"5x5-board-25-12-1\""), "{kept}");
}

#[test]
fn a_worker_whose_name_the_master_does_not_allow_stops_saying_why() {
    use loa_master::cluster::{self, ClusterOptions};
    let scheduler = std::sync::Arc::new(loa_master::scheduler::Scheduler::new(Duration::from_secs(30)));
    let mut options = ClusterOptions::new("127.0.0.1:0".parse().unwrap(), Some(TOKEN.into()));
    options.allowed_workers = Some(["node1".to_owned()].into());
    let server = cluster::serve(&scheduler, &options).unwrap();
    let err = worker(server.addr, "node7", TOKEN).join().unwrap_err();
    assert!(
        matches!(&err, WorkerError::Refused(m) if m.contains("\"node7\"") && m.contains("--allow-workers")),
        "{err}"
    );
    let allowed = worker(server.addr, "node1", TOKEN);
    let started = Instant::now();
    while server.counters.joins().is_empty() {
        assert!(started.elapsed() < Duration::from_secs(60), "node1 did not register");
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(server.counters.joins()[0].starts_with("node1 "), "{:?}", server.counters.joins());
    let _ = allowed.stop();
    scheduler.close();
}
