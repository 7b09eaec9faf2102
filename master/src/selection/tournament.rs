//! Tournament selection of size k with elitism on a score over several games ([`judging`]): the
//! `elitism` fittest stay unchanged, and every other place goes to a child of tournament winners
//! (`size` individuals drawn uniformly with replacement, the fittest wins, the older on a tie).
//! Only [`Scheme::plan`] has the generator, so a population is bred at the start of the plan
//! that judges it, from the fitness the state keeps; elites are judged again, so one lucky score
//! does not keep a network forever.

use super::judging::{self, Judged, JudgingConfig, JudgingState, fitter, fittest_first};
use super::{Champion, Plan, Scheme, Selected, SelectionError, StateError};
use super::{SchemeState, own_plan, parse_settings, settings_table};
use crate::codec::CodecError;
use crate::config::{ConfigError, ExperimentConfig};
use crate::generation::{Breeding, child};
use crate::population::Individual;
use crate::rng::GaRng;
use loa_engine::tasks::{Task, TaskOutcome};
use loa_records::{EpochReport, Figures};
use serde::{Deserialize, Serialize};

/// The scheme's name in the configuration.
pub const NAME: &str = "tournament";
const KEY: &str = "selection.scheme.tournament";

/// The settings, `[selection.scheme.tournament]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TournamentConfig {
    /// Individuals drawn for each tournament (k, 2 up to the population).
    pub size: u32,
    /// The fittest individuals kept unchanged into the next population (below the population).
    pub elitism: u32,
    /// Probability that a child is two tournament winners crossed before mutation (otherwise a
    /// copy of one winner).
    pub crossover_rate: f64,
    /// How the population is judged.
    #[serde(flatten)]
    pub judging: JudgingConfig,
}

impl Default for TournamentConfig {
    fn default() -> Self {
        TournamentConfig { size: 2, elitism: 1, crossover_rate: 0.5, judging: JudgingConfig::default() }
    }
}

/// What tournament selection remembers across generations.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct State {
    /// The hall of fame and the ladder's rung.
    pub judged: JudgingState,
    /// The population judged last, in order: each individual's serial and mean score per game
    /// (empty until the first generation is judged).
    pub fitness: Vec<(u64, f64)>,
}

impl SchemeState for State {}

impl State {
    /// Whether `population` is the one whose fitness this state holds.
    fn judged(&self, population: &[Individual]) -> bool {
        !population.is_empty() && self.fitness.iter().map(|f| f.0).eq(population.iter().map(|i| i.serial))
    }
}

/// Tournament selection with its settings and state.
#[derive(Clone, Debug)]
pub struct Tournament {
    settings: TournamentConfig,
    state: State,
}

/// The scheme from its settings.
pub fn build(settings: &toml::Table) -> Result<Box<dyn Scheme>, ConfigError> {
    Ok(Box::new(Tournament { settings: parse_settings(NAME, settings)?, state: State::default() }))
}

impl Tournament {
    /// The next population bred from `parents`, the population the state judged: its elites,
    /// then children in creation order (which fixes their serials).
    fn breed(&self, parents: &[Individual], b: &mut Breeding) -> Result<Vec<Individual>, SelectionError> {
        let Breeding { config, generation, ref mut rng, ref mut serials } = *b;
        let s = &self.settings;
        let fitness = &self.state.fitness;
        let elites = fittest_first(fitness, 0..fitness.len());
        let mut next: Vec<Individual> = elites.iter().take(s.elitism as usize).map(|&i| parents[i].clone()).collect();
        let (crossing, mutation) = (config.crossover.operator, config.mutation.operator.variation(generation));
        while next.len() < parents.len() {
            let first = &parents[tournament(fitness, s.size, rng)].chromosome;
            // The same parent may win both; crossed with itself, it is copied.
            let second = rng.chance(s.crossover_rate).then(|| &*parents[tournament(fitness, s.size, rng)].chromosome);
            next.push(child(first, second, crossing, |_| mutation, rng, serials)?);
        }
        Ok(next)
    }
}

/// The winner of one tournament among the individuals with `fitness` (serial, mean score per
/// game; not empty): `size` of them drawn uniformly with replacement, and the [`fitter`].
fn tournament(fitness: &[(u64, f64)], size: u32, rng: &mut GaRng) -> usize {
    let n = fitness.len();
    (0..size.max(1)).map(|_| rng.below(n)).min_by(|&x, &y| fitter(&fitness[x], &fitness[y])).unwrap_or(0)
}

/// Who played in a generation's tasks.
struct TournamentPlan {
    /// The population being judged: elites first, then children, in creation order.
    judged: Judged,
    /// Candidates that come unchanged from the population before (all of an unjudged one).
    kept: usize,
}

impl Scheme for Tournament {
    fn settings(&self) -> toml::Table {
        settings_table(&self.settings)
    }

    fn validate(&self, config: &ExperimentConfig) -> Result<(), ConfigError> {
        let (s, population) = (&self.settings, config.population);
        let bad = |field: &str, why: String| Err(ConfigError::Invalid { key: format!("{KEY}.{field}"), why });
        if s.size < 2 || s.size as usize > population {
            return bad("size", format!("must be 2..={population} (at most the population), got {}", s.size));
        }
        if s.elitism as usize >= population {
            let why =
                format!("must be below the population ({population}), so that children are bred, got {}", s.elitism);
            return bad("elitism", why);
        }
        if !(0.0..=1.0).contains(&s.crossover_rate) {
            return bad("crossover_rate", format!("must be in [0, 1], got {}", s.crossover_rate));
        }
        s.judging.validate(KEY, population, config.board())
    }

    fn plan(&self, survivors: &[Individual], b: &mut Breeding) -> Result<(Plan, Vec<Task>), SelectionError> {
        let (candidates, kept) = if self.state.judged(survivors) {
            (self.breed(survivors, b)?, self.settings.elitism as usize)
        } else {
            (survivors.to_vec(), survivors.len())
        };
        let (judged, tasks) = judging::plan(candidates, &self.settings.judging, &self.state.judged, b);
        Ok((Box::new(TournamentPlan { judged, kept }), super::match_tasks(tasks)))
    }

    fn select(&mut self, plan: Plan, outcomes: &[TaskOutcome]) -> Result<Selected, SelectionError> {
        let outcomes = &super::match_outcomes(outcomes)?[..];
        let plan: TournamentPlan = own_plan(plan)?;
        let scores = plan.judged.scores(self.settings.judging.fitness, outcomes)?;
        self.state.fitness = plan.judged.fitness(&scores);
        let (next, figures) = (plan.judged.candidates, Some(scores.summary().figures(Figures::new())));
        self.state.judged.promote(&self.settings.judging, &scores);
        Ok(Selected { next, tournaments: Vec::new(), survivors_kept: plan.kept as u32, figures, notes: Vec::new() })
    }

    fn end_epoch(&mut self, survivors: &[Individual], report: &EpochReport) -> Option<Champion> {
        self.state.judged.induct(&self.settings.judging, survivors, report)
    }

    fn save(&self) -> Result<Vec<u8>, CodecError> {
        self.state.save()
    }

    fn restore(&mut self, saved: &[u8], survivors: &[Individual], config: &ExperimentConfig) -> Result<(), StateError> {
        let state = State::load(saved)?;
        state.judged.check(&self.settings.judging)?;
        // Elites and children always refill the configured population.
        if survivors.len() != config.population {
            let expected = format!("tournament selection keeps the configured {}", config.population);
            return Err(StateError::Population { found: survivors.len(), expected });
        }
        if !state.fitness.is_empty() && !state.judged(survivors) {
            let expected = "not the one whose fitness tournament selection's state holds".to_owned();
            return Err(StateError::Population { found: survivors.len(), expected });
        }
        self.state = state;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{MutationConfig, MutationOperator, SchemeConfig};
    use crate::generation::initial_population;
    use crate::population::SerialCounter;
    use loa_engine::game::{Criterion, MatchSide};
    use loa_engine::network::Topology;
    use loa_engine::tasks::{GameSummary, MatchSummary, MatchTaskOutcome};
    use loa_engine::{Color, Outcome};
    use std::sync::Arc;

    fn new(settings: TournamentConfig) -> Tournament {
        Tournament { settings, state: State::default() }
    }

    /// Judged by one match against a fixed player, so a test decides every score.
    fn settings(size: u32, elitism: u32) -> TournamentConfig {
        let judging =
            JudgingConfig { opponents: 0, fixed_opponents: vec!["random:1".into()], ..JudgingConfig::default() };
        TournamentConfig { size, elitism, crossover_rate: 0.5, judging }
    }

    fn config_with(population: usize, settings: &TournamentConfig) -> ExperimentConfig {
        let mut config = ExperimentConfig {
            population,
            mutation: MutationConfig {
                operator: MutationOperator::Gaussian { sigma: 0.1, decay: 1.0, probability: 1.0 },
                ..MutationConfig::default()
            },
            ..ExperimentConfig::default()
        };
        config.selection.scheme = SchemeConfig::new(NAME, settings_table(settings));
        config
    }

    /// The configuration and its scheme from TOML, or the first error's message.
    fn parse(text: &str) -> Result<(ExperimentConfig, Box<dyn Scheme>), String> {
        let config = ExperimentConfig::from_toml(text).map_err(|e| e.to_string())?;
        let scheme = crate::selection::build(&config).map_err(|e| e.to_string())?;
        Ok((config, scheme))
    }

    const TEXT: &str = "population = 8\n\
        [mutation]\nprobability = 1.0\n[mutation.operator.gaussian]\nsigma = 0.05\n\
        [selection.scheme.tournament]\nsize = 3\nelitism = 2\ncrossover_rate = 0.25\nopponents = 2\n\
        fixed_opponents = [\"random:1\"]\nhall_of_fame = 1\n";

    #[test]
    fn settings_parse_round_trip_and_bad_values_are_named() {
        let (config, scheme) = parse(TEXT).unwrap();
        // Tournament selection's own setting: this scheme is the one named.
        assert!(scheme.settings().contains_key("size"));
        let s: TournamentConfig = scheme.settings().try_into().unwrap();
        assert_eq!((s.size, s.elitism, s.crossover_rate), (3, 2, 0.25));
        assert_eq!((s.judging.opponents, s.judging.hall_of_fame, s.judging.fixed_opponents.len()), (2, 1, 1));
        // Written out in full and read back, the same configuration and settings.
        let normal = crate::selection::normalized(&config).unwrap();
        let (again, twice) = parse(&normal.to_toml()).unwrap();
        assert_eq!((again, twice.settings()), (normal, scheme.settings()));
        // Defaults: binary tournaments, one elite.
        let (_, plain) = parse("population = 4\n[selection.scheme.tournament]\nopponents = 1\n").unwrap();
        let s: TournamentConfig = plain.settings().try_into().unwrap();
        assert_eq!((s.size, s.elitism, s.crossover_rate), (2, 1, 0.5));
        let err = |from: &str, to: &str| parse(&TEXT.replace(from, to)).err().unwrap();
        let named = |e: String, key: &str| assert!(e.contains(&format!("`selection.scheme.tournament.{key}`")), "{e}");
        named(err("size = 3", "size = 1"), "size");
        named(err("size = 3", "size = 9"), "size");
        assert!(err("size = 3", "size = 9").contains("must be 2..=8"));
        named(err("size = 3", "size = -2"), "size");
        named(err("elitism = 2", "elitism = 8"), "elitism");
        named(err("crossover_rate = 0.25", "crossover_rate = 1.5"), "crossover_rate");
        named(err("crossover_rate = 0.25", "crossover_rate = nan"), "crossover_rate");
        named(err("size = 3", "sise = 3"), "sise");
        named(err("opponents = 2", "opponents = 8"), "opponents");
        // Itself, 2 opponents, a champion and 15 fixed players: 19 entrants, more than a task holds.
        let many = format!("fixed_opponents = [{}]", vec!["\"random:1\""; 15].join(", "));
        named(err("fixed_opponents = [\"random:1\"]", &many), "opponents");
        // Self-adaptive steps need a scheme that keeps them.
        let adaptive = err(
            "[mutation.operator.gaussian]\nsigma = 0.05",
            "[mutation.operator.self-adaptive]\nsigma = 0.05\ntau = 0.1",
        );
        assert!(
            adaptive.contains("`mutation.operator.self-adaptive`") && adaptive.contains("tournament"),
            "{adaptive}"
        );
    }

    /// Upper 0.001 point of the chi-square distribution with 7 degrees of freedom: 24.322
    /// (NIST/SEMATECH e-Handbook of Statistical Methods, table 1.3.6.7.4; the upper tail of
    /// the regularised gamma function at 24.322 is 0.00100).
    const CHI2_7_AT_0_001: f64 = 24.322;

    /// Pearson's chi-square of `observed` counts against the probabilities `expected`.
    fn chi_square(observed: &[u64], expected: &[f64]) -> f64 {
        let n: u64 = observed.iter().sum();
        observed.iter().zip(expected).map(|(&o, &p)| (o as f64 - n as f64 * p).powi(2) / (n as f64 * p)).sum()
    }

    /// Blickle and Thiele's probability that rank i (1 the fittest) of `n` wins a tournament of
    /// size `k` drawn with replacement.
    fn wins(n: usize, k: u32) -> Vec<f64> {
        let nk = (n as f64).powi(k as i32);
        (1..=n).map(|i| ((n - i + 1) as f64).powi(k as i32) - ((n - i) as f64).powi(k as i32)).map(|w| w / nk).collect()
    }

    /// The winners' ranks (0 the fittest) of `draws` tournaments of size `k` among 8 individuals
    /// of distinct fitness, listed in a shuffled order with serials unrelated to fitness.
    fn rank_histogram(k: u32, draws: usize, rng: &mut GaRng) -> Vec<u64> {
        let mut rank_of: Vec<usize> = (0..8).collect();
        rng.shuffle(&mut rank_of);
        // Individual j has rank rank_of[j]: the fitter the lower, and its serial is j.
        let fitness: Vec<(u64, f64)> = rank_of.iter().enumerate().map(|(j, &r)| (j as u64, 10.0 - r as f64)).collect();
        let mut counts = vec![0; 8];
        for _ in 0..draws {
            counts[rank_of[tournament(&fitness, k, rng)]] += 1;
        }
        counts
    }

    #[test]
    fn tournament_winners_follow_blickle_and_thiele() {
        let mut rng = GaRng::from_seed(2024);
        let draws = 100_000;
        for k in [2, 4] {
            let counts = rank_histogram(k, draws, &mut rng);
            let expected = wins(8, k);
            // Every expected count is at least 5 (k = 4, rank 8: 100 000 / 4 096 ≈ 24), so the
            // chi-square approximation holds.
            assert!(expected.iter().all(|p| p * draws as f64 >= 5.0));
            let chi2 = chi_square(&counts, &expected);
            eprintln!("k = {k}: chi-square {chi2:.3} (7 df, reject above {CHI2_7_AT_0_001}); counts {counts:?}");
            assert!(chi2 < CHI2_7_AT_0_001, "k = {k}: chi-square {chi2} for {counts:?}");
            // The test tells sizes apart: the same draws are far from the law of k ± 1.
            for other in [k - 1, k + 1] {
                let wrong = chi_square(&counts, &wins(8, other));
                eprintln!("k = {k} against the law of k = {other}: chi-square {wrong:.1}");
                assert!(wrong > 10.0 * CHI2_7_AT_0_001, "k = {k} against k = {other}: {wrong}");
            }
        }
    }

    #[test]
    fn ties_go_to_the_older_and_the_fittest_lead() {
        // Serials 5, 3, 4 with scores 1, 1, 2: 4 first, then 3 (older than 5), then 5.
        assert_eq!(fittest_first(&[(5, 1.0), (3, 1.0), (4, 2.0)], 0..3), vec![2, 1, 0]);
        // Between the two tied, the older wins every tournament that draws it.
        let mut rng = GaRng::from_seed(1);
        let older = (0..1000).filter(|_| tournament(&[(5, 1.0), (3, 1.0)], 2, &mut rng) == 1).count();
        // It is drawn at least once with probability 3/4: 750 of 1000, within 5 standard errors.
        assert!((682..=818).contains(&older), "{older}");
    }

    fn game(outcome: Outcome) -> GameSummary {
        GameSummary { outcome, reason: loa_engine::EndReason::Connected, plies: 30 }
    }

    /// Outcomes of tasks that each judge one candidate by one match against the fixed player,
    /// in which candidate c wins `wins[c]` of its two games and loses the others.
    fn outcomes(wins: &[u8]) -> Vec<TaskOutcome> {
        crate::selection::outcomes_of(wins.iter().map(|&w| {
                // The candidate is A: Black in game 0, White in game 1.
                let result = |g: u8| {
                    let mine = if g == 0 { Color::Black } else { Color::White };
                    if g < w { Outcome::Win(mine) } else { Outcome::Win(mine.opponent()) }
                };
                let summary = MatchSummary {
                    a: 0,
                    b: 1,
                    winner: MatchSide::A,
                    criterion: Criterion::WonBoth,
                    games: [game(result(0)), game(result(1))],
                };
                MatchTaskOutcome { matches: vec![summary] }
            }))
    }

    #[test]
    fn elites_survive_unchanged_children_fill_the_population_and_are_made_again_from_their_origins() {
        let config = config_with(6, &settings(3, 2));
        crate::selection::build(&config).unwrap();
        let mut scheme = new(settings(3, 2));
        let (mut rng, mut serials) = (GaRng::from_seed(7), SerialCounter::default());
        let first = initial_population(&config, Topology::default(), &mut rng, &mut serials).unwrap();
        // Generation 1 judges the initial population as it is.
        let (plan, tasks) = scheme
            .plan(&first, &mut Breeding { config: &config, generation: 1, rng: &mut rng, serials: &mut serials })
            .unwrap();
        assert_eq!((tasks.len(), serials.peek()), (6, 6), "one task per individual, nobody bred");
        // Scores: serial 4 wins both games, 1 and 3 one each, the others none.
        let selected = scheme.select(plan, &outcomes(&[0, 1, 0, 1, 2, 0])).unwrap();
        assert_eq!((selected.next.clone(), selected.survivors_kept), (first.clone(), 6));
        let figures = selected.figures.unwrap();
        assert_eq!(
            (figures.text("unit"), figures.number("best"), figures.number("mean")),
            (Some("points"), Some(1.0), Some(4.0 / 12.0))
        );
        assert_eq!(scheme.state.fitness, vec![(0, 0.0), (1, 1.0), (2, 0.0), (3, 1.0), (4, 2.0), (5, 0.0)]);
        // Generation 2 breeds: elites 4, then 1 (older than 3), unchanged; four children.
        let (plan, tasks) = scheme
            .plan(&first, &mut Breeding { config: &config, generation: 2, rng: &mut rng, serials: &mut serials })
            .unwrap();
        let candidates = own_plan::<TournamentPlan>(plan).unwrap().judged.candidates;
        assert_eq!(tasks.len(), 6);
        assert_eq!(candidates.len(), 6, "the population keeps its size");
        assert_eq!(candidates[..2], [first[4].clone(), first[1].clone()]);
        assert!(Arc::ptr_eq(&candidates[0].chromosome, &first[4].chromosome), "an elite is the same network");
        let children: Vec<&Individual> = candidates[2..].iter().collect();
        assert_eq!(children.iter().map(|c| c.serial).collect::<Vec<_>>(), vec![6, 7, 8, 9]);
        assert_eq!(crate::generation::tests::made_again(&children, &first), 4);
        // Their next selection keeps the two elites, and judges the six.
        let mut again = scheme.clone();
        let (plan, _) = again
            .plan(
                &first,
                &mut Breeding {
                    config: &config,
                    generation: 2,
                    rng: &mut GaRng::from_seed(3),
                    serials: &mut SerialCounter::starting_at(6),
                },
            )
            .unwrap();
        let selected = again.select(plan, &outcomes(&[2, 2, 2, 2, 2, 2])).unwrap();
        assert_eq!((selected.next.len(), selected.survivors_kept), (6, 2));
        assert_eq!(again.state.fitness.iter().map(|f| f.1).collect::<Vec<_>>(), vec![2.0; 6]);
        // With no elite, every place is a child.
        let mut none = new(settings(2, 0));
        none.state.fitness = scheme.state.fitness.clone();
        let (plan, _) = none
            .plan(&first, &mut Breeding { config: &config, generation: 2, rng: &mut rng, serials: &mut serials })
            .unwrap();
        let candidates = own_plan::<TournamentPlan>(plan).unwrap().judged.candidates;
        assert_eq!(candidates.len(), 6);
        assert!(candidates.iter().all(|c| c.serial >= 10), "all children");
    }

    #[test]
    fn fitter_parents_breed_more_children() {
        // 8 individuals whose fitness is their serial, tournaments of 4: count the parents of
        // 400 generations' children (about 4 800 tournaments at crossover rate 0.5).
        let settings = TournamentConfig { crossover_rate: 0.5, ..settings(4, 0) };
        let config = config_with(8, &settings);
        let mut scheme = new(settings);
        let (mut rng, mut serials) = (GaRng::from_seed(11), SerialCounter::default());
        let population = initial_population(&config, Topology::default(), &mut rng, &mut serials).unwrap();
        scheme.state.fitness = population.iter().map(|i| (i.serial, i.serial as f64)).collect();
        let mut parents = vec![0u64; 8];
        for generation in 1..=400 {
            let next = scheme
                .breed(&population, &mut Breeding { config: &config, generation, rng: &mut rng, serials: &mut serials })
                .unwrap();
            for child in &next {
                for id in child.chromosome.origin().unwrap().parents() {
                    let p = population.iter().position(|i| i.chromosome.id() == *id).unwrap();
                    parents[p] += 1;
                }
            }
        }
        // The fittest (serial 7) wins 1 − (7/8)⁴ ≈ 41.4 % of tournaments (standard error about
        // 0.7 % here), the least fit 1/4096; in between the fitter win more.
        let total: u64 = parents.iter().sum();
        let best = parents[7] as f64 / total as f64;
        assert!((0.386..0.442).contains(&best), "the fittest parents {best} of children");
        assert!(parents.windows(2).all(|w| w[0] <= w[1]), "{parents:?}");
    }

    #[test]
    fn the_plan_is_a_function_of_the_generator_and_the_state() {
        let config = config_with(6, &settings(3, 1));
        let mut scheme = new(settings(3, 1));
        let (mut rng, mut serials) = (GaRng::from_seed(4), SerialCounter::default());
        let population = initial_population(&config, Topology::default(), &mut rng, &mut serials).unwrap();
        scheme.state.fitness = population.iter().map(|i| (i.serial, (i.serial % 3) as f64)).collect();
        let planned = |seed| {
            let (plan, tasks) = scheme
                .plan(
                    &population,
                    &mut Breeding {
                        config: &config,
                        generation: 3,
                        rng: &mut GaRng::from_seed(seed),
                        serials: &mut serials.clone(),
                    },
                )
                .unwrap();
            (own_plan::<TournamentPlan>(plan).unwrap().judged.candidates, tasks)
        };
        assert_eq!(planned(9), planned(9));
        assert_ne!(planned(9).0, planned(10).0);
    }

    #[test]
    fn the_state_round_trips_and_a_population_it_did_not_judge_is_refused() {
        let config = config_with(3, &settings(2, 1));
        let (mut rng, mut serials) = (GaRng::from_seed(4), SerialCounter::default());
        let population = initial_population(&config, Topology::default(), &mut rng, &mut serials).unwrap();
        let mut scheme = new(settings(2, 1));
        scheme.state.fitness = vec![(0, 1.5), (1, 0.0), (2, 2.0)];
        scheme.state.judged.hall_of_fame = vec![population[2].clone()];
        let saved = scheme.save().unwrap();
        let mut other = new(settings(2, 1));
        other.restore(&saved, &population, &config).unwrap();
        assert_eq!(other.state, scheme.state);
        // The initial state fits any population of the configured size.
        other.restore(&State::default().save().unwrap(), &population, &config).unwrap();
        let err = other.restore(&saved, &population[..2], &config).unwrap_err().to_string();
        assert!(err.contains("a population of 2 individuals: tournament selection keeps the configured 3"), "{err}");
        let mut moved = population.clone();
        moved.swap(0, 1);
        let err = other.restore(&saved, &moved, &config).unwrap_err().to_string();
        assert!(err.contains("not the one whose fitness"), "{err}");
        // A rung beyond the configured ladder (none here) is refused.
        scheme.state.judged.rung = 1;
        let err = other.restore(&scheme.save().unwrap(), &population, &config).unwrap_err().to_string();
        assert!(err.contains("ladder rung 1 of a ladder of 0 rungs"), "{err}");
        // Another layout is named.
        let err =
            other.restore(&crate::codec::encode(&(2u32, State::default())).unwrap(), &population, &config).unwrap_err();
        assert!(err.to_string().contains("layout 2"), "{err}");
    }
}
