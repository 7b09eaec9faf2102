//! Match tasks and outcomes: round trips, and one refusal per validated field, each naming the
//! field's path from the `match` message in.

use super::*;
use crate::convert::{result_from_proto, result_to_proto, task_from_proto, task_to_proto};
use loa_engine::network::random_uniform;
use loa_engine::tasks::{Task, TaskOutcome};
use loa_engine::{BothConnected, NoMoves, Rules};
use std::sync::Arc;

fn network(serial: u64) -> MatchEntrant {
    MatchEntrant::Network { serial, chromosome: Arc::new(random_uniform(serial)) }
}

fn fixed(serial: u64, player: FixedPlayer) -> MatchEntrant {
    MatchEntrant::Fixed { serial, player }
}

/// Four entrants of every kind (networks at 0 and 3), a short game, and the given format.
fn task(format: MatchFormat) -> MatchTask {
    MatchTask {
        entrants: vec![
            network(10),
            fixed(11, FixedPlayer::Aloa { evaluator: AloaKind::Quad, depth: 1 }),
            fixed(12, FixedPlayer::Random { depth: 2, salt: 77 }),
            network(13),
        ],
        network_depth: 1,
        rules: Rules { both_connected: BothConnected::MoverWins, no_moves: NoMoves::Passes, ply_cap: 24 },
        format,
    }
}

fn pairs() -> MatchFormat {
    let pairing = |a, b, seed, opening_plies| Pairing { a, b, seed, opening_plies };
    MatchFormat::Pairs(vec![pairing(0, 1, 5, 0), pairing(2, 3, 6, 4), pairing(3, 0, 7, 40)])
}

fn proto(task: &MatchTask) -> pb::MatchTask {
    match task_to_proto(1, &Task::Match(task.clone())).kind {
        Some(pb::task::Kind::Match(m)) => m,
        other => panic!("not a match task: {other:?}"),
    }
}

fn refused(m: pb::MatchTask) -> String {
    task_from_proto(pb::Task { id: 1, kind: Some(pb::task::Kind::Match(m)) }).unwrap_err().to_string()
}

#[track_caller]
fn check(m: pb::MatchTask, expected: &str) {
    let message = refused(m);
    assert_eq!(message, expected);
}

#[test]
fn match_tasks_and_outcomes_survive_the_round_trip() {
    let others = vec![
        fixed(20, FixedPlayer::Aloa { evaluator: AloaKind::Normal, depth: 12 }),
        fixed(21, FixedPlayer::RandomAnn { depth: 3, seed: u64::MAX }),
        fixed(22, FixedPlayer::RandomAnnPrinted { depth: 3, seed: 5 }),
    ];
    let wide = MatchTask { entrants: [task(pairs()).entrants, others].concat(), ..task(pairs()) };
    let tasks = [task(pairs()), task(MatchFormat::Knockout { seed: 99 }), wide];
    for (i, t) in tasks.into_iter().enumerate() {
        let t = Task::Match(t);
        let (id, back) = task_from_proto(task_to_proto(50 + i as u64, &t)).unwrap();
        assert_eq!((id, &back), (50 + i as u64, &t));
        if i == 2 {
            continue; // ALoA at depth 12 is there for the conversion, not to be played
        }
        let result = Ok(t.run().unwrap());
        assert_eq!(result_from_proto(Some(&result_to_proto(&result))).unwrap(), result);
    }
}

#[test]
fn bad_entrants_are_refused_naming_the_field() {
    let good = proto(&task(pairs()));
    assert!(task_from_proto(pb::Task { id: 1, kind: Some(pb::task::Kind::Match(good.clone())) }).is_ok());
    let with = |i: usize, change: &dyn Fn(&mut pb::match_entrant::Kind)| {
        let mut m = good.clone();
        change(m.entrants[i].kind.as_mut().unwrap());
        m
    };
    let weights = |w: &mut Vec<f32>| w[17] = f32::NAN;
    check(
        with(3, &|k| {
            if let pb::match_entrant::Kind::Network(n) = k {
                weights(&mut n.weights)
            }
        }),
        "match.entrants[3].network.weights[17]: NaN is not finite",
    );
    let m = with(0, &|k| {
        if let pb::match_entrant::Kind::Network(n) = k {
            n.weights.pop();
        }
    });
    assert!(refused(m).starts_with("match.entrants[0].network.weights: 2040 weights"));
    let m = with(0, &|k| {
        if let pb::match_entrant::Kind::Network(n) = k {
            n.weights[3] = 1e30
        }
    });
    assert!(refused(m).starts_with("match.entrants[0].network.weights: "));
    let m = with(3, &|k| {
        if let pb::match_entrant::Kind::Network(n) = k {
            n.topology = "board-9".into()
        }
    });
    assert!(refused(m).starts_with("match.entrants[3].network.topology: unknown topology"));

    let fixed = |i, change: &dyn Fn(&mut pb::FixedEntrant)| {
        with(i, &|k| {
            if let pb::match_entrant::Kind::Fixed(f) = k {
                change(f)
            }
        })
    };
    check(fixed(1, &|f| f.kind = 0), "match.entrants[1].fixed.kind: unspecified");
    check(fixed(2, &|f| f.kind = 9), "match.entrants[2].fixed.kind: unknown value 9");
    check(fixed(1, &|f| f.salt_or_seed = 4), "match.entrants[1].fixed.salt_or_seed: ALoA takes no salt or seed, got 4");
    for depth in [0, 13] {
        check(
            fixed(2, &|f| f.depth = depth),
            &format!("match.entrants[2].fixed.depth: search depth {depth} is outside 1..=12"),
        );
    }
    check(fixed(2, &|f| f.serial = 10), "match.entrants[2].fixed.serial: serial 10 appears twice");
    let m = with(3, &|k| {
        if let pb::match_entrant::Kind::Network(n) = k {
            n.serial = 11
        }
    });
    check(m, "match.entrants[3].network.serial: serial 11 appears twice");

    let mut m = good.clone();
    m.entrants[2].kind = None;
    check(m, "match.entrants[2].kind: missing: neither a network nor a fixed player");

    let mut m = good.clone();
    let spare = m.entrants[1].clone();
    m.entrants.resize(17, spare);
    check(m, "match.entrants: a match task needs 2 to 16 entrants, got 17");
    let mut m = good.clone();
    m.entrants.truncate(1);
    m.format = Some(pb::match_task::Format::Knockout(pb::Knockout { seed: 1 }));
    check(m, "match.entrants: a match task needs 2 to 16 entrants, got 1");

    for depth in [0, 13] {
        check(
            pb::MatchTask { network_depth: depth, ..good.clone() },
            &format!("match.network_depth: search depth {depth} is outside 1..=12"),
        );
    }
    check(pb::MatchTask { rules: None, ..good.clone() }, "match.rules: missing");
    let mut m = good;
    m.rules.as_mut().unwrap().no_moves = 0;
    check(m, "match.rules.no_moves: unspecified");
}

#[test]
fn bad_formats_are_refused_naming_the_field() {
    let good = proto(&task(pairs()));
    let pairings = |change: &dyn Fn(&mut Vec<pb::Pairing>)| {
        let mut m = good.clone();
        let Some(pb::match_task::Format::Pairs(p)) = m.format.as_mut() else { panic!("pairs") };
        change(&mut p.pairings);
        m
    };
    check(pairings(&|p| p[2].b = 9), "match.format.pairs.pairings[2].b: entrant 9 does not exist (4 entrants)");
    check(pairings(&|p| p[1].a = 4), "match.format.pairs.pairings[1].a: entrant 4 does not exist (4 entrants)");
    check(pairings(&|p| p[0].b = p[0].a), "match.format.pairs.pairings[0].b: entrant 0 cannot play itself");
    check(
        pairings(&|p| p[2].opening_plies = 41),
        "match.format.pairs.pairings[2].opening_plies: 41 opening plies, at most 40",
    );
    check(pairings(&|p| p.clear()), "match.format.pairs.pairings: a match task plays 1 to 256 matches, got 0");
    check(
        pairings(&|p| p.resize(257, p[0])),
        "match.format.pairs.pairings: a match task plays 1 to 256 matches, got 257",
    );
    check(pb::MatchTask { format: None, ..good.clone() }, "match.format: missing: neither pairs nor a knockout");

    let mut m = proto(&task(MatchFormat::Knockout { seed: 4 }));
    m.entrants.pop();
    check(m, "match.format.knockout: a knockout needs a power of two entrants, got 3");
}

fn outcome() -> pb::MatchOutcome {
    let outcome = Task::Match(task(pairs())).run().unwrap();
    match result_to_proto(&Ok(outcome)) {
        pb::complete_request::Result::Match(m) => m,
        other => panic!("not a match outcome: {other:?}"),
    }
}

fn outcome_refused(m: pb::MatchOutcome) -> String {
    result_from_proto(Some(&pb::complete_request::Result::Match(m))).unwrap_err().to_string()
}

#[test]
fn bad_match_outcomes_are_refused_naming_the_field() {
    let good = outcome();
    // Indices are only checked against the largest task: 15 passes here, the master checks more.
    let mut m = good.clone();
    m.matches[0].b = 15;
    let Ok(Ok(TaskOutcome::Match(back))) = result_from_proto(Some(&pb::complete_request::Result::Match(m))) else {
        panic!("an index below 16 is accepted on the wire")
    };
    assert!(task(pairs()).check_outcome(&back).is_err(), "but not by the task");

    let mut m = good.clone();
    m.matches[1].a = 16;
    assert_eq!(outcome_refused(m), "match.matches[1].a: entrant index 16 is not below 16");
    let mut m = good.clone();
    m.matches[2].b = m.matches[2].a;
    assert!(outcome_refused(m).starts_with("match.matches[2].b: entrant"));
    let mut m = good.clone();
    m.matches[0].games.pop();
    assert_eq!(outcome_refused(m), "match.matches[0].games: 2 games expected, got 1");
    let mut m = good.clone();
    m.matches[1].winner = 0;
    assert_eq!(outcome_refused(m), "match.matches[1].winner: unspecified");
    let mut m = good.clone();
    m.matches[1].games[0].outcome = 8;
    assert_eq!(outcome_refused(m), "match.matches[1].games[0].outcome: unknown value 8");
    let mut m = good.clone();
    m.matches.clear();
    assert_eq!(outcome_refused(m), "match.matches: 1 to 256 matches expected, got 0");
    let mut m = good.clone();
    let first = m.matches[0].clone();
    m.matches.resize(257, first);
    assert_eq!(outcome_refused(m), "match.matches: 1 to 256 matches expected, got 257");
}

#[test]
fn the_size_bound_holds_for_the_largest_tasks() {
    use prost::Message;
    let many = |n: u64| -> Vec<MatchEntrant> {
        (0..n)
            .map(|i| match i % 3 {
                0 => MatchEntrant::Network { serial: u64::MAX - i, chromosome: Arc::new(random_uniform(i)) },
                1 => fixed(u64::MAX - i, FixedPlayer::Random { depth: 12, salt: u64::MAX }),
                _ => fixed(u64::MAX - i, FixedPlayer::Aloa { evaluator: AloaKind::Normal, depth: 12 }),
            })
            .collect()
    };
    let big_pairing = |k: usize| Pairing { a: k % 16, b: (k + 1) % 16, seed: u64::MAX - k as u64, opening_plies: 40 };
    let tasks = [
        task(pairs()),
        task(MatchFormat::Knockout { seed: u64::MAX }),
        MatchTask {
            entrants: many(16),
            network_depth: 12,
            rules: Rules { ply_cap: u32::MAX, ..Rules::default() },
            format: MatchFormat::Pairs((0..MAX_MATCHES).map(big_pairing).collect()),
        },
        MatchTask { entrants: many(16), format: MatchFormat::Knockout { seed: u64::MAX }, ..task(pairs()) },
    ];
    for t in tasks {
        let encoded = pb::LeaseReply { tasks: vec![task_to_proto(u64::MAX, &Task::Match(t.clone()))] }.encoded_len();
        let bound = t.wire_size_bound();
        // An upper bound, and a close one when networks travel (their weights dominate both; a
        // pairing is bounded at 50 bytes and takes about 20).
        assert!(encoded <= bound && bound <= encoded + encoded / 4 + 1024, "encoded {encoded}, bound {bound}");
    }
}
