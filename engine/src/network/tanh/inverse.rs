//! Where [`tanh`](super::tanh) crosses a value: input thresholds that settle a leaf against the
//! search's window from bounds on the output unit's input alone, with no `tanh` of the leaf.
//!
//! `tanh` (`T`) is within [`TANH_ERROR`] (`η`) of the true hyperbolic tangent, which increases.
//! So if `s ≤ atanh(y − η)` then `T(s) ≤ tanh(s) + η ≤ y`, and if `s ≥ atanh(y + η)` then
//! `T(s) ≥ y`. The thresholds are those `atanh`, computed in f64 and rounded outwards past a
//! margin far above the f64 error, and saturate where `T` is exactly ±1 (from
//! ±[`TANH_SATURATION`] on), where random networks' values crowd. Only IEEE operations, so the
//! same bits on every machine (the platform's `libm` is not used).

use super::{TANH_ERROR, TANH_SATURATION};

/// A threshold `t` with `T(s) ≤ y` for every f32 `s ≤ t`: `+∞` when `y ≥ 1` (every `s`), NaN
/// (which no comparison passes) when no `s` qualifies (`y < −1`).
pub fn inputs_at_most(y: f32) -> f32 {
    if y >= 1.0 {
        return f32::INFINITY;
    }
    if y.is_nan() || y < -1.0 {
        return f32::NAN;
    }
    let z = f64::from(y) - f64::from(TANH_ERROR);
    // Beyond the last `atanh` below, `T` is exactly −1, which is at most `y`.
    if z <= -1.0 {
        return -TANH_SATURATION;
    }
    let t = atanh(z);
    round_down(t - MARGIN * (1.0 + t.abs())).max(-TANH_SATURATION)
}

/// A threshold `t` with `T(s) ≥ y` for every f32 `s ≥ t`: `−∞` when `y ≤ −1` (every `s`), NaN
/// when no `s` qualifies (`y > 1`).
pub fn inputs_at_least(y: f32) -> f32 {
    if y <= -1.0 {
        return f32::NEG_INFINITY;
    }
    if y.is_nan() || y > 1.0 {
        return f32::NAN;
    }
    let z = f64::from(y) + f64::from(TANH_ERROR);
    if z >= 1.0 {
        return TANH_SATURATION;
    }
    let t = atanh(z);
    round_up(t + MARGIN * (1.0 + t.abs())).min(TANH_SATURATION)
}

/// The allowance on [`atanh`]'s result, relative and absolute: 50 times its error, and far
/// below the bounds' own width (about 1e-3).
const MARGIN: f64 = 1e-6;

/// `atanh(z)` for `|z| < 1`, as `ln((1 + z) / (1 − z)) / 2`, within 2e-8 (absolute) of the
/// true value ([`ln`]'s series; its argument is rounded once, relative error 2⁻⁵²).
fn atanh(z: f64) -> f64 {
    0.5 * ln((1.0 + z) / (1.0 - z))
}

/// `ln(x)` for finite `x > 0`: `x = 2ᵏ·m` with `m` in [√½, √2), `ln m = 2·atanh(u)` with
/// `u = (m − 1) / (m + 1)` (`|u| ≤ 0.172`) by its odd series to `u⁷` (what is left is below
/// 4e-8), plus `k·ln 2`. `m − 1` is exact there, so values near 1 keep their accuracy.
fn ln(x: f64) -> f64 {
    const LN_2: f64 = std::f64::consts::LN_2;
    let bits = x.to_bits();
    // Subnormals never occur here: `x` is at least (1 − (1 − 2⁻²⁴)) / 2 = 2⁻²⁵.
    let mut k = ((bits >> 52) & 0x7ff) as i64 - 1023;
    let mut m = f64::from_bits((bits & ((1u64 << 52) - 1)) | (1023u64 << 52));
    if m > std::f64::consts::SQRT_2 {
        m *= 0.5;
        k += 1;
    }
    let u = (m - 1.0) / (m + 1.0);
    let u2 = u * u;
    let mut series = 0.0;
    for n in (0..=3).rev() {
        series = series * u2 + 1.0 / f64::from(2 * n + 1);
    }
    2.0 * u * series + k as f64 * LN_2
}

/// The largest f32 at most `t`.
fn round_down(t: f64) -> f32 {
    let r = t as f32;
    if f64::from(r) > t { r.next_down() } else { r }
}

/// The smallest f32 at least `t`.
fn round_up(t: f64) -> f32 {
    let r = t as f32;
    if f64::from(r) < t { r.next_up() } else { r }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::tanh;

    #[test]
    fn ln_and_atanh_agree_with_the_standard_library() {
        for x in [2.0f64.powi(-25), 1e-7, 0.3, 0.7, 1.0, 1.0 + 1e-12, 1.5, 2.0, 1e7, 3.3e7] {
            assert!((ln(x) - x.ln()).abs() <= 4e-8 * (1.0 + x.ln().abs()), "ln {x}");
        }
        // The reference in the same form (`f64::atanh`, through `ln_1p(2z / (1 − z))`, loses
        // digits near ±1: it is off by 1e-9 at −0.9999999).
        for z in [-0.999_999_9f64, -0.5, -1e-9, 0.0, 1e-12, 0.25, 0.9, 0.999_999_9] {
            let reference = 0.5 * ((1.0 + z) / (1.0 - z)).ln();
            assert!((atanh(z) - reference).abs() <= 2e-8 * (1.0 + reference.abs()), "atanh {z}");
            assert!((atanh(z) - z.atanh()).abs() <= 3e-8, "atanh {z}");
        }
    }

    /// Both sides of each threshold: `tanh` keeps to the side it promises over a stretch of
    /// f32s beyond it (where it is not monotonic, by less than its error), and a little past
    /// the threshold it crosses `y` (the threshold is tight).
    #[test]
    fn thresholds_hold_and_are_tight() {
        let mut ys: Vec<f32> = vec![-1.0, -0.999_999_9, -0.5, -1e-6, 0.0, 1e-6, 0.3, 0.9, 0.999_9, 0.999_999_9, 1.0];
        let mut r = crate::random::SplitMix64::new(7);
        ys.extend((0..400).map(|_| crate::random::unit_interval(r.next_u64())));
        // Values crowding at ±1, as random networks' do.
        ys.extend((1..40).flat_map(|k| [1.0 - k as f32 * 6e-8, -1.0 + k as f32 * 6e-8]));
        for &y in &ys {
            let at_most = inputs_at_most(y);
            let at_least = inputs_at_least(y);
            let mut s = at_most;
            for _ in 0..20_000 {
                assert!(tanh(s) <= y, "tanh({s:e}) > {y:e}, threshold {at_most:e}");
                s = s.next_down();
            }
            let mut s = at_least;
            for _ in 0..20_000 {
                assert!(tanh(s) >= y, "tanh({s:e}) < {y:e}, threshold {at_least:e}");
                s = s.next_up();
            }
            // Tight: within 1e-5 of the true atanh of y ∓ η, where not saturated.
            let near = |threshold: f32, z: f64| {
                let t = 0.5 * ((1.0 + z) / (1.0 - z)).ln();
                (f64::from(threshold) - t).abs() <= 1e-5 * (1.0 + t.abs())
            };
            let eta = f64::from(TANH_ERROR);
            if at_most.abs() < TANH_SATURATION && y < 1.0 {
                assert!(near(at_most, f64::from(y) - eta), "{y:e}: {at_most:e}");
            }
            if at_least.abs() < TANH_SATURATION && y > -1.0 {
                assert!(near(at_least, f64::from(y) + eta), "{y:e}: {at_least:e}");
            }
        }
    }

    #[test]
    fn thresholds_outside_the_range_of_tanh() {
        assert_eq!(inputs_at_most(1.0), f32::INFINITY);
        assert_eq!(inputs_at_most(1e6), f32::INFINITY);
        assert!(inputs_at_most(-1.5).is_nan());
        assert!(inputs_at_most(f32::NEG_INFINITY).is_nan());
        assert_eq!(inputs_at_least(-1.0), f32::NEG_INFINITY);
        assert!(inputs_at_least(1.0 + 1e-6).is_nan());
        assert!(inputs_at_least(f32::INFINITY).is_nan());
        // Within η of ±1, only saturation decides.
        assert_eq!(inputs_at_least(1.0), TANH_SATURATION);
        assert_eq!(inputs_at_most(-1.0), -TANH_SATURATION);
    }
}
