//! Resolving networks sent as their origins, without peers: made from parents at hand, checked
//! against their ids, lacking otherwise.

use super::*;
use crate::convert::match_only::{task_from_proto, task_to_proto};
use crate::convert::{Sending, source_to_proto};
use loa_engine::Rules;
use loa_engine::breeding::operators::uniform_reset;
use loa_engine::breeding::{self, BreedingRng, Step, Variation};
use loa_engine::network::random_uniform;
use loa_engine::tasks::{MatchEntrant, MatchFormat, MatchTask};

/// A chromosome bred from `parents` by `variation`, with its origin.
pub(crate) fn bred(variation: Variation, parents: &[&Chromosome], seed: u64) -> Arc<Chromosome> {
    let mut rng = BreedingRng::from_seed(seed);
    let weights: Vec<&[f32]> = parents.iter().map(|p| p.weights()).collect();
    let (alleles, step) = Step::take(variation, Topology::default().weight_count(), &weights, &mut rng);
    let origin = Origin::new(parents.iter().map(|p| p.id()).collect(), vec![step]).unwrap();
    Arc::new(Chromosome::new(Topology::default(), alleles).unwrap().with_origin(Arc::new(origin)))
}

pub(crate) fn mutant(parent: &Chromosome, seed: u64) -> Arc<Chromosome> {
    bred(uniform_reset::variation(0.15), &[parent], seed)
}

/// A knockout task of these networks.
pub(crate) fn knockout_of(networks: &[Arc<Chromosome>]) -> MatchTask {
    MatchTask {
        entrants: networks
            .iter()
            .enumerate()
            .map(|(i, c)| MatchEntrant::Network { serial: i as u64, chromosome: Arc::clone(c) })
            .collect(),
        network_depth: 1,
        rules: Rules::default(),
        board: Default::default(),
        start: Default::default(),
        format: MatchFormat::Knockout { seed: 3 },
    }
}

/// Task `task` on the wire, networks with an origin sent as it (with `sources`), the others by
/// id if `cache` holds them, else with weights.
pub(crate) fn wire(task: &MatchTask, cache: &ChromosomeCache, sources: &[pb::Source]) -> pb::Task {
    let mut decide = |c: &Chromosome| match c.origin() {
        Some(_) if !cache.contains(&c.id()) => Sending::Origin(sources.to_vec()),
        _ if cache.contains(&c.id()) => Sending::Id,
        _ => Sending::Weights,
    };
    task_to_proto(7, task, &mut decide)
}

#[test]
fn networks_are_made_from_parents_at_hand_and_play_the_same_task() {
    let (p, q) = (Arc::new(random_uniform(1)), Arc::new(random_uniform(2)));
    let child = bred(breeding::variation("single-point", &[]).unwrap(), &[&p, &q], 4);
    let task = knockout_of(&[Arc::clone(&p), mutant(&p, 5), mutant(&q, 6), child]);
    let mut cache = ChromosomeCache::new(16);
    cache.insert(p.id(), Arc::clone(&p));
    cache.insert(q.id(), Arc::clone(&q));
    let mut tasks = vec![wire(&task, &cache, &[])];
    let bytes = prost::Message::encoded_len(&tasks[0]);
    assert!(bytes < 1000, "three networks as origins and one id: {bytes} bytes");
    let resolved = resolve_entrants(&mut tasks, &mut cache);
    assert_eq!((resolved.hits, resolved.made, resolved.received, resolved.unusable), (1, 3, 0, 0));
    assert!(resolved.missing.is_empty() && resolved.waiting.is_empty());
    assert_eq!(cache.keys().count(), 5, "the made networks are cached");
    let (_, back) = task_from_proto(tasks.remove(0), &|id| resolved.chromosome(id)).unwrap();
    assert_eq!(back, task);
}

#[test]
fn an_origin_that_makes_another_network_is_not_used() {
    let p = Arc::new(random_uniform(1));
    let task = knockout_of(&[mutant(&p, 5), mutant(&p, 6), mutant(&p, 7), mutant(&p, 8)]);
    let mut cache = ChromosomeCache::new(16);
    cache.insert(p.id(), Arc::clone(&p));
    let mut tasks = vec![wire(&task, &cache, &[])];
    // A wrong generator state in the first network's origin: it makes some other mutant.
    let Some(pb::match_entrant::Kind::Network(n)) = &mut tasks[0].entrants[0].kind else { unreachable!() };
    n.origin.as_mut().unwrap().steps[0].state[0] ^= 1;
    let forged = n.id.map(|id| crate::convert::id_from_proto(&id)).unwrap();
    let resolved = resolve_entrants(&mut tasks, &mut cache);
    assert_eq!((resolved.made, resolved.unusable), (3, 1));
    assert_eq!((resolved.missing.clone(), resolved.needing.clone()), (vec![forged], vec![7]));
    assert!(!cache.contains(&forged), "nothing is cached under an id it does not hash to");
}

#[test]
fn malformed_origins_and_sources_are_not_used() {
    let p = Arc::new(random_uniform(1));
    let task = knockout_of(&[mutant(&p, 5), mutant(&p, 6), mutant(&p, 7), Arc::clone(&p)]);
    let mut cache = ChromosomeCache::new(16);
    cache.insert(p.id(), Arc::clone(&p));
    let bad_source = source_to_proto(p.id(), "not a peer");
    let mut tasks = vec![wire(&task, &cache, &[bad_source])];
    let Some(pb::match_entrant::Kind::Network(n)) = &mut tasks[0].entrants[1].kind else { unreachable!() };
    n.origin.as_mut().unwrap().steps.clear();
    let resolved = resolve_entrants(&mut tasks, &mut cache);
    // Each of the three origins came with the malformed source; the second had no step either.
    // The sources are ignored (the parent is held anyway), the stepless origin is not used.
    assert_eq!((resolved.made, resolved.unusable, resolved.hits), (2, 4, 1));
    assert_eq!(resolved.missing.len(), 1);
}

#[test]
fn a_network_whose_parent_is_nowhere_is_left_to_the_master() {
    let (p, q) = (Arc::new(random_uniform(1)), Arc::new(random_uniform(2)));
    let task = knockout_of(&[Arc::clone(&q), mutant(&p, 5), mutant(&q, 6), mutant(&q, 7)]);
    let mut cache = ChromosomeCache::new(16);
    cache.insert(q.id(), Arc::clone(&q));
    let mut tasks = vec![wire(&task, &cache, &[])];
    let resolved = resolve_entrants(&mut tasks, &mut cache);
    let lacking = task.chromosomes().nth(1).unwrap().id();
    assert_eq!((resolved.made, resolved.hits), (2, 1));
    assert_eq!((resolved.missing.clone(), resolved.needing.clone()), (vec![lacking], vec![7]));
    assert!(resolved.waiting.is_empty());
}
