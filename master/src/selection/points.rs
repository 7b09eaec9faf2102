//! Judging candidates by points over several games, shared by the schemes that do so ((μ + λ)
//! and evolution strategies): every candidate hosts one task of two-game matches, as A, against
//! `opponents` others drawn uniformly without replacement from the candidates and against each
//! fixed opponent; every game scores for both sides (win 1, draw ½, loss 0), so being A, who
//! wins drawn matches by SPEC §5's criterion 4, is worth nothing. Fixed opponents score nothing:
//! they are yardsticks.

use crate::config::ExperimentConfig;
use crate::population::Individual;
use crate::rng::GaRng;
use loa_engine::random::derive_seed;
use loa_engine::tasks::{FixedPlayer, MatchEntrant, MatchFormat, MatchTask, MatchTaskOutcome, Pairing};
use loa_engine::{Color, Outcome};

/// Who sits where in each candidate's task.
#[derive(Clone, Debug, Default)]
pub struct Seating {
    /// For each task (one per candidate), the candidate index of each entrant (`None` for a fixed
    /// opponent).
    seats: Vec<Vec<Option<usize>>>,
}

/// The tasks that judge `candidates` in generation `generation`, and their seating.
pub fn plan(
    candidates: &[Individual],
    opponents: usize,
    fixed: &[FixedPlayer],
    config: &ExperimentConfig,
    generation: u64,
    rng: &mut GaRng,
) -> (Seating, Vec<MatchTask>) {
    let n = candidates.len();
    let k = opponents.min(n.saturating_sub(1));
    let mut tasks = Vec::with_capacity(n);
    let mut seats = Vec::with_capacity(n);
    for host in 0..n {
        // k distinct others, by a partial Fisher-Yates over the other candidates.
        let mut others: Vec<usize> = (0..n).filter(|&c| c != host).collect();
        for slot in 0..k {
            let pick = slot + rng.below(others.len() - slot);
            others.swap(slot, pick);
        }
        others.truncate(k);
        let mut entrants: Vec<MatchEntrant> =
            std::iter::once(host).chain(others.iter().copied()).map(|c| candidates[c].entrant()).collect();
        let mut seat: Vec<Option<usize>> = std::iter::once(host).chain(others).map(Some).collect();
        for (f, player) in fixed.iter().enumerate() {
            // Serials above every candidate's.
            entrants.push(MatchEntrant::Fixed { serial: u64::MAX - f as u64, player: *player });
            seat.push(None);
        }
        let base = derive_seed(derive_seed(config.seed, generation), host as u64);
        let pairs = (1..entrants.len())
            .map(|b| Pairing { a: 0, b, seed: derive_seed(base, b as u64), opening_plies: 0 })
            .collect();
        tasks.push(MatchTask {
            entrants,
            network_depth: config.network_depth,
            rules: config.rules,
            format: MatchFormat::Pairs(pairs),
        });
        seats.push(seat);
    }
    (Seating { seats }, tasks)
}

/// Each candidate's points, in half-points so they add exactly, from its tasks' outcomes.
pub fn half_points(seating: &Seating, candidates: usize, outcomes: &[MatchTaskOutcome]) -> Result<Vec<u64>, String> {
    if outcomes.len() != seating.seats.len() {
        return Err(format!("{} outcomes for {} tasks", outcomes.len(), seating.seats.len()));
    }
    let mut halves = vec![0u64; candidates];
    for (t, (seat, outcome)) in seating.seats.iter().zip(outcomes).enumerate() {
        for m in &outcome.matches {
            let (Some(a), Some(b)) = (seat.get(m.a), seat.get(m.b)) else {
                return Err(format!("task {t}: a match names an entrant it does not have"));
            };
            for (g, game) in m.games.iter().enumerate() {
                // A is Black in game 0, White in game 1.
                let a_color = if g == 0 { Color::Black } else { Color::White };
                let (a_half, b_half) = match game.outcome {
                    Outcome::Draw => (1, 1),
                    Outcome::Win(c) if c == a_color => (2, 0),
                    Outcome::Win(_) => (0, 2),
                };
                for (side, half) in [(a, a_half), (b, b_half)] {
                    if let Some(c) = side {
                        let slot = halves.get_mut(*c).ok_or_else(|| format!("task {t}: no candidate {c}"))?;
                        *slot += half;
                    }
                }
            }
        }
    }
    Ok(halves)
}
