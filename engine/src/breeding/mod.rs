//! Breeding: how chromosomes are made from others, as pure functions of the parents and a
//! generator's state.
//!
//! The master breeds every population with these operators, drawing from its
//! [`BreedingRng`], and records how it made each chromosome: its [`Origin`], the parents' ids
//! and, for each [`Step`], the [`Variation`] and the generator's state where the step began. A
//! process that holds the parents makes the chromosome again with [`Origin::make`], bit for bit,
//! so a task can carry a new network as an origin of about a hundred bytes instead of its 8 KiB
//! of weights. The receiver checks what it made against the id the task names (the content
//! address); a mismatch (a platform whose `ln` rounds differently, for the Gaussian operator)
//! costs the receiver a fetch, never a wrong game.
//!
//! The operators are the only implementation: the master's configuration names one of
//! [`OPERATORS`] and applies it, and a worker finds the same one by the name an origin gives, so
//! the master and a worker cannot drift apart and a new operator costs the wire nothing.
//!
//! - `operator`: what an [`Operator`] is, and a [`Variation`] (an operator with its values).
//! - [`operators`]: the operators, one file each, and their registry [`OPERATORS`].
//! - `origin`: a chromosome's [`Origin`] and its [`Step`]s.
//! - `rng`: the generator, [`BreedingRng`].

mod operator;
pub mod operators;
mod origin;
mod rng;

pub use operator::{
    Apply, Fits, MAX_PARAMETERS, MAX_PARENTS, Operator, PROBABILITY, Parameter, Variation, VariationError, any_shape,
};
pub use operators::{OPERATORS, find, variation};
pub use origin::{MAX_STEPS, Origin, OriginError, Step};
pub use rng::BreedingRng;
