//! The positions `loa imitate` fits to and their labels: seeded games, split by game into
//! training and validation sets, labelled with ALoA's evaluation.

use loa_engine::aloa::Aloa;
use loa_engine::game::{Player, play_game};
use loa_engine::network::{INPUTS, inputs};
use loa_engine::openings::random_opening;
use loa_engine::players::{RandomPlayer, SearchPlayer};
use loa_engine::random::derive_seed;
use loa_engine::{Color, Outcome, Position, Rules};
use std::collections::HashSet;

/// How positions are collected.
#[derive(Clone, Copy, Debug)]
pub struct PositionConfig {
    /// Distinct positions to collect (each gives two samples).
    pub positions: usize,
    /// Fraction of games held out for validation (0 ≤ f < 1).
    pub validation: f64,
    /// Seed of the games and the split.
    pub seed: u64,
}

/// One training sample: the inputs of a position from a point of view and its label.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    /// The network's 100 inputs ([`inputs`]).
    pub x: [f32; INPUTS],
    /// The target in [-1, 1].
    pub y: f64,
}

/// A position and the point of view its label is taken from, before labelling.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Seen {
    /// The position (side to move included).
    pub pos: Position,
    /// The network's "self".
    pub pov: Color,
}

/// The collected positions, split by game.
#[derive(Clone, Debug, Default)]
pub struct PositionSet {
    /// Training positions, each from both points of view.
    pub train: Vec<Seen>,
    /// Validation positions (from games none of whose positions are in `train`).
    pub validation: Vec<Seen>,
    /// Games played.
    pub games: u64,
}

/// The kind of game `index` is: half ALoA(2) self-play, a quarter ALoA(2) against the random
/// heuristic(2) (ALoA winning positions, lopsided boards), a quarter random against random
/// (scattered, unusual boards), so the net sees more than ALoA's own style.
fn game_players(index: u64) -> (Box<dyn Player>, Box<dyn Player>) {
    let aloa = || Box::new(SearchPlayer { eval: Aloa::quad(), depth: 2 }) as Box<dyn Player>;
    let random = |salt| Box::new(RandomPlayer { depth: 2, salt }) as Box<dyn Player>;
    match index % 4 {
        0 | 1 => (aloa(), aloa()),
        2 if index % 8 == 2 => (aloa(), random(0)),
        2 => (random(0), aloa()),
        _ => (random(0), random(1)),
    }
}

/// Plays seeded games until `config.positions` distinct positions are collected. Game `g` has
/// seed `derive_seed(seed, g)`, starts after 2 to 8 random plies (more variety than the
/// evaluation's 4), and goes to validation when a hash of its seed falls below the fraction.
/// Positions already seen (in either set) are skipped, so no position is in both sets.
pub fn collect_positions(config: &PositionConfig) -> PositionSet {
    let rules = Rules::default();
    let mut seen = HashSet::new();
    let mut set = PositionSet::default();
    let mut collected = 0;
    while collected < config.positions {
        let g = set.games;
        set.games += 1;
        let seed = derive_seed(config.seed, g);
        let plies = 2 + (derive_seed(seed, 1) % 7) as u32;
        let start = random_opening(plies, derive_seed(seed, 2), &rules);
        let (black, white) = game_players(g);
        let record = play_game(&*black, &*white, &rules, start, seed);
        let held_out =
            (derive_seed(seed, 3) >> 11) as f64 / (1u64 << 53) as f64 <= config.validation && config.validation > 0.0;
        let mut pos = start;
        let mut along = vec![pos];
        for mv in &record.moves {
            pos = pos.play(*mv);
            along.push(pos);
        }
        for pos in along {
            if collected == config.positions {
                break;
            }
            if !seen.insert((pos.pieces(Color::Black).0, pos.pieces(Color::White).0, pos.side_to_move())) {
                continue;
            }
            collected += 1;
            let target = if held_out { &mut set.validation } else { &mut set.train };
            for pov in Color::ALL {
                target.push(Seen { pos, pov });
            }
        }
    }
    set
}

/// ALoA's raw evaluation of `pos` for `pov` (own total minus the opponent's), or `None` if the
/// game is over there.
pub fn raw_score(aloa: &Aloa, pos: &Position, pov: Color, rules: &Rules) -> Option<i32> {
    match pos.game_end(rules) {
        Some(_) => None,
        None => Some(aloa.score(pos, pov)),
    }
}

/// The label of `pos` for `pov`: `tanh(score / scale)` with ALoA's score from `pov`'s side,
/// or the result of a finished game: +1 won by `pov`, −1 lost, 0 drawn.
pub fn label(aloa: &Aloa, pos: &Position, pov: Color, scale: f64, rules: &Rules) -> f64 {
    match pos.game_end(rules) {
        Some(end) => match end.outcome {
            Outcome::Win(c) if c == pov => 1.0,
            Outcome::Win(_) => -1.0,
            Outcome::Draw => 0.0,
        },
        None => (f64::from(aloa.score(pos, pov)) / scale).tanh(),
    }
}

/// The scale of the labels: the standard deviation of ALoA's raw scores over the running
/// positions. One standard deviation maps to tanh(1) = 0.76 and three to 0.995, so the bulk of
/// the labels lies in the tanh's informative range and few saturate; tanh is increasing, so the
/// labels order positions exactly as ALoA does (a perfect fit would choose ALoA's moves).
/// Never below 1 (an all-equal set of scores).
pub fn label_scale(aloa: &Aloa, positions: &[Seen], rules: &Rules) -> f64 {
    let scores: Vec<f64> =
        positions.iter().filter_map(|s| raw_score(aloa, &s.pos, s.pov, rules)).map(f64::from).collect();
    if scores.is_empty() {
        return 1.0;
    }
    let n = scores.len() as f64;
    let mean = scores.iter().sum::<f64>() / n;
    let var = scores.iter().map(|s| (s - mean) * (s - mean)).sum::<f64>() / n;
    var.sqrt().max(1.0)
}

/// The samples of `positions`, labelled with `scale`.
pub fn samples(aloa: &Aloa, positions: &[Seen], scale: f64, rules: &Rules) -> Vec<Sample> {
    positions.iter().map(|s| Sample { x: inputs(&s.pos, s.pov), y: label(aloa, &s.pos, s.pov, scale, rules) }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use loa_engine::Bitboard;

    fn bits(squares: &[&str]) -> Bitboard {
        let mut b = Bitboard::EMPTY;
        for s in squares {
            let sq = loa_engine::Square::parse(s).expect("square");
            b = Bitboard(b.0 | sq.bit());
        }
        b
    }

    /// Hand-worked (docs/spec.md §4 terms, default weights 300/4/3/10/10/10):
    /// Black d4 e4 d5 e5 a1 (n 5, Σx = Σy = 14): distances ×5 are 1, 6, 6, 6, 14 = 33, minimum
    /// 19, excess 14: concentration −300·14/25 = −168; centre of mass off by |28 − 35| = 7:
    /// −⌊4·7/10⌋ = −2; rings 3·4 = 12: +36; one edge piece: −10; the d4 block is a Q4 whose
    /// centre is within 2 of the centre of mass: +10. Total −134.
    /// White a8 h1 h8 (n 3, Σx = Σy = 14): distances ×3 are 14, 14, 7 = 35, minimum 5, excess
    /// 30: −300·30/9 = −1000; centre of mass off by 7: −⌊28/6⌋ = −4; rings 0; three edge
    /// pieces: −30. Total −1034.
    /// So ALoA scores the position +900 for Black and −900 for White.
    #[test]
    fn labels_are_aloa_from_the_networks_point_of_view() {
        let black = bits(&["d4", "e4", "d5", "e5", "a1"]);
        let white = bits(&["a8", "h1", "h8"]);
        let rules = Rules::default();
        let aloa = Aloa::quad();
        for side in Color::ALL {
            let pos = Position::from_pieces(black, white, side).expect("position");
            assert!(pos.game_end(&rules).is_none());
            assert_eq!(raw_score(&aloa, &pos, Color::Black, &rules), Some(900));
            assert_eq!(raw_score(&aloa, &pos, Color::White, &rules), Some(-900));
            let b = label(&aloa, &pos, Color::Black, 900.0, &rules);
            assert!((b - 1f64.tanh()).abs() < 1e-12);
            assert!((label(&aloa, &pos, Color::White, 900.0, &rules) + b).abs() < 1e-12);
            // The network's inputs for the same point of view: Black's pieces are "own" (0.75).
            let x = inputs(&pos, Color::Black);
            assert_eq!(x[loa_engine::network::board_input_index(loa_engine::Square::parse("d4").expect("sq"))], 0.75);
            assert_eq!(x[loa_engine::network::board_input_index(loa_engine::Square::parse("h8").expect("sq"))], 0.25);
        }
        // A finished game: White to move, Black connected (the 2×2 block alone) → Black won.
        let pos = Position::from_pieces(bits(&["d4", "e4", "d5", "e5"]), white, Color::White).expect("position");
        assert_eq!(label(&aloa, &pos, Color::Black, 900.0, &rules), 1.0);
        assert_eq!(label(&aloa, &pos, Color::White, 900.0, &rules), -1.0);
    }

    #[test]
    fn positions_are_deterministic_distinct_and_split_by_game() {
        let config = PositionConfig { positions: 600, validation: 0.25, seed: 3 };
        let a = collect_positions(&config);
        let b = collect_positions(&config);
        assert_eq!(a.train, b.train);
        assert_eq!(a.validation, b.validation);
        assert_eq!(a.train.len() + a.validation.len(), 2 * 600);
        assert!(!a.validation.is_empty() && a.validation.len() < a.train.len());
        let train: HashSet<_> = a.train.iter().map(|s| s.pos).collect();
        assert!(a.validation.iter().all(|s| !train.contains(&s.pos)));
        let scale = label_scale(&Aloa::quad(), &a.train, &Rules::default());
        assert!(scale > 1.0);
    }
}
