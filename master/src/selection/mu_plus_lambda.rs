//! (μ + λ) selection on points over several games: parents and their offspring all play, and the
//! best μ survive, so a good network is kept until something better appears (the thesis's
//! knockout replaces a survivor whenever it loses one match, and hands drawn matches to the
//! older player).
//!
//! Each generation: every parent makes `offspring` children (a crossover with a random other
//! parent at `crossover_rate`, then a mutation); parents and children are judged by points over
//! several games ([`points`]); the `population` candidates with the most points survive, ties
//! going to the older (lower serial).

use super::points::{self, Seating};
use super::{Scheme, Selected};
use crate::config::{ExperimentConfig, MuPlusLambdaConfig};
use crate::generation::individual;
use crate::operators::{crossover, mutate};
use crate::population::{Individual, SerialCounter};
use crate::rng::GaRng;
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
    /// How many candidates were parents.
    parents: usize,
}

impl Scheme for MuPlusLambda {
    type Plan = Plan;

    fn plan(
        &self,
        survivors: &[Individual],
        config: &ExperimentConfig,
        generation: u64,
        rng: &mut GaRng,
        serials: &mut SerialCounter,
    ) -> Result<(Plan, Vec<MatchTask>), String> {
        let p = survivors.len();
        let mut candidates = survivors.to_vec();
        for (i, parent) in survivors.iter().enumerate() {
            for _ in 0..self.params.offspring {
                let genes = if p > 1 && rng.chance(self.params.crossover_rate) {
                    let j = rng.below(p - 1);
                    let partner = &survivors[if j >= i { j + 1 } else { j }];
                    crossover(config.crossover.operator, parent.chromosome.weights(), partner.chromosome.weights(), rng)
                } else {
                    parent.chromosome.weights().to_vec()
                };
                let weights = mutate(&config.mutation, &genes, generation, rng);
                candidates.push(individual(serials, parent.chromosome.topology(), weights).map_err(|e| e.to_string())?);
            }
        }
        let (seating, tasks) = points::plan(
            &candidates,
            self.params.opponents as usize,
            &config.fixed_opponents(),
            config,
            generation,
            rng,
        );
        Ok((Plan { candidates, seating, parents: p }, tasks))
    }

    fn select(&self, plan: Plan, outcomes: &[MatchTaskOutcome]) -> Result<Selected, String> {
        let halves = points::half_points(&plan.seating, plan.candidates.len(), outcomes)?;
        let mut order: Vec<usize> = (0..plan.candidates.len()).collect();
        // Most points first; ties to the older (lower serial), so the result never depends on
        // anything but the games.
        order.sort_by_key(|&c| (std::cmp::Reverse(halves[c]), plan.candidates[c].serial));
        order.truncate(plan.parents);
        let survivors_kept = order.iter().filter(|&&c| c < plan.parents).count() as u32;
        // Keep the survivors in candidate order (parents first), so the population's order is
        // stable from one generation to the next.
        order.sort_unstable();
        let next = order.into_iter().map(|c| plan.candidates[c].clone()).collect();
        Ok(Selected { next, tournaments: Vec::new(), survivors_kept })
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
    fn candidates_play_their_drawn_opponents_and_the_most_points_survive() {
        let config = config();
        config.validate().unwrap();
        let SelectionScheme::MuPlusLambda(params) = config.selection.scheme.clone() else { unreachable!() };
        let scheme = MuPlusLambda { params };
        let (mut rng, mut serials) = (GaRng::from_seed(3), SerialCounter::new());
        let parents = initial_population(&config, Topology::default(), &mut rng, &mut serials).unwrap();
        let (plan, tasks) = scheme.plan(&parents, &config, 1, &mut rng, &mut serials).unwrap();
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
        // Every host wins both games as A except host 5, which loses both: hosts gain 4 halves
        // each, their opponents 0; host 5 gives 2 points to each of its opponents.
        let outcomes: Vec<MatchTaskOutcome> = (0..8)
            .map(|host| MatchTaskOutcome {
                matches: (1..5)
                    .map(|b| {
                        let (g0, g1) = if host == 5 {
                            (game(Outcome::Win(Color::White)), game(Outcome::Win(Color::Black)))
                        } else {
                            (game(Outcome::Win(Color::Black)), game(Outcome::Win(Color::White)))
                        };
                        MatchSummary { a: 0, b, winner: MatchSide::A, criterion: Criterion::WonBoth, games: [g0, g1] }
                    })
                    .collect(),
            })
            .collect();
        // Serials are candidate indices here (parents 0-3, children 4-7). Every host but 5 has
        // 16 half-points; host 5's three opponents 4 more; 5 has none. The survivors: 5's
        // opponents, then the oldest of the rest.
        let mut expected: Vec<u64> = tasks[5].entrants[1..4].iter().map(MatchEntrant::serial).collect();
        let oldest_other = (0..8).find(|c| *c != 5 && !expected.contains(c)).unwrap();
        expected.push(oldest_other);
        expected.sort_unstable();
        let selected = scheme.select(plan, &outcomes).unwrap();
        let serials: Vec<u64> = selected.next.iter().map(|i| i.serial).collect();
        assert_eq!(serials, expected);
        assert_eq!(selected.survivors_kept, expected.iter().filter(|&&s| s < 4).count() as u32);
    }

    #[test]
    fn the_plan_is_a_function_of_the_generator() {
        let config = config();
        let SelectionScheme::MuPlusLambda(params) = config.selection.scheme.clone() else { unreachable!() };
        let scheme = MuPlusLambda { params };
        let run = || {
            let (mut rng, mut serials) = (GaRng::from_seed(9), SerialCounter::new());
            let parents = initial_population(&config, Topology::default(), &mut rng, &mut serials).unwrap();
            scheme.plan(&parents, &config, 2, &mut rng, &mut serials).unwrap().1
        };
        assert_eq!(run(), run());
    }
}
