//! Evolution strategies after Salimans et al. (OpenAI, 2017), on the same task scheduler: one
//! centre network θ; each generation `population` perturbations θ ± σ·εᵢ in antithetic pairs
//! (εᵢ standard normal, one value per weight), judged by points over several games ([`points`]);
//! the points become centred ranks in [−½, ½] (rank-based fitness shaping: only the order of the
//! points counts, so a few lopsided games cannot dominate the step; equal points share their
//! average rank), and the centre moves by
//!
//! ```text
//! θ ← θ + α / (n σ) · Σᵢ (u(θ + σεᵢ) − u(θ − σεᵢ)) εᵢ
//! ```
//!
//! with n the number of perturbations and α the learning rate (plain gradient ascent), optionally
//! halving every `learning_rate_half_life` generations (and σ every `sigma_half_life`); with
//! `optimizer = "adam"` the estimate `1 / (n σ) · Σᵢ (…) εᵢ` goes to [`Adam`](super::adam)
//! instead, whose step size is α (as OpenAI's ES); with `weight_decay` λ the centre also moves
//! by `−α λ θ` (L2, as OpenAI's ES, but decoupled from Adam's moments). Weights are clamped to
//! the chromosome files' bound. The noise is drawn from the run's generator, so a generation is a
//! function of the state; the stored and benchmarked population is the centre alone (the first
//! generation takes the first individual of the initial population: the first of the random ones,
//! or the `initial_network` alone).
//!
//! With `symmetry` (tied weights, [`loa_engine::network::symmetry`]) ES searches the tied
//! parameters only: each generation first projects the centre onto the tied weights (each weight
//! its class's mean: this moves only the first centre, since projecting tied weights returns
//! them bit for bit), then draws one normal value per class, so every perturbation and every
//! update is tied too. The centre is still stored as a whole chromosome.

use super::adam::AdamState;
use super::points::{self, Seating};
use super::{Memory, Scheme, Selected};
use crate::config::{EsConfig, EsOptimizer, ExperimentConfig};
use crate::generation::individual;
use crate::population::{Individual, SerialCounter};
use crate::rng::GaRng;
use loa_engine::network::symmetry::{Tying, WeightTying};
use loa_engine::network::{MAX_ABS_WEIGHT, Topology};
use loa_engine::tasks::{MatchTask, MatchTaskOutcome};
use std::sync::Arc;

/// The ES scheme with its parameters.
#[derive(Clone, Debug)]
pub struct EvolutionStrategies {
    /// The parameters.
    pub params: EsConfig,
}

/// What a generation's update needs.
pub struct Plan {
    /// The centre's weights.
    centre: Vec<f32>,
    /// Its topology.
    topology: Topology,
    /// The noise of each antithetic pair.
    noise: Vec<Vec<f64>>,
    /// The perturbations: pair i is candidates 2i (+) and 2i + 1 (−).
    candidates: Vec<Individual>,
    /// Who sits where in their tasks.
    seating: Seating,
    /// The ladder's rung they met, if the run climbs one.
    rung: Option<usize>,
    /// The serial issued for the next centre (issued while planning, so the state's counter
    /// moves only with the plan).
    next_serial: u64,
    /// This generation's learning rate α_g.
    learning_rate: f64,
    /// This generation's σ_g.
    sigma: f64,
    /// Adam's moments before this generation's update (empty with plain steps).
    adam: AdamState,
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
    while start < n {
        let mut end = start;
        while end + 1 < n && scores[order[end + 1]] == scores[order[start]] {
            end += 1;
        }
        let average = (start + end) as f64 / 2.0;
        for &i in &order[start..=end] {
            ranks[i] = average / (n - 1) as f64 - 0.5;
        }
        start = end + 1;
    }
    ranks
}

impl Scheme for EvolutionStrategies {
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
        let Some(centre) = survivors.first() else {
            return Err("evolution strategies: the population is empty, so there is no centre".into());
        };
        let topology = centre.chromosome.topology();
        let tying = (self.params.symmetry != WeightTying::None).then(|| Tying::new(self.params.symmetry));
        let theta = match &tying {
            Some(tying) => tying.project(centre.chromosome.weights()),
            None => centre.chromosome.weights().to_vec(),
        };
        let (sigma, bound) = (self.params.sigma_at(generation), f64::from(MAX_ABS_WEIGHT));
        let pairs = config.population / 2;
        let mut noise = Vec::with_capacity(pairs);
        let mut candidates = Vec::with_capacity(2 * pairs);
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
                candidates.push(individual(serials, topology, weights.collect()).map_err(|e| e.to_string())?);
            }
            noise.push(eps);
        }
        let (seating, tasks) = points::plan(&candidates, &self.params.judging(), memory, config, generation, rng);
        let next_serial = serials.issue();
        Ok((
            Plan {
                centre: theta,
                topology,
                noise,
                candidates,
                seating,
                rung: (!self.params.ladder.is_empty()).then_some(memory.rung),
                next_serial,
                learning_rate: self.params.learning_rate_at(generation),
                sigma,
                adam: memory.adam.clone(),
            },
            tasks,
        ))
    }

    fn select(&self, plan: Plan, outcomes: &[MatchTaskOutcome]) -> Result<Selected, String> {
        let scores = points::scores(&plan.seating, plan.candidates.len(), self.params.fitness, outcomes)?;
        let means = scores.means();
        let utility = centred_ranks(&means);
        let n = plan.candidates.len() as f64;
        // Without weight decay the factor is exactly 1, so such runs keep their bits.
        let shrink = 1.0 - plan.learning_rate * self.params.weight_decay;
        let bound = f64::from(MAX_ABS_WEIGHT);
        let mut step = vec![0.0f64; plan.centre.len()];
        for (i, eps) in plan.noise.iter().enumerate() {
            let weight = utility[2 * i] - utility[2 * i + 1];
            for (s, e) in step.iter_mut().zip(eps) {
                *s += weight * e;
            }
        }
        let mut adam = plan.adam;
        match self.params.optimizer {
            EsOptimizer::Plain => {
                // The gradient estimate is step / (n σ); α_g / (n σ) is applied as one factor,
                // as before Adam existed, so plain runs keep their bits.
                let scale = plan.learning_rate / (n * plan.sigma);
                step.iter_mut().for_each(|s| *s *= scale);
            }
            EsOptimizer::Adam => {
                let gradient: Vec<f64> = step.iter().map(|s| s / (n * plan.sigma)).collect();
                // Tied weights share their noise, so their moments and steps stay equal too.
                step = adam.step(&gradient, plan.learning_rate)?;
            }
        }
        let weights: Vec<f32> = plan
            .centre
            .iter()
            .zip(&step)
            .map(|(&w, &s)| (f64::from(w) * shrink + s).clamp(-bound, bound) as f32)
            .collect();
        let chromosome = loa_engine::network::Chromosome::new(plan.topology, weights).map_err(|e| e.to_string())?;
        let centre = Individual { serial: plan.next_serial, chromosome: Arc::new(chromosome) };
        Ok(Selected {
            next: vec![centre],
            tournaments: Vec::new(),
            survivors_kept: 0,
            fitness: Some(scores.summary(plan.rung)),
            steps: Vec::new(),
            adam,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two perturbations of a random centre with `params`, planned for `generation` from `seed`:
    /// the scheme, the run's config, the plan and its tasks.
    fn planned(params: EsConfig, generation: u64, seed: u64) -> (EvolutionStrategies, Plan, Vec<MatchTask>) {
        use crate::config::{SelectionConfig, SelectionScheme};
        use crate::generation::initial_population;
        let config = ExperimentConfig {
            population: 2,
            selection: SelectionConfig { scheme: SelectionScheme::EvolutionStrategies(params.clone()) },
            ..ExperimentConfig::default()
        };
        config.validate().unwrap();
        let scheme = EvolutionStrategies { params };
        let (mut rng, mut serials) = (GaRng::from_seed(seed), SerialCounter::new());
        let start = initial_population(&config, Topology::default(), &mut rng, &mut serials).unwrap();
        let (plan, tasks) =
            scheme.plan(&start, &Memory::default(), &config, generation, &mut rng, &mut serials).unwrap();
        (scheme, plan, tasks)
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
    fn plus_wins() -> [MatchTaskOutcome; 2] {
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
        [MatchTaskOutcome { matches: vec![plus_hosts] }, MatchTaskOutcome { matches: vec![minus_hosts] }]
    }

    #[test]
    fn the_centre_moves_towards_the_perturbation_that_won() {
        let params = EsConfig { sigma: 0.05, learning_rate: 0.01, opponents: 1, ..EsConfig::default() };
        let (scheme, plan, tasks) = planned(params, 1, 12);
        assert_eq!(tasks.len(), 2, "two perturbations, each hosting one match against the other");
        let (theta, eps) = (plan.centre.clone(), plan.noise[0].clone());
        let next = scheme.select(plan, &plus_wins()).unwrap().next;
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
            opponents: 1,
            learning_rate_half_life: 2,
            weight_decay: 0.5,
            ..EsConfig::default()
        };
        // Generation 5 with a half-life of 2: α = 0.2 · 2^(−4/2) = 0.05.
        let (scheme, plan, _) = planned(params, 5, 5);
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
            [MatchTaskOutcome { matches: vec![drawn(0, 1)] }, MatchTaskOutcome { matches: vec![drawn(1, 0)] }];
        let next = scheme.select(plan, &outcomes).unwrap().next;
        for j in [0, 17, 999, 2040] {
            assert_eq!(next[0].chromosome.weights()[j], (f64::from(theta[j]) * 0.975) as f32, "weight {j}");
        }
    }

    #[test]
    fn with_adam_the_first_step_is_alpha_along_the_winners_noise_and_the_moments_are_kept() {
        let params = EsConfig {
            sigma: 0.05,
            learning_rate: 0.01,
            opponents: 1,
            optimizer: EsOptimizer::Adam,
            ..EsConfig::default()
        };
        let (scheme, plan, _) = planned(params, 1, 12);
        let (theta, eps) = (plan.centre.clone(), plan.noise[0].clone());
        let selected = scheme.select(plan, &plus_wins()).unwrap();
        // Adam's first step is α·m̂/√v̂ = α·g/|g|: each weight moves by α = 0.01 towards the
        // + perturbation (the sign of its noise), however large the noise (plain steps: α / (2σ)
        // times it).
        let next = selected.next[0].chromosome.weights();
        for j in [0, 17, 999, 2040] {
            let expected = f64::from(theta[j]) + 0.01 * eps[j].signum();
            assert!((f64::from(next[j]) - expected).abs() < 1e-6, "weight {j}: {} against {expected}", next[j]);
        }
        let adam = selected.adam;
        assert_eq!((adam.updates, adam.first.len(), adam.second.len()), (1, 2041, 2041));
        // m = (1 − β₁)·g with g = ε / (2σ).
        assert!((adam.first[17] - 0.1 * eps[17] / 0.1).abs() < 1e-12);
        // Plain steps keep no moments.
        let (scheme, plan, _) = planned(EsConfig { sigma: 0.05, opponents: 1, ..EsConfig::default() }, 1, 12);
        assert_eq!(scheme.select(plan, &plus_wins()).unwrap().adam, AdamState::default());
    }

    #[test]
    fn tied_runs_perturb_and_move_the_centre_within_the_tied_weights() {
        for (symmetry, optimizer) in [
            (WeightTying::Invariant, EsOptimizer::Plain),
            (WeightTying::Equivariant, EsOptimizer::Plain),
            (WeightTying::Equivariant, EsOptimizer::Adam),
        ] {
            let params =
                EsConfig { sigma: 0.05, learning_rate: 0.01, opponents: 1, symmetry, optimizer, ..EsConfig::default() };
            let (scheme, plan, tasks) = planned(params, 1, 12);
            let tying = Tying::new(symmetry);
            // The random first centre is projected; perturbations stay tied, but differ from it.
            assert_eq!(tying.project(&plan.centre), plan.centre);
            for c in &plan.candidates {
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
            let next = scheme.select(plan, &plus_wins()).unwrap().next;
            let w = next[0].chromosome.weights();
            assert_eq!(tying.project(w), w, "{symmetry:?}: the next centre is tied");
            assert_ne!(w, &before[..], "{symmetry:?}: and it moved");
        }
    }

    #[test]
    fn sigma_decays_with_the_generation_in_the_perturbations_and_the_step() {
        let params =
            EsConfig { sigma: 0.05, learning_rate: 0.01, opponents: 1, sigma_half_life: 2, ..EsConfig::default() };
        // Generation 5 with a half-life of 2: σ = 0.05 · 2^(−4/2) = 0.0125.
        let (scheme, plan, _) = planned(params, 5, 12);
        let (theta, eps) = (plan.centre.clone(), plan.noise[0].clone());
        let bound = f64::from(MAX_ABS_WEIGHT);
        for j in [0, 17, 999, 2040] {
            let plus = (f64::from(theta[j]) + 0.0125 * eps[j]).clamp(-bound, bound) as f32;
            assert_eq!(plan.candidates[0].chromosome.weights()[j], plus, "weight {j} of the + perturbation");
        }
        // θ' = θ + α / (2σ_g) · ε.
        let next = scheme.select(plan, &plus_wins()).unwrap().next;
        for j in [0, 17, 999, 2040] {
            let expected = (f64::from(theta[j]) + 0.01 / (2.0 * 0.0125) * eps[j]) as f32;
            assert_eq!(next[0].chromosome.weights()[j], expected, "weight {j}");
        }
    }
}
