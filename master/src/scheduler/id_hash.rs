//! A hasher for the scheduler's ids, which its tables look up several times per task. Only the
//! master's own ids are inserted, so a fast mix suffices where SipHash guards against keys an
//! attacker chooses. A step's ids are consecutive and mostly used in order, so the hash keeps
//! neighbours together: an id's block of 64 is mixed and its place in the block kept, which
//! keeps the lookups of a step that outgrows the CPU's cache from each missing it.

use std::hash::{BuildHasherDefault, Hasher};

/// Low bits of an id kept as they are: its place in a block of 64 consecutive ids.
const BLOCK_BITS: u32 = 6;
const IN_BLOCK: u64 = (1 << BLOCK_BITS) - 1;

/// SplitMix64's finaliser of an id's block (`id >> 6`), with the id's place in the block as the
/// low bits (64 consecutive ids fill 64 neighbouring buckets) and folded into the top 7 bits
/// (hashbrown's control tag), so a block's ids do not share a tag.
#[derive(Clone, Copy, Default)]
pub(super) struct IdHasher(u64);

impl Hasher for IdHasher {
    fn write(&mut self, bytes: &[u8]) {
        // Not used by ids (they write one u64): other keys still hash, byte by byte.
        bytes.iter().for_each(|&b| self.write_u64(u64::from(b)));
    }

    fn write_u64(&mut self, id: u64) {
        let place = id & IN_BLOCK;
        let mut z = (id >> BLOCK_BITS) ^ self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        self.0 = ((z & !IN_BLOCK) | place) ^ (place << 57);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// Builds [`IdHasher`]s.
pub(super) type IdHash = BuildHasherDefault<IdHasher>;

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::BuildHasher;

    /// The bucket of `id` in a table of `2^bits` buckets (hashbrown's: the hash's low bits).
    fn bucket(id: u64, bits: u32) -> usize {
        (IdHash::default().hash_one(id) as usize) & ((1 << bits) - 1)
    }

    #[test]
    fn a_steps_ids_fill_neighbouring_buckets() {
        // Ids as the runner makes them: generation << 24 | index. Within a block of 64, the next
        // id is in the next bucket; across blocks, anywhere.
        let (generation, bits) = (7u64 << 24, 14);
        for index in 0..4096u64 {
            let (this, next) = (bucket(generation | index, bits), bucket(generation | (index + 1), bits));
            if (index + 1) % 64 != 0 {
                assert_eq!(next, this + 1, "ids {index} and {}", index + 1);
            }
        }
        // The 64 ids of a block have 64 different control tags (hashbrown's top 7 bits), and all
        // 128 tags occur among a step's ids.
        let tag = |id: u64| IdHash::default().hash_one(id) >> 57;
        let block: std::collections::HashSet<u64> = (0..64u64).map(|i| tag(generation | 640 | i)).collect();
        assert_eq!(block.len(), 64);
        let step: std::collections::HashSet<u64> = (0..4096u64).map(|i| tag(generation | i)).collect();
        assert_eq!(step.len(), 128);
    }

    #[test]
    fn blocks_of_this_step_and_the_next_spread_over_the_table() {
        // Two steps of 4 096 tasks are 128 blocks; in a table of 16 384 buckets (256 block
        // places) a random placement fills about 256 · (1 − e^(−0.5)) = 100.7 places (standard
        // deviation about 5.5). Ids that differ only in the generation bits landing together
        // (an identity hash) would fill 64; a hash that dropped the block bits, 1.
        let mut used = [false; 256];
        for generation in [7u64, 8] {
            for index in (0..4096u64).step_by(64) {
                used[bucket((generation << 24) | index, 14) >> BLOCK_BITS] = true;
            }
        }
        let filled = used.iter().filter(|&&u| u).count();
        assert!((84..=117).contains(&filled), "{filled} block places used");
    }
}
