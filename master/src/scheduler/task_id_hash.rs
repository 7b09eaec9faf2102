//! A hasher for task ids: the scheduler's tables are keyed by them and touched several times
//! per task, where the standard library's SipHash (built against keys an attacker chooses)
//! cost about 20 ns a lookup. Task ids are the master's own (a worker can name any id in an
//! outcome, but only the master's ids are ever inserted), so a fast mix suffices.

use std::hash::{BuildHasherDefault, Hasher};

/// SplitMix64's finaliser of a `u64` task id: every bit of the id reaches the bucket index and
/// the control bits, so consecutive ids (a step's) and ids that differ only in the generation
/// bits spread evenly.
#[derive(Clone, Copy, Default)]
pub(super) struct TaskIdHasher(u64);

impl Hasher for TaskIdHasher {
    fn write(&mut self, bytes: &[u8]) {
        // Not used by task ids (they write one u64); FNV-1a keeps other keys working.
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }

    fn write_u64(&mut self, id: u64) {
        let mut z = id ^ self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        self.0 = z ^ (z >> 31);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// Builds [`TaskIdHasher`]s.
pub(super) type TaskIdHash = BuildHasherDefault<TaskIdHasher>;

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::BuildHasher;

    #[test]
    fn a_steps_ids_and_the_next_steps_spread_over_the_buckets() {
        // Ids as the runner makes them: generation << 24 | index. Two steps of 4 096 tasks in a
        // table of 16 384 buckets should fill about 16384 · (1 − e^(−0.5)) = 6 447 of them if
        // the hash spreads like a random function; ids that differ only in the generation bits
        // landing together would fill 4 096.
        let hash = TaskIdHash::default();
        let mut used = vec![false; 1 << 14];
        for generation in [7u64, 8] {
            for index in 0..4096u64 {
                used[(hash.hash_one((generation << 24) | index) as usize) & ((1 << 14) - 1)] = true;
            }
        }
        let filled = used.iter().filter(|&&u| u).count();
        assert!((6_200..=6_700).contains(&filled), "{filled} buckets used");
        // The control bits (hashbrown's top 7) vary too.
        let tags: std::collections::HashSet<u64> = (0..4096u64).map(|i| hash.hash_one(i) >> 57).collect();
        assert_eq!(tags.len(), 128);
    }
}
