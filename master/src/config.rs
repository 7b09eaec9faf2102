//! Experiment configuration: a TOML file whose every field defaults to the thesis (SPEC §5).
//!
//! Unknown keys are errors (serde's message names the key), and [`ExperimentConfig::validate`]
//! rejects out-of-range values naming the key, so a typo never silently runs the defaults.

use loa_engine::Rules;
use loa_engine::aloa::AloaKind;
use loa_engine::players::MAX_DEPTH;
use loa_engine::tasks::{FixedPlayer, Reference};
use serde::{Deserialize, Serialize};
use std::path::Path;

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
}

fn one() -> f64 {
    1.0
}

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

/// Selection settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SelectionConfig {
    /// The scheme.
    pub scheme: SelectionScheme,
}

/// Selection schemes (new ones after the thesis's, see [`MutationOperator`]).
///
/// In TOML: `scheme = "knockout"`, or `[selection.scheme.mu-plus-lambda]` with its parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SelectionScheme {
    /// Groups of one survivor, its mutants and a child play a knockout; winners survive.
    Knockout,
    /// (μ + λ): each of the μ = `population` parents makes `offspring` children; parents and
    /// children together play two-game matches against `opponents` others drawn from them (and
    /// each fixed opponent once); the μ with the most points survive (win 1, draw ½ per game,
    /// so being A in a match is no advantage; ties go to the older).
    MuPlusLambda(MuPlusLambdaConfig),
    /// Evolution strategies (OpenAI's ES): one centre network; each generation `population`
    /// perturbations of it in antithetic pairs (centre ± σ·ε), judged by points over several games
    /// like (μ + λ)'s candidates; the centre moves along the rank-weighted sum of the noise. The
    /// population the run stores and benchmarks is the centre alone.
    EvolutionStrategies(EsConfig),
}

/// Parameters of [`SelectionScheme::EvolutionStrategies`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct EsConfig {
    /// The perturbations' standard deviation σ.
    pub sigma: f64,
    /// The step size α of the centre's update.
    pub learning_rate: f64,
    /// Matches each perturbation hosts against others drawn from the perturbations.
    pub opponents: u32,
    /// Fixed opponents each perturbation plays once per generation (as in (μ + λ)).
    pub fixed_opponents: Vec<String>,
}

impl Default for EsConfig {
    fn default() -> Self {
        EsConfig { sigma: 0.02, learning_rate: 0.01, opponents: 4, fixed_opponents: Vec::new() }
    }
}

/// Parameters of [`SelectionScheme::MuPlusLambda`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MuPlusLambdaConfig {
    /// Children per parent (λ = `offspring × population`).
    pub offspring: u32,
    /// Matches each candidate hosts against others drawn uniformly from the candidates (it also
    /// plays those that draw it).
    pub opponents: u32,
    /// Probability that a child is a crossover of its parent and a random other parent before
    /// mutation (otherwise a copy of its parent before mutation).
    pub crossover_rate: f64,
    /// Fixed opponents each candidate plays once more per generation, as player specs:
    /// `random:D[:SALT]`, `aloa:D`, `aloa-normal:D`, `randomann:D:SEED` (a curriculum).
    pub fixed_opponents: Vec<String>,
}

impl Default for MuPlusLambdaConfig {
    fn default() -> Self {
        MuPlusLambdaConfig { offspring: 1, opponents: 4, crossover_rate: 0.5, fixed_opponents: Vec::new() }
    }
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

impl Default for SelectionConfig {
    fn default() -> Self {
        SelectionConfig { scheme: SelectionScheme::Knockout }
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
        key: &'static str,
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
        let bad = |key, why: String| Err(ConfigError::Invalid { key, why });
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

    /// The fixed opponents of a (μ + λ) scheme, parsed (empty for other schemes).
    pub fn fixed_opponents(&self) -> Vec<FixedPlayer> {
        match &self.selection.scheme {
            SelectionScheme::MuPlusLambda(m) => m.fixed_opponents.iter().filter_map(|s| parse_fixed(s).ok()).collect(),
            SelectionScheme::EvolutionStrategies(es) => {
                es.fixed_opponents.iter().filter_map(|s| parse_fixed(s).ok()).collect()
            }
            SelectionScheme::Knockout => Vec::new(),
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

impl MuPlusLambdaConfig {
    fn validate(&self, population: usize) -> Result<(), ConfigError> {
        let bad = |key, why: String| Err(ConfigError::Invalid { key, why });
        let key = "selection.scheme.mu-plus-lambda";
        if !(1..=16).contains(&self.offspring) {
            return bad("selection.scheme.mu-plus-lambda.offspring", format!("must be 1..=16, got {}", self.offspring));
        }
        let candidates = population * (1 + self.offspring as usize);
        if self.opponents as usize >= candidates || self.opponents as usize + self.fixed_opponents.len() > 15 {
            return bad(
                "selection.scheme.mu-plus-lambda.opponents",
                format!(
                    "must be below the {candidates} candidates, and with the fixed opponents at most 15, got {}",
                    self.opponents
                ),
            );
        }
        if !(0.0..=1.0).contains(&self.crossover_rate) {
            return bad(
                "selection.scheme.mu-plus-lambda.crossover_rate",
                format!("must be in [0, 1], got {}", self.crossover_rate),
            );
        }
        if self.opponents == 0 && self.fixed_opponents.is_empty() {
            return bad(key, "needs opponents or fixed_opponents: nothing would judge the candidates".into());
        }
        for spec in &self.fixed_opponents {
            if let Err(why) = parse_fixed(spec) {
                return bad("selection.scheme.mu-plus-lambda.fixed_opponents", why);
            }
        }
        Ok(())
    }
}

impl EsConfig {
    fn validate(&self, population: usize) -> Result<(), ConfigError> {
        let bad = |key, why: String| Err(ConfigError::Invalid { key, why });
        if !population.is_multiple_of(2) {
            return bad(
                "population",
                format!("evolution strategies sample antithetic pairs: must be even, got {population}"),
            );
        }
        if !(self.sigma > 0.0 && self.sigma <= 10.0) {
            return bad(
                "selection.scheme.evolution-strategies.sigma",
                format!("must be in (0, 10], got {}", self.sigma),
            );
        }
        if !(self.learning_rate > 0.0 && self.learning_rate <= 100.0) {
            return bad(
                "selection.scheme.evolution-strategies.learning_rate",
                format!("must be in (0, 100], got {}", self.learning_rate),
            );
        }
        if self.opponents as usize >= population || self.opponents as usize + self.fixed_opponents.len() > 15 {
            return bad(
                "selection.scheme.evolution-strategies.opponents",
                format!(
                    "must be below the population, and with the fixed opponents at most 15, got {}",
                    self.opponents
                ),
            );
        }
        if self.opponents == 0 && self.fixed_opponents.is_empty() {
            return bad(
                "selection.scheme.evolution-strategies",
                "needs opponents or fixed_opponents: nothing would judge the perturbations".into(),
            );
        }
        for spec in &self.fixed_opponents {
            if let Err(why) = parse_fixed(spec) {
                return bad("selection.scheme.evolution-strategies.fixed_opponents", why);
            }
        }
        Ok(())
    }
}

/// A fixed player from its spec: `random:D[:SALT]`, `aloa:D`, `aloa-normal:D`,
/// `randomann:D:SEED`, `randomann-printed:D:SEED` (the experiments' player specs, restricted to
/// players that are the same in every match).
pub fn parse_fixed(spec: &str) -> Result<FixedPlayer, String> {
    match spec.parse::<crate::experiment::PlayerSpec>() {
        Ok(crate::experiment::PlayerSpec::Fixed(player)) => Ok(player),
        Ok(_) => Err(format!(
            "`{spec}` is not a fixed player: use aloa:D, aloa-normal:D, random:D[:SALT] or randomann:D:SEED"
        )),
        Err(e) => Err(e.to_string()),
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
        assert_eq!(c.fixed_opponents().len(), 2);
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
}
