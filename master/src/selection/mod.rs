//! Selection schemes: how a population becomes match tasks, and the tasks' outcomes the next
//! population. The [`Runner`](crate::run::Runner) only submits the tasks a scheme plans and hands
//! it back their outcomes, so a new scheme is a new implementation of [`Scheme`] built from the
//! one unit of work workers play ([`MatchTask`]): no change to the proto or the worker.
//!
//! - [`knockout`]: the thesis's scheme (SPEC §5), the default.
//! - [`mu_plus_lambda`]: (μ + λ) survival on points over several games, with fixed opponents.
//! - [`evolution_strategies`]: OpenAI-style ES: antithetic Gaussian perturbations of one centre,
//!   rank-based fitness shaping.
//! - [`points`]: judging candidates over several games (shared by the last two).
//! - [`adam`]: the Adam optimiser, which evolution strategies can step with.

pub mod adam;
pub mod evolution_strategies;
pub mod knockout;
pub mod mu_plus_lambda;
pub mod points;

pub use evolution_strategies::EvolutionStrategies;
pub use knockout::Knockout;
pub use mu_plus_lambda::MuPlusLambda;

use crate::config::ExperimentConfig;
use crate::population::{Individual, SerialCounter};
use crate::rng::GaRng;
use adam::AdamState;
use loa_engine::tasks::{MatchTask, MatchTaskOutcome};
use loa_records::{FitnessSummary, TournamentRecord};

/// What a run remembers for its scheme besides the population (see
/// [`SchemeMemory`](crate::checkpoint::SchemeMemory), its stored form).
#[derive(Clone, Debug, Default)]
pub struct Memory {
    /// Champions of past epochs, oldest first.
    pub hall_of_fame: Vec<Individual>,
    /// The ladder's current rung.
    pub rung: usize,
    /// The survivors' self-adaptive mutation steps, by serial.
    pub steps: Vec<(u64, f64)>,
    /// Adam's moments, for evolution strategies stepping with Adam (empty otherwise).
    pub adam: AdamState,
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
    /// How the candidates scored, for schemes that score them.
    pub fitness: Option<FitnessSummary>,
    /// The survivors' self-adaptive mutation steps, by serial (empty without them).
    pub steps: Vec<(u64, f64)>,
    /// Adam's moments after this generation's update (empty unless ES steps with Adam).
    pub adam: AdamState,
}

/// A selection scheme.
pub trait Scheme {
    /// What the scheme remembers between planning a generation and selecting from its outcomes.
    type Plan;

    /// Breeds `survivors` into generation `generation`'s candidates and plans the tasks that
    /// judge them, with what the run remembers besides them (`memory`). Draws only from `rng`
    /// and `serials`, so a plan is a function of the state. Fails (naming why) only on an
    /// invalid population, which loading a checkpoint rules out.
    fn plan(
        &self,
        survivors: &[Individual],
        memory: &Memory,
        config: &ExperimentConfig,
        generation: u64,
        rng: &mut GaRng,
        serials: &mut SerialCounter,
    ) -> Result<(Self::Plan, Vec<MatchTask>), String>;

    /// The next population from the planned tasks' outcomes (in task order). An outcome that
    /// does not fit its task (a worker bug) is an error naming the task.
    fn select(&self, plan: Self::Plan, outcomes: &[MatchTaskOutcome]) -> Result<Selected, String>;
}
