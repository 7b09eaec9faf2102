//! The ALoA evaluator: hand-worked values of every term, a slow reference for the measurements,
//! the board symmetries, antisymmetry, and (ignored, run by hand) its playing strength.

use loa_engine::aloa::{Aloa, AloaKind, AloaWeights, MIN_DISTANCE_SUM, SideFeatures, SideTerms};
use loa_engine::openings::sample_positions;
use loa_engine::search::{EVAL_LIMIT, Evaluator};
use loa_engine::{Bitboard, Color, Position, Square};

fn bb(names: &[&str]) -> Bitboard {
    names.iter().map(|n| Square::parse(n).expect("square name")).collect()
}

/// Weights chosen distinct so each term's arithmetic shows which weight it used.
const W: AloaWeights =
    AloaWeights { concentration: 100, com_centralisation: 7, centralisation: 5, edge: 11, quad3: 13, quad4: 17 };

fn quad_w() -> Aloa {
    Aloa::with_weights(AloaKind::Quad, W).unwrap()
}

fn normal_w() -> Aloa {
    Aloa::with_weights(AloaKind::Normal, W).unwrap()
}

/// The evaluation of `pos` for `pov`, as the search computes it at a root.
fn value(e: &Aloa, pos: &Position, pov: Color) -> f32 {
    e.evaluate(&e.root_state(pos, pov), pos)
}

#[test]
fn hand_worked_l_shape_plus_straggler() {
    // b2=(1,1) c2=(2,1) b3=(1,2) g7=(6,6); n = 4, Σx = Σy = 10, centre of mass (2.5, 2.5).
    // Distances ×4 = max(|4x−10|, |4y−10|): b2 6, c2 max(2,6)=6, b3 max(6,2)=6, g7 14: 32
    // (8 squares). MIN[4] = 8 (a 2×2 block) → excess 24, i.e. a = 24/16 = 1.5 squares.
    // Off-centre ×8: max(|20−28|, |20−28|) = 8 (1 square). All four on ring 1, none on the edge.
    // Quads: b2,c2,b3 fill 3 of the window with lower-left b2, centre (1.5,1.5), ×4 doubled:
    // |4·3 − 20| = 8 ≤ 16 → near. No other window has 3.
    let f = SideFeatures::of(bb(&["b2", "c2", "b3", "g7"]), true);
    let expected = SideFeatures {
        count: 4,
        sum_file: 10,
        sum_rank: 10,
        distance_sum: 32,
        excess: 24,
        com_offcentre: 8,
        ring_sum: 4,
        edge: 0,
        near_q3: 1,
        near_q4: 0,
    };
    assert_eq!(f, expected);
    // concentration −⌊100·24/16⌋ = −150 (−100 per square × 1.5); centre of mass −⌊7·8/8⌋ = −7;
    // rings 5·4 = 20; edge 0; quads 13·1 = 13. Total −124.
    let t = quad_w().side_terms(bb(&["b2", "c2", "b3", "g7"]));
    let terms = SideTerms { concentration: -150, com_centralisation: -7, centralisation: 20, edge: 0, quads: 13 };
    assert_eq!(t, terms);
    assert_eq!(t.total(), -124);
    // The normal kind drops the quad term only.
    assert_eq!(normal_w().side_terms(bb(&["b2", "c2", "b3", "g7"])), SideTerms { quads: 0, ..terms });
}

#[test]
fn hand_worked_rings_edge_and_odd_count() {
    // d4=(3,3) ring 3, c3=(2,2) ring 2, a5=(0,4) edge. n = 3, Σx = 5, Σy = 9.
    // ×3 distances: d4 max(|9−5|, |9−9|) = 4; c3 max(|6−5|, |6−9|) = 3; a5 max(5, |12−9|) = 5.
    // Sum 12, MIN[3] = 5 (an L) → excess 7. Off-centre ×6: max(|10−21|, |18−21|) = 11.
    let f = SideFeatures::of(bb(&["d4", "c3", "a5"]), true);
    assert_eq!((f.count, f.sum_file, f.sum_rank), (3, 5, 9));
    assert_eq!((f.distance_sum, f.excess, f.com_offcentre), (12, 7, 11));
    assert_eq!((f.ring_sum, f.edge, f.near_q3, f.near_q4), (5, 1, 0, 0));
    // concentration −⌊100·7/9⌋ = −77; centre of mass −⌊7·11/6⌋ = −12; rings 25; edge −11.
    let t = quad_w().side_terms(bb(&["d4", "c3", "a5"]));
    assert_eq!(t, SideTerms { concentration: -77, com_centralisation: -12, centralisation: 25, edge: -11, quads: 0 });
    assert_eq!(t.total(), -75);
}

#[test]
fn hand_worked_whole_position() {
    // Black as in `hand_worked_l_shape_plus_straggler`: −124.
    // White a8=(0,7), c8=(2,7): n = 2, Σx = 2, Σy = 14, centre (1, 7); ×2 distances 2 + 2 = 4,
    // MIN[2] = 2 → excess 2; concentration −⌊100·2/4⌋ = −50. Off-centre ×4: max(|4−14|,
    // |28−14|) = 14 → −⌊7·14/4⌋ = −24. Rings 0, edge −22, no quads. Total −96.
    let pos = Position::from_pieces(bb(&["b2", "c2", "b3", "g7"]), bb(&["a8", "c8"]), Color::Black).unwrap();
    assert_eq!(quad_w().side_terms(pos.pieces(Color::White)).total(), -96);
    let e = quad_w();
    assert_eq!(e.evaluate(&e.root_state(&pos, Color::Black), &pos), -124.0 + 96.0);
    assert_eq!(value(&e, &pos, Color::White), -96.0 + 124.0);
    // Normal: Black loses its 13 for the near Q3, White had none.
    assert_eq!(value(&normal_w(), &pos, Color::Black), -137.0 + 96.0);
}

#[test]
fn quads_far_from_the_centre_of_mass_do_not_count() {
    // A 2×2 block alone: centre of mass (0.5, 0.5) is the window's centre → one near Q4.
    let block = bb(&["a1", "b1", "a2", "b2"]);
    assert_eq!(SideFeatures::of(block, true).near_q4, 1);
    // With a second block in the far corner the centre of mass is (3.5, 3.5), 3 squares from
    // both windows' centres (0.5 and 6.5): neither counts, though the side has two Q4s.
    let two = block | bb(&["g7", "h7", "g8", "h8"]);
    let f = SideFeatures::of(two, true);
    assert_eq!((f.near_q3, f.near_q4), (0, 0));
    assert_eq!(quad_w().side_terms(two).quads, 0);
    // Exactly 2 away counts: a1,b1,a2 form a Q3 (window centre (0.5,0.5)); with e1, e2, g2 the
    // six pieces have Σx = 15, Σy = 3, centre (2.5, 0.5): ×6 doubled |6·1 − 30| = 24 = 4·6.
    let edge_case = bb(&["a1", "b1", "a2", "e1", "e2", "g2"]);
    assert_eq!(SideFeatures::of(edge_case, true).near_q3, 1);
    // g2 → h2 moves the centre to (16/6, 0.5): |6 − 32| = 26 > 24, about 2.17 away: not counted.
    let beyond = bb(&["a1", "b1", "a2", "e1", "e2", "h2"]);
    assert_eq!(SideFeatures::of(beyond, true).near_q3, 0);
}

#[test]
fn concentrated_beats_scattered() {
    let white = bb(&["a2", "a4", "h3", "h6", "c8", "f1"]);
    // The same eight black pieces' count, once as a 2×4 block in the centre, once spread out.
    let block = bb(&["c4", "d4", "e4", "f4", "c5", "d5", "e5", "f5"]);
    let spread = bb(&["b2", "g2", "d3", "b7", "g7", "e6", "c5", "f4"]);
    for e in [Aloa::quad(), Aloa::normal(), quad_w(), normal_w()] {
        let p = Position::from_pieces(block, white, Color::White).unwrap();
        let q = Position::from_pieces(spread, white, Color::White).unwrap();
        let (tp, tq) = (e.side_terms(block), e.side_terms(spread));
        assert!(tp.concentration > tq.concentration, "{tp:?} {tq:?}");
        assert!(value(&e, &p, Color::Black) > value(&e, &q, Color::Black));
    }
    // Same shape, same place relative to its centre: only the quads differ with the kind.
    assert!(quad_w().side_terms(block).quads > 0);
}

#[test]
fn min_distance_table_is_the_brute_force_minimum() {
    // Every placement of 1..=12 pieces in a 5×5 box; the table is the least ×n distance sum.
    let mut best = [u32::MAX; 13];
    for mask in 1u32..1 << 25 {
        let n = mask.count_ones() as i32;
        if n > 12 {
            continue;
        }
        let cells = || (0..25).filter(move |i| mask >> i & 1 == 1).map(|i| (i % 5, i / 5));
        let (sx, sy) = cells().fold((0, 0), |(a, b), (x, y)| (a + x, b + y));
        let s: i32 = cells().map(|(x, y)| (n * x - sx).abs().max((n * y - sy).abs())).sum();
        best[n as usize] = best[n as usize].min(s as u32);
    }
    assert_eq!(&best[1..], &MIN_DISTANCE_SUM[1..]);
}

/// The measurements done the obvious way: f64 coordinates, every window visited.
fn slow_features(pieces: Bitboard) -> (f64, u32, u32, u32, u32) {
    let sq: Vec<(f64, f64)> = pieces.map(|s| (f64::from(s.file()), f64::from(s.rank()))).collect();
    let n = sq.len() as f64;
    let (cx, cy) = (sq.iter().map(|p| p.0).sum::<f64>() / n, sq.iter().map(|p| p.1).sum::<f64>() / n);
    let distance: f64 = sq.iter().map(|&(x, y)| (x - cx).abs().max((y - cy).abs())).sum();
    let ring = |x: f64, y: f64| x.min(7.0 - x).min(y).min(7.0 - y).min(3.0) as u32;
    let ring_sum = sq.iter().map(|&(x, y)| ring(x, y)).sum();
    let edge = sq.iter().filter(|&&(x, y)| ring(x, y) == 0).count() as u32;
    let (mut q3, mut q4) = (0, 0);
    for wy in -1..8 {
        for wx in -1..8 {
            let inside = [(0, 0), (1, 0), (0, 1), (1, 1)]
                .iter()
                .filter(|(dx, dy)| Square::from_coords(wx + dx, wy + dy).is_some_and(|s| pieces.contains(s)))
                .count();
            let (mx, my) = (f64::from(wx) + 0.5, f64::from(wy) + 0.5);
            if (mx - cx).abs().max((my - cy).abs()) <= 2.0 {
                q3 += u32::from(inside == 3);
                q4 += u32::from(inside == 4);
            }
        }
    }
    (distance, ring_sum, edge, q3, q4)
}

#[test]
fn features_match_the_slow_reference_on_playout_positions() {
    for pos in sample_positions(3000, 5) {
        for color in Color::ALL {
            let pieces = pos.pieces(color);
            let f = SideFeatures::of(pieces, true);
            let (distance, ring_sum, edge, q3, q4) = slow_features(pieces);
            assert!((f64::from(f.distance_sum) / f64::from(f.count) - distance).abs() < 1e-9, "{pos}");
            assert_eq!(f.excess, f.distance_sum - MIN_DISTANCE_SUM[f.count as usize], "{pos}");
            assert_eq!((f.ring_sum, f.edge, f.near_q3, f.near_q4), (ring_sum, edge, q3, q4), "{pos}");
            let without = SideFeatures::of(pieces, false);
            assert_eq!(without, SideFeatures { near_q3: 0, near_q4: 0, ..f });
        }
    }
}

#[test]
fn normal_is_quad_minus_the_quad_term() {
    for pos in sample_positions(3000, 6) {
        let [b, w] = Color::ALL.map(|c| {
            let f = SideFeatures::of(pos.pieces(c), true);
            (W.quad3 * f.near_q3 as i32 + W.quad4 * f.near_q4 as i32) as f32
        });
        let (q, n) = (quad_w(), normal_w());
        assert_eq!(value(&q, &pos, Color::Black) - value(&n, &pos, Color::Black), b - w, "{pos}");
    }
}

/// A named map of board coordinates.
type Symmetry = (&'static str, fn(i32, i32) -> (i32, i32));

/// The position with every square sent through `map` (colours and side to move kept).
fn transformed(pos: &Position, map: impl Fn(i32, i32) -> (i32, i32)) -> Position {
    let image = |pieces: Bitboard| -> Bitboard {
        pieces
            .map(|s| {
                let (x, y) = map(i32::from(s.file()), i32::from(s.rank()));
                Square::from_coords(x, y).unwrap()
            })
            .collect()
    };
    Position::from_pieces(image(pos.pieces(Color::Black)), image(pos.pieces(Color::White)), pos.side_to_move()).unwrap()
}

#[test]
fn board_symmetries_and_colour_swap_leave_the_value_unchanged() {
    let symmetries: [Symmetry; 4] = [
        ("mirror left-right", |x, y| (7 - x, y)),
        ("flip top-bottom", |x, y| (x, 7 - y)),
        ("rotate 180°", |x, y| (7 - x, 7 - y)),
        ("transpose", |x, y| (y, x)),
    ];
    for e in [Aloa::quad(), Aloa::normal(), quad_w()] {
        for pos in sample_positions(3000, 8) {
            let v = value(&e, &pos, Color::Black);
            for (name, map) in &symmetries {
                assert_eq!(value(&e, &transformed(&pos, map), Color::Black), v, "{name}: {pos}");
            }
            let swapped =
                Position::from_pieces(pos.pieces(Color::White), pos.pieces(Color::Black), pos.side_to_move()).unwrap();
            assert_eq!(value(&e, &swapped, Color::White), v, "colour swap: {pos}");
        }
    }
}

#[test]
fn antisymmetric_bounded_and_stateless() {
    let extreme = AloaWeights {
        concentration: 10_000,
        com_centralisation: -10_000,
        centralisation: 10_000,
        edge: -10_000,
        quad3: 10_000,
        quad4: 10_000,
    };
    let evaluators = [Aloa::quad(), Aloa::normal(), Aloa::with_weights(AloaKind::Quad, extreme).unwrap()];
    for e in evaluators {
        for pos in sample_positions(3000, 9) {
            let b = value(&e, &pos, Color::Black);
            assert_eq!(b, -value(&e, &pos, Color::White), "{pos}");
            assert!(b.abs() < EVAL_LIMIT && b.fract() == 0.0, "{b} {pos}");
            let mv = pos.legal_moves().first().copied().unwrap_or(loa_engine::Move::PASS);
            assert_eq!(e.child_state(&e.root_state(&pos, Color::White), &pos, mv).pov(), Color::White);
        }
    }
}

#[test]
fn weights_out_of_range_are_rejected_and_defaults_are_the_reference() {
    let bad = AloaWeights { quad4: 10_001, ..AloaWeights::default() };
    let err = Aloa::with_weights(AloaKind::Quad, bad).unwrap_err();
    assert_eq!((err.name, err.value), ("quad4", 10_001));
    assert!(err.to_string().contains("quad4"));
    assert_eq!(Aloa::with_weights(AloaKind::Quad, AloaWeights::default()).unwrap(), Aloa::quad());
    assert_eq!(Aloa::new(AloaKind::Normal), Aloa::normal());
    assert_eq!(Aloa::default().kind(), AloaKind::Quad);
    assert_eq!(Aloa::normal().weights(), AloaWeights::default());
    // Weights round-trip through configuration text, and missing fields take the defaults.
    let w: AloaWeights = serde_json::from_str(r#"{"edge": 3}"#).unwrap();
    assert_eq!(w, AloaWeights { edge: 3, ..AloaWeights::default() });
    assert!(serde_json::from_str::<AloaWeights>(r#"{"edges": 3}"#).is_err());
}

/// Strength checks by self-play, run by hand:
/// `ALOA_PAIRS=500 cargo test --release -p loa-engine --test aloa -- --ignored --nocapture strength`.
///
/// Measured with the default weights and 1000 pairs: quad d3 vs normal d3 979–941–80; both d3
/// kinds won all 400 games against uniformly random moves and 399 of 400 (one draw) against the
/// random heuristic at depth 3; with 500 pairs quad d5 won all 100 games against the random
/// heuristic d3, which scored 22.7 on average (the thesis's Table 3: 30.98).
mod strength {
    use loa_engine::aloa::{Aloa, AloaKind};
    use loa_engine::game::{Player, benchmark_score, play_game};
    use loa_engine::openings::random_opening;
    use loa_engine::random::{RandomHeuristic, derive_seed};
    use loa_engine::search::{SearchLimits, SearchResult, alpha_beta};
    use loa_engine::{Color, Outcome, Position, Rules};

    /// Alpha-beta over ALoA at a fixed depth.
    struct Searcher(Aloa, u32);

    impl Player for Searcher {
        fn choose(&self, pos: &Position, rules: &Rules, plies: u32, _seed: u64) -> SearchResult {
            alpha_beta(pos, rules, SearchLimits::new(self.1, rules, plies), &self.0)
        }
    }

    /// docs/spec.md §4's random heuristic: the same search, random leaf values.
    struct RandomLeaves(u32);

    impl Player for RandomLeaves {
        fn choose(&self, pos: &Position, rules: &Rules, plies: u32, seed: u64) -> SearchResult {
            alpha_beta(pos, rules, SearchLimits::new(self.0, rules, plies), &RandomHeuristic::new(seed))
        }
    }

    /// Picks a legal move uniformly at random (keyed by the game's seed and the ply).
    struct Uniform;

    impl Player for Uniform {
        fn choose(&self, pos: &Position, _rules: &Rules, plies: u32, seed: u64) -> SearchResult {
            let moves = pos.legal_moves();
            let pick =
                (!moves.is_empty()).then(|| moves[(derive_seed(seed, u64::from(plies)) % moves.len() as u64) as usize]);
            SearchResult { best: pick, value: 0.0, nodes: 1 }
        }
    }

    /// Results of a series, from the first player's side.
    #[derive(Default)]
    struct Tally {
        won: u32,
        lost: u32,
        drawn: u32,
        plies: u64,
        /// Sum of the second player's benchmark scores (docs/spec.md §6).
        other_score: u64,
    }

    /// Plays `pairs` pairs of games from 2-random-ply openings, `a` Black in the first game of a
    /// pair and White in the second.
    fn series(a: &dyn Player, b: &dyn Player, pairs: u64, seed: u64) -> Tally {
        let rules = Rules::default();
        let mut t = Tally::default();
        for p in 0..pairs {
            let start = random_opening(2, derive_seed(seed, p), &rules);
            for (g, a_color) in [Color::Black, Color::White].into_iter().enumerate() {
                let (black, white) = if a_color == Color::Black { (a, b) } else { (b, a) };
                let game = play_game(black, white, &rules, start, derive_seed(seed ^ p, g as u64));
                t.plies += u64::from(game.plies);
                t.other_score += u64::from(benchmark_score(game.outcome, game.plies, a_color.opponent()));
                match game.outcome {
                    Outcome::Win(c) if c == a_color => t.won += 1,
                    Outcome::Win(_) => t.lost += 1,
                    Outcome::Draw => t.drawn += 1,
                }
            }
        }
        t
    }

    fn pairs() -> u64 {
        std::env::var("ALOA_PAIRS").ok().and_then(|s| s.parse().ok()).unwrap_or(50)
    }

    #[test]
    #[ignore = "self-play, minutes; run by hand"]
    fn strength() {
        let (quad, normal) = (Searcher(Aloa::new(AloaKind::Quad), 3), Searcher(Aloa::new(AloaKind::Normal), 3));
        let n = pairs();
        let report = |name: &str, t: Tally| {
            let games = f64::from(t.won + t.lost + t.drawn).max(1.0);
            let (len, other) = (t.plies as f64 / games, t.other_score as f64 / games);
            println!(
                "{name}: {} won, {} lost, {} drawn, mean {len:.1} plies, opponent's mean score {other:.1}",
                t.won, t.lost, t.drawn
            );
            (t.won, t.lost)
        };
        let (qw, ql) = report("quad d3 vs normal d3", series(&quad, &normal, n, 1));
        let mut crushed = true;
        for (name, p) in [("quad d3 vs uniform random", &quad), ("normal d3 vs uniform random", &normal)] {
            let (w, l) = report(name, series(p, &Uniform, n / 5, 2));
            crushed &= w >= 9 * (w + l) / 10;
        }
        report("quad d3 vs random heuristic d3", series(&quad, &RandomLeaves(3), n / 5, 3));
        report("normal d3 vs random heuristic d3", series(&normal, &RandomLeaves(3), n / 5, 3));
        // The thesis's Table 3 setting: ALoA at depth 5 against the random heuristic at depth 3.
        let reference = Searcher(Aloa::new(AloaKind::Quad), 5);
        report("quad d5 vs random heuristic d3", series(&reference, &RandomLeaves(3), n / 10, 4));
        assert!(qw > ql && crushed);
    }
}

#[test]
fn incremental_state_equals_state_from_scratch() {
    // The search state carried move by move (only the changed sides recomputed) against the
    // state computed from scratch for the child, for both kinds, both points of view.
    for e in [Aloa::quad(), Aloa::normal(), quad_w()] {
        for pos in sample_positions(3000, 23) {
            for pov in [Color::Black, Color::White] {
                let state = e.root_state(&pos, pov);
                for &mv in pos.legal_moves().iter().chain([loa_engine::Move::PASS].iter()) {
                    let child = pos.play(mv);
                    assert_eq!(e.child_state(&state, &pos, mv), e.root_state(&child, pov), "{pos} {mv}");
                }
            }
        }
    }
}

#[test]
fn states_stay_exact_when_evaluators_take_turns_on_a_thread() {
    // Each evaluator's root state claims the thread's totals cache; a state made before another
    // evaluator claimed it must still give its own evaluator's totals.
    let (a, b) = (Aloa::quad(), quad_w());
    for pos in sample_positions(300, 29) {
        let state_a = a.root_state(&pos, Color::Black);
        let state_b = b.root_state(&pos, Color::Black);
        for &mv in pos.legal_moves().iter() {
            let child = pos.play(mv);
            assert_eq!(a.child_state(&state_a, &pos, mv), a.root_state(&child, Color::Black), "{pos} {mv}");
            assert_eq!(b.child_state(&state_b, &pos, mv), b.root_state(&child, Color::Black), "{pos} {mv}");
        }
    }
}

/// `child_states` (one cache borrow for many moves) gives exactly the states `child_state`
/// gives, and both the scores of the positions reached, for every move of playout positions,
/// from either side's point of view, a pass included.
#[test]
fn child_states_equal_child_state_one_by_one() {
    use loa_engine::Move;
    let aloa = Aloa::quad();
    for pos in sample_positions(500, 9) {
        for pov in Color::ALL {
            let root = aloa.root_state(&pos, pov);
            let mut moves: Vec<Move> = pos.legal_moves().iter().copied().collect();
            moves.push(Move::PASS);
            let mut batch = vec![root; moves.len()];
            aloa.child_states(&root, &pos, &moves, &mut batch);
            for (&mv, state) in moves.iter().zip(&batch) {
                assert_eq!(*state, aloa.child_state(&root, &pos, mv), "{pos} {mv}");
                let child = pos.play(mv);
                assert_eq!(aloa.evaluate(state, &child), aloa.score(&child, pov) as f32, "{pos} {mv}");
            }
        }
    }
}

/// The batched states, whose mover totals are measured for 8 moves at once, equal the states
/// made one by one and from scratch, for both kinds and for weights of either sign up to the
/// largest accepted (the batch divides by multiplying, exact only within those bounds).
#[test]
fn child_states_equal_measured_states_for_any_weights() {
    use loa_engine::Move;
    use loa_engine::aloa::MAX_WEIGHT;
    let extreme = AloaWeights {
        concentration: MAX_WEIGHT,
        com_centralisation: -MAX_WEIGHT,
        centralisation: -7,
        edge: MAX_WEIGHT,
        quad3: -MAX_WEIGHT,
        quad4: 3,
    };
    let negative = AloaWeights {
        concentration: -MAX_WEIGHT,
        com_centralisation: MAX_WEIGHT,
        centralisation: MAX_WEIGHT,
        edge: -MAX_WEIGHT,
        quad3: MAX_WEIGHT,
        quad4: -MAX_WEIGHT,
    };
    let mut evaluators = vec![Aloa::quad(), Aloa::normal()];
    for weights in [W, extreme, negative] {
        for kind in [AloaKind::Quad, AloaKind::Normal] {
            evaluators.push(Aloa::with_weights(kind, weights).unwrap());
        }
    }
    for aloa in evaluators {
        for pos in sample_positions(300, 31) {
            let root = aloa.root_state(&pos, Color::White);
            let mut moves: Vec<Move> = pos.legal_moves().iter().copied().collect();
            moves.insert(moves.len() / 2, Move::PASS);
            let mut batch = vec![root; moves.len()];
            aloa.child_states(&root, &pos, &moves, &mut batch);
            for (&mv, state) in moves.iter().zip(&batch) {
                assert_eq!(*state, aloa.root_state(&pos.play(mv), Color::White), "{aloa:?} {pos} {mv}");
            }
        }
    }
}
