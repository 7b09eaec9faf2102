//! Selection schemes: how a population becomes match tasks, and their outcomes the next
//! population. A scheme is a [`Scheme`] with its own settings (`[selection.scheme.NAME]`) and
//! state, found by name in [`SCHEMES`]; a new one is one file and one line in `register!`
//! (`docs/extending.md`).
//! - [`judging`]: judging candidates over several games, with a hall of fame and a ladder.
//! - [`learning`]: what gradient learners share: a network in f64 with its gradient, the TD(λ)
//!   update, the moving average of weights.
//! - [`adam`]: the Adam optimiser evolution strategies can step with.
//! - [`cma`]: the CMA-ES optimiser, ask and tell, knowing nothing of games.
//! - [`error`]: why a scheme could not plan, select or restore its state.

pub mod adam;
pub mod cma;
pub mod error;
pub mod judging;
pub mod learning;

pub use error::{SelectionError, StateError};

use crate::codec::{self, CodecError};
use crate::config::{ConfigError, ExperimentConfig, MutationOperator};
pub use crate::generation::Breeding;
use crate::population::{Individual, SerialCounter};
use loa_engine::tasks::{MatchTask, MatchTaskOutcome, Task, TaskOutcome};
use loa_records::{EpochReport, Figures, TournamentRecord};
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::any::Any;

/// How a scheme is made from its settings (the scheme's own table of the configuration).
pub type Build = fn(&toml::Table) -> Result<Box<dyn Scheme>, ConfigError>;

/// Declares each listed file as a module and lists its `NAME` and `build` in [`SCHEMES`].
macro_rules! register {
    ($($scheme:ident,)*) => {
        $(pub mod $scheme;)*

        /// Every selection scheme, by the name the configuration gives it.
        pub const SCHEMES: &[(&str, Build)] = &[$(($scheme::NAME, $scheme::build)),*];
    };
}

register! {
    knockout,
    mu_plus_lambda,
    evolution_strategies,
    tournament,
    cma_es,
    td,
    pbt,
}

/// The scheme `config` names, built from its settings and checked against the whole
/// configuration (errors name the key), in its initial state.
pub fn build(config: &ExperimentConfig) -> Result<Box<dyn Scheme>, ConfigError> {
    let chosen = &config.selection.scheme;
    let Some((_, build)) = SCHEMES.iter().find(|(name, _)| *name == chosen.name) else {
        let names: Vec<&str> = SCHEMES.iter().map(|(name, _)| *name).collect();
        let why = format!("unknown scheme `{}`: use {}", chosen.name, names.join(", "));
        return Err(ConfigError::Invalid { key: "selection.scheme".into(), why });
    };
    let scheme = build(&chosen.settings)?;
    if config.population < scheme.min_population() {
        let why = format!("must be 2..=100000 (crossover needs a partner), got {}", config.population);
        return Err(ConfigError::Invalid { key: "population".into(), why });
    }
    scheme.validate(config)?;
    if matches!(config.mutation.operator, MutationOperator::SelfAdaptive { .. }) && !scheme.adapts_steps() {
        let why = format!(
            "self-adaptive steps need a scheme that keeps each individual's step, as mu-plus-lambda does; {} does not",
            chosen.name
        );
        return Err(ConfigError::Invalid { key: "mutation.operator.self-adaptive".into(), why });
    }
    Ok(scheme)
}

/// `config` with its scheme's settings written out in full, defaults included, as checkpoints
/// keep them (so a default changed later does not change a run under way).
pub fn normalized(config: &ExperimentConfig) -> Result<ExperimentConfig, ConfigError> {
    let mut config = config.clone();
    config.selection.scheme.settings = build(&config)?.settings();
    Ok(config)
}

/// Checks that weights tied by the board's symmetries (`symmetry`, the setting `key`) fit the
/// run's network: the ties are the thesis network's.
pub(crate) fn check_tying(
    key: &str,
    symmetry: loa_engine::network::symmetry::WeightTying,
    config: &ExperimentConfig,
) -> Result<(), ConfigError> {
    use loa_engine::network::symmetry::WeightTying;
    if symmetry == WeightTying::None || config.network.is_thesis_layout() {
        return Ok(());
    }
    let why = format!(
        "the ties are those of the thesis's network on 8x8, not of {}: set symmetry = \"none\"",
        config.network
    );
    Err(ConfigError::Invalid { key: format!("{key}.symmetry"), why })
}

/// What a scheme planned, handed back to it with the outcomes (its own type inside).
pub type Plan = Box<dyn Any>;

/// A selection scheme with its state.
pub trait Scheme {
    /// Its settings with every default filled in.
    fn settings(&self) -> toml::Table;

    /// Checks its settings against the rest of the configuration (the population, say);
    /// errors name the key, e.g. `selection.scheme.mu-plus-lambda.opponents`.
    fn validate(&self, config: &ExperimentConfig) -> Result<(), ConfigError>;

    /// The smallest population it takes (2 for schemes that breed: crossover needs a partner).
    fn min_population(&self) -> usize {
        2
    }

    /// Whether it keeps each individual's self-adaptive mutation step (the operator needs it).
    fn adapts_steps(&self) -> bool {
        false
    }

    /// Whether a generation keeps survivors of the last, so that their count means something
    /// (a scheme that moves one centre or trains one learner keeps none).
    fn keeps_survivors(&self) -> bool {
        true
    }

    /// The first population its settings give, if any (otherwise the run draws a random one),
    /// with its state set up for the run `config` (a learner's initial weights, say). Issues
    /// serials from `serials` and draws nothing from the run's generator.
    fn given_population(
        &mut self,
        _config: &ExperimentConfig,
        _serials: &mut SerialCounter,
    ) -> Result<Option<Vec<Individual>>, ConfigError> {
        Ok(None)
    }

    /// Breeds `survivors` into the candidates of `b`'s generation and plans the tasks that judge
    /// them. Draws only from `b`'s generator and serials, so a plan is a function of the run's
    /// state, and changes no state of the scheme's.
    fn plan(&self, survivors: &[Individual], b: &mut Breeding) -> Result<(Plan, Vec<Task>), SelectionError>;

    /// The next population from the planned tasks' outcomes (in task order); the scheme's state
    /// moves on with it. An outcome that does not fit its task (a worker bug) is an error naming
    /// the task.
    fn select(&mut self, plan: Plan, outcomes: &[TaskOutcome]) -> Result<Selected, SelectionError>;

    /// The end of an epoch, with its survivors and their benchmark report: a scheme with a hall
    /// of fame inducts the epoch's champion, and says so.
    fn end_epoch(&mut self, _survivors: &[Individual], _report: &EpochReport) -> Option<Champion> {
        None
    }

    /// The network a held-out validation plays at the end of an epoch (`[validation]`): the
    /// epoch's best by benchmark, unless the scheme searches around one network of its own.
    fn validated<'s>(&self, survivors: &'s [Individual], report: &EpochReport) -> Option<&'s Individual> {
        let best = report.champion()?;
        survivors.iter().find(|s| s.serial == best.serial)
    }

    /// What its state says now, in its own figures (`master show` prints them): e.g. a
    /// search's distribution. None by default.
    fn state_figures(&self) -> Figures {
        Figures::new()
    }

    /// Its state as bytes, versioned by the scheme (see [`SchemeState`]).
    fn save(&self) -> Result<Vec<u8>, CodecError>;

    /// Takes up the state `saved` (by [`Scheme::save`]) of a run whose population is
    /// `survivors`, checking both against the configuration.
    fn restore(&mut self, saved: &[u8], survivors: &[Individual], config: &ExperimentConfig) -> Result<(), StateError>;
}

/// What a generation's selection decided.
#[derive(Clone, Debug, PartialEq)]
pub struct Selected {
    /// The next population, in order.
    pub next: Vec<Individual>,
    /// The tournaments played, for `generations.jsonl`.
    pub tournaments: Vec<TournamentRecord>,
    /// Survivors of the previous generation that stayed.
    pub survivors_kept: u32,
    /// What the scheme reports about the generation in its own figures (how its candidates
    /// scored, say), for `generations.jsonl`; `None` if nothing.
    pub figures: Option<Figures>,
    /// Lines the scheme has for `run.log` about the generation (e.g. that its search restarted),
    /// each a sentence without the generation, which the log puts first.
    pub notes: Vec<String>,
}

/// An epoch's champion that joined a scheme's hall of fame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Champion {
    /// Its birth serial.
    pub serial: u64,
    /// Champions in the hall of fame now.
    pub members: usize,
}

/// The settings table of the scheme `name` read as its settings type (whose every field has a
/// default); an unknown key or a value of the wrong type is named.
pub fn parse_settings<T: Serialize + DeserializeOwned>(name: &str, settings: &toml::Table) -> Result<T, ConfigError> {
    let invalid = |key: &str, why: String| ConfigError::Invalid { key: format!("selection.scheme.{name}{key}"), why };
    let parsed: T = settings.clone().try_into().map_err(|e: toml::de::Error| {
        // Every key alone parses, but the one at fault.
        let alone = |(key, value): &(&String, &toml::Value)| {
            toml::Table::from_iter([((*key).clone(), (*value).clone())]).try_into::<T>().is_err()
        };
        let key = settings.iter().find(alone).map_or(String::new(), |(key, _)| format!(".{key}"));
        invalid(&key, crate::config::plain_value(e.message().trim_end()))
    })?;
    // serde cannot deny unknown keys beside a flattened table: they are those not written back.
    let known = settings_table(&parsed);
    match settings.keys().find(|key| !known.contains_key(*key)) {
        Some(key) => {
            let names: Vec<&str> = known.keys().map(String::as_str).collect();
            let hint = crate::config::nearest(key, &names).map_or(String::new(), |k| format!("; did you mean `{k}`?"));
            let list = names.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ");
            Err(invalid(&format!(".{key}"), format!("no such setting{hint} (the settings: {list})")))
        }
        None => Ok(parsed),
    }
}

/// A scheme's settings as a TOML table.
pub fn settings_table<T: Serialize>(settings: &T) -> toml::Table {
    // Settings are plain numbers, strings and lists: they always make a table.
    toml::Table::try_from(settings).unwrap_or_default()
}

/// A scheme's state, saved as bytes: the scheme's version of its layout, then the state.
pub trait SchemeState: Serialize + DeserializeOwned {
    /// The layout of the state this build writes: 1 until the scheme changes its layout.
    const VERSION: u32 = 1;

    /// The state as the scheme saves it.
    fn save(&self) -> Result<Vec<u8>, CodecError> {
        codec::encode(&(Self::VERSION, self))
    }

    /// The state the scheme saved.
    fn load(saved: &[u8]) -> Result<Self, StateError> {
        let (found, used): (u32, usize) = codec::decode_prefix(saved).map_err(StateError::Decode)?;
        if found != Self::VERSION {
            return Err(StateError::Version { found, known: Self::VERSION });
        }
        codec::decode(&saved[used..]).map_err(StateError::Decode)
    }
}

/// Match tasks as tasks, for schemes that judge by matches.
pub(crate) fn match_tasks(tasks: Vec<MatchTask>) -> Vec<Task> {
    tasks.into_iter().map(Task::Match).collect()
}

/// The outcomes of match tasks as match outcomes; another kind of outcome (a worker bug) is an
/// error naming its task.
pub(crate) fn match_outcomes(outcomes: &[TaskOutcome]) -> Result<Vec<MatchTaskOutcome>, SelectionError> {
    outcomes
        .iter()
        .enumerate()
        .map(|(task, o)| match o {
            TaskOutcome::Match(m) => Ok(m.clone()),
            _ => Err(SelectionError::Outcome { task, why: "games came back for a match task".into() }),
        })
        .collect()
}

/// Planned match tasks as match tasks, for tests that look into them.
#[cfg(test)]
pub(crate) fn as_matches(tasks: Vec<Task>) -> Vec<MatchTask> {
    tasks.into_iter().filter_map(|t| if let Task::Match(m) = t { Some(m) } else { None }).collect()
}

/// Match outcomes as task outcomes, for tests that hand them to a scheme.
#[cfg(test)]
pub(crate) fn outcomes_of(outcomes: impl IntoIterator<Item = MatchTaskOutcome>) -> Vec<TaskOutcome> {
    outcomes.into_iter().map(TaskOutcome::Match).collect()
}

/// The plan a scheme made, as its own type.
pub(crate) fn own_plan<P: 'static>(plan: Plan) -> Result<P, SelectionError> {
    plan.downcast::<P>().map(|p| *p).map_err(|_| SelectionError::ForeignPlan)
}

#[cfg(test)]
mod tests {
    use super::evolution_strategies::{EsConfig, EsOptimizer};
    use super::judging::Fitness;
    use super::*;
    use loa_engine::network::symmetry::WeightTying;

    /// The configuration and its scheme from TOML, or the first error's message.
    fn parse(text: &str) -> Result<(ExperimentConfig, Box<dyn Scheme>), String> {
        let config = ExperimentConfig::from_toml(text).map_err(|e| e.to_string())?;
        let scheme = build(&config).map_err(|e| e.to_string())?;
        Ok((config, scheme))
    }

    /// The scheme's full settings, read back as `T`.
    fn settings<T: DeserializeOwned>(text: &str) -> T {
        let (_, scheme) = parse(text).unwrap();
        scheme.settings().try_into().unwrap()
    }

    /// A configuration's TOML read back gives the same configuration and settings.
    fn round_trips(text: &str) {
        let (config, scheme) = parse(text).unwrap();
        let normal = normalized(&config).unwrap();
        let (again, twice) = parse(&normal.to_toml()).unwrap();
        assert_eq!((again, twice.settings()), (normal, scheme.settings()));
    }

    const MU_PLUS_LAMBDA: &str = "population = 8\n\
        [mutation]\nprobability = 1.0\n[mutation.operator.gaussian]\nsigma = 0.05\ndecay = 0.999\n\
        [crossover]\noperator = \"per-neuron\"\n\
        [selection.scheme.mu-plus-lambda]\noffspring = 2\nopponents = 6\ncrossover_rate = 0.3\n\
        fixed_opponents = [\"random:1\", \"aloa:1\"]\n";

    #[test]
    fn schemes_are_found_by_name_and_their_settings_parse_round_trip_and_are_checked() {
        let (c, scheme) = parse(MU_PLUS_LAMBDA).unwrap();
        assert_eq!(c.crossover.operator, loa_engine::breeding::operators::per_neuron::OPERATOR.example());
        assert!(scheme.settings().contains_key("offspring"), "mu-plus-lambda's own setting: the scheme named");
        let m: mu_plus_lambda::MuPlusLambdaConfig = settings(MU_PLUS_LAMBDA);
        assert_eq!((m.offspring, m.judging.opponents, m.crossover_rate), (2, 6, 0.3));
        assert_eq!(m.judging.fixed_opponents.len(), 2);
        round_trips(MU_PLUS_LAMBDA);
        let err = |from: &str, to: &str| parse(&MU_PLUS_LAMBDA.replace(from, to)).err().unwrap();
        assert!(err("opponents = 6", "opponents = 24").contains("`selection.scheme.mu-plus-lambda.opponents`"));
        assert!(err("offspring = 2", "offspring = 0").contains("`selection.scheme.mu-plus-lambda.offspring`"));
        assert!(err("\"aloa:1\"", "\"chess:1\"").contains("unknown player kind `chess`"));
        assert!(err("\"aloa:1\"", "\"randomann:1\"").contains("not a fixed player"));
        assert!(err("\"aloa:1\"", "\"aloa:0\"").contains("1..=12"));
        assert!(err("opponents = 6", "oponents = 6").contains("`selection.scheme.mu-plus-lambda.oponents`"));
        assert!(err("offspring = 2", "offspring = \"two\"").contains("offspring"));
        let unknown = err("mu-plus-lambda", "mu-plus-kappa");
        assert!(unknown.contains("unknown scheme `mu-plus-kappa`: use knockout, mu-plus-lambda"), "{unknown}");
        // The thesis's configuration: the knockout, which takes no settings, and groups of four.
        let (c, scheme) = parse("").unwrap();
        assert_eq!(c.selection.scheme.name.as_str(), "knockout");
        assert!(scheme.settings().is_empty() && normalized(&c).unwrap().to_toml().contains("scheme = \"knockout\""));
        assert!(parse("[selection.scheme.knockout]\nsize = 4\n").err().unwrap().contains("size"));
        assert!(parse("[mutation]\nmutants_per_survivor = 3").err().unwrap().contains("mutants_per_survivor"));
    }

    #[test]
    fn judging_options_parse_and_their_bounds_are_named() {
        let text = format!(
            "{MU_PLUS_LAMBDA}fitness = \"benchmark-score\"\nopening_plies = 4\nfixed_matches = 3\nhall_of_fame = 2\nelitism = 1\n"
        );
        let j = settings::<mu_plus_lambda::MuPlusLambdaConfig>(&text).judging;
        assert_eq!((j.fitness, j.opening_plies, j.fixed_matches, j.hall_of_fame), (Fitness::BenchmarkScore, 4, 3, 2));
        round_trips(&text);
        let err = |from: &str, to: &str| parse(&text.replace(from, to)).err().unwrap();
        assert!(err("opening_plies = 4", "opening_plies = 0").contains("fixed_matches"));
        assert!(err("opening_plies = 4", "opening_plies = 41").contains("opening_plies"));
        assert!(err("elitism = 1", "elitism = 9").contains("elitism"));
        assert!(err("hall_of_fame = 2", "hall_of_fame = 8").contains("entrants"));
        assert!(err("fitness = \"benchmark-score\"", "fitness = \"elo\"").contains("elo"));
        // Groups replace drawn opponents, and must not leave anyone alone.
        assert!(err("hall_of_fame = 2", "groups = 4").contains("opponents = 0"));
        let grouped = text.replace("opponents = 6", "opponents = 0").replace("hall_of_fame = 2", "groups = 4");
        assert_eq!(settings::<mu_plus_lambda::MuPlusLambdaConfig>(&grouped).judging.groups, 4);
        let laddered = format!("{text}ladder = [\"aloa:1\", \"aloa:2\"]\npromote_at = 0.6\n");
        let j = settings::<mu_plus_lambda::MuPlusLambdaConfig>(&laddered).judging;
        assert_eq!((j.ladder.len(), j.promote_at), (2, 0.6));
        let err = |from: &str, to: &str| parse(&laddered.replace(from, to)).err().unwrap();
        assert!(err("promote_at = 0.6", "promote_at = 1.5").contains("promote_at"));
        assert!(err("\"aloa:2\"]", "\"chess:2\"]").contains("ladder"));
        // 3 parents and 6 children in pairs: one of the 9 has no partner.
        let lonely = grouped.replace("population = 8", "population = 3").replace("groups = 4", "groups = 2");
        let err = parse(&lonely).err().unwrap();
        assert!(err.contains("9 candidates in groups of 2 leave one alone"), "{err}");
    }

    #[test]
    fn learning_rate_half_life_and_weight_decay_parse_and_their_bounds_are_named() {
        let text = "population = 8\n[selection.scheme.evolution-strategies]\nlearning_rate = 0.1\n\
                    learning_rate_half_life = 1000\nweight_decay = 0.005\n";
        let es: EsConfig = settings(text);
        assert_eq!((es.learning_rate_half_life, es.weight_decay), (1000, 0.005));
        // α halves every 1000 generations, starting at generation 1.
        assert_eq!(es.learning_rate_at(1), 0.1);
        assert!((es.learning_rate_at(1001) - 0.05).abs() < 1e-15);
        assert!((es.learning_rate_at(3001) - 0.0125).abs() < 1e-15);
        let constant = EsConfig { learning_rate_half_life: 0, ..es.clone() };
        assert_eq!(constant.learning_rate_at(1_000_000), 0.1);
        round_trips(text);
        let err = |from: &str, to: &str| parse(&text.replace(from, to)).err().unwrap();
        // α·λ above 1 would flip the weights' signs.
        assert!(err("weight_decay = 0.005", "weight_decay = 11").contains("weight_decay"));
        assert!(err("weight_decay = 0.005", "weight_decay = -0.1").contains("weight_decay"));
        assert!(err("weight_decay = 0.005", "weight_decay = nan").contains("weight_decay"));
        assert!(
            err("learning_rate_half_life = 1000", "learning_rate_half_life = -1").contains("learning_rate_half_life")
        );
        assert!(parse(&text.replace("population = 8", "population = 7")).err().unwrap().contains("`population`"));
    }

    #[test]
    fn symmetry_and_sigma_half_life_parse_round_trip_and_bad_values_are_named() {
        let text = "population = 8\n[selection.scheme.evolution-strategies]\nsigma = 0.2\nopponents = 1\n\
                    symmetry = \"equivariant\"\nsigma_half_life = 400\n";
        let es: EsConfig = settings(text);
        assert_eq!((es.symmetry, es.sigma_half_life), (WeightTying::Equivariant, 400));
        // σ halves every 400 generations, starting at generation 1.
        assert_eq!(es.sigma_at(1), 0.2);
        assert!((es.sigma_at(801) - 0.05).abs() < 1e-15);
        assert_eq!(EsConfig { sigma_half_life: 0, ..es.clone() }.sigma_at(10_000), 0.2);
        round_trips(text);
        let err = |from: &str, to: &str| parse(&text.replace(from, to)).err().unwrap();
        let bogus = err("\"equivariant\"", "\"rotated\"");
        assert!(bogus.contains("symmetry") || bogus.contains("invariant"), "{bogus}");
        assert!(err("sigma_half_life = 400", "sigma_half_life = -1").contains("sigma_half_life"));
        // Only evolution strategies tie weights.
        let mu = "population = 8\n[selection.scheme.mu-plus-lambda]\nopponents = 1\nsymmetry = \"invariant\"\n";
        assert!(parse(mu).err().unwrap().contains("`selection.scheme.mu-plus-lambda.symmetry`"));
    }

    #[test]
    fn the_optimizer_parses_defaults_to_plain_and_a_bad_name_is_named() {
        let text = "population = 8\n[selection.scheme.evolution-strategies]\nopponents = 1\noptimizer = \"adam\"\n";
        assert_eq!(settings::<EsConfig>(text).optimizer, EsOptimizer::Adam);
        round_trips(text);
        assert_eq!(settings::<EsConfig>(&text.replace("optimizer = \"adam\"\n", "")).optimizer, EsOptimizer::Plain);
        let bogus = parse(&text.replace("adam", "rmsprop")).err().unwrap();
        assert!(bogus.contains("plain") && bogus.contains("adam"), "{bogus}");
        let mu = "population = 8\n[selection.scheme.mu-plus-lambda]\nopponents = 1\noptimizer = \"adam\"\n";
        assert!(parse(mu).err().unwrap().contains("optimizer"));
    }

    #[test]
    fn self_adaptive_steps_need_a_scheme_that_keeps_them() {
        let steps = "population = 4\n[mutation.operator.self-adaptive]\nsigma = 0.05\ntau = 0.3\n";
        let mu = format!("{steps}[selection.scheme.mu-plus-lambda]\nopponents = 1\n");
        assert!(parse(&mu).is_ok());
        for other in ["", "[selection.scheme.evolution-strategies]\nopponents = 1\n"] {
            let err = parse(&format!("{steps}{other}")).err().unwrap();
            assert!(err.contains("`mutation.operator.self-adaptive`") && err.contains("keeps each"), "{err}");
        }
    }
}
