//! Pinned results: hashes of whole games, searches and network evaluations, computed on the code
//! before the search and evaluation were made fast (commit 39ad458). Speed work must not change a single
//! move, value or bit, on any build target, so every figure here is an exact hash.
//!
//! If one of these fails, a change altered what the engine computes, not just how fast: find the
//! change, do not update the constant.

use loa_engine::aloa::Aloa;
use loa_engine::game::{GameRecord, Player, play_game};
use loa_engine::network::{
    Chromosome, Network, PlainNetwork, ShapedNetwork, SplitMix64, Topology, random_uniform, tanh,
};
use loa_engine::openings::{random_opening, sample_positions, sample_positions_from};
use loa_engine::players::{RandomPlayer, SearchPlayer};
use loa_engine::search::{SearchLimits, alpha_beta};
use loa_engine::{BoardSize, BothConnected, Color, Move, NoMoves, Position, Rules, Start};
use std::sync::Arc;

/// FNV-1a, 64 bits: tiny, fully specified, and enough to detect any change.
struct Fnv(u64);

impl Fnv {
    fn new() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }

    fn bytes(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }

    fn u64(&mut self, x: u64) {
        self.bytes(&x.to_le_bytes());
    }

    fn f32(&mut self, x: f32) {
        self.bytes(&x.to_bits().to_le_bytes());
    }

    fn mv(&mut self, mv: Option<Move>) {
        self.bytes(mv.map_or("none".to_string(), |m| m.to_string()).as_bytes());
    }

    fn game(&mut self, g: &GameRecord) {
        self.bytes(format!("{:?} {:?} {}", g.outcome, g.reason, g.plies).as_bytes());
        for &m in &g.moves {
            self.mv(Some(m));
        }
    }
}

/// Fails with both hashes in hex, so a new pin can be read off the message.
fn check(name: &str, hash: &Fnv, expected: u64) {
    assert_eq!(hash.0, expected, "{name}: hash {:#018x}, pinned {expected:#018x}", hash.0);
}

fn net(seed: u64) -> Arc<Network> {
    Arc::new(Network::new(&random_uniform(seed)))
}

fn rules_variant(i: u64) -> Rules {
    Rules {
        both_connected: if i & 1 == 0 { BothConnected::Draw } else { BothConnected::MoverWins },
        no_moves: if i & 2 == 0 { NoMoves::Loses } else { NoMoves::Passes },
        ply_cap: 100,
    }
}

#[test]
fn network_games_are_pinned() {
    // 20 three-ply games between seeded random networks: 12 from the start position (as in
    // `loa bench`), 8 from seeded openings under every rules variant.
    let mut h = Fnv::new();
    for g in 0..20u64 {
        let black = SearchPlayer { eval: net(2 * g + 100), depth: 3 };
        let white = SearchPlayer { eval: net(2 * g + 101), depth: 3 };
        let (rules, start) = if g < 12 {
            (Rules::default(), Position::start())
        } else {
            let rules = rules_variant(g);
            (rules, random_opening(6, g, &rules))
        };
        h.game(&play_game(&black, &white, &rules, start, g));
    }
    check("network games", &h, 0x4928_c8d5_1ea8_5307);
}

#[test]
fn aloa_and_random_games_are_pinned() {
    let rules = Rules::default();
    let mut h = Fnv::new();
    let aloa = |depth| SearchPlayer { eval: Aloa::quad(), depth };
    let normal = |depth| SearchPlayer { eval: Aloa::normal(), depth };
    let random = |depth, salt| RandomPlayer { depth, salt };
    let network = |seed, depth| SearchPlayer { eval: net(seed), depth };
    let pairs: Vec<(Box<dyn Player>, Box<dyn Player>)> = vec![
        (Box::new(aloa(3)), Box::new(aloa(4))),
        (Box::new(aloa(4)), Box::new(normal(3))),
        (Box::new(aloa(4)), Box::new(aloa(4))),
        (Box::new(normal(4)), Box::new(aloa(3))),
        (Box::new(random(3, 0)), Box::new(aloa(4))),
        (Box::new(aloa(5)), Box::new(random(3, 0))),
        (Box::new(random(3, 0)), Box::new(random(3, 1))),
        (Box::new(network(7, 3)), Box::new(aloa(5))),
        (Box::new(aloa(5)), Box::new(network(8, 3))),
        (Box::new(random(2, 5)), Box::new(network(9, 3))),
    ];
    for (i, (a, b)) in pairs.iter().enumerate() {
        for colours in 0..2u64 {
            let seed = 1000 + 2 * i as u64 + colours;
            let start = random_opening(4, seed, &rules);
            let (black, white) = if colours == 0 { (a, b) } else { (b, a) };
            h.game(&play_game(&**black, &**white, &rules, start, seed));
        }
    }
    check("ALoA and random-heuristic games", &h, 0x1279_0387_1b36_b702);
}

#[test]
fn search_results_are_pinned() {
    // Best move and value bits of single searches on playout positions (not the node counts:
    // move ordering may change those).
    let rules = Rules::default();
    let positions: Vec<Position> =
        sample_positions(1200, 21).into_iter().filter(|p| p.game_end(&rules).is_none()).step_by(12).collect();
    let network = Network::new(&random_uniform(3));
    let aloa = Aloa::quad();
    let mut h = Fnv::new();
    for (i, p) in positions.iter().enumerate() {
        let limits = |depth| SearchLimits { depth, plies_left: if i % 7 == 0 { 3 } else { u32::MAX } };
        let r = alpha_beta(p, &rules, limits(3), &network);
        h.mv(r.best);
        h.f32(r.value);
        let r = alpha_beta(p, &rules, limits(4), &network);
        h.mv(r.best);
        h.f32(r.value);
        let r = alpha_beta(p, &rules, limits(5), &aloa);
        h.mv(r.best);
        h.f32(r.value);
    }
    check("search results", &h, 0x3ff8_1010_8f2c_0419);
}

#[test]
fn network_evaluations_are_pinned() {
    // Exact f32 bits of the plain pass, the accumulator from scratch and the incremental update
    // after every legal move, for several networks, both points of view.
    let positions = sample_positions(600, 5);
    let mut h = Fnv::new();
    for seed in [1u64, 2, 3, 42] {
        let network = Network::new(&random_uniform(seed));
        for p in &positions {
            for pov in [Color::Black, Color::White] {
                h.f32(network.evaluate_plain(p, pov));
                let acc = network.accumulator(p, pov);
                for pre in acc.pre_activations() {
                    h.f32(pre);
                }
                h.f32(network.evaluate_accumulator(&acc));
                for &mv in p.legal_moves().iter() {
                    h.f32(network.evaluate_accumulator(&network.update(&acc, p, mv)));
                }
            }
        }
    }
    check("network evaluations", &h, 0x456c_d1b4_17ec_59a9);
}

#[test]
fn shaped_network_evaluations_and_searches_are_pinned() {
    // The generic evaluator on shapes with extra features, wide and deep layers and small boards:
    // its plain pass, the accumulator from scratch and after every legal move, and 3-ply searches
    // on the feature network. Pinned on the generic path before its later layers and features
    // were laid out for speed.
    let mut h = Fnv::new();
    for (name, seed) in [
        ("board-nonad-pieces-quads-euler-110-20-1", 1u64),
        ("6x6-board-printed-nonad-52-40-1", 2),
        ("7x7-nonad-euler-27-6-5-4-1", 3),
        ("5x5-board-25-12-1", 4),
    ] {
        let t: Topology = name.parse().unwrap();
        let mut rng = SplitMix64::new(seed);
        let network = ShapedNetwork::new(&Chromosome::random(t, || rng.next_u64()));
        let start = Start::Standard.position(BoardSize::new(t.side()).unwrap()).unwrap();
        for p in &sample_positions_from(&start, 150, seed) {
            for pov in [Color::Black, Color::White] {
                h.f32(network.evaluate_plain(p, pov));
                let acc = network.accumulator(p, pov);
                h.f32(network.evaluate_accumulator(&acc, p));
                for &mv in p.legal_moves().iter() {
                    let child = network.update(&acc, p, mv);
                    h.f32(network.evaluate_accumulator(&child, &p.play(mv)));
                }
            }
        }
        if t.side() == 8 {
            let rules = Rules::default();
            for p in sample_positions(200, 9).iter().filter(|p| p.game_end(&rules).is_none()).step_by(10) {
                let r = alpha_beta(p, &rules, SearchLimits { depth: 3, plies_left: u32::MAX }, &network);
                h.mv(r.best);
                h.f32(r.value);
            }
        }
    }
    check("shaped network evaluations and searches", &h, 0x70b2_6f46_a904_0841);
}

#[test]
fn plain_network_search_is_pinned() {
    // The reference evaluator inside a search (its values differ from the fast path's in the
    // last bits, so it has its own pin).
    let rules = Rules::default();
    let network = PlainNetwork(Network::new(&random_uniform(5)));
    let mut h = Fnv::new();
    for p in sample_positions(200, 8).iter().filter(|p| p.game_end(&rules).is_none()).step_by(10) {
        let r = alpha_beta(p, &rules, SearchLimits { depth: 2, plies_left: u32::MAX }, &network);
        h.mv(r.best);
        h.f32(r.value);
    }
    check("plain network search", &h, 0x4d5f_5d13_d5a1_ea5c);
}

#[test]
fn tanh_is_pinned() {
    // 2^20 inputs spread over every exponent that matters, both signs.
    let mut h = Fnv::new();
    let mut x = 0x3000_0000u32;
    while x < 0x4200_0000 {
        h.f32(tanh(f32::from_bits(x)));
        h.f32(tanh(-f32::from_bits(x)));
        x += 0x47;
    }
    for special in [0.0f32, -0.0, 1e-30, 0.5, 0.499_999_97, 9.9, 10.0, 1e30, f32::INFINITY, f32::NEG_INFINITY] {
        h.f32(tanh(special));
    }
    h.u64(0);
    check("tanh", &h, 0x34f8_fcd1_3f54_677a);
}
