//! Judging candidates over several games, shared by the schemes that do so: matches against
//! drawn peers or round robins in groups, champions of the hall of fame, fixed opponents and the
//! ladder's current rung (docs/config.md lists the settings, with their ranges).
//! Every game scores for both sides that are candidates ([`Fitness`]), so being A, who wins drawn
//! matches by docs/spec.md §5's criterion 4, is worth nothing; fixed opponents and champions are
//! yardsticks and score nothing. Fitness is the mean score per game, as drawn opponents make the
//! number of games differ.

use super::Champion;
use super::error::{SelectionError, StateError};
use crate::config::ConfigError;
use crate::generation::Breeding;
use crate::population::Individual;
use crate::rng::GaRng;
use loa_engine::game::benchmark_score;
use loa_engine::random::derive_seed;
use loa_engine::spec::{PlayerText, parse_player};
use loa_engine::tasks::{FixedPlayer, MatchEntrant, MatchFormat, MatchTask, MatchTaskOutcome, Pairing};
use loa_engine::{Color, Outcome};
use loa_records::{EpochReport, FitnessSummary};
use serde::{Deserialize, Serialize};

/// How a game scores for a candidate.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Fitness {
    /// Win 1, draw ½, loss 0 per game.
    #[default]
    Points,
    /// The benchmark's score per game (a win in m plies 200 − m, a loss m, a draw 100): losing
    /// later scores more, so candidates that all lose to a strong opponent are still ordered.
    BenchmarkScore,
}

/// The judging settings, flattened into the tables of the schemes that judge.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct JudgingConfig {
    /// Two-game matches each candidate hosts against others drawn uniformly (0 with `groups`).
    pub opponents: u32,
    /// Fixed players (specs such as `aloa:D`) each candidate plays `fixed_matches` matches
    /// against; they score nothing themselves (a curriculum).
    pub fixed_opponents: Vec<String>,
    /// How a game scores.
    pub fitness: Fitness,
    /// Random plies before every game; against fixed opponents and the rung the openings of a
    /// generation are the same for every candidate (common random numbers). 0: the start position.
    pub opening_plies: u32,
    /// Two-game matches against each fixed opponent and the rung per generation (above 1 only
    /// with `opening_plies`: games from the start position against a fixed player repeat).
    pub fixed_matches: u32,
    /// Matches each candidate hosts against champions drawn from the hall of fame (the best
    /// benchmarked network of every epoch so far).
    pub hall_of_fame: u32,
    /// Above 0: candidates shuffled into groups of this size (within one) that each play a round
    /// robin, in place of drawn `opponents`.
    pub groups: u32,
    /// Fixed players in rising strength, met one rung at a time like a fixed opponent.
    pub ladder: Vec<String>,
    /// Mean points per game (win 1, draw ½) against the current rung that move the ladder up.
    pub promote_at: f64,
}

impl Default for JudgingConfig {
    fn default() -> Self {
        JudgingConfig {
            opponents: 4,
            fixed_opponents: Vec::new(),
            fitness: Fitness::Points,
            opening_plies: 0,
            fixed_matches: 1,
            hall_of_fame: 0,
            groups: 0,
            ladder: Vec::new(),
            promote_at: 0.5,
        }
    }
}

// The bounds of one task (the proto's): entrants, matches, random opening plies.
const MAX_ENTRANTS: usize = 16;
const MAX_MATCHES: usize = 256;
const MAX_OPENING_PLIES: u32 = 40;
/// At most this many rungs.
const MAX_RUNGS: usize = 16;

/// The fixed players (the same in every match) of `specs`, e.g. `aloa:D` or `random:D[:SALT]`;
/// a spec that is not one is an error naming the setting `key`.
fn fixed_players(key: &str, specs: &[String]) -> Result<Vec<FixedPlayer>, ConfigError> {
    let fixed = |spec: &String| {
        let not = |why: String| ConfigError::Invalid { key: key.to_owned(), why: format!("`{spec}`: {why}") };
        match parse_player(spec).map_err(not)? {
            PlayerText::Fixed(player) => Ok(player),
            PlayerText::Other { kind, .. } if kind != "run" => Err(not(format!("unknown player kind `{kind}`"))),
            _ => Err(not("not a fixed player: use aloa:D, aloa-normal:D, random:D[:SALT] or randomann:D:SEED".into())),
        }
    };
    specs.iter().map(fixed).collect()
}

impl JudgingConfig {
    /// Checks the settings of the scheme whose table is `key` for `candidates` candidates per
    /// generation, against the bounds of one task.
    pub fn validate(&self, key: &str, candidates: usize) -> Result<(), ConfigError> {
        let j = self;
        let bad = |field: &str, why: String| Err(ConfigError::Invalid { key: format!("{key}.{field}"), why });
        for (field, specs) in [("fixed_opponents", &j.fixed_opponents), ("ladder", &j.ladder)] {
            fixed_players(&format!("{key}.{field}"), specs)?;
        }
        if j.groups > 0 {
            if j.opponents > 0 {
                return bad("groups", "round robin in groups replaces drawn opponents: set opponents = 0".into());
            }
            if j.groups < 2 || j.groups as usize > MAX_ENTRANTS || j.groups as usize > candidates {
                let why =
                    format!("must be 2..={MAX_ENTRANTS} and at most the {candidates} candidates, got {}", j.groups);
                return bad("groups", why);
            }
            if candidates / candidates.div_ceil(j.groups as usize) < 2 {
                return bad("groups", format!("{candidates} candidates in groups of {} leave one alone", j.groups));
            }
        } else if j.opponents as usize >= candidates {
            return bad("opponents", format!("must be below the {candidates} candidates, got {}", j.opponents));
        }
        let drawn = if j.groups > 0 { 0 } else { j.opponents as usize };
        let rung = usize::from(!j.ladder.is_empty());
        let entrants = 1 + drawn + j.hall_of_fame as usize + j.fixed_opponents.len() + rung;
        if entrants > MAX_ENTRANTS {
            let why = format!(
                "a candidate's task would have {entrants} entrants (itself, opponents, hall of fame, fixed \
                 opponents): at most {MAX_ENTRANTS}"
            );
            return bad("opponents", why);
        }
        let matches = drawn + j.hall_of_fame as usize + (j.fixed_opponents.len() + rung) * j.fixed_matches as usize;
        if matches > MAX_MATCHES {
            let why = format!("a candidate's task would have {matches} matches: at most {MAX_MATCHES}");
            return bad("fixed_matches", why);
        }
        if j.fixed_matches == 0 || (j.fixed_matches > 1 && j.opening_plies == 0) {
            let why = format!(
                "must be at least 1, and above 1 only with opening_plies (games from the start position against \
                 a fixed player repeat), got {}",
                j.fixed_matches
            );
            return bad("fixed_matches", why);
        }
        if j.opening_plies > MAX_OPENING_PLIES {
            return bad("opening_plies", format!("must be at most {MAX_OPENING_PLIES}, got {}", j.opening_plies));
        }
        if !(j.promote_at > 0.0 && j.promote_at <= 1.0) {
            return bad("promote_at", format!("must be in (0, 1] points per game, got {}", j.promote_at));
        }
        if j.ladder.len() > MAX_RUNGS {
            return bad("ladder", format!("at most {MAX_RUNGS} rungs, got {}", j.ladder.len()));
        }
        if drawn == 0 && j.groups == 0 && j.fixed_opponents.is_empty() && j.hall_of_fame == 0 && j.ladder.is_empty() {
            let why = "needs opponents, groups, fixed_opponents, hall_of_fame or a ladder: nothing would judge the \
                       candidates";
            return Err(ConfigError::Invalid { key: key.into(), why: why.into() });
        }
        Ok(())
    }
}

/// What judging remembers across generations.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct JudgingState {
    /// Champions of past epochs (the best benchmarked network of each), oldest first.
    pub hall_of_fame: Vec<Individual>,
    /// The ladder's current rung (index into the configured ladder).
    pub rung: u32,
}

impl JudgingState {
    /// Moves the ladder up if the candidates scored enough against the rung they met.
    pub fn promote(&mut self, judging: &JudgingConfig, scores: &Scores) {
        if let Some(points) = scores.points_vs_rung()
            && points >= judging.promote_at
            && (self.rung as usize) + 1 < judging.ladder.len()
        {
            self.rung += 1;
        }
    }

    /// Adds the epoch's champion (the survivor with the best combined benchmark score, the older
    /// on a tie) to the hall of fame, if the run keeps one and the champion is not in it yet.
    pub fn induct(
        &mut self,
        judging: &JudgingConfig,
        survivors: &[Individual],
        report: &EpochReport,
    ) -> Option<Champion> {
        if judging.hall_of_fame == 0 {
            return None;
        }
        let best = report.champion()?;
        if self.hall_of_fame.iter().any(|h| h.serial == best.serial) {
            return None;
        }
        let champion = survivors.iter().find(|s| s.serial == best.serial)?;
        self.hall_of_fame.push(champion.clone());
        Some(Champion { serial: best.serial, members: self.hall_of_fame.len() })
    }

    /// Checks a saved state against the settings.
    pub fn check(&self, judging: &JudgingConfig) -> Result<(), StateError> {
        let rungs = judging.ladder.len();
        if self.rung as usize >= rungs.max(1) {
            return Err(StateError::Rung { rung: self.rung, rungs });
        }
        Ok(())
    }
}

/// Tags that keep the seeds of fixed-opponent and group matches apart from the others.
const FIXED_TAG: u64 = 0xF1CE_D0FF;
const GROUP_TAG: u64 = 0x6B0C_4B0B;

/// Who sits in one place of a task.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Seat {
    /// The candidate with this index.
    Candidate(usize),
    /// A champion of the hall of fame, a fixed opponent, the ladder's current rung.
    Champion,
    Fixed,
    Rung,
}

/// Candidates and who sits where in the tasks that judge them: what a judging scheme's plan
/// keeps for its selection.
#[derive(Clone, Debug)]
pub struct Judged {
    /// The candidates, in the order [`Judged::scores`] gives their scores.
    pub candidates: Vec<Individual>,
    /// For each task, who each entrant is.
    seats: Vec<Vec<Seat>>,
    /// The ladder's rung they meet, if the run climbs one.
    rung: Option<usize>,
}

/// The tasks that judge `candidates` in `b`'s generation, with the hall of fame and the ladder's
/// rung from `state`.
pub fn plan(
    candidates: Vec<Individual>,
    settings: &JudgingConfig,
    state: &JudgingState,
    b: &mut Breeding,
) -> (Judged, Vec<MatchTask>) {
    let Breeding { config, generation, ref mut rng, .. } = *b;
    // Checked by `JudgingConfig::validate`.
    let fixed = fixed_players("", &settings.fixed_opponents).unwrap_or_default();
    let ladder = fixed_players("", &settings.ladder).unwrap_or_default();
    let n = candidates.len();
    let mut tasks = Vec::new();
    let mut seats = Vec::new();
    if settings.groups > 0 {
        for (g, members) in groups(n, settings.groups as usize, rng).into_iter().enumerate() {
            let base = derive_seed(derive_seed(config.seed ^ GROUP_TAG, generation), g as u64);
            let mut pairs = Vec::new();
            for a in 0..members.len() {
                for b in a + 1..members.len() {
                    let seed = derive_seed(base, pairs.len() as u64);
                    pairs.push(Pairing { a, b, seed, opening_plies: settings.opening_plies });
                }
            }
            let entrants = members.iter().map(|&c| candidates[c].entrant()).collect();
            tasks.push(config.task(entrants, MatchFormat::Pairs(pairs)));
            seats.push(members.into_iter().map(Seat::Candidate).collect());
        }
    }
    let drawn = if settings.groups > 0 { 0 } else { (settings.opponents as usize).min(n.saturating_sub(1)) };
    let fixed_base = derive_seed(config.seed ^ FIXED_TAG, generation);
    for host in 0..n {
        // Distinct others, by a partial Fisher-Yates over the other candidates.
        let mut others: Vec<usize> = (0..n).filter(|&c| c != host).collect();
        partial_shuffle(&mut others, drawn, rng);
        let mut entrants: Vec<MatchEntrant> =
            std::iter::once(host).chain(others.iter().copied()).map(|c| candidates[c].entrant()).collect();
        let mut seat: Vec<Seat> = std::iter::once(host).chain(others).map(Seat::Candidate).collect();
        // Champions, distinct and not already seated (a champion may still be a candidate).
        let mut champions: Vec<&Individual> =
            state.hall_of_fame.iter().filter(|h| entrants.iter().all(|e| e.serial() != h.serial)).collect();
        let picked = (settings.hall_of_fame as usize).min(champions.len());
        partial_shuffle(&mut champions, picked, rng);
        for champion in champions {
            entrants.push(champion.entrant());
            seat.push(Seat::Champion);
        }
        let base = derive_seed(derive_seed(config.seed, generation), host as u64);
        let mut pairs: Vec<Pairing> = (1..entrants.len())
            .map(|b| Pairing { a: 0, b, seed: derive_seed(base, b as u64), opening_plies: settings.opening_plies })
            .collect();
        let rung = ladder.get((state.rung as usize).min(ladder.len().saturating_sub(1)));
        let yardsticks = fixed.iter().map(|p| (p, Seat::Fixed)).chain(rung.map(|p| (p, Seat::Rung)));
        for (f, (player, kind)) in yardsticks.enumerate() {
            let b = entrants.len();
            // Serials above every candidate's.
            entrants.push(MatchEntrant::Fixed { serial: u64::MAX - f as u64, player: *player });
            seat.push(kind);
            for k in 0..settings.fixed_matches {
                let seed = if settings.opening_plies == 0 {
                    // From the start position the seed only salts a random heuristic's values.
                    derive_seed(base, b as u64)
                } else {
                    derive_seed(derive_seed(fixed_base, f as u64), k as u64)
                };
                pairs.push(Pairing { a: 0, b, seed, opening_plies: settings.opening_plies });
            }
        }
        if !pairs.is_empty() {
            tasks.push(config.task(entrants, MatchFormat::Pairs(pairs)));
            seats.push(seat);
        }
    }
    let rung = (!settings.ladder.is_empty()).then_some(state.rung as usize);
    (Judged { candidates, seats, rung }, tasks)
}

/// Puts `k` uniformly drawn items of `items` first (partial Fisher-Yates) and drops the rest.
fn partial_shuffle<T>(items: &mut Vec<T>, k: usize, rng: &mut GaRng) {
    for slot in 0..k {
        let pick = slot + rng.below(items.len() - slot);
        items.swap(slot, pick);
    }
    items.truncate(k);
}

/// `n` candidates shuffled into ⌈n / size⌉ groups whose sizes differ by at most one.
fn groups(n: usize, size: usize, rng: &mut GaRng) -> Vec<Vec<usize>> {
    let mut order: Vec<usize> = (0..n).collect();
    partial_shuffle(&mut order, n, rng);
    let count = n.div_ceil(size.max(1)).max(1);
    let mut out = Vec::with_capacity(count);
    let mut start = 0;
    for g in 0..count {
        let len = n / count + usize::from(g < n % count);
        out.push(order[start..start + len].to_vec());
        start += len;
    }
    out
}

/// Two individuals' fitness (serial, mean score per game), the fitter first: the higher score
/// first, the older (lower serial) on a tie, so the order depends on nothing but the games.
pub fn fitter(x: &(u64, f64), y: &(u64, f64)) -> std::cmp::Ordering {
    y.1.total_cmp(&x.1).then(x.0.cmp(&y.0))
}

/// The indices `pool` of `fitness` fittest first ([`fitter`]).
pub fn fittest_first(fitness: &[(u64, f64)], pool: std::ops::Range<usize>) -> Vec<usize> {
    let mut order: Vec<usize> = pool.collect();
    order.sort_by(|&x, &y| fitter(&fitness[x], &fitness[y]));
    order
}

/// Each candidate's total score and games from its tasks' outcomes.
#[derive(Clone, Debug, PartialEq)]
pub struct Scores {
    /// How games were scored.
    pub fitness: Fitness,
    /// Total score per candidate: half-points (win 2, draw 1) or benchmark points.
    pub total: Vec<u64>,
    /// Games per candidate.
    pub games: Vec<u64>,
    /// Total score and games of all candidates against fixed opponents.
    pub vs_fixed: (u64, u64),
    /// Half-points (whatever the fitness) and games of all candidates against the ladder's rung.
    pub vs_rung: (u64, u64),
    /// The ladder's rung they met, if the run climbs one.
    pub rung: Option<usize>,
}

impl Scores {
    /// Mean score per game of each candidate (0 for one that played no game), in the unit of
    /// the fitness (half-points or benchmark points).
    pub fn means(&self) -> Vec<f64> {
        self.total.iter().zip(&self.games).map(|(&t, &g)| if g == 0 { 0.0 } else { t as f64 / g as f64 }).collect()
    }

    /// Mean points per game (win 1, draw ½) of all candidates against the ladder's rung, if
    /// they met it.
    pub fn points_vs_rung(&self) -> Option<f64> {
        let (halves, games) = self.vs_rung;
        (games > 0).then(|| halves as f64 / (2 * games) as f64)
    }

    /// The generation's line in `generations.jsonl`, per game in the fitness's own unit (points,
    /// not half-points).
    pub fn summary(&self) -> FitnessSummary {
        let (unit, scale) = match self.fitness {
            Fitness::Points => ("points", 0.5),
            Fitness::BenchmarkScore => ("benchmark-score", 1.0),
        };
        let means = self.means();
        let best = means.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let mean = means.iter().sum::<f64>() / means.len().max(1) as f64;
        let (fixed_total, fixed_games) = self.vs_fixed;
        FitnessSummary {
            unit: unit.into(),
            best: if means.is_empty() { 0.0 } else { best * scale },
            mean: mean * scale,
            vs_fixed: (fixed_games > 0).then(|| fixed_total as f64 / fixed_games as f64 * scale),
            rung: self.rung.filter(|_| self.vs_rung.1 > 0).map(|r| r as u32),
            vs_rung: self.points_vs_rung(),
            mean_step: None,
            search: None,
        }
    }
}

impl Judged {
    /// Each candidate's serial and mean score per game, in candidate order.
    pub fn fitness(&self, scores: &Scores) -> Vec<(u64, f64)> {
        self.candidates.iter().map(|c| c.serial).zip(scores.means()).collect()
    }

    /// Each candidate's scores under `fitness` from the planned tasks' outcomes.
    pub fn scores(&self, fitness: Fitness, outcomes: &[MatchTaskOutcome]) -> Result<Scores, SelectionError> {
        if outcomes.len() != self.seats.len() {
            return Err(SelectionError::OutcomeCount { found: outcomes.len(), tasks: self.seats.len() });
        }
        let n = self.candidates.len();
        let mut scores = Scores {
            fitness,
            total: vec![0; n],
            games: vec![0; n],
            vs_fixed: (0, 0),
            vs_rung: (0, 0),
            rung: self.rung,
        };
        for (t, (seat, outcome)) in self.seats.iter().zip(outcomes).enumerate() {
            for m in &outcome.matches {
                let (Some(&a), Some(&b)) = (seat.get(m.a), seat.get(m.b)) else {
                    let why = "a match names an entrant it does not have".to_owned();
                    return Err(SelectionError::Outcome { task: t, why });
                };
                for (g, game) in m.games.iter().enumerate() {
                    // A is Black in game 0, White in game 1.
                    let a_color = if g == 0 { Color::Black } else { Color::White };
                    for (side, other, color) in [(a, b, a_color), (b, a, a_color.opponent())] {
                        let Seat::Candidate(c) = side else { continue };
                        let halves = match game.outcome {
                            Outcome::Draw => 1,
                            Outcome::Win(w) if w == color => 2,
                            Outcome::Win(_) => 0,
                        };
                        let score = match fitness {
                            Fitness::Points => halves,
                            Fitness::BenchmarkScore => u64::from(benchmark_score(game.outcome, game.plies, color)),
                        };
                        let no_candidate = || SelectionError::Outcome { task: t, why: format!("no candidate {c}") };
                        let slot = scores.total.get_mut(c).ok_or_else(no_candidate)?;
                        *slot += score;
                        scores.games[c] += 1;
                        if other == Seat::Fixed || other == Seat::Rung {
                            scores.vs_fixed.0 += score;
                            scores.vs_fixed.1 += 1;
                        }
                        if other == Seat::Rung {
                            scores.vs_rung.0 += halves;
                            scores.vs_rung.1 += 1;
                        }
                    }
                }
            }
        }
        Ok(scores)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ExperimentConfig;
    use crate::population::SerialCounter;

    #[test]
    fn groups_cover_every_candidate_once_with_sizes_within_one() {
        let mut rng = GaRng::from_seed(5);
        for (n, size) in [(32, 8), (30, 8), (17, 4), (16, 16), (5, 2)] {
            let gs = groups(n, size, &mut rng);
            assert_eq!(gs.len(), n.div_ceil(size));
            let mut all: Vec<usize> = gs.iter().flatten().copied().collect();
            all.sort_unstable();
            assert_eq!(all, (0..n).collect::<Vec<_>>(), "n {n} size {size}");
            let (min, max) = (gs.iter().map(Vec::len).min(), gs.iter().map(Vec::len).max());
            assert!(max.unwrap() - min.unwrap() <= 1 && max.unwrap() <= size, "n {n} size {size}: {gs:?}");
        }
    }

    fn settings() -> JudgingConfig {
        JudgingConfig {
            opponents: 2,
            fixed_opponents: vec!["random:1".into()],
            fixed_matches: 3,
            hall_of_fame: 2,
            opening_plies: 4,
            fitness: Fitness::BenchmarkScore,
            ..JudgingConfig::default()
        }
    }

    fn judging() -> JudgingConfig {
        settings()
    }

    fn population(n: usize) -> Vec<Individual> {
        let config = ExperimentConfig { population: n, ..ExperimentConfig::default() };
        let (mut rng, mut serials) = (GaRng::from_seed(2), crate::population::SerialCounter::default());
        crate::generation::initial_population(&config, loa_engine::network::Topology::default(), &mut rng, &mut serials)
            .unwrap()
    }

    #[test]
    fn fixed_matches_share_their_openings_and_champions_never_meet_themselves() {
        let all = population(8);
        let (candidates, hall) = (&all[..6], [all[0].clone(), all[6].clone(), all[7].clone()]);
        let config = ExperimentConfig::default();
        let state = JudgingState { hall_of_fame: hall.to_vec(), ..JudgingState::default() };
        let (judged, tasks) = plan(
            candidates.to_vec(),
            &judging(),
            &state,
            &mut Breeding {
                config: &config,
                generation: 7,
                rng: &mut GaRng::from_seed(1),
                serials: &mut SerialCounter::default(),
            },
        );
        assert_eq!(tasks.len(), 6);
        let fixed_seeds = |t: &MatchTask| -> Vec<u64> {
            let MatchFormat::Pairs(pairs) = &t.format else { panic!("pairs") };
            let fixed = t.entrants.len() - 1;
            pairs.iter().filter(|p| p.b == fixed).map(|p| p.seed).collect()
        };
        for (host, task) in tasks.iter().enumerate() {
            task.validate().unwrap();
            // Itself, 2 drawn, 2 champions, the fixed player; 2 + 2 + 3 matches from 4 plies.
            assert_eq!(task.entrants.len(), 6, "host {host}");
            assert_eq!(task.entrants[0].serial(), candidates[host].serial);
            let MatchFormat::Pairs(pairs) = &task.format else { panic!("pairs") };
            assert_eq!(pairs.len(), 7);
            assert!(pairs.iter().all(|p| p.opening_plies == 4 && p.a == 0));
            // Common random numbers: every candidate meets the fixed player from the same 3
            // openings, and they differ from each other.
            assert_eq!(fixed_seeds(task), fixed_seeds(&tasks[0]));
            let mut distinct = fixed_seeds(task);
            distinct.dedup();
            assert_eq!(distinct.len(), 3);
            assert_eq!(&judged.seats[host][3..], [Seat::Champion, Seat::Champion, Seat::Fixed]);
        }
        // Candidate 0 is also champion 0: its own task draws the other two champions.
        let champions: Vec<u64> = tasks[0].entrants[3..5].iter().map(MatchEntrant::serial).collect();
        assert!(champions.contains(&all[6].serial) && champions.contains(&all[7].serial));
    }

    #[test]
    fn groups_play_round_robins_and_scores_follow_the_benchmark_rule() {
        use loa_engine::game::{Criterion, MatchSide};
        use loa_engine::tasks::{GameSummary, MatchSummary};
        let candidates = population(4);
        let settings = JudgingConfig { opponents: 0, groups: 2, fixed_matches: 1, hall_of_fame: 0, ..settings() };
        let judging = settings;
        let state = JudgingState::default();
        let (judged, tasks) = plan(
            candidates,
            &judging,
            &state,
            &mut Breeding {
                config: &ExperimentConfig::default(),
                generation: 1,
                rng: &mut GaRng::from_seed(3),
                serials: &mut SerialCounter::default(),
            },
        );
        // Two groups of two (one match each), then 4 host tasks against the fixed player.
        assert_eq!(tasks.len(), 6);
        let matches = |t: &MatchTask| match &t.format {
            MatchFormat::Pairs(pairs) => pairs.len(),
            MatchFormat::Knockout { .. } => 0,
        };
        assert!(tasks[..2].iter().all(|t| t.entrants.len() == 2 && matches(t) == 1));
        assert!(tasks[2..].iter().all(|t| t.entrants.len() == 2));
        let game = |outcome, plies| GameSummary { outcome, reason: loa_engine::EndReason::Connected, plies };
        let summary = |g0, g1| MatchSummary {
            a: 0,
            b: 1,
            winner: MatchSide::A,
            criterion: Criterion::FasterWin,
            games: [g0, g1],
        };
        // Group matches: A wins as Black in 30 plies, then a draw. Fixed: each candidate loses as
        // Black in 20 plies and wins as White in 50.
        let mut outcomes = vec![
            MatchTaskOutcome {
                matches: vec![summary(game(Outcome::Win(Color::Black), 30), game(Outcome::Draw, 100))]
            };
            2
        ];
        outcomes.extend((0..4).map(|_| MatchTaskOutcome {
            matches: vec![summary(game(Outcome::Win(Color::White), 20), game(Outcome::Win(Color::White), 50))],
        }));
        let scores = judged.scores(Fitness::BenchmarkScore, &outcomes).unwrap();
        // Group A: 170 + 100; group B: 30 + 100; every candidate vs fixed: 20 + 150.
        let a_of_group = |g: usize| match judged.seats[g][0] {
            Seat::Candidate(c) => c,
            _ => panic!("a candidate"),
        };
        for c in 0..4 {
            let is_a = (0..2).any(|g| a_of_group(g) == c);
            let expected = if is_a { 270 } else { 130 } + 170;
            assert_eq!((scores.total[c], scores.games[c]), (expected, 4), "candidate {c}");
        }
        assert_eq!(scores.vs_fixed, (4 * 170, 8));
        let summary = scores.summary();
        assert_eq!((summary.best, summary.mean, summary.vs_fixed), (110.0, 92.5, Some(85.0)));
        assert_eq!((summary.rung, summary.vs_rung), (None, None));
    }
}
