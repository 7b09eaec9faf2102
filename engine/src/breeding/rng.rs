//! The breeding generator: xoshiro256** with a state small enough to travel.
//!
//! Written out here rather than taken from a crate so that the stream, and therefore every
//! population, can never change under a dependency upgrade: a run is a function of its seed.
//! The master draws every population from it (and saves its state in checkpoints); a chromosome's
//! [`Origin`](super::Origin) records its state where each breeding step began, so a worker can
//! draw the same numbers again.

use serde::{Deserialize, Serialize};

/// xoshiro256** (Blackman and Vigna), seeded through splitmix64.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BreedingRng {
    state: [u64; 4],
}

impl BreedingRng {
    /// A generator seeded from `seed` (any value, 0 included).
    pub fn from_seed(seed: u64) -> BreedingRng {
        let mut seeder = crate::random::SplitMix64::new(seed);
        BreedingRng { state: std::array::from_fn(|_| seeder.next_u64()) }
    }

    /// The generator in state `state`: it goes on exactly as the generator whose
    /// [`BreedingRng::state`] that was.
    pub const fn from_state(state: [u64; 4]) -> BreedingRng {
        BreedingRng { state }
    }

    /// The current state.
    pub const fn state(&self) -> [u64; 4] {
        self.state
    }

    /// The next 64 random bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.state;
        let result = s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// A uniform integer in `0..n` (`n > 0`), by multiply-shift: bias below 2⁻⁵⁰ for the sizes
    /// used here, and exactly reproducible.
    pub fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }

    /// A uniform weight in [-1, 1), exact in `f32` (24 random bits).
    #[inline]
    pub fn weight(&mut self) -> f32 {
        crate::random::unit_interval(self.next_u64())
    }

    /// True with probability `p` (clamped to [0, 1]), decided on 53 random bits.
    #[inline]
    pub fn chance(&mut self, p: f64) -> bool {
        ((self.next_u64() >> 11) as f64) < p.clamp(0.0, 1.0) * (1u64 << 53) as f64
    }

    /// A standard normal value (Marsaglia's polar method on this generator's uniforms). Written
    /// out so the stream is fixed by this file: only `ln` comes from the platform's maths
    /// library (IEEE `sqrt` is exact).
    pub fn normal(&mut self) -> f64 {
        loop {
            let u = 2.0 * ((self.next_u64() >> 11) as f64 / (1u64 << 53) as f64) - 1.0;
            let v = 2.0 * ((self.next_u64() >> 11) as f64 / (1u64 << 53) as f64) - 1.0;
            let s = u * u + v * v;
            if s > 0.0 && s < 1.0 {
                return u * (-2.0 * s.ln() / s).sqrt();
            }
        }
    }

    /// Shuffles `items` in place (Fisher–Yates).
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i + 1);
            items.swap(i, j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_reference_algorithm() {
        // xoshiro256** from state [1, 2, 3, 4]: rotl(2·5, 7)·9 = 11520, then s[1] becomes 0.
        let mut r = BreedingRng::from_state([1, 2, 3, 4]);
        assert_eq!(r.next_u64(), 11520);
        assert_eq!(r.next_u64(), 0);
    }

    #[test]
    fn seeding_is_deterministic_and_seed_dependent() {
        let take = |seed| {
            let mut r = BreedingRng::from_seed(seed);
            (0..4).map(|_| r.next_u64()).collect::<Vec<_>>()
        };
        assert_eq!(take(1), take(1));
        assert_ne!(take(1), take(2));
    }

    #[test]
    fn a_generator_rebuilt_from_its_state_goes_on_the_same() {
        let mut r = BreedingRng::from_seed(11);
        r.next_u64();
        let mut copy = BreedingRng::from_state(r.state());
        assert_eq!(
            (0..8).map(|_| r.next_u64()).collect::<Vec<_>>(),
            (0..8).map(|_| copy.next_u64()).collect::<Vec<_>>()
        );
    }

    #[test]
    fn below_and_chance_are_uniform() {
        let mut r = BreedingRng::from_seed(9);
        let mut counts = [0u32; 6];
        for _ in 0..60_000 {
            counts[r.below(6)] += 1;
        }
        assert!(counts.iter().all(|&c| (9_400..10_600).contains(&c)), "{counts:?}");
        let hits = (0..100_000).filter(|_| r.chance(0.15)).count();
        assert!((14_400..15_600).contains(&hits), "{hits}");
        assert!(!(0..1000).any(|_| r.chance(0.0)));
        assert!((0..1000).all(|_| r.chance(1.0)));
        let w: Vec<f32> = (0..10_000).map(|_| r.weight()).collect();
        assert!(w.iter().all(|x| (-1.0..1.0).contains(x)));
    }

    #[test]
    fn shuffle_is_a_permutation() {
        let mut r = BreedingRng::from_seed(3);
        let mut v: Vec<u32> = (0..100).collect();
        r.shuffle(&mut v);
        assert_ne!(v, (0..100).collect::<Vec<_>>());
        v.sort_unstable();
        assert_eq!(v, (0..100).collect::<Vec<_>>());
    }
}
