//! A portable tanh, so evaluations are bit-identical on every machine.
//!
//! `f32::tanh` calls the platform's libm, whose last bits differ between systems. This one uses
//! only IEEE add, subtract, multiply and divide (each correctly rounded everywhere), bit
//! manipulation, and, on the paths that have it ([`simd`](super::simd)), fused multiply-add where
//! the product is exact (so it rounds as the separate operations do). It selects instead of
//! branching, so it also vectorises over the hidden layer.
//!
//! Method: with `y = 2|x|`, `tanh|x| = −m / (2 + m) = 1 − 2e / (1 + e)` where `e = exp(−y)` and
//! `m = expm1(−y) = e − 1`. Both come from one exact range reduction `y = n·ln2 + r`
//! (`|r| ≤ ln2/2`) and the Taylor polynomial of `expm1(−r)`. The first form keeps relative
//! accuracy near 0 (where `1 − …` would cancel), the second is the more accurate near 1.
//! Maximum error against `f64::tanh` over every f32: 9.04e-8 at x ≈ 0.5726 (1.5 ulp; limit
//! 2e-7), checked by the `tanh_every_f32` test.

mod inverse;

pub use inverse::{inputs_at_least, inputs_at_most};

use super::simd::{Build, Isa, Kernel, Portable, Supported};

/// High part of ln 2 with 9 significant bits: `n · LN2_HI` is exact for every `n` used here.
const LN2_HI: f32 = 0.693_359_4;
/// ln 2 − `LN2_HI`.
const LN2_LO: f32 = -2.121_944_4e-4;
const INV_LN2: f32 = std::f32::consts::LOG2_E;
/// 1.5·2^23: adding it to a float below 2^22 in magnitude rounds it to an integer, exactly.
const ROUND_MAGIC: f32 = 12_582_912.0;
/// 2|x| is clamped here: tanh(10) rounds to 1 in f32, and 2^-n stays a normal float.
const Y_MAX: f32 = 20.0;
/// Below this |x| the `−m / (2 + m)` form is used.
const SMALL: f32 = 0.5;
/// Taylor coefficients 1/k! of expm1, k = 2..=8 (truncation error below 3e-10 for |r| ≤ ln2/2).
const C2: f32 = 1.0 / 2.0;
const C3: f32 = 1.0 / 6.0;
const C4: f32 = 1.0 / 24.0;
const C5: f32 = 1.0 / 120.0;
const C6: f32 = 1.0 / 720.0;
const C7: f32 = 1.0 / 5040.0;
const C8: f32 = 1.0 / 40320.0;

/// The hyperbolic tangent, the same bits on every machine; odd, exact at ±0, ±1 at ±∞, and
/// within 2e-7 of the true value everywhere.
///
/// Compiled for the build target (see [`simd`](super::simd)): where it has FMA (x86-64-v3, the
/// default), three steps whose product is exact are fused multiply-adds; the bits are those of
/// [`tanh_unfused`] (compared on every f32 by the `fused_tanh_equals_unfused` test).
#[inline(always)]
pub fn tanh(x: f32) -> f32 {
    tanh_on::<Build>(x)
}

/// [`tanh`] with every step a separate IEEE operation, on any target: the portable path's, and
/// the reference the fused steps are checked against.
#[inline(always)]
pub fn tanh_unfused(x: f32) -> f32 {
    tanh_on::<Portable>(x)
}

/// `out[i] = tanh(xs[i])` on `path`, as the batched evaluation computes its tanh (a vector at a
/// time, fused where the path has FMA); the same bits on every path. `xs` and `out` have equal
/// lengths; a remainder shorter than a vector is computed lane by lane.
pub fn tanh_many(path: Supported, xs: &[f32], out: &mut [f32]) {
    assert_eq!(xs.len(), out.len(), "tanh_many: {} inputs, {} outputs", xs.len(), out.len());
    path.run(TanhMany { xs, out });
}

/// [`tanh_many`] as a [`Kernel`].
struct TanhMany<'a> {
    xs: &'a [f32],
    out: &'a mut [f32],
}

impl Kernel for TanhMany<'_> {
    type Output = ();

    #[inline(always)]
    fn run<I: Isa, const W: usize>(self, _isa: I) {
        let (xs, x_rest) = self.xs.as_chunks::<W>();
        let (out, out_rest) = self.out.as_chunks_mut::<W>();
        for (o, x) in out.iter_mut().zip(xs) {
            for k in 0..W {
                o[k] = tanh_on::<I>(x[k]);
            }
        }
        for (o, x) in out_rest.iter_mut().zip(x_rest) {
            *o = tanh_on::<I>(*x);
        }
    }
}

/// [`tanh`] on the path of `I`: [`Isa::exact_product_plus`] fuses where the path has FMA.
#[inline(always)]
pub(super) fn tanh_on<I: Isa>(x: f32) -> f32 {
    const SIGN: u32 = 0x8000_0000;
    let sign = x.to_bits() & SIGN;
    let a = f32::from_bits(x.to_bits() & !SIGN);
    let two_a = a + a;
    // min(2|x|, Y_MAX) on the bit patterns (an integer instruction, off the adders): they order
    // as the values do for +0 to +∞, and a NaN's are above Y_MAX's, which it is replaced by.
    let y = f32::from_bits(two_a.to_bits().min(Y_MAX.to_bits()));

    // y = n·ln2 + r. Both subtractions of the n·LN2_HI step are exact.
    let k = y * INV_LN2 + ROUND_MAGIC;
    let n = k - ROUND_MAGIC;
    let n_int = k.to_bits().wrapping_sub(ROUND_MAGIC.to_bits());
    let r = I::exact_product_plus(-n, LN2_HI, y) - n * LN2_LO;

    // q = expm1(−r), then e^−y − 1 and e^−y via 2^−n (built from its exponent bits, exact, so
    // its product with q is exact too: q is 0 or far above the smallest normal float).
    // Estrin's scheme: the same polynomial as Horner's with a shorter dependency chain.
    let s = -r;
    let s2 = s * s;
    let s4 = s2 * s2;
    let p = ((C2 + C3 * s) + (C4 + C5 * s) * s2) + ((C6 + C7 * s) + C8 * s2) * s4;
    let q = s + s2 * p;
    let scale = f32::from_bits(127u32.wrapping_sub(n_int) << 23);
    let expm1 = I::exact_product_plus(scale, q, scale - 1.0);
    let exp = I::exact_product_plus(scale, q, scale);

    // One division for both forms (divisions are the slowest step). The operands are picked
    // with bit masks, not `if`: given selects, the compiler divides both forms and selects
    // the quotient, two divisions per lane instead of one (same bits either way). The second
    // form is 1 − 2·(e / (1 + e)): doubling is exact, so 2·(e / (1 + e)) rounds to the same
    // float as 2e / (1 + e), and 1 − 2·quotient is one more exact-product step.
    let small = a < SMALL;
    let mask = u32::from(small).wrapping_neg();
    let numerator = blend(mask, -expm1, exp);
    let denominator = blend(mask, 2.0 + expm1, 1.0 + exp);
    let quotient = numerator / denominator;
    let magnitude = blend(mask, quotient, I::exact_product_plus(-2.0, quotient, 1.0));
    f32::from_bits((magnitude.to_bits() & !SIGN) | sign)
}

/// `a` where `mask` is all ones, `b` where it is zero: an exact select written with bit masks.
#[inline(always)]
fn blend(mask: u32, a: f32, b: f32) -> f32 {
    f32::from_bits((a.to_bits() & mask) | (b.to_bits() & !mask))
}

/// The most [`tanh`] differs from the true hyperbolic tangent, for any f32 (measured maximum
/// 9.04e-8 at 0.5726, checked against this bound by the `tanh_every_f32` test).
pub const TANH_ERROR: f32 = 1e-7;

/// The most [`tanh_estimate`] differs from [`tanh`], for any finite f32 (checked on every one by
/// the `tanh_estimate_is_within_its_error_everywhere` test; the rational function alone is
/// within 7.1e-5 of the true tanh).
pub const TANH_ESTIMATE_ERROR: f32 = 8e-5;

/// Where [`tanh_estimate`] stops following its rational function: beyond it the function
/// would turn back from 1, and at this point its error equals its largest one inside.
const ESTIMATE_CLAMP: f32 = 4.79;

/// A cheap estimate of [`tanh`], within [`TANH_ESTIMATE_ERROR`] of it: the (7, 6) Padé
/// approximant `x (135135 + 17325x² + 378x⁴ + x⁶) / (135135 + 62370x² + 3150x⁴ + 28x⁶)` of
/// `x` clamped to ±4.79. A third of `tanh`'s operations and no range reduction: the search
/// bounds most leaves' values with it and evaluates exactly only those the bounds do not
/// settle (see `Network::bound_accumulators`). Plain IEEE operations, so the same bits on
/// every target.
#[inline(always)]
pub fn tanh_estimate(x: f32) -> f32 {
    let x = x.clamp(-ESTIMATE_CLAMP, ESTIMATE_CLAMP);
    let x2 = x * x;
    let numerator = x * (135_135.0 + x2 * (17_325.0 + x2 * (378.0 + x2)));
    let denominator = 135_135.0 + x2 * (62_370.0 + x2 * (3_150.0 + x2 * 28.0));
    numerator / denominator
}

/// From here on [`tanh`] is exactly 1 (and exactly −1 from minus this down; the last f32 below
/// 1 is at 9.010913): checked on every f32 by the `tanh_estimate_is_within_its_error_everywhere`
/// test.
pub const TANH_SATURATION: f32 = 9.02;
