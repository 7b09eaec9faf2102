//! Random weights: the first generation's chromosomes, made from nothing.

use crate::breeding::{Operator, Variation, any_shape};

/// No parent: every allele uniform in [-1, 1).
pub const OPERATOR: Operator = Operator {
    name: "random",
    parents: 0,
    parameters: &[],
    apply: |_, length, _, rng| (0..length).map(|_| rng.weight()).collect(),
    fits: any_shape,
};

/// The operator (it has no parameters).
pub fn variation() -> Variation {
    Variation::unchecked(&OPERATOR, &[])
}
