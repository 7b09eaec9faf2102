//! Population-based training over TD learners (Jaderberg et al., 2017): `population` TD(λ)
//! learners ([`learning::Learner`]) each learn from a batch of their own self-play games every
//! generation, as the `td` method's one learner does. Every `ready` generations they are ranked
//! by matches against fixed opponents from fresh openings, and each of the worst `fraction`
//! exploits one of the best (takes its weights, their average and its step settings) and
//! explores (multiplies its α and its λ by `perturb` or its inverse, λ kept within [0, 1]).
//! The stored population is the learners' measured networks; the one validated is the best of
//! the last ranking. docs/config.md describes every setting.

use super::learning::{Batch, Learner, SavedLearner};
use super::td::TdConfig;
use super::{Breeding, Plan, Scheme, SchemeState, Selected, SelectionError, StateError};
use super::{own_plan, parse_settings, settings_table};
use crate::codec::CodecError;
use crate::config::{ConfigError, ExperimentConfig};
use crate::population::{Individual, SerialCounter};
use loa_engine::game::Criterion;
use loa_engine::openings::max_opening_plies;
use loa_engine::random::derive_seed;
use loa_engine::tasks::{
    FixedPlayer, MAX_MATCHES, MatchEntrant, MatchFormat, Pairing, SelfPlayTask, Task, TaskOutcome,
};
use loa_records::{EpochReport, Figures};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// The method's name in the configuration.
pub const NAME: &str = "pbt";
const KEY: &str = "selection.scheme.pbt";

/// Most learners.
pub const MAX_LEARNERS: usize = 64;

/// The settings, `[selection.scheme.pbt]`: each learner's TD settings (its α and λ the
/// starting ones), and how learners are ranked, exploited and explored.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct PbtConfig {
    /// Generations between two rankings (and at the first generation).
    pub ready: u32,
    /// The share of learners, the worst, that take the weights of one of the same share of the
    /// best at each ranking.
    pub fraction: f64,
    /// The factor α and λ are multiplied by, or divided by (half the time each), after a
    /// learner took another's weights.
    pub perturb: f64,
    /// The fixed players learners are ranked against.
    pub rank_opponents: Vec<String>,
    /// Matches against each (the learner as A and as B from half as many openings).
    pub rank_matches: u32,
    /// Random plies of the ranking's openings.
    pub rank_opening_plies: u32,
    /// Each learner's TD settings.
    #[serde(flatten)]
    pub td: TdConfig,
}

impl Default for PbtConfig {
    fn default() -> PbtConfig {
        PbtConfig {
            ready: 25,
            fraction: 0.25,
            perturb: 1.25,
            rank_opponents: vec!["aloa:3".into()],
            rank_matches: 20,
            rank_opening_plies: 4,
            td: TdConfig::default(),
        }
    }
}

/// One learner with its own step settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Member {
    /// Its weights, average and games.
    pub learner: SavedLearner,
    /// Its α before any decay.
    pub learning_rate: f64,
    /// Its λ.
    pub lambda: f64,
}

/// What the method carries from one generation to the next.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct State {
    /// The learners, in population order.
    pub members: Vec<Member>,
    /// Their scores at the last ranking (empty before the first).
    pub scores: Vec<f64>,
    /// Rankings so far.
    pub rankings: u32,
}

impl SchemeState for State {}

/// The method with its learners (set when the run starts or resumes).
#[derive(Clone, Debug)]
pub struct Pbt {
    settings: PbtConfig,
    opponents: Vec<FixedPlayer>,
    learners: Vec<(Learner, f64, f64)>,
    scores: Vec<f64>,
    rankings: u32,
}

/// Builds the method from its settings table.
pub fn build(settings: &toml::Table) -> Result<Box<dyn Scheme>, ConfigError> {
    let settings: PbtConfig = parse_settings(NAME, settings)?;
    let opponents = settings
        .rank_opponents
        .iter()
        .map(|spec| {
            spec.parse::<FixedPlayer>().map_err(|e| ConfigError::Invalid {
                key: format!("{KEY}.rank_opponents"),
                why: format!("{e} (a fixed player, e.g. \"aloa:3\")"),
            })
        })
        .collect::<Result<_, _>>()?;
    Ok(Box::new(Pbt { settings, opponents, learners: Vec::new(), scores: Vec::new(), rankings: 0 }))
}

/// A generation's plan: each learner's self-play tasks (learner-major), and with a ranking, the
/// matches and what exploitation will do with the ranks.
struct PbtPlan {
    games: Vec<Vec<SelfPlayTask>>,
    ranking: Option<Ranking>,
    serials: Vec<u64>,
}

/// A ranking's draws, made when it is planned: for the k-th worst learner, which of the best it
/// takes (an index into the best, best first) and whether α and λ grow or shrink.
struct Ranking {
    tasks: usize,
    choices: Vec<(usize, bool, bool)>,
}

/// The label of the rankings' seeds, apart from every other seed of the run.
const RANK_LABEL: u64 = 0x9B7;

impl Pbt {
    fn members(&self) -> Result<&[(Learner, f64, f64)], SelectionError> {
        if self.learners.is_empty() { Err(SelectionError::NotStarted) } else { Ok(&self.learners) }
    }

    /// How many learners exploit, and are exploited, at a ranking.
    fn exploiting(&self) -> usize {
        ((self.learners.len() as f64 * self.settings.fraction).floor() as usize).max(1)
    }

    /// The ranking matches of `generation`: each learner's measured network against each
    /// opponent, from the same fresh openings for all.
    fn ranking_tasks(&self, survivors: &[Individual], config: &ExperimentConfig, generation: u64) -> Vec<Task> {
        let s = &self.settings;
        let openings = s.rank_matches / 2;
        let mut tasks = Vec::new();
        for individual in survivors {
            for player in &self.opponents {
                let pairs = (0..openings)
                    .flat_map(|j| {
                        let seed = derive_seed(derive_seed(config.seed ^ RANK_LABEL, generation), u64::from(j));
                        let opening_plies = s.rank_opening_plies;
                        [Pairing { a: 0, b: 1, seed, opening_plies }, Pairing { a: 1, b: 0, seed, opening_plies }]
                    })
                    .collect();
                let entrants = vec![individual.entrant(), MatchEntrant::Fixed { serial: u64::MAX, player: *player }];
                tasks.push(Task::Match(config.task(entrants, MatchFormat::Pairs(pairs))));
            }
        }
        tasks
    }

    /// Each learner's points a match (win 1, tie ½) over the ranking's outcomes, learner-major.
    fn scores(&self, outcomes: &[TaskOutcome], first: usize) -> Result<Vec<f64>, SelectionError> {
        let per_learner = self.opponents.len();
        let mut scores = vec![0.0; self.learners.len()];
        let mut matches = vec![0u32; self.learners.len()];
        for (k, outcome) in outcomes.iter().enumerate() {
            let TaskOutcome::Match(o) = outcome else {
                return Err(SelectionError::Outcome {
                    task: first + k,
                    why: "games came back for a match task".into(),
                });
            };
            if o.matches.len() != self.settings.rank_matches as usize {
                let why = format!("{} matches of {}", o.matches.len(), self.settings.rank_matches);
                return Err(SelectionError::Outcome { task: first + k, why });
            }
            let learner = k / per_learner;
            for m in &o.matches {
                scores[learner] += match (m.criterion, m.winner_index()) {
                    (Criterion::DefaultToA, _) => 0.5,
                    (_, 0) => 1.0,
                    _ => 0.0,
                };
                matches[learner] += 1;
            }
        }
        Ok(scores.iter().zip(&matches).map(|(s, &n)| s / f64::from(n.max(1))).collect())
    }

    /// The worst learners take the weights of the best, then move their α and λ: each change
    /// as (the learner, whose weights it took).
    fn exploit(&mut self, scores: &[f64], ranking: &Ranking) -> Vec<(usize, usize)> {
        let mut order: Vec<usize> = (0..scores.len()).collect();
        // Best first; a tie to the lower index.
        order.sort_by(|&i, &j| scores[j].total_cmp(&scores[i]).then(i.cmp(&j)));
        let n = self.exploiting();
        let (best, worst) = (&order[..n], &order[order.len() - n..]);
        let perturb = self.settings.perturb;
        let mut taken = Vec::new();
        for (&loser, &(choice, faster, longer)) in worst.iter().rev().zip(&ranking.choices) {
            let winner = best[choice % n];
            let (learner, rate, lambda) = self.learners[winner].clone();
            let rate = if faster { rate * perturb } else { rate / perturb };
            let lambda = (if longer { lambda * perturb } else { lambda / perturb }).clamp(0.0, 1.0);
            self.learners[loser] = (learner, rate.min(1.0), lambda);
            taken.push((loser, winner));
        }
        taken
    }

    /// The index of the learner a run validates: the best of the last ranking, else the first.
    fn best(&self) -> usize {
        let mut best = 0;
        for (i, s) in self.scores.iter().enumerate() {
            if *s > self.scores[best] {
                best = i;
            }
        }
        best
    }

    fn individual(learner: &Learner, serial: u64) -> Result<Individual, SelectionError> {
        Ok(Individual { serial, chromosome: Arc::new(learner.measured().chromosome()?) })
    }
}

impl Scheme for Pbt {
    fn keeps_survivors(&self) -> bool {
        false
    }

    fn settings(&self) -> toml::Table {
        settings_table(&self.settings)
    }

    fn validate(&self, config: &ExperimentConfig) -> Result<(), ConfigError> {
        let s = &self.settings;
        let bad = |key: &str, why: String| Err(ConfigError::Invalid { key: key.into(), why });
        if config.population > MAX_LEARNERS {
            return bad("population", format!("the learners: 2 to {MAX_LEARNERS}, got {}", config.population));
        }
        s.td.check(KEY, config)?;
        let key = |k: &str| format!("{KEY}.{k}");
        if s.ready == 0 {
            return bad(&key("ready"), "must be at least 1 (generations between two rankings)".into());
        }
        if !(s.fraction > 0.0 && s.fraction <= 0.5) {
            return bad(&key("fraction"), format!("must be above 0 and at most 0.5, got {}", s.fraction));
        }
        if !(s.perturb > 1.0 && s.perturb <= 4.0) {
            return bad(&key("perturb"), format!("must be above 1 and at most 4, got {}", s.perturb));
        }
        if self.opponents.is_empty() || self.opponents.len() > 16 {
            let why = format!("needs 1 to 16 fixed players, e.g. [\"aloa:3\"], got {}", self.opponents.len());
            return bad(&key("rank_opponents"), why);
        }
        for (spec, player) in s.rank_opponents.iter().zip(&self.opponents) {
            if let Err(e) = player.plays_on(config.board()) {
                return bad(&key("rank_opponents"), format!("`{spec}`: {e}"));
            }
        }
        if s.rank_matches == 0 || s.rank_matches % 2 == 1 || s.rank_matches as usize > MAX_MATCHES {
            let why = format!("must be even, 2 to {MAX_MATCHES}, got {}", s.rank_matches);
            return bad(&key("rank_matches"), why);
        }
        let most = max_opening_plies(config.board());
        if s.rank_opening_plies > most {
            let why = format!("must be 0 to {most} on the {} board, got {}", config.board(), s.rank_opening_plies);
            return bad(&key("rank_opening_plies"), why);
        }
        Ok(())
    }

    /// Each learner's initial weights, from the run's seed and its place.
    fn given_population(
        &mut self,
        config: &ExperimentConfig,
        serials: &mut SerialCounter,
    ) -> Result<Option<Vec<Individual>>, ConfigError> {
        let td = &self.settings.td;
        self.learners = (0..config.population as u64)
            .map(|i| {
                let seed = derive_seed(derive_seed(config.seed, 0x1417), i);
                (
                    Learner::new(config.network, seed, td.init_range, td.averaging()),
                    td.learning_rate,
                    td.lambda,
                )
            })
            .collect();
        let invalid = |e: SelectionError| ConfigError::Invalid { key: "network".into(), why: e.to_string() };
        let population = self.learners.iter().map(|(l, ..)| Pbt::individual(l, serials.issue()));
        Ok(Some(population.collect::<Result<_, _>>().map_err(invalid)?))
    }

    fn plan(&self, survivors: &[Individual], b: &mut Breeding) -> Result<(Plan, Vec<Task>), SelectionError> {
        let members = self.members()?;
        let play = self.settings.td.play(b.config);
        let batch = u64::from(self.settings.td.batch);
        let mut games = Vec::with_capacity(members.len());
        for (i, ((learner, ..), individual)) in members.iter().zip(survivors).enumerate() {
            let seeds: Vec<u64> =
                (0..batch).map(|k| derive_seed(derive_seed(b.config.seed, i as u64), learner.games + k)).collect();
            games.push(learner.tasks(individual.serial, &seeds, &play)?);
        }
        let mut wire: Vec<Task> = games.iter().flatten().cloned().map(Task::SelfPlay).collect();
        // The first generation ranks too: the learners start from their random weights.
        let ranking =
            (b.generation % u64::from(self.settings.ready) == 1 % u64::from(self.settings.ready)).then(|| {
                let tasks = self.ranking_tasks(survivors, b.config, b.generation);
                let n = self.exploiting();
                let choices = (0..n)
                    .map(|_| {
                        let draw = b.rng.next_u64();
                        ((draw % n as u64) as usize, draw & (1 << 32) != 0, draw & (1 << 33) != 0)
                    })
                    .collect();
                let ranking = Ranking { tasks: tasks.len(), choices };
                wire.extend(tasks);
                ranking
            });
        let serials = (0..members.len()).map(|_| b.serials.issue()).collect();
        Ok((Box::new(PbtPlan { games, ranking, serials }), wire))
    }

    fn select(&mut self, plan: Plan, outcomes: &[TaskOutcome]) -> Result<Selected, SelectionError> {
        let plan: PbtPlan = own_plan(plan)?;
        let played: usize = plan.games.iter().map(Vec::len).sum();
        let expected = played + plan.ranking.as_ref().map_or(0, |r| r.tasks);
        if outcomes.len() != expected {
            return Err(SelectionError::OutcomeCount { found: outcomes.len(), tasks: expected });
        }
        let mut learners = self.members()?.to_vec();
        let (mut first, mut batch) = (0, Batch::default());
        for ((learner, rate, lambda), tasks) in learners.iter_mut().zip(&plan.games) {
            let td = &self.settings.td;
            let decayed = TdConfig { learning_rate: *rate, ..td.clone() }.learning_rate_at(learner.games);
            let step = td.step(decayed, *lambda);
            batch.add(learner.learn(tasks, &outcomes[first..first + tasks.len()], first, &step)?);
            first += tasks.len();
        }
        self.learners = learners;
        let mut notes = Vec::new();
        let mut figures = Figures::new()
            .with("games", self.learners.iter().map(|(l, ..)| l.games).sum::<u64>())
            .with("td_error", batch.td_error());
        if let Some(ranking) = &plan.ranking {
            let scores = self.scores(&outcomes[played..], played)?;
            let taken = self.exploit(&scores, ranking);
            (self.scores, self.rankings) = (scores, self.rankings + 1);
            let listed: Vec<String> = self.scores.iter().map(|s| format!("{s:.3}")).collect();
            let mut note = format!("ranking {}: points a match {}", self.rankings, listed.join(" "));
            for (loser, winner) in taken {
                let (_, rate, lambda) = &self.learners[loser];
                note += &format!("; learner {loser} takes learner {winner}'s weights, α {rate:.4}, λ {lambda:.3}");
            }
            notes.push(note);
            let best = self.scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let mean = self.scores.iter().sum::<f64>() / self.scores.len().max(1) as f64;
            figures.set("ranking", Figures::new().with("best", best).with("mean", mean));
        }
        let (rates, lambdas): (Vec<f64>, Vec<f64>) = self.learners.iter().map(|(_, r, l)| (*r, *l)).unzip();
        let range = |v: &[f64]| {
            let (lo, hi) = v.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &x| (lo.min(x), hi.max(x)));
            Figures::new().with("min", lo).with("max", hi)
        };
        figures.set("learning_rate", range(&rates));
        figures.set("lambda", range(&lambdas));
        let next = self
            .learners
            .iter()
            .zip(&plan.serials)
            .map(|((learner, ..), &serial)| Pbt::individual(learner, serial))
            .collect::<Result<_, _>>()?;
        Ok(Selected { next, tournaments: Vec::new(), survivors_kept: 0, figures: Some(figures), notes })
    }

    /// The best learner of the last ranking.
    fn validated<'s>(&self, survivors: &'s [Individual], _: &EpochReport) -> Option<&'s Individual> {
        survivors.get(self.best())
    }

    /// Each learner's games, α and λ, and its points at the last ranking.
    fn state_figures(&self) -> Figures {
        let mut figures = Figures::new().with("rankings", self.rankings);
        for (i, (learner, rate, lambda)) in self.learners.iter().enumerate() {
            let member = Figures::new().with("games", learner.games).with("learning_rate", *rate).with("lambda", *lambda);
            figures.set(format!("learner_{i}"), member.with_some("points", self.scores.get(i).copied()));
        }
        figures
    }

    fn save(&self) -> Result<Vec<u8>, CodecError> {
        let members = self
            .learners
            .iter()
            .map(|(learner, rate, lambda)| Member { learner: learner.saved(), learning_rate: *rate, lambda: *lambda })
            .collect();
        State { members, scores: self.scores.clone(), rankings: self.rankings }.save()
    }

    fn restore(&mut self, saved: &[u8], survivors: &[Individual], config: &ExperimentConfig) -> Result<(), StateError> {
        let state = State::load(saved)?;
        if state.members.len() != survivors.len() || survivors.len() != config.population {
            let expected = format!("{} learners, one network each", config.population);
            return Err(StateError::Population { found: survivors.len(), expected });
        }
        let averaging = self.settings.td.averaging();
        self.learners = state
            .members
            .into_iter()
            .map(|m| {
                if !(m.learning_rate > 0.0 && m.learning_rate <= 1.0 && (0.0..=1.0).contains(&m.lambda)) {
                    return Err(StateError::Steps { learning_rate: m.learning_rate, lambda: m.lambda });
                }
                let learner = Learner::restored(m.learner, config.network, averaging).map_err(StateError::Learner)?;
                Ok((learner, m.learning_rate, m.lambda))
            })
            .collect::<Result<_, StateError>>()?;
        (self.scores, self.rankings) = (state.scores, state.rankings);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::GaRng;

    fn run(population: usize, settings: &str) -> (ExperimentConfig, Pbt) {
        let text = format!(
            "population = {population}\nnetwork = \"5x5-board-25-12-1\"\nnetwork_depth = 1\n[rules]\nply_cap = 30\n\
             [selection.scheme.pbt]\n{settings}"
        );
        let config = ExperimentConfig::from_toml(&text).unwrap();
        let scheme = build(&config.selection.scheme.settings).unwrap();
        scheme.validate(&config).unwrap();
        let settings: PbtConfig = parse_settings(NAME, &config.selection.scheme.settings).unwrap();
        let opponents = vec![FixedPlayer::Random { depth: 1, salt: 0 }];
        (config, Pbt { settings, opponents, learners: Vec::new(), scores: Vec::new(), rankings: 0 })
    }

    /// The worst learner takes the best's weights and games, its α and λ moved by the factor
    /// its draws say; the others are left alone.
    #[test]
    fn the_worst_take_the_best_weights_and_move_their_steps() {
        let (config, mut pbt) = run(4, "fraction = 0.25\nperturb = 2.0\nlambda = 0.6\nlearning_rate = 0.01\n");
        pbt.given_population(&config, &mut SerialCounter::default()).unwrap();
        pbt.learners[2].0.games = 40;
        let before = pbt.learners.clone();
        // Learner 2 scores best, learner 1 worst; ties elsewhere.
        let scores = [0.5, 0.1, 0.9, 0.5];
        pbt.exploit(&scores, &Ranking { tasks: 0, choices: vec![(0, true, false)] });
        assert_eq!(pbt.learners[1].0, before[2].0, "learner 1 has learner 2's weights and games");
        assert_eq!((pbt.learners[1].1, pbt.learners[1].2), (0.02, 0.3));
        for i in [0, 2, 3] {
            assert_eq!(pbt.learners[i], before[i], "learner {i}");
        }
        // λ stays within [0, 1]: learner 0 (λ 0.6) is best, learner 1 the worst.
        pbt.exploit(&[1.0, 0.0, 0.5, 0.5], &Ranking { tasks: 0, choices: vec![(0, false, true)] });
        assert_eq!((pbt.learners[1].1, pbt.learners[1].2), (0.005, 1.0));
    }

    /// A ranking every `ready` generations from the first, with as many matches a learner and
    /// opponent as asked, the same openings for every learner.
    #[test]
    fn rankings_come_every_ready_generations_with_the_same_openings_for_all() {
        let (config, mut pbt) = run(3, "ready = 3\nrank_matches = 4\nbatch = 2\n");
        let survivors = pbt.given_population(&config, &mut SerialCounter::default()).unwrap().unwrap();
        let planned = |generation: u64| {
            let (mut rng, mut serials) = (GaRng::from_seed(9), SerialCounter::starting_at(10));
            let mut b = Breeding { config: &config, generation, rng: &mut rng, serials: &mut serials };
            pbt.plan(&survivors, &mut b).unwrap().1
        };
        let counts: Vec<usize> = (1..=7).map(|g| planned(g).len()).collect();
        assert_eq!(counts, [9, 6, 6, 9, 6, 6, 9], "3 x 2 self-play games, and 3 ranking tasks at 1, 4 and 7");
        let pairs = |t: &Task| match t {
            Task::Match(m) => match &m.format {
                MatchFormat::Pairs(p) => p.iter().map(|p| (p.a, p.b, p.seed)).collect::<Vec<_>>(),
                MatchFormat::Knockout { .. } => panic!("pairs"),
            },
            Task::SelfPlay(_) => panic!("a match task"),
        };
        let tasks = planned(4);
        let ranking: Vec<_> = tasks[6..].iter().map(pairs).collect();
        assert_eq!(ranking[0].len(), 4);
        assert!(ranking.iter().all(|r| *r == ranking[0]), "the same openings for every learner");
        assert_ne!(ranking[0], planned(7)[6..].iter().map(pairs).next().unwrap(), "fresh openings each ranking");
    }

    #[test]
    fn bad_settings_are_named() {
        let bad = |population: usize, settings: &str| {
            let text = format!("population = {population}\n[selection.scheme.pbt]\n{settings}");
            let config = ExperimentConfig::from_toml(&text).unwrap();
            crate::selection::build(&config).err().unwrap().to_string()
        };
        for (population, settings, key) in [
            (4, "fraction = 0.6", "selection.scheme.pbt.fraction"),
            (4, "perturb = 1.0", "selection.scheme.pbt.perturb"),
            (4, "ready = 0", "selection.scheme.pbt.ready"),
            (4, "rank_matches = 3", "selection.scheme.pbt.rank_matches"),
            (4, "rank_opponents = []", "selection.scheme.pbt.rank_opponents"),
            (4, "rank_opponents = [\"chess:3\"]", "selection.scheme.pbt.rank_opponents"),
            (4, "rank_opening_plies = 41", "selection.scheme.pbt.rank_opening_plies"),
            (4, "lambda = 2.0", "selection.scheme.pbt.lambda"),
            (4, "batch = 0", "selection.scheme.pbt.batch"),
            (1, "", "population"),
            (65, "", "population"),
        ] {
            let message = bad(population, settings);
            assert!(message.contains(&format!("`{key}`")), "{settings}: {message}");
        }
    }
}
