//! (μ + λ) selection on a score over several games: parents and their offspring all play, and
//! the best μ survive (ties to the older), so a good network is kept until something better
//! appears. Each parent makes `offspring` children (a crossing with another parent at
//! `crossover_rate`, then a mutation); with `elitism = k`, (μ, λ) keeping the k best parents.
//! With the self-adaptive mutation operator each individual's step is part of the state.

use super::judging::{self, Judged, JudgingConfig, JudgingState, fittest_first};
use super::{Champion, Plan, Scheme, Selected, SelectionError, StateError};
use super::{SchemeState, own_plan, parse_settings, settings_table};
use crate::codec::CodecError;
use crate::config::{ConfigError, ExperimentConfig, MAX_STEP, MIN_STEP, MutationOperator, child_step};
use crate::generation::{Breeding, child};
use crate::population::Individual;
use crate::rng::GaRng;
use loa_engine::breeding::operators::gaussian;
use loa_engine::tasks::{Task, TaskOutcome};
use loa_records::{EpochReport, Figures};
use serde::{Deserialize, Serialize};

/// The scheme's name in the configuration.
pub const NAME: &str = "mu-plus-lambda";
const KEY: &str = "selection.scheme.mu-plus-lambda";

/// The settings, `[selection.scheme.mu-plus-lambda]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct MuPlusLambdaConfig {
    /// Children per parent (λ = `offspring × population`).
    pub offspring: u32,
    /// Probability that a child is its parent crossed with a random other parent before
    /// mutation (otherwise a copy of its parent).
    pub crossover_rate: f64,
    /// Absent: (μ + λ). `k`: (μ, λ) with k elites: the k fittest parents stay and the fittest
    /// children take the other places, so a population cannot stall on old parents.
    pub elitism: Option<u32>,
    /// How candidates are judged.
    #[serde(flatten)]
    pub judging: JudgingConfig,
}

impl Default for MuPlusLambdaConfig {
    fn default() -> Self {
        MuPlusLambdaConfig { offspring: 1, crossover_rate: 0.5, elitism: None, judging: JudgingConfig::default() }
    }
}

/// What (μ + λ) remembers across generations.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct State {
    /// The hall of fame and the ladder's rung.
    pub judged: JudgingState,
    /// Each survivor's self-adaptive mutation step, by serial (empty without them).
    pub steps: Vec<(u64, f64)>,
}

impl SchemeState for State {}

/// The (μ + λ) scheme with its settings and state.
#[derive(Clone, Debug)]
pub struct MuPlusLambda {
    settings: MuPlusLambdaConfig,
    state: State,
}

/// The scheme from its settings.
pub fn build(settings: &toml::Table) -> Result<Box<dyn Scheme>, ConfigError> {
    Ok(Box::new(MuPlusLambda { settings: parse_settings(NAME, settings)?, state: State::default() }))
}

/// Who played in a generation's tasks.
struct MuPlusLambdaPlan {
    /// The candidates: parents first, then children in creation order.
    judged: Judged,
    /// How many candidates were parents.
    parents: usize,
    /// Each candidate's self-adaptive step (empty without them).
    steps: Vec<f64>,
}

impl Scheme for MuPlusLambda {
    fn settings(&self) -> toml::Table {
        settings_table(&self.settings)
    }

    fn validate(&self, config: &ExperimentConfig) -> Result<(), ConfigError> {
        let (s, population) = (&self.settings, config.population);
        let bad = |field: &str, why: String| Err(ConfigError::Invalid { key: format!("{KEY}.{field}"), why });
        if !(1..=16).contains(&s.offspring) {
            return bad("offspring", format!("must be 1..=16, got {}", s.offspring));
        }
        if !(0.0..=1.0).contains(&s.crossover_rate) {
            return bad("crossover_rate", format!("must be in [0, 1], got {}", s.crossover_rate));
        }
        if let Some(k) = s.elitism {
            let children = population * s.offspring as usize;
            if k as usize > population || children + (k as usize) < population {
                let why = format!(
                    "must be at most the population ({population}), and the {children} children with the elites \
                     must fill it, got {k}"
                );
                return bad("elitism", why);
            }
        }
        self.settings.judging.validate(KEY, population * (1 + s.offspring as usize), config.board())
    }

    fn adapts_steps(&self) -> bool {
        true
    }

    fn plan(&self, survivors: &[Individual], b: &mut Breeding) -> Result<(Plan, Vec<Task>), SelectionError> {
        let Breeding { config, generation, ref mut rng, ref mut serials } = *b;
        let p = survivors.len();
        let mut candidates = survivors.to_vec();
        // Self-adaptive steps: each parent's from the state (the initial step for the random
        // first population), each child's drawn from its parent's before its noise.
        let adaptive = match config.mutation.operator {
            MutationOperator::SelfAdaptive { sigma, tau, probability } => Some((sigma, tau, probability)),
            _ => None,
        };
        let kept = |serial: u64| self.state.steps.iter().find(|(s, _)| *s == serial).map(|&(_, step)| step);
        let initial = |sigma| survivors.iter().map(|s| kept(s.serial).unwrap_or(sigma)).collect();
        let mut steps: Vec<f64> = adaptive.map_or_else(Vec::new, |(sigma, ..)| initial(sigma));
        for (i, parent) in survivors.iter().enumerate() {
            for _ in 0..self.settings.offspring {
                let partner = (p > 1 && rng.chance(self.settings.crossover_rate)).then(|| {
                    let j = rng.below(p - 1);
                    &*survivors[if j >= i { j + 1 } else { j }].chromosome
                });
                let mutation = |rng: &mut GaRng| match adaptive {
                    Some((_, tau, probability)) => {
                        let step = child_step(steps[i], tau, rng);
                        steps.push(step);
                        gaussian::variation(step, probability)
                    }
                    None => config.mutation.operator.variation(generation),
                };
                let crossing = config.crossover.operator;
                candidates.push(child(&parent.chromosome, partner, crossing, mutation, rng, serials)?);
            }
        }
        let (judged, tasks) = judging::plan(candidates, &self.settings.judging, &self.state.judged, b);
        Ok((Box::new(MuPlusLambdaPlan { judged, parents: p, steps }), super::match_tasks(tasks)))
    }

    fn select(&mut self, plan: Plan, outcomes: &[TaskOutcome]) -> Result<Selected, SelectionError> {
        let outcomes = &super::match_outcomes(outcomes)?[..];
        let plan: MuPlusLambdaPlan = own_plan(plan)?;
        let scores = plan.judged.scores(self.settings.judging.fitness, outcomes)?;
        let (fitness, candidates) = (plan.judged.fitness(&scores), &plan.judged.candidates);
        let rank = |pool| fittest_first(&fitness, pool);
        let (mu, all) = (plan.parents, candidates.len());
        let mut order = match self.settings.elitism {
            None => rank(0..all),
            Some(k) => rank(0..mu).into_iter().take(k as usize).chain(rank(mu..all)).collect(),
        };
        order.truncate(mu);
        let survivors_kept = order.iter().filter(|&&c| c < mu).count() as u32;
        // Keep the survivors in candidate order (parents first), so the population's order is
        // stable from one generation to the next.
        order.sort_unstable();
        let steps: Vec<(u64, f64)> =
            order.iter().filter_map(|&c| plan.steps.get(c).map(|&s| (candidates[c].serial, s))).collect();
        let next = order.into_iter().map(|c| candidates[c].clone()).collect();
        let mean_step = (!steps.is_empty()).then(|| steps.iter().map(|s| s.1).sum::<f64>() / steps.len() as f64);
        let figures = scores.summary().figures(Figures::new().with_some("mean_step", mean_step));
        self.state.steps = steps;
        self.state.judged.promote(&self.settings.judging, &scores);
        Ok(Selected { next, tournaments: Vec::new(), survivors_kept, figures: Some(figures), notes: Vec::new() })
    }

    fn end_epoch(&mut self, survivors: &[Individual], report: &EpochReport) -> Option<Champion> {
        self.state.judged.induct(&self.settings.judging, survivors, report)
    }

    fn save(&self) -> Result<Vec<u8>, CodecError> {
        self.state.save()
    }

    fn restore(&mut self, saved: &[u8], _: &[Individual], _: &ExperimentConfig) -> Result<(), StateError> {
        let state = State::load(saved)?;
        state.judged.check(&self.settings.judging)?;
        if let Some(&(serial, step)) = state.steps.iter().find(|(_, step)| !(MIN_STEP..=MAX_STEP).contains(step)) {
            return Err(StateError::Step { serial, step });
        }
        self.state = state;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{MutationConfig, SchemeConfig};
    use crate::generation::initial_population;
    use crate::population::SerialCounter;
    use loa_engine::game::{Criterion, MatchSide};
    use loa_engine::network::Topology;
    use loa_engine::tasks::{GameSummary, MatchEntrant, MatchSummary, MatchTask, MatchTaskOutcome};
    use loa_engine::{Color, Outcome};

    fn settings() -> MuPlusLambdaConfig {
        let judging =
            JudgingConfig { opponents: 3, fixed_opponents: vec!["random:1".into()], ..JudgingConfig::default() };
        MuPlusLambdaConfig { offspring: 1, crossover_rate: 0.5, judging, ..MuPlusLambdaConfig::default() }
    }

    fn new(settings: MuPlusLambdaConfig) -> MuPlusLambda {
        MuPlusLambda { settings, state: State::default() }
    }

    fn config_with(settings: &MuPlusLambdaConfig) -> ExperimentConfig {
        let mut config = ExperimentConfig {
            population: 4,
            mutation: MutationConfig {
                operator: MutationOperator::Gaussian { sigma: 0.1, decay: 1.0, probability: 1.0 },
                ..MutationConfig::default()
            },
            ..ExperimentConfig::default()
        };
        config.selection.scheme = SchemeConfig::new(NAME, settings_table(settings));
        config
    }

    fn game(outcome: Outcome) -> GameSummary {
        GameSummary { outcome, reason: loa_engine::EndReason::Connected, plies: 30 }
    }

    fn planned(
        scheme: &MuPlusLambda,
        config: &ExperimentConfig,
        seed: u64,
        generation: u64,
    ) -> (MuPlusLambdaPlan, Vec<MatchTask>, Vec<Individual>) {
        let (mut rng, mut serials) = (GaRng::from_seed(seed), SerialCounter::default());
        let parents = initial_population(config, Topology::default(), &mut rng, &mut serials).unwrap();
        let (plan, tasks) =
            scheme.plan(&parents, &mut Breeding { config, generation, rng: &mut rng, serials: &mut serials }).unwrap();
        (own_plan(plan).unwrap(), crate::selection::as_matches(tasks), parents)
    }

    #[test]
    fn children_are_made_again_from_their_origins() {
        // Self-adaptive steps (drawn between the crossing and the noise) and crossing half the time.
        let settings = MuPlusLambdaConfig { offspring: 4, ..settings() };
        let mut config = config_with(&settings);
        config.mutation.operator = MutationOperator::SelfAdaptive { sigma: 0.05, tau: 0.3, probability: 1.0 };
        let scheme = new(settings);
        let (plan, _, parents) = planned(&scheme, &config, 5, 2);
        let children: Vec<&Individual> = plan.judged.candidates[4..].iter().collect();
        assert_eq!(crate::generation::tests::made_again(&children, &parents), 16);
        let crossed = children.iter().filter(|c| c.chromosome.origin().is_some_and(|o| o.steps().len() == 2)).count();
        assert!((2..=14).contains(&crossed), "{crossed} of 16 crossed, then mutated");
    }

    #[test]
    fn candidates_host_matches_against_distinct_drawn_opponents_and_the_fixed_player() {
        let config = config_with(&settings());
        crate::selection::build(&config).unwrap();
        let scheme = new(settings());
        let (plan, tasks, _) = planned(&scheme, &config, 3, 1);
        assert_eq!((plan.judged.candidates.len(), tasks.len()), (8, 8));
        for (host, task) in tasks.iter().enumerate() {
            task.validate().unwrap();
            // Itself, three distinct others, the fixed random player.
            assert_eq!(task.entrants.len(), 5);
            assert_eq!(task.entrants[0].serial(), plan.judged.candidates[host].serial);
            let mut others: Vec<u64> = task.entrants[1..4].iter().map(MatchEntrant::serial).collect();
            others.sort_unstable();
            others.dedup();
            assert!(others.len() == 3 && !others.contains(&plan.judged.candidates[host].serial));
        }
    }

    /// Candidates judged only by one match against the fixed player, with `wins[c]` and
    /// `draws[c]` of candidate c's two games: mean half-points per game (2 win, 1 draw).
    fn select_with(elitism: Option<u32>, wins: [u8; 8], draws: [u8; 8]) -> (Vec<u64>, u32) {
        let judging = JudgingConfig { opponents: 0, ..settings().judging };
        let settings = MuPlusLambdaConfig { elitism, judging, ..settings() };
        let config = config_with(&settings);
        crate::selection::build(&config).unwrap();
        let mut scheme = new(settings);
        let (plan, tasks, _) = planned(&scheme, &config, 3, 1);
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
        let selected = scheme.select(Box::new(plan), &crate::selection::outcomes_of(outcomes)).unwrap();
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
        let config = config_with(&settings());
        let scheme = new(settings());
        assert_eq!(planned(&scheme, &config, 9, 2).1, planned(&scheme, &config, 9, 2).1);
    }

    #[test]
    fn the_state_round_trips_and_steps_out_of_range_are_refused_by_name() {
        let mut scheme = new(settings());
        scheme.state.steps = vec![(3, 0.05), (7, 0.2)];
        let saved = scheme.save().unwrap();
        let config = config_with(&settings());
        let mut other = new(settings());
        other.restore(&saved, &[], &config).unwrap();
        assert_eq!(other.state, scheme.state);
        scheme.state.steps[1].1 = 20.0;
        let err = other.restore(&scheme.save().unwrap(), &[], &config).unwrap_err().to_string();
        assert!(err.contains("individual 7's mutation step 20"), "{err}");
        // A rung beyond the configured ladder (none here) is refused.
        scheme.state = State { judged: JudgingState { rung: 1, ..JudgingState::default() }, steps: Vec::new() };
        let err = other.restore(&scheme.save().unwrap(), &[], &config).unwrap_err().to_string();
        assert!(err.contains("ladder rung 1 of a ladder of 0 rungs"), "{err}");
    }
}
