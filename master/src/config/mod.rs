//! Experiment configuration: a TOML file whose every field defaults to the thesis (SPEC §5).
//!
//! Unknown keys are errors (serde's message names the key), and [`ExperimentConfig::validate`]
//! rejects out-of-range values naming the key, so a typo never silently runs the defaults.

use loa_engine::Rules;
use loa_engine::aloa::AloaKind;
use loa_engine::players::MAX_DEPTH;
use loa_engine::tasks::Reference;
use serde::{Deserialize, Serialize};
use std::path::Path;

mod schemes;

pub use schemes::{
    EsConfig, EsOptimizer, Fitness, Judging, MuPlusLambdaConfig, SelectionConfig, SelectionScheme, parse_fixed,
};

/// The whole definition of a run, together with its seed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ExperimentConfig {
    /// The run's seed: with the rest of this file it fixes every population and result.
    pub seed: u64,
    /// Epochs to run (`master resume --epochs` can extend a run).
    pub epochs: u32,
    /// Survivors per generation (the thesis: 62, one per slave).
    pub population: usize,
    /// Generations per epoch; the population is benchmarked and checkpointed after each epoch.
    pub generations_per_epoch: u32,
    /// The network players' search depth in tournaments and benchmarks.
    pub network_depth: u32,
    /// How mutants are made.
    pub mutation: MutationConfig,
    /// How children are made.
    pub crossover: CrossoverConfig,
    /// How survivors are chosen.
    pub selection: SelectionConfig,
    /// The reference player of the per-epoch benchmark.
    pub benchmark: BenchmarkConfig,
    /// The rules variant.
    pub rules: Rules,
}

/// Mutation operator settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MutationConfig {
    /// The operator.
    pub operator: MutationOperator,
    /// Probability that each allele is replaced.
    pub probability: f64,
    /// Mutants each survivor makes (the thesis: 2, which with the survivor and one child makes
    /// groups of four).
    pub mutants_per_survivor: u32,
}

/// Mutation operators. New operators are new variants after the thesis's, so a checkpoint of a
/// thesis run (which stores the configuration) keeps its bytes.
///
/// In TOML: `operator = "uniform-reset"`, or a table for an operator with parameters:
/// `[mutation.operator.gaussian]` with `sigma = 0.05` and `decay = 0.999`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MutationOperator {
    /// Each allele is replaced, with the configured probability, by a fresh uniform value in
    /// [-1, 1) (the thesis).
    UniformReset,
    /// Each allele, with the configured probability, gets Gaussian noise added: standard
    /// deviation `sigma × decay^(generation − 1)`, so steps shrink as the run goes.
    Gaussian {
        /// The standard deviation at generation 1.
        sigma: f64,
        /// The factor the standard deviation shrinks by each generation (1: constant).
        #[serde(default = "one")]
        decay: f64,
    },
    /// Self-adaptive Gaussian steps (Schwefel's evolution strategy, one step per individual):
    /// a child's step is its parent's times `exp(tau · N(0, 1))`, and each allele, with the
    /// configured probability, gets Gaussian noise of that step. Steps that produce good children
    /// survive with them, so the step size is evolved instead of scheduled. (μ + λ) only; the
    /// steps are part of the run's state (checkpoint format 2).
    SelfAdaptive {
        /// The step of the initial population.
        sigma: f64,
        /// The step's learning rate (about 1/√(weights) is usual: 0.022 for 2 041 weights).
        tau: f64,
    },
}

fn one() -> f64 {
    1.0
}

/// The smallest self-adaptive step: below it a lineage would stop moving.
pub const MIN_STEP: f64 = 1e-4;
/// The largest self-adaptive step (the weights' own range).
pub const MAX_STEP: f64 = 10.0;

/// Crossover operator settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CrossoverConfig {
    /// The operator.
    pub operator: CrossoverOperator,
}

/// Crossover operators (new ones after the thesis's, see [`MutationOperator`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CrossoverOperator {
    /// Alleles before a uniform cut in 1..len-1 from the survivor, the rest from the partner.
    SinglePoint,
    /// Each allele from either parent with probability 1/2.
    Uniform,
    /// Each hidden unit from either parent with probability 1/2, its weights travelling together:
    /// its 100 input weights, its bias and its output weight (the output bias from the
    /// survivor). A unit's job survives crossover, which a cut through the row-major weight
    /// order (the thesis's diagnosis) does not guarantee.
    PerNeuron,
}

/// Benchmark settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BenchmarkConfig {
    /// `aloa` (quad evaluator, the thesis), `aloa-normal` or `random`.
    pub reference: ReferenceKind,
    /// The reference player's search depth.
    pub depth: u32,
}

/// Reference players for the benchmark.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ReferenceKind {
    /// ALoA with the quad evaluator.
    Aloa,
    /// ALoA with Winands' normal evaluator.
    AloaNormal,
    /// The random heuristic.
    Random,
}

impl Default for ExperimentConfig {
    fn default() -> Self {
        ExperimentConfig {
            seed: 1,
            epochs: 1000,
            population: 62,
            generations_per_epoch: 10,
            network_depth: 3,
            mutation: MutationConfig::default(),
            crossover: CrossoverConfig::default(),
            selection: SelectionConfig::default(),
            benchmark: BenchmarkConfig::default(),
            rules: Rules::default(),
        }
    }
}

impl Default for MutationConfig {
    fn default() -> Self {
        MutationConfig { operator: MutationOperator::UniformReset, probability: 0.15, mutants_per_survivor: 2 }
    }
}

impl Default for CrossoverConfig {
    fn default() -> Self {
        CrossoverConfig { operator: CrossoverOperator::SinglePoint }
    }
}

impl Default for BenchmarkConfig {
    fn default() -> Self {
        BenchmarkConfig { reference: ReferenceKind::Aloa, depth: 5 }
    }
}

/// Why a configuration was rejected.
#[derive(Debug)]
pub enum ConfigError {
    /// The file could not be read.
    Io(std::path::PathBuf, std::io::Error),
    /// Not valid TOML, or an unknown key or wrong type (the message names it).
    Parse(String),
    /// A value out of range: the key and why.
    Invalid {
        /// The key, e.g. `mutation.probability`.
        key: String,
        /// What is wrong.
        why: String,
    },
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ConfigError::Io(path, e) => write!(f, "cannot read {}: {e}", path.display()),
            ConfigError::Parse(msg) => write!(f, "{msg}"),
            ConfigError::Invalid { key, why } => write!(f, "invalid `{key}`: {why}"),
        }
    }
}

impl std::error::Error for ConfigError {}

impl ExperimentConfig {
    /// The chromosome file an evolution-strategies run starts from, if one is configured.
    pub fn initial_network(&self) -> Option<&std::path::Path> {
        match &self.selection.scheme {
            SelectionScheme::EvolutionStrategies(es) if !es.initial_network.is_empty() => {
                Some(std::path::Path::new(&es.initial_network))
            }
            _ => None,
        }
    }

    /// Parses and validates TOML text.
    pub fn from_toml(text: &str) -> Result<ExperimentConfig, ConfigError> {
        let config: ExperimentConfig = toml::from_str(text).map_err(|e| ConfigError::Parse(e.to_string()))?;
        config.validate()?;
        Ok(config)
    }

    /// Reads, parses and validates a TOML file.
    pub fn read(path: &Path) -> Result<ExperimentConfig, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError::Io(path.to_path_buf(), e))?;
        ExperimentConfig::from_toml(&text).map_err(|e| match e {
            ConfigError::Parse(msg) => ConfigError::Parse(format!("{}: {msg}", path.display())),
            other => other,
        })
    }

    /// The configuration as TOML (what a run directory keeps beside its checkpoints).
    pub fn to_toml(&self) -> String {
        toml::to_string(self).unwrap_or_else(|e| format!("# cannot print the configuration: {e}\n"))
    }

    /// Checks every value's range.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let bad = |key: &str, why: String| Err(ConfigError::Invalid { key: key.into(), why });
        if self.population < 2 {
            return bad(
                "population",
                format!("must be at least 2 (crossover needs a partner), got {}", self.population),
            );
        }
        if self.population > 100_000 {
            return bad("population", format!("must be at most 100000, got {}", self.population));
        }
        if self.epochs == 0 {
            return bad("epochs", "must be at least 1".into());
        }
        if self.generations_per_epoch == 0 {
            return bad("generations_per_epoch", "must be at least 1".into());
        }
        for (key, depth) in [("network_depth", self.network_depth), ("benchmark.depth", self.benchmark.depth)] {
            if depth == 0 || depth > MAX_DEPTH {
                return bad(key, format!("must be 1..={MAX_DEPTH}, got {depth}"));
            }
        }
        let p = self.mutation.probability;
        if !(0.0..=1.0).contains(&p) {
            return bad("mutation.probability", format!("must be in [0, 1], got {p}"));
        }
        match self.mutation.operator {
            MutationOperator::UniformReset => {}
            MutationOperator::Gaussian { sigma, decay } => {
                if !(sigma > 0.0 && sigma <= 10.0) {
                    return bad("mutation.operator.gaussian.sigma", format!("must be in (0, 10], got {sigma}"));
                }
                if !(decay > 0.0 && decay <= 1.0) {
                    return bad("mutation.operator.gaussian.decay", format!("must be in (0, 1], got {decay}"));
                }
            }
            MutationOperator::SelfAdaptive { sigma, tau } => {
                if !(MIN_STEP..=MAX_STEP).contains(&sigma) {
                    return bad(
                        "mutation.operator.self-adaptive.sigma",
                        format!("must be in [{MIN_STEP}, {MAX_STEP}], got {sigma}"),
                    );
                }
                if !(tau > 0.0 && tau <= 1.0) {
                    return bad("mutation.operator.self-adaptive.tau", format!("must be in (0, 1], got {tau}"));
                }
                if !matches!(self.selection.scheme, SelectionScheme::MuPlusLambda(_)) {
                    return bad(
                        "mutation.operator.self-adaptive",
                        "self-adaptive steps need the (mu + lambda) scheme, which keeps each individual's step".into(),
                    );
                }
            }
        }
        if let SelectionScheme::MuPlusLambda(m) = &self.selection.scheme {
            m.validate(self.population)?;
        } else if let SelectionScheme::EvolutionStrategies(es) = &self.selection.scheme {
            es.validate(self.population)?;
        } else if self.mutation.mutants_per_survivor != 2 {
            return bad(
                "mutation.mutants_per_survivor",
                format!(
                    "must be 2: knockout groups are one survivor, two mutants and one child, got {}",
                    self.mutation.mutants_per_survivor
                ),
            );
        }
        if self.rules.ply_cap == 0 || self.rules.ply_cap > 10_000 {
            return bad("rules.ply_cap", format!("must be 1..=10000 so every game ends, got {}", self.rules.ply_cap));
        }
        Ok(())
    }

    /// How a points-judged scheme ((μ + λ), ES) judges its candidates; `None` for the knockout.
    pub fn judging(&self) -> Option<Judging> {
        match &self.selection.scheme {
            SelectionScheme::MuPlusLambda(m) => Some(m.judging()),
            SelectionScheme::EvolutionStrategies(es) => Some(es.judging()),
            SelectionScheme::Knockout => None,
        }
    }

    /// The benchmark's reference player.
    pub fn reference(&self) -> Reference {
        let depth = self.benchmark.depth;
        match self.benchmark.reference {
            ReferenceKind::Aloa => Reference::Aloa { evaluator: AloaKind::Quad, depth },
            ReferenceKind::AloaNormal => Reference::Aloa { evaluator: AloaKind::Normal, depth },
            ReferenceKind::Random => Reference::Random { depth },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_file_is_the_thesis() {
        let c = ExperimentConfig::from_toml("").unwrap();
        assert_eq!(c, ExperimentConfig::default());
        assert_eq!((c.population, c.generations_per_epoch, c.network_depth, c.benchmark.depth), (62, 10, 3, 5));
        assert_eq!(c.mutation.probability, 0.15);
        assert_eq!(c.rules.ply_cap, 100);
    }

    #[test]
    fn round_trips_through_toml() {
        let c = ExperimentConfig { seed: 77, population: 8, ..ExperimentConfig::default() };
        assert_eq!(ExperimentConfig::from_toml(&c.to_toml()).unwrap(), c);
    }

    #[test]
    fn unknown_keys_and_bad_values_are_named() {
        let err = |t: &str| ExperimentConfig::from_toml(t).unwrap_err().to_string();
        assert!(err("populaton = 3").contains("populaton"), "{}", err("populaton = 3"));
        assert!(err("[mutation]\nprobabilty = 0.1").contains("probabilty"));
        assert!(err("population = 1").contains("`population`"));
        assert!(err("[mutation]\nprobability = 1.5").contains("`mutation.probability`"));
        assert!(err("network_depth = 0").contains("`network_depth`"));
        assert!(err("[benchmark]\ndepth = 40").contains("`benchmark.depth`"));
        assert!(err("[rules]\nply_cap = 0").contains("`rules.ply_cap`"));
        assert!(err("[rules]\nno_moves = \"explodes\"").contains("explodes"));
        assert!(err("population = \"many\"").contains("population"));
        assert!(err("[mutation]\nmutants_per_survivor = 3").contains("mutants_per_survivor"));
    }

    const MU_PLUS_LAMBDA: &str = "population = 8\n\
        [mutation]\nprobability = 1.0\n[mutation.operator.gaussian]\nsigma = 0.05\ndecay = 0.999\n\
        [crossover]\noperator = \"per-neuron\"\n\
        [selection.scheme.mu-plus-lambda]\noffspring = 2\nopponents = 6\ncrossover_rate = 0.3\n\
        fixed_opponents = [\"random:1\", \"aloa:1\"]\n";

    #[test]
    fn new_schemes_and_operators_parse_round_trip_and_are_checked() {
        let c = ExperimentConfig::from_toml(MU_PLUS_LAMBDA).unwrap();
        assert_eq!(c.mutation.operator, MutationOperator::Gaussian { sigma: 0.05, decay: 0.999 });
        assert_eq!(c.crossover.operator, CrossoverOperator::PerNeuron);
        let SelectionScheme::MuPlusLambda(m) = &c.selection.scheme else { panic!("{:?}", c.selection) };
        assert_eq!((m.offspring, m.opponents, m.crossover_rate), (2, 6, 0.3));
        assert_eq!(c.judging().unwrap().fixed.len(), 2);
        assert_eq!(ExperimentConfig::from_toml(&c.to_toml()).unwrap(), c);
        let err = |from: &str, to: &str| {
            ExperimentConfig::from_toml(&MU_PLUS_LAMBDA.replace(from, to)).unwrap_err().to_string()
        };
        assert!(err("sigma = 0.05", "sigma = -1").contains("`mutation.operator.gaussian.sigma`"));
        assert!(err("decay = 0.999", "decay = 1.5").contains("`mutation.operator.gaussian.decay`"));
        assert!(err("opponents = 6", "opponents = 24").contains("`selection.scheme.mu-plus-lambda.opponents`"));
        assert!(err("offspring = 2", "offspring = 0").contains("offspring"));
        assert!(err("\"aloa:1\"", "\"chess:1\"").contains("unknown player kind `chess`"));
        assert!(err("\"aloa:1\"", "\"randomann:1\"").contains("not a fixed player"));
        assert!(err("\"aloa:1\"", "\"aloa:0\"").contains("1..=12"));
        assert!(err("opponents = 6", "oponents = 6").contains("oponents"));
        // The thesis's configuration is unchanged by the new variants.
        assert_eq!(ExperimentConfig::from_toml("").unwrap().selection.scheme, SelectionScheme::Knockout);
    }

    #[test]
    fn judging_options_parse_and_their_bounds_are_named() {
        let text = format!(
            "{MU_PLUS_LAMBDA}fitness = \"benchmark-score\"\nopening_plies = 4\nfixed_matches = 3\nhall_of_fame = 2\nelitism = 1\n"
        );
        let c = ExperimentConfig::from_toml(&text).unwrap();
        let j = c.judging().unwrap();
        assert_eq!((j.fitness, j.opening_plies, j.fixed_matches, j.hall_of_fame), (Fitness::BenchmarkScore, 4, 3, 2));
        assert_eq!(ExperimentConfig::from_toml(&c.to_toml()).unwrap(), c);
        let err = |from: &str, to: &str| ExperimentConfig::from_toml(&text.replace(from, to)).unwrap_err().to_string();
        assert!(err("opening_plies = 4", "opening_plies = 0").contains("fixed_matches"));
        assert!(err("opening_plies = 4", "opening_plies = 41").contains("opening_plies"));
        assert!(err("elitism = 1", "elitism = 9").contains("elitism"));
        assert!(err("hall_of_fame = 2", "hall_of_fame = 8").contains("entrants"));
        assert!(err("fitness = \"benchmark-score\"", "fitness = \"elo\"").contains("elo"));
        // Groups replace drawn opponents, and must not leave anyone alone.
        assert!(err("hall_of_fame = 2", "groups = 4").contains("opponents = 0"));
        let grouped = text.replace("opponents = 6", "opponents = 0").replace("hall_of_fame = 2", "groups = 4");
        let c = ExperimentConfig::from_toml(&grouped).unwrap();
        assert_eq!(c.judging().unwrap().groups, 4);
        let laddered = format!("{text}ladder = [\"aloa:1\", \"aloa:2\"]\npromote_at = 0.6\n");
        let j = ExperimentConfig::from_toml(&laddered).unwrap().judging().unwrap();
        assert_eq!((j.ladder.len(), j.promote_at), (2, 0.6));
        let err =
            |from: &str, to: &str| ExperimentConfig::from_toml(&laddered.replace(from, to)).unwrap_err().to_string();
        assert!(err("promote_at = 0.6", "promote_at = 1.5").contains("promote_at"));
        assert!(err("\"aloa:2\"]", "\"chess:2\"]").contains("ladder"));
        // 3 parents and 6 children in pairs: one of the 9 has no partner.
        let lonely = grouped.replace("population = 8", "population = 3").replace("groups = 4", "groups = 2");
        let err = ExperimentConfig::from_toml(&lonely).unwrap_err().to_string();
        assert!(err.contains("9 candidates in groups of 2 leave one alone"), "{err}");
    }

    #[test]
    fn learning_rate_half_life_and_weight_decay_parse_and_their_bounds_are_named() {
        let text = "population = 8\n[selection.scheme.evolution-strategies]\nlearning_rate = 0.1\n\
                    learning_rate_half_life = 1000\nweight_decay = 0.005\n";
        let c = ExperimentConfig::from_toml(text).unwrap();
        let SelectionScheme::EvolutionStrategies(es) = &c.selection.scheme else { panic!("{c:?}") };
        assert_eq!((es.learning_rate_half_life, es.weight_decay), (1000, 0.005));
        // α halves every 1000 generations, starting at generation 1.
        assert_eq!(es.learning_rate_at(1), 0.1);
        assert!((es.learning_rate_at(1001) - 0.05).abs() < 1e-15);
        assert!((es.learning_rate_at(3001) - 0.0125).abs() < 1e-15);
        let constant = EsConfig { learning_rate_half_life: 0, ..es.clone() };
        assert_eq!(constant.learning_rate_at(1_000_000), 0.1);
        assert_eq!(ExperimentConfig::from_toml(&c.to_toml()).unwrap(), c);
        let err = |from: &str, to: &str| ExperimentConfig::from_toml(&text.replace(from, to)).unwrap_err().to_string();
        // α·λ above 1 would flip the weights' signs.
        assert!(err("weight_decay = 0.005", "weight_decay = 11").contains("weight_decay"));
        assert!(err("weight_decay = 0.005", "weight_decay = -0.1").contains("weight_decay"));
        assert!(err("weight_decay = 0.005", "weight_decay = nan").contains("weight_decay"));
        assert!(
            err("learning_rate_half_life = 1000", "learning_rate_half_life = -1").contains("learning_rate_half_life")
        );
    }

    #[test]
    fn symmetry_and_sigma_half_life_parse_round_trip_and_bad_values_are_named() {
        use loa_engine::network::symmetry::WeightTying;
        let text = "population = 8\n[selection.scheme.evolution-strategies]\nsigma = 0.2\nopponents = 1\n\
                    symmetry = \"equivariant\"\nsigma_half_life = 400\n";
        let c = ExperimentConfig::from_toml(text).unwrap();
        let SelectionScheme::EvolutionStrategies(es) = &c.selection.scheme else { panic!("{c:?}") };
        assert_eq!((es.symmetry, es.sigma_half_life), (WeightTying::Equivariant, 400));
        // σ halves every 400 generations, starting at generation 1.
        assert_eq!(es.sigma_at(1), 0.2);
        assert!((es.sigma_at(801) - 0.05).abs() < 1e-15);
        assert_eq!(EsConfig { sigma_half_life: 0, ..es.clone() }.sigma_at(10_000), 0.2);
        assert_eq!(ExperimentConfig::from_toml(&c.to_toml()).unwrap(), c);
        let err = |from: &str, to: &str| ExperimentConfig::from_toml(&text.replace(from, to)).unwrap_err().to_string();
        let bogus = err("\"equivariant\"", "\"rotated\"");
        assert!(bogus.contains("symmetry") && bogus.contains("invariant"), "{bogus}");
        assert!(err("sigma_half_life = 400", "sigma_half_life = -1").contains("sigma_half_life"));
        // Only evolution strategies tie weights.
        let mu = "population = 8\n[selection.scheme.mu-plus-lambda]\nopponents = 1\nsymmetry = \"invariant\"\n";
        assert!(ExperimentConfig::from_toml(mu).unwrap_err().to_string().contains("symmetry"));
    }
    #[test]
    fn the_optimizer_parses_defaults_to_plain_and_a_bad_name_is_named() {
        let text = "population = 8\n[selection.scheme.evolution-strategies]\nopponents = 1\noptimizer = \"adam\"\n";
        let c = ExperimentConfig::from_toml(text).unwrap();
        let SelectionScheme::EvolutionStrategies(es) = &c.selection.scheme else { panic!("{c:?}") };
        assert_eq!(es.optimizer, EsOptimizer::Adam);
        assert_eq!(ExperimentConfig::from_toml(&c.to_toml()).unwrap(), c);
        let plain = ExperimentConfig::from_toml(&text.replace("optimizer = \"adam\"\n", "")).unwrap();
        let SelectionScheme::EvolutionStrategies(es) = &plain.selection.scheme else { panic!("{plain:?}") };
        assert_eq!(es.optimizer, EsOptimizer::Plain);
        let bogus = ExperimentConfig::from_toml(&text.replace("adam", "rmsprop")).unwrap_err().to_string();
        assert!(bogus.contains("optimizer") && bogus.contains("plain") && bogus.contains("adam"), "{bogus}");
        let mu = "population = 8\n[selection.scheme.mu-plus-lambda]\nopponents = 1\noptimizer = \"adam\"\n";
        assert!(ExperimentConfig::from_toml(mu).unwrap_err().to_string().contains("optimizer"));
    }
}
