//! Self-play tasks: the games are those of a network player against itself, the principal
//! variations end at leaves whose static value is the search's value, outcomes that are not the
//! task's games are refused, and malformed tasks are refused before any game.

use loa_engine::game::play_game;
use loa_engine::network::{Chromosome, Inputs, ShapedNetwork, Topology, random_uniform};
use loa_engine::openings::random_opening_from;
use loa_engine::players::ShapedPlayer;
use loa_engine::random::{SplitMix64, derive_seed};
use loa_engine::search::{EVAL_LIMIT, SearchLimits, minimax};
use loa_engine::tasks::{
    MAX_SELF_PLAY_GAMES, OPENING_SEED_LABEL, OutcomeMismatch, SelfPlayGame, SelfPlayTask, Task, TaskError, TaskOutcome,
};
use loa_engine::{BoardSize, Move, NoMoves, Rules, Start};
use std::sync::Arc;

/// A network of a small shape on 5×5 with weights uniform in ±0.5 from `seed`.
fn small_network(seed: u64) -> Chromosome {
    let shape = Topology::new(5, Inputs::BOARD, &[6]).unwrap();
    let mut rng = SplitMix64::new(seed);
    let weights = (0..shape.weight_count()).map(|_| ((rng.next_u64() >> 40) as f32 / (1u64 << 24) as f32) - 0.5);
    Chromosome::new(shape, weights.collect()).unwrap()
}

fn task(network: Chromosome, board: u8, depth: u32, games: usize, leaves: bool) -> SelfPlayTask {
    SelfPlayTask {
        serial: 7,
        network: Arc::new(network),
        depth,
        rules: Rules { ply_cap: 60, ..Rules::default() },
        board: BoardSize::new(board).unwrap(),
        start: Start::Standard,
        games: (0..games as u64).map(|k| SelfPlayGame { seed: derive_seed(99, k), opening_plies: 2 }).collect(),
        leaves,
    }
}

#[test]
fn the_games_are_the_network_against_itself_from_each_opening() {
    for t in [task(random_uniform(3).clone(), 8, 2, 3, false), task(small_network(5), 5, 3, 4, true)] {
        let outcome = t.run().unwrap();
        assert_eq!(outcome.games.len(), t.games.len());
        let start = Start::Standard.position(t.board).unwrap();
        for (game, played) in t.games.iter().zip(&outcome.games) {
            let opening =
                random_opening_from(&start, game.opening_plies, derive_seed(game.seed, OPENING_SEED_LABEL), &t.rules);
            let player = ShapedPlayer::new(&t.network, t.depth);
            let record = play_game(&player, &player, &t.rules, opening, game.seed);
            assert_eq!((played.outcome, played.reason), (record.outcome, record.reason));
            assert_eq!(played.moves, record.moves);
            assert_eq!(played.leaves.len(), if t.leaves { played.moves.len() } else { 0 });
        }
        // Played again, anywhere: the same games.
        assert_eq!(Task::SelfPlay(t.clone()).run().unwrap(), TaskOutcome::SelfPlay(outcome.clone()));
        assert_eq!(t.check_outcome(&outcome), Ok(()));
    }
}

/// The root's searched value is the static value of its principal variation's leaf, from the
/// side to move at the root (the search's point of view), unless the variation ends the game.
#[test]
fn each_leaf_is_where_the_search_value_comes_from() {
    let thesis = task(random_uniform(8).clone(), 8, 3, 1, true);
    let small = |depth| task(small_network(11), 5, depth, 12, true);
    for t in [small(2), small(3), thesis] {
        let depth = t.depth;
        let net = ShapedNetwork::new(&t.network);
        let outcome = t.run().unwrap();
        let start = Start::Standard.position(t.board).unwrap();
        let mut checked = 0;
        for (game, played) in t.games.iter().zip(&outcome.games) {
            let mut pos =
                random_opening_from(&start, game.opening_plies, derive_seed(game.seed, OPENING_SEED_LABEL), &t.rules);
            for (ply, (&mv, variation)) in played.moves.iter().zip(&played.leaves).enumerate() {
                let limits = SearchLimits::new(depth, &t.rules, ply as u32);
                let searched = minimax(&pos, &t.rules, limits, &net);
                assert_eq!(searched.best, Some(mv), "plain minimax chooses the move played");
                let leaf = variation.iter().fold(pos.play(mv), |p, &m| p.play(m));
                let plies = ply as u32 + 1 + variation.len() as u32;
                if loa_engine::tasks::game_over(&leaf, &t.rules, plies).is_some() {
                    assert!(searched.value.abs() >= EVAL_LIMIT || searched.value == 0.0, "{}", searched.value);
                } else {
                    assert_eq!(variation.len() as u32, depth - 1, "a full variation unless the game ends");
                    let value = net.evaluate(&leaf, pos.side_to_move());
                    assert_eq!(value, searched.value, "ply {ply}: the leaf against the search");
                    checked += 1;
                }
                pos = pos.play(mv);
            }
        }
        assert!(checked > 20, "{checked} leaves checked");
    }
}

/// A search seen from the other side's point of view is the search the parent makes of that
/// position: the parent's value is the best of its children's, negated.
#[test]
fn a_search_for_the_parents_side_values_the_child_as_the_parent_does() {
    let net = ShapedNetwork::new(&small_network(21));
    let rules = Rules::default();
    let start = Start::Standard.position(BoardSize::new(5).unwrap()).unwrap();
    let mut compared = 0;
    for seed in 0..40 {
        let pos = random_opening_from(&start, 3, seed, &rules);
        for depth in [2, 3] {
            let limits = SearchLimits::new(depth, &rules, 0);
            let parent = loa_engine::search::alpha_beta(&pos, &rules, limits, &net);
            let best = pos
                .legal_moves()
                .iter()
                .map(|&mv| {
                    let child = pos.play(mv);
                    if let Some(end) = child.game_end(&rules) {
                        // A won or lost game: far beyond any evaluation, as the search scores it.
                        return if end.outcome.winner() == Some(pos.side_to_move()) {
                            f32::INFINITY
                        } else {
                            -f32::INFINITY
                        };
                    }
                    let limits = SearchLimits::new(depth - 1, &rules, 1);
                    -loa_engine::search::alpha_beta_for(&child, &rules, limits, &net, pos.side_to_move()).value
                })
                .fold(f32::NEG_INFINITY, f32::max);
            // A forced result scores by its distance from the search's root, one ply more from
            // the parent's: compare evaluations, and forced results only as such.
            if best.abs() < EVAL_LIMIT {
                assert_eq!(best, parent.value, "seed {seed}, depth {depth}");
                compared += 1;
            } else {
                assert_eq!(best.signum(), parent.value.signum());
                assert!(parent.value.abs() >= EVAL_LIMIT);
            }
        }
    }
    assert!(compared > 50, "{compared} positions compared");
}

#[test]
fn outcomes_that_are_not_the_tasks_games_are_refused() {
    let t = task(small_network(2), 5, 2, 2, true);
    let good = t.run().unwrap();
    let mismatch = |edit: &dyn Fn(&mut loa_engine::tasks::SelfPlayOutcome)| {
        let mut bad = good.clone();
        edit(&mut bad);
        t.check_outcome(&bad).unwrap_err()
    };
    assert_eq!(mismatch(&|o| drop(o.games.pop())), OutcomeMismatch::GameCount { expected: 2, got: 1 });
    // A move that is not legal where it is played.
    let illegal = mismatch(&|o| o.games[1].moves[0] = Move::PASS);
    assert_eq!(illegal, OutcomeMismatch::Game { game: 1, ply: 0 });
    // A game cut short: it does not end where it says.
    let cut = mismatch(&|o| drop(o.games[0].moves.pop().zip(o.games[0].leaves.pop())));
    assert!(matches!(cut, OutcomeMismatch::Game { game: 0, .. }), "{cut:?}");
    // Another result than the moves give.
    let flipped = mismatch(&|o| {
        o.games[0].outcome = match o.games[0].outcome {
            loa_engine::Outcome::Draw => loa_engine::Outcome::Win(loa_engine::Color::Black),
            _ => loa_engine::Outcome::Draw,
        }
    });
    assert!(matches!(flipped, OutcomeMismatch::Game { game: 0, .. }));
    // A variation as deep as the search: one move too many.
    let deep = mismatch(&|o| {
        let v = &mut o.games[0].leaves[0];
        while v.len() < 2 {
            v.push(Move::PASS);
        }
    });
    assert!(matches!(deep, OutcomeMismatch::Game { game: 0, ply: 0 }), "{deep:?}");
    // Leaves where none were asked for, and none where they were.
    let bare = task(small_network(2), 5, 2, 2, false);
    assert!(bare.check_outcome(&good).is_err());
    let mut stripped = good.clone();
    stripped.games.iter_mut().for_each(|g| g.leaves.clear());
    assert!(t.check_outcome(&stripped).is_err());
    assert_eq!(bare.check_outcome(&stripped), Ok(()));
    // Matches for games.
    let wrong_kind = TaskOutcome::Match(loa_engine::tasks::MatchTaskOutcome { matches: Vec::new() });
    assert_eq!(Task::SelfPlay(t).check_outcome(&wrong_kind), Err(OutcomeMismatch::Kind));
}

#[test]
fn malformed_tasks_are_refused_before_any_game() {
    let good = task(small_network(1), 5, 2, 2, false);
    let refused = |edit: &dyn Fn(&mut SelfPlayTask)| {
        let mut t = good.clone();
        edit(&mut t);
        t.run().unwrap_err()
    };
    assert_eq!(refused(&|t| t.depth = 0), TaskError::Depth(0));
    assert_eq!(refused(&|t| t.games.clear()), TaskError::GameCount(0));
    let many = MAX_SELF_PLAY_GAMES + 1;
    assert_eq!(
        refused(&|t| t.games = vec![SelfPlayGame { seed: 1, opening_plies: 0 }; many]),
        TaskError::GameCount(many)
    );
    assert_eq!(refused(&|t| t.games[1].opening_plies = 7), TaskError::GameOpeningPlies { game: 1, plies: 7, most: 6 });
    assert_eq!(refused(&|t| t.rules.ply_cap = 0), TaskError::Unbounded);
    // 2 games × 10 000 plies fit; with a variation of up to 2 moves a move, they do not.
    let long = SelfPlayTask { rules: Rules { ply_cap: 10_000, ..good.rules }, ..good.clone() };
    assert_eq!(long.validate(), Ok(()));
    assert_eq!(
        refused(&|t| {
            t.rules.ply_cap = 10_000;
            t.leaves = true;
        }),
        TaskError::TooManyMoves { moves: 40_000 }
    );
    assert!(matches!(refused(&|t| t.board = BoardSize::new(6).unwrap()), TaskError::Board { entrant: 0, .. }));
    assert!(matches!(refused(&|t| t.start = Start::ScrambledEggs), TaskError::Start(_)));
}

/// Under the other rules variants the games still check: what ends a game is the rules'.
#[test]
fn games_under_every_rules_variant_check() {
    for (both_connected, no_moves) in
        [(loa_engine::BothConnected::Draw, NoMoves::Passes), (loa_engine::BothConnected::MoverWins, NoMoves::Loses)]
    {
        let mut t = task(small_network(4), 5, 2, 6, true);
        t.rules = Rules { both_connected, no_moves, ..t.rules };
        let outcome = t.run().unwrap();
        assert_eq!(t.check_outcome(&outcome), Ok(()));
    }
}
