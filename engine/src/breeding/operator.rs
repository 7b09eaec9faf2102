//! What a breeding step does: an [`Operator`] (its name, its parents, its parameters and how it
//! makes alleles) and a [`Variation`], an operator with its parameters' values.

use super::BreedingRng;
use crate::network::Topology;
use std::fmt;
use std::ops::RangeInclusive;

/// Most parents an operator takes.
pub const MAX_PARENTS: usize = 2;

/// Most parameters an operator takes (a [`Variation`] holds their values inline, so it stays
/// `Copy`).
pub const MAX_PARAMETERS: usize = 4;

/// How an operator makes alleles: from its parameters' values (in its
/// [`Operator::parameters`]' order; the slots beyond them are 0), the length a parentless
/// operator makes, its parents (as many as it takes; the others are empty) and the generator.
pub type Apply = fn(&[f64; MAX_PARAMETERS], usize, [&[f32]; MAX_PARENTS], &mut BreedingRng) -> Vec<f32>;

/// A variation operator: a file of [`super::operators`], registered in
/// [`OPERATORS`](super::OPERATORS) by its name.
pub struct Operator {
    /// Its name on the wire and in configurations, e.g. `gaussian`.
    pub name: &'static str,
    /// How many parents it takes: 0 (it makes a chromosome from nothing), 1 (a mutation) or 2
    /// (a crossover).
    pub parents: usize,
    /// Its parameters, in the order a [`Variation`] and the wire give their values.
    pub parameters: &'static [Parameter],
    /// How it makes alleles.
    pub apply: Apply,
    /// Whether it makes sense on networks of a shape: `Err` says why not, as the end of a
    /// sentence that begins with the operator's name (a configuration's error names both). Most
    /// operators fit any shape ([`any_shape`]).
    pub fits: Fits,
}

/// Whether an operator fits networks of a shape (see [`Operator::fits`]).
pub type Fits = fn(Topology) -> Result<(), String>;

/// The [`Operator::fits`] of an operator that treats alleles alike, whatever the network's shape.
pub fn any_shape(_: Topology) -> Result<(), String> {
    Ok(())
}

/// One parameter of an operator.
#[derive(Clone, Debug, PartialEq)]
pub struct Parameter {
    /// Its name in configurations, e.g. `alpha`.
    pub name: &'static str,
    /// What it means.
    pub doc: &'static str,
    /// Its valid values: configurations and origins outside it are refused.
    pub range: RangeInclusive<f64>,
    /// Its value where a configuration leaves it out, if it has one.
    pub default: Option<f64>,
}

/// The parameter most mutations take: the chance that an allele changes.
pub const PROBABILITY: Parameter =
    Parameter { name: "probability", doc: "the chance that an allele changes", range: 0.0..=1.0, default: None };

impl Operator {
    /// This operator with `values` for its parameters, in order; their ranges are checked where
    /// a step becomes part of an origin ([`super::Origin::new`]).
    pub fn with(&'static self, values: &[f64]) -> Result<Variation, VariationError> {
        if values.len() != self.parameters.len() {
            let (expected, found) = (self.parameters.len(), values.len());
            return Err(VariationError::ParameterCount { operator: self.name, expected, found });
        }
        Ok(Variation::unchecked(self, values))
    }

    /// Whether it changes one chromosome's alleles (a mutation), rather than making alleles from
    /// nothing or from two.
    pub const fn is_mutation(&self) -> bool {
        self.parents == 1
    }

    /// This operator with each parameter at its default, or else at the middle of its range but
    /// at most ½ (a modest step): for tests and examples over every operator.
    pub fn example(&'static self) -> Variation {
        let value = |p: &Parameter| {
            let (low, high) = (*p.range.start(), *p.range.end());
            p.default.unwrap_or_else(|| (low + (high - low) / 2.0).min(0.5).max(low))
        };
        let values: Vec<f64> = self.parameters.iter().map(value).collect();
        Variation::unchecked(self, &values)
    }
}

/// One variation operator with its parameters' values: what a breeding step does.
#[derive(Clone, Copy)]
pub struct Variation {
    operator: &'static Operator,
    values: [f64; MAX_PARAMETERS],
}

impl Variation {
    /// `operator` with `values`, which its own file knows to be as many as its parameters (at
    /// most [`MAX_PARAMETERS`]; more are dropped, fewer leave 0).
    pub(crate) fn unchecked(operator: &'static Operator, values: &[f64]) -> Variation {
        let mut padded = [0.0; MAX_PARAMETERS];
        for (slot, &value) in padded.iter_mut().zip(values) {
            *slot = value;
        }
        Variation { operator, values: padded }
    }

    /// The operator.
    pub fn operator(&self) -> &'static Operator {
        self.operator
    }

    /// The operator's name on the wire and in configurations, e.g. `gaussian`.
    pub fn name(&self) -> &'static str {
        self.operator.name
    }

    /// How many parents it takes: 0, 1 or 2.
    pub fn parents(&self) -> usize {
        self.operator.parents
    }

    /// Whether it changes one chromosome's alleles (a mutation).
    pub fn is_mutation(&self) -> bool {
        self.operator.is_mutation()
    }

    /// Its parameters' values, in the operator's order.
    pub fn parameters(&self) -> &[f64] {
        &self.values[..self.operator.parameters.len()]
    }

    /// The value of the parameter `name`, if the operator has one.
    pub fn parameter(&self, name: &str) -> Option<f64> {
        self.operator.parameters.iter().zip(self.values).find(|(p, _)| p.name == name).map(|(_, value)| value)
    }

    /// The first parameter whose value is outside its range, with the value, if any.
    pub fn out_of_range(&self) -> Option<(&'static Parameter, f64)> {
        self.operator.parameters.iter().zip(self.values).find(|(p, value)| !p.range.contains(value))
    }

    /// The alleles it makes from `parents` (as many as [`Variation::parents`]; missing ones are
    /// taken as empty), drawing from `rng`. A parentless operator makes `length` alleles.
    pub fn apply(&self, length: usize, parents: &[&[f32]], rng: &mut BreedingRng) -> Vec<f32> {
        let mut given: [&[f32]; MAX_PARENTS] = [&[]; MAX_PARENTS];
        for (slot, &parent) in given.iter_mut().zip(parents).take(self.operator.parents) {
            *slot = parent;
        }
        (self.operator.apply)(&self.values, length, given, rng)
    }
}

impl PartialEq for Variation {
    fn eq(&self, other: &Variation) -> bool {
        // Names are unique in the registry (its tests check it).
        self.operator.name == other.operator.name && self.values == other.values
    }
}

impl fmt::Debug for Variation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = f.debug_struct(self.operator.name);
        for (parameter, value) in self.operator.parameters.iter().zip(&self.values) {
            out.field(parameter.name, value);
        }
        out.finish()
    }
}

/// Why a variation named on the wire cannot be made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VariationError {
    /// No operator has this name.
    UnknownOperator(String),
    /// The operator takes another number of parameters.
    ParameterCount {
        /// The operator.
        operator: &'static str,
        /// The parameters it takes.
        expected: usize,
        /// The parameters given.
        found: usize,
    },
}

impl fmt::Display for VariationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VariationError::UnknownOperator(name) => write!(f, "no variation operator is named {name:?}"),
            VariationError::ParameterCount { operator, expected, found } => {
                write!(f, "{operator} takes {expected} parameters, got {found}")
            }
        }
    }
}

impl std::error::Error for VariationError {}
