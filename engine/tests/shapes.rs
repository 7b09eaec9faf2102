//! Network shapes other than the thesis's: their inputs by hand, a tiny network's forward pass
//! worked out by hand, the generic evaluator's incremental first layer against its from-scratch
//! twin and the plain pass, and the generic path on the thesis's shape against `Network`.

use loa_engine::network::{Chromosome, ChromosomeError, Network, ShapeError, ShapedNetwork, Topology, random_uniform};
use loa_engine::players::ShapedPlayer;
use loa_engine::search::{Evaluator, SearchLimits, alpha_beta};
use loa_engine::{Bitboard, Color, Move, Position, Rules, Square};
use proptest::prelude::*;

fn shape(name: &str) -> Topology {
    name.parse().unwrap()
}

fn sq(name: &str) -> Square {
    Square::parse(name).unwrap()
}

fn pieces(names: &[&str]) -> Bitboard {
    names.iter().fold(Bitboard::EMPTY, |b, n| b | Bitboard::from_square(sq(n)))
}

/// A chromosome of `shape` with weights from a fixed generator, uniform in [-1, 1).
fn random(shape: Topology, seed: u64) -> Chromosome {
    let mut rng = loa_engine::network::SplitMix64::new(seed);
    Chromosome::random(shape, || rng.next_u64())
}

/// The shapes the generic evaluator is tested on: every board side, every input, one to three
/// layers.
const SHAPES: [&str; 6] = [
    "5x5-board-25-12-1",
    "5x5-board-nonad-pieces-quads-euler-44-8-1",
    "6x6-board-printed-nonad-52-40-1",
    "7x7-nonad-euler-27-6-5-4-1",
    "board-nonad-pieces-quads-108-32-16-1",
    "board-nonad-100-20-1",
];

#[test]
fn inputs_of_a_5x5_board_by_hand() {
    let t = shape("5x5-board-nonad-34-1-1");
    // Reading order from the top-left: a5 is 0, e5 4, a1 20, e1 24; squares beyond e5 are off.
    for (name, index) in [("a5", Some(0)), ("e5", Some(4)), ("a1", Some(20)), ("e1", Some(24)), ("f1", None)] {
        assert_eq!(t.board_input(sq(name)), index, "{name}");
    }
    assert_eq!(t.board_input(sq("a6")), None);
    // Nine windows, centres b4..d4, b3..d3, b2..d2 after the 25 cells.
    for (name, index) in [("b4", Some(25)), ("d4", Some(27)), ("c3", Some(29)), ("d2", Some(33)), ("a3", None)] {
        assert_eq!(t.nonad_input(sq(name)), index, "{name}");
    }
    assert_eq!(t.nonad_input(sq("e3")), None);
    // An own piece on c3 lies in every window: 1 in its own, 0.8 in the four beside, 0.75 in the
    // four corners. An opponent piece on a5 reads 0.25, the rest of the cells 0.5.
    let mut x = vec![0.0; 34];
    t.encode(pieces(&["c3"]), pieces(&["a5"]), &mut x);
    let mut expected = vec![0.5; 25];
    expected[0] = 0.25;
    expected[12] = 0.75;
    expected.extend([0.75, 0.8, 0.75, 0.8, 1.0, 0.8, 0.75, 0.8, 0.75]);
    assert_eq!(x, expected);
}

#[test]
fn features_by_hand() {
    let t = shape("6x6-pieces-quads-euler-10-1-1");
    // 6×6: a side starts with P = 8 pieces. Own: a1, b2 (a diagonal pair) and d4; opponent: f6.
    let mut x = vec![0.0; 10];
    t.features(pieces(&["a1", "b2", "d4"]), pieces(&["f6"]), &mut x);
    // Own quads: a1 and b2 alone in 3 quads each, together in 1 diagonal one; d4 alone in 4:
    // Q1 = 10, Q3 = 0, Qd = 1, E = (10 − 0 − 2)/4 = 2 groups. The opponent: Q1 = 4, E = 1.
    let expected = [3.0 / 8.0, 1.0 / 8.0, 10.0 / 32.0, 0.0, 1.0 / 32.0, 4.0 / 32.0, 0.0, 0.0, 2.0 / 8.0, 1.0 / 8.0];
    assert_eq!(x, expected);
}

/// `5x5-board-pieces-27-2-1` with hand-picked weights and its value worked out in f64.
#[test]
fn a_tiny_network_by_hand() {
    let t = shape("5x5-board-pieces-27-2-1");
    assert_eq!(t.weight_count(), 27 * 2 + 2 + 2 + 1);
    let mut w = vec![0.0f32; t.weight_count()];
    w[20] = 1.0; // cell a1 → unit 0
    w[25] = 0.5; // own piece count → unit 0
    w[27 + 26] = -2.0; // opponent piece count → unit 1
    w[54] = 0.25; // unit 0's bias
    w[55] = -0.5; // unit 1's bias
    w[56] = 2.0; // unit 0 → output
    w[57] = 1.0; // unit 1 → output
    w[58] = 0.125; // output bias
    let network = ShapedNetwork::new(&Chromosome::new(t, w).unwrap());
    // Black a1, b2; White c5; Black to move.
    let pos: Position = "......../......../......../..w...../......../......../.b....../b....... b".parse().unwrap();
    let unit0 = 0.25 + 0.75 + 0.5 * (2.0 / 6.0);
    let unit1 = -0.5 - 2.0 * (1.0 / 6.0);
    let expected = (0.125 + 2.0 * f64::tanh(unit0) + f64::tanh(unit1)).tanh();
    for value in [network.evaluate_plain(&pos, Color::Black), network.evaluate(&pos, Color::Black)] {
        assert!((f64::from(value) - expected).abs() < 1e-6, "{value} vs {expected}");
    }
    // From White's side the cell a1 holds an opponent piece (0.25) and the counts swap.
    let unit0 = 0.25 + 0.25 + 0.5 * (1.0 / 6.0);
    let unit1 = -0.5 - 2.0 * (2.0 / 6.0);
    let expected = (0.125 + 2.0 * f64::tanh(unit0) + f64::tanh(unit1)).tanh();
    assert!((f64::from(network.evaluate(&pos, Color::White)) - expected).abs() < 1e-6);
}

#[test]
fn a_three_layer_network_by_hand() {
    let t = shape("5x5-board-25-1-1-1-1");
    let mut w = vec![0.0f32; t.weight_count()];
    assert_eq!(w.len(), 26 + 2 + 2 + 2);
    w[24] = 2.0; // cell e1 → the first unit
    w[25] = -1.0; // its bias
    w[26] = 3.0; // first → second
    w[27] = 0.5; // second's bias
    w[28] = -1.5; // second → third
    w[30] = 0.75; // third → output
    w[31] = -0.25; // output bias
    let network = ShapedNetwork::new(&Chromosome::new(t, w).unwrap());
    let pos: Position = "......../......../......../......../......../......../......../....b..w b".parse().unwrap();
    let first = f64::tanh(2.0 * 0.75 - 1.0);
    let second = f64::tanh(3.0 * first + 0.5);
    let third = f64::tanh(-1.5 * second);
    let expected = (0.75 * third - 0.25).tanh();
    for value in [network.evaluate_plain(&pos, Color::Black), network.evaluate(&pos, Color::Black)] {
        assert!((f64::from(value) - expected).abs() < 1e-6, "{value} vs {expected}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Along a random game, for both points of view and every shape: the accumulator carried
    /// move by move, and one update for every legal move, equal the from-scratch accumulator
    /// exactly, so the evaluations are equal bit for bit; and the value is within 1e-4 of the
    /// plain pass, which rounds each of its f32 sums where the accumulator is exact.
    #[test]
    fn incremental_equals_from_scratch_exactly(
        seed in any::<u64>(),
        choices in proptest::collection::vec(any::<u32>(), 0..80),
    ) {
        for (k, name) in SHAPES.iter().enumerate() {
            let network = ShapedNetwork::new(&random(shape(name), seed ^ k as u64));
            for pov in Color::ALL {
                let mut pos = Position::start();
                let mut carried = network.accumulator(&pos, pov);
                for &choice in &choices {
                    let scratch = network.accumulator(&pos, pov);
                    prop_assert_eq!(carried, scratch);
                    prop_assert_eq!(network.update(&scratch, &pos, Move::PASS), scratch);
                    let moves = pos.legal_moves();
                    for &mv in moves.iter() {
                        let child = pos.play(mv);
                        prop_assert_eq!(network.update(&scratch, &pos, mv), network.accumulator(&child, pov));
                    }
                    let (fast, plain) = (network.evaluate_accumulator(&carried, &pos), network.evaluate_plain(&pos, pov));
                    prop_assert!((fast - plain).abs() <= 1e-4, "{name}: fast {fast} plain {plain} in {pos}");
                    prop_assert!(fast.abs() <= 1.0);
                    if moves.is_empty() {
                        break;
                    }
                    let mv = moves[choice as usize % moves.len()];
                    carried = network.update(&carried, &pos, mv);
                    pos = pos.play(mv);
                }
            }
        }
    }

    /// On the thesis's shape the generic plain pass is `Network::evaluate_plain` bit for bit (the
    /// same operations in the same order). The fast paths differ in their first layer's sums
    /// (`Network` adds f32 rows move by move, the generic path exact fixed-point rows), each
    /// within about 16·ε of the sum's scale of the exact value: the values agree within 1e-4.
    #[test]
    fn the_generic_path_on_the_thesis_shape_is_networks(
        seed in any::<u64>(),
        choices in proptest::collection::vec(any::<u32>(), 0..80),
    ) {
        let chromosome = random_uniform(seed);
        let (generic, thesis) = (ShapedNetwork::new(&chromosome), Network::new(&chromosome));
        let mut pos = Position::start();
        for &choice in &choices {
            for pov in Color::ALL {
                prop_assert_eq!(generic.evaluate_plain(&pos, pov).to_bits(), thesis.evaluate_plain(&pos, pov).to_bits());
                let (g, t) = (generic.evaluate(&pos, pov), thesis.evaluate(&pos, pov));
                prop_assert!((g - t).abs() <= 1e-4, "generic {g} thesis {t} in {pos}");
            }
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            pos = pos.play(moves[choice as usize % moves.len()]);
        }
    }
}

/// The generic evaluator searched from scratch at every leaf: the reference for the search's
/// incremental use of it.
struct FromScratch(ShapedNetwork);

impl Evaluator for FromScratch {
    type State = Color;

    fn root_state(&self, _pos: &Position, pov: Color) -> Color {
        pov
    }

    fn child_state(&self, pov: &Color, _pos: &Position, _mv: Move) -> Color {
        *pov
    }

    fn evaluate(&self, pov: &Color, pos: &Position) -> f32 {
        self.0.evaluate(pos, *pov)
    }
}

#[test]
fn searches_over_the_generic_evaluator_match_a_from_scratch_search() {
    let rules = Rules::default();
    for (k, name) in SHAPES.iter().enumerate() {
        let network = ShapedNetwork::new(&random(shape(name), 40 + k as u64));
        let reference = FromScratch(network.clone());
        for pos in loa_engine::openings::sample_positions(6, k as u64) {
            if pos.legal_moves().is_empty() {
                continue;
            }
            let limits = SearchLimits::new(3, &rules, 0);
            let (fast, slow) =
                (alpha_beta(&pos, &rules, limits, &network), alpha_beta(&pos, &rules, limits, &reference));
            assert_eq!((fast.best, fast.value.to_bits()), (slow.best, slow.value.to_bits()), "{name} in {pos}");
        }
    }
}

#[test]
fn players_take_the_path_their_shape_calls_for() {
    let thesis = random_uniform(1);
    assert!(matches!(ShapedPlayer::new(&thesis, 2), ShapedPlayer::Thesis(_)));
    let printed = Chromosome::new(shape("board-printed-nonad-100-20-1"), thesis.weights().to_vec()).unwrap();
    assert!(matches!(ShapedPlayer::new(&printed, 2), ShapedPlayer::Thesis(_)));
    let small = random(shape("5x5-board-25-12-1"), 2);
    assert!(matches!(ShapedPlayer::new(&small, 2), ShapedPlayer::Generic(_)));
    // The printed encoding's fast network is the one `with_encoding` makes.
    let pos = Position::start();
    let by_shape = Network::new(&printed);
    let by_option = Network::with_encoding(&thesis, loa_engine::network::Encoding::Printed);
    assert_eq!(by_shape.evaluate(&pos, Color::Black).to_bits(), by_option.evaluate(&pos, Color::Black).to_bits());
}

#[test]
fn a_chromosome_of_another_shape_is_a_clear_error() {
    let small = random(shape("5x5-board-25-12-1"), 3);
    let error = Network::try_new(&small).unwrap_err();
    assert_eq!(error, ShapeError::Mismatch { expected: Topology::THESIS, found: small.topology() });
    let message = error.to_string();
    assert!(message.contains("5x5-board-25-12-1") && message.contains("board-nonad-100-20-1"), "{message}");
    let error = ShapeError::Mismatch { expected: Topology::THESIS, found: small.topology() };
    assert_eq!(ShapedPlayer::expecting(Topology::THESIS, &small, 2).unwrap_err(), error);
    assert_eq!(ShapedNetwork::expecting(Topology::THESIS, &small).unwrap_err(), error);
    assert!(ShapedNetwork::expecting(small.topology(), &small).is_ok());
}

#[test]
fn chromosome_files_name_their_shape() {
    let small = random(shape("5x5-board-25-12-1"), 4);
    let json = small.to_json();
    assert!(json.starts_with(r#"{"topology": "5x5-board-25-12-1", "weights": ["#), "{}", &json[..60]);
    assert_eq!(Chromosome::from_json(&json).unwrap(), small);
    // The thesis's weights under the small shape's name: the count is wrong, and both are named.
    let wrong = random_uniform(0).to_json().replace("board-nonad-100-20-1", "5x5-board-25-12-1");
    let error = Chromosome::from_json(&wrong).unwrap_err();
    assert!(matches!(error, ChromosomeError::WrongLength { expected: 325, found: 2041, .. }), "{error:?}");
    assert!(error.to_string().contains("5x5-board-25-12-1 needs 325 weights, found 2041"), "{error}");
    let bad = Chromosome::from_json(r#"{"topology": "5x5-board-24-12-1", "weights": []}"#).unwrap_err();
    assert!(matches!(bad, ChromosomeError::Shape(ShapeError::NameInputCount { .. })), "{bad:?}");
}

#[test]
fn the_generic_values_stay_in_range_for_extreme_weights() {
    // Every weight at the ±10⁶ limit: sums far beyond tanh's saturation, no overflow.
    for name in SHAPES {
        let t = shape(name);
        let weights = (0..t.weight_count()).map(|i| if i % 3 == 0 { -1.0e6 } else { 1.0e6 }).collect();
        let network = ShapedNetwork::new(&Chromosome::new(t, weights).unwrap());
        for pov in Color::ALL {
            let (fast, plain) =
                (network.evaluate(&Position::start(), pov), network.evaluate_plain(&Position::start(), pov));
            assert!(fast.abs() <= 1.0 && fast == plain, "{name}: {fast} {plain}");
        }
    }
}
