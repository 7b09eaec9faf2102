//! Candidates' scores from their tasks' outcomes, and the generation's fitness summary.

use super::FitnessSummary;
use super::{Fitness, Judged, Seat};
use crate::selection::error::SelectionError;
use loa_engine::game::benchmark_score;
use loa_engine::tasks::MatchTaskOutcome;
use loa_engine::{Color, Outcome};

/// Each candidate's total score and games from its tasks' outcomes.
#[derive(Clone, Debug, PartialEq)]
pub struct Scores {
    /// How games were scored.
    pub fitness: Fitness,
    /// Total score per candidate: half-points (win 2, draw 1) or benchmark points.
    pub total: Vec<u64>,
    /// Sum of the squares of the per-game scores per candidate, in the same unit.
    pub squares: Vec<u64>,
    /// Games per candidate.
    pub games: Vec<u64>,
    /// Total score and games of all candidates against fixed opponents.
    pub vs_fixed: (u64, u64),
    /// Half-points (whatever the fitness) and games of all candidates against the ladder's rung.
    pub vs_rung: (u64, u64),
    /// The ladder's rung they met, if the run climbs one.
    pub rung: Option<usize>,
    /// Whether [`Scores::summary`] reports the fitness's noise ([`Scores::noise`]).
    pub report_noise: bool,
}

/// How much of the spread of a generation's fitness is noise, in the fitness's squared unit per
/// game. With n_i games, mean m_i and sample variance s_i² of candidate i's game scores:
/// - noise = mean over candidates of s_i² / n_i, the variance of a candidate's mean score were
///   it judged again on other games (games taken as independent);
/// - signal = the sample variance over candidates of m_i, the spread the selection sees (true
///   differences plus noise);
/// - reliability = max(0, signal − noise) / signal, the share of that spread that is not noise:
///   1 ranks candidates by their strength alone, 0 by chance.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FitnessNoise {
    /// Mean over candidates of the variance of their mean score.
    pub noise: f64,
    /// Variance over candidates of their mean scores.
    pub signal: f64,
}

impl FitnessNoise {
    /// max(0, signal − noise) / signal, if the candidates' means differ at all.
    pub fn reliability(&self) -> Option<f64> {
        (self.signal > 0.0).then(|| (self.signal - self.noise).max(0.0) / self.signal)
    }
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

    /// The noise against the signal of the candidates' fitness, in the unit of the scores
    /// (squared), over the candidates that played at least two games, if there are two of them.
    pub fn noise(&self) -> Option<FitnessNoise> {
        let judged: Vec<(f64, f64)> = (self.total.iter().zip(&self.squares).zip(&self.games))
            .filter(|&(_, &g)| g >= 2)
            .map(|((&t, &q), &g)| {
                let (t, q, g) = (t as f64, q as f64, g as f64);
                let mean = t / g;
                // Sample variance from the sums; rounding can leave a tiny negative value.
                let variance = ((q - t * mean) / (g - 1.0)).max(0.0);
                (mean, variance / g)
            })
            .collect();
        let k = judged.len() as f64;
        if judged.len() < 2 {
            return None;
        }
        let noise = judged.iter().map(|&(_, v)| v).sum::<f64>() / k;
        let grand = judged.iter().map(|&(m, _)| m).sum::<f64>() / k;
        let signal = judged.iter().map(|&(m, _)| (m - grand).powi(2)).sum::<f64>() / (k - 1.0);
        Some(FitnessNoise { noise, signal })
    }

    /// How the generation's candidates scored, per game in the fitness's own unit (points, not
    /// half-points).
    pub fn summary(&self) -> FitnessSummary {
        let (unit, scale) = match self.fitness {
            Fitness::Points => ("points", 0.5),
            Fitness::BenchmarkScore => ("benchmark-score", 1.0),
        };
        let means = self.means();
        let best = means.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let mean = means.iter().sum::<f64>() / means.len().max(1) as f64;
        let (fixed_total, fixed_games) = self.vs_fixed;
        let noise = self.noise().filter(|_| self.report_noise);
        FitnessSummary {
            unit,
            best: if means.is_empty() { 0.0 } else { best * scale },
            mean: mean * scale,
            vs_fixed: (fixed_games > 0).then(|| fixed_total as f64 / fixed_games as f64 * scale),
            rung: self.rung.filter(|_| self.vs_rung.1 > 0).map(|r| r as u32),
            vs_rung: self.points_vs_rung(),
            noise_sd: noise.map(|n| n.noise.sqrt() * scale),
            signal_sd: noise.map(|n| n.signal.sqrt() * scale),
            reliability: noise.and_then(|n| n.reliability()),
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
            squares: vec![0; n],
            games: vec![0; n],
            vs_fixed: (0, 0),
            vs_rung: (0, 0),
            rung: self.rung,
            report_noise: self.report_noise,
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
                        scores.squares[c] += score * score;
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
