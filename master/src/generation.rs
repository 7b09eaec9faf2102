//! Breeding (SPEC §5): the initial population, and survivors bred into knockout groups.

use crate::config::ExperimentConfig;
use crate::operators::{crossover, mutate};
use crate::population::{Individual, SerialCounter};
use crate::rng::GaRng;
use loa_engine::network::{Chromosome, ChromosomeError, Topology};
use std::sync::Arc;

/// A knockout group: one survivor, two of the population's mutants and one child, in that
/// order (members come from different parents after the shuffle).
#[derive(Clone, Debug, PartialEq)]
pub struct Group {
    /// `[survivor, mutant, mutant, child]`.
    pub members: [Individual; 4],
}

pub(crate) fn individual(
    serials: &mut SerialCounter,
    topology: Topology,
    weights: Vec<f32>,
) -> Result<Individual, ChromosomeError> {
    Ok(Individual { serial: serials.issue(), chromosome: Arc::new(Chromosome::new(topology, weights)?) })
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
            let weights = (0..topology.weight_count()).map(|_| rng.weight()).collect();
            individual(serials, topology, weights)
        })
        .collect()
}

/// The first generation of a run that starts from a given network (evolution strategies'
/// `initial_network`): that network alone, as the first centre. Nothing is drawn from the
/// generator, so the rest of the run is a function of the seed and the network.
pub fn given_population(
    config: &ExperimentConfig,
    topology: Topology,
    serials: &mut SerialCounter,
) -> Result<Option<Vec<Individual>>, crate::config::ConfigError> {
    let Some(path) = config.initial_network() else { return Ok(None) };
    let invalid = |why: String| crate::config::ConfigError::Invalid {
        key: "selection.scheme.evolution-strategies.initial_network".into(),
        why,
    };
    // Reading validates the file's topology and weight count.
    let chromosome = Chromosome::read(path).map_err(|e| invalid(e.to_string()))?;
    let first = individual(serials, topology, chromosome.weights().to_vec()).map_err(|e| invalid(e.to_string()))?;
    Ok(Some(vec![first]))
}

/// Breeds the survivors and shuffles everyone into groups.
///
/// Creation order (which fixes serials): for each survivor in turn, its two mutants, then its
/// child with a partner chosen uniformly among the other survivors. Then survivors, mutants and
/// children are each shuffled, and group `g` takes survivor `g`, mutants `2g` and `2g+1` and
/// child `g`.
pub fn breed(
    survivors: &[Individual],
    config: &ExperimentConfig,
    generation: u64,
    rng: &mut GaRng,
    serials: &mut SerialCounter,
) -> Result<Vec<Group>, ChromosomeError> {
    let p = survivors.len();
    let mut mutants = Vec::with_capacity(2 * p);
    let mut children = Vec::with_capacity(p);
    for (i, s) in survivors.iter().enumerate() {
        let topology = s.chromosome.topology();
        for _ in 0..config.mutation.mutants_per_survivor {
            let weights = mutate(&config.mutation, s.chromosome.weights(), generation, rng);
            mutants.push(individual(serials, topology, weights)?);
        }
        let partner = {
            let j = rng.below(p - 1);
            if j >= i { j + 1 } else { j }
        };
        let weights =
            crossover(config.crossover.operator, s.chromosome.weights(), survivors[partner].chromosome.weights(), rng);
        children.push(individual(serials, topology, weights)?);
    }
    let mut order: Vec<Individual> = survivors.to_vec();
    rng.shuffle(&mut order);
    rng.shuffle(&mut mutants);
    rng.shuffle(&mut children);
    Ok(order
        .into_iter()
        .zip(mutants.chunks_exact(2))
        .zip(children)
        .map(|((survivor, pair), child)| Group { members: [survivor, pair[0].clone(), pair[1].clone(), child] })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn population(config: &ExperimentConfig) -> (Vec<Individual>, GaRng, SerialCounter) {
        let (mut rng, mut serials) = (GaRng::from_seed(8), SerialCounter::new());
        let p = initial_population(config, Topology::default(), &mut rng, &mut serials).unwrap();
        (p, rng, serials)
    }

    #[test]
    fn each_group_is_one_survivor_two_mutants_and_one_child() {
        let config = ExperimentConfig { population: 6, ..ExperimentConfig::default() };
        let (survivors, mut rng, mut serials) = population(&config);
        assert_eq!(survivors.iter().map(|s| s.serial).collect::<Vec<_>>(), (0..6).collect::<Vec<_>>());
        let groups = breed(&survivors, &config, 1, &mut rng, &mut serials).unwrap();
        assert_eq!(groups.len(), 6);
        assert_eq!(serials.peek(), 6 + 18, "two mutants and one child per survivor");
        let mut seen_survivors: Vec<u64> = groups.iter().map(|g| g.members[0].serial).collect();
        seen_survivors.sort_unstable();
        assert_eq!(seen_survivors, (0..6).collect::<Vec<_>>(), "every survivor in exactly one group");
        let mut offspring: Vec<u64> = groups.iter().flat_map(|g| g.members[1..].iter().map(|m| m.serial)).collect();
        offspring.sort_unstable();
        assert_eq!(offspring, (6..24).collect::<Vec<_>>(), "every offspring in exactly one group");
        // Creation order: survivor i makes serials 6+3i, 6+3i+1 (mutants) and 6+3i+2 (child).
        let parent_of = |serial: u64| ((serial - 6) / 3) as usize;
        for g in &groups {
            for (k, m) in g.members[1..].iter().enumerate() {
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
}
