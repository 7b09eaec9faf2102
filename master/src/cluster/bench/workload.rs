//! The benchmark's workload: real tournaments to time, and tasks that reuse networks as a
//! [`Reuse`] pattern says.

use super::Reuse;
use loa_engine::Rules;
use loa_engine::aloa::AloaKind;
use loa_engine::breeding::{BreedingRng, Crossover, Origin, Step, Variation};
use loa_engine::network::{Chromosome, Topology, random_uniform};
use loa_engine::random::derive_seed;
use loa_engine::tasks::{FixedPlayer, MatchEntrant, MatchFormat, MatchTask, Pairing, Task, TaskOutcome};
use std::sync::Arc;
use std::time::Instant;

/// A knockout of four random networks, as a generation's task is.
pub(super) fn tournament(seed: u64, depth: u32) -> Task {
    let entrants = (0..4)
        .map(|i| MatchEntrant::Network { serial: i, chromosome: Arc::new(random_uniform(seed * 4 + i)) })
        .collect();
    Task::Match(MatchTask {
        entrants,
        network_depth: depth,
        rules: Rules::default(),
        format: MatchFormat::Knockout { seed },
    })
}

/// Times `samples` real tournaments at `depth` on this thread.
pub(super) fn time_tournaments(samples: u32, depth: u32) -> Result<(f64, TaskOutcome), String> {
    let begun = Instant::now();
    let mut last = None;
    for s in 0..samples.max(1) {
        last = Some(tournament(u64::from(s), depth).run().map_err(|e| e.to_string())?);
    }
    let outcome = last.ok_or("no tournament played")?;
    Ok((begun.elapsed().as_secs_f64() / f64::from(samples.max(1)), outcome))
}

/// The tasks of the benchmark, by `reuse` (see [`Reuse`]), in the steps the master hands them
/// out in, each after the one before is done, as a run does: `steps` equal steps (the last
/// takes the remainder), or, for the thesis's run, a generation (or a benchmark) at a time (its
/// networks are bred from the one before).
pub(super) fn tasks_for(
    reuse: Reuse,
    count: usize,
    depth: u32,
    population: usize,
    steps: usize,
) -> Result<Vec<Vec<Task>>, String> {
    if steps == 0 || steps > count {
        return Err(format!("--steps must be in 1..={count} (the tasks)"));
    }
    if steps > 1 && reuse == Reuse::Knockout {
        return Err("--steps: the knockout workload's steps are its generations".into());
    }
    // Step k's task count: the steps equal, the last with the remainder.
    let step_size = |k: usize| if k + 1 == steps { count - count / steps * k } else { count / steps };
    let knockout = |entrants: Vec<(u64, Arc<Chromosome>)>, seed: u64| {
        Task::Match(MatchTask {
            entrants: entrants
                .into_iter()
                .map(|(serial, chromosome)| MatchEntrant::Network { serial, chromosome })
                .collect(),
            network_depth: depth,
            rules: Rules::default(),
            format: MatchFormat::Knockout { seed },
        })
    };
    let mut next_serial = 0u64;
    let mut serial = || {
        next_serial += 1;
        next_serial
    };
    match reuse {
        Reuse::Repeat => {
            let task = tournament(0, depth);
            Ok((0..steps).map(|k| vec![task.clone(); step_size(k)]).collect())
        }
        Reuse::Fresh => {
            let mut next_seed = 0u64;
            let mut fresh = |_| {
                let networks: Vec<_> = (0..4)
                    .map(|_| {
                        let s = serial();
                        (s, Arc::new(random_uniform(derive_seed(0xBE, s))))
                    })
                    .collect();
                next_seed += 1;
                knockout(networks, next_seed - 1)
            };
            Ok((0..steps).map(|k| (0..step_size(k)).map(&mut fresh).collect()).collect())
        }
        Reuse::Knockout => {
            if population < 2 {
                return Err("--population must be at least 2".into());
            }
            const GENERATIONS_PER_EPOCH: usize = 10;
            // Bred as the master breeds (the thesis's operators), so the new networks carry their
            // origins: two mutants of survivors and a child of two, each of the generation before.
            let mut rng = BreedingRng::from_seed(0xBE);
            let length = Topology::default().weight_count();
            let mutation = Variation::UniformReset { probability: 0.15 };
            let crossing = Variation::Crossover(Crossover::SinglePoint);
            let mut survivors: Vec<(u64, Arc<Chromosome>)> =
                (0..population).map(|_| (serial(), Arc::new(random_uniform(rng.next_u64())))).collect();
            let mut steps: Vec<Vec<Task>> = Vec::new();
            let mut left = count;
            let mut generation = 0u64;
            while left > 0 {
                let bred = |variation: Variation, parents: &[&Arc<Chromosome>], rng: &mut BreedingRng| {
                    let weights: Vec<&[f32]> = parents.iter().map(|p| p.weights()).collect();
                    let (alleles, step) = Step::take(variation, length, &weights, rng);
                    let ids = parents.iter().map(|p| p.id()).collect();
                    let origin = Origin::new(ids, vec![step]).map_err(|e| e.to_string())?;
                    let chromosome = Chromosome::new(Topology::default(), alleles).map_err(|e| e.to_string())?;
                    Ok::<_, String>(Arc::new(chromosome.with_origin(Arc::new(origin))))
                };
                // SPEC §5: each survivor makes two mutants and a child with another survivor; the
                // mutants and children are shuffled into the groups, one survivor each.
                let (mut mutants, mut children) = (Vec::new(), Vec::new());
                for (i, (_, s)) in survivors.iter().enumerate() {
                    for _ in 0..2 {
                        mutants.push(bred(mutation, &[s], &mut rng)?);
                    }
                    let partner = &survivors[(i + 1 + rng.below(population - 1)) % population].1;
                    children.push(bred(crossing, &[s, partner], &mut rng)?);
                }
                rng.shuffle(&mut survivors);
                rng.shuffle(&mut mutants);
                rng.shuffle(&mut children);
                // Each group's winner survives (which entrant wins is arbitrary here: the stubs do
                // not play). Serials in entrant order, the survivor's the oldest, so the bracket is
                // 0 v 1 and 2 v 3, as the stubs' outcome says.
                let groups: Vec<Vec<(u64, Arc<Chromosome>)>> = (0..population)
                    .map(|g| {
                        let new = [&mutants[2 * g], &mutants[2 * g + 1], &children[g]];
                        let mut members = vec![survivors[g].clone()];
                        members.extend(new.map(|c| (serial(), Arc::clone(c))));
                        members
                    })
                    .collect();
                let mut step: Vec<Task> = groups
                    .iter()
                    .enumerate()
                    .map(|(g, members)| knockout(members.clone(), derive_seed(generation, g as u64)))
                    .collect();
                step.truncate(left);
                left -= step.len();
                steps.push(step);
                survivors = groups
                    .iter()
                    .enumerate()
                    .map(|(g, m)| m[derive_seed(generation ^ 0x5, g as u64) as usize % 4].clone())
                    .collect();
                generation += 1;
                if generation.is_multiple_of(GENERATIONS_PER_EPOCH as u64) {
                    let aloa = FixedPlayer::Aloa { evaluator: AloaKind::Quad, depth: 5 };
                    let mut step: Vec<Task> = survivors
                        .iter()
                        .enumerate()
                        .map(|(i, (serial, chromosome))| {
                            Task::Match(MatchTask {
                                entrants: vec![
                                    MatchEntrant::Network { serial: *serial, chromosome: Arc::clone(chromosome) },
                                    MatchEntrant::Fixed { serial: u64::MAX, player: aloa },
                                ],
                                network_depth: depth,
                                rules: Rules::default(),
                                format: MatchFormat::Pairs(vec![Pairing {
                                    a: 0,
                                    b: 1,
                                    seed: i as u64,
                                    opening_plies: 0,
                                }]),
                            })
                        })
                        .collect();
                    step.truncate(left);
                    left -= step.len();
                    steps.push(step);
                }
            }
            Ok(steps)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sizes(steps: &[Vec<Task>]) -> Vec<usize> {
        steps.iter().map(Vec::len).collect()
    }

    #[test]
    fn steps_split_the_tasks_evenly_with_the_remainder_last() {
        for reuse in [Reuse::Repeat, Reuse::Fresh] {
            assert_eq!(sizes(&tasks_for(reuse, 61, 1, 62, 3).unwrap()), [20, 20, 21]);
            assert_eq!(sizes(&tasks_for(reuse, 5, 1, 62, 5).unwrap()), [1; 5]);
            assert_eq!(sizes(&tasks_for(reuse, 7, 1, 62, 1).unwrap()), [7]);
            assert!(tasks_for(reuse, 5, 1, 62, 6).is_err());
            assert!(tasks_for(reuse, 5, 1, 62, 0).is_err());
        }
        assert!(tasks_for(Reuse::Knockout, 62, 1, 62, 2).is_err());
    }

    #[test]
    fn fresh_networks_stay_fresh_across_steps() {
        let steps = tasks_for(Reuse::Fresh, 9, 1, 62, 3).unwrap();
        let mut ids = std::collections::HashSet::new();
        let mut seeds = std::collections::HashSet::new();
        for task in steps.iter().flatten() {
            let Task::Match(m) = task else { panic!("a knockout task") };
            let MatchFormat::Knockout { seed } = m.format else { panic!("a knockout") };
            assert!(seeds.insert(seed), "seed {seed} twice");
            for e in &m.entrants {
                let MatchEntrant::Network { chromosome, .. } = e else { panic!("a network") };
                assert!(ids.insert(chromosome.id()), "a network twice");
            }
        }
        assert_eq!((ids.len(), seeds.len()), (36, 9));
    }
}
