//! The network (docs/spec.md §3): inputs and outputs worked out by hand, the chromosome layout, the fast
//! path against the plain pass along random games, the portable tanh, and chromosome files.

use loa_engine::network::{
    Accumulator, Chromosome, ChromosomeError, HIDDEN, INPUTS, MAX_ABS_WEIGHT, Network, PlainNetwork, ShapeError,
    SplitMix64, TANH_ERROR, TANH_ESTIMATE_ERROR, TANH_SATURATION, Topology, board_input_index, inputs,
    nonad_input_index, random_uniform, tanh, tanh_estimate, tanh_unfused, weight_from_bits,
};
use loa_engine::search::Evaluator;
use loa_engine::{Color, Move, Position, Square};
use proptest::prelude::*;
use std::path::PathBuf;

const WEIGHTS: usize = 2041;

fn sq(name: &str) -> Square {
    Square::parse(name).unwrap()
}

fn position(text: &str) -> Position {
    text.parse().unwrap()
}

/// Black on d4 alone, White on h8 alone, Black to move.
const D4_H8: &str = ".......w/......../......../......../...b..../......../......../........ b";

/// A default-topology chromosome with the given (index, value) weights and every other weight 0.
fn sparse(nonzero: &[(usize, f32)]) -> Chromosome {
    let mut weights = vec![0.0; WEIGHTS];
    for &(i, w) in nonzero {
        weights[i] = w;
    }
    Chromosome::new(Topology::default(), weights).unwrap()
}

/// `found` is within `tolerance` of the exact `expected`.
fn assert_near(found: f32, expected: f64, tolerance: f64) {
    assert!((f64::from(found) - expected).abs() < tolerance, "found {found}, expected {expected}");
}

fn assert_close(found: &[f32], expected: &[f32], tolerance: f32) {
    assert_eq!(found.len(), expected.len());
    for (i, (f, e)) in found.iter().zip(expected).enumerate() {
        assert!((f - e).abs() <= tolerance, "index {i}: found {f}, expected {e}");
    }
}

// ---------------------------------------------------------------------------------------------
// Layout and input encoding, by hand.

#[test]
fn the_default_topology_has_the_spec_layout() {
    let t = Topology::default();
    assert_eq!(t.name(), "board-nonad-100-20-1");
    assert_eq!(Topology::from_name("board-nonad-100-20-1"), Some(t));
    assert_eq!(Topology::from_name("board-nonad"), None);
    assert_eq!((t.input_count(), t.hidden_count(), t.weight_count()), (100, 20, WEIGHTS));
    assert_eq!((INPUTS, HIDDEN), (100, 20));
    assert_eq!(t.input_weight_index(0, 0), 0);
    assert_eq!(t.input_weight_index(3, 7), 307);
    assert_eq!(t.input_weight_index(19, 99), 1999);
    assert_eq!(t.hidden_bias_index(0), 2000);
    assert_eq!(t.hidden_bias_index(19), 2019);
    assert_eq!(t.output_weight_index(0), 2020);
    assert_eq!(t.output_weight_index(19), 2039);
    assert_eq!(t.output_bias_index(), 2040);
}

#[test]
fn input_indices_follow_reading_order() {
    // Board: a8 b8 … h8 a7 … h1.
    assert_eq!(board_input_index(sq("a8")), 0);
    assert_eq!(board_input_index(sq("h8")), 7);
    assert_eq!(board_input_index(sq("a7")), 8);
    assert_eq!(board_input_index(sq("d4")), 35); // (7-3)*8 + 3
    assert_eq!(board_input_index(sq("a1")), 56);
    assert_eq!(board_input_index(sq("h1")), 63);
    // Nonads: centres b7 … g7, b6 … g2.
    assert_eq!(nonad_input_index(sq("b7")), Some(64));
    assert_eq!(nonad_input_index(sq("g7")), Some(69));
    assert_eq!(nonad_input_index(sq("b6")), Some(70));
    assert_eq!(nonad_input_index(sq("d4")), Some(84)); // 64 + (6-3)*6 + (3-1)
    assert_eq!(nonad_input_index(sq("g2")), Some(99));
    for edge in ["a1", "a5", "h8", "h4", "d1", "e8"] {
        assert_eq!(nonad_input_index(sq(edge)), None, "{edge}");
    }
    let mut seen: Vec<usize> = Square::all().map(board_input_index).collect();
    seen.extend(Square::all().filter_map(nonad_input_index));
    seen.sort_unstable();
    assert_eq!(seen, (0..100).collect::<Vec<_>>(), "every input exactly once");
}

#[test]
fn start_position_inputs_for_black() {
    let x = inputs(&Position::start(), Color::Black);
    // Board, rank 8: a8 empty, b8–g8 Black (own), h8 empty. Ranks 7–2: a and h White, rest empty.
    let mut board = Vec::new();
    board.extend([0.5, 0.75, 0.75, 0.75, 0.75, 0.75, 0.75, 0.5]);
    for _ in 0..6 {
        board.extend([0.25, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.25]);
    }
    board.extend([0.5, 0.75, 0.75, 0.75, 0.75, 0.75, 0.75, 0.5]);
    assert_close(&x[..64], &board, 0.0);
    // Nonad b7 (window a6–c8): b8 orthogonal 0.8 + c8 diagonal 0.75 = 1.55 (a8 empty; a7 and a6
    // are White, ignored). c7: b8 0.75 + c8 0.8 + d8 0.75 = 2.3; likewise d7–f7; g7 mirrors b7.
    // Ranks 6–3 see no black piece. Rank 2 mirrors rank 7 (b2: b1 0.8 + c1 0.75).
    let edge_row = [1.55, 2.3, 2.3, 2.3, 2.3, 1.55];
    let mut nonads = edge_row.to_vec();
    nonads.extend([0.0; 24]);
    nonads.extend(edge_row);
    assert_close(&x[64..], &nonads, 1e-6);
}

#[test]
fn start_position_inputs_for_white() {
    let x = inputs(&Position::start(), Color::White);
    assert_eq!(x[board_input_index(sq("a8"))], 0.5);
    assert_eq!(x[board_input_index(sq("b8"))], 0.25); // Black: the opponent
    assert_eq!(x[board_input_index(sq("a7"))], 0.75); // White: own
    assert_eq!(x[board_input_index(sq("h2"))], 0.75);
    assert_eq!(x[board_input_index(sq("d1"))], 0.25);
    assert_eq!(x[board_input_index(sq("d4"))], 0.5);
    // Nonad b7 (window a6–c8): a7 orthogonal 0.8 + a6 diagonal 0.75 = 1.55. b6: a5 0.75 + a6 0.8
    // + a7 0.75 = 2.3, likewise b5–b3; b2: a2 0.8 + a3 0.75 (a1 empty) = 1.55. Column g mirrors
    // column b with the h pieces; columns c–f see no white piece.
    let mut nonads = [0.0f32; 36];
    for (row, value) in [1.55, 2.3, 2.3, 2.3, 2.3, 1.55].into_iter().enumerate() {
        nonads[row * 6] = value;
        nonads[row * 6 + 5] = value;
    }
    assert_close(&x[64..], &nonads, 1e-6);
}

#[test]
fn a_lone_piece_lights_its_cell_and_nine_nonads() {
    let pos = position(D4_H8);
    let black = inputs(&pos, Color::Black);
    let mut board = [0.5f32; 64];
    board[35] = 0.75; // d4, own
    board[7] = 0.25; // h8, opponent
    assert_close(&black[..64], &board, 0.0);
    // d4 is the centre of nonad d4 (1.0), an orthogonal neighbour of the centres c4, e4, d3, d5
    // (0.8) and a diagonal neighbour of c3, e3, c5, e5 (0.75).
    let mut nonads = [0.0f32; 100];
    for (centre, value) in [
        ("d4", 1.0),
        ("c4", 0.8),
        ("e4", 0.8),
        ("d3", 0.8),
        ("d5", 0.8),
        ("c3", 0.75),
        ("e3", 0.75),
        ("c5", 0.75),
        ("e5", 0.75),
    ] {
        nonads[nonad_input_index(sq(centre)).unwrap()] = value;
    }
    assert_eq!((nonads[77], nonads[78], nonads[84], nonads[91]), (0.75, 0.8, 1.0, 0.75));
    assert_close(&black[64..], &nonads[64..], 0.0);

    // White sees d4 as the opponent's and h8 as its own: h8 is a corner of the g7 window only.
    let white = inputs(&pos, Color::White);
    assert_eq!((white[35], white[7], white[0]), (0.25, 0.75, 0.5));
    let mut white_nonads = [0.0f32; 36];
    white_nonads[69 - 64] = 0.75;
    assert_close(&white[64..], &white_nonads, 0.0);
}

// ---------------------------------------------------------------------------------------------
// Outputs by hand, and the chromosome layout.

#[test]
fn hand_worked_network_output() {
    let t = Topology::default();
    // Hidden unit 0 reads nonad d4 (weight 1) and cell d4 (weight 2), bias −1, output weight 0.5.
    // Hidden unit 3 reads nonad g7 (weight −1), output weight 1. Output bias 0.25.
    let chromosome = sparse(&[
        (t.input_weight_index(0, 84), 1.0),
        (t.input_weight_index(0, 35), 2.0),
        (t.hidden_bias_index(0), -1.0),
        (t.output_weight_index(0), 0.5),
        (t.input_weight_index(3, 69), -1.0),
        (t.output_weight_index(3), 1.0),
        (t.output_bias_index(), 0.25),
    ]);
    let network = Network::new(&chromosome);
    let pos = position(D4_H8);

    // Black: pre0 = −1 + 1·1.0 + 2·0.75 = 1.5, pre3 = −1·0 = 0.
    // Output = tanh(0.25 + 0.5·tanh 1.5 + 1·tanh 0) = tanh(0.25 + 0.5·0.905148254) = 0.605999136.
    let mut pre = [0.0f32; HIDDEN];
    pre[0] = 1.5;
    assert_close(&network.pre_activations_plain(&pos, Color::Black), &pre, 1e-6);
    assert_close(&network.accumulator(&pos, Color::Black).pre_activations(), &pre, 1e-6);
    assert_near(network.evaluate_plain(&pos, Color::Black), 0.605_999_135_781_632_8, 1e-6);
    assert_near(network.evaluate(&pos, Color::Black), 0.605_999_135_781_632_8, 1e-6);

    // White: cell d4 is 0.25, nonad d4 0, nonad g7 0.75 (h8). pre0 = −1 + 2·0.25 = −0.5,
    // pre3 = −0.75. Output = tanh(0.25 + 0.5·tanh(−0.5) + tanh(−0.75))
    //                      = tanh(0.25 − 0.231058579 − 0.635148952) = tanh(−0.616207531) = −0.548481974.
    pre[0] = -0.5;
    pre[3] = -0.75;
    assert_close(&network.pre_activations_plain(&pos, Color::White), &pre, 1e-6);
    assert_close(&network.accumulator(&pos, Color::White).pre_activations(), &pre, 1e-6);
    assert_near(network.evaluate_plain(&pos, Color::White), -0.548_481_974_135_450_2, 1e-6);
    assert_near(network.evaluate(&pos, Color::White), -0.548_481_974_135_450_2, 1e-6);
}

#[test]
fn each_input_weight_connects_only_its_input_to_its_hidden_unit() {
    // A midgame position, so the inputs take many different values.
    let pos = position(".b..b.../w.b...bw/...w.b../w..b...w/..w..b../w.....b./.bw...w./...b.... w");
    let t = Topology::default();
    for pov in Color::ALL {
        let x = inputs(&pos, pov);
        for h in 0..HIDDEN {
            for (i, &xi) in x.iter().enumerate() {
                let network = Network::new(&sparse(&[(t.input_weight_index(h, i), 1.0)]));
                let mut expected = [0.0f32; HIDDEN];
                expected[h] = xi;
                assert_eq!(network.pre_activations_plain(&pos, pov), expected, "h {h} i {i}");
                assert_close(&network.accumulator(&pos, pov).pre_activations(), &expected, 1e-6);
            }
        }
    }
}

#[test]
fn biases_and_output_weights_sit_where_the_layout_says() {
    let t = Topology::default();
    let pos = Position::start();
    for h in 0..HIDDEN {
        // Only hidden unit h's bias and output weight: output = tanh(1·tanh(0.5)) = 0.431808181.
        let network = Network::new(&sparse(&[(t.hidden_bias_index(h), 0.5), (t.output_weight_index(h), 1.0)]));
        let mut pre = [0.0f32; HIDDEN];
        pre[h] = 0.5;
        assert_eq!(network.pre_activations_plain(&pos, Color::Black), pre);
        assert_near(network.evaluate_plain(&pos, Color::Black), 0.431_808_180_595_096_1, 1e-6);
        assert_near(network.evaluate(&pos, Color::White), 0.431_808_180_595_096_1, 1e-6);
        // The same bias read through a different output weight reaches nothing.
        let other = (h + 1) % HIDDEN;
        let network = Network::new(&sparse(&[(t.hidden_bias_index(h), 0.5), (t.output_weight_index(other), 1.0)]));
        assert_eq!(network.evaluate_plain(&pos, Color::Black), 0.0);
        assert_eq!(network.evaluate(&pos, Color::Black), 0.0);
    }
    // The output bias alone: tanh(−0.3) = −0.291312612.
    let network = Network::new(&sparse(&[(t.output_bias_index(), -0.3)]));
    assert_near(network.evaluate_plain(&pos, Color::Black), -0.291_312_612_451_590_9, 1e-6);
    assert_near(network.evaluate(&pos, Color::Black), -0.291_312_612_451_590_9, 1e-6);
}

// ---------------------------------------------------------------------------------------------
// The fast path against the plain pass.

/// Checks a fast-path accumulator against the plain pass. Pre-activations may differ by rounding
/// only: at most 16·ε·(|b_h| + Σ_i |W1[h][i]·x_i|), the sum's scale (measured worst over 600 000
/// checks: 4.3·ε·scale). Outputs within `output_tolerance`.
fn check_against_plain(
    chromosome: &Chromosome,
    network: &Network,
    pos: &Position,
    fast: &Accumulator,
    output_tolerance: f32,
    what: &str,
) {
    let (pov, t) = (fast.pov(), chromosome.topology());
    let x = inputs(pos, pov);
    let plain_pre = network.pre_activations_plain(pos, pov);
    for (h, (p, f)) in plain_pre.iter().zip(fast.pre_activations()).enumerate() {
        let w = |i| chromosome.weights()[i];
        let scale = w(t.hidden_bias_index(h)).abs()
            + x.iter().enumerate().map(|(i, xi)| (w(t.input_weight_index(h, i)) * xi).abs()).sum::<f32>();
        let tolerance = 16.0 * f32::EPSILON * scale;
        assert!((p - f).abs() <= tolerance, "{what}: unit {h} plain {p} fast {f} in {pos} ({pov})");
    }
    let (plain, fast) = (network.evaluate_plain(pos, pov), network.evaluate_accumulator(fast));
    assert!((plain - fast).abs() <= output_tolerance, "{what}: plain {plain} fast {fast} in {pos} ({pov})");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Along a random game from the start, for both points of view: the accumulator from scratch
    /// and one update from it for every legal move (as at a search's leaves; quiet moves and
    /// captures by either side) agree with the plain pass within 1e-5 (measured worst 3.2e-6);
    /// the accumulator carried by updates from the first position, rounding accumulating over up
    /// to 100 plies, within 2e-5 (measured worst 6.6e-6).
    #[test]
    fn fast_path_matches_plain_pass_along_random_games(
        seed in any::<u64>(),
        choices in proptest::collection::vec(any::<u32>(), 0..100),
    ) {
        let chromosome = random_uniform(seed);
        let network = Network::new(&chromosome);
        let check = |pos: &Position, fast: &Accumulator, tolerance: f32, what: &str| {
            check_against_plain(&chromosome, &network, pos, fast, tolerance, what)
        };
        for pov in Color::ALL {
            let mut pos = Position::start();
            let mut carried = network.accumulator(&pos, pov);
            for &choice in &choices {
                let scratch = network.accumulator(&pos, pov);
                check(&pos, &scratch, 1e-5, "from scratch");
                check(&pos, &carried, 2e-5, "carried from the start");
                prop_assert_eq!(network.update(&scratch, &pos, Move::PASS), scratch);
                let moves = pos.legal_moves();
                for &mv in moves.iter() {
                    check(&pos.play(mv), &network.update(&scratch, &pos, mv), 1e-5, "one update");
                }
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

#[test]
fn evaluators_follow_the_trait() {
    let network = Network::new(&random_uniform(3));
    let plain = PlainNetwork(network.clone());
    let pos = Position::start();
    let mv = pos.legal_moves()[5];
    let child = pos.play(mv);
    for pov in Color::ALL {
        let state = network.child_state(&network.root_state(&pos, pov), &pos, mv);
        let fast = Evaluator::evaluate(&network, &state, &child);
        let reference = plain.evaluate(&plain.child_state(&plain.root_state(&pos, pov), &pos, mv), &child);
        assert_eq!(reference, network.evaluate_plain(&child, pov));
        assert!((fast - reference).abs() < 1e-5);
        assert!(fast.abs() <= 1.0);
    }
    // Black's and White's views of the same position are different evaluations.
    assert_ne!(network.evaluate(&child, Color::Black), network.evaluate(&child, Color::White));
}

// ---------------------------------------------------------------------------------------------
// tanh.

fn tanh_error(x: f32) -> f64 {
    (f64::from(tanh(x)) - f64::from(x).tanh()).abs()
}

#[test]
fn tanh_special_values() {
    assert_eq!(tanh(0.0).to_bits(), 0.0f32.to_bits());
    assert_eq!(tanh(-0.0).to_bits(), (-0.0f32).to_bits());
    for big in [9.5f32, 10.0, 20.0, 1e6, f32::MAX, f32::INFINITY] {
        assert_eq!(tanh(big), 1.0, "{big}");
        assert_eq!(tanh(-big), -1.0, "{big}");
    }
    // Tiny inputs: tanh x = x exactly in f32 (relative accuracy, not just absolute).
    for tiny in [1e-30f32, 1e-20, 1e-10, 1e-5, f32::MIN_POSITIVE, 1e-40, f32::from_bits(1)] {
        assert_eq!(tanh(tiny), tiny, "{tiny}");
        assert_eq!(tanh(-tiny), -tiny, "{tiny}");
    }
    // Near 0 the error is relative, not just absolute: tanh(0.001) = 0.000999999666…
    assert_near(tanh(1e-3), f64::from(1e-3f32).tanh(), 2e-10);
    assert_near(tanh(1.0), 0.761_594_155_955_764_9, 2e-7);
    assert_near(tanh(-2.5), -0.986_614_298_151_430_3, 2e-7);
}

#[test]
fn tanh_dense_sweep_is_within_2e_7_and_odd() {
    let mut worst = (0.0f64, 0.0f32);
    // Every 61st f32 from 0 to 12 (about 18 million values), both signs.
    for bits in (0..=12.0f32.to_bits()).step_by(61) {
        let x = f32::from_bits(bits);
        let error = tanh_error(x);
        if error > worst.0 {
            worst = (error, x);
        }
        assert_eq!(tanh(-x).to_bits(), (-tanh(x)).to_bits(), "odd at {x}");
    }
    assert!(worst.0 <= 2e-7, "max error {} at {}", worst.0, worst.1);
}

/// Every finite f32 (about 4 billion; a minute or two): run with `--ignored` after changing tanh.
#[test]
#[ignore]
fn tanh_every_f32() {
    let mut worst = (0.0f64, 0.0f32);
    let mut decreases = 0u64;
    let mut previous = 0.0f32;
    for bits in 0..0x7F80_0000u32 {
        let x = f32::from_bits(bits);
        let y = tanh(x);
        let error = (f64::from(y) - f64::from(x).tanh()).abs();
        if error > worst.0 {
            worst = (error, x);
        }
        decreases += u64::from(y < previous);
        previous = y;
        assert_eq!(tanh(-x).to_bits(), (-y).to_bits(), "odd at {x}");
    }
    println!("tanh: max abs error {:e} at {:e}; {decreases} decreases on [0, max]", worst.0, worst.1);
    // The search's bounds on network values rest on this bound.
    assert!(worst.0 <= f64::from(TANH_ERROR));
}

// ---------------------------------------------------------------------------------------------
// Random chromosomes.

#[test]
fn random_uniform_draws_splitmix64_weights_exactly() {
    // splitmix64 from seed 0 starts 0xe220a8397b1dcdaf, 0x6e789e6aa1b965f4, 0x06c45d188009454f.
    // Weight = (bits >> 40) · 2^-24 · 2 − 1: 0xe220a8 = 14819496 → 14819496 / 2^23 − 1.
    let mut rng = SplitMix64::new(0);
    assert_eq!(rng.next_u64(), 0xe220_a839_7b1d_cdaf);
    let c = random_uniform(0);
    assert_eq!(c.topology(), Topology::default());
    assert_eq!(c.weights().len(), WEIGHTS);
    assert_eq!(c.weights()[0], 14_819_496.0 / 8_388_608.0 - 1.0);
    assert_eq!(c.weights()[1], weight_from_bits(0x6e78_9e6a_a1b9_65f4));
    assert_eq!(c.weights()[2], (0x06c45d_u32 as f32) / 8_388_608.0 - 1.0);
    assert_eq!(weight_from_bits(0), -1.0);
    assert_eq!(weight_from_bits(u64::MAX), 1.0 - 1.0 / 8_388_608.0);
    assert!(c.weights().iter().all(|w| (-1.0..1.0).contains(w)));
    assert_eq!(random_uniform(0), c);
    assert_ne!(random_uniform(1), c);
    let mut counter = 0u64;
    let counted = Chromosome::random(Topology::default(), || {
        counter += 1 << 40;
        counter
    });
    assert_eq!(counted.weights()[..2], [1.0 / 8_388_608.0 - 1.0, 2.0 / 8_388_608.0 - 1.0]);
}

// ---------------------------------------------------------------------------------------------
// Chromosome files.

fn scratch_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("loa-network-test-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn with_weights(weights: &str) -> String {
    format!(r#"{{"topology": "board-nonad-100-20-1", "weights": [{weights}]}}"#)
}

fn zeros_json(count: usize) -> String {
    with_weights(&vec!["0"; count].join(", "))
}

fn bits(c: &Chromosome) -> Vec<u32> {
    c.weights().iter().map(|w| w.to_bits()).collect()
}

#[test]
fn json_round_trip_is_bit_exact() {
    let random = random_uniform(42);
    let json = random.to_json();
    assert!(json.starts_with(r#"{"topology": "board-nonad-100-20-1", "weights": ["#), "{}", &json[..60]);
    assert!(json.ends_with("]}"));
    assert_eq!(bits(&Chromosome::from_json(&json).unwrap()), bits(&random));

    // Awkward values: signed zero, subnormals, extremes of the allowed range, long expansions.
    let mut weights = vec![0.0f32; WEIGHTS];
    let special = [
        -0.0,
        f32::from_bits(1),
        -f32::MIN_POSITIVE,
        1e-7,
        MAX_ABS_WEIGHT,
        -MAX_ABS_WEIGHT,
        0.1,
        1.0 / 3.0,
        std::f32::consts::PI,
        123_456.79,
        -0.999_999_94,
    ];
    weights[..special.len()].copy_from_slice(&special);
    let awkward = Chromosome::new(Topology::default(), weights).unwrap();
    let back = Chromosome::from_json(&awkward.to_json()).unwrap();
    assert_eq!(bits(&back), bits(&awkward));

    // Through serde too (chromosomes inside other messages).
    let value = serde_json::to_string(&random).unwrap();
    assert_eq!(bits(&serde_json::from_str::<Chromosome>(&value).unwrap()), bits(&random));
}

#[test]
fn files_round_trip_atomically() {
    let dir = scratch_dir("files");
    let path = dir.join("champion.json");
    let original = random_uniform(7);
    original.write(&path).unwrap();
    random_uniform(8).write(&path).unwrap(); // replaces
    let back = Chromosome::read(&path).unwrap();
    assert_eq!(bits(&back), bits(&random_uniform(8)));
    let leftovers: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(leftovers, vec![std::ffi::OsString::from("champion.json")], "no temporary file left");
    // The evaluations of a network read back are identical.
    let pos = Position::start();
    assert_eq!(
        Network::new(&back).evaluate(&pos, Color::Black).to_bits(),
        Network::new(&random_uniform(8)).evaluate(&pos, Color::Black).to_bits()
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

fn error_of(json: &str) -> (ChromosomeError, String) {
    let error = Chromosome::from_json(json).unwrap_err();
    let message = error.to_string();
    (error, message)
}

#[test]
fn wrong_weight_counts_are_named() {
    let (error, message) = error_of(&zeros_json(2040));
    assert!(matches!(error, ChromosomeError::WrongLength { expected: 2041, found: 2040, .. }), "{error:?}");
    assert!(message.contains("2041") && message.contains("2040"), "{message}");
    let (_, message) = error_of(&zeros_json(0));
    assert!(message.contains("needs 2041 weights, found 0"), "{message}");
    let error = Chromosome::new(Topology::default(), vec![0.0; 2042]).unwrap_err();
    assert!(error.to_string().contains("found 2042"), "{error}");
}

#[test]
fn non_finite_and_huge_weights_are_named() {
    let mut weights = vec![0.0f32; WEIGHTS];
    weights[7] = f32::NAN;
    let error = Chromosome::new(Topology::default(), weights.clone()).unwrap_err();
    assert!(matches!(error, ChromosomeError::NonFiniteWeight { index: 7, .. }), "{error:?}");
    assert!(error.to_string().contains("weight 7 is not a finite number (NaN)"), "{error}");
    weights[7] = 0.0;
    weights[2040] = f32::NEG_INFINITY;
    let error = Chromosome::new(Topology::default(), weights.clone()).unwrap_err();
    assert!(error.to_string().contains("weight 2040 is not a finite number (-inf)"), "{error}");
    weights[2040] = 0.0;
    weights[5] = 2.0e6;
    let error = Chromosome::new(Topology::default(), weights).unwrap_err();
    assert!(matches!(error, ChromosomeError::WeightTooLarge { index: 5, .. }), "{error:?}");
    assert!(error.to_string().contains("weight 5 is 2000000"), "{error}");

    // JSON has no NaN or infinity, but a number beyond f32's range becomes infinite.
    let mut numbers = vec!["0"; WEIGHTS];
    numbers[12] = "1e39";
    let (error, message) = error_of(&with_weights(&numbers.join(", ")));
    assert!(matches!(error, ChromosomeError::NonFiniteWeight { index: 12, .. }), "{error:?}");
    assert!(message.contains("weight 12"), "{message}");
}

#[test]
fn bad_files_are_named() {
    let (error, message) = error_of(r#"{"topology": "rows-columns-16-20-1", "weights": [0.5]}"#);
    assert!(matches!(error, ChromosomeError::Shape(ShapeError::NameToken { .. })), "{error:?}");
    assert!(message.contains("rows-columns-16-20-1") && message.contains("\"rows\""), "{message}");
    assert!(message.contains("e.g. board-nonad-100-20-1"), "the message shows a valid name: {message}");

    let json = zeros_json(WEIGHTS).replace("]}", r#"], "fitness": 3, "age": {"x": 1}}"#);
    let (error, message) = error_of(&json);
    assert!(matches!(error, ChromosomeError::UnknownFields { ref names } if names == &["fitness", "age"]));
    assert!(message.contains("fitness") && message.contains("age"), "{message}");

    let (error, message) = error_of(r#"{"topology": "board-nonad-100-20-1"}"#);
    assert!(matches!(error, ChromosomeError::MissingField { name: "weights" }), "{error:?}");
    assert!(message.contains("no \"weights\" field"), "{message}");
    let (_, message) = error_of(r#"{"weights": []}"#);
    assert!(message.contains("no \"topology\" field"), "{message}");

    for (json, expected) in [
        (r#"{"topology": "board-nonad-100-20-1", "weights": [1, 2,"#, "line 1 column"),
        ("{\"topology\": \"board-nonad-100-20-1\",\n \"weights\": [1, \"two\"]}", "invalid type: string \"two\""),
        ("{\"topology\": 5,\n \"weights\": []}", "line 1 column"),
        (r#"{"weights": [], "weights": []}"#, "duplicate field `weights`"),
        (r#"[1, 2]"#, "expected a chromosome object"),
        (r#"{"topology": "board-nonad-100-20-1", "weights": []} x"#, "trailing characters"),
        ("", "EOF while parsing"),
    ] {
        let (error, message) = error_of(json);
        assert!(matches!(error, ChromosomeError::Json(_)), "{json}: {error:?}");
        assert!(message.starts_with("malformed chromosome JSON") && message.contains(expected), "{json}: {message}");
    }
    let (_, message) = error_of("{\"topology\": \"board-nonad-100-20-1\",\n \"weights\": [1, \"two\"]}");
    assert!(message.contains("line 2 column"), "{message}");

    // Through serde, the same checks apply.
    let error = serde_json::from_str::<Chromosome>(r#"{"topology": "x", "weights": []}"#).unwrap_err();
    assert!(error.to_string().contains("network shape \"x\": unknown part \"x\""), "{error}");
}

#[test]
fn file_errors_name_the_file() {
    let dir = scratch_dir("errors");
    let missing = dir.join("missing.json");
    let error = Chromosome::read(&missing).unwrap_err();
    assert!(matches!(error, ChromosomeError::Io { action: "read", .. }), "{error:?}");
    let message = error.to_string();
    assert!(message.contains("cannot read") && message.contains(&missing.display().to_string()), "{message}");

    let bad = dir.join("bad.json");
    std::fs::write(&bad, zeros_json(3)).unwrap();
    let error = Chromosome::read(&bad).unwrap_err();
    assert!(matches!(&error, ChromosomeError::InFile { source, .. }
        if matches!(**source, ChromosomeError::WrongLength { found: 3, .. })));
    let message = error.to_string();
    assert!(message.contains(&bad.display().to_string()) && message.contains("found 3"), "{message}");

    let nowhere = dir.join("no-such-dir").join("c.json");
    let error = random_uniform(1).write(&nowhere).unwrap_err();
    assert!(matches!(error, ChromosomeError::Io { action: "write", .. }), "{error:?}");
    assert!(error.to_string().contains(&nowhere.display().to_string()), "{error}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Every positive finite f32 written by `to_json` parses back to the same bits (a few minutes);
/// negatives differ only in the sign. Run with `--ignored` after changing the file format.
#[test]
#[ignore]
fn json_numbers_round_trip_for_every_f32() {
    let mut text = String::new();
    for bits in 0..0x7F80_0000u32 {
        let w = f32::from_bits(bits);
        text.clear();
        use std::fmt::Write;
        write!(text, "{w:?}").unwrap();
        let back: f32 = serde_json::from_str(&text).unwrap();
        assert_eq!(back.to_bits(), bits, "{text}");
    }
}

#[test]
fn batched_evaluations_equal_single_ones_bit_for_bit() {
    // The batched paths (hidden units of up to 8 accumulators packed, the output tanh vectorised
    // across them) against the scalar one, on every incremental child of playout positions, for
    // batch lengths 1..=8 and longer. Random networks' hidden units saturate, so the children's
    // pre-activations cover tanh's range from near zero to beyond its clamp.
    let positions = loa_engine::openings::sample_positions(400, 17);
    for seed in [1u64, 9, 77] {
        let network = Network::new(&random_uniform(seed));
        let mut accs = Vec::new();
        for p in &positions {
            let acc = network.accumulator(p, p.side_to_move());
            accs.extend(p.legal_moves().iter().map(|&mv| network.update(&acc, p, mv)));
        }
        let single: Vec<u32> = accs.iter().map(|a| network.evaluate_accumulator(a).to_bits()).collect();
        for len in [1usize, 2, 3, 5, 7, 8, 13] {
            for (start, chunk) in accs.chunks(len).enumerate() {
                let expected = &single[start * len..start * len + chunk.len()];
                // The dispatching path (AVX-512 where the processor has it) and its portable
                // twin, each against the scalar evaluations.
                let mut values = vec![0.0f32; chunk.len()];
                network.evaluate_accumulators(chunk, &mut values);
                let bits: Vec<u32> = values.iter().map(|v| v.to_bits()).collect();
                assert_eq!(bits, expected, "seed {seed}, length {len}");
                network.evaluate_accumulators_portable(chunk, &mut values);
                let bits: Vec<u32> = values.iter().map(|v| v.to_bits()).collect();
                assert_eq!(bits, expected, "portable, seed {seed}, length {len}");
            }
        }
    }
}

#[test]
fn batched_evaluations_keep_the_padding_lanes_signed_zero() {
    // Hand-worked: every hidden bias −1 and every other weight 0 (output bias −0), so each hidden
    // unit is tanh(−1) < 0 and each product tanh(−1) · 0 = −0. The output sum adds lanes j, j + 8
    // and j + 16 of 24, where lanes 20-23 are the padding's +0: lanes 0-3 sum to −0, lanes 4-7 to
    // −0 + −0 + +0 = +0, and the total to +0, so the value is tanh(+0) = +0. A batched path that
    // dropped the padding would sum 20 negative zeros and give −0.
    let t = Topology::default();
    let mut weights: Vec<(usize, f32)> = (0..HIDDEN).map(|h| (t.hidden_bias_index(h), -1.0)).collect();
    weights.push((t.output_bias_index(), -0.0));
    let network = Network::new(&sparse(&weights));
    let pos = Position::start();
    let acc = network.accumulator(&pos, Color::Black);
    assert_eq!(acc.pre_activations(), [-1.0; HIDDEN]);
    assert_eq!(network.evaluate_accumulator(&acc).to_bits(), 0.0f32.to_bits());
    for len in 1..=9 {
        let accs = vec![acc; len];
        let mut values = vec![f32::NAN; len];
        network.evaluate_accumulators(&accs, &mut values);
        assert!(values.iter().all(|v| v.to_bits() == 0.0f32.to_bits()), "length {len}: {values:?}");
        values.fill(f32::NAN);
        network.evaluate_accumulators_portable(&accs, &mut values);
        assert!(values.iter().all(|v| v.to_bits() == 0.0f32.to_bits()), "portable, length {len}: {values:?}");
    }
}

/// `tanh` fuses three multiply-adds whose products are exact (on targets with FMA); its bits
/// must be those of `tanh_unfused`, which does every step separately, for every f32 bit pattern
/// (NaNs and infinities included). Both run over 64-lane arrays, so both are vectorised as in
/// the batched evaluation; the sweep is split over the available threads.
#[test]
fn fused_tanh_equals_unfused() {
    const CHUNK: u64 = 64;
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()) as u64;
    let per_thread = (1u64 << 32) / threads / CHUNK * CHUNK;
    let differ = |start: u64, end: u64| {
        let mut first = None;
        let mut count = 0u64;
        for base in (start..end).step_by(CHUNK as usize) {
            let xs: [f32; CHUNK as usize] = std::array::from_fn(|i| f32::from_bits((base + i as u64) as u32));
            let fused = xs.map(tanh);
            let unfused = xs.map(tanh_unfused);
            for ((x, a), b) in xs.iter().zip(fused).zip(unfused) {
                if a.to_bits() != b.to_bits() {
                    count += 1;
                    first.get_or_insert((x.to_bits(), a.to_bits(), b.to_bits()));
                }
            }
        }
        (count, first)
    };
    // Per thread: inputs that differ, and the first as (x, fused, unfused) bits.
    type Differences = (u64, Option<(u32, u32, u32)>);
    let results: Vec<Differences> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let end = if t + 1 == threads { 1u64 << 32 } else { (t + 1) * per_thread };
                scope.spawn(move || differ(t * per_thread, end))
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let count: u64 = results.iter().map(|r| r.0).sum();
    let first = results.iter().find_map(|r| r.1);
    assert_eq!(count, 0, "{count} inputs differ; first (x, fused, unfused bits): {first:x?}");
}

#[test]
fn vectorised_tanh_equals_scalar_tanh() {
    // Over arrays the compiler vectorises tanh (8 or 4 lanes, depending on the target); called
    // through an opaque function pointer it runs one value at a time. Same bits required.
    let scalar: fn(f32) -> f32 = std::hint::black_box(tanh);
    let mut rng = SplitMix64::new(5);
    for _ in 0..200_000 {
        let mut lanes = [0.0f32; 24];
        for x in lanes.iter_mut() {
            // Random bit patterns with exponents from tiny to beyond the clamp, both signs.
            let bits = rng.next_u64() as u32;
            *x = f32::from_bits((bits & 0x807f_ffff) | ((0x60 + (bits >> 23) % 0x30) << 23));
        }
        let inputs = lanes;
        for x in lanes.iter_mut() {
            *x = tanh(*x);
        }
        for (x, y) in inputs.iter().zip(lanes) {
            assert_eq!(scalar(*x).to_bits(), y.to_bits(), "tanh({x:e})");
        }
    }
}

/// E7's printed encoding (opponent pieces read as empty squares): the fast path still matches
/// the plain pass, and moving the opponent's pieces elsewhere changes nothing, from either side.
#[test]
fn printed_encoding_does_not_see_the_opponent() {
    use loa_engine::network::Encoding;
    let chromosome = random_uniform(7);
    assert_eq!(Network::new(&chromosome).encoding(), Encoding::Spec);
    let network = Network::with_encoding(&chromosome, Encoding::Printed);
    let spec = Network::new(&chromosome);
    let mut pos = Position::start();
    let mut differs = false;
    for ply in 0..30 {
        for pov in Color::ALL {
            let fast = network.accumulator(&pos, pov);
            check_against_plain(&chromosome, &network, &pos, &fast, 1e-5, "printed");
            // The same own pieces, the opponent reduced to one piece on the first empty square.
            let text = pos.to_string();
            let (board, side) = text.split_once(' ').unwrap();
            let opponent = if pov == Color::Black { 'w' } else { 'b' };
            let cleared = board.replace(opponent, ".");
            let alone = position(&format!("{} {side}", cleared.replacen('.', &opponent.to_string(), 1)));
            let other = network.evaluate_accumulator(&network.accumulator(&alone, pov));
            assert_eq!(network.evaluate_accumulator(&fast), other, "ply {ply}, {pov}");
            assert_eq!(network.evaluate_plain(&pos, pov), network.evaluate_plain(&alone, pov));
            differs |= spec.evaluate_plain(&pos, pov) != spec.evaluate_plain(&alone, pov);
        }
        let moves = pos.legal_moves();
        if moves.is_empty() {
            break;
        }
        pos = pos.play(moves[(ply * 7) % moves.len()]);
    }
    assert!(differs, "the default encoding sees the opponent");
}

// ---- Content addresses ----

#[test]
fn chromosome_ids_are_xxh3_128_of_name_and_weight_bits() {
    use loa_engine::network::ChromosomeId;
    // XXH3-128 of the empty input (the reference implementation's test vector): the hash itself
    // is the specified one.
    assert_eq!(xxh3_of(&[]), 0x99aa06d3014798d86001c324468d497f);
    // The id is the hash of the topology's name, a zero byte and the little-endian weight bits.
    let c = random_uniform(7);
    let mut bytes = b"board-nonad-100-20-1\0".to_vec();
    bytes.extend(c.weights().iter().flat_map(|w| w.to_bits().to_le_bytes()));
    assert_eq!(c.id(), ChromosomeId(xxh3_of(&bytes)));
    assert_eq!(c.id(), ChromosomeId::of(c.topology(), c.weights()));
    // The wire's bytes are those hashed.
    assert_eq!(*loa_engine::network::little_endian_bytes(c.weights()), bytes[21..]);
    // Pinned, so a change of layout or of the hash (which would strand every worker's cache
    // across versions, and mix up ids between a master and workers of different builds) is seen.
    assert_eq!(random_uniform(0).id().to_string(), pinned_id_of_random_uniform_0());
    // The halves round-trip.
    assert_eq!(ChromosomeId::from_halves(c.id().high(), c.id().low()), c.id());
}

fn xxh3_of(bytes: &[u8]) -> u128 {
    // The reference's streaming hasher given everything at once, independent of how the engine
    // feeds it.
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    hasher.update(bytes);
    hasher.digest128()
}

fn pinned_id_of_random_uniform_0() -> &'static str {
    "68a5d76e18a7b183475f53ac77518259"
}

#[test]
fn chromosome_ids_tell_weights_apart_and_ignore_how_the_chromosome_was_made() {
    let c = random_uniform(1);
    let mut weights = c.weights().to_vec();
    let same = Chromosome::new(Topology::default(), weights.clone()).unwrap();
    assert_eq!(same.id(), c.id());
    // A clone keeps (or recomputes) the same id.
    assert_eq!(c.clone().id(), c.id());
    // One bit of one weight changes it; so does the sign of a zero (ids are of bits, not values).
    weights[2040] = f32::from_bits(weights[2040].to_bits() ^ 1);
    assert_ne!(Chromosome::new(Topology::default(), weights.clone()).unwrap().id(), c.id());
    let zero = Chromosome::new(Topology::default(), vec![0.0; WEIGHTS]).unwrap();
    let negative_zero = Chromosome::new(Topology::default(), vec![-0.0; WEIGHTS]).unwrap();
    assert_eq!(zero, negative_zero);
    assert_ne!(zero.id(), negative_zero.id());
}

/// `tanh_estimate` is within `TANH_ESTIMATE_ERROR` of `tanh` for every finite f32 (both
/// vectorised over 64-lane arrays, as in the batched bounds; the sweep is split over the
/// available threads). The search's bounds on leaf values rest on this, and on `tanh` being
/// exactly ±1 from `±TANH_SATURATION` on.
#[test]
fn tanh_estimate_is_within_its_error_everywhere() {
    const CHUNK: u64 = 64;
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()) as u64;
    let per_thread = (1u64 << 32) / threads / CHUNK * CHUNK;
    let worst = |start: u64, end: u64| {
        let mut worst = (0.0f32, 0u32);
        for base in (start..end).step_by(CHUNK as usize) {
            let xs: [f32; CHUNK as usize] = std::array::from_fn(|i| f32::from_bits((base + i as u64) as u32));
            let exact = xs.map(tanh);
            let estimate = xs.map(tanh_estimate);
            for ((x, a), b) in xs.iter().zip(exact).zip(estimate) {
                let error = (a - b).abs();
                // Non-finite inputs are skipped; a NaN difference for a finite one is kept (and fails).
                if x.is_finite() && (error > worst.0 || error.is_nan()) {
                    worst = (error, x.to_bits());
                }
                // Saturation: the bounds take ±1 exactly beyond it.
                if x.abs() >= TANH_SATURATION {
                    assert_eq!(a, x.signum(), "tanh({x:e})");
                }
            }
        }
        worst
    };
    let results: Vec<(f32, u32)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let end = if t + 1 == threads { 1u64 << 32 } else { (t + 1) * per_thread };
                scope.spawn(move || worst(t * per_thread, end))
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let (error, x) = results.into_iter().fold((0.0f32, 0u32), |a, b| if b.0 > a.0 || b.0.is_nan() { b } else { a });
    println!("tanh_estimate: max difference from tanh {error:e} at {:e}", f32::from_bits(x));
    assert!(error <= TANH_ESTIMATE_ERROR, "{error:e} at {:e}", f32::from_bits(x));
    // Not loose either: the bound is within 20 % of the worst case.
    assert!(error > 0.8 * TANH_ESTIMATE_ERROR, "{error:e}");
}

/// The bounds the search settles leaves with hold: `lo ≤ S ≤ hi` for the output unit's input
/// `S` (whose `tanh` is the value) on every incremental child of playout positions, for random
/// networks whose weights are scaled from 0.01 (values nearly linear in the inputs) to 1 000
/// (saturated), on the dispatching path (AVX-512 where the processor has it) and its portable
/// twin (unit-major), which give the same bits, and those of each accumulator bounded alone. They are also narrow: within 2.5e-4 of the sum of the output
/// weights' magnitudes on average (the estimate's error, 8e-5, on each side of each of its
/// terms, and roundings).
#[test]
fn bounds_contain_the_exact_evaluation() {
    let positions = loa_engine::openings::sample_positions(150, 23);
    for seed in [2u64, 5] {
        for scale in [0.01f32, 0.1, 1.0, 1000.0] {
            let weights: Vec<f32> = random_uniform(seed).weights().iter().map(|w| w * scale).collect();
            let output_weights: f64 =
                (0..HIDDEN).map(|h| f64::from(weights[Topology::default().output_weight_index(h)].abs())).sum();
            let network = Network::new(&Chromosome::new(Topology::default(), weights).unwrap());
            let mut accs = Vec::new();
            for p in &positions {
                let acc = network.accumulator(p, p.side_to_move());
                accs.extend(p.legal_moves().iter().map(|&mv| network.update(&acc, p, mv)));
            }
            let (mut width, mut count) = (0.0f64, 0usize);
            for len in [1usize, 3, 8, 13] {
                for chunk in accs.chunks(len) {
                    let (mut lo, mut hi) = (vec![0.0f32; chunk.len()], vec![0.0f32; chunk.len()]);
                    network.bound_accumulators(chunk, &mut lo, &mut hi);
                    let (mut lo2, mut hi2) = (lo.clone(), hi.clone());
                    network.bound_accumulators_portable(chunk, &mut lo2, &mut hi2);
                    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                    assert_eq!((bits(&lo), bits(&hi)), (bits(&lo2), bits(&hi2)), "seed {seed}, scale {scale}");
                    for ((acc, l), h) in chunk.iter().zip(&lo).zip(&hi) {
                        // A group's bounds (unit-major vectors) are bit for bit those of each
                        // accumulator bounded alone (its own 24 lanes, summed as one).
                        let (mut alone_lo, mut alone_hi) = ([0.0f32], [0.0f32]);
                        network.bound_accumulators(std::slice::from_ref(acc), &mut alone_lo, &mut alone_hi);
                        assert_eq!((l.to_bits(), h.to_bits()), (alone_lo[0].to_bits(), alone_hi[0].to_bits()));
                        let exact = network.output_input(acc);
                        assert!(*l <= exact && exact <= *h, "{l} <= {exact} <= {h}: seed {seed}, scale {scale}");
                        assert_eq!(network.evaluate_accumulator(acc).to_bits(), tanh(exact).to_bits());
                        width += f64::from(h - l);
                        count += 1;
                    }
                }
            }
            let mean = width / count as f64 / output_weights;
            println!("seed {seed}, scale {scale}: mean width {mean:e} of the output weights' sum");
            assert!(mean < 2.5e-4, "seed {seed}, scale {scale}: mean width {mean:e}");
        }
    }
}
