//! A group's output sums computed unit-major, for the bounds: vector `h` holds hidden unit `h`
//! of each of the group's 8 accumulators, so the activation, the products and [`output_sum`]'s
//! additions are vertical vector operations, lane `i` doing exactly accumulator `i`'s scalar
//! operations (so the same bits as one accumulator's sum).
//!
//! Why: with the 8 × 20 units packed accumulator after accumulator (as the exact evaluation
//! does), the compiler vectorised the cheap estimate across every eighth lane (a gather of
//! single lanes per vector) instead of within vectors; written out unit by unit here, each unit
//! is one vector. `loa bench`'s bounds figure went 1.66x faster (AVX2).
//!
//! [`output_sum`]: super::output_sum

use super::{GROUP, LANES, Lanes};
use crate::network::{Accumulator, HIDDEN};

/// One hidden unit of each accumulator of a group (a vector), aligned for vector loads.
#[derive(Clone, Copy)]
#[repr(C, align(32))]
pub(super) struct UnitLanes(pub(super) [f32; GROUP]);

/// The group's hidden pre-activations unit-major: `units[h].0[i]` is unit `h` of `accs[i]`, for
/// all [`LANES`] (the padding units read `+0`, as in the accumulators). Lanes past `accs.len()`
/// repeat its last accumulator (any value would do: they are computed and not used; a
/// repeat keeps every load in bounds and every lane a real number). `accs` holds 1 to 8.
#[inline(always)]
pub(super) fn transpose(accs: &[Accumulator]) -> [UnitLanes; LANES] {
    assert!(!accs.is_empty() && accs.len() <= GROUP);
    let last = accs.len() - 1;
    let rows: [&Lanes; GROUP] = std::array::from_fn(|i| &accs[i.min(last)].pre);
    transpose_rows(&rows)
}

/// [`transpose`] of 8 rows with AVX: three 8 × 8 transposes, each 24 shuffles of whole vectors
/// (the exact data moved, so the result is the same as the scalar twin's, bit for bit).
#[cfg(all(target_arch = "x86_64", target_feature = "avx"))]
#[inline(always)]
fn transpose_rows(rows: &[&Lanes; GROUP]) -> [UnitLanes; LANES] {
    use std::arch::x86_64::{
        _mm256_load_ps, _mm256_permute2f128_ps, _mm256_shuffle_ps, _mm256_store_ps, _mm256_unpackhi_ps,
        _mm256_unpacklo_ps,
    };
    let mut out = [UnitLanes([0.0; GROUP]); LANES];
    for block in 0..LANES / 8 {
        // SAFETY: AVX is enabled for this build (the cfg above); every row is a 32-byte
        // aligned `Lanes` of 24 f32, read at offsets 0, 8 and 16, and every `UnitLanes` is a
        // 32-byte aligned vector of 8.
        unsafe {
            let r: [_; 8] = std::array::from_fn(|i| _mm256_load_ps(rows[i].0.as_ptr().add(8 * block)));
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
                _mm256_store_ps(out[8 * block + k].0.as_mut_ptr(), column);
            }
        }
    }
    out
}

/// [`transpose`] lane by lane: the portable twin (x86-64 without AVX, other processors).
#[cfg(not(all(target_arch = "x86_64", target_feature = "avx")))]
#[inline(always)]
fn transpose_rows(rows: &[&Lanes; GROUP]) -> [UnitLanes; LANES] {
    transpose_rows_scalar(rows)
}

/// The transpose written lane by lane (the reference the vector one is tested against).
#[cfg(any(test, not(all(target_arch = "x86_64", target_feature = "avx"))))]
#[inline(always)]
fn transpose_rows_scalar(rows: &[&Lanes; GROUP]) -> [UnitLanes; LANES] {
    std::array::from_fn(|h| UnitLanes(std::array::from_fn(|i| rows[i].0[h])))
}

/// The output unit's inputs `bias + Σ_h activation(a_h)·v_h` of a group, unit-major: the
/// products vertically, then summed in [`output_sum`]'s order (lanes `j`, `j + 8` and `j + 16`
/// first, the padding units' products `+0`, then the tree over the 8 lane sums), each vector
/// operation doing one of those scalar additions in every lane.
///
/// [`output_sum`]: super::output_sum
#[inline(always)]
pub(super) fn output_inputs(
    units: &[UnitLanes; LANES],
    output_weights: &Lanes,
    bias: f32,
    activation: impl Fn(f32) -> f32,
) -> [f32; GROUP] {
    let mut products = *units;
    // Written out unit by unit, not as a loop: given a loop over the units, the compiler
    // vectorised the cheap estimate across them (gathering lanes 8 apart) instead of within each.
    macro_rules! activate_units {
        ($($h:literal)*) => {$( activate(&mut products[$h].0, output_weights.0[$h], &activation); )*};
    }
    activate_units!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19);
    const { assert!(HIDDEN == 20, "activate_units names every hidden unit") };
    // Lane j of output_sum's eight: (p[j] + p[j + 8]) + p[j + 16], where the padding units'
    // products p[20..24] are +0 (the activation of a +0 padding unit times its 0 weight).
    let mut lanes = [[0.0f32; GROUP]; 8];
    for (j, lane) in lanes.iter_mut().enumerate() {
        for (i, sum) in lane.iter_mut().enumerate() {
            let third = if j + 16 < HIDDEN { products[j + 16].0[i] } else { 0.0 };
            *sum = (products[j].0[i] + products[j + 8].0[i]) + third;
        }
    }
    let mut inputs = [0.0f32; GROUP];
    for (i, input) in inputs.iter_mut().enumerate() {
        let l = |j: usize| lanes[j][i];
        let sum = ((l(0) + l(4)) + (l(2) + l(6))) + ((l(1) + l(5)) + (l(3) + l(7)));
        *input = bias + sum;
    }
    inputs
}

/// `x[i] = activation(x[i]) · v` for each lane: one vector operation per step of the
/// activation.
#[inline(always)]
fn activate(x: &mut [f32; GROUP], v: f32, activation: &impl Fn(f32) -> f32) {
    for x in x.iter_mut() {
        *x = activation(*x) * v;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_vector_transpose_moves_every_lane_as_the_scalar_one_does() {
        // Distinct bit patterns in every lane, so any lane moved to a wrong place shows.
        let rows: [Lanes; GROUP] = std::array::from_fn(|i| Lanes(std::array::from_fn(|h| (100 * i + h) as f32)));
        let refs: [&Lanes; GROUP] = std::array::from_fn(|i| &rows[i]);
        let bits = |units: [UnitLanes; LANES]| units.map(|u| u.0.map(f32::to_bits));
        assert_eq!(bits(transpose_rows(&refs)), bits(transpose_rows_scalar(&refs)));
        assert_eq!(transpose_rows_scalar(&refs)[13].0[5], 513.0);
    }
}
