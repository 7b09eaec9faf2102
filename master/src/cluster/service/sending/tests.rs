//! How the master decides to send a network (`sending`): by id, by origin, from peers or with
//! its weights, and what that makes the worker hold.

use super::*;
use loa_engine::breeding::operators::{single_point, uniform_reset};
use loa_engine::breeding::{BreedingRng, Origin, Step};
use loa_engine::network::{Topology, random_uniform};
use loa_proto::convert::id_from_proto;
use std::sync::Arc;

fn mutant(parent: &Chromosome, seed: u64) -> Chromosome {
    let mut rng = BreedingRng::from_seed(seed);
    let variation = uniform_reset::variation(0.15);
    let (alleles, step) = Step::take(variation, Topology::default().weight_count(), &[parent.weights()], &mut rng);
    let origin = Origin::new(vec![parent.id()], vec![step]).unwrap();
    Chromosome::new(Topology::default(), alleles).unwrap().with_origin(Arc::new(origin))
}

/// The sources' (id, peer) pairs.
fn named(sending: &Sending) -> Vec<(ChromosomeId, String)> {
    let sources = match sending {
        Sending::Origin(s) | Sending::Sources(s) => s.clone(),
        Sending::Id | Sending::Weights => Vec::new(),
    };
    sources.into_iter().map(|s| (id_from_proto(&s.id.unwrap()), s.peer)).collect()
}

#[test]
fn a_network_goes_by_id_origin_peers_or_weights_in_that_order() {
    let (p, q) = (random_uniform(1), random_uniform(2));
    let (m, n) = (mutant(&p, 3), mutant(&q, 4));
    let plain = random_uniform(5);
    let mut directory = Directory::default();
    directory.serve(2, "peer-two:9".into());
    directory.serve(3, "peer-three:9".into());
    let mut mirror = Mirror::new(16);
    // Worker 1 holds p: m goes as its origin, alone.
    mirror.touch(p.id());
    assert_eq!(sending(&m, 1, &mut mirror, &mut directory), Sending::Origin(Vec::new()));
    // ... and the worker then holds m, most recent, after p.
    assert_eq!(mirror.keys().copied().collect::<Vec<_>>(), [m.id(), p.id()]);
    assert_eq!(sending(&m, 1, &mut mirror, &mut directory), Sending::Id);
    // n's parent q is held by worker 2 only (worker 1 is never its own source).
    directory.holds(q.id(), 2);
    directory.holds(q.id(), 1);
    let sent = sending(&n, 1, &mut mirror, &mut directory);
    assert!(matches!(sent, Sending::Origin(_)));
    assert_eq!(named(&sent), [(q.id(), "peer-two:9".to_owned())]);
    assert_eq!(mirror.keys().take(2).copied().collect::<Vec<_>>(), [n.id(), q.id()], "q will be fetched");
    // A network worker 3 holds goes from it by id, even with an origin: one fetch, not two.
    let mut other = Mirror::new(16);
    directory.holds(n.id(), 3);
    let sent = sending(&n, 4, &mut other, &mut directory);
    assert!(matches!(sent, Sending::Sources(_)));
    assert_eq!(named(&sent), [(n.id(), "peer-three:9".to_owned())]);
    // Nobody holds plain (and it has no origin): weights.
    assert_eq!(sending(&plain, 1, &mut mirror, &mut directory), Sending::Weights);
}

#[test]
fn a_parent_nobody_holds_means_weights() {
    let (p, q) = (random_uniform(1), random_uniform(2));
    let child = {
        let mut rng = BreedingRng::from_seed(9);
        let crossing = single_point::OPERATOR.example();
        let length = Topology::default().weight_count();
        let (alleles, step) = Step::take(crossing, length, &[p.weights(), q.weights()], &mut rng);
        let origin = Origin::new(vec![p.id(), q.id()], vec![step]).unwrap();
        Chromosome::new(Topology::default(), alleles).unwrap().with_origin(Arc::new(origin))
    };
    let mut directory = Directory::default();
    directory.serve(2, "two:1".into());
    directory.holds(p.id(), 2);
    let mut mirror = Mirror::new(16);
    assert_eq!(sending(&child, 1, &mut mirror, &mut directory), Sending::Weights);
    assert_eq!(mirror.keys().copied().collect::<Vec<_>>(), [child.id()], "only the network itself is held");
}

#[test]
fn evictions_leave_the_directory() {
    let networks: Vec<Chromosome> = (0..3).map(random_uniform).collect();
    let mut directory = Directory::default();
    directory.serve(1, "one:1".into());
    let mut mirror = Mirror::new(2);
    for c in &networks {
        sending(c, 1, &mut mirror, &mut directory);
    }
    // The mirror holds the last two; the first is no longer offered as held by worker 1.
    let mut out = Vec::new();
    assert!(!directory.sources(networks[0].id(), 9, &mut out));
    assert!(directory.sources(networks[2].id(), 9, &mut out));
}
