//! The benchmark's workload: real tournaments to time, and tasks that reuse networks as a
//! [`Reuse`] pattern says, in the steps a run hands them out in.

use crate::BenchError;
use loa_engine::Rules;
use loa_engine::aloa::AloaKind;
use loa_engine::breeding::operators::{single_point, uniform_reset};
use loa_engine::breeding::{BreedingRng, Origin, Step, Variation};
use loa_engine::network::{Chromosome, Topology, random_uniform};
use loa_engine::random::derive_seed;
use loa_engine::tasks::{FixedPlayer, MatchEntrant, MatchFormat, MatchTask, MatchTaskOutcome, Pairing};
use std::sync::Arc;
use std::time::Instant;

/// How the benchmark's tasks reuse networks, which decides what a chromosome cache can save.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Reuse {
    /// Every task a knockout of four networks never seen before and without an origin (as from
    /// files or evolution strategies): the cache's worst case.
    Fresh,
    /// The thesis's run (population 62 unless `--population` says otherwise, 10 generations an
    /// epoch): each generation one knockout a survivor, of that survivor of the generation before
    /// and three new networks bred from the survivors (two mutants and a child, with their
    /// origins), and after every tenth generation one benchmark task a survivor against ALoA. A
    /// stub can only hold a network if it played or fetched it before, so with many workers a
    /// cache alone saves little: new networks go as their origins, and their parents come from
    /// the stubs that hold them (`--peers`).
    Knockout,
    /// The same four networks in every task, as in a match experiment of fixed networks: the
    /// cache's best case.
    Repeat,
}

impl Reuse {
    /// The name `--reuse` takes.
    pub fn name(self) -> &'static str {
        match self {
            Reuse::Fresh => "fresh",
            Reuse::Knockout => "knockout",
            Reuse::Repeat => "repeat",
        }
    }
}

/// Generations of the knockout workload between two benchmark steps (the thesis's epoch).
const GENERATIONS_PER_EPOCH: u64 = 10;

/// A knockout of four random networks (serials 0 to 3), as a generation's task is.
pub fn tournament(seed: u64, depth: u32) -> MatchTask {
    let entrants = (0..4)
        .map(|i| MatchEntrant::Network { serial: i, chromosome: Arc::new(random_uniform(seed * 4 + i)) })
        .collect();
    MatchTask {
        entrants,
        network_depth: depth,
        rules: Rules::default(),
        board: Default::default(),
        start: Default::default(),
        format: MatchFormat::Knockout { seed },
    }
}

/// Times `samples` (at least one) real tournaments at `depth` on this thread: the mean time of
/// one, and the last one's outcome.
pub fn time_tournaments(samples: u32, depth: u32) -> Result<(f64, MatchTaskOutcome), BenchError> {
    let begun = Instant::now();
    let mut last = None;
    for s in 0..samples.max(1) {
        last = Some(tournament(u64::from(s), depth).run().map_err(|e| BenchError::Engine(e.to_string()))?);
    }
    let outcome = last.ok_or_else(|| BenchError::Engine("no tournament played".into()))?;
    Ok((begun.elapsed().as_secs_f64() / f64::from(samples.max(1)), outcome))
}

/// The tasks of the benchmark, by `reuse` (see [`Reuse`]), in the steps the master hands them
/// out in, each after the one before is done, as a run does: `steps` equal steps (the last
/// takes the remainder), or, for the thesis's run, a generation (or a benchmark) at a time (its
/// networks are bred from the one before). Entrants are in the order of their serials, so the
/// stubs' one knockout outcome (0 v 1, 2 v 3, then the winners) fits every knockout task.
pub fn tasks_for(
    reuse: Reuse,
    count: usize,
    depth: u32,
    population: usize,
    steps: usize,
) -> Result<Vec<Vec<MatchTask>>, BenchError> {
    if steps == 0 || steps > count {
        return Err(BenchError::flag("--steps", format!("must be in 1..={count} (the tasks)")));
    }
    if steps > 1 && reuse == Reuse::Knockout {
        return Err(BenchError::flag("--steps", "the knockout workload's steps are its generations"));
    }
    // Step k's task count: the steps equal, the last with the remainder.
    let step_size = |k: usize| if k + 1 == steps { count - count / steps * k } else { count / steps };
    match reuse {
        Reuse::Repeat => {
            let task = tournament(0, depth);
            Ok((0..steps).map(|k| vec![task.clone(); step_size(k)]).collect())
        }
        Reuse::Fresh => {
            let mut serials = Serials::default();
            let mut seed = 0u64;
            let mut fresh = || {
                let networks = (0..4)
                    .map(|_| {
                        let s = serials.next();
                        (s, Arc::new(random_uniform(derive_seed(0xBE, s))))
                    })
                    .collect();
                seed += 1;
                knockout(networks, seed - 1, depth)
            };
            Ok((0..steps).map(|k| (0..step_size(k)).map(|_| fresh()).collect()).collect())
        }
        Reuse::Knockout => Generations::new(population, depth)?.tasks(count),
    }
}

/// Birth serials, from 1 up.
#[derive(Default)]
struct Serials(u64);

impl Serials {
    fn next(&mut self) -> u64 {
        self.0 += 1;
        self.0
    }
}

/// A knockout of `entrants` (serial and chromosome, in the order of their serials).
fn knockout(entrants: Vec<(u64, Arc<Chromosome>)>, seed: u64, depth: u32) -> MatchTask {
    MatchTask {
        entrants: entrants
            .into_iter()
            .map(|(serial, chromosome)| MatchEntrant::Network { serial, chromosome })
            .collect(),
        network_depth: depth,
        rules: Rules::default(),
        board: Default::default(),
        start: Default::default(),
        format: MatchFormat::Knockout { seed },
    }
}

/// The thesis's run, generation by generation ([`Reuse::Knockout`]).
struct Generations {
    population: usize,
    depth: u32,
    rng: BreedingRng,
    serials: Serials,
    survivors: Vec<(u64, Arc<Chromosome>)>,
}

impl Generations {
    fn new(population: usize, depth: u32) -> Result<Generations, BenchError> {
        if population < 2 {
            return Err(BenchError::flag("--population", "must be at least 2"));
        }
        let mut rng = BreedingRng::from_seed(0xBE);
        let mut serials = Serials::default();
        let survivors = (0..population).map(|_| (serials.next(), Arc::new(random_uniform(rng.next_u64())))).collect();
        Ok(Generations { population, depth, rng, serials, survivors })
    }

    /// The first `count` tasks, in steps: a generation each, and a benchmark after every
    /// [`GENERATIONS_PER_EPOCH`].
    fn tasks(mut self, count: usize) -> Result<Vec<Vec<MatchTask>>, BenchError> {
        let mut steps = Vec::new();
        let mut left = count;
        let mut generation = 0u64;
        while left > 0 {
            let mut step = self.generation(generation)?;
            step.truncate(left);
            left -= step.len();
            steps.push(step);
            generation += 1;
            if generation.is_multiple_of(GENERATIONS_PER_EPOCH) && left > 0 {
                let mut step = self.benchmark();
                step.truncate(left);
                left -= step.len();
                steps.push(step);
            }
        }
        Ok(steps)
    }

    /// A network bred from `parents` as the master breeds (the thesis's operators), so it
    /// carries its origin.
    fn bred(&mut self, variation: Variation, parents: &[&Arc<Chromosome>]) -> Result<Arc<Chromosome>, BenchError> {
        let engine = |e: &dyn std::fmt::Display| BenchError::Engine(e.to_string());
        let length = Topology::default().weight_count();
        let weights: Vec<&[f32]> = parents.iter().map(|p| p.weights()).collect();
        let (alleles, step) = Step::take(variation, length, &weights, &mut self.rng);
        let origin = Origin::new(parents.iter().map(|p| p.id()).collect(), vec![step]).map_err(|e| engine(&e))?;
        let chromosome = Chromosome::new(Topology::default(), alleles).map_err(|e| engine(&e))?;
        Ok(Arc::new(chromosome.with_origin(Arc::new(origin))))
    }

    /// Generation `generation`'s knockouts, one a survivor; the survivors become the groups'
    /// winners.
    fn generation(&mut self, generation: u64) -> Result<Vec<MatchTask>, BenchError> {
        let population = self.population;
        let mutation = uniform_reset::variation(0.15);
        let crossing = single_point::OPERATOR.example();
        // docs/spec.md §5: each survivor makes two mutants and a child with another survivor; the
        // mutants and children are shuffled into the groups, one survivor each.
        let (mut mutants, mut children) = (Vec::new(), Vec::new());
        let survivors = self.survivors.clone();
        for (i, (_, s)) in survivors.iter().enumerate() {
            for _ in 0..2 {
                mutants.push(self.bred(mutation, &[s])?);
            }
            let partner = &survivors[(i + 1 + self.rng.below(population - 1)) % population].1;
            children.push(self.bred(crossing, &[s, partner])?);
        }
        self.rng.shuffle(&mut self.survivors);
        self.rng.shuffle(&mut mutants);
        self.rng.shuffle(&mut children);
        // Which entrant wins is arbitrary here (the stubs do not play). Serials in entrant
        // order, the survivor's the oldest.
        let groups: Vec<Vec<(u64, Arc<Chromosome>)>> = (0..population)
            .map(|g| {
                let new = [&mutants[2 * g], &mutants[2 * g + 1], &children[g]];
                let mut members = vec![self.survivors[g].clone()];
                members.extend(new.map(|c| (self.serials.next(), Arc::clone(c))));
                members
            })
            .collect();
        let tasks = groups
            .iter()
            .enumerate()
            .map(|(g, members)| knockout(members.clone(), derive_seed(generation, g as u64), self.depth))
            .collect();
        self.survivors = groups
            .iter()
            .enumerate()
            .map(|(g, m)| m[derive_seed(generation ^ 0x5, g as u64) as usize % 4].clone())
            .collect();
        Ok(tasks)
    }

    /// The benchmark: each survivor against ALoA, one match.
    fn benchmark(&self) -> Vec<MatchTask> {
        let aloa = FixedPlayer::Aloa { evaluator: AloaKind::Quad, depth: 5 };
        self.survivors
            .iter()
            .enumerate()
            .map(|(i, (serial, chromosome))| MatchTask {
                entrants: vec![
                    MatchEntrant::Network { serial: *serial, chromosome: Arc::clone(chromosome) },
                    MatchEntrant::Fixed { serial: u64::MAX, player: aloa },
                ],
                network_depth: self.depth,
                rules: Rules::default(),
                board: Default::default(),
                start: Default::default(),
                format: MatchFormat::Pairs(vec![Pairing { a: 0, b: 1, seed: i as u64, opening_plies: 0 }]),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sizes(steps: &[Vec<MatchTask>]) -> Vec<usize> {
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
        assert!(tasks_for(Reuse::Knockout, 62, 1, 1, 1).is_err());
    }

    #[test]
    fn fresh_networks_stay_fresh_across_steps() {
        let steps = tasks_for(Reuse::Fresh, 9, 1, 62, 3).unwrap();
        let mut ids = std::collections::HashSet::new();
        let mut seeds = std::collections::HashSet::new();
        for task in steps.iter().flatten() {
            let MatchFormat::Knockout { seed } = task.format else { panic!("a knockout") };
            assert!(seeds.insert(seed), "seed {seed} twice");
            for e in &task.entrants {
                let MatchEntrant::Network { chromosome, .. } = e else { panic!("a network") };
                assert!(ids.insert(chromosome.id()), "a network twice");
            }
        }
        assert_eq!((ids.len(), seeds.len()), (36, 9));
    }

    #[test]
    fn the_thesis_run_goes_a_generation_at_a_time_with_a_benchmark_every_tenth() {
        // 11 generations of 4 and one benchmark of 4 in between; the last generation cut short.
        let steps = tasks_for(Reuse::Knockout, 46, 1, 4, 1).unwrap();
        assert_eq!(sizes(&steps), [4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 2]);
        assert!(steps[10].iter().all(|t| matches!(t.format, MatchFormat::Pairs(_))));
        // After the first generation, three of each knockout's networks are new and carry their
        // origins; the survivor is one of the generation before's.
        let (first, second) = (&steps[0], &steps[1]);
        let networks = |t: &MatchTask| -> Vec<Arc<Chromosome>> { t.chromosomes().cloned().collect() };
        let before: Vec<_> = first.iter().flat_map(networks).map(|c| c.id()).collect();
        for task in second {
            let n = networks(task);
            assert!(before.contains(&n[0].id()));
            assert!(n[1..].iter().all(|c| c.origin().is_some() && !before.contains(&c.id())));
            // Serials ascend with the entrants, as the stubs' outcome assumes.
            let serials: Vec<u64> = task.entrants.iter().map(MatchEntrant::serial).collect();
            assert!(serials.windows(2).all(|w| w[0] < w[1]), "{serials:?}");
        }
    }
}
