//! Experiment configuration: a TOML file whose every field defaults to the thesis (docs/spec.md §5).
//! Unknown keys and out-of-range values are errors naming the key, so a typo never silently runs
//! the defaults. Variation operators are the engine's, by name; the selection scheme's table is
//! the scheme's own ([`crate::selection::build`] parses and checks it).

use loa_engine::network::Topology;
use loa_engine::players::MAX_DEPTH;
use loa_engine::tasks::{FixedPlayer, MatchEntrant, MatchFormat, MatchTask};
use loa_engine::{BoardSize, Rules, Start};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

mod explain;
pub(crate) use explain::{nearest, plain_value};
mod mutation;
mod operators;
mod opponent;
mod scheme;
mod validation;

pub use mutation::{DEFAULT_PROBABILITY, MAX_STEP, MIN_STEP, MutationConfig, MutationOperator, child_step};
pub use operators::CrossoverConfig;
pub use opponent::Opponent;
pub use scheme::{SchemeConfig, SelectionConfig};
pub use validation::ValidationConfig;

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
    /// Held-out validation every few epochs, if any (absent: the run writes no
    /// `validation.jsonl` and its checkpoints no clock).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub validation: Option<ValidationConfig>,
    /// The networks' shape: a `[network]` table or a shape's name (docs/config.md). Its board
    /// side is the run's board. The thesis's is not written out, so a thesis configuration's
    /// text is what it was before shapes existed.
    #[serde(skip_serializing_if = "is_thesis")]
    pub network: Topology,
    /// The position every game starts from, on the network's board: `standard`, or
    /// `scrambled-eggs` on 8×8. Not written out when standard, for the same reason.
    #[serde(skip_serializing_if = "is_usual_start")]
    pub start: Start,
}

fn is_thesis(shape: &Topology) -> bool {
    *shape == Topology::THESIS
}

fn is_usual_start(start: &Start) -> bool {
    *start == Start::Standard
}

/// Benchmark settings: the reference player as a kind and a depth, which together are its spec
/// `KIND:DEPTH` (docs/config.md says why not a spec).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BenchmarkConfig {
    /// `aloa` (quad evaluator, the thesis), `aloa-normal` or `random`.
    pub reference: ReferenceKind,
    /// The reference player's search depth.
    pub depth: u32,
    /// An external engine as the reference instead, by its command line (a program speaking
    /// `loa engine`'s protocol): the master plays the benchmark's matches itself. `reference`
    /// and `depth` then name no player.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub engine: Option<String>,
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

impl ReferenceKind {
    /// The kind as the configuration writes it, which is the kind of its player spec.
    pub fn name(self) -> &'static str {
        match self {
            ReferenceKind::Aloa => "aloa",
            ReferenceKind::AloaNormal => "aloa-normal",
            ReferenceKind::Random => "random",
        }
    }
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
            validation: None,
            network: Topology::THESIS,
            start: Start::Standard,
        }
    }
}

impl Default for BenchmarkConfig {
    fn default() -> Self {
        BenchmarkConfig { reference: ReferenceKind::Aloa, depth: 5, engine: None }
    }
}

/// Why a configuration was rejected.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("cannot read {0}: {1}")]
    Io(PathBuf, #[source] std::io::Error),
    /// Not valid TOML, or an unknown key or wrong type, in the file named if any; the text
    /// (`explain::explain`'s) names the key and what it takes.
    #[error("{file}{2}", file = .0.as_ref().map_or(String::new(), |p| format!("{}: ", p.display())))]
    Parse(Option<PathBuf>, #[source] Box<toml::de::Error>, String),
    /// The file is a configuration of another kind: what it is, and the command that takes it.
    #[error("{path} is {1}, which this command does not take: use `master {2} --config {path} --out {3}`", path = .0.display())]
    OtherKind(PathBuf, &'static str, &'static str, &'static str),
    /// A value out of range: the key and why.
    #[error("invalid `{key}`: {why}")]
    Invalid {
        /// The key, e.g. `mutation.probability`.
        key: String,
        /// What is wrong.
        why: String,
    },
}

/// A name with its settings as written: `KEY = "NAME"` (no settings) or a `[KEY.NAME]` table, as
/// the selection scheme and the variation operators are given.
#[derive(Clone, Debug, PartialEq)]
pub struct Named {
    /// The name, e.g. `mu-plus-lambda`.
    pub name: String,
    /// Its settings (empty for none).
    pub settings: toml::Table,
}

impl Named {
    /// `name` with `settings`.
    pub fn new(name: &str, settings: toml::Table) -> Named {
        Named { name: name.to_owned(), settings }
    }
}

impl Serialize for Named {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if self.settings.is_empty() {
            serializer.serialize_str(&self.name)
        } else {
            std::collections::BTreeMap::from([(&self.name, &self.settings)]).serialize(serializer)
        }
    }
}

impl<'de> Deserialize<'de> for Named {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Named, D::Error> {
        use serde::de::Error as _;
        match toml::Value::deserialize(deserializer)? {
            toml::Value::String(name) => Ok(Named { name, settings: toml::Table::new() }),
            toml::Value::Table(table) if table.len() == 1 => match table.into_iter().next() {
                Some((name, toml::Value::Table(settings))) => Ok(Named { name, settings }),
                _ => Err(D::Error::custom("a NAME table must hold NAME's settings")),
            },
            _ => Err(D::Error::custom("expected `\"NAME\"` or one NAME table of its settings")),
        }
    }
}

/// The value of type `T` a TOML text holds (serde's errors name the key).
pub(crate) fn parse_toml<T: DeserializeOwned>(text: &str) -> Result<T, ConfigError> {
    toml::from_str(text).map_err(|e| {
        let explained = explain::explain(text, &e);
        ConfigError::Parse(None, Box::new(e), explained)
    })
}

/// A kind of configuration file the master reads: what a file of it is, the command that takes
/// it, and whether a text reads as one. A file refused as one kind is named as another kind it
/// reads as ([`ConfigError::OtherKind`]); `crate::files` lists every kind.
#[derive(Clone, Copy, Debug)]
pub struct FileKind {
    /// What a file of the kind is, e.g. `a run configuration`.
    pub what: &'static str,
    /// The `master` command that takes it, e.g. `run`.
    pub command: &'static str,
    /// What that command's `--out` names, e.g. `RUN_DIR`.
    pub out: &'static str,
    /// Whether a TOML text reads as this kind (its keys and types, before any range check).
    pub reads: fn(&str) -> bool,
}

/// The TOML text of the file at `path`, read by `parse` (errors name the file, and name the
/// kind of `kinds` it is when it does not read as the kind asked for).
pub(crate) fn read_toml<T>(
    path: &Path,
    parse: impl Fn(&str) -> Result<T, ConfigError>,
    kinds: &[FileKind],
) -> Result<T, ConfigError> {
    // A configuration is a few KB; the bound turns a device or a runaway file into an error.
    let text =
        loa_engine::files::read_text_at_most(path, 16 << 20).map_err(|e| ConfigError::Io(path.to_path_buf(), e))?;
    parse(&text).map_err(|e| match e {
        // It did not read as the kind asked for, so a kind it reads as is another.
        ConfigError::Parse(None, e, explained) => match kinds.iter().find(|kind| (kind.reads)(&text)) {
            Some(kind) => ConfigError::OtherKind(path.to_path_buf(), kind.what, kind.command, kind.out),
            None => ConfigError::Parse(Some(path.to_path_buf()), e, explained),
        },
        other => other,
    })
}

impl ExperimentConfig {
    /// The kind of file a run configuration is (`crate::files` reads it).
    pub const FILE: FileKind = FileKind {
        what: "a run configuration",
        command: "run",
        out: "RUN_DIR",
        reads: |text| parse_toml::<ExperimentConfig>(text).is_ok(),
    };

    /// Parses and validates TOML text.
    pub fn from_toml(text: &str) -> Result<ExperimentConfig, ConfigError> {
        let config: ExperimentConfig = parse_toml(text)?;
        config.validate()?;
        Ok(config)
    }

    /// The configuration as TOML (what a run directory keeps beside its checkpoints).
    pub fn to_toml(&self) -> String {
        toml::to_string(self).unwrap_or_else(|e| format!("# cannot print the configuration: {e}\n"))
    }

    /// Checks every value's range, but for the scheme's own settings (see
    /// [`crate::selection::build`]).
    pub fn validate(&self) -> Result<(), ConfigError> {
        let bad = |key: &str, why: String| Err(ConfigError::Invalid { key: key.into(), why });
        if i64::try_from(self.seed).is_err() {
            // Checkpoints keep the configuration as TOML, whose integers are signed.
            return bad("seed", format!("must be at most {}, got {}", i64::MAX, self.seed));
        }
        // A scheme sets its own least population (`selection::build`): 2 to breed, 1 to learn.
        if !(1..=100_000).contains(&self.population) {
            let why = format!("must be 1..=100000, got {}", self.population);
            return bad("population", why);
        }
        for (key, count) in [("epochs", self.epochs), ("generations_per_epoch", self.generations_per_epoch)] {
            if count == 0 {
                return bad(key, "must be at least 1".into());
            }
        }
        for (key, depth) in [("network_depth", self.network_depth), ("benchmark.depth", self.benchmark.depth)] {
            if depth == 0 || depth > MAX_DEPTH {
                return bad(key, format!("must be 1..={MAX_DEPTH}, got {depth}"));
            }
        }
        self.reference()?;
        self.mutation.check()?;
        self.crossover.check()?;
        if self.rules.ply_cap == 0 || self.rules.ply_cap > 10_000 {
            return bad("rules.ply_cap", format!("must be 1..=10000 so every game ends, got {}", self.rules.ply_cap));
        }
        if let Err(e) = self.start.position(self.board()) {
            return bad("start", e.to_string());
        }
        // Each operator says which networks it fits.
        for (key, variation) in [
            ("crossover.operator", self.crossover.operator),
            ("mutation.operator", self.mutation.operator.variation(1)),
        ] {
            let operator = variation.operator();
            if let Err(why) = (operator.fits)(self.network) {
                return bad(key, format!("`{}` {why}", operator.name));
            }
        }
        self.validation.as_ref().map_or(Ok(()), |v| v.check(self.board()))
    }

    /// The board every game is played on: the one the network reads.
    pub fn board(&self) -> BoardSize {
        // A shape's side is 5..=8 by construction, so this falls back only on a bug.
        BoardSize::new(self.network.side()).unwrap_or_default()
    }

    /// A match task of `entrants` in `format`, at the run's network depth, rules, board and start.
    pub fn task(&self, entrants: Vec<MatchEntrant>, format: MatchFormat) -> MatchTask {
        MatchTask {
            entrants,
            network_depth: self.network_depth,
            rules: self.rules,
            board: self.board(),
            start: self.start,
            format,
        }
    }

    /// The benchmark's reference player: the spec `KIND:DEPTH` of `[benchmark]` (`random:D` has
    /// the salt 0), or its `engine`. An error names `benchmark` if that is no fixed player (a
    /// depth out of range), or `benchmark.engine` if the command line is blank.
    pub fn reference(&self) -> Result<Opponent, ConfigError> {
        match &self.benchmark.engine {
            Some(command) => Opponent::parse("benchmark.engine", &format!("engine:{command}")),
            None => fixed_player("benchmark", &format!("{}:{}", self.benchmark.reference.name(), self.benchmark.depth))
                .map(Opponent::Fixed),
        }
    }
}

/// The fixed players (the same in every match) of `specs`, in order; a spec that is not one is an
/// error naming the setting `key`, the spec and the forms to use.
pub(crate) fn fixed_players(key: &str, specs: &[String]) -> Result<Vec<FixedPlayer>, ConfigError> {
    specs.iter().map(|spec| fixed_player(key, spec)).collect()
}

fn fixed_player(key: &str, spec: &str) -> Result<FixedPlayer, ConfigError> {
    spec.parse::<FixedPlayer>().map_err(|e| ConfigError::Invalid { key: key.to_owned(), why: e.to_string() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bad_value_or_key_is_said_in_the_files_terms() {
        let err = |text: &str| ExperimentConfig::from_toml(text).unwrap_err().to_string();
        let e = err("population = -5\n");
        assert!(e.contains("`population` must be a whole number from 0 to") && e.ends_with("not -5\n"), "{e}");
        assert!(!e.contains("usize"), "{e}");
        let e = err("seed = 1\n[benchmark]\ndepth = \"five\"\n");
        assert!(e.contains("`benchmark.depth` must be a whole number from 0 to"), "{e}");
        let e = err("popluation = 4\n");
        assert!(e.contains("unknown key `popluation`; did you mean `population`?"), "{e}");
        // A scheme's own settings are read as it is built.
        let scheme = |text: &str| {
            let config = ExperimentConfig::from_toml(text).unwrap();
            crate::selection::build(&config).err().unwrap().to_string()
        };
        let e = scheme("population = 24\n[selection.scheme.evolution-strategies]\nsigmaa = 0.3\n");
        assert!(
            e.contains("`selection.scheme.evolution-strategies.sigmaa`: no such setting; did you mean `sigma`?"),
            "{e}"
        );
        let e = scheme("population = 1\n[selection.scheme.td]\nbatch = -3\n");
        assert!(e.contains("`selection.scheme.td.batch`: must be a whole number from 0 to"), "{e}");
        let e = err("[benchmark]\nreferance = \"aloa\"\n");
        assert!(e.contains("unknown key `referance` in [benchmark]; did you mean `reference`?"), "{e}");
    }

    #[test]
    fn empty_file_is_the_thesis() {
        let c = ExperimentConfig::from_toml("").unwrap();
        assert_eq!(c, ExperimentConfig::default());
        assert_eq!((c.population, c.generations_per_epoch, c.network_depth, c.benchmark.depth), (62, 10, 3, 5));
        assert_eq!(c.mutation.operator.probability(), Some(0.15));
        assert_eq!(c.mutation.operator.variation(1).name(), "uniform-reset");
        assert_eq!(c.crossover.operator.name(), "single-point");
        assert_eq!(c.rules.ply_cap, 100);
    }

    #[test]
    fn the_reference_is_the_spec_of_its_kind_and_depth() {
        use loa_engine::aloa::AloaKind;
        for (kind, player) in [
            ("aloa", FixedPlayer::Aloa { evaluator: AloaKind::Quad, depth: 4 }),
            ("aloa-normal", FixedPlayer::Aloa { evaluator: AloaKind::Normal, depth: 4 }),
            ("random", FixedPlayer::Random { depth: 4, salt: 0 }),
        ] {
            let text = format!("[benchmark]\nreference = \"{kind}\"\ndepth = 4\n");
            let c = ExperimentConfig::from_toml(&text).unwrap();
            assert_eq!((c.reference().unwrap(), c.benchmark.reference.name()), (Opponent::Fixed(player), kind));
            // Written back in the form it was read.
            assert!(c.to_toml().contains(&text), "{}", c.to_toml());
        }
        let deep = ExperimentConfig {
            benchmark: BenchmarkConfig { depth: 40, ..BenchmarkConfig::default() },
            ..ExperimentConfig::default()
        };
        let why = deep.reference().unwrap_err().to_string();
        assert!(why.starts_with("invalid `benchmark`: bad player `aloa:40`: the depth must be 1..=12"), "{why}");
        let err = ExperimentConfig::from_toml("[benchmark]\nreference = \"aloa:5\"").unwrap_err().to_string();
        assert!(err.contains("aloa:5") && err.contains("aloa-normal"), "{err}");
    }

    #[test]
    fn an_engine_may_be_the_reference_and_is_written_only_when_given() {
        let text = "[benchmark]\nengine = \"target/release/loa engine --player aloa:5\"\n";
        let c = ExperimentConfig::from_toml(text).unwrap();
        assert_eq!(c.reference().unwrap(), Opponent::Engine("target/release/loa engine --player aloa:5".into()));
        assert!(c.to_toml().contains("engine = \"target/release/loa engine --player aloa:5\""), "{}", c.to_toml());
        assert!(!ExperimentConfig::default().to_toml().contains("engine"), "a run without one writes as before");
        let blank = ExperimentConfig::from_toml("[benchmark]\nengine = \" \"\n").unwrap_err().to_string();
        assert!(blank.contains("`benchmark.engine`") && blank.contains("missing the command line"), "{blank}");
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
        assert!(err("population = 0").contains("`population`"));
        // One is a learner's population; a scheme that breeds refuses it.
        let one = ExperimentConfig::from_toml("population = 1").unwrap();
        let breeds = crate::selection::build(&one).err().unwrap().to_string();
        assert!(breeds.contains("`population`") && breeds.contains("crossover needs a partner"), "{breeds}");
        assert!(err("[mutation]\nprobability = 1.5").contains("`mutation.probability`"));
        assert!(err("network_depth = 0").contains("`network_depth`"));
        assert!(err("[benchmark]\ndepth = 40").contains("`benchmark.depth`"));
        assert!(err("[rules]\nply_cap = 0").contains("`rules.ply_cap`"));
        assert!(err("[rules]\nno_moves = \"explodes\"").contains("explodes"));
        assert!(err("population = \"many\"").contains("population"));
        assert!(err("seed = 9223372036854775808").contains("seed"));
        let gaussian =
            |sigma: &str, decay: &str| format!("[mutation.operator.gaussian]\nsigma = {sigma}\ndecay = {decay}\n");
        assert!(err(&gaussian("-1", "0.9")).contains("`mutation.operator.gaussian.sigma`"));
        assert!(err(&gaussian("0.1", "1.5")).contains("`mutation.operator.gaussian.decay`"));
        // The scheme's table is only carried: the scheme checks it.
        let c = ExperimentConfig::from_toml("[selection.scheme.anything]\nopponents = 1\n").unwrap();
        assert_eq!(c.selection.scheme.name, "anything");
        let small =
            ExperimentConfig::from_toml("[network]\nboard_side = 5\ninputs = [\"board\"]\nhidden = [12]").unwrap();
        assert_eq!((small.network.to_string().as_str(), small.board().side()), ("5x5-board-25-12-1", 5));
        let eggs = err("network = \"5x5-board-25-12-1\"\nstart = \"scrambled-eggs\"");
        assert!(eggs.contains("`start`") && eggs.contains("8x8 board only"), "{eggs}");
        // The operator says why it does not fit; the configuration names the key and the operator.
        let per_neuron = err("network = \"5x5-board-25-12-1\"\n[crossover]\noperator = \"per-neuron\"");
        assert_eq!(
            per_neuron,
            "invalid `crossover.operator`: `per-neuron` crosses the hidden units of the thesis's network, not of \
             5x5-board-25-12-1: use single-point or uniform"
        );
        assert!(err("start = \"sideways\"").contains("sideways"));
        assert!(err("[network]\nhiden = [12]").contains("unknown key `hiden` in [network]; did you mean `hidden`?"));
        assert!(err("[network]\nhidden = [12, 0]").contains("hidden: layer 2 has 0 units"));
        assert!(err("network = \"board-nonad-99-20-1\"").contains("write 100"));
        let thesis = ExperimentConfig::from_toml("[network]\nhidden = [20]").unwrap();
        assert_eq!(thesis, ExperimentConfig::default());
        let text = thesis.to_toml();
        assert!(!text.lines().any(|l| l.starts_with("network ") || l == "[network]"), "not written out: {text}");
        let wrong = err("[selection]\nscheme = 3");
        assert!(wrong.contains("scheme = 3") && wrong.contains("expected `\"NAME\"`"), "{wrong}");
    }
}
