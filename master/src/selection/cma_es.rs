//! CMA-ES as a selection scheme: the optimiser of [`super::cma`] over the network's weights, tied
//! by the board's symmetries (full covariance over 277 or 361 free parameters) or not (the
//! diagonal, sep-CMA-ES, over all 2 041). Each generation's candidates are judged over several
//! games ([`judging`]); CMA-ES minimises, so a candidate's fitness is its negated mean score.
//! The stored population is the distribution's mean alone, as evolution strategies store their
//! centre, so the benchmark and `export --best` see one network. docs/config.md describes every
//! setting.

use super::cma::{Cma, Covariance, Restart};
use super::judging::{self, Judged, JudgingConfig, JudgingState};
use super::{Champion, SchemeState, own_plan, parse_settings, settings_table};
use super::{Plan, Scheme, Selected, SelectionError, StateError};
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
pub const NAME: &str = "cma-es";
const KEY: &str = "selection.scheme.cma-es";

/// The most free parameters a full covariance is learnt over: the thesis network's tied
/// parameters (277 or 361) and small networks' weights (a 5×5 25-12-1 network has 325).
const MAX_FULL_COVARIANCE: usize = 400;
/// At most this many restarts: each doubles the candidates per generation.
const MAX_RESTARTS: u32 = 8;

/// The settings, `[selection.scheme.cma-es]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct CmaEsConfig {
    /// The initial step size σ₀ (and σ after every restart).
    pub sigma: f64,
    /// The mean's learning rate c_m in (0, 1]: the fraction of the way the mean moves to the
    /// best half's weighted mean each generation (1: all of it, the tutorial's default; below 1
    /// averages noisy steps over generations).
    pub mean_learning_rate: f64,
    /// The full covariance (tied weights only) or its diagonal.
    pub covariance: Covariance,
    /// Weights tied by the board's symmetries (`none`, `invariant` or `equivariant`).
    pub symmetry: WeightTying,
    /// Restarts with twice the candidates when the search stalls (IPOP); 0: none.
    pub max_restarts: u32,
    /// A chromosome file (JSON) whose network is the first mean, relative to the working
    /// directory and read once at the start; empty: the first of a random population.
    pub initial_network: String,
    /// How candidates are judged.
    #[serde(flatten)]
    pub judging: JudgingConfig,
}

impl Default for CmaEsConfig {
    fn default() -> Self {
        CmaEsConfig {
            sigma: 0.3,
            mean_learning_rate: 1.0,
            covariance: Covariance::Full,
            symmetry: WeightTying::Equivariant,
            max_restarts: 4,
            initial_network: String::new(),
            judging: JudgingConfig::default(),
        }
    }
}

/// What CMA-ES remembers across generations besides the mean's network.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct State {
    /// The hall of fame and the ladder's rung.
    pub judged: JudgingState,
    /// The optimiser, from the first selection on (before it, the first network is the mean).
    pub cma: Option<Cma>,
}

impl SchemeState for State {}

/// The scheme with its settings and state.
#[derive(Clone, Debug)]
pub struct CmaEs {
    settings: CmaEsConfig,
    state: State,
}

/// The scheme from its settings.
pub fn build(settings: &toml::Table) -> Result<Box<dyn Scheme>, ConfigError> {
    Ok(Box::new(CmaEs { settings: parse_settings(NAME, settings)?, state: State::default() }))
}

/// What a generation's update needs.
struct CmaPlan {
    /// The optimiser as it asked (a fresh one in the first generation).
    cma: Cma,
    /// The candidates' free parameters, as it asked for them.
    asked: Vec<Vec<f64>>,
    judged: Judged,
    topology: Topology,
    /// The serial of the next mean, issued while planning so the counter moves only with it.
    next_serial: u64,
}

impl CmaEs {
    /// The tying of the run's weights, if they are tied.
    fn tying(&self) -> Option<Tying> {
        (self.settings.symmetry != WeightTying::None).then(|| Tying::new(self.settings.symmetry))
    }

    /// The free parameters of the search: 2 041 weights, or one per class of tied weights.
    fn dimension(&self, weights: usize) -> usize {
        self.tying().map_or(weights, |t| t.count())
    }
}

/// The free parameters of `weights`: each class's mean, or the weights themselves.
fn free(tying: Option<&Tying>, weights: &[f32]) -> Vec<f64> {
    match tying {
        None => weights.iter().map(|&w| f64::from(w)).collect(),
        Some(tying) => {
            let mut values = vec![0.0; tying.count()];
            for (&class, &w) in tying.classes().iter().zip(&tying.project(weights)) {
                values[class as usize] = f64::from(w);
            }
            values
        }
    }
}

/// The search as `cma` stands, after a generation that restarted it for `restart`, if any: its
/// step size `sigma`, its candidates per generation `lambda`, its `restarts` so far and, in the
/// generation that restarted it, the criterion that did (`restart`).
pub fn search(cma: &Cma, restart: Option<Restart>) -> Figures {
    Figures::new()
        .with("sigma", cma.sigma())
        .with("lambda", u32::try_from(cma.lambda()).unwrap_or(u32::MAX))
        .with("restarts", cma.restarts())
        .with_some("restart", restart.map(Restart::name))
}

/// `run.log`'s line about a generation that restarted the search for `restart`, which `cma`
/// starts again with.
fn restarted(cma: &Cma, restart: Restart) -> String {
    format!(
        "the search stalled ({}) and restarts from its mean with sigma {} and {} candidates per generation \
         (restart {})",
        restart.name(),
        cma.sigma(),
        cma.lambda(),
        cma.restarts()
    )
}

/// The network of free parameters `x`, within the chromosome files' bound.
fn network(tying: Option<&Tying>, x: &[f64]) -> Vec<f32> {
    let bound = f64::from(MAX_ABS_WEIGHT);
    let weights = tying.map_or_else(|| x.to_vec(), |t| t.expand(x));
    weights.into_iter().map(|w| w.clamp(-bound, bound) as f32).collect()
}

impl Scheme for CmaEs {
    fn keeps_survivors(&self) -> bool {
        false
    }

    fn settings(&self) -> toml::Table {
        settings_table(&self.settings)
    }

    fn validate(&self, config: &ExperimentConfig) -> Result<(), ConfigError> {
        let (s, population) = (&self.settings, config.population);
        let bad = |key: String, why: String| Err(ConfigError::Invalid { key, why });
        if population < 4 {
            let why = format!("CMA-ES recombines the best half of its candidates: at least 4, got {population}");
            return bad("population".into(), why);
        }
        if !(s.sigma > 0.0 && s.sigma <= 10.0) {
            return bad(format!("{KEY}.sigma"), format!("must be in (0, 10], got {}", s.sigma));
        }
        if !(s.mean_learning_rate > 0.0 && s.mean_learning_rate <= 1.0) {
            let why = format!(
                "must be in (0, 1] (1 moves the mean all the way to the best half's weighted mean, \
                 smaller values a fraction of it), got {}",
                s.mean_learning_rate
            );
            return bad(format!("{KEY}.mean_learning_rate"), why);
        }
        let weights = config.network.weight_count();
        if s.covariance == Covariance::Full && s.symmetry == WeightTying::None && weights > MAX_FULL_COVARIANCE {
            let why = format!(
                "a full covariance over all {weights} weights of {} is too slow to decompose every few generations \
                 (at most {MAX_FULL_COVARIANCE}): tie the weights (symmetry = \"equivariant\" or \"invariant\") or \
                 use covariance = \"diagonal\"",
                config.network
            );
            return bad(format!("{KEY}.covariance"), why);
        }
        if s.max_restarts > MAX_RESTARTS {
            let why = format!("at most {MAX_RESTARTS} (each doubles the candidates), got {}", s.max_restarts);
            return bad(format!("{KEY}.max_restarts"), why);
        }
        super::check_tying(KEY, s.symmetry, config)?;
        s.judging.validate(KEY, population, config.board())
    }

    fn given_population(
        &mut self,
        _: &ExperimentConfig,
        serials: &mut SerialCounter,
    ) -> Result<Option<Vec<Individual>>, ConfigError> {
        if self.settings.initial_network.is_empty() {
            return Ok(None);
        }
        let invalid = |why: String| ConfigError::Invalid { key: format!("{KEY}.initial_network"), why };
        let chromosome = Chromosome::read(std::path::Path::new(&self.settings.initial_network))
            .map_err(|e| invalid(e.to_string()))?;
        let first = individual(serials, chromosome.topology(), chromosome.weights().to_vec())
            .map_err(|e| invalid(e.to_string()))?;
        Ok(Some(vec![first]))
    }

    fn plan(&self, survivors: &[Individual], b: &mut Breeding) -> Result<(Plan, Vec<Task>), SelectionError> {
        let Some(mean) = survivors.first() else {
            return Err(SelectionError::TooFewSurvivors { scheme: NAME, found: 0, needed: 1 });
        };
        let tying = self.tying();
        let s = &self.settings;
        let cma = match &self.state.cma {
            Some(cma) => cma.clone(),
            None => {
                let x0 = free(tying.as_ref(), mean.chromosome.weights());
                Cma::new(x0, s.sigma, b.config.population, s.covariance, s.max_restarts)
            }
        };
        let asked = cma.ask(b.rng);
        let topology = mean.chromosome.topology();
        let candidates = asked
            .iter()
            .map(|x| individual(b.serials, topology, network(tying.as_ref(), x)))
            .collect::<Result<Vec<_>, _>>()?;
        let next_serial = b.serials.issue();
        let (judged, tasks) = judging::plan(candidates, &s.judging, &self.state.judged, b);
        Ok((Box::new(CmaPlan { cma, asked, judged, topology, next_serial }), super::match_tasks(tasks)))
    }

    fn select(&mut self, plan: Plan, outcomes: &[TaskOutcome]) -> Result<Selected, SelectionError> {
        let outcomes = &super::match_outcomes(outcomes)?[..];
        let CmaPlan { mut cma, asked, judged, topology, next_serial } = own_plan(plan)?;
        let scores = judged.scores(self.settings.judging.fitness, outcomes)?;
        let fitness: Vec<f64> = scores.means().iter().map(|m| -m).collect();
        let restart = cma.tell_at(&asked, &fitness, self.settings.mean_learning_rate).map_err(SelectionError::Cma)?;
        let chromosome = Chromosome::new(topology, network(self.tying().as_ref(), cma.mean()))?;
        let mean = Individual { serial: next_serial, chromosome: Arc::new(chromosome) };
        let figures = scores.summary().figures(Figures::new().with("search", search(&cma, restart)));
        let notes = restart.map(|r| restarted(&cma, r)).into_iter().collect();
        self.state.cma = Some(cma);
        self.state.judged.promote(&self.settings.judging, &scores);
        Ok(Selected { next: vec![mean], tournaments: Vec::new(), survivors_kept: 0, figures: Some(figures), notes })
    }

    fn end_epoch(&mut self, survivors: &[Individual], report: &EpochReport) -> Option<Champion> {
        self.state.judged.induct(&self.settings.judging, survivors, report)
    }

    /// The mean, which is what the run stands for (epoch 0: the first network, the first mean).
    fn validated<'s>(&self, survivors: &'s [Individual], _: &EpochReport) -> Option<&'s Individual> {
        survivors.first()
    }

    /// The search distribution, once the first selection has made one.
    fn state_figures(&self) -> Figures {
        self.state.cma.as_ref().map_or_else(Figures::new, |cma| Figures::new().with("search", search(cma, None)))
    }

    fn save(&self) -> Result<Vec<u8>, CodecError> {
        self.state.save()
    }

    fn restore(&mut self, saved: &[u8], survivors: &[Individual], _: &ExperimentConfig) -> Result<(), StateError> {
        let state = State::load(saved)?;
        state.judged.check(&self.settings.judging)?;
        if let Some(cma) = &state.cma {
            let weights = survivors.first().map_or(0, |m| m.chromosome.weights().len());
            cma.check(self.dimension(weights), self.settings.covariance).map_err(StateError::Cma)?;
        }
        self.state = state;
        Ok(())
    }
}

#[cfg(test)]
mod tests;
