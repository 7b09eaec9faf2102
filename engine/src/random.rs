//! The random heuristic (docs/spec.md §4) and the small keyed hashes that seed randomness portably.
//!
//! A leaf's "random" value is a keyed hash of the game's seed, the player's colour and the leaf
//! position, not the next draw of a generator: it does not depend on the order in which the
//! search visits leaves, so alpha-beta agrees with minimax, and a game replays bit for bit.

use crate::{Color, Position};

/// The splitmix64 finaliser: a bijective 64-bit mixer with good avalanche.
#[inline]
pub const fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The splitmix64 generator: tiny, fast and fully specified, so streams are portable.
#[derive(Clone, Debug)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator whose first output is splitmix64's first output for `seed`.
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64 { state: seed }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        mix64(self.state)
    }
}

/// A seed derived from a parent seed and a label, e.g. a game's seed from a match seed and the
/// game's index. Distinct labels give unrelated seeds.
#[inline]
pub const fn derive_seed(parent: u64, label: u64) -> u64 {
    mix64(parent ^ mix64(label.wrapping_add(0x9E37_79B9_7F4A_7C15)))
}

/// A uniform value in [-1, 1) from the top 24 bits of a hash (exact in `f32`).
#[inline]
pub fn unit_interval(hash: u64) -> f32 {
    (hash >> 40) as f32 * (2.0 / (1u64 << 24) as f32) - 1.0
}

/// The random heuristic's leaf evaluator: a uniformly distributed pseudo-random value in [-1, 1)
/// keyed by the game's seed and the player's colour. Wins and losses are scored by the search
/// (its `Evaluator` implementation is with the trait, in `search::evaluator`).
#[derive(Clone, Copy, Debug)]
pub struct RandomHeuristic {
    game_seed: u64,
}

impl RandomHeuristic {
    /// The evaluator for the game with seed `game_seed`.
    pub const fn new(game_seed: u64) -> RandomHeuristic {
        RandomHeuristic { game_seed }
    }

    /// The value of `pos` for `pov`.
    #[inline]
    pub fn value(&self, pos: &Position, pov: Color) -> f32 {
        let key = derive_seed(self.game_seed, pov as u64);
        let h = mix64(key ^ pos.pieces(Color::Black).0);
        let h = mix64(h ^ pos.pieces(Color::White).0.rotate_left(17));
        unit_interval(mix64(h ^ pos.side_to_move() as u64))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_uniform_and_keyed() {
        let h = RandomHeuristic::new(42);
        let positions = crate::openings::sample_positions(20_000, 1);
        let values: Vec<f32> = positions.iter().map(|p| h.value(p, Color::Black)).collect();
        assert!(values.iter().all(|v| (-1.0..1.0).contains(v)));
        let mean = values.iter().map(|&v| f64::from(v)).sum::<f64>() / values.len() as f64;
        assert!(mean.abs() < 0.03, "mean {mean}");
        let below_half = values.iter().filter(|&&v| v < -0.5).count() as f64 / values.len() as f64;
        assert!((below_half - 0.25).abs() < 0.02, "quartile {below_half}");
        // Same seed and position, same value; another seed or colour, another value.
        let p = positions[7];
        assert_eq!(h.value(&p, Color::Black), RandomHeuristic::new(42).value(&p, Color::Black));
        assert_ne!(h.value(&p, Color::Black), RandomHeuristic::new(43).value(&p, Color::Black));
        assert_ne!(h.value(&p, Color::Black), h.value(&p, Color::White));
    }

    #[test]
    fn unit_interval_ends() {
        assert_eq!(unit_interval(0), -1.0);
        assert!(unit_interval(u64::MAX) < 1.0);
    }
}
