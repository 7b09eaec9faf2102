//! (μ + λ) selection on points over several games: parents and their offspring all play, and the
//! best μ survive, so a good network is kept until something better appears (the thesis's
//! knockout replaces a survivor whenever it loses one match, and hands drawn matches to the
//! older player).
//!
//! Each generation: every parent makes `offspring` children (a crossover with a random other
//! parent at `crossover_rate`, then a mutation); every candidate (parents and children) hosts one
//! task: two-game matches, as A, against `opponents` others drawn uniformly without replacement
//! from the candidates, and against each fixed opponent. Every game scores for both sides: win 1,
//! draw ½, loss 0 (so being A, who wins drawn matches by SPEC §5's criterion 4, is worth
//! nothing). The `population` candidates with the most points survive, ties going to the older
//! (lower serial). Fixed opponents score nothing: they are yardsticks.

use super::{Scheme, Selected};
use crate::config::{ExperimentConfig, MuPlusLambdaConfig};
use crate::generation::individual;
use crate::operators::{crossover, mutate};
use crate::population::{Individual, SerialCounter};
use crate::rng::GaRng;
use loa_engine::network::ChromosomeError;
use loa_engine::random::derive_seed;
use loa_engine::tasks::{MatchEntrant, MatchFormat, MatchTask, MatchTaskOutcome, Pairing};
use loa_engine::{Color, Outcome};

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
    /// For each task (one per candidate), the candidate index of each of its entrants (`None`
    /// for a fixed opponent).
    seats: Vec<Vec<Option<usize>>>,
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
    ) -> Result<(Plan, Vec<MatchTask>), ChromosomeError> {
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
                candidates.push(individual(serials, parent.chromosome.topology(), weights)?);
            }
        }
        let fixed = config.fixed_opponents();
        let n = candidates.len();
        let k = (self.params.opponents as usize).min(n - 1);
        let mut tasks = Vec::with_capacity(n);
        let mut seats = Vec::with_capacity(n);
        for host in 0..n {
            // k distinct others, by a partial Fisher-Yates over the other candidates.
            let mut others: Vec<usize> = (0..n).filter(|&c| c != host).collect();
            for slot in 0..k {
                let pick = slot + rng.below(others.len() - slot);
                others.swap(slot, pick);
            }
            others.truncate(k);
            let mut entrants: Vec<MatchEntrant> =
                std::iter::once(host).chain(others.iter().copied()).map(|c| candidates[c].entrant()).collect();
            let mut seat: Vec<Option<usize>> = std::iter::once(host).chain(others).map(Some).collect();
            for (f, player) in fixed.iter().enumerate() {
                // Serials above every candidate's: fixed players are never a network's A by age.
                entrants.push(MatchEntrant::Fixed { serial: u64::MAX - f as u64, player: *player });
                seat.push(None);
            }
            let base = derive_seed(derive_seed(config.seed, generation), host as u64);
            let pairs = (1..entrants.len())
                .map(|b| Pairing { a: 0, b, seed: derive_seed(base, b as u64), opening_plies: 0 })
                .collect();
            tasks.push(MatchTask {
                entrants,
                network_depth: config.network_depth,
                rules: config.rules,
                format: MatchFormat::Pairs(pairs),
            });
            seats.push(seat);
        }
        Ok((Plan { candidates, seats, parents: p }, tasks))
    }

    fn select(&self, plan: Plan, outcomes: &[MatchTaskOutcome]) -> Result<Selected, String> {
        if outcomes.len() != plan.seats.len() {
            return Err(format!("{} outcomes for {} tasks", outcomes.len(), plan.seats.len()));
        }
        // Points in half-points, so they add exactly.
        let mut halves = vec![0u64; plan.candidates.len()];
        for (t, (seat, outcome)) in plan.seats.iter().zip(outcomes).enumerate() {
            for m in &outcome.matches {
                let (Some(a), Some(b)) = (seat.get(m.a), seat.get(m.b)) else {
                    return Err(format!("task {t}: a match names an entrant it does not have"));
                };
                for (g, game) in m.games.iter().enumerate() {
                    // A is Black in game 0, White in game 1.
                    let a_color = if g == 0 { Color::Black } else { Color::White };
                    let (a_half, b_half) = match game.outcome {
                        Outcome::Draw => (1, 1),
                        Outcome::Win(c) if c == a_color => (2, 0),
                        Outcome::Win(_) => (0, 2),
                    };
                    if let Some(a) = a {
                        halves[*a] += a_half;
                    }
                    if let Some(b) = b {
                        halves[*b] += b_half;
                    }
                }
            }
        }
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
    use loa_engine::tasks::{GameSummary, MatchSummary};

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
