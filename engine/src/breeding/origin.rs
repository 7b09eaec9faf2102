//! A chromosome's origin: its parents and the breeding steps that made it, enough for anyone
//! holding the parents to make it again.

use super::{BreedingRng, Variation};
use crate::network::{Chromosome, ChromosomeId, Topology};
use std::fmt;
use std::ops::RangeInclusive;

/// Most steps an origin has: a crossover and then a mutation ((μ + λ)'s children).
pub const MAX_STEPS: usize = 2;

/// One breeding step: a variation and the generator's state where it began.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Step {
    /// What the step does.
    pub variation: Variation,
    /// The breeding generator's state ([`BreedingRng::state`]) when the step began.
    pub state: [u64; 4],
}

impl Step {
    /// Applies `variation` to `parents` drawing from `rng`, as [`Variation::apply`] does, and
    /// records the step: the alleles and how to make them again.
    pub fn take(variation: Variation, length: usize, parents: &[&[f32]], rng: &mut BreedingRng) -> (Vec<f32>, Step) {
        let step = Step { variation, state: rng.state() };
        (variation.apply(length, parents, rng), step)
    }
}

/// How a chromosome was made: from `parents` (0 to 2 chromosomes, by id) by `steps` (1 to
/// [`MAX_STEPS`]): the first takes the parents, each later one is a mutation of what the steps
/// before it made. Each step draws from a generator started in the step's recorded state.
///
/// Made by the master as it breeds; sent with a task instead of the weights; checked by
/// [`Origin::new`] on arrival (so [`Origin::make`] cannot fail on its shape).
#[derive(Clone, Debug, PartialEq)]
pub struct Origin {
    parents: Vec<ChromosomeId>,
    steps: Vec<Step>,
}

/// Why an origin is refused, or could not make its chromosome.
#[derive(Clone, Debug, PartialEq)]
pub enum OriginError {
    /// No step, or more than [`MAX_STEPS`].
    StepCount(usize),
    /// The first step takes a different number of parents.
    ParentCount {
        /// What the first step takes.
        expected: usize,
        /// What the origin names.
        found: usize,
    },
    /// A step after the first is not a mutation.
    NotAMutation {
        /// The step's index.
        step: usize,
    },
    /// A parameter outside its range (the operator's [`Parameter::range`](super::Parameter)).
    Parameter {
        /// The step's index.
        step: usize,
        /// The step's operator.
        operator: &'static str,
        /// The parameter.
        parameter: &'static str,
        /// The value.
        value: f64,
        /// Its valid values.
        range: RangeInclusive<f64>,
    },
    /// [`Origin::make`] was given other parents than the origin names.
    WrongParent {
        /// The parent's index.
        index: usize,
        /// The id the origin names.
        expected: ChromosomeId,
        /// The id of the chromosome given.
        found: ChromosomeId,
    },
    /// A parent of another topology than the chromosome to make.
    ParentTopology {
        /// The parent's index.
        index: usize,
        /// Its topology.
        found: Topology,
    },
    /// A step whose generator state is all zeros: xoshiro's fixed point, which no generator
    /// reaches and from which it draws 0 forever (a Gaussian step would never end).
    ZeroState {
        /// The step's index.
        step: usize,
    },
    /// The alleles made are not a valid chromosome (the [`ChromosomeError`](crate::network::ChromosomeError)'s message).
    Made(String),
}

impl fmt::Display for OriginError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OriginError::StepCount(n) => write!(f, "{n} steps: an origin has 1 to {MAX_STEPS}"),
            OriginError::ParentCount { expected, found } => {
                write!(f, "{found} parents, but the first step takes {expected}")
            }
            OriginError::NotAMutation { step } => {
                write!(f, "step {step} is not a mutation (only the first may not be)")
            }
            OriginError::Parameter { step, operator, parameter, value, range } => {
                write!(
                    f,
                    "step {step}: {operator}'s {parameter} {value} is not in [{}, {}]",
                    range.start(),
                    range.end()
                )
            }
            OriginError::WrongParent { index, expected, found } => {
                write!(f, "parent {index} is {found}, not {expected}")
            }
            OriginError::ParentTopology { index, found } => write!(f, "parent {index} is a {found}"),
            OriginError::ZeroState { step } => {
                write!(f, "step {step}: the generator state is all zeros, which no generator reaches")
            }
            OriginError::Made(e) => write!(f, "the alleles made: {e}"),
        }
    }
}

impl std::error::Error for OriginError {}

impl Origin {
    /// An origin, checked: 1 to [`MAX_STEPS`] steps, as many parents as the first step takes,
    /// later steps mutations, every parameter in its operator's range and no generator state all
    /// zeros.
    pub fn new(parents: Vec<ChromosomeId>, steps: Vec<Step>) -> Result<Origin, OriginError> {
        let Some(first) = steps.first() else { return Err(OriginError::StepCount(0)) };
        if steps.len() > MAX_STEPS {
            return Err(OriginError::StepCount(steps.len()));
        }
        if parents.len() != first.variation.parents() {
            return Err(OriginError::ParentCount { expected: first.variation.parents(), found: parents.len() });
        }
        for (i, step) in steps.iter().enumerate() {
            if step.state == [0; 4] {
                return Err(OriginError::ZeroState { step: i });
            }
            if i > 0 && !step.variation.is_mutation() {
                return Err(OriginError::NotAMutation { step: i });
            }
            if let Some((parameter, value)) = step.variation.out_of_range() {
                let (operator, range) = (step.variation.name(), parameter.range.clone());
                return Err(OriginError::Parameter { step: i, operator, parameter: parameter.name, value, range });
            }
        }
        Ok(Origin { parents, steps })
    }

    /// The parents' ids, in the order the first step takes them.
    pub fn parents(&self) -> &[ChromosomeId] {
        &self.parents
    }

    /// The steps, in order.
    pub fn steps(&self) -> &[Step] {
        &self.steps
    }

    /// Makes the chromosome of `topology` again from `parents` (the chromosomes whose ids the
    /// origin names, in order). The result carries this origin.
    pub fn make(&self, topology: Topology, parents: &[&Chromosome]) -> Result<Chromosome, OriginError> {
        if parents.len() != self.parents.len() {
            return Err(OriginError::ParentCount { expected: self.parents.len(), found: parents.len() });
        }
        for (index, (parent, &expected)) in parents.iter().zip(&self.parents).enumerate() {
            if parent.topology() != topology {
                return Err(OriginError::ParentTopology { index, found: parent.topology() });
            }
            if parent.id() != expected {
                return Err(OriginError::WrongParent { index, expected, found: parent.id() });
            }
        }
        let length = topology.weight_count();
        let parents: Vec<&[f32]> = parents.iter().map(|p| p.weights()).collect();
        let mut alleles = Vec::new();
        for (i, step) in self.steps.iter().enumerate() {
            let mut rng = BreedingRng::from_state(step.state);
            alleles = if i == 0 {
                step.variation.apply(length, &parents, &mut rng)
            } else {
                step.variation.apply(length, &[&alleles], &mut rng)
            };
        }
        let made = Chromosome::new(topology, alleles).map_err(|e| OriginError::Made(e.to_string()))?;
        Ok(made.with_origin(std::sync::Arc::new(self.clone())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::breeding::OPERATORS;
    use crate::breeding::operators::{self, gaussian, uniform_reset};
    use crate::network::random_uniform;

    fn mutation() -> Variation {
        uniform_reset::variation(0.15)
    }

    fn named(name: &str) -> Variation {
        operators::variation(name, &[]).unwrap()
    }

    #[test]
    fn shapes_are_checked() {
        let step = |variation| Step { variation, state: [1, 2, 3, 4] };
        let id = random_uniform(1).id();
        assert_eq!(Origin::new(vec![], vec![]), Err(OriginError::StepCount(0)));
        let three = vec![step(mutation()); 3];
        assert_eq!(Origin::new(vec![id], three), Err(OriginError::StepCount(3)));
        assert_eq!(
            Origin::new(vec![id], vec![step(named("uniform"))]),
            Err(OriginError::ParentCount { expected: 2, found: 1 })
        );
        assert_eq!(
            Origin::new(vec![id], vec![step(mutation()), step(named("random"))]),
            Err(OriginError::NotAMutation { step: 1 })
        );
        for p in [-0.1, 1.5, f64::NAN] {
            let bad = Origin::new(vec![id], vec![step(uniform_reset::variation(p))]);
            assert!(
                matches!(bad, Err(OriginError::Parameter { step: 0, parameter: "probability", .. })),
                "{p}: {bad:?}"
            );
        }
        for s in [-1.0, f64::INFINITY, f64::NAN, 2.0e6] {
            let bad = Origin::new(vec![id], vec![step(gaussian::variation(s, 0.5))]);
            assert!(matches!(bad, Err(OriginError::Parameter { step: 0, parameter: "step", .. })), "{s}: {bad:?}");
        }
        let bad = Origin::new(vec![id], vec![step(gaussian::variation(2.0e6, 0.5))]).unwrap_err();
        assert_eq!(bad.to_string(), "step 0: gaussian's step 2000000 is not in [0, 1000000]");
        // xoshiro's all-zero state draws 0 forever: a Gaussian step from it would never end.
        let zero = Step { variation: gaussian::variation(0.3, 0.5), state: [0; 4] };
        assert_eq!(Origin::new(vec![id], vec![zero]), Err(OriginError::ZeroState { step: 0 }));
        assert!(Origin::new(vec![], vec![step(named("random"))]).is_ok());
        assert!(Origin::new(vec![id, id], vec![step(named("single-point")), step(mutation())]).is_ok());
    }

    #[test]
    fn make_refuses_other_parents() {
        let (a, b) = (random_uniform(1), random_uniform(2));
        let mut rng = BreedingRng::from_seed(5);
        let (_, step) = Step::take(mutation(), 2041, &[a.weights()], &mut rng);
        let origin = Origin::new(vec![a.id()], vec![step]).unwrap();
        assert_eq!(
            origin.make(Topology::default(), &[&b]),
            Err(OriginError::WrongParent { index: 0, expected: a.id(), found: b.id() })
        );
        assert_eq!(origin.make(Topology::default(), &[]), Err(OriginError::ParentCount { expected: 1, found: 0 }));
        assert!(origin.make(Topology::default(), &[&a]).is_ok());
    }

    #[test]
    fn every_operator_is_made_again_from_the_parents_bit_for_bit() {
        let (a, b) = (random_uniform(1), random_uniform(2));
        let mut rng = BreedingRng::from_seed(7);
        let length = Topology::default().weight_count();
        let taking = |n: usize| OPERATORS.iter().filter(move |o| o.parents == n).map(|o| o.example());
        let mutations: Vec<Variation> =
            [mutation(), gaussian::variation(0.3, 0.5)].into_iter().chain(taking(1)).collect();
        let mut cases: Vec<(Vec<&Chromosome>, Vec<Variation>)> = Vec::new();
        for first in taking(0) {
            cases.push((vec![], vec![first]));
            cases.extend(mutations.iter().map(|&m| (vec![], vec![first, m])));
        }
        for &m in &mutations {
            cases.push((vec![&a], vec![m]));
        }
        for crossing in taking(2) {
            cases.push((vec![&a, &b], vec![crossing]));
            cases.extend(mutations.iter().map(|&m| (vec![&b, &a], vec![crossing, m])));
        }
        for (parents, variations) in cases {
            // As the master breeds: one generator throughout, with other draws between the steps.
            let mut alleles = Vec::new();
            let mut steps = Vec::new();
            for (i, &variation) in variations.iter().enumerate() {
                rng.next_u64();
                let weights: Vec<&[f32]> =
                    if i == 0 { parents.iter().map(|p| p.weights()).collect() } else { vec![&alleles] };
                let (made, step) = Step::take(variation, length, &weights, &mut rng);
                alleles = made;
                steps.push(step);
            }
            let bred = Chromosome::new(Topology::default(), alleles).unwrap();
            let origin = Origin::new(parents.iter().map(|p| p.id()).collect(), steps).unwrap();
            let made = origin.make(Topology::default(), &parents).unwrap();
            assert_eq!(made, bred, "{variations:?}");
            assert_eq!(made.id(), bred.id());
            assert_eq!(made.origin(), Some(&origin));
            // Every case changes something: a made chromosome is not one of its parents.
            assert!(parents.iter().all(|p| p.id() != made.id()), "{variations:?}");
        }
    }
}
