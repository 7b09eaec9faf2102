//! Judging candidates over several games, shared by the schemes that do so: matches against
//! drawn peers or round robins in groups, champions of the hall of fame, fixed opponents and the
//! ladder's current rung (docs/config.md lists the settings, with their ranges).
//! Every game scores for both sides that are candidates ([`Fitness`]), so being A, who wins drawn
//! matches by docs/spec.md §5's criterion 4, is worth nothing; fixed opponents and champions are
//! yardsticks and score nothing. Fitness is the mean score per game, as drawn opponents make the
//! number of games differ. Champions are drawn per candidate, or once per generation and met by
//! every candidate from the same openings ([`HallOfFameDraw`]); [`Scores::noise`] says how much
//! of the fitness's spread is noise.

mod config;
mod scores;
mod summary;
#[cfg(test)]
mod tests;

pub use config::{Fitness, HallOfFameDraw, JudgingConfig};
pub use scores::Scores;
pub use summary::FitnessSummary;

use super::Champion;
use super::error::StateError;
use crate::config::fixed_players;
use crate::generation::Breeding;
use crate::population::Individual;
use crate::rng::GaRng;
use loa_engine::random::derive_seed;
use loa_engine::tasks::{MatchEntrant, MatchFormat, MatchTask, Pairing};
use loa_records::EpochReport;
use serde::{Deserialize, Serialize};

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
/// Tags of a generation's common draw of champions and of the openings every candidate meets
/// them from.
const HALL_DRAW_TAG: u64 = 0x4A11_0F0F;
const HALL_OPENING_TAG: u64 = 0x4A11_0BE7;

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
    /// Whether their scores report the fitness's noise.
    report_noise: bool,
}

/// The champions candidates may meet: the most recent `hall_of_fame_window` of the hall of
/// fame, or all of them.
fn window<'s>(settings: &JudgingConfig, state: &'s JudgingState) -> &'s [Individual] {
    let all = &state.hall_of_fame;
    let keep = match settings.hall_of_fame_window as usize {
        0 => all.len(),
        m => m.min(all.len()),
    };
    &all[all.len() - keep..]
}

/// The champions every candidate of `generation` meets under the common draw, drawn from a
/// generator of their own so the run's generator draws what it draws without a hall of fame.
fn common_champions<'s>(
    settings: &JudgingConfig,
    state: &'s JudgingState,
    seed: u64,
    generation: u64,
) -> Vec<&'s Individual> {
    let mut champions: Vec<&Individual> = window(settings, state).iter().collect();
    let picked = (settings.hall_of_fame as usize).min(champions.len());
    partial_shuffle(&mut champions, picked, &mut GaRng::from_seed(derive_seed(seed ^ HALL_DRAW_TAG, generation)));
    champions
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
    let hall_base = derive_seed(config.seed ^ HALL_OPENING_TAG, generation);
    let common = match settings.hall_of_fame_draw {
        HallOfFameDraw::PerCandidate => Vec::new(),
        HallOfFameDraw::Common => common_champions(settings, state, config.seed, generation),
    };
    for host in 0..n {
        // Distinct others, by a partial Fisher-Yates over the other candidates.
        let mut others: Vec<usize> = (0..n).filter(|&c| c != host).collect();
        partial_shuffle(&mut others, drawn, rng);
        let mut entrants: Vec<MatchEntrant> =
            std::iter::once(host).chain(others.iter().copied()).map(|c| candidates[c].entrant()).collect();
        let mut seat: Vec<Seat> = std::iter::once(host).chain(others).map(Seat::Candidate).collect();
        if settings.hall_of_fame_draw == HallOfFameDraw::PerCandidate {
            // Champions, distinct and not already seated (a champion may still be a candidate).
            let mut champions: Vec<&Individual> =
                window(settings, state).iter().filter(|h| entrants.iter().all(|e| e.serial() != h.serial)).collect();
            let picked = (settings.hall_of_fame as usize).min(champions.len());
            partial_shuffle(&mut champions, picked, rng);
            for champion in champions {
                entrants.push(champion.entrant());
                seat.push(Seat::Champion);
            }
        }
        let base = derive_seed(derive_seed(config.seed, generation), host as u64);
        let mut pairs: Vec<Pairing> = (1..entrants.len())
            .map(|b| Pairing { a: 0, b, seed: derive_seed(base, b as u64), opening_plies: settings.opening_plies })
            .collect();
        for (j, champion) in common.iter().enumerate() {
            // A champion already seated (the candidate itself, or a drawn peer) is met there.
            if entrants.iter().any(|e| e.serial() == champion.serial) {
                continue;
            }
            let b = entrants.len();
            entrants.push(champion.entrant());
            seat.push(Seat::Champion);
            for k in 0..settings.fixed_matches {
                let seed = derive_seed(derive_seed(hall_base, j as u64), k as u64);
                pairs.push(Pairing { a: 0, b, seed, opening_plies: settings.opening_plies });
            }
        }
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
    (Judged { candidates, seats, rung, report_noise: settings.report_noise }, tasks)
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
