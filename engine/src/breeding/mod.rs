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
//! The operators are the only implementation: the master's configuration picks a
//! [`Variation`] and calls it, so the master and a worker cannot drift apart.

mod origin;
mod rng;

pub use origin::{MAX_STEPS, Origin, OriginError, Step};
pub use rng::BreedingRng;

use crate::network::{HIDDEN, INPUTS, MAX_ABS_WEIGHT, Topology};

/// How to cross two parents.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Crossover {
    /// Alleles before a cut from the first parent, from the cut on from the second; the cut is
    /// uniform in `1..len−1`, so both contribute (SPEC §5).
    SinglePoint,
    /// Each allele from either parent with probability ½.
    Uniform,
    /// Each hidden unit (its input weights, bias and output weight) from either parent with
    /// probability ½; the output bias from the first. Only for the default topology's layout
    /// (SPEC §3); other lengths are the first parent's alleles.
    PerNeuron,
}

/// One variation operator with its parameters: what a breeding step does.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Variation {
    /// No parent: every allele uniform in [-1, 1) (the first generation).
    Random,
    /// One parent: each allele replaced, with `probability`, by a fresh uniform value in [-1, 1)
    /// (the thesis's mutation).
    UniformReset {
        /// Chance that an allele is replaced.
        probability: f64,
    },
    /// One parent: each allele, with `probability`, gets Gaussian noise of standard deviation
    /// `step`, the sum kept within [`MAX_ABS_WEIGHT`].
    Gaussian {
        /// The noise's standard deviation.
        step: f64,
        /// Chance that an allele gets noise.
        probability: f64,
    },
    /// Two parents, crossed.
    Crossover(Crossover),
}

impl Variation {
    /// How many parents it takes: 0, 1 or 2.
    pub const fn parents(self) -> usize {
        match self {
            Variation::Random => 0,
            Variation::UniformReset { .. } | Variation::Gaussian { .. } => 1,
            Variation::Crossover(_) => 2,
        }
    }

    /// Whether it changes one chromosome's alleles (a mutation), rather than making alleles from
    /// nothing or from two.
    pub const fn is_mutation(self) -> bool {
        self.parents() == 1
    }

    /// Its name on the wire and in configurations, e.g. `gaussian`.
    pub const fn name(self) -> &'static str {
        match self {
            Variation::Random => "random",
            Variation::UniformReset { .. } => "uniform-reset",
            Variation::Gaussian { .. } => "gaussian",
            Variation::Crossover(Crossover::SinglePoint) => "single-point",
            Variation::Crossover(Crossover::Uniform) => "uniform",
            Variation::Crossover(Crossover::PerNeuron) => "per-neuron",
        }
    }

    /// Its parameters, in the order [`Variation::from_parts`] takes them.
    pub fn parameters(self) -> Vec<f64> {
        match self {
            Variation::Random | Variation::Crossover(_) => Vec::new(),
            Variation::UniformReset { probability } => vec![probability],
            Variation::Gaussian { step, probability } => vec![step, probability],
        }
    }

    /// The variation named `name` with `parameters` (as [`Variation::name`] and
    /// [`Variation::parameters`] give them). Their ranges are checked where a step is made part
    /// of an origin ([`Origin::new`]).
    pub fn from_parts(name: &str, parameters: &[f64]) -> Result<Variation, VariationError> {
        let variation = match (name, parameters) {
            ("random", []) => Variation::Random,
            ("uniform-reset", &[probability]) => Variation::UniformReset { probability },
            ("gaussian", &[step, probability]) => Variation::Gaussian { step, probability },
            ("single-point", []) => Variation::Crossover(Crossover::SinglePoint),
            ("uniform", []) => Variation::Crossover(Crossover::Uniform),
            ("per-neuron", []) => Variation::Crossover(Crossover::PerNeuron),
            (name, found) => {
                let known = Variation::ALL.iter().find(|v| v.name() == name);
                return Err(match known {
                    Some(v) => VariationError::ParameterCount {
                        operator: v.name(),
                        expected: v.parameters().len(),
                        found: found.len(),
                    },
                    None => VariationError::UnknownOperator(name.to_owned()),
                });
            }
        };
        Ok(variation)
    }

    /// One variation of each operator (parameters arbitrary), for names and parameter counts.
    const ALL: [Variation; 6] = [
        Variation::Random,
        Variation::UniformReset { probability: 0.0 },
        Variation::Gaussian { step: 0.0, probability: 0.0 },
        Variation::Crossover(Crossover::SinglePoint),
        Variation::Crossover(Crossover::Uniform),
        Variation::Crossover(Crossover::PerNeuron),
    ];

    /// The alleles it makes from `parents` (as many as [`Variation::parents`]; missing ones are
    /// taken as empty), drawing from `rng`. `Random` makes `length` alleles.
    pub fn apply(self, length: usize, parents: &[&[f32]], rng: &mut BreedingRng) -> Vec<f32> {
        let parent = |i: usize| parents.get(i).copied().unwrap_or(&[]);
        match self {
            Variation::Random => (0..length).map(|_| rng.weight()).collect(),
            Variation::UniformReset { probability } => reset_uniformly(parent(0), probability, rng),
            Variation::Gaussian { step, probability } => perturb(parent(0), step, probability, rng),
            Variation::Crossover(kind) => cross(kind, parent(0), parent(1), rng),
        }
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

impl std::fmt::Display for VariationError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            VariationError::UnknownOperator(name) => write!(f, "no variation operator is named {name:?}"),
            VariationError::ParameterCount { operator, expected, found } => {
                write!(f, "{operator} takes {expected} parameters, got {found}")
            }
        }
    }
}

impl std::error::Error for VariationError {}

/// Each allele replaced, with `probability`, by a fresh uniform value in [-1, 1).
pub fn reset_uniformly(parent: &[f32], probability: f64, rng: &mut BreedingRng) -> Vec<f32> {
    parent.iter().map(|&allele| if rng.chance(probability) { rng.weight() } else { allele }).collect()
}

/// Adds Gaussian noise of standard deviation `step` to each allele with probability
/// `probability`, keeping alleles within [`MAX_ABS_WEIGHT`].
pub fn perturb(parent: &[f32], step: f64, probability: f64, rng: &mut BreedingRng) -> Vec<f32> {
    let bound = f64::from(MAX_ABS_WEIGHT);
    parent
        .iter()
        .map(|&allele| {
            if rng.chance(probability) {
                (f64::from(allele) + step * rng.normal()).clamp(-bound, bound) as f32
            } else {
                allele
            }
        })
        .collect()
}

/// A child's alleles from a survivor and its partner (the child is as long as the shorter).
pub fn cross(kind: Crossover, survivor: &[f32], partner: &[f32], rng: &mut BreedingRng) -> Vec<f32> {
    match kind {
        Crossover::SinglePoint => {
            let len = survivor.len().min(partner.len());
            // Cut uniform in 1..len-1 (SPEC §5): both parents contribute at least one allele.
            let cut = if len >= 2 { 1 + rng.below(len - 1) } else { len };
            survivor[..cut].iter().chain(&partner[cut..len]).copied().collect()
        }
        Crossover::Uniform => {
            survivor.iter().zip(partner).map(|(&s, &p)| if rng.below(2) == 0 { s } else { p }).collect()
        }
        Crossover::PerNeuron => {
            let mut child = survivor.to_vec();
            let (count, bias, out) = (
                Topology::default().weight_count(),
                Topology::default().hidden_bias_index(0),
                Topology::default().output_weight_index(0),
            );
            if child.len() == count && partner.len() == count {
                for h in 0..HIDDEN {
                    if rng.below(2) == 1 {
                        child[INPUTS * h..INPUTS * (h + 1)].copy_from_slice(&partner[INPUTS * h..INPUTS * (h + 1)]);
                        child[bias + h] = partner[bias + h];
                        child[out + h] = partner[out + h];
                    }
                }
            }
            child
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_variation_is_made_again_from_its_name_and_parameters() {
        let variations = [
            Variation::Random,
            Variation::UniformReset { probability: 0.15 },
            Variation::Gaussian { step: 0.05, probability: 1.0 },
            Variation::Crossover(Crossover::SinglePoint),
            Variation::Crossover(Crossover::Uniform),
            Variation::Crossover(Crossover::PerNeuron),
        ];
        let names: std::collections::HashSet<_> = variations.iter().map(|v| v.name()).collect();
        assert_eq!(names.len(), variations.len(), "names are distinct");
        for v in variations {
            assert_eq!(Variation::from_parts(v.name(), &v.parameters()), Ok(v));
        }
        assert_eq!(
            Variation::from_parts("gaussian", &[0.1]),
            Err(VariationError::ParameterCount { operator: "gaussian", expected: 2, found: 1 })
        );
        assert_eq!(
            Variation::from_parts("uniform", &[0.5]),
            Err(VariationError::ParameterCount { operator: "uniform", expected: 0, found: 1 })
        );
        let unknown = Variation::from_parts("blend", &[0.5]).unwrap_err();
        assert_eq!(unknown.to_string(), "no variation operator is named \"blend\"");
    }
}
