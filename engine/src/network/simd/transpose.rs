//! A group's rows transposed to unit-major vectors, for the bounds: with AVX, and lane by lane
//! (the scalar twin, and the portable path's).

use super::{GROUP, LANES, Lanes, UnitLanes};

/// The transpose with AVX: three 8 × 8 transposes, each 24 shuffles of whole vectors (the exact
/// data moved, so the result is the scalar twin's, bit for bit).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
#[inline]
pub(super) fn transpose_avx(rows: &[&Lanes; GROUP]) -> [UnitLanes; LANES] {
    use std::arch::x86_64::{
        _mm256_load_ps, _mm256_permute2f128_ps, _mm256_shuffle_ps, _mm256_store_ps, _mm256_unpackhi_ps,
        _mm256_unpacklo_ps,
    };
    let mut out = [UnitLanes([0.0; GROUP]); LANES];
    for block in 0..LANES / 8 {
        // SAFETY: every row is a 32-byte aligned `Lanes` of 24 f32, read at offsets 0, 8 and 16,
        // and every `UnitLanes` a 32-byte aligned vector of 8.
        let r: [_; 8] = std::array::from_fn(|i| unsafe { _mm256_load_ps(rows[i].0.as_ptr().add(8 * block)) });
        let t0 = _mm256_unpacklo_ps(r[0], r[1]);
        let t1 = _mm256_unpackhi_ps(r[0], r[1]);
        let t2 = _mm256_unpacklo_ps(r[2], r[3]);
        let t3 = _mm256_unpackhi_ps(r[2], r[3]);
        let t4 = _mm256_unpacklo_ps(r[4], r[5]);
        let t5 = _mm256_unpackhi_ps(r[4], r[5]);
        let t6 = _mm256_unpacklo_ps(r[6], r[7]);
        let t7 = _mm256_unpackhi_ps(r[6], r[7]);
        let s0 = _mm256_shuffle_ps::<0x44>(t0, t2);
        let s1 = _mm256_shuffle_ps::<0xEE>(t0, t2);
        let s2 = _mm256_shuffle_ps::<0x44>(t1, t3);
        let s3 = _mm256_shuffle_ps::<0xEE>(t1, t3);
        let s4 = _mm256_shuffle_ps::<0x44>(t4, t6);
        let s5 = _mm256_shuffle_ps::<0xEE>(t4, t6);
        let s6 = _mm256_shuffle_ps::<0x44>(t5, t7);
        let s7 = _mm256_shuffle_ps::<0xEE>(t5, t7);
        let columns = [
            _mm256_permute2f128_ps::<0x20>(s0, s4),
            _mm256_permute2f128_ps::<0x20>(s1, s5),
            _mm256_permute2f128_ps::<0x20>(s2, s6),
            _mm256_permute2f128_ps::<0x20>(s3, s7),
            _mm256_permute2f128_ps::<0x31>(s0, s4),
            _mm256_permute2f128_ps::<0x31>(s1, s5),
            _mm256_permute2f128_ps::<0x31>(s2, s6),
            _mm256_permute2f128_ps::<0x31>(s3, s7),
        ];
        for (k, column) in columns.into_iter().enumerate() {
            // SAFETY: as for the loads above.
            unsafe { _mm256_store_ps(out[8 * block + k].0.as_mut_ptr(), column) };
        }
    }
    out
}

/// The transpose lane by lane: `out[h].0[i]` is `rows[i].0[h]`.
#[inline(always)]
pub(super) fn transpose_scalar(rows: &[&Lanes; GROUP]) -> [UnitLanes; LANES] {
    std::array::from_fn(|h| UnitLanes(std::array::from_fn(|i| rows[i].0[h])))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_avx_transpose_moves_every_lane_as_the_scalar_one_does() {
        // Distinct bit patterns in every lane, so any lane moved to a wrong place shows.
        let rows: [Lanes; GROUP] = std::array::from_fn(|i| Lanes(std::array::from_fn(|h| (100 * i + h) as f32)));
        let refs: [&Lanes; GROUP] = std::array::from_fn(|i| &rows[i]);
        let bits = |units: [UnitLanes; LANES]| units.map(|u| u.0.map(f32::to_bits));
        assert_eq!(transpose_scalar(&refs)[13].0[5], 513.0);
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx") {
            // SAFETY: the processor has AVX, checked just above.
            assert_eq!(bits(unsafe { transpose_avx(&refs) }), bits(transpose_scalar(&refs)));
        } else {
            println!("skipped the AVX transpose: this processor lacks AVX");
        }
    }
}
