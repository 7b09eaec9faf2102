//! Breeding (docs/spec.md §5): the initial population, children, and survivors bred into knockout groups.

use crate::config::ExperimentConfig;
use crate::population::{Individual, SerialCounter};
use crate::rng::GaRng;
use loa_engine::breeding::operators::random;
use loa_engine::breeding::{Origin, Step, Variation};
use loa_engine::network::{Chromosome, ChromosomeError, ChromosomeId, Topology};
use std::sync::Arc;

/// What breeding reads and draws from: the configuration, the generation being bred (the first
/// is 1), and the run's generator and serial counter.
pub struct Breeding<'a> {
    /// The run's configuration.
    pub config: &'a ExperimentConfig,
    /// The generation being bred.
    pub generation: u64,
    /// The run's generator.
    pub rng: &'a mut GaRng,
    /// The run's serial counter.
    pub serials: &'a mut SerialCounter,
}

/// A knockout group, `[survivor, mutant, mutant, child]` (members come from different parents
/// after the shuffle).
pub type Group = [Individual; 4];

/// An individual with the next serial and `weights`.
pub(crate) fn individual(
    serials: &mut SerialCounter,
    topology: Topology,
    weights: Vec<f32>,
) -> Result<Individual, ChromosomeError> {
    Ok(Individual { serial: serials.issue(), chromosome: Arc::new(Chromosome::new(topology, weights)?) })
}

/// An individual bred from `parents` by `steps`, which its chromosome remembers as its
/// [`Origin`], so a task can carry the origin instead of the weights. An origin the engine would
/// refuse (none does: the configuration's checks are stricter) is left out; the chromosome then
/// travels with its weights.
pub(crate) fn bred(
    serials: &mut SerialCounter,
    topology: Topology,
    weights: Vec<f32>,
    parents: Vec<ChromosomeId>,
    steps: Vec<Step>,
) -> Result<Individual, ChromosomeError> {
    let mut chromosome = Chromosome::new(topology, weights)?;
    if let Ok(origin) = Origin::new(parents, steps) {
        chromosome = chromosome.with_origin(Arc::new(origin));
    }
    Ok(Individual { serial: serials.issue(), chromosome: Arc::new(chromosome) })
}

/// A child of `first`, crossed with `second` by `crossing` if given, then mutated by the
/// variation `mutation` draws (after the crossing's draws); its origin records both steps.
pub(crate) fn child(
    first: &Chromosome,
    second: Option<&Chromosome>,
    crossing: Variation,
    mutation: impl FnOnce(&mut GaRng) -> Variation,
    rng: &mut GaRng,
    serials: &mut SerialCounter,
) -> Result<Individual, ChromosomeError> {
    let (topology, length) = (first.topology(), first.topology().weight_count());
    let (mut genes, mut parents, mut origin) = (first.weights().to_vec(), vec![first.id()], Vec::new());
    if let Some(second) = second {
        let (crossed, step) = Step::take(crossing, length, &[first.weights(), second.weights()], rng);
        (genes, origin) = (crossed, vec![step]);
        parents.push(second.id());
    }
    let (weights, step) = Step::take(mutation(rng), length, &[&genes], rng);
    origin.push(step);
    bred(serials, topology, weights, parents, origin)
}

/// The first generation: `config.population` chromosomes with uniform weights in [-1, 1).
pub fn initial_population(
    config: &ExperimentConfig,
    topology: Topology,
    rng: &mut GaRng,
    serials: &mut SerialCounter,
) -> Result<Vec<Individual>, ChromosomeError> {
    (0..config.population)
        .map(|_| {
            let (weights, step) = Step::take(random::variation(), topology.weight_count(), &[], rng);
            bred(serials, topology, weights, Vec::new(), vec![step])
        })
        .collect()
}

/// Breeds the survivors and shuffles everyone into groups. Creation order (which fixes serials):
/// for each survivor in turn, its two mutants, then its child with a partner chosen uniformly
/// among the other survivors. Then survivors, mutants and children are each shuffled, and group
/// `g` takes survivor `g`, mutants `2g` and `2g+1` and child `g`.
pub fn breed(survivors: &[Individual], b: &mut Breeding) -> Result<Vec<Group>, ChromosomeError> {
    let Breeding { config, generation, ref mut rng, ref mut serials } = *b;
    let p = survivors.len();
    let mut mutants = Vec::with_capacity(2 * p);
    let mut children = Vec::with_capacity(p);
    let (variation, crossing) = (config.mutation.operator.variation(generation), config.crossover.operator);
    for (i, s) in survivors.iter().enumerate() {
        let (topology, parent) = (s.chromosome.topology(), s.chromosome.weights());
        let length = topology.weight_count();
        for _ in 0..config.mutation.mutants_per_survivor {
            let (weights, step) = Step::take(variation, length, &[parent], rng);
            mutants.push(bred(serials, topology, weights, vec![s.chromosome.id()], vec![step])?);
        }
        let partner = {
            let j = rng.below(p - 1);
            &survivors[if j >= i { j + 1 } else { j }].chromosome
        };
        let (weights, step) = Step::take(crossing, length, &[parent, partner.weights()], rng);
        children.push(bred(serials, topology, weights, vec![s.chromosome.id(), partner.id()], vec![step])?);
    }
    let mut order: Vec<Individual> = survivors.to_vec();
    rng.shuffle(&mut order);
    rng.shuffle(&mut mutants);
    rng.shuffle(&mut children);
    Ok(order
        .into_iter()
        .zip(mutants.chunks_exact(2))
        .zip(children)
        .map(|((survivor, pair), child)| [survivor, pair[0].clone(), pair[1].clone(), child])
        .collect())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    fn population(config: &ExperimentConfig) -> (Vec<Individual>, GaRng, SerialCounter) {
        let (mut rng, mut serials) = (GaRng::from_seed(8), SerialCounter::default());
        let p = initial_population(config, Topology::default(), &mut rng, &mut serials).unwrap();
        (p, rng, serials)
    }

    #[test]
    fn each_group_is_one_survivor_two_mutants_and_one_child() {
        let config = ExperimentConfig { population: 6, ..ExperimentConfig::default() };
        let (survivors, mut rng, mut serials) = population(&config);
        assert_eq!(survivors.iter().map(|s| s.serial).collect::<Vec<_>>(), (0..6).collect::<Vec<_>>());
        let groups =
            breed(&survivors, &mut Breeding { config: &config, generation: 1, rng: &mut rng, serials: &mut serials })
                .unwrap();
        assert_eq!(groups.len(), 6);
        assert_eq!(serials.peek(), 6 + 18, "two mutants and one child per survivor");
        let mut seen_survivors: Vec<u64> = groups.iter().map(|g| g[0].serial).collect();
        seen_survivors.sort_unstable();
        assert_eq!(seen_survivors, (0..6).collect::<Vec<_>>(), "every survivor in exactly one group");
        let mut offspring: Vec<u64> = groups.iter().flat_map(|g| g[1..].iter().map(|m| m.serial)).collect();
        offspring.sort_unstable();
        assert_eq!(offspring, (6..24).collect::<Vec<_>>(), "every offspring in exactly one group");
        // Creation order: survivor i makes serials 6+3i, 6+3i+1 (mutants) and 6+3i+2 (child).
        let parent_of = |serial: u64| ((serial - 6) / 3) as usize;
        for g in &groups {
            for (k, m) in g[1..].iter().enumerate() {
                let parent = &survivors[parent_of(m.serial)];
                let same =
                    m.chromosome.weights().iter().zip(parent.chromosome.weights()).filter(|(a, b)| a == b).count();
                if k < 2 {
                    assert!((m.serial - 6) % 3 < 2, "slots 1 and 2 hold mutants");
                    assert!((1550..1910).contains(&same), "a mutant keeps about 85% of its parent: {same}");
                } else {
                    assert_eq!((m.serial - 6) % 3, 2, "slot 3 holds a child");
                    // A child starts with its parent's alleles up to the cut.
                    assert_eq!(m.chromosome.weights()[0], parent.chromosome.weights()[0]);
                }
            }
        }
    }

    /// Checks that every individual of `bred` that has an origin is made again from it, bit for
    /// bit, out of `pool` (its possible parents); returns how many had one.
    pub(crate) fn made_again(bred: &[&Individual], pool: &[Individual]) -> usize {
        let by_id: std::collections::HashMap<ChromosomeId, &Chromosome> =
            pool.iter().map(|i| (i.chromosome.id(), &*i.chromosome)).collect();
        let mut with_origin = 0;
        for i in bred {
            let Some(origin) = i.chromosome.origin() else { continue };
            let parents: Vec<&Chromosome> = origin.parents().iter().map(|id| by_id[id]).collect();
            let made = origin.make(i.chromosome.topology(), &parents).unwrap();
            assert_eq!(made, *i.chromosome, "serial {}", i.serial);
            assert_eq!(made.id(), i.chromosome.id());
            with_origin += 1;
        }
        with_origin
    }

    #[test]
    fn every_chromosome_bred_is_made_again_from_its_origin() {
        use crate::config::MutationOperator;
        use loa_engine::breeding::OPERATORS;
        use loa_engine::breeding::operators::uniform_reset;
        let taking = |n: usize| OPERATORS.iter().filter(move |o| o.parents == n).map(|o| o.example());
        let operators: Vec<MutationOperator> = [
            MutationOperator::Fixed(uniform_reset::variation(0.15)),
            MutationOperator::Gaussian { sigma: 0.1, decay: 0.9, probability: 0.15 },
            MutationOperator::SelfAdaptive { sigma: 0.05, tau: 0.2, probability: 0.15 },
        ]
        .into_iter()
        .chain(taking(1).map(MutationOperator::Fixed))
        .collect();
        for operator in operators {
            for crossing in taking(2) {
                let mut config = ExperimentConfig { population: 5, ..ExperimentConfig::default() };
                config.mutation.operator = operator;
                config.crossover.operator = crossing;
                let (survivors, mut rng, mut serials) = population(&config);
                let first: Vec<&Individual> = survivors.iter().collect();
                assert_eq!(made_again(&first, &[]), 5, "the first generation, from nothing");
                // Generation 3: the Gaussian step has shrunk twice, which the origin must carry.
                let groups = breed(
                    &survivors,
                    &mut Breeding { config: &config, generation: 3, rng: &mut rng, serials: &mut serials },
                )
                .unwrap();
                let offspring: Vec<&Individual> = groups.iter().flat_map(|g| &g[1..]).collect();
                assert_eq!(made_again(&offspring, &survivors), 15, "{operator:?}, {crossing:?}");
                for g in &groups {
                    let (mutant, child) = (g[1].chromosome.origin().unwrap(), g[3].chromosome.origin().unwrap());
                    assert_eq!((mutant.parents().len(), child.parents().len()), (1, 2));
                }
            }
        }
    }
}
