//! Match tasks and outcomes: round trips, and one refusal per validated field of fixed players,
//! entrant lists and formats, each naming the field's path from the task in.

use super::*;
use crate::convert::match_only::{task_from_proto, task_to_proto};
use crate::convert::{Sending, outcome_from_proto, outcome_to_proto};
use loa_engine::aloa::AloaKind;
use loa_engine::network::random_uniform;
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
        board: Default::default(),
        start: Default::default(),
        format,
    }
}

fn pairs() -> MatchFormat {
    let pairing = |a, b, seed, opening_plies| Pairing { a, b, seed, opening_plies };
    MatchFormat::Pairs(vec![pairing(0, 1, 5, 0), pairing(2, 3, 6, 4), pairing(3, 0, 7, 40)])
}

fn proto(task: &MatchTask) -> pb::Task {
    task_to_proto(1, task, &mut |_| Sending::Weights)
}

fn refused(m: pb::Task) -> String {
    task_from_proto(m, &|_| None).unwrap_err().to_string()
}

#[track_caller]
fn check(m: pb::Task, expected: &str) {
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
        let id = 50 + i as u64;
        let wire = task_to_proto(id, &t, &mut |_| Sending::Weights);
        let (back_id, back) = task_from_proto(wire.clone(), &|_| None).unwrap();
        assert_eq!((back_id, &back), (id, &t));
        // Fixed players travel as their specs.
        let specs: Vec<&str> = wire
            .entrants
            .iter()
            .filter_map(|e| match &e.kind {
                Some(pb::match_entrant::Kind::Fixed(f)) => Some(f.player.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(specs[..2], ["aloa:1", "random:2:77"]);
        if i == 2 {
            assert_eq!(specs[2..], ["aloa-normal:12", "randomann:3:18446744073709551615", "randomann-printed:3:5"]);
            continue; // ALoA at depth 12 is there for the conversion, not to be played
        }
        let result = Ok(t.run().unwrap().into());
        assert_eq!(outcome_from_proto(&outcome_to_proto(id, &result, 0)).unwrap(), (id, 0, result));
    }
}

#[test]
fn bad_entrants_are_refused_naming_the_field() {
    let good = proto(&task(pairs()));
    assert!(task_from_proto(good.clone(), &|_| None).is_ok());
    let fixed = |i: usize, change: &dyn Fn(&mut pb::FixedEntrant)| {
        let mut m = good.clone();
        let Some(pb::match_entrant::Kind::Fixed(f)) = m.entrants[i].kind.as_mut() else { panic!("a fixed player") };
        change(f);
        m
    };
    const FIXED: &str = "(use aloa:D, aloa-normal:D, random:D[:SALT], randomann:D:SEED or randomann-printed:D:SEED)";
    check(
        fixed(1, &|f| f.player = "chess:1".into()),
        &format!("entrants[1].fixed.player: bad player `chess:1`: unknown player kind `chess` {FIXED}"),
    );
    check(
        fixed(2, &|f| f.player = "net:2:x.json".into()),
        &format!(
            "entrants[2].fixed.player: bad player `net:2:x.json`: not a fixed player (the same in every match) {FIXED}"
        ),
    );
    check(
        fixed(1, &|f| f.player = "aloa:1:4".into()),
        &format!("entrants[1].fixed.player: bad player `aloa:1:4`: unexpected text after the depth {FIXED}"),
    );
    // One encoding a player: the spec as the engine writes it.
    check(
        fixed(2, &|f| f.player = "random:2:077".into()),
        "entrants[2].fixed.player: \"random:2:077\" is not written as random:2:77",
    );
    for depth in [0, 13] {
        check(
            fixed(2, &|f| f.player = format!("random:{depth}:77")),
            &format!("entrants[2].fixed.player: bad player `random:{depth}:77`: the depth must be 1..=12 {FIXED}"),
        );
    }
    check(fixed(2, &|f| f.serial = 10), "entrants[2].fixed.serial: serial 10 appears twice");

    let mut m = good.clone();
    m.entrants[2].kind = None;
    check(m, "entrants[2].kind: missing: neither a network nor a fixed player");

    let mut m = good.clone();
    let spare = m.entrants[1].clone();
    m.entrants.resize(17, spare);
    check(m, "entrants: a match task needs 2 to 16 entrants, got 17");
    let mut m = good.clone();
    m.entrants.truncate(1);
    m.format = Some(pb::task::Format::Knockout(pb::Knockout { seed: 1 }));
    check(m, "entrants: a match task needs 2 to 16 entrants, got 1");

    for depth in [0, 13] {
        check(
            pb::Task { network_depth: depth, ..good.clone() },
            &format!("network_depth: search depth {depth} is outside 1..=12"),
        );
    }
}

#[test]
fn bad_formats_are_refused_naming_the_field() {
    let good = proto(&task(pairs()));
    let pairings = |change: &dyn Fn(&mut Vec<pb::Pairing>)| {
        let mut m = good.clone();
        let Some(pb::task::Format::Pairs(p)) = m.format.as_mut() else { panic!("pairs") };
        change(&mut p.pairings);
        m
    };
    check(pairings(&|p| p[2].b = 9), "format.pairs.pairings[2].b: entrant 9 does not exist (4 entrants)");
    check(pairings(&|p| p[1].a = 4), "format.pairs.pairings[1].a: entrant 4 does not exist (4 entrants)");
    check(pairings(&|p| p[0].b = p[0].a), "format.pairs.pairings[0].b: entrant 0 cannot play itself");
    check(
        pairings(&|p| p[2].opening_plies = 41),
        "format.pairs.pairings[2].opening_plies: 41 opening plies, at most 40 on the 8x8 board",
    );
    check(pairings(&|p| p.clear()), "format.pairs.pairings: a match task plays 1 to 256 matches, got 0");
    check(pairings(&|p| p.resize(257, p[0])), "format.pairs.pairings: a match task plays 1 to 256 matches, got 257");
    check(pb::Task { format: None, ..good.clone() }, "format: missing: neither pairs, a knockout nor self-play");

    let mut m = proto(&task(MatchFormat::Knockout { seed: 4 }));
    m.entrants.pop();
    check(m, "format.knockout: a knockout needs a power of two entrants, got 3");
}

/// A task on 5×5: a network of that board's shape against ALoA, from 6-ply openings.
fn small_board_task() -> MatchTask {
    let shape = loa_engine::network::Topology::from_name("5x5-board-25-12-1").unwrap();
    let mut state = 9u64;
    let chromosome = loa_engine::network::Chromosome::random(shape, || {
        state = loa_engine::random::mix64(state);
        state
    });
    MatchTask {
        entrants: vec![
            MatchEntrant::Network { serial: 1, chromosome: Arc::new(chromosome) },
            fixed(2, FixedPlayer::Aloa { evaluator: AloaKind::Quad, depth: 2 }),
        ],
        board: loa_engine::BoardSize::MIN,
        format: MatchFormat::Pairs(vec![Pairing { a: 0, b: 1, seed: 3, opening_plies: 6 }]),
        ..task(pairs())
    }
}

#[test]
fn the_board_and_start_travel_and_are_checked() {
    let small = small_board_task();
    let (_, back) = task_from_proto(proto(&small), &|_| None).unwrap();
    assert_eq!(back, small);
    assert_eq!(back.run().unwrap(), small.run().unwrap());
    let eggs = MatchTask { start: loa_engine::Start::ScrambledEggs, ..task(pairs()) };
    assert_eq!(task_from_proto(proto(&eggs), &|_| None).unwrap().1, eggs);

    let good = proto(&small);
    for side in [0, 4, 9, 256 + 5] {
        check(
            pb::Task { board_side: side, ..good.clone() },
            &format!("board_side: {side} is not a board side: 5 to 8"),
        );
    }
    check(pb::Task { start: 0, ..good.clone() }, "start: unspecified");
    check(pb::Task { start: 7, ..good.clone() }, "start: unknown value 7");
    check(
        pb::Task { start: pb::Start::ScrambledEggs.into(), ..good.clone() },
        "start: start: the scrambled-eggs start is defined on the 8x8 board only, not on 5x5: use `standard`",
    );
    let on_8x8 = pb::Task { board_side: 8, ..good.clone() };
    let refusal = refused(on_8x8);
    assert!(
        refusal.starts_with("entrants[0].network.topology: the network 5x5-board-25-12-1 reads the 5x5 board"),
        "{refusal}"
    );
    let mut ann = small_board_task();
    ann.entrants[1] = fixed(2, FixedPlayer::RandomAnn { depth: 1, seed: 4 });
    let refusal = refused(proto(&ann));
    assert!(
        refusal.starts_with("entrants[1].fixed.player: the network board-nonad-100-20-1 reads the 8x8"),
        "{refusal}"
    );
    let mut long = good.clone();
    let Some(pb::task::Format::Pairs(p)) = long.format.as_mut() else { panic!("pairs") };
    p.pairings[0].opening_plies = 7;
    check(long, "format.pairs.pairings[0].opening_plies: 7 opening plies, at most 6 on the 5x5 board");
}

#[test]
fn outcome_indices_are_checked_against_the_largest_task_only() {
    let result = Ok(task(pairs()).run().unwrap().into());
    let mut o = outcome_to_proto(1, &result, 0);
    let Some(pb::outcome::Result::Match(m)) = o.result.as_mut() else { panic!("a match outcome") };
    // 15 passes on the wire; the master, which holds the task, checks more.
    m.matches[0].b = 15;
    let (_, _, Ok(loa_engine::tasks::TaskOutcome::Match(back))) = outcome_from_proto(&o).unwrap() else {
        panic!("an outcome")
    };
    assert!(task(pairs()).check_outcome(&back).is_err(), "but not by the task");
    let Some(pb::outcome::Result::Match(m)) = o.result.as_mut() else { panic!("a match outcome") };
    let first = m.matches[0].clone();
    m.matches.resize(257, first);
    assert_eq!(outcome_from_proto(&o).unwrap_err().to_string(), "match.matches: 1 to 256 matches expected, got 257");
}

#[test]
fn a_message_of_the_largest_tasks_fits_the_masters_message_size() {
    use prost::Message;
    let many = |n: u64| -> Vec<MatchEntrant> {
        (0..n)
            .map(|i| match i % 3 {
                0 => MatchEntrant::Network { serial: u64::MAX - i, chromosome: Arc::new(random_uniform(i)) },
                1 => fixed(u64::MAX - i, FixedPlayer::RandomAnnPrinted { depth: 12, seed: u64::MAX }),
                _ => fixed(u64::MAX - i, FixedPlayer::Aloa { evaluator: AloaKind::Normal, depth: 12 }),
            })
            .collect()
    };
    let big_pairing = |k: usize| Pairing { a: k % 16, b: (k + 1) % 16, seed: u64::MAX - k as u64, opening_plies: 40 };
    let largest = MatchTask {
        entrants: many(16),
        network_depth: 12,
        rules: Rules { ply_cap: u32::MAX, ..Rules::default() },
        board: loa_engine::BoardSize::STANDARD,
        start: loa_engine::Start::ScrambledEggs,
        format: MatchFormat::Pairs((0..MAX_MATCHES).map(big_pairing).collect()),
    };
    let task = task_to_proto(u64::MAX, &largest, &mut |_| Sending::Weights);
    let message = pb::MasterMessage { tasks: vec![task; crate::MAX_TASKS_PER_MESSAGE], receipt: None };
    let len = message.encoded_len();
    assert!(len <= crate::MAX_MESSAGE_BYTES, "{len} bytes");
}
