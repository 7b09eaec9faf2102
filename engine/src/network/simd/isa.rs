//! Each path's instructions for the operations that differ between paths, as the [`Isa`] types
//! [`Avx512`], [`Avx2`] and [`Portable`], and the scalar twins they are tested against.

#[cfg(target_arch = "x86_64")]
use super::transpose::transpose_avx;
use super::transpose::transpose_scalar;
use super::{GROUP, LANES, Lanes, UnitLanes};
use crate::network::HIDDEN;

/// The operations whose instructions differ between paths, for kernels written once over them.
/// A value of an `Isa` type exists only where the processor supports its path (only
/// `Supported::run` makes the AVX ones), so its methods may use that path's instructions.
pub(in crate::network) trait Isa: Copy {
    /// Whether the bounds take a group unit-major (each hidden unit one 8-lane vector, `W` unused)
    /// rather than packed as the exact evaluation does (`W` lanes at a time). Unit-major where a
    /// vector is 8 lanes: there the compiler vectorised the packed estimate across every eighth
    /// lane (a gather per vector) instead of within vectors. Packed with AVX-512, whose 16-lane
    /// vectors a unit-major layout fills by half: a build with this `true` for [`Avx512`] bounds
    /// more slowly (`loa bench --baseline` against this build, its bounds figure).
    const UNIT_MAJOR_BOUNDS: bool;

    /// `a·b + c` where the product `a·b` is exact: one fused multiply-add on the paths that have
    /// it (one vector operation instead of two in the batched evaluation, whose tanh is bound by
    /// their number), else a multiply and an add. The same bits either way, as rounding the exact
    /// product changes nothing.
    fn exact_product_plus(a: f32, b: f32, c: f32) -> f32;

    /// A group's rows unit-major: `out[h].0[i]` is `rows[i].0[h]`.
    fn transpose(self, rows: &[&Lanes; GROUP]) -> [UnitLanes; LANES];

    /// [`output_sum`] of one accumulator's 20 products packed without padding (the padding lanes
    /// read as `+0`), bit for bit.
    fn packed_output_sum(self, bias: f32, products: &[f32; HIDDEN]) -> f32;
}

/// The AVX-512 path's instructions (AVX-512F with AVX2 and FMA).
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
pub(in crate::network) struct Avx512(());

/// The AVX2 path's instructions (AVX2 with FMA).
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
pub(in crate::network) struct Avx2(());

/// The portable path: plain Rust, separate multiplies and adds.
#[derive(Clone, Copy)]
pub(in crate::network) struct Portable(());

#[cfg(target_arch = "x86_64")]
impl Avx512 {
    /// # Safety
    /// The processor supports AVX-512F, AVX2 and FMA.
    pub(super) unsafe fn new() -> Avx512 {
        Avx512(())
    }
}

#[cfg(target_arch = "x86_64")]
impl Avx2 {
    /// # Safety
    /// The processor supports AVX2 and FMA.
    pub(super) unsafe fn new() -> Avx2 {
        Avx2(())
    }
}

impl Portable {
    /// The portable path's value, which any processor can use.
    pub(super) fn new() -> Portable {
        Portable(())
    }
}

/// The path of the code no dispatch reaches, compiled for the build target: [`Avx2`]'s where the
/// build target has AVX2 and FMA (x86-64-v3, the default: `.cargo/config.toml`), else
/// [`Portable`]'s. Only [`Isa::exact_product_plus`] is taken from it, by [`tanh`](crate::network::tanh):
/// `mul_add` is one instruction only where the code is compiled with FMA.
#[cfg(all(target_arch = "x86_64", target_feature = "avx2", target_feature = "fma"))]
pub(in crate::network) type Build = Avx2;

/// See the other definition: this build target lacks AVX2 or FMA.
#[cfg(not(all(target_arch = "x86_64", target_feature = "avx2", target_feature = "fma")))]
pub(in crate::network) type Build = Portable;

#[cfg(target_arch = "x86_64")]
impl Isa for Avx512 {
    const UNIT_MAJOR_BOUNDS: bool = false;

    #[inline(always)]
    fn exact_product_plus(a: f32, b: f32, c: f32) -> f32 {
        a.mul_add(b, c)
    }

    #[inline(always)]
    fn transpose(self, rows: &[&Lanes; GROUP]) -> [UnitLanes; LANES] {
        // SAFETY: an `Avx512` exists only where the processor has AVX-512F, hence AVX.
        unsafe { transpose_avx(rows) }
    }

    #[inline(always)]
    fn packed_output_sum(self, bias: f32, products: &[f32; HIDDEN]) -> f32 {
        packed_output_sum_sse(bias, products)
    }
}

#[cfg(target_arch = "x86_64")]
impl Isa for Avx2 {
    const UNIT_MAJOR_BOUNDS: bool = true;

    #[inline(always)]
    fn exact_product_plus(a: f32, b: f32, c: f32) -> f32 {
        a.mul_add(b, c)
    }

    #[inline(always)]
    fn transpose(self, rows: &[&Lanes; GROUP]) -> [UnitLanes; LANES] {
        // SAFETY: an `Avx2` exists only where the processor has AVX2, hence AVX.
        unsafe { transpose_avx(rows) }
    }

    #[inline(always)]
    fn packed_output_sum(self, bias: f32, products: &[f32; HIDDEN]) -> f32 {
        packed_output_sum_sse(bias, products)
    }
}

impl Isa for Portable {
    const UNIT_MAJOR_BOUNDS: bool = true;

    #[inline(always)]
    fn exact_product_plus(a: f32, b: f32, c: f32) -> f32 {
        a * b + c
    }

    #[inline(always)]
    fn transpose(self, rows: &[&Lanes; GROUP]) -> [UnitLanes; LANES] {
        transpose_scalar(rows)
    }

    #[inline(always)]
    fn packed_output_sum(self, bias: f32, products: &[f32; HIDDEN]) -> f32 {
        let mut lanes = [0.0f32; LANES];
        lanes[..HIDDEN].copy_from_slice(products);
        output_sum(bias, &lanes)
    }
}

/// `bias + Σ products` in a fixed order: lanes `j`, `j + 8` and `j + 16` added first, then a
/// tree over the 8 lane sums. The 4 padding lanes hold `+0` (`tanh(+0) · 0`), and adding them
/// is not a no-op in IEEE arithmetic (`−0 + +0 = +0`), so every layout adds them.
#[inline(always)]
pub(in crate::network) fn output_sum(bias: f32, products: &[f32; LANES]) -> f32 {
    let lanes: [f32; 8] = std::array::from_fn(|j| (products[j] + products[j + 8]) + products[j + 16]);
    let [l0, l1, l2, l3, l4, l5, l6, l7] = lanes;
    let sum = ((l0 + l4) + (l2 + l6)) + ((l1 + l5) + (l3 + l7));
    bias + sum
}

/// [`Isa::packed_output_sum`] with SSE, part of every x86-64 processor: the same additions as
/// [`output_sum`] in the same order, four lanes at a time. Written out because the compiler,
/// given `output_sum` for each of a group's accumulators, vectorised across them with one gather
/// per lane; within one accumulator the order is the usual horizontal sum.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn packed_output_sum_sse(bias: f32, products: &[f32; HIDDEN]) -> f32 {
    use std::arch::x86_64::{
        _mm_add_ps, _mm_add_ss, _mm_cvtss_f32, _mm_loadu_ps, _mm_movehl_ps, _mm_setzero_ps, _mm_shuffle_ps,
    };
    // SAFETY: SSE is in every x86-64 processor; each load reads 4 lanes at offsets 0-16 of the
    // 20, all in bounds, and `loadu` needs no alignment.
    unsafe {
        let at = |i: usize| _mm_loadu_ps(products.as_ptr().add(i));
        // Lanes j and j + 4 of output_sum's eight: (p[j] + p[j+8]) + p[j+16], where p[20..24]
        // is the +0 padding (adding it is not a no-op: −0 + +0 = +0).
        let low = _mm_add_ps(_mm_add_ps(at(0), at(8)), at(16));
        let high = _mm_add_ps(_mm_add_ps(at(4), at(12)), _mm_setzero_ps());
        // (l0 + l4, l1 + l5, l2 + l6, l3 + l7), then ((l0 + l4) + (l2 + l6), (l1 + l5) + (l3 + l7)).
        let pairs = _mm_add_ps(low, high);
        let halves = _mm_add_ps(pairs, _mm_movehl_ps(pairs, pairs));
        let sum = _mm_add_ss(halves, _mm_shuffle_ps::<1>(halves, halves));
        bias + _mm_cvtss_f32(sum)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::random::SplitMix64;

    /// Products of every sign and magnitude, zeros of both signs among them.
    fn products(rng: &mut SplitMix64) -> [f32; HIDDEN] {
        std::array::from_fn(|_| {
            let bits = rng.next_u64();
            match bits % 8 {
                0 => 0.0,
                1 => -0.0,
                _ => f32::from_bits(((bits >> 8) as u32 & 0x807f_ffff) | ((0x70 + (bits >> 40) as u32 % 0x18) << 23)),
            }
        })
    }

    #[test]
    fn every_packed_sum_adds_as_the_scalar_one_does() {
        let mut rng = SplitMix64::new(3);
        let mut cases: Vec<[f32; HIDDEN]> = (0..20_000).map(|_| products(&mut rng)).collect();
        // All −0: lanes 4-7 meet the +0 padding, so the sum is +0, not −0.
        cases.push([-0.0; HIDDEN]);
        for p in &cases {
            let mut padded = [0.0f32; LANES];
            padded[..HIDDEN].copy_from_slice(p);
            let expected = output_sum(-0.0, &padded).to_bits();
            assert_eq!(Portable::new().packed_output_sum(-0.0, p).to_bits(), expected, "portable {p:?}");
            #[cfg(target_arch = "x86_64")]
            assert_eq!(packed_output_sum_sse(-0.0, p).to_bits(), expected, "SSE {p:?}");
        }
        assert_eq!(output_sum(-0.0, &[-0.0; LANES]).to_bits(), (-0.0f32).to_bits());
        assert_eq!(Portable::new().packed_output_sum(-0.0, &[-0.0; HIDDEN]).to_bits(), 0.0f32.to_bits());
    }

    #[test]
    fn every_exact_product_plus_rounds_once() {
        // Exact products (two 12-bit integers, scaled by powers of two) plus sums that round.
        let mut rng = SplitMix64::new(9);
        for _ in 0..100_000 {
            let bits = rng.next_u64();
            let twelve_bits = |shift: u32| f32::from((bits >> shift) as u16 & 0xfff) - 2048.0;
            let a = twelve_bits(0) / 64.0;
            let b = twelve_bits(12) * f32::from_bits((100 + (bits >> 24) as u32 % 40) << 23);
            let c = f32::from_bits((bits >> 32) as u32 & 0xbfff_ffff);
            let separate = (a * b + c).to_bits();
            assert_eq!(Portable::exact_product_plus(a, b, c).to_bits(), separate);
            #[cfg(target_arch = "x86_64")]
            {
                assert_eq!(Avx2::exact_product_plus(a, b, c).to_bits(), separate, "{a} · {b} + {c}");
                assert_eq!(Avx512::exact_product_plus(a, b, c).to_bits(), separate, "{a} · {b} + {c}");
            }
        }
    }
}
