//! A generic match task through the whole cluster path: the master's scheduler serves it over
//! gRPC on 127.0.0.1, a real remote worker plays it, and the outcome is the one playing it
//! locally gives. A malformed task comes back as a failure naming the field.

use loa_engine::aloa::AloaKind;
use loa_engine::network::random_uniform;
use loa_engine::tasks::{FixedPlayer, MatchEntrant, MatchFormat, MatchTask, Pairing, Task};
use loa_engine::{BothConnected, NoMoves, Rules};
use loa_master::cluster::{self, ClusterOptions};
use loa_master::scheduler::Scheduler;
use loa_worker::{WorkerOptions, spawn};
use std::sync::Arc;
use std::time::{Duration, Instant};

const TOKEN: &str = "m4tches";

fn entrants(n: u64) -> Vec<MatchEntrant> {
    (0..n)
        .map(|i| match i % 4 {
            0 | 2 => MatchEntrant::Network { serial: 100 - i, chromosome: Arc::new(random_uniform(i)) },
            1 => MatchEntrant::Fixed {
                serial: 100 - i,
                player: FixedPlayer::Aloa { evaluator: AloaKind::Quad, depth: 1 },
            },
            _ => MatchEntrant::Fixed { serial: 100 - i, player: FixedPlayer::RandomAnn { depth: 1, seed: i } },
        })
        .collect()
}

fn rules() -> Rules {
    Rules { both_connected: BothConnected::Draw, no_moves: NoMoves::Loses, ply_cap: 30 }
}

#[test]
fn a_remote_worker_plays_match_tasks_as_they_play_locally() {
    let mut round_robin = Vec::new();
    for a in 0..5 {
        for b in a + 1..5 {
            round_robin.push(Pairing { a, b, seed: 7 * a as u64 + b as u64, opening_plies: (a + b) as u32 % 6 });
        }
    }
    let tasks = [
        MatchTask {
            entrants: entrants(5),
            network_depth: 1,
            rules: rules(),
            board: Default::default(),
            start: Default::default(),
            format: MatchFormat::Pairs(round_robin),
        },
        MatchTask {
            entrants: entrants(8),
            network_depth: 2,
            rules: rules(),
            board: Default::default(),
            start: Default::default(),
            format: MatchFormat::Knockout { seed: 3 },
        },
    ];
    let malformed = MatchTask {
        entrants: entrants(2),
        network_depth: 1,
        rules: rules(),
        board: Default::default(),
        start: Default::default(),
        format: MatchFormat::Pairs(vec![Pairing { a: 1, b: 1, seed: 0, opening_plies: 0 }]),
    };

    let scheduler = Arc::new(Scheduler::new(Duration::from_secs(10)));
    let server =
        cluster::serve(&scheduler, &ClusterOptions::new("127.0.0.1:0".parse().unwrap(), Some(TOKEN.into()))).unwrap();
    let mut options = WorkerOptions::new(format!("http://{}", server.addr)).unwrap();
    options.slots = 1;
    options.token = Some(TOKEN.into());
    options.name = "match-worker".into();
    options.max_backoff = Duration::from_millis(200);
    let worker = spawn(options).unwrap();

    let submitted: Vec<(u64, Task)> =
        tasks.iter().cloned().chain([malformed]).enumerate().map(|(i, t)| (i as u64, Task::Match(t))).collect();
    let ids: Vec<u64> = submitted.iter().map(|(id, _)| *id).collect();
    scheduler.submit(submitted);
    // A deadline, so a lost task fails the test instead of hanging it.
    let deadline = Instant::now() + Duration::from_secs(120);
    let results =
        scheduler.collect(&ids, || Instant::now() > deadline, |_| {}).expect("every task completes within two minutes");

    for (task, result) in tasks.iter().zip(&results) {
        assert_eq!(result.as_ref(), Ok(&task.run().unwrap().into()));
    }
    let failure = results[2].as_ref().unwrap_err();
    // Refused by the worker's wire validation, reported back as a message, and reproduced by the
    // master's own play: the task, the worker and both messages are named.
    let loa_engine::tasks::TaskFailure::Reported(message) = failure else { panic!("{failure:?}") };
    assert!(message.starts_with("task 2: match-worker "), "{message}");
    assert!(
        message.contains("\"malformed task: format.pairs.pairings[0].b: entrant 1 cannot play itself\""),
        "{message}"
    );
    assert!(
        message.ends_with("the master failed it too: invalid task: pairing 0: entrant 1 cannot play itself"),
        "{message}"
    );

    let report = worker.stop().unwrap();
    assert_eq!(report.accepted, 3, "{report:?}");
    scheduler.close();
    drop(server);
}
