//! A group's output sums computed unit-major, for the bounds: vector `h` holds hidden unit `h`
//! of each of the group's 8 accumulators, so the activation, the products and [`output_sum`]'s
//! additions are vertical vector operations, lane `i` doing exactly accumulator `i`'s scalar
//! operations (so the same bits as one accumulator's sum).
//!
//! Why: with the 8 × 20 units packed accumulator after accumulator (as the exact evaluation
//! does), the compiler vectorised the cheap estimate across every eighth lane (a gather of
//! single lanes per vector) instead of within vectors; written out unit by unit here, each unit
//! is one vector. The paths with 8-lane vectors bound this way ([`Isa::UNIT_MAJOR_BOUNDS`]).
//!
//! [`output_sum`]: crate::network::simd::output_sum

use crate::network::simd::{GROUP, Isa, LANES, Lanes, UnitLanes};
use crate::network::{Accumulator, HIDDEN};

/// The group's hidden pre-activations unit-major: `units[h].0[i]` is unit `h` of `accs[i]`, for
/// all [`LANES`] (the padding units read `+0`, as in the accumulators). Lanes past `accs.len()`
/// repeat its last accumulator (any value would do: they are computed and not used; a
/// repeat keeps every load in bounds and every lane a real number). `accs` holds 1 to 8.
#[inline(always)]
pub(super) fn transpose(isa: impl Isa, accs: &[Accumulator]) -> [UnitLanes; LANES] {
    assert!(!accs.is_empty() && accs.len() <= GROUP);
    let last = accs.len() - 1;
    let rows: [&Lanes; GROUP] = std::array::from_fn(|i| &accs[i.min(last)].pre);
    isa.transpose(&rows)
}

/// The output unit's inputs `bias + Σ_h activation(a_h)·v_h` of a group, unit-major: the
/// products vertically, then summed in [`output_sum`]'s order (lanes `j`, `j + 8` and `j + 16`
/// first, the padding units' products `+0`, then the tree over the 8 lane sums), each vector
/// operation doing one of those scalar additions in every lane.
///
/// [`output_sum`]: crate::network::simd::output_sum
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
