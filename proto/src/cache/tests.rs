use super::*;
use crate::convert::match_only::{task_from_proto, task_to_proto};
use crate::convert::{Sending, id_to_proto};
use crate::pb;
use loa_engine::Rules;
use loa_engine::network::random_uniform;
use loa_engine::tasks::{FixedPlayer, MatchEntrant, MatchFormat, MatchTask};

/// Task `id` on the wire, networks whose id `known` accepts by id alone, the others with weights.
fn task_to_proto_with(id: u64, task: &MatchTask, known: &mut dyn FnMut(ChromosomeId) -> bool) -> pb::Task {
    task_to_proto(id, task, &mut |c| if known(c.id()) { Sending::Id } else { Sending::Weights })
}

#[test]
fn lru_hits_misses_and_evicts_the_least_recent() {
    let mut lru: Lru<u32, &str> = Lru::new(2);
    assert_eq!(lru.insert(1, "a"), None);
    assert_eq!(lru.insert(2, "b"), None);
    assert_eq!(lru.get(&1), Some(&"a")); // 1 is now more recent than 2
    assert_eq!(lru.insert(3, "c"), Some(2));
    assert!(!lru.contains(&2));
    assert_eq!(lru.get(&2), None);
    assert_eq!(lru.get(&1), Some(&"a"));
    assert_eq!(lru.get(&3), Some(&"c"));
    assert_eq!(lru.insert(3, "C"), None); // replaces, makes 3 the most recent
    assert_eq!(lru.peek(&3), Some(&"C"));
    assert_eq!(lru.insert(4, "d"), Some(1));
    assert!(!lru.contains(&1) && lru.contains(&3) && lru.contains(&4));
    assert_eq!(lru.keys().copied().collect::<Vec<_>>(), [4, 3]);
    // A peek does not make a key more recent.
    assert_eq!(lru.peek(&3), Some(&"C"));
    assert_eq!(lru.insert(5, "e"), Some(3));
    assert_eq!(lru.keys().count(), 2);
    let mut none: Lru<u32, ()> = Lru::new(0);
    assert_eq!(none.insert(1, ()), None);
    assert!(none.keys().next().is_none() && none.touch(1) == (false, None) && !none.touch(1).0);
}

#[test]
fn an_lru_holds_the_last_distinct_keys_so_a_smaller_mirror_is_a_subset() {
    // The property the master's mirror rests on, over a pseudo-random sequence of touches.
    let mut big: Lru<u64, ()> = Lru::new(16);
    let mut small: Lru<u64, ()> = Lru::new(5);
    let mut seen = Vec::new();
    let mut rng = loa_engine::random::SplitMix64::new(3);
    for _ in 0..2000 {
        let key = rng.next_u64() % 40;
        big.touch(key);
        small.touch(key);
        seen.retain(|&k| k != key);
        seen.push(key);
        let last = |n: usize| seen.iter().rev().take(n).copied().collect::<Vec<_>>();
        assert!(last(16).iter().all(|k| big.contains(k)) && big.keys().count() == last(16).len());
        assert!(last(5).iter().all(|k| small.contains(k)) && small.keys().count() == last(5).len());
    }
}

fn knockout(seeds: [u64; 4]) -> MatchTask {
    MatchTask {
        entrants: seeds
            .iter()
            .enumerate()
            .map(|(i, &s)| MatchEntrant::Network { serial: i as u64, chromosome: Arc::new(random_uniform(s)) })
            .collect(),
        network_depth: 1,
        rules: Rules::default(),
        board: Default::default(),
        start: Default::default(),
        format: MatchFormat::Knockout { seed: 9 },
    }
}

/// Sends `tasks` to a worker with `cache` through a mirror of `mirror` capacity: (resolved reply,
/// wire bytes).
fn send(tasks: &[MatchTask], mirror: &mut Mirror, cache: &mut ChromosomeCache) -> (Vec<pb::Task>, Resolved) {
    let mut wire: Vec<pb::Task> =
        tasks.iter().enumerate().map(|(i, t)| task_to_proto_with(i as u64, t, &mut |id| mirror.touch(id).0)).collect();
    let resolved = resolve_entrants(&mut wire, cache);
    (wire, resolved)
}

#[test]
fn a_mirrored_cache_gets_ids_for_what_it_holds_and_plays_the_same_tasks() {
    let tasks = [knockout([1, 2, 3, 4]), knockout([1, 5, 6, 7]), knockout([7, 1, 8, 9])];
    let mut mirror = Mirror::new(4096);
    let mut cache = ChromosomeCache::new(4096);
    let (wire, resolved) = send(&tasks, &mut mirror, &mut cache);
    // 1 and 7 repeat: sent once with weights, then by id.
    assert_eq!((resolved.received, resolved.hits), (9, 3));
    assert!(resolved.missing.is_empty() && resolved.needing.is_empty());
    for (mut t, task) in wire.into_iter().zip(&tasks) {
        assert!(resolved.complete(&mut t));
        let (_, back) = task_from_proto(t, &|id| resolved.chromosome(id)).unwrap();
        assert_eq!(&back, task);
    }
    // A second lease: everything by id, and still the same tasks.
    let (wire, resolved) = send(&tasks, &mut mirror, &mut cache);
    assert_eq!((resolved.received, resolved.hits), (0, 12));
    let bytes: usize = wire.iter().map(prost::Message::encoded_len).sum();
    assert!(bytes < 1000, "{bytes} bytes for three id-only tasks");
    for (t, task) in wire.into_iter().zip(&tasks) {
        assert_eq!(&task_from_proto(t, &|id| resolved.chromosome(id)).unwrap().1, task);
    }
}

#[test]
fn a_tiny_cache_mirrored_exactly_never_misses() {
    // Capacity 1: only an entrant equal to the one just before travels by id.
    let tasks = [knockout([1, 2, 3, 4]), knockout([4, 5, 6, 7]), knockout([8, 8, 9, 9])];
    let mut mirror = Mirror::new(1);
    let mut cache = ChromosomeCache::new(1);
    let (wire, resolved) = send(&tasks, &mut mirror, &mut cache);
    assert_eq!((resolved.received, resolved.hits), (9, 3));
    assert!(resolved.missing.is_empty());
    for (t, task) in wire.into_iter().zip(&tasks) {
        assert_eq!(&task_from_proto(t, &|id| resolved.chromosome(id)).unwrap().1, task);
    }
}

#[test]
fn a_cache_that_lacks_an_id_fetches_it_and_plays_the_same_task() {
    let tasks = [knockout([1, 2, 3, 4]), knockout([1, 5, 6, 7])];
    let mut mirror = Mirror::new(4096);
    // The first reply never arrives (the mirror counts it as sent).
    let _ = send(&tasks[..1], &mut mirror, &mut ChromosomeCache::new(4096));
    let mut cache = ChromosomeCache::new(4096);
    let (mut wire, mut resolved) = send(&tasks[1..], &mut mirror, &mut cache);
    let one = random_uniform(1);
    assert_eq!(resolved.missing, vec![one.id()]);
    assert_eq!(resolved.needing, vec![0]);
    assert!(!resolved.complete(&mut wire[0]));
    // A master that no longer has the task (its outcome is in) sends nothing back: the task stays
    // incomplete, and the worker drops it rather than report a failure.
    assert_eq!(resolved.accept_fetched(Vec::new(), &mut cache), Ok(0));
    assert!(!resolved.complete(&mut wire[0]));
    // Converting without the chromosome names the problem.
    let err = task_from_proto(wire[0].clone(), &|id| resolved.chromosome(id)).unwrap_err();
    assert!(err.to_string().contains("neither sent nor known"), "{err}");
    // The master's answer.
    assert_eq!(resolved.accept_fetched(vec![crate::convert::chromosome_to_proto(&one)], &mut cache), Ok(1));
    assert!(resolved.complete(&mut wire[0]) && cache.contains(&one.id()));
    let (_, back) = task_from_proto(wire.remove(0), &|id| resolved.chromosome(id)).unwrap();
    assert_eq!(back, tasks[1]);
}

#[test]
fn fetched_chromosomes_must_be_asked_for_and_hash_to_their_id() {
    let mut cache = ChromosomeCache::new(8);
    let mut resolved = Resolved::default();
    resolved.missing = vec![random_uniform(1).id()];
    let other = crate::convert::chromosome_to_proto(&random_uniform(2));
    let err = resolved.accept_fetched(vec![other], &mut cache).unwrap_err();
    assert!(err.to_string().contains("was not asked for"), "{err}");
    let mut forged = crate::convert::chromosome_to_proto(&random_uniform(2));
    forged.id = Some(id_to_proto(random_uniform(1).id()));
    let err = resolved.accept_fetched(vec![forged], &mut cache).unwrap_err();
    assert!(err.to_string().contains("the weights hash to"), "{err}");
    assert!(cache.keys().next().is_none() && resolved.found.is_empty());
}

#[test]
fn weights_that_do_not_hash_to_their_id_are_refused_with_the_field() {
    let task = knockout([1, 2, 3, 4]);
    let mut wire = crate::convert::match_only::task_to_proto(3, &task, &mut |_| Sending::Weights);
    let Some(pb::match_entrant::Kind::Network(n)) = &mut wire.entrants[2].kind else { panic!("a network") };
    n.id = Some(id_to_proto(random_uniform(99).id()));
    let err = crate::convert::match_only::task_from_proto(wire.clone(), &|_| None).unwrap_err().to_string();
    assert!(err.starts_with("entrants[2].network.id:") && err.contains("the weights hash to"), "{err}");
    // The worker's resolution leaves it to the conversion, which says the same; nothing is cached.
    let mut cache = ChromosomeCache::new(8);
    let resolved = resolve_entrants(std::slice::from_mut(&mut wire), &mut cache);
    assert_eq!((resolved.received, cache.keys().count()), (3, 3));
    let err = task_from_proto(wire, &|id| resolved.chromosome(id)).unwrap_err().to_string();
    assert!(err.starts_with("entrants[2].network.id:") && err.contains("the weights hash to"), "{err}");
}

#[test]
fn fixed_players_carry_no_id() {
    let task = MatchTask {
        entrants: vec![
            MatchEntrant::Network { serial: 0, chromosome: Arc::new(random_uniform(1)) },
            MatchEntrant::Fixed {
                serial: 1,
                player: FixedPlayer::Aloa { evaluator: loa_engine::aloa::AloaKind::Quad, depth: 1 },
            },
        ],
        network_depth: 1,
        rules: Rules::default(),
        board: Default::default(),
        start: Default::default(),
        format: MatchFormat::Pairs(vec![loa_engine::tasks::Pairing { a: 0, b: 1, seed: 1, opening_plies: 0 }]),
    };
    let mut calls = 0;
    let _ = task_to_proto_with(1, &task, &mut |_| {
        calls += 1;
        false
    });
    assert_eq!(calls, 1);
}

#[test]
fn weights_travel_as_little_endian_bytes() {
    let task = knockout([1, 2, 3, 4]);
    let wire = task_to_proto_with(7, &task, &mut |_| false);
    assert_eq!(crate::convert::match_only::task_from_proto(wire.clone(), &|_| None).unwrap(), (7, task.clone()));
    let Some(pb::match_entrant::Kind::Network(e)) = &wire.entrants[0].kind else { panic!("a network") };
    let expected: Vec<u8> = random_uniform(1).weights().iter().flat_map(|w| w.to_le_bytes()).collect();
    assert_eq!(e.weights, expected);
}

#[test]
fn a_reply_beyond_its_bounds_is_resolved_only_within_them() {
    use crate::MAX_TASKS_PER_MESSAGE;
    use loa_engine::tasks::MAX_ENTRANTS;
    // Networks the worker lacks, named by id alone: each is looked for in lists kept in order,
    // which costs time quadratic in a crafted reply's size; beyond a reply's bounds (64 tasks,
    // MAX_ENTRANTS networks a task) they are left unresolved.
    let lacking = |seed: u64| pb::MatchEntrant {
        kind: Some(pb::match_entrant::Kind::Network(pb::Entrant {
            id: Some(id_to_proto(random_uniform(seed).id())),
            ..Default::default()
        })),
    };
    let (mut wire, _) = send(&[knockout([1, 2, 3, 4])], &mut Mirror::new(0), &mut ChromosomeCache::new(0));
    wire[0].entrants = (100..100 + MAX_ENTRANTS as u64 + 10).map(lacking).collect();
    let resolved = resolve_entrants(&mut wire, &mut ChromosomeCache::new(16));
    assert_eq!(resolved.missing.len(), MAX_ENTRANTS);
    // The oversized task still fails conversion, naming its entrants.
    let err = task_from_proto(wire.remove(0), &|id| resolved.chromosome(id)).unwrap_err();
    assert!(err.to_string().contains("entrants"), "{err}");

    let mut reply: Vec<pb::Task> = (0..MAX_TASKS_PER_MESSAGE as u64 + 5)
        .map(|i| {
            let (mut one, _) = send(&[knockout([1, 2, 3, 4])], &mut Mirror::new(0), &mut ChromosomeCache::new(0));
            one[0].entrants = vec![lacking(1000 + i)];
            one[0].id = i;
            one.remove(0)
        })
        .collect();
    let resolved = resolve_entrants(&mut reply, &mut ChromosomeCache::new(16));
    assert_eq!((resolved.missing.len(), resolved.needing.len()), (MAX_TASKS_PER_MESSAGE, MAX_TASKS_PER_MESSAGE));
}
