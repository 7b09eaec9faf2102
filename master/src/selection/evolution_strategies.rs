//! Evolution strategies after Salimans et al. (OpenAI, 2017): one centre network θ; each
//! generation `population` perturbations θ ± σ·εᵢ in antithetic pairs, judged over several games
//! ([`judging`]); their mean scores become centred ranks u in [−½, ½] (only the order counts, so
//! a few lopsided games cannot dominate the step), and the centre moves by
//! `α / (n σ) · Σᵢ (u(θ + σεᵢ) − u(θ − σεᵢ)) εᵢ` or by Adam's step on that estimate
//! ([`super::adam`]), minus `α λ θ` with weight decay λ, clamped to the chromosome files' bound.
//! The stored population is the centre alone. With `symmetry` the noise is drawn per class of
//! tied weights, so the centre stays tied. docs/config.md describes every setting.

use super::adam::AdamState;
use super::judging::{self, Judged, JudgingConfig, JudgingState};
use super::{Champion, Plan, Scheme, Selected, SelectionError, StateError};
use super::{SchemeState, own_plan, parse_settings, settings_table};
use crate::codec::CodecError;
use crate::config::{ConfigError, ExperimentConfig};
use crate::generation::{Breeding, individual};
use crate::population::{Individual, SerialCounter};
use loa_engine::network::symmetry::{Tying, WeightTying};
use loa_engine::network::{Chromosome, MAX_ABS_WEIGHT, Topology};
use loa_engine::tasks::{Task, TaskOutcome};
use loa_records::{EpochReport, Figures};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// The scheme's name in the configuration.
pub const NAME: &str = "evolution-strategies";
const KEY: &str = "selection.scheme.evolution-strategies";

/// The settings, `[selection.scheme.evolution-strategies]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct EsConfig {
    /// The perturbations' standard deviation σ.
    pub sigma: f64,
    /// The step size α of the centre's update.
    pub learning_rate: f64,
    /// Generations over which α halves; 0 keeps it constant.
    pub learning_rate_half_life: u32,
    /// The L2 coefficient λ: each update also moves the centre by `−α · λ · θ`.
    pub weight_decay: f64,
    /// A chromosome file (JSON) whose network is the first centre, relative to the working
    /// directory and read once at the start; empty: the first of a random population.
    pub initial_network: String,
    /// Weights tied by the board's symmetries (`none`, `invariant` or `equivariant`, see
    /// [`loa_engine::network::symmetry`]).
    pub symmetry: WeightTying,
    /// Generations over which σ halves; 0 keeps it constant.
    pub sigma_half_life: u32,
    /// How the centre steps along the gradient estimate.
    pub optimizer: EsOptimizer,
    /// How perturbations are judged.
    #[serde(flatten)]
    pub judging: JudgingConfig,
}

/// How evolution strategies turn the gradient estimate into the centre's step.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EsOptimizer {
    /// Plain gradient ascent: the step is α times the estimate.
    #[default]
    Plain,
    /// Adam with step size α; its moments are part of the scheme's state.
    Adam,
}

impl Default for EsConfig {
    fn default() -> Self {
        EsConfig {
            sigma: 0.02,
            learning_rate: 0.01,
            learning_rate_half_life: 0,
            weight_decay: 0.0,
            initial_network: String::new(),
            symmetry: WeightTying::None,
            sigma_half_life: 0,
            optimizer: EsOptimizer::Plain,
            judging: JudgingConfig::default(),
        }
    }
}

/// `value` halved every `half_life` generations from generation 1 on; exactly `value` without a
/// half-life.
fn halved(value: f64, half_life: u32, generation: u64) -> f64 {
    match half_life {
        0 => value,
        h => value * (-(generation.saturating_sub(1) as f64) / f64::from(h)).exp2(),
    }
}

impl EsConfig {
    /// The learning rate of generation `generation` (the first is 1).
    pub fn learning_rate_at(&self, generation: u64) -> f64 {
        halved(self.learning_rate, self.learning_rate_half_life, generation)
    }

    /// σ of generation `generation` (the first is 1).
    pub fn sigma_at(&self, generation: u64) -> f64 {
        halved(self.sigma, self.sigma_half_life, generation)
    }
}

/// What evolution strategies remember across generations besides the centre.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct State {
    /// The hall of fame and the ladder's rung.
    pub judged: JudgingState,
    /// Adam's moments (empty with plain steps).
    pub adam: AdamState,
}

impl SchemeState for State {}

/// The ES scheme with its settings and state.
#[derive(Clone, Debug)]
pub struct EvolutionStrategies {
    settings: EsConfig,
    state: State,
}

/// The scheme from its settings.
pub fn build(settings: &toml::Table) -> Result<Box<dyn Scheme>, ConfigError> {
    Ok(Box::new(EvolutionStrategies { settings: parse_settings(NAME, settings)?, state: State::default() }))
}

/// What a generation's update needs.
struct EsPlan {
    /// The centre's weights and topology.
    centre: Vec<f32>,
    topology: Topology,
    /// The noise of each antithetic pair.
    noise: Vec<Vec<f64>>,
    /// The perturbations: pair i is candidates 2i (+) and 2i + 1 (−).
    judged: Judged,
    /// The serial of the next centre, issued while planning so the run's counter moves only
    /// with the plan.
    next_serial: u64,
    /// This generation's α and σ.
    learning_rate: f64,
    sigma: f64,
}

/// Centred ranks in [−½, ½] of `scores`, equal scores sharing their average rank.
pub fn centred_ranks(scores: &[f64]) -> Vec<f64> {
    let n = scores.len();
    if n < 2 {
        return vec![0.0; n];
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&i, &j| scores[i].total_cmp(&scores[j]));
    let mut ranks = vec![0.0; n];
    let mut start = 0;
    for tie in order.chunk_by(|&i, &j| scores[i] == scores[j]) {
        let average = (2 * start + tie.len() - 1) as f64 / 2.0;
        tie.iter().for_each(|&i| ranks[i] = average / (n - 1) as f64 - 0.5);
        start += tie.len();
    }
    ranks
}

impl Scheme for EvolutionStrategies {
    fn keeps_survivors(&self) -> bool {
        false
    }

    fn settings(&self) -> toml::Table {
        settings_table(&self.settings)
    }

    fn validate(&self, config: &ExperimentConfig) -> Result<(), ConfigError> {
        let (s, population) = (&self.settings, config.population);
        let bad = |key: String, why: String| Err(ConfigError::Invalid { key, why });
        if !population.is_multiple_of(2) {
            let why = format!("evolution strategies sample antithetic pairs: must be even, got {population}");
            return bad("population".into(), why);
        }
        if !(s.sigma > 0.0 && s.sigma <= 10.0) {
            return bad(format!("{KEY}.sigma"), format!("must be in (0, 10], got {}", s.sigma));
        }
        if !(s.learning_rate > 0.0 && s.learning_rate <= 100.0) {
            return bad(format!("{KEY}.learning_rate"), format!("must be in (0, 100], got {}", s.learning_rate));
        }
        if !(0.0..=1.0).contains(&(s.learning_rate * s.weight_decay)) || s.weight_decay < 0.0 {
            let why = format!(
                "must be at least 0 and at most 1 / learning_rate ({}), so an update never flips a weight's sign, \
                 got {}",
                1.0 / s.learning_rate,
                s.weight_decay
            );
            return bad(format!("{KEY}.weight_decay"), why);
        }
        super::check_tying(KEY, s.symmetry, config)?;
        self.settings.judging.validate(KEY, population, config.board())
    }

    fn given_population(
        &mut self,
        _: &ExperimentConfig,
        serials: &mut SerialCounter,
    ) -> Result<Option<Vec<Individual>>, ConfigError> {
        if self.settings.initial_network.is_empty() {
            return Ok(None);
        }
        let path = std::path::Path::new(&self.settings.initial_network);
        let invalid = |why: String| ConfigError::Invalid { key: format!("{KEY}.initial_network"), why };
        // Reading checks the file's topology and weight count.
        let chromosome = Chromosome::read(path).map_err(|e| invalid(e.to_string()))?;
        let first = individual(serials, chromosome.topology(), chromosome.weights().to_vec())
            .map_err(|e| invalid(e.to_string()))?;
        Ok(Some(vec![first]))
    }

    fn plan(&self, survivors: &[Individual], b: &mut Breeding) -> Result<(Plan, Vec<Task>), SelectionError> {
        let Breeding { config, generation, ref mut rng, ref mut serials } = *b;
        let Some(centre) = survivors.first() else {
            return Err(SelectionError::TooFewSurvivors { scheme: NAME, found: 0, needed: 1 });
        };
        let topology = centre.chromosome.topology();
        let symmetry = self.settings.symmetry;
        let tying = (symmetry != WeightTying::None).then(|| Tying::new(symmetry));
        let weights = centre.chromosome.weights();
        let theta = tying.as_ref().map_or_else(|| weights.to_vec(), |tying| tying.project(weights));
        let (sigma, bound) = (self.settings.sigma_at(generation), f64::from(MAX_ABS_WEIGHT));
        let pairs = config.population / 2;
        let (mut noise, mut candidates) = (Vec::with_capacity(pairs), Vec::with_capacity(2 * pairs));
        for _ in 0..pairs {
            let eps: Vec<f64> = match &tying {
                Some(tying) => tying.expand(&(0..tying.count()).map(|_| rng.normal()).collect::<Vec<_>>()),
                None => (0..theta.len()).map(|_| rng.normal()).collect(),
            };
            for sign in [1.0, -1.0] {
                let weights = theta
                    .iter()
                    .zip(&eps)
                    .map(|(&w, &e)| (f64::from(w) + sign * sigma * e).clamp(-bound, bound) as f32);
                candidates.push(individual(serials, topology, weights.collect())?);
            }
            noise.push(eps);
        }
        let next_serial = serials.issue();
        let (judged, tasks) = judging::plan(candidates, &self.settings.judging, &self.state.judged, b);
        let plan = EsPlan {
            centre: theta,
            topology,
            noise,
            judged,
            next_serial,
            learning_rate: self.settings.learning_rate_at(generation),
            sigma,
        };
        Ok((Box::new(plan), super::match_tasks(tasks)))
    }

    fn select(&mut self, plan: Plan, outcomes: &[TaskOutcome]) -> Result<Selected, SelectionError> {
        let outcomes = &super::match_outcomes(outcomes)?[..];
        let plan: EsPlan = own_plan(plan)?;
        let scores = plan.judged.scores(self.settings.judging.fitness, outcomes)?;
        let utility = centred_ranks(&scores.means());
        let n = plan.judged.candidates.len() as f64;
        // Without weight decay the factor is exactly 1.
        let shrink = 1.0 - plan.learning_rate * self.settings.weight_decay;
        let bound = f64::from(MAX_ABS_WEIGHT);
        let mut step = vec![0.0f64; plan.centre.len()];
        for (i, eps) in plan.noise.iter().enumerate() {
            let weight = utility[2 * i] - utility[2 * i + 1];
            for (s, e) in step.iter_mut().zip(eps) {
                *s += weight * e;
            }
        }
        let mut adam = self.state.adam.clone();
        match self.settings.optimizer {
            EsOptimizer::Plain => {
                // The gradient estimate is step / (n σ); α_g / (n σ) is applied as one factor,
                // which fixes the bits of plain runs.
                let scale = plan.learning_rate / (n * plan.sigma);
                step.iter_mut().for_each(|s| *s *= scale);
            }
            EsOptimizer::Adam => {
                let gradient: Vec<f64> = step.iter().map(|s| s / (n * plan.sigma)).collect();
                // Tied weights share their noise, so their moments and steps stay equal too.
                step = adam.step(&gradient, plan.learning_rate).map_err(SelectionError::Adam)?;
            }
        }
        let weights: Vec<f32> = plan
            .centre
            .iter()
            .zip(&step)
            .map(|(&w, &s)| (f64::from(w) * shrink + s).clamp(-bound, bound) as f32)
            .collect();
        let chromosome = Chromosome::new(plan.topology, weights)?;
        let centre = Individual { serial: plan.next_serial, chromosome: Arc::new(chromosome) };
        self.state.adam = adam;
        self.state.judged.promote(&self.settings.judging, &scores);
        let figures = Some(scores.summary().figures(Figures::new()));
        Ok(Selected { next: vec![centre], tournaments: Vec::new(), survivors_kept: 0, figures, notes: Vec::new() })
    }

    fn end_epoch(&mut self, survivors: &[Individual], report: &EpochReport) -> Option<Champion> {
        self.state.judged.induct(&self.settings.judging, survivors, report)
    }

    /// The centre (the first of a random initial population, before the first generation).
    fn validated<'s>(&self, survivors: &'s [Individual], _: &EpochReport) -> Option<&'s Individual> {
        survivors.first()
    }

    fn save(&self) -> Result<Vec<u8>, CodecError> {
        self.state.save()
    }

    fn restore(&mut self, saved: &[u8], survivors: &[Individual], _: &ExperimentConfig) -> Result<(), StateError> {
        let state = State::load(saved)?;
        state.judged.check(&self.settings.judging)?;
        let weights = survivors.first().map_or(0, |c| c.chromosome.weights().len());
        state.adam.check(weights).map_err(StateError::Adam)?;
        self.state = state;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::GaRng;
    use crate::selection::{as_matches, outcomes_of};
    use loa_engine::tasks::{MatchTask, MatchTaskOutcome};

    /// Two perturbations of a random centre with `params`, planned for `generation` from `seed`:
    /// the scheme, the run's config, the plan and its tasks.
    fn planned(params: EsConfig, generation: u64, seed: u64) -> (EvolutionStrategies, EsPlan, Vec<MatchTask>) {
        use crate::config::SchemeConfig;
        use crate::generation::initial_population;
        let mut config = ExperimentConfig { population: 2, ..ExperimentConfig::default() };
        config.selection.scheme = SchemeConfig::new(NAME, settings_table(&params));
        config.validate().unwrap();
        crate::selection::build(&config).unwrap();
        let scheme = EvolutionStrategies { settings: params, state: State::default() };
        let (mut rng, mut serials) = (GaRng::from_seed(seed), SerialCounter::default());
        let start = initial_population(&config, Topology::default(), &mut rng, &mut serials).unwrap();
        let (plan, tasks) = scheme
            .plan(&start, &mut Breeding { config: &config, generation, rng: &mut rng, serials: &mut serials })
            .unwrap();
        (scheme, own_plan(plan).unwrap(), as_matches(tasks))
    }

    /// Judged by one drawn opponent.
    fn one_opponent() -> JudgingConfig {
        JudgingConfig { opponents: 1, ..JudgingConfig::default() }
    }

    #[test]
    fn centred_ranks_span_minus_a_half_to_a_half_and_share_ties() {
        assert_eq!(centred_ranks(&[10.0, 30.0, 20.0]), [-0.5, 0.5, 0.0]);
        // 5 scores, ranks 0..4 over 4: the two 7s share rank 1.5.
        assert_eq!(centred_ranks(&[7.0, 1.0, 9.0, 7.0, 20.0]), [-0.125, -0.5, 0.25, -0.125, 0.5]);
        assert_eq!(centred_ranks(&[4.0, 4.0]), [0.0, 0.0]);
        assert_eq!(centred_ranks(&[3.0]), [0.0]);
    }

    /// The outcomes of two perturbations' tasks (each hosting one match against the other) in
    /// which the + perturbation (candidate 0) wins every game, as A and as B.
    fn plus_wins() -> Vec<TaskOutcome> {
        use loa_engine::game::{Criterion, MatchSide};
        use loa_engine::tasks::{GameSummary, MatchSummary};
        use loa_engine::{Color, Outcome};
        let game =
            |winner| GameSummary { outcome: Outcome::Win(winner), reason: loa_engine::EndReason::Connected, plies: 20 };
        let plus_hosts = MatchSummary {
            a: 0,
            b: 1,
            winner: MatchSide::A,
            criterion: Criterion::WonBoth,
            games: [game(Color::Black), game(Color::White)],
        };
        let minus_hosts =
            MatchSummary { winner: MatchSide::B, games: [game(Color::White), game(Color::Black)], ..plus_hosts };
        outcomes_of([MatchTaskOutcome { matches: vec![plus_hosts] }, MatchTaskOutcome { matches: vec![minus_hosts] }])
    }

    #[test]
    fn the_centre_moves_towards_the_perturbation_that_won() {
        let params = EsConfig { sigma: 0.05, learning_rate: 0.01, judging: one_opponent(), ..EsConfig::default() };
        let (mut scheme, plan, tasks) = planned(params, 1, 12);
        assert_eq!(tasks.len(), 2, "two perturbations, each hosting one match against the other");
        let (theta, eps) = (plan.centre.clone(), plan.noise[0].clone());
        let next = scheme.select(Box::new(plan), &plus_wins()).unwrap().next;
        assert_eq!(next.len(), 1);
        // Utilities +½ and −½: θ' = θ + α / (2σ) · ε.
        for j in [0, 17, 999, 2040] {
            let expected = (f64::from(theta[j]) + 0.01 / (2.0 * 0.05) * eps[j]) as f32;
            assert_eq!(next[0].chromosome.weights()[j], expected, "weight {j}");
        }
        assert_eq!(next[0].serial, 2 + 2, "a fresh serial after the two perturbations");
    }

    #[test]
    fn the_learning_rate_decays_with_the_generation_and_weight_decay_shrinks_the_centre() {
        let params = EsConfig {
            sigma: 0.05,
            learning_rate: 0.2,
            judging: one_opponent(),
            learning_rate_half_life: 2,
            weight_decay: 0.5,
            ..EsConfig::default()
        };
        // Generation 5 with a half-life of 2: α = 0.2 · 2^(−4/2) = 0.05.
        let (mut scheme, plan, _) = planned(params, 5, 5);
        let theta = plan.centre.clone();
        // No outcomes count (every game drawn at the cap): equal ranks, so no gradient step, and
        // the centre only shrinks by 1 − αλ = 1 − 0.05 · 0.5.
        let game = loa_engine::tasks::GameSummary {
            outcome: loa_engine::Outcome::Draw,
            reason: loa_engine::EndReason::PlyCap,
            plies: 100,
        };
        let drawn = |a, b| loa_engine::tasks::MatchSummary {
            a,
            b,
            winner: loa_engine::game::MatchSide::A,
            criterion: loa_engine::game::Criterion::DefaultToA,
            games: [game, game],
        };
        let outcomes =
            outcomes_of([MatchTaskOutcome { matches: vec![drawn(0, 1)] }, MatchTaskOutcome { matches: vec![drawn(1, 0)] }]);
        let next = scheme.select(Box::new(plan), &outcomes).unwrap().next;
        for j in [0, 17, 999, 2040] {
            assert_eq!(next[0].chromosome.weights()[j], (f64::from(theta[j]) * 0.975) as f32, "weight {j}");
        }
    }

    #[test]
    fn with_adam_the_first_step_is_alpha_along_the_winners_noise_and_the_moments_are_kept() {
        let params = EsConfig {
            sigma: 0.05,
            learning_rate: 0.01,
            judging: one_opponent(),
            optimizer: EsOptimizer::Adam,
            ..EsConfig::default()
        };
        let (mut scheme, plan, _) = planned(params, 1, 12);
        let (theta, eps) = (plan.centre.clone(), plan.noise[0].clone());
        let selected = scheme.select(Box::new(plan), &plus_wins()).unwrap();
        let adam = scheme.state.adam.clone();
        // Adam's first step is α·m̂/√v̂ = α·g/|g|: each weight moves by α = 0.01 towards the
        // + perturbation (the sign of its noise), however large the noise (plain steps: α / (2σ)
        // times it).
        let next = selected.next[0].chromosome.weights();
        for j in [0, 17, 999, 2040] {
            let expected = f64::from(theta[j]) + 0.01 * eps[j].signum();
            assert!((f64::from(next[j]) - expected).abs() < 1e-6, "weight {j}: {} against {expected}", next[j]);
        }
        assert_eq!((adam.updates, adam.first.len(), adam.second.len()), (1, 2041, 2041));
        // m = (1 − β₁)·g with g = ε / (2σ).
        assert!((adam.first[17] - 0.1 * eps[17] / 0.1).abs() < 1e-12);
        // Plain steps keep no moments.
        let (mut scheme, plan, _) =
            planned(EsConfig { sigma: 0.05, judging: one_opponent(), ..EsConfig::default() }, 1, 12);
        scheme.select(Box::new(plan), &plus_wins()).unwrap();
        assert_eq!(scheme.state.adam, AdamState::default());
    }

    #[test]
    fn tied_runs_perturb_and_move_the_centre_within_the_tied_weights() {
        for (symmetry, optimizer) in [
            (WeightTying::Invariant, EsOptimizer::Plain),
            (WeightTying::Equivariant, EsOptimizer::Plain),
            (WeightTying::Equivariant, EsOptimizer::Adam),
        ] {
            let params = EsConfig {
                sigma: 0.05,
                learning_rate: 0.01,
                judging: one_opponent(),
                symmetry,
                optimizer,
                ..EsConfig::default()
            };
            let (mut scheme, plan, tasks) = planned(params, 1, 12);
            let tying = Tying::new(symmetry);
            // The random first centre is projected; perturbations stay tied, but differ from it.
            assert_eq!(tying.project(&plan.centre), plan.centre);
            for c in &plan.judged.candidates {
                let w = c.chromosome.weights();
                assert_eq!(tying.project(w), w, "{symmetry:?}: a perturbation is tied");
                assert_ne!(w, &plan.centre[..]);
            }
            // One free normal value per class: as many distinct noise values as classes.
            let mut distinct: Vec<u64> = plan.noise[0].iter().map(|e| e.to_bits()).collect();
            distinct.sort_unstable();
            distinct.dedup();
            assert_eq!(distinct.len(), tying.count(), "{symmetry:?}");
            // The + perturbation wins every game: the centre moves, and stays tied.
            assert_eq!(tasks.len(), 2);
            let before = plan.centre.clone();
            let next = scheme.select(Box::new(plan), &plus_wins()).unwrap().next;
            let w = next[0].chromosome.weights();
            assert_eq!(tying.project(w), w, "{symmetry:?}: the next centre is tied");
            assert_ne!(w, &before[..], "{symmetry:?}: and it moved");
        }
    }

    #[test]
    fn sigma_decays_with_the_generation_in_the_perturbations_and_the_step() {
        let params = EsConfig {
            sigma: 0.05,
            learning_rate: 0.01,
            judging: one_opponent(),
            sigma_half_life: 2,
            ..EsConfig::default()
        };
        // Generation 5 with a half-life of 2: σ = 0.05 · 2^(−4/2) = 0.0125.
        let (mut scheme, plan, _) = planned(params, 5, 12);
        let (theta, eps) = (plan.centre.clone(), plan.noise[0].clone());
        let bound = f64::from(MAX_ABS_WEIGHT);
        for j in [0, 17, 999, 2040] {
            let plus = (f64::from(theta[j]) + 0.0125 * eps[j]).clamp(-bound, bound) as f32;
            assert_eq!(plan.judged.candidates[0].chromosome.weights()[j], plus, "weight {j} of the + perturbation");
        }
        // θ' = θ + α / (2σ_g) · ε.
        let next = scheme.select(Box::new(plan), &plus_wins()).unwrap().next;
        for j in [0, 17, 999, 2040] {
            let expected = (f64::from(theta[j]) + 0.01 / (2.0 * 0.0125) * eps[j]) as f32;
            assert_eq!(next[0].chromosome.weights()[j], expected, "weight {j}");
        }
    }
}
