//! Alpha-beta against plain minimax: identical moves and values on many random positions, depths
//! 1–3, several evaluators (one with many ties, to exercise the canonical tie-break; one with
//! bounds; the network) and every rules variant; plus hand-worked tactical positions.

use loa_engine::network::{Network, random_uniform};
use loa_engine::random::RandomHeuristic;
use loa_engine::search::{Evaluator, SearchLimits, SearchResult, WIN, alpha_beta, minimax};
use loa_engine::{Bitboard, BothConnected, Color, Move, NoMoves, Position, Rules};
use proptest::prelude::*;

/// Material and a crude centralisation in small integers: many positions tie.
struct Coarse;

impl Evaluator for Coarse {
    type State = Color;
    const PATH_INDEPENDENT: bool = true;
    fn root_state(&self, _: &Position, pov: Color) -> Color {
        pov
    }
    fn child_state(&self, pov: &Color, _: &Position, _: Move) -> Color {
        *pov
    }
    fn evaluate(&self, pov: &Color, pos: &Position) -> f32 {
        let centre = loa_engine::Bitboard(0x0000_3C3C_3C3C_0000);
        let score = |c: Color| (pos.pieces(c).count() as i32) + ((pos.pieces(c) & centre).count() as i32 / 2);
        (score(*pov) - score(pov.opponent())) as f32
    }
}

/// Every position ties: the search must play the first canonical move unless a result differs.
struct Flat;

impl Evaluator for Flat {
    type State = ();
    const PATH_INDEPENDENT: bool = true;
    fn root_state(&self, _: &Position, _: Color) {}
    fn child_state(&self, _: &(), _: &Position, _: Move) {}
    fn evaluate(&self, _: &(), _: &Position) -> f32 {
        0.0
    }
}

/// `Coarse` with bounds of its own (as the network has): a position's bounds lie from 0 to 2.25
/// below and above its value, chosen by a hash of the position, so the search settles some
/// leaves by them, evaluates others exactly (where they straddle alpha or beta), and meets
/// bounds equal to the value (width 0) too.
struct Blurred;

impl Evaluator for Blurred {
    type State = Color;
    const PATH_INDEPENDENT: bool = true;
    const BOUNDS: bool = true;
    fn root_state(&self, _: &Position, pov: Color) -> Color {
        pov
    }
    fn child_state(&self, pov: &Color, _: &Position, _: Move) -> Color {
        *pov
    }
    fn evaluate(&self, pov: &Color, pos: &Position) -> f32 {
        Coarse.evaluate(pov, pos)
    }
    fn bound_many(&self, states: &[Color], positions: &[Position], lo: &mut [f32], hi: &mut [f32]) {
        for (((pov, pos), lo), hi) in states.iter().zip(positions).zip(lo).zip(hi) {
            let value = Coarse.evaluate(pov, pos);
            let hash = (pos.pieces(Color::Black).0 ^ pos.pieces(Color::White).0.rotate_left(17))
                .wrapping_mul(0x9E37_79B9_7F4A_7C15)
                >> 60;
            *lo = value - (hash & 3) as f32 * 0.75;
            *hi = value + (hash >> 2) as f32 * 0.75;
        }
    }
}

/// A position after `choices` random plies from the start, if the game is not over there.
fn random_position(choices: &[u16], rules: &Rules) -> Option<Position> {
    let mut pos = Position::start();
    for &c in choices {
        if pos.game_end(rules).is_some() {
            return None;
        }
        let moves = pos.legal_moves();
        pos = pos.play(moves[c as usize % moves.len()]);
    }
    pos.game_end(rules).is_none().then_some(pos)
}

fn rules_variant(i: u8) -> Rules {
    Rules {
        both_connected: if i & 1 == 0 { BothConnected::Draw } else { BothConnected::MoverWins },
        no_moves: if i & 2 == 0 { NoMoves::Loses } else { NoMoves::Passes },
        ply_cap: 100,
    }
}

fn agree<E: Evaluator>(pos: &Position, rules: &Rules, limits: SearchLimits, eval: &E) -> Result<(), TestCaseError> {
    let plain = minimax(pos, rules, limits, eval);
    let fast = alpha_beta(pos, rules, limits, eval);
    prop_assert_eq!(fast.best, plain.best, "{} {:?}", pos, limits);
    prop_assert_eq!(fast.value.to_bits(), plain.value.to_bits(), "{} {:?}", pos, limits);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn alpha_beta_equals_minimax(
        choices in proptest::collection::vec(any::<u16>(), 0..90),
        depth in 1u32..=3,
        seed in any::<u64>(),
        variant in 0u8..4,
        plies_left in prop_oneof![Just(u32::MAX), 1u32..4],
    ) {
        let rules = rules_variant(variant);
        if let Some(pos) = random_position(&choices, &rules) {
            let limits = SearchLimits { depth, plies_left };
            agree(&pos, &rules, limits, &RandomHeuristic::new(seed))?;
            agree(&pos, &rules, limits, &Coarse)?;
            agree(&pos, &rules, limits, &Flat)?;
            agree(&pos, &rules, limits, &Blurred)?;
            // The network: the fast path with its bounds (the evaluator of every game).
            agree(&pos, &rules, limits, &Network::new(&random_uniform(seed)))?;
        }
    }
}

#[test]
fn alpha_beta_with_transpositions_equals_minimax() {
    // The value table answers only nodes two or more plies above the leaves, and a position
    // first recurs three plies below the root (the same side's two moves in either order), so
    // it takes depth 5 to use it; minimax at depth 5 is affordable on positions with few moves.
    // Every rules variant, some ply caps inside the tree, two path-independent evaluators.
    // Positions with three or four pieces a side have few moves, and often connections in the
    // tree (wins at different plies).
    let mut rng = loa_engine::random::SplitMix64::new(23);
    let mut checked = 0;
    for i in 0..4000u64 {
        let mut sets = [0u64; 2];
        for set in sets.iter_mut() {
            while set.count_ones() < 3 + (i % 2) as u32 {
                *set |= 1 << (rng.next_u64() % 64);
            }
        }
        let side = if i % 3 == 0 { Color::White } else { Color::Black };
        let Ok(p) = Position::from_pieces(Bitboard(sets[0]), Bitboard(sets[1] & !sets[0]), side) else { continue };
        let rules = rules_variant(i as u8 % 4);
        if p.game_end(&rules).is_some() || p.legal_moves().len() > 12 {
            continue;
        }
        let plies_left = [u32::MAX, 4, 5][i as usize % 3];
        let limits = SearchLimits { depth: 5, plies_left };
        for eval in [&RandomHeuristic::new(i) as &dyn DynEval, &Coarse, &Blurred] {
            let (plain, fast) = eval.both(&p, &rules, limits);
            assert_eq!((fast.best, fast.value.to_bits()), (plain.best, plain.value.to_bits()), "{p} {limits:?}");
        }
        checked += 1;
        if checked == 40 {
            break;
        }
    }
    assert!(checked >= 10, "only {checked} positions with few moves");
}

/// Minimax and alpha-beta over one evaluator, callable through a trait object.
trait DynEval {
    fn both(&self, pos: &Position, rules: &Rules, limits: SearchLimits) -> (SearchResult, SearchResult);
}

impl<E: Evaluator> DynEval for E {
    fn both(&self, pos: &Position, rules: &Rules, limits: SearchLimits) -> (SearchResult, SearchResult) {
        (minimax(pos, rules, limits, self), alpha_beta(pos, rules, limits, self))
    }
}

/// An evaluator's twin that declares itself path-dependent, so the search keeps no value table
/// for it: the reference for the table's effect.
struct WithoutTable<E>(E);

impl<E: Evaluator> Evaluator for WithoutTable<E> {
    type State = E::State;
    const PATH_INDEPENDENT: bool = false;
    fn root_state(&self, pos: &Position, pov: Color) -> E::State {
        self.0.root_state(pos, pov)
    }
    fn child_state(&self, state: &E::State, pos: &Position, mv: Move) -> E::State {
        self.0.child_state(state, pos, mv)
    }
    fn evaluate(&self, state: &E::State, pos: &Position) -> f32 {
        self.0.evaluate(state, pos)
    }
}

#[test]
fn the_value_table_changes_nodes_not_results() {
    // ALoA at 5 plies (the benchmark's player) and the tie-rich Coarse evaluator, on
    // playout positions under every rules variant, some near the ply cap: the same move and
    // value bits with and without the table, and fewer nodes with it (so it did answer).
    let aloa = loa_engine::aloa::Aloa::quad();
    let (mut with, mut without) = (0, 0);
    for (i, p) in loa_engine::openings::sample_positions(400, 17).iter().step_by(10).enumerate() {
        let rules = rules_variant(i as u8 % 4);
        if p.game_end(&rules).is_some() {
            continue;
        }
        let plies_left = if i % 5 == 0 { 3 } else { u32::MAX };
        for (depth, coarse) in [(5, false), (5, true)] {
            let limits = SearchLimits { depth, plies_left };
            let (a, b) = if coarse {
                (alpha_beta(p, &rules, limits, &Coarse), alpha_beta(p, &rules, limits, &WithoutTable(Coarse)))
            } else {
                (alpha_beta(p, &rules, limits, &aloa), alpha_beta(p, &rules, limits, &WithoutTable(aloa)))
            };
            assert_eq!((a.best, a.value.to_bits()), (b.best, b.value.to_bits()), "{p} depth {depth} rules {i}");
            with += a.nodes;
            without += b.nodes;
        }
    }
    assert!(with < without, "with the table {with} nodes, without {without}");
}

fn pos(text: &str) -> Position {
    text.parse().unwrap()
}

fn best(position: &str, depth: u32) -> (String, f32) {
    let r = alpha_beta(&pos(position), &Rules::default(), SearchLimits { depth, plies_left: u32::MAX }, &Flat);
    (r.best.unwrap().to_string(), r.value)
}

/// Black a1-b2 is one group and d3 stands apart; d3 has single steps on its rank and its
/// diagonal b1-h7 (it is alone on both): d3-c2 (index 10) and d3-c3 (18) join the group and win.
const WIN_IN_ONE: &str = "......../......w./......../......../......../...b..../.b....w./b....... b";

#[test]
fn takes_the_first_win_in_one() {
    assert_eq!(best(WIN_IN_ONE, 1), ("d3-c2".to_string(), WIN - 1.0));
}

#[test]
fn prefers_the_faster_win() {
    // At depth 3 later wins exist too, but the win at ply 1 scores highest.
    assert_eq!(best(WIN_IN_ONE, 3), ("d3-c2".to_string(), WIN - 1.0));
}

#[test]
fn sees_an_unstoppable_threat() {
    // White d4 and f4 connect next move in several ways (f4-e5, f4-e3, d4-e3); Black's a8 and h8
    // can neither connect nor stop all three, so every move loses at ply 2 and the first in
    // canonical order is played.
    let threat = "b......b/......../......../......../...w.w../......../......../........ b";
    assert_eq!(best(threat, 2), ("a8-a7".to_string(), -(WIN - 2.0)));
    assert_eq!(best(threat, 1).1, 0.0, "one ply does not see the threat");
}

#[test]
fn no_moves_loses_or_passes() {
    let boxed = "......wb/......ww/......../.......w/......../......../ww....../bw...... b";
    let limits = SearchLimits { depth: 3, plies_left: u32::MAX };
    let r = alpha_beta(&pos(boxed), &Rules::default(), limits, &Flat);
    assert_eq!((r.best, r.value), (None, -WIN));
    let passing = Rules { no_moves: NoMoves::Passes, ..Rules::default() };
    let r = alpha_beta(&pos(boxed), &passing, limits, &Flat);
    assert_eq!(r.best, Some(Move::PASS));
}

#[test]
fn alpha_beta_visits_far_fewer_nodes_at_depth_3() {
    let rules = Rules::default();
    let limits = SearchLimits { depth: 3, plies_left: u32::MAX };
    let (mut ab, mut mm) = (0, 0);
    for (i, p) in loa_engine::openings::sample_positions(40, 3).iter().enumerate() {
        if p.game_end(&rules).is_some() {
            continue;
        }
        let eval = RandomHeuristic::new(i as u64);
        ab += alpha_beta(p, &rules, limits, &eval).nodes;
        mm += minimax(p, &rules, limits, &eval).nodes;
    }
    assert!(ab * 4 < mm, "alpha-beta {ab} nodes, minimax {mm}");
}

/// Exact network evaluations and bounded leaves, counted.
struct Counting {
    network: Network,
    exact: std::cell::Cell<u64>,
    bounded: std::cell::Cell<u64>,
}

impl Evaluator for Counting {
    type State = <Network as Evaluator>::State;
    const BOUNDS: bool = true;
    fn root_state(&self, pos: &Position, pov: Color) -> Self::State {
        self.network.root_state(pos, pov)
    }
    fn child_state(&self, state: &Self::State, pos: &Position, mv: Move) -> Self::State {
        self.network.child_state(state, pos, mv)
    }
    fn evaluate(&self, state: &Self::State, pos: &Position) -> f32 {
        self.exact.set(self.exact.get() + 1);
        Evaluator::evaluate(&self.network, state, pos)
    }
    fn evaluate_many(&self, states: &[Self::State], positions: &[Position], values: &mut [f32]) {
        self.exact.set(self.exact.get() + states.len() as u64);
        self.network.evaluate_many(states, positions, values)
    }
    fn bound_many(&self, states: &[Self::State], positions: &[Position], lo: &mut [f32], hi: &mut [f32]) {
        self.bounded.set(self.bounded.get() + states.len() as u64);
        self.network.bound_many(states, positions, lo, hi)
    }
    fn key_at_most(&self, value: f32) -> f32 {
        self.network.key_at_most(value)
    }
    fn key_at_least(&self, value: f32) -> f32 {
        self.network.key_at_least(value)
    }
}

#[test]
fn bounds_settle_most_network_leaves() {
    // 3-ply searches of random networks from playout positions: most leaves are settled by
    // their bounds, and few need the exact evaluation as well (the killers tried one at a
    // time at the leaves' parents, and the root's first iteration, are evaluated exactly).
    let rules = Rules::default();
    let (mut exact, mut bounded) = (0, 0);
    for (i, pos) in loa_engine::openings::sample_positions(60, 31).iter().enumerate() {
        let eval = Counting { network: Network::new(&random_uniform(i as u64)), exact: 0.into(), bounded: 0.into() };
        alpha_beta(pos, &rules, SearchLimits { depth: 3, plies_left: u32::MAX }, &eval);
        (exact, bounded) = (exact + eval.exact.get(), bounded + eval.bounded.get());
    }
    println!("{bounded} leaves bounded, {exact} evaluated exactly");
    assert!(bounded > 10 * exact, "{bounded} leaves bounded, {exact} evaluated exactly");
}
