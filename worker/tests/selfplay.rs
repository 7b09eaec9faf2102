//! Self-play on remote workers: a TD and a TD-Leaf run served to two remote workers give the
//! checkpoints of an embedded run, and a worker that plays its self-play games at another depth
//! (legal games, the wrong ones) is caught by verification and changes nothing.

use loa_master::cluster::ClusterOptions;
use loa_master::config::ExperimentConfig;
use loa_master::run::{RunDir, start};
use loa_master::scheduler::VerifyRate;
use loa_proto::convert::{outcome_to_proto, task_from_proto};
use loa_proto::pb;
use std::time::Duration;
use tonic::Code;

mod common;
use common::*;

/// TD on 5×5 with a small network: 3 epochs of 3 batches of 6 games, 2-ply searches.
fn td(extra: &str) -> ExperimentConfig {
    let text = format!(
        "seed = 77\npopulation = 1\nepochs = 3\ngenerations_per_epoch = 3\nnetwork_depth = 2\n\
         [benchmark]\ndepth = 1\n[rules]\nply_cap = 40\n\
         [network]\nboard_side = 5\ninputs = [\"board\"]\nhidden = [6]\n\
         [selection.scheme.td]\nbatch = 6\nopening_plies = 2\ngames_per_task = 2\n{extra}"
    );
    ExperimentConfig::from_toml(&text).unwrap()
}

#[test]
fn td_and_td_leaf_on_two_remote_workers_give_the_checkpoints_of_an_embedded_run() {
    for extra in ["", "leaf = true\naverage_games = 12\n"] {
        let (_tmp, reference, cluster) = dirs();
        let config = td(extra);
        let expected = embedded(&config, &reference);
        let m = master(&config, &cluster, Duration::from_secs(5));
        let workers = [worker(m.addr, "one", TOKEN), worker(m.addr, "two", TOKEN)];
        let summary = m.thread.join().unwrap();
        let reports: Vec<_> = workers.into_iter().map(|w| w.stop().unwrap()).collect();
        assert_eq!(summary, expected, "{extra}");
        same_run(&reference, &cluster, 3);
        assert_eq!(generation_lines(&RunDir::new(&reference)), generation_lines(&RunDir::new(&cluster)));
        // 9 generations of 3 self-play tasks, 4 benchmarks of one network.
        let accepted: u64 = reports.iter().map(|r| r.accepted).sum();
        assert_eq!(accepted, 9 * 3 + 4, "{reports:?}");
        assert!(reports.iter().all(|r| r.accepted > 0), "both workers played: {reports:?}");
    }
}

/// A worker named "shallow" that plays every self-play task it leases one ply shallower than
/// asked (match tasks honestly), until the master ends its stream: its games are legal, so only
/// playing them again shows they are not the task's.
async fn shallow(addr: std::net::SocketAddr) -> (usize, tonic::Status) {
    let mut c = raw(addr, Some(TOKEN)).await;
    let mut stream = RawStream::register(&mut c, registration("shallow", 0), 1).await;
    let mut sent = 0;
    loop {
        let task = match stream.tasks.pop() {
            Some(task) => task,
            None => match tokio::time::timeout(Duration::from_secs(1), stream.next()).await {
                Err(_) => {
                    stream.send(pb::WorkerMessage::default()).await;
                    continue;
                }
                Ok(Ok(Some(message))) => {
                    stream.tasks.extend(message.tasks);
                    continue;
                }
                Ok(Ok(None)) => return (sent, tonic::Status::ok("the stream ended")),
                Ok(Err(ended)) => return (sent, ended),
            },
        };
        let (id, mut task) = task_from_proto(task, &|_| None).expect("a task with weights");
        if let loa_engine::tasks::Task::SelfPlay(t) = &mut task {
            t.depth = t.depth.saturating_sub(1).max(1);
        }
        let outcome = task.run().expect("a valid task");
        sent += 1;
        if let Err(ended) = stream.deliver(vec![outcome_to_proto(id, &Ok(outcome), 0)], 1).await {
            return (sent, ended);
        }
    }
}

#[test]
fn a_worker_playing_other_legal_games_is_caught_by_replay_and_changes_nothing() {
    let (_tmp, reference, cluster) = dirs();
    let config = td("");
    let expected = embedded(&config, &reference);
    let mut options = ClusterOptions::new("127.0.0.1:0".parse().unwrap(), Some(TOKEN.into()));
    options.lease_time = Duration::from_secs(10);
    options.verify = VerifyRate::ALL;
    let (run, out) = (config.clone(), cluster.clone());
    let m = master_with(options, move |o| start(run, &out, &o).unwrap());
    let addr = m.addr;
    let liar = std::thread::spawn(move || tokio::runtime::Runtime::new().unwrap().block_on(shallow(addr)));
    let honest = worker(m.addr, "honest", TOKEN);
    let summary = m.thread.join().unwrap();
    let _ = honest.stop();
    let (sent, ended) = liar.join().unwrap();
    assert_eq!(summary, expected);
    same_run(&reference, &cluster, 3);
    assert!(sent > 0);
    assert_eq!(ended.code(), Code::Unauthenticated, "{ended:?}");
    assert!(ended.message().starts_with("quarantined"), "{ended:?}");
}
