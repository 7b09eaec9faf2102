//! Selection schemes' settings: the thesis's knockout, (μ + λ) and evolution strategies, and how
//! the last two judge their candidates ([`Judging`]).

use super::ConfigError;
use loa_engine::network::symmetry::WeightTying;
use loa_engine::tasks::FixedPlayer;
use serde::{Deserialize, Serialize};

/// Selection settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SelectionConfig {
    /// The scheme.
    pub scheme: SelectionScheme,
}

impl Default for SelectionConfig {
    fn default() -> Self {
        SelectionConfig { scheme: SelectionScheme::Knockout }
    }
}

/// Selection schemes (new ones after the thesis's, see
/// [`MutationOperator`](super::MutationOperator)).
///
/// In TOML: `scheme = "knockout"`, or `[selection.scheme.mu-plus-lambda]` with its parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SelectionScheme {
    /// Groups of one survivor, its mutants and a child play a knockout; winners survive.
    Knockout,
    /// (μ + λ): each of the μ = `population` parents makes `offspring` children; parents and
    /// children together are judged over several games ([`Judging`]); the μ with the most
    /// fitness survive (ties go to the older). With `elitism = k` it is (μ, λ) instead: the k
    /// best parents stay and the other places go to the best children.
    MuPlusLambda(MuPlusLambdaConfig),
    /// Evolution strategies (OpenAI's ES): one centre network; each generation `population`
    /// perturbations of it in antithetic pairs (centre ± σ·ε), judged over several games like
    /// (μ + λ)'s candidates; the centre moves along the rank-weighted sum of the noise. The
    /// population the run stores and benchmarks is the centre alone.
    EvolutionStrategies(EsConfig),
}

/// How a game scores for a candidate.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Fitness {
    /// Win 1, draw ½, loss 0 per game. Coarse: against a much stronger opponent every game
    /// scores 0, so it tells nothing apart.
    #[default]
    Points,
    /// The benchmark's score per game (SPEC: a win in m plies 200 − m, a loss in m plies m, a
    /// draw 100): losing later scores more, so candidates that all lose are still ordered, and
    /// a curriculum against ALoA has a gradient from the first generation.
    BenchmarkScore,
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
    /// Fixed opponents (as in (μ + λ)).
    pub fixed_opponents: Vec<String>,
    /// See [`Judging::fitness`].
    pub fitness: Fitness,
    /// See [`Judging::opening_plies`].
    pub opening_plies: u32,
    /// See [`Judging::fixed_matches`].
    pub fixed_matches: u32,
    /// See [`Judging::hall_of_fame`].
    pub hall_of_fame: u32,
    /// See [`Judging::groups`].
    pub groups: u32,
    /// See [`Judging::ladder`].
    pub ladder: Vec<String>,
    /// See [`Judging::promote_at`].
    pub promote_at: f64,
    /// Generations over which the learning rate halves (`α_g = α · 2^(−(g − 1)/H)`); 0 keeps
    /// it constant. With a constant α the centre ends up doing a random walk once the gradient
    /// estimate is mostly noise (the long run's weights spread from 0.58 to 1.44 standard
    /// deviation, as a pure random walk of its steps would); a decaying α anneals it.
    pub learning_rate_half_life: u32,
    /// The L2 coefficient λ (weight decay, as in OpenAI's ES): each update also moves the centre
    /// by `−α_g · λ · θ`, pulling weights that the noise alone pushed out back towards 0.
    pub weight_decay: f64,
    /// A chromosome file (JSON, as `master export` and `loa imitate` write) whose network is the
    /// first centre, instead of the first of a random population; empty: random, as before.
    /// The path is relative to the working directory of `master run`. The file is read once,
    /// when the run starts: the epoch-0 checkpoint holds its weights, so a resume does not need
    /// it (format 4 added this setting).
    pub initial_network: String,
    /// Weights tied by the board's symmetries: `"none"` (every one of the 2 041 weights free),
    /// `"invariant"` (every hidden unit invariant under the board's rotations and reflections:
    /// 361 free parameters) or `"equivariant"` (two groups of eight hidden units that the
    /// symmetries map onto each other, and four invariant units: 277); see
    /// [`loa_engine::network::symmetry`]. The perturbations are drawn per free parameter, so
    /// the centre stays tied. Format 5 added this setting.
    pub symmetry: WeightTying,
    /// Generations over which σ halves (`σ_g = σ · 2^(−(g − 1)/H)`); 0 keeps it constant.
    /// ES climbs the fitness smoothed over a Gaussian of width σ: a wide σ gives a signal from
    /// the first generation, but the smoothed optimum is a broad region, and good networks are
    /// sharp (a net that plays ALoA(3) evenly loses half its points at σ 0.05); shrinking σ
    /// lets the centre settle into one. The step in weights is about α/σ per generation, so α
    /// should shrink faster: a learning-rate half-life of H/2 keeps the step a constant
    /// fraction of σ. Format 5 added this setting.
    pub sigma_half_life: u32,
    /// How the centre steps along the gradient estimate: `"plain"` (θ ← θ + α_g·g, the
    /// default) or `"adam"` (Adam's step with α_g, as OpenAI's ES: about α_g per weight where
    /// the estimate keeps its sign, whatever its scale; [`crate::selection::adam`]). Weight decay
    /// stays a separate shrink by `1 − α_g λ` with either (decoupled, as in AdamW). Adam's
    /// moments are kept in the checkpoints. Format 6 added this setting.
    pub optimizer: EsOptimizer,
}

/// How evolution strategies turn the gradient estimate into the centre's step.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EsOptimizer {
    /// Plain gradient ascent: the step is α_g times the estimate.
    #[default]
    Plain,
    /// Adam (β₁ 0.9, β₂ 0.999, ε 10⁻⁸) with step size α_g.
    Adam,
}

impl Default for EsConfig {
    fn default() -> Self {
        EsConfig {
            sigma: 0.02,
            learning_rate: 0.01,
            opponents: 4,
            fixed_opponents: Vec::new(),
            fitness: Fitness::Points,
            opening_plies: 0,
            fixed_matches: 1,
            hall_of_fame: 0,
            groups: 0,
            ladder: Vec::new(),
            promote_at: 0.5,
            learning_rate_half_life: 0,
            weight_decay: 0.0,
            initial_network: String::new(),
            symmetry: WeightTying::None,
            sigma_half_life: 0,
            optimizer: EsOptimizer::Plain,
        }
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
    /// Fixed opponents each candidate plays `fixed_matches` matches against per generation, as
    /// player specs: `random:D[:SALT]`, `aloa:D`, `aloa-normal:D`, `randomann:D:SEED` (a
    /// curriculum).
    pub fixed_opponents: Vec<String>,
    /// See [`Judging::fitness`].
    pub fitness: Fitness,
    /// See [`Judging::opening_plies`].
    pub opening_plies: u32,
    /// See [`Judging::fixed_matches`].
    pub fixed_matches: u32,
    /// See [`Judging::hall_of_fame`].
    pub hall_of_fame: u32,
    /// See [`Judging::groups`].
    pub groups: u32,
    /// See [`Judging::ladder`].
    pub ladder: Vec<String>,
    /// See [`Judging::promote_at`].
    pub promote_at: f64,
    /// Absent: (μ + λ), parents compete with their children for every place. `k`: (μ, λ) with k
    /// elites: the k fittest parents stay, the other μ − k places go to the fittest children,
    /// so a population cannot stall on old parents (and with k = 0 nobody outlives a
    /// generation).
    pub elitism: Option<u32>,
}

impl Default for MuPlusLambdaConfig {
    fn default() -> Self {
        MuPlusLambdaConfig {
            offspring: 1,
            opponents: 4,
            crossover_rate: 0.5,
            fixed_opponents: Vec::new(),
            fitness: Fitness::Points,
            opening_plies: 0,
            fixed_matches: 1,
            hall_of_fame: 0,
            groups: 0,
            ladder: Vec::new(),
            promote_at: 0.5,
            elitism: None,
        }
    }
}

/// How (μ + λ) and ES judge a generation's candidates, parsed from either's settings.
#[derive(Clone, Debug, PartialEq)]
pub struct Judging {
    /// Two-game matches each candidate hosts against others drawn uniformly from the candidates
    /// (0 with `groups`).
    pub opponents: usize,
    /// Round robin in groups: when above 0, the candidates are shuffled into groups of this size
    /// (sizes differing by at most one) and every pair in a group plays one two-game match, in
    /// place of drawn `opponents`. Every candidate then plays the same number of games against
    /// its peers.
    pub groups: usize,
    /// Fixed opponents (yardsticks that score nothing themselves: a curriculum).
    pub fixed: Vec<FixedPlayer>,
    /// Two-game matches per candidate against each fixed opponent per generation; each from its
    /// own random opening, so it needs `opening_plies` when above 1.
    pub fixed_matches: usize,
    /// Matches each candidate hosts against champions drawn from the hall of fame: the best
    /// benchmarked network of every epoch so far (Rosin and Belew's hall of fame), so the
    /// population keeps beating what it once beat.
    pub hall_of_fame: usize,
    /// Random plies (SPEC's random openings) before every game a candidate plays. Against fixed
    /// opponents the openings of a generation are the same for every candidate (common random
    /// numbers: candidates are compared on equal terms, which makes ES's pair differences and
    /// (μ + λ)'s ranking far less noisy). 0 keeps the start position (and the seeds of runs made
    /// before this option existed).
    pub opening_plies: u32,
    /// How a game scores.
    pub fitness: Fitness,
    /// A curriculum that climbs: fixed players in rising strength (e.g. ALoA at depth 1, 2, 3).
    /// Candidates meet the current rung like a fixed opponent (`fixed_matches` matches from the
    /// common openings); once a generation's candidates score `promote_at` points per game
    /// (win 1, draw ½) against it on average, the next generation meets the next rung. The
    /// rung is part of the run's state (checkpoint format 2 and later).
    pub ladder: Vec<FixedPlayer>,
    /// Mean points per game against the current rung that move the ladder up.
    pub promote_at: f64,
}

/// At most this many entrants in one task (the proto's bound).
const MAX_ENTRANTS: usize = 16;
/// At most this many matches in one task (the proto's bound).
const MAX_MATCHES: usize = 256;
/// At most this many random opening plies (the proto's bound).
const MAX_OPENING_PLIES: u32 = 40;

impl MuPlusLambdaConfig {
    /// How candidates are judged.
    pub fn judging(&self) -> Judging {
        judging(&self.judging_text(), self.fitness)
    }

    pub(super) fn validate(&self, population: usize) -> Result<(), ConfigError> {
        let bad = |key: &str, why: String| Err(ConfigError::Invalid { key: key.into(), why });
        if !(1..=16).contains(&self.offspring) {
            return bad("selection.scheme.mu-plus-lambda.offspring", format!("must be 1..=16, got {}", self.offspring));
        }
        if !(0.0..=1.0).contains(&self.crossover_rate) {
            return bad(
                "selection.scheme.mu-plus-lambda.crossover_rate",
                format!("must be in [0, 1], got {}", self.crossover_rate),
            );
        }
        if let Some(k) = self.elitism {
            let children = population * self.offspring as usize;
            if k as usize > population || children + (k as usize) < population {
                return bad(
                    "selection.scheme.mu-plus-lambda.elitism",
                    format!(
                        "must be at most the population ({population}), and the {children} children with the \
                         elites must fill it, got {k}"
                    ),
                );
            }
        }
        let candidates = population * (1 + self.offspring as usize);
        validate_judging("selection.scheme.mu-plus-lambda", &self.judging_text(), candidates)
    }

    fn judging_text(&self) -> JudgingText<'_> {
        JudgingText {
            opponents: self.opponents,
            groups: self.groups,
            fixed: &self.fixed_opponents,
            fixed_matches: self.fixed_matches,
            hall_of_fame: self.hall_of_fame,
            opening_plies: self.opening_plies,
            ladder: &self.ladder,
            promote_at: self.promote_at,
        }
    }
}

impl EsConfig {
    /// The learning rate of generation `generation` (the first is 1): `learning_rate` halved
    /// every `learning_rate_half_life` generations, exactly `learning_rate` without a half-life.
    pub fn learning_rate_at(&self, generation: u64) -> f64 {
        match self.learning_rate_half_life {
            0 => self.learning_rate,
            h => self.learning_rate * (-(generation.saturating_sub(1) as f64) / f64::from(h)).exp2(),
        }
    }

    /// σ of generation `generation` (the first is 1): `sigma` halved every `sigma_half_life`
    /// generations, exactly `sigma` without a half-life.
    pub fn sigma_at(&self, generation: u64) -> f64 {
        match self.sigma_half_life {
            0 => self.sigma,
            h => self.sigma * (-(generation.saturating_sub(1) as f64) / f64::from(h)).exp2(),
        }
    }

    /// How perturbations are judged.
    pub fn judging(&self) -> Judging {
        judging(&self.judging_text(), self.fitness)
    }

    fn judging_text(&self) -> JudgingText<'_> {
        JudgingText {
            opponents: self.opponents,
            groups: self.groups,
            fixed: &self.fixed_opponents,
            fixed_matches: self.fixed_matches,
            hall_of_fame: self.hall_of_fame,
            opening_plies: self.opening_plies,
            ladder: &self.ladder,
            promote_at: self.promote_at,
        }
    }

    pub(super) fn validate(&self, population: usize) -> Result<(), ConfigError> {
        let bad = |key: &str, why: String| Err(ConfigError::Invalid { key: key.into(), why });
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
        if !(0.0..=1.0).contains(&(self.learning_rate * self.weight_decay)) || self.weight_decay < 0.0 {
            return bad(
                "selection.scheme.evolution-strategies.weight_decay",
                format!(
                    "must be at least 0 and at most 1 / learning_rate ({}), so an update never flips a weight's \
                     sign, got {}",
                    1.0 / self.learning_rate,
                    self.weight_decay
                ),
            );
        }
        validate_judging("selection.scheme.evolution-strategies", &self.judging_text(), population)
    }
}

/// The judging settings as written, for validation.
struct JudgingText<'a> {
    opponents: u32,
    groups: u32,
    fixed: &'a [String],
    fixed_matches: u32,
    hall_of_fame: u32,
    opening_plies: u32,
    ladder: &'a [String],
    promote_at: f64,
}

fn judging(j: &JudgingText<'_>, fitness: Fitness) -> Judging {
    let players = |specs: &[String]| specs.iter().filter_map(|s| parse_fixed(s).ok()).collect();
    Judging {
        opponents: j.opponents as usize,
        groups: j.groups as usize,
        fixed: players(j.fixed),
        fixed_matches: j.fixed_matches as usize,
        hall_of_fame: j.hall_of_fame as usize,
        opening_plies: j.opening_plies,
        fitness,
        ladder: players(j.ladder),
        promote_at: j.promote_at,
    }
}

/// Checks the judging settings of the scheme at `key` for `candidates` candidates per
/// generation, against the bounds of one task (16 entrants, 256 matches, 40 opening plies).
fn validate_judging(key: &'static str, j: &JudgingText<'_>, candidates: usize) -> Result<(), ConfigError> {
    let bad = |field: &str, why: String| Err(ConfigError::Invalid { key: format!("{key}.{field}"), why });
    if j.groups > 0 {
        if j.opponents > 0 {
            return bad("groups", "round robin in groups replaces drawn opponents: set opponents = 0".into());
        }
        if j.groups < 2 || j.groups as usize > MAX_ENTRANTS || j.groups as usize > candidates {
            return bad(
                "groups",
                format!("must be 2..={MAX_ENTRANTS} and at most the {candidates} candidates, got {}", j.groups),
            );
        }
        if candidates / candidates.div_ceil(j.groups as usize) < 2 {
            return bad("groups", format!("{candidates} candidates in groups of {} leave one alone", j.groups));
        }
    } else if j.opponents as usize >= candidates {
        return bad("opponents", format!("must be below the {candidates} candidates, got {}", j.opponents));
    }
    let drawn = if j.groups > 0 { 0 } else { j.opponents as usize };
    let rung = usize::from(!j.ladder.is_empty());
    let entrants = 1 + drawn + j.hall_of_fame as usize + j.fixed.len() + rung;
    if entrants > MAX_ENTRANTS {
        return bad(
            "opponents",
            format!(
                "a candidate's task would have {entrants} entrants (itself, opponents, hall of fame, fixed \
                 opponents): at most {MAX_ENTRANTS}"
            ),
        );
    }
    let matches = drawn + j.hall_of_fame as usize + (j.fixed.len() + rung) * j.fixed_matches as usize;
    if matches > MAX_MATCHES {
        return bad("fixed_matches", format!("a candidate's task would have {matches} matches: at most {MAX_MATCHES}"));
    }
    if j.fixed_matches == 0 || (j.fixed_matches > 1 && j.opening_plies == 0) {
        return bad(
            "fixed_matches",
            format!(
                "must be at least 1, and above 1 only with opening_plies (games from the start position \
                 against a fixed player repeat), got {}",
                j.fixed_matches
            ),
        );
    }
    if j.opening_plies > MAX_OPENING_PLIES {
        return bad("opening_plies", format!("must be at most {MAX_OPENING_PLIES}, got {}", j.opening_plies));
    }
    if !(j.promote_at > 0.0 && j.promote_at <= 1.0) {
        return bad("promote_at", format!("must be in (0, 1] points per game, got {}", j.promote_at));
    }
    if j.ladder.len() > 16 {
        return bad("ladder", format!("at most 16 rungs, got {}", j.ladder.len()));
    }
    for spec in j.ladder {
        if let Err(why) = parse_fixed(spec) {
            return bad("ladder", why);
        }
    }
    if j.opponents == 0 && j.groups == 0 && j.fixed.is_empty() && j.hall_of_fame == 0 && j.ladder.is_empty() {
        return Err(ConfigError::Invalid {
            key: key.into(),
            why:
                "needs opponents, groups, fixed_opponents, hall_of_fame or a ladder: nothing would judge the candidates"
                    .into(),
        });
    }
    for spec in j.fixed {
        if let Err(why) = parse_fixed(spec) {
            return bad("fixed_opponents", why);
        }
    }
    Ok(())
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
