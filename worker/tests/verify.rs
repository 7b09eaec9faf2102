//! Verification by replay against a lying worker: a test harness (never part of the worker)
//! that speaks the protocol, plays its tasks honestly and flips the winner of a share of its
//! outcomes. With verification the run still ends with the checkpoints of an embedded run, the
//! liar is quarantined, and lies the run already took are undone by a rollback.

use loa_engine::game::MatchSide;
use loa_master::cluster::ClusterOptions;
use loa_master::run::{RunDir, start};
use loa_master::scheduler::{VerifyRate, sampled};
use loa_proto::convert::{outcome_to_proto, task_from_proto};
use loa_proto::pb;
use std::time::{Duration, Instant};
use tonic::Code;

mod common;
use common::*;

/// What became of the liar.
#[derive(Debug)]
struct Liar {
    /// Outcomes it sent, and of those the ones it flipped.
    sent: usize,
    flipped: usize,
    /// How its stream or registration ended.
    ended: tonic::Status,
    /// Its worker id and credential.
    id: u64,
    credential: String,
}

/// Whether the liar flips the outcome of task `id`: a share `share` of the ids, by a hash.
fn flips(id: u64, share: f64) -> bool {
    sampled(0x5eed, VerifyRate::new(share).unwrap(), id)
}

/// Whether task `id` is an epoch's benchmark (the run's task ids mark them by bit 23).
fn is_benchmark(id: u64) -> bool {
    id & (1 << 23) != 0
}

/// A worker named "liar" that plays every task it leases honestly, flips the winner of a share
/// `share` of its outcomes, and goes on until the master ends its stream or refuses it.
async fn lie(addr: std::net::SocketAddr, share: f64) -> Liar {
    lie_as(addr, move |id| flips(id, share), "liar", "127.0.0.1".parse().unwrap(), Duration::ZERO, None).await
}

/// [`lie`] as `name`, flipping the tasks `lies_on` picks, connecting from `from`, taking `pause`
/// more over each task, saying on `registered` once it is registered.
async fn lie_as(
    addr: std::net::SocketAddr,
    lies_on: impl Fn(u64) -> bool,
    name: &str,
    from: std::net::IpAddr,
    pause: Duration,
    registered: Option<std::sync::mpsc::Sender<()>>,
) -> Liar {
    let mut c = raw_from(addr, Some(TOKEN), from).await;
    // No chromosome cache: every network comes with its weights.
    let mut stream = RawStream::register(&mut c, registration(name, 0), 1).await;
    if let Some(registered) = registered {
        let _ = registered.send(());
    }
    let (id, credential) = (stream.id, stream.credential.clone());
    let liar = |sent, flipped, ended| Liar { sent, flipped, ended, id, credential: credential.clone() };
    let (mut sent, mut flipped) = (0, 0);
    loop {
        // Tasks that came with a receipt first; else wait, with a heartbeat every second.
        let task = match stream.tasks.pop() {
            Some(task) => task,
            None => match tokio::time::timeout(Duration::from_secs(1), stream.next()).await {
                Err(_) => {
                    stream.send(pb::WorkerMessage { worker_id: 0, outcomes: vec![], want: 0 }).await;
                    continue;
                }
                Ok(Ok(Some(message))) => {
                    stream.tasks.extend(message.tasks);
                    continue;
                }
                Ok(Ok(None)) => return liar(sent, flipped, tonic::Status::ok("the stream ended")),
                Ok(Err(ended)) => return liar(sent, flipped, ended),
            },
        };
        let (id, task) = task_from_proto(task, &|_| None).expect("a task with weights");
        let mut outcome = task.run().expect("a valid task");
        if lies_on(id) {
            // The last match only: a knockout's earlier winners decide who meets later, so the
            // outcome still fits its task (the master refuses one that does not).
            if let loa_engine::tasks::TaskOutcome::Match(o) = &mut outcome
                && let Some(m) = o.matches.last_mut()
            {
                m.winner = if m.winner == MatchSide::A { MatchSide::B } else { MatchSide::A };
            }
            flipped += 1;
        }
        sent += 1;
        tokio::time::sleep(pause).await;
        if let Err(ended) = stream.deliver(vec![outcome_to_proto(id, &Ok(outcome), 0)], 1).await {
            return liar(sent, flipped, ended);
        }
    }
}

/// Runs the liar in a thread of its own, on a runtime of its own.
fn spawn_liar(addr: std::net::SocketAddr, share: f64) -> std::thread::JoinHandle<Liar> {
    std::thread::spawn(move || tokio::runtime::Runtime::new().unwrap().block_on(lie(addr, share)))
}

/// A master verifying `rate` of the remote outcomes under `key` (random if `None`), the master
/// playing none of the verifications itself unless a worker's copy cannot settle it.
fn verifying(
    config: &loa_master::config::ExperimentConfig,
    out: &std::path::Path,
    rate: VerifyRate,
    key: Option<u64>,
) -> Master {
    verifying_by(config, out, rate, key, VerifyRate::OFF)
}

/// [`verifying`], the master playing `by_master` of the verifications itself.
fn verifying_by(
    config: &loa_master::config::ExperimentConfig,
    out: &std::path::Path,
    rate: VerifyRate,
    key: Option<u64>,
    by_master: VerifyRate,
) -> Master {
    let mut cluster = ClusterOptions::new("127.0.0.1:0".parse().unwrap(), Some(TOKEN.into()));
    cluster.lease_time = Duration::from_secs(10);
    (cluster.verify, cluster.verify_key, cluster.verify_by_master) = (rate, key, by_master);
    let (config, out) = (config.clone(), out.to_path_buf());
    master_with(cluster, move |options| start(config, &out, &options).unwrap())
}

/// The run log's cluster summary line.
fn summary_line(dir: &std::path::Path) -> String {
    let log = std::fs::read_to_string(RunDir::new(dir).log()).unwrap();
    log.lines().find(|l| l.contains(" cluster: ")).unwrap_or_else(|| panic!("no summary: {log}")).to_owned()
}

/// The number before `label` in the summary line.
fn count(line: &str, label: &str) -> u64 {
    let before = line.split(&format!(" {label}")).next().unwrap();
    before.rsplit([' ', ':']).next().unwrap().parse().unwrap_or_else(|_| panic!("{label} in {line}"))
}

fn assert_quarantined(liar: &Liar) {
    assert_eq!(liar.ended.code(), Code::Unauthenticated, "{liar:?}");
    assert!(liar.ended.message().starts_with("quarantined"), "{liar:?}");
    assert!(liar.flipped > 0, "{liar:?}");
}

#[test]
fn with_every_outcome_verified_a_liar_beside_an_honest_worker_changes_nothing() {
    let (_tmp, reference, cluster) = dirs();
    let config = tiny(3, 1);
    let expected = embedded(&config, &reference);
    let master = verifying(&config, &cluster, VerifyRate::ALL, None);
    let liar = spawn_liar(master.addr, 0.5);
    let honest = worker(master.addr, "honest", TOKEN);
    let summary = master.thread.join().unwrap();
    let _ = honest.stop();
    let liar = liar.join().unwrap();
    assert_eq!(summary, expected);
    same_run(&reference, &cluster, 3);
    assert_eq!(generation_lines(&RunDir::new(&reference)), generation_lines(&RunDir::new(&cluster)));
    assert_quarantined(&liar);
    let line = summary_line(&cluster);
    // Every lie was held, so none was taken: no rollback.
    assert!(count(&line, "mismatches") >= 1, "{line}");
    assert_eq!((count(&line, "liars quarantined"), count(&line, "rollbacks")), (1, 0), "{line}");
    let log = std::fs::read_to_string(RunDir::new(&cluster).log()).unwrap();
    assert!(log.lines().any(|l| l.contains("verification: quarantined liar (1 slots, 127.0.0.1:")), "{log}");
}

#[test]
fn a_lie_the_run_already_took_is_undone_by_a_rollback() {
    let (_tmp, reference, cluster) = dirs();
    let config = tiny(3, 1);
    let expected = embedded(&config, &reference);
    // At a rate of one half, a key that verifies none of the first benchmark's tasks (ids 2^23 +
    // index) and every one of the first generation's (2^24 + index): the liar's lies in the
    // benchmark are taken, and it is caught in generation 1.
    let rate = VerifyRate::new(0.5).unwrap();
    let benchmark = (0..4).map(|i| (1u64 << 23) | i);
    let generation = (0..16).map(|i| (1u64 << 24) | i);
    let key = (0..u64::MAX)
        .find(|&k| {
            benchmark.clone().all(|id| !sampled(k, rate, id)) && generation.clone().all(|id| sampled(k, rate, id))
        })
        .unwrap();
    let master = verifying(&config, &cluster, rate, Some(key));
    // The liar alone first, lying on every outcome: it plays the whole benchmark.
    let liar = spawn_liar(master.addr, 1.0).join().unwrap();
    assert_quarantined(&liar);
    assert!(liar.sent >= 5, "the benchmark's 4 tasks and one of generation 1: {liar:?}");
    // Its name is refused from now on, with the reason.
    let refused = tokio::runtime::Runtime::new().unwrap().block_on(async {
        let mut c = raw(master.addr, Some(TOKEN)).await;
        c.register(registration("liar", 0)).await.unwrap_err()
    });
    assert_eq!(refused.code(), Code::Unauthenticated);
    assert!(refused.message().contains("\"liar\" is quarantined"), "{}", refused.message());
    // Its credential is revoked: no stream, no fetch.
    let (stream, fetch) = tokio::runtime::Runtime::new().unwrap().block_on(async {
        let mut c = raw(master.addr, Some(TOKEN)).await;
        let stream = RawStream::open(&mut c, liar.id, &liar.credential, 1).await.err().expect("refused");
        let request = loa_proto::with_credential(pb::FetchChromosomesRequest::default(), &liar.credential);
        (stream, c.fetch_chromosomes(request).await.unwrap_err())
    });
    for status in [stream, fetch] {
        assert_eq!(status.code(), Code::Unauthenticated, "{status:?}");
        assert!(status.message().starts_with("quarantined"), "{status:?}");
    }
    let honest = worker(master.addr, "honest", TOKEN);
    let started = Instant::now();
    while !master.thread.is_finished() {
        assert!(started.elapsed() < Duration::from_secs(120), "no progress");
        std::thread::sleep(Duration::from_millis(20));
    }
    let summary = master.thread.join().unwrap();
    let _ = honest.stop();
    assert_eq!(summary, expected);
    same_run(&reference, &cluster, 3);
    assert_eq!(generation_lines(&RunDir::new(&reference)), generation_lines(&RunDir::new(&cluster)));
    let line = summary_line(&cluster);
    assert_eq!((count(&line, "liars quarantined"), count(&line, "rollbacks")), (1, 1), "{line}");
    let log = std::fs::read_to_string(RunDir::new(&cluster).log()).unwrap();
    let rollback = log.lines().find(|l| l.contains("verification: rollback")).unwrap_or_else(|| panic!("{log}"));
    assert!(rollback.contains("from generation 0 (epoch 0)"), "{rollback}");
    let quarantine = log.lines().find(|l| l.contains("verification: quarantined liar")).unwrap();
    assert!(
        quarantine.contains(&format!("task {}", 1u64 << 23)) || quarantine.contains("generation 0"),
        "{quarantine}"
    );
}

/// Two liars that flip the same winners, beside an honest worker, all verified: each liar's
/// held outcome must be checked by someone other than its accomplice.
///
/// The liars lie only on the generations' tournaments. A benchmark's scores come from its games
/// alone, so a benchmark whose match winner is flipped is a lie the run never uses: liars that
/// confirmed each other's benchmarks would leave the checkpoints an honest run's, and the test
/// would pass without the rules it is about. A tournament's winner decides who survives: one flipped winner the liars confirm changes the
/// run. The honest worker is slow, so while it plays one task of a generation the liars play the
/// others and each is free to take the other's copy first: without the master's share of checks
/// (same address) or replicas kept apart (the honest worker elsewhere), they confirm each other
/// and the checkpoints differ from an honest run's.
fn colluders_are_caught(by_master: VerifyRate, honest_from: &str) {
    let (_tmp, reference, cluster) = dirs();
    let config = tiny(3, 1);
    let expected = embedded(&config, &reference);
    let master = verifying_by(&config, &cluster, VerifyRate::ALL, None, by_master);
    let addr = master.addr;
    let spawn = move |lies: fn(u64) -> bool, name: &'static str, from: std::net::IpAddr, pause: Duration| {
        let (registered, is_registered) = std::sync::mpsc::channel();
        let thread = std::thread::spawn(move || {
            let lying = lie_as(addr, lies, name, from, pause, Some(registered));
            tokio::runtime::Runtime::new().unwrap().block_on(lying)
        });
        is_registered.recv_timeout(Duration::from_secs(60)).expect("registered");
        thread
    };
    // The honest one first, so the liars' copies have somewhere else to go from the start;
    // slow, so that an idle accomplice is always there first to take a copy it may.
    let honest = spawn(|_| false, "honest", honest_from.parse().unwrap(), Duration::from_millis(300));
    let localhost = "127.0.0.1".parse().unwrap();
    let tournaments = |id| !is_benchmark(id);
    let liars = [
        spawn(tournaments, "liar-a", localhost, Duration::ZERO),
        spawn(tournaments, "liar-b", localhost, Duration::ZERO),
    ];
    let summary = master.thread.join().unwrap();
    let liars = liars.map(|l| l.join().unwrap());
    let _ = honest.join();
    assert_eq!(summary, expected);
    same_run(&reference, &cluster, 3);
    assert_eq!(generation_lines(&RunDir::new(&reference)), generation_lines(&RunDir::new(&cluster)));
    let line = summary_line(&cluster);
    let lied = liars.iter().filter(|l| l.flipped > 0).count();
    for liar in liars.iter().filter(|l| l.flipped > 0) {
        // A liar that never lied was never a danger; one that did was caught.
        assert_quarantined(liar);
    }
    assert!(lied >= 1, "{liars:?}");
    assert_eq!(count(&line, "liars quarantined"), lied as u64, "{line}");
}

#[test]
fn liars_that_agree_are_caught_when_the_master_keeps_the_checks() {
    // All three on one address: only the master's own plays tell the liars apart.
    colluders_are_caught(VerifyRate::ALL, "127.0.0.1");
}

#[test]
fn liars_that_agree_are_caught_when_copies_go_to_another_address() {
    // The honest worker alone on 127.0.0.2: every liar's copy goes to it.
    colluders_are_caught(VerifyRate::OFF, "127.0.0.2");
}
