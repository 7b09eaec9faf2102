//! Cheap, guaranteed bounds on the network's output unit's input, so the search can settle most
//! leaves without the exact evaluation (whose 21 `tanh` are most of a leaf's cost) and without
//! any `tanh` of the leaf at all.
//!
//! The exact value of an accumulator is `T(S)` with `S = b + Σ_h fl(T(a_h)·v_h)` summed in a
//! fixed order, `T` being [`tanh`](fn@crate::network::tanh). The bound replaces each `T(a_h)` by
//! `R(a_h)` = [`tanh_estimate`] (within `ε` = [`TANH_ESTIMATE_ERROR`] of it, on every f32) and
//! sums the same way into `Ŝ`. Each product then differs by at most `ε·|v_h|` plus two
//! roundings of `u·|v_h|` (`u` = 2⁻²⁴), and each sum, a tree six additions deep over
//! `|b| + Σ|v_h|`, by at most `γ₆ = 6u / (1 − 6u)` times that, so `|S − Ŝ| ≤ Δ`, a constant of
//! the network ([`value_margin`]). So `fl(Ŝ − d) ≤ S ≤ fl(Ŝ + d)` where the per-leaf `d` adds
//! `4u·|Ŝ|` to `Δ` for the rounding of those sums. The search compares these ends with the
//! inputs where `T` crosses its window's bounds ([`inputs_at_most`](crate::network::inputs_at_most),
//! [`inputs_at_least`](crate::network::inputs_at_least), computed once a window), which account for
//! `T`'s own error and its saturation at ±1 (random networks' values crowd within 1e-4 of ±1).
//! The estimate's error only widens `S`'s range, which the output's flat tails mostly absorb.

use super::{Network, copy_group, unit_major};
use crate::network::Accumulator;
use crate::network::simd::{GROUP, Isa, Kernel, Supported};
use crate::network::tanh::{TANH_ESTIMATE_ERROR, tanh_estimate};

/// The unit roundoff of f32.
const U: f64 = 1.0 / 16_777_216.0;

/// The per-leaf relative part of the margin on `S`: covers the rounding of `Ŝ ± d`.
const RELATIVE: f32 = (4.0 * U) as f32;

/// `Δ`, the most `S` and `Ŝ` can differ for a network with these output weights and bias,
/// with a 1 % allowance, as an f32 no smaller than it.
pub(super) fn value_margin(output_weights: &[f32], bias: f32) -> f32 {
    let eps = f64::from(TANH_ESTIMATE_ERROR);
    let weights: f64 = output_weights.iter().map(|v| f64::from(v.abs())).sum();
    let gamma6 = 6.0 * U / (1.0 - 6.0 * U);
    let terms = f64::from(bias.abs()) + weights * (1.0 + eps) * (1.0 + U);
    let delta = (eps + 2.0 * U * (1.0 + eps)) * weights + 2.0 * gamma6 * terms;
    // f64 → f32 rounds to nearest; the allowance keeps the result above `delta`.
    ((delta * 1.01) + 1e-9) as f32
}

impl Network {
    /// Bounds on the output unit's input ([`Network::output_input`]) of several accumulators:
    /// `lo[i] ≤ output_input(accs[i]) ≤ hi[i]` (equal lengths), about 0.002 apart for a
    /// typical network, at a fraction of the exact evaluation's cost (see the module
    /// documentation for why they hold), on the detected path ([`Supported::detected`]). Same
    /// bits on every path, and the same as bounding each accumulator alone.
    #[inline]
    pub fn bound_accumulators(&self, accs: &[Accumulator], lo: &mut [f32], hi: &mut [f32]) {
        if let ([acc], [lo], [hi]) = (accs, &mut *lo, &mut *hi) {
            (*lo, *hi) = self.bound_accumulator(acc);
            return;
        }
        self.bound_accumulators_on(Supported::detected(), accs, lo, hi);
    }

    /// [`Network::bound_accumulators`] on `path`, in groups of up to 8 even for one
    /// accumulator: the same bits on every path.
    #[inline]
    pub fn bound_accumulators_on(&self, path: Supported, accs: &[Accumulator], lo: &mut [f32], hi: &mut [f32]) {
        path.run(BoundGroups { network: self, accs, lo, hi });
    }

    /// [`Network::bound_accumulators_on`] on the portable path.
    pub fn bound_accumulators_portable(&self, accs: &[Accumulator], lo: &mut [f32], hi: &mut [f32]) {
        self.bound_accumulators_on(Supported::PORTABLE, accs, lo, hi);
    }

    /// The bounds of one accumulator: the same bits as in a group (the same products, summed
    /// in the same order), without packing a group for it.
    #[inline]
    fn bound_accumulator(&self, acc: &Accumulator) -> (f32, f32) {
        self.input_range(self.output_input_with(acc, tanh_estimate))
    }

    /// The range `fl(Ŝ ∓ d)` that holds the exact output input, given its estimate `Ŝ`.
    #[inline(always)]
    fn input_range(&self, estimate: f32) -> (f32, f32) {
        let d = self.tables.value_margin + RELATIVE * estimate.abs();
        (estimate - d, estimate + d)
    }

    /// The bounds of groups of up to 8 accumulators, given the estimated output inputs of a
    /// group (`sums`).
    #[inline(always)]
    fn bound_groups(
        &self,
        accs: &[Accumulator],
        lo: &mut [f32],
        hi: &mut [f32],
        sums: impl Fn(&[Accumulator]) -> [f32; GROUP],
    ) {
        assert!(accs.len() == lo.len() && accs.len() == hi.len());
        for ((accs, lo), hi) in accs.chunks(GROUP).zip(lo.chunks_mut(GROUP)).zip(hi.chunks_mut(GROUP)) {
            let sums = sums(accs);
            let mut low = [0.0f32; GROUP];
            let mut high = [0.0f32; GROUP];
            for k in 0..GROUP {
                (low[k], high[k]) = self.input_range(sums[k]);
            }
            copy_group(lo, &low);
            copy_group(hi, &high);
        }
    }
}

/// [`Network::bound_accumulators_on`] as a [`Kernel`]: each group's estimated output inputs
/// unit-major or packed, as the path's [`Isa::UNIT_MAJOR_BOUNDS`] says.
struct BoundGroups<'a> {
    network: &'a Network,
    accs: &'a [Accumulator],
    lo: &'a mut [f32],
    hi: &'a mut [f32],
}

impl Kernel for BoundGroups<'_> {
    type Output = ();

    #[inline(always)]
    fn run<I: Isa, const W: usize>(self, isa: I) {
        let BoundGroups { network, accs, lo, hi } = self;
        let tables = &*network.tables;
        network.bound_groups(accs, lo, hi, |group| {
            if I::UNIT_MAJOR_BOUNDS {
                let units = unit_major::transpose(isa, group);
                unit_major::output_inputs(&units, &tables.output_weights, tables.output_bias, tanh_estimate)
            } else {
                network.group_output_inputs::<I, W>(isa, group, tanh_estimate)
            }
        });
    }
}
