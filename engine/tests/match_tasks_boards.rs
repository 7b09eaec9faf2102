//! Match tasks on other boards and starts: a task plays from its board's start position (and
//! the random openings that follow it), exactly as the same matches played directly with plain
//! searchers; a network must read the task's board; and the serialised form of an 8×8 task is
//! what it was before tasks carried a board.

use loa_engine::aloa::{Aloa, AloaKind};
use loa_engine::game::Player;
use loa_engine::network::{Chromosome, ShapedNetwork, Topology, random_uniform};
use loa_engine::openings::random_opening_from;
use loa_engine::players::{NetworkBoardError, RandomPlayer, SearchPlayer};
use loa_engine::random::{SplitMix64, derive_seed};
use loa_engine::tasks::{
    FixedPlayer, MatchEntrant, MatchFormat, MatchTask, OPENING_SEED_LABEL, Pairing, TaskError, play_match_task,
};
use loa_engine::{BoardSize, Position, Rules, Start, StartError};
use std::sync::Arc;

// Only its direct play of one match is used here.
#[allow(dead_code)]
mod reference;
use reference::direct_match;

fn shape(name: &str) -> Topology {
    Topology::from_name(name).unwrap()
}

fn chromosome(topology: Topology, seed: u64) -> Arc<Chromosome> {
    let mut rng = SplitMix64::new(seed);
    Arc::new(Chromosome::random(topology, || rng.next_u64()))
}

fn size(side: u8) -> BoardSize {
    BoardSize::new(side).unwrap()
}

/// A plain searcher of `chromosome`'s network, without the remembering players tasks use.
fn plain(chromosome: &Chromosome, depth: u32) -> Box<dyn Player> {
    Box::new(SearchPlayer { eval: Arc::new(ShapedNetwork::new(chromosome)), depth })
}

#[test]
fn pairs_on_small_boards_start_from_that_board_s_openings() {
    let rules = Rules::default();
    for (side, name, plies) in
        [(5, "5x5-board-25-12-1", 6), (6, "6x6-board-nonad-52-8-1", 12), (7, "7x7-board-49-6-1", 4)]
    {
        let board = size(side);
        let (one, two) = (chromosome(shape(name), side.into()), chromosome(shape(name), 100 + u64::from(side)));
        let entrants = vec![
            MatchEntrant::Network { serial: 1, chromosome: one.clone() },
            MatchEntrant::Fixed { serial: 9, player: FixedPlayer::Aloa { evaluator: AloaKind::Quad, depth: 2 } },
            MatchEntrant::Network { serial: 2, chromosome: two.clone() },
            MatchEntrant::Fixed { serial: 8, player: FixedPlayer::Random { depth: 1, salt: 3 } },
        ];
        let pairs: Vec<Pairing> = (0..8)
            .map(|k| Pairing {
                a: k % 4,
                b: (k + 1) % 4,
                seed: 40 + k as u64,
                opening_plies: (k as u32 * 3) % (plies + 1),
            })
            .collect();
        let task = MatchTask {
            entrants,
            network_depth: 2,
            rules,
            board,
            start: Start::Standard,
            format: MatchFormat::Pairs(pairs.clone()),
        };
        let outcome = play_match_task(&task).unwrap();
        let players = [
            plain(&one, 2),
            Box::new(SearchPlayer { eval: Aloa::new(AloaKind::Quad), depth: 2 }),
            plain(&two, 2),
            Box::new(RandomPlayer { depth: 1, salt: 3 }),
        ];
        let start = Start::Standard.position(board).unwrap();
        assert_eq!(start.size(), board);
        for (p, m) in pairs.iter().zip(&outcome.matches) {
            let opening = random_opening_from(&start, p.opening_plies, derive_seed(p.seed, OPENING_SEED_LABEL), &rules);
            assert_eq!(opening.size(), board);
            let direct = direct_match(&*players[p.a], &*players[p.b], &rules, opening, p.seed, p.a, p.b);
            assert_eq!(*m, direct, "{board} {p:?}");
        }
    }
}

#[test]
fn a_knockout_plays_every_match_from_the_task_s_start() {
    let rules = Rules::default();
    let nets: Vec<Arc<Chromosome>> = (0..2).map(|s| Arc::new(random_uniform(70 + s))).collect();
    let aloa = FixedPlayer::Aloa { evaluator: AloaKind::Quad, depth: 1 };
    let random = FixedPlayer::Random { depth: 1, salt: 2 };
    let entrants = vec![
        MatchEntrant::Network { serial: 10, chromosome: nets[0].clone() },
        MatchEntrant::Fixed { serial: 11, player: aloa },
        MatchEntrant::Network { serial: 12, chromosome: nets[1].clone() },
        MatchEntrant::Fixed { serial: 13, player: random },
    ];
    let task = MatchTask {
        entrants,
        network_depth: 1,
        rules,
        board: BoardSize::STANDARD,
        start: Start::ScrambledEggs,
        format: MatchFormat::Knockout { seed: 5 },
    };
    let outcome = play_match_task(&task).unwrap();
    let eggs: Position = ".wbwbwb./b......w/w......b/b......w/w......b/b......w/w......b/.bwbwbw. b".parse().unwrap();
    let players: Vec<Box<dyn Player>> = vec![
        plain(&nets[0], 1),
        Box::new(SearchPlayer { eval: Aloa::new(AloaKind::Quad), depth: 1 }),
        plain(&nets[1], 1),
        Box::new(RandomPlayer { depth: 1, salt: 2 }),
    ];
    // Round 1: serials 10 v 11 and 12 v 13; the final between their winners.
    let first = direct_match(&*players[0], &*players[1], &rules, eggs, derive_seed(5, 0), 0, 1);
    let second = direct_match(&*players[2], &*players[3], &rules, eggs, derive_seed(5, 1), 2, 3);
    assert_eq!(outcome.matches[..2], [first, second]);
    let (a, b) = (first.winner_index(), second.winner_index());
    assert_eq!(outcome.matches[2], direct_match(&*players[a], &*players[b], &rules, eggs, derive_seed(5, 2), a, b));
    let standard = MatchTask { start: Start::Standard, ..task };
    assert_ne!(play_match_task(&standard).unwrap(), outcome, "the start matters");
}

fn on_5x5() -> MatchTask {
    MatchTask {
        entrants: vec![
            MatchEntrant::Network { serial: 1, chromosome: chromosome(shape("5x5-board-25-12-1"), 1) },
            MatchEntrant::Fixed { serial: 2, player: FixedPlayer::Aloa { evaluator: AloaKind::Quad, depth: 1 } },
        ],
        network_depth: 1,
        rules: Rules::default(),
        board: size(5),
        start: Start::Standard,
        format: MatchFormat::Pairs(vec![Pairing { a: 0, b: 1, seed: 1, opening_plies: 6 }]),
    }
}

#[test]
fn entrants_must_read_the_board_and_openings_fit_it() {
    assert!(play_match_task(&on_5x5()).is_ok());
    let refused = |t: MatchTask| {
        let err = play_match_task(&t).unwrap_err();
        assert_eq!(t.validate(), Err(err.clone()));
        err
    };
    let thesis = MatchEntrant::Network { serial: 3, chromosome: Arc::new(random_uniform(3)) };
    let mut t = on_5x5();
    t.entrants.push(thesis);
    let error = NetworkBoardError { shape: Topology::THESIS, size: size(5) };
    assert_eq!(refused(t), TaskError::Board { entrant: 2, error });
    let mut t = on_5x5();
    t.entrants[1] = MatchEntrant::Fixed { serial: 2, player: FixedPlayer::RandomAnn { depth: 1, seed: 4 } };
    assert_eq!(refused(t), TaskError::Board { entrant: 1, error });
    let wrong_board = MatchTask { board: size(6), ..on_5x5() };
    let error = NetworkBoardError { shape: shape("5x5-board-25-12-1"), size: size(6) };
    assert_eq!(refused(wrong_board), TaskError::Board { entrant: 0, error });
    let eggs = MatchTask { start: Start::ScrambledEggs, ..on_5x5() };
    assert_eq!(
        refused(eggs),
        TaskError::Start(StartError::NotOnThisBoard { start: Start::ScrambledEggs, size: size(5) })
    );
    let long =
        MatchTask { format: MatchFormat::Pairs(vec![Pairing { a: 0, b: 1, seed: 1, opening_plies: 7 }]), ..on_5x5() };
    let message = refused(long).to_string();
    assert_eq!(message, "pairing 0: 7 opening plies, at most 6 on this board");
}

#[test]
fn a_standard_task_serialises_as_before_and_others_round_trip() {
    let mut standard = on_5x5();
    standard.entrants[0] = MatchEntrant::Network { serial: 1, chromosome: Arc::new(random_uniform(1)) };
    standard.board = BoardSize::STANDARD;
    let json = serde_json::to_string(&standard).unwrap();
    assert!(!json.contains("\"board\":") && !json.contains("\"start\":"), "not written out");
    assert_eq!(serde_json::from_str::<MatchTask>(&json).unwrap(), standard);
    for task in [on_5x5(), MatchTask { start: Start::ScrambledEggs, ..standard }] {
        let json = serde_json::to_string(&task).unwrap();
        assert!(json.contains("\"board\":") || json.contains("\"start\":\"scrambled-eggs\""));
        assert_eq!(serde_json::from_str::<MatchTask>(&json).unwrap(), task);
    }
}
