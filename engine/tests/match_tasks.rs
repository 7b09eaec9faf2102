//! Generic match tasks: a knockout of four is today's tournament, a one-pairing task is today's
//! benchmark, larger brackets and round robins play the matches they describe, and malformed
//! tasks are refused before any game.

use loa_engine::aloa::AloaKind;
use loa_engine::game::{MatchSide, benchmark_score, color_in_game};
use loa_engine::network::{Network, random_uniform};
use loa_engine::openings::random_opening;
use loa_engine::players::{RandomPlayer, SearchPlayer};
use loa_engine::random::{SplitMix64, derive_seed};
use loa_engine::tasks::{
    FixedPlayer, MAX_ENTRANTS, MAX_MATCHES, MatchEntrant, MatchFormat, MatchTask, MatchTaskOutcome, OPENING_SEED_LABEL,
    Pairing, Reference, TaskError, play_match_task,
};
use loa_engine::{BothConnected, NoMoves, Rules};
use std::sync::Arc;

mod reference;
use reference::{BenchmarkTask, Entrant, TournamentTask, direct_match as direct, play_benchmark, play_tournament};

fn network(serial: u64, weight_seed: u64) -> MatchEntrant {
    MatchEntrant::Network { serial, chromosome: Arc::new(random_uniform(weight_seed)) }
}

fn fixed(serial: u64, player: FixedPlayer) -> MatchEntrant {
    MatchEntrant::Fixed { serial, player }
}

fn rules(rng: &mut SplitMix64) -> Rules {
    let both_connected = if rng.next_u64().is_multiple_of(2) { BothConnected::Draw } else { BothConnected::MoverWins };
    let no_moves = if rng.next_u64().is_multiple_of(2) { NoMoves::Loses } else { NoMoves::Passes };
    Rules { both_connected, no_moves, ply_cap: 20 + (rng.next_u64() % 41) as u32 }
}

/// Four distinct random serials in a random order.
fn serials(rng: &mut SplitMix64) -> Vec<u64> {
    let mut out: Vec<u64> = Vec::new();
    while out.len() < 4 {
        let s = rng.next_u64() % 50;
        if !out.contains(&s) {
            out.push(s);
        }
    }
    out
}

#[test]
fn a_knockout_of_four_is_the_tournament() {
    let mut rng = SplitMix64::new(2026);
    for _ in 0..40 {
        let entrants: Vec<Entrant> = serials(&mut rng)
            .into_iter()
            .map(|serial| Entrant { serial, chromosome: Arc::new(random_uniform(rng.next_u64())) })
            .collect();
        let tournament = TournamentTask {
            entrants,
            rules: rules(&mut rng),
            depth: 1 + (rng.next_u64() % 2) as u32,
            seed: rng.next_u64(),
        };
        let knockout = MatchTask {
            entrants: tournament
                .entrants
                .iter()
                .map(|e| MatchEntrant::Network { serial: e.serial, chromosome: Arc::clone(&e.chromosome) })
                .collect(),
            network_depth: tournament.depth,
            rules: tournament.rules,
            board: Default::default(),
            start: Default::default(),
            format: MatchFormat::Knockout { seed: tournament.seed },
        };
        let expected = play_tournament(&tournament);
        let got = knockout.run().unwrap();
        assert_eq!(got.matches, expected.matches.to_vec(), "{tournament:?}");
        assert_eq!(got.winner(), Some(expected.winner));
        let plies: u32 = expected.matches.iter().flat_map(|m| m.games).map(|g| g.plies).sum();
        assert_eq!((got.game_count(), got.plies()), (6, plies));
    }
}

#[test]
fn a_one_pairing_task_is_the_benchmark() {
    let mut rng = SplitMix64::new(77);
    let references = [
        (
            Reference::Aloa { evaluator: AloaKind::Quad, depth: 2 },
            FixedPlayer::Aloa { evaluator: AloaKind::Quad, depth: 2 },
        ),
        (
            Reference::Aloa { evaluator: AloaKind::Normal, depth: 1 },
            FixedPlayer::Aloa { evaluator: AloaKind::Normal, depth: 1 },
        ),
        (Reference::Random { depth: 2 }, FixedPlayer::Random { depth: 2, salt: 0 }),
        (Reference::Random { depth: 1 }, FixedPlayer::Random { depth: 1, salt: 0 }),
    ];
    for round in 0..3 {
        for (reference, player) in references {
            let serial = rng.next_u64() % 1000;
            let benchmark = BenchmarkTask {
                entrant: Entrant { serial, chromosome: Arc::new(random_uniform(rng.next_u64())) },
                reference,
                depth: 1 + round % 2,
                rules: rules(&mut rng),
                seed: rng.next_u64(),
            };
            let task = MatchTask {
                entrants: vec![
                    MatchEntrant::Network { serial, chromosome: Arc::clone(&benchmark.entrant.chromosome) },
                    // The reference's serial only has to differ from the network's.
                    fixed(serial + 1, player),
                ],
                network_depth: benchmark.depth,
                rules: benchmark.rules,
                board: Default::default(),
                start: Default::default(),
                format: MatchFormat::Pairs(vec![Pairing { a: 0, b: 1, seed: benchmark.seed, opening_plies: 0 }]),
            };
            let expected = play_benchmark(&benchmark);
            let got = play_match_task(&task).unwrap();
            let [m] = got.matches.as_slice() else { panic!("one match expected: {got:?}") };
            assert_eq!((m.a, m.b), (0, 1));
            assert_eq!(m.games, expected.games, "{benchmark:?}");
            let scores =
                [0, 1].map(|g| benchmark_score(m.games[g].outcome, m.games[g].plies, color_in_game(MatchSide::A, g)));
            assert_eq!(scores, expected.scores);
        }
    }
}

#[test]
fn a_round_robin_plays_its_pairs_in_order_from_their_openings() {
    let rules = Rules { ply_cap: 40, ..Rules::default() };
    let entrants = vec![
        network(10, 1),
        fixed(900, FixedPlayer::Aloa { evaluator: AloaKind::Quad, depth: 1 }),
        network(11, 2),
        fixed(901, FixedPlayer::Random { depth: 1, salt: 5 }),
        fixed(902, FixedPlayer::RandomAnn { depth: 1, seed: 33 }),
    ];
    let mut pairs = Vec::new();
    for a in 0..entrants.len() {
        for b in a + 1..entrants.len() {
            pairs.push(Pairing { a, b, seed: 100 + pairs.len() as u64, opening_plies: (pairs.len() % 3) as u32 * 4 });
        }
    }
    let task = MatchTask {
        entrants,
        network_depth: 1,
        rules,
        board: Default::default(),
        start: Default::default(),
        format: MatchFormat::Pairs(pairs.clone()),
    };
    let outcome = play_match_task(&task).unwrap();
    assert_eq!(outcome.matches.len(), 10);
    assert_eq!(outcome, play_match_task(&task).unwrap(), "deterministic");
    let players: Vec<Box<dyn loa_engine::game::Player>> = vec![
        Box::new(SearchPlayer { eval: Arc::new(Network::new(&random_uniform(1))), depth: 1 }),
        Box::new(SearchPlayer { eval: loa_engine::aloa::Aloa::new(AloaKind::Quad), depth: 1 }),
        Box::new(SearchPlayer { eval: Arc::new(Network::new(&random_uniform(2))), depth: 1 }),
        Box::new(RandomPlayer { depth: 1, salt: 5 }),
        Box::new(SearchPlayer { eval: Arc::new(Network::new(&random_uniform(33))), depth: 1 }),
    ];
    for (p, m) in pairs.iter().zip(&outcome.matches) {
        let start = random_opening(p.opening_plies, derive_seed(p.seed, OPENING_SEED_LABEL), &rules);
        assert_eq!(*m, direct(&*players[p.a], &*players[p.b], &rules, start, p.seed, p.a, p.b), "{p:?}");
    }
    let via_run = task.run().unwrap();
    assert_eq!(via_run.matches, outcome.matches);
    assert_eq!(via_run.game_count(), 20);
    let plies: u32 = outcome.matches.iter().flat_map(|m| m.games.iter()).map(|g| g.plies).sum();
    assert_eq!(via_run.plies(), plies);
}

#[test]
fn larger_knockouts_pair_winners_round_by_round() {
    let rules = Rules { ply_cap: 24, ..Rules::default() };
    for n in [2usize, 8, 16] {
        // Serials in a scrambled order, so index order and serial order differ.
        let serial = |i: usize| ((i * 7) % n) as u64 * 3 + 1;
        let entrants: Vec<_> = (0..n)
            .map(|i| {
                if i % 5 == 4 {
                    fixed(serial(i), FixedPlayer::Random { depth: 1, salt: i as u64 })
                } else {
                    network(serial(i), i as u64)
                }
            })
            .collect();
        let task = MatchTask {
            entrants: entrants.clone(),
            network_depth: 1,
            rules,
            board: Default::default(),
            start: Default::default(),
            format: MatchFormat::Knockout { seed: 9 },
        };
        let outcome = play_match_task(&task).unwrap();
        assert_eq!(outcome.matches.len(), n - 1);
        // Replay the bracket by hand from the outcome's winners.
        let mut round: Vec<usize> = (0..n).collect();
        round.sort_by_key(|&i| serial(i));
        let mut k = 0;
        while round.len() > 1 {
            let mut next = Vec::new();
            for pair in round.chunks(2) {
                let m = &outcome.matches[k];
                let (a, b) = if serial(pair[0]) < serial(pair[1]) { (pair[0], pair[1]) } else { (pair[1], pair[0]) };
                assert_eq!((m.a, m.b), (a, b), "match {k} of {n}");
                // Each match is the two-game match with seed derive_seed(seed, k) alone.
                let single = MatchTask {
                    entrants: entrants.clone(),
                    network_depth: 1,
                    rules,
                    board: Default::default(),
                    start: Default::default(),
                    format: MatchFormat::Pairs(vec![Pairing {
                        a,
                        b,
                        seed: derive_seed(9, k as u64),
                        opening_plies: 0,
                    }]),
                };
                assert_eq!(play_match_task(&single).unwrap().matches, vec![*m]);
                next.push(m.winner_index());
                k += 1;
            }
            round = next;
        }
        assert_eq!(outcome.winner(), Some(round[0]));
    }
}

fn valid() -> MatchTask {
    MatchTask {
        entrants: vec![
            network(1, 1),
            network(2, 2),
            fixed(3, FixedPlayer::Random { depth: 1, salt: 0 }),
            network(4, 4),
        ],
        network_depth: 1,
        rules: Rules { ply_cap: 10, ..Rules::default() },
        board: Default::default(),
        start: Default::default(),
        format: MatchFormat::Pairs(vec![Pairing { a: 0, b: 1, seed: 1, opening_plies: 0 }]),
    }
}

fn with_pairs(pairs: Vec<Pairing>) -> MatchTask {
    MatchTask { format: MatchFormat::Pairs(pairs), ..valid() }
}

fn pair(a: usize, b: usize) -> Pairing {
    Pairing { a, b, seed: 0, opening_plies: 0 }
}

#[test]
fn malformed_match_tasks_are_refused() {
    assert!(play_match_task(&valid()).is_ok());
    let refused = |t: MatchTask| {
        let err = play_match_task(&t).unwrap_err();
        assert_eq!(t.validate(), Err(err.clone()));
        err
    };
    assert_eq!(
        refused(with_pairs(vec![pair(0, 1), pair(2, 9)])),
        TaskError::NoSuchEntrant { pairing: 1, entrant: 9, entrants: 4 }
    );
    assert_eq!(refused(with_pairs(vec![pair(4, 0)])), TaskError::NoSuchEntrant { pairing: 0, entrant: 4, entrants: 4 });
    assert_eq!(refused(with_pairs(vec![pair(2, 2)])), TaskError::SelfPairing { pairing: 0, entrant: 2 });
    assert_eq!(refused(with_pairs(vec![])), TaskError::MatchCount(0));
    assert_eq!(refused(with_pairs(vec![pair(0, 1); MAX_MATCHES + 1])), TaskError::MatchCount(257));
    assert!(play_match_task(&with_pairs(vec![pair(0, 1); 3])).is_ok(), "a pair may meet more than once");
    let opening = |plies| with_pairs(vec![pair(0, 1), Pairing { opening_plies: plies, ..pair(1, 2) }]);
    assert_eq!(refused(opening(41)), TaskError::OpeningPlies { pairing: 1, plies: 41, most: 40 });
    assert!(opening(40).validate().is_ok());

    let many = |n: usize| MatchTask { entrants: (0..n as u64).map(|s| network(s, s)).collect(), ..valid() };
    assert_eq!(refused(many(MAX_ENTRANTS + 1)), TaskError::MatchEntrants(17));
    assert!(many(MAX_ENTRANTS).validate().is_ok());
    assert_eq!(
        refused(MatchTask { entrants: vec![network(1, 1)], ..with_pairs(vec![pair(0, 0)]) }),
        TaskError::MatchEntrants(1)
    );
    assert_eq!(refused(MatchTask { entrants: vec![], ..valid() }), TaskError::MatchEntrants(0));

    let knockout = |n: usize| MatchTask { format: MatchFormat::Knockout { seed: 1 }, ..many(n) };
    for n in [3, 6, 12] {
        assert_eq!(refused(knockout(n)), TaskError::KnockoutSize(n));
    }
    assert_eq!(refused(knockout(32)), TaskError::MatchEntrants(32));
    assert!(knockout(16).validate().is_ok());

    for depth in [0, 13] {
        assert_eq!(refused(MatchTask { network_depth: depth, ..valid() }), TaskError::Depth(depth));
        let players = [
            FixedPlayer::Aloa { evaluator: AloaKind::Normal, depth },
            FixedPlayer::Random { depth, salt: 1 },
            FixedPlayer::RandomAnn { depth, seed: 1 },
        ];
        for player in players {
            let mut t = valid();
            t.entrants[2] = fixed(3, player);
            assert_eq!(refused(t), TaskError::FixedDepth { entrant: 2, depth });
        }
    }

    let mut t = valid();
    t.entrants[3] = fixed(2, FixedPlayer::Random { depth: 1, salt: 0 });
    assert_eq!(refused(t), TaskError::DuplicateSerial(2));

    // Every refusal reads as a sentence naming the problem.
    let message = refused(with_pairs(vec![pair(0, 1), pair(1, 2), pair(3, 9)])).to_string();
    assert_eq!(message, "pairing 2: entrant 9 does not exist (4 entrants)");
}

#[test]
fn sizes_are_counted() {
    let t = valid();
    assert_eq!(t.weight_count(), 3 * 2041);
    assert_eq!(t.chromosomes().map(|c| c.weights().len()).sum::<usize>(), 3 * 2041);
    // The bound covers the weights and a little per field, and grows with the pairs.
    let bound = t.wire_size_bound();
    assert!(bound > 4 * 3 * 2041 && bound < 4 * 3 * 2041 + 1024, "{bound}");
    assert!(with_pairs(vec![pair(0, 1); 10]).wire_size_bound() > bound);
}

#[test]
fn outcomes_are_checked_against_their_task() {
    use loa_engine::tasks::OutcomeMismatch;
    let pairs = with_pairs(vec![pair(0, 1), pair(3, 2)]);
    let outcome = play_match_task(&pairs).unwrap();
    assert_eq!(pairs.check_outcome(&outcome), Ok(()));
    let mut swapped = outcome.clone();
    swapped.matches[1].a = 2;
    swapped.matches[1].b = 3;
    assert_eq!(
        pairs.check_outcome(&swapped),
        Err(OutcomeMismatch::Pairing { index: 1, expected: (3, 2), got: (2, 3) })
    );
    let mut short = outcome.clone();
    short.matches.pop();
    assert_eq!(pairs.check_outcome(&short), Err(OutcomeMismatch::MatchCount { expected: 2, got: 1 }));
    let mut long = outcome;
    long.matches.push(long.matches[0]);
    assert_eq!(pairs.check_outcome(&long), Err(OutcomeMismatch::MatchCount { expected: 2, got: 3 }));

    // A knockout's final must pair the semi-finals' winners.
    let knockout = MatchTask { format: MatchFormat::Knockout { seed: 3 }, ..valid() };
    let outcome = play_match_task(&knockout).unwrap();
    assert_eq!(knockout.check_outcome(&outcome), Ok(()));
    let mut wrong_final = outcome.clone();
    let semi = &mut wrong_final.matches[0];
    semi.winner = if semi.winner == MatchSide::A { MatchSide::B } else { MatchSide::A };
    assert!(matches!(knockout.check_outcome(&wrong_final), Err(OutcomeMismatch::Pairing { index: 2, .. })));
}

#[test]
fn match_tasks_and_outcomes_survive_json() {
    for format in [MatchFormat::Pairs(vec![pair(0, 1), pair(2, 3)]), MatchFormat::Knockout { seed: 8 }] {
        let mut task = MatchTask { format, ..valid() };
        task.entrants[1] = fixed(2, FixedPlayer::Aloa { evaluator: AloaKind::Normal, depth: 2 });
        task.entrants[3] = fixed(4, FixedPlayer::RandomAnn { depth: 1, seed: 6 });
        let json = serde_json::to_string(&task).unwrap();
        assert_eq!(serde_json::from_str::<MatchTask>(&json).unwrap(), task, "{json}");
        let outcome = task.run().unwrap();
        let json = serde_json::to_string(&outcome).unwrap();
        assert_eq!(serde_json::from_str::<MatchTaskOutcome>(&json).unwrap(), outcome);
    }
}
