//! (μ + λ) selection on a score over several games: parents and their offspring all play, and
//! the best μ survive, so a good network is kept until something better appears (the thesis's
//! knockout replaces a survivor whenever it loses one match, and hands drawn matches to the
//! older player).
//!
//! Each generation: every parent makes `offspring` children (a crossover with a random other
//! parent at `crossover_rate`, then a mutation); parents and children are judged over several
//! games ([`points`]); the `population` candidates with the best mean score per game survive,
//! ties going to the older (lower serial). With `elitism = k`, (μ, λ) with k elites: the k best
//! parents stay and the other places go to the best children.

use super::points::{self, Seating};
use super::{Memory, Scheme, Selected};
use crate::config::MutationOperator;
use crate::config::{ExperimentConfig, MuPlusLambdaConfig};
use crate::generation::bred;
use crate::operators::{child_step, crossing, mutation};
use crate::population::{Individual, SerialCounter};
use crate::rng::GaRng;
use loa_engine::breeding::{Step, Variation};
use loa_engine::tasks::{MatchTask, MatchTaskOutcome};

/// The (μ + λ) scheme with its parameters.
#[derive(Clone, Debug)]
pub struct MuPlusLambda {
    /// The parameters.
    pub params: MuPlusLambdaConfig,
}

/// Who played in a generation's tasks.
pub struct Plan {
    /// Parents first, then children, in creation order.
    candidates: Vec<Individual>,
    /// Who sits where in the candidates' tasks.
    seating: Seating,
    /// The ladder's rung they met, if the run climbs one.
    rung: Option<usize>,
    /// How many candidates were parents.
    parents: usize,
    /// Each candidate's self-adaptive step (empty without them).
    steps: Vec<f64>,
}

impl Scheme for MuPlusLambda {
    type Plan = Plan;

    fn plan(
        &self,
        survivors: &[Individual],
        memory: &Memory,
        config: &ExperimentConfig,
        generation: u64,
        rng: &mut GaRng,
        serials: &mut SerialCounter,
    ) -> Result<(Plan, Vec<MatchTask>), String> {
        let p = survivors.len();
        let mut candidates = survivors.to_vec();
        // Self-adaptive steps: each parent's from the memory (the initial step for the random
        // first population), each child's drawn from its parent's before its noise.
        let adaptive = match config.mutation.operator {
            MutationOperator::SelfAdaptive { sigma, tau } => Some((sigma, tau)),
            _ => None,
        };
        let mut steps: Vec<f64> = match adaptive {
            Some((sigma, _)) => survivors
                .iter()
                .map(|s| memory.steps.iter().find(|(serial, _)| *serial == s.serial).map_or(sigma, |&(_, step)| step))
                .collect(),
            None => Vec::new(),
        };
        for (i, parent) in survivors.iter().enumerate() {
            let (topology, own) = (parent.chromosome.topology(), parent.chromosome.weights());
            let length = topology.weight_count();
            for _ in 0..self.params.offspring {
                // Each step recorded (issue 14): the child's origin, crossing and then mutation.
                let (genes, parents, mut origin) = if p > 1 && rng.chance(self.params.crossover_rate) {
                    let j = rng.below(p - 1);
                    let partner = &survivors[if j >= i { j + 1 } else { j }].chromosome;
                    let crossed = crossing(config.crossover.operator);
                    let (genes, step) = Step::take(crossed, length, &[own, partner.weights()], rng);
                    (genes, vec![parent.chromosome.id(), partner.id()], vec![step])
                } else {
                    (own.to_vec(), vec![parent.chromosome.id()], Vec::new())
                };
                let variation = match adaptive {
                    Some((_, tau)) => {
                        let step = child_step(steps[i], tau, rng);
                        steps.push(step);
                        Variation::Gaussian { step, probability: config.mutation.probability }
                    }
                    None => mutation(&config.mutation, generation),
                };
                let (weights, step) = Step::take(variation, length, &[&genes], rng);
                origin.push(step);
                candidates.push(bred(serials, topology, weights, parents, origin).map_err(|e| e.to_string())?);
            }
        }
        let (seating, tasks) = points::plan(&candidates, &self.params.judging(), memory, config, generation, rng);
        Ok((
            Plan {
                candidates,
                seating,
                rung: (!self.params.ladder.is_empty()).then_some(memory.rung),
                parents: p,
                steps,
            },
            tasks,
        ))
    }

    fn select(&self, plan: Plan, outcomes: &[MatchTaskOutcome]) -> Result<Selected, String> {
        let scores = points::scores(&plan.seating, plan.candidates.len(), self.params.fitness, outcomes)?;
        let means = scores.means();
        // Best mean first; ties to the older (lower serial), so the result never depends on
        // anything but the games.
        let rank = |pool: std::ops::Range<usize>| {
            let mut order: Vec<usize> = pool.collect();
            order.sort_by(|&x, &y| {
                means[y].total_cmp(&means[x]).then(plan.candidates[x].serial.cmp(&plan.candidates[y].serial))
            });
            order
        };
        let (mu, all) = (plan.parents, plan.candidates.len());
        let mut order = match self.params.elitism {
            None => rank(0..all),
            Some(k) => {
                let mut elites = rank(0..mu);
                elites.truncate(k as usize);
                elites.extend(rank(mu..all));
                elites
            }
        };
        order.truncate(mu);
        let survivors_kept = order.iter().filter(|&&c| c < mu).count() as u32;
        // Keep the survivors in candidate order (parents first), so the population's order is
        // stable from one generation to the next.
        order.sort_unstable();
        let steps: Vec<(u64, f64)> =
            order.iter().filter_map(|&c| plan.steps.get(c).map(|&s| (plan.candidates[c].serial, s))).collect();
        let next = order.into_iter().map(|c| plan.candidates[c].clone()).collect();
        let mut fitness = scores.summary(plan.rung);
        if !steps.is_empty() {
            fitness.mean_step = Some(steps.iter().map(|&(_, s)| s).sum::<f64>() / steps.len() as f64);
        }
        Ok(Selected {
            next,
            tournaments: Vec::new(),
            survivors_kept,
            fitness: Some(fitness),
            steps,
            adam: Default::default(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{MutationConfig, MutationOperator, SelectionScheme};
    use crate::generation::initial_population;
    use loa_engine::game::{Criterion, MatchSide};
    use loa_engine::network::Topology;
    use loa_engine::tasks::{GameSummary, MatchEntrant, MatchSummary};
    use loa_engine::{Color, Outcome};

    fn config() -> ExperimentConfig {
        let params = MuPlusLambdaConfig {
            offspring: 1,
            opponents: 3,
            crossover_rate: 0.5,
            fixed_opponents: vec!["random:1".into()],
            ..MuPlusLambdaConfig::default()
        };
        ExperimentConfig {
            population: 4,
            selection: crate::config::SelectionConfig { scheme: SelectionScheme::MuPlusLambda(params) },
            mutation: MutationConfig {
                operator: MutationOperator::Gaussian { sigma: 0.1, decay: 1.0 },
                probability: 1.0,
                ..MutationConfig::default()
            },
            ..ExperimentConfig::default()
        }
    }

    fn game(outcome: Outcome) -> GameSummary {
        GameSummary { outcome, reason: loa_engine::EndReason::Connected, plies: 30 }
    }

    #[test]
    fn children_are_made_again_from_their_origins() {
        // Self-adaptive steps (drawn between the crossing and the noise) and crossing half the time.
        let mut config = config();
        config.mutation.operator = MutationOperator::SelfAdaptive { sigma: 0.05, tau: 0.3 };
        let SelectionScheme::MuPlusLambda(mut params) = config.selection.scheme.clone() else { unreachable!() };
        params.offspring = 4;
        let scheme = MuPlusLambda { params };
        let (mut rng, mut serials) = (GaRng::from_seed(5), SerialCounter::new());
        let parents = initial_population(&config, Topology::default(), &mut rng, &mut serials).unwrap();
        let (plan, _) = scheme.plan(&parents, &Memory::default(), &config, 2, &mut rng, &mut serials).unwrap();
        let children: Vec<&Individual> = plan.candidates[4..].iter().collect();
        assert_eq!(crate::generation::tests::made_again(&children, &parents), 16);
        let crossed = children.iter().filter(|c| c.chromosome.origin().is_some_and(|o| o.steps().len() == 2)).count();
        assert!((2..=14).contains(&crossed), "{crossed} of 16 crossed, then mutated");
    }

    #[test]
    fn candidates_host_matches_against_distinct_drawn_opponents_and_the_fixed_player() {
        let config = config();
        config.validate().unwrap();
        let SelectionScheme::MuPlusLambda(params) = config.selection.scheme.clone() else { unreachable!() };
        let scheme = MuPlusLambda { params };
        let (mut rng, mut serials) = (GaRng::from_seed(3), SerialCounter::new());
        let parents = initial_population(&config, Topology::default(), &mut rng, &mut serials).unwrap();
        let (plan, tasks) = scheme.plan(&parents, &Memory::default(), &config, 1, &mut rng, &mut serials).unwrap();
        assert_eq!((plan.candidates.len(), tasks.len()), (8, 8));
        for (host, task) in tasks.iter().enumerate() {
            task.validate().unwrap();
            // Itself, three distinct others, the fixed random player.
            assert_eq!(task.entrants.len(), 5);
            assert_eq!(task.entrants[0].serial(), plan.candidates[host].serial);
            let mut others: Vec<u64> = task.entrants[1..4].iter().map(MatchEntrant::serial).collect();
            others.sort_unstable();
            others.dedup();
            assert!(others.len() == 3 && !others.contains(&plan.candidates[host].serial));
        }
    }

    /// Candidates judged only by one match against the fixed player, with `wins[c]` and
    /// `draws[c]` of candidate c's two games: mean half-points per game (2 win, 1 draw).
    fn select_with(elitism: Option<u32>, wins: [u8; 8], draws: [u8; 8]) -> (Vec<u64>, u32) {
        let mut config = config();
        let params = MuPlusLambdaConfig {
            opponents: 0,
            elitism,
            fixed_opponents: vec!["random:1".into()],
            ..MuPlusLambdaConfig::default()
        };
        config.selection.scheme = SelectionScheme::MuPlusLambda(params.clone());
        config.validate().unwrap();
        let scheme = MuPlusLambda { params };
        let (mut rng, mut serials) = (GaRng::from_seed(3), SerialCounter::new());
        let parents = initial_population(&config, Topology::default(), &mut rng, &mut serials).unwrap();
        let (plan, tasks) = scheme.plan(&parents, &Memory::default(), &config, 1, &mut rng, &mut serials).unwrap();
        assert_eq!(tasks.len(), 8);
        let outcomes: Vec<MatchTaskOutcome> = (0..8)
            .map(|c| {
                // The candidate is A: Black in game 0, White in game 1.
                let result = |g: u8| {
                    let mine = if g == 0 { Color::Black } else { Color::White };
                    if g < wins[c] {
                        Outcome::Win(mine)
                    } else if g < wins[c] + draws[c] {
                        Outcome::Draw
                    } else {
                        Outcome::Win(mine.opponent())
                    }
                };
                let games = [game(result(0)), game(result(1))];
                let summary = MatchSummary { a: 0, b: 1, winner: MatchSide::A, criterion: Criterion::WonBoth, games };
                MatchTaskOutcome { matches: vec![summary] }
            })
            .collect();
        let selected = scheme.select(plan, &outcomes).unwrap();
        (selected.next.iter().map(|i| i.serial).collect(), selected.survivors_kept)
    }

    #[test]
    fn the_fittest_survive_ties_go_to_the_older_and_elitism_bounds_the_parents() {
        // Serials are candidate indices (parents 0-3, children 4-7). Mean half-points per game:
        // 0: 0, 1: 2, 2: 1, 3: 2, 4: 2, 5: 0, 6: 1.5, 7: 1.
        let (wins, draws) = ([0, 2, 1, 2, 2, 0, 1, 1], [0, 0, 0, 0, 0, 0, 1, 0]);
        // (μ + λ): 1, 3 and 4 (2 each, by age), then 6.
        assert_eq!(select_with(None, wins, draws), (vec![1, 3, 4, 6], 2));
        // (μ, λ) with 1 elite: parent 1 (older than 3), then children 4, 6 and 7.
        assert_eq!(select_with(Some(1), wins, draws), (vec![1, 4, 6, 7], 1));
        // With no elite every child survives, whatever the parents scored.
        assert_eq!(select_with(Some(0), wins, draws), (vec![4, 5, 6, 7], 0));
    }

    #[test]
    fn the_plan_is_a_function_of_the_generator() {
        let config = config();
        let SelectionScheme::MuPlusLambda(params) = config.selection.scheme.clone() else { unreachable!() };
        let scheme = MuPlusLambda { params };
        let run = || {
            let (mut rng, mut serials) = (GaRng::from_seed(9), SerialCounter::new());
            let parents = initial_population(&config, Topology::default(), &mut rng, &mut serials).unwrap();
            scheme.plan(&parents, &Memory::default(), &config, 2, &mut rng, &mut serials).unwrap().1
        };
        assert_eq!(run(), run());
    }
}
