//! The lines of a run's metrics files: one [`GenerationRecord`] per generation in
//! `generations.jsonl`, one [`EpochReport`] per epoch in `epochs.jsonl`.
//!
//! Epoch reports hold only deterministic facts (the master also keeps them in its checkpoints,
//! so their fields and order are part of the checkpoint format); generation lines add wall-clock
//! time and throughput, which vary from run to run.

use crate::figures::Figures;
use crate::game::{GameSummary, MatchSummary};
use serde::{Deserialize, Serialize};

/// One individual's benchmark match.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BenchmarkEntry {
    /// Birth serial.
    pub serial: u64,
    /// Score as Black (game 0) and as White (game 1).
    pub scores: [u32; 2],
    /// Both games' scores added (max 398).
    pub combined: u32,
    /// The two games.
    pub games: [GameSummary; 2],
}

impl BenchmarkEntry {
    /// The entry for `serial` from its two games and their scores.
    pub fn new(serial: u64, scores: [u32; 2], games: [GameSummary; 2]) -> BenchmarkEntry {
        BenchmarkEntry { serial, scores, combined: scores.iter().sum(), games }
    }
}

/// The benchmark of a whole population at the end of an epoch.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EpochReport {
    /// Epochs completed (0 for the initial population).
    pub epoch: u32,
    /// Generations completed.
    pub generation: u64,
    /// Every survivor's match, in population order.
    pub entries: Vec<BenchmarkEntry>,
    /// Best combined score.
    pub best: u32,
    /// Mean combined score.
    pub mean: f64,
    /// Median combined score.
    pub median: f64,
}

impl EpochReport {
    /// The report with best / mean / median computed from `entries`.
    pub fn new(epoch: u32, generation: u64, entries: Vec<BenchmarkEntry>) -> EpochReport {
        let mut combined: Vec<u32> = entries.iter().map(|e| e.combined).collect();
        combined.sort_unstable();
        let n = combined.len();
        let best = combined.last().copied().unwrap_or(0);
        let mean = if n == 0 { 0.0 } else { combined.iter().map(|&c| f64::from(c)).sum::<f64>() / n as f64 };
        let median = match n {
            0 => 0.0,
            _ if n % 2 == 1 => f64::from(combined[n / 2]),
            _ => (f64::from(combined[n / 2 - 1]) + f64::from(combined[n / 2])) / 2.0,
        };
        EpochReport { epoch, generation, entries, best, mean, median }
    }

    /// The epoch's best network: the highest combined score, ties to the lower serial (the
    /// one that joins a hall of fame, and `master export --best`).
    pub fn champion(&self) -> Option<&BenchmarkEntry> {
        self.entries.iter().min_by_key(|e| (std::cmp::Reverse(e.combined), e.serial))
    }
}

/// One tournament of a generation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TournamentRecord {
    /// Serials of the group: survivor, two mutants, child.
    pub serials: [u64; 4],
    /// Serial of the winner.
    pub winner: u64,
    /// The semi-finals and the final.
    pub matches: [MatchSummary; 3],
}

/// One generation's line in `generations.jsonl`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GenerationRecord {
    /// Generations completed after this one.
    pub generation: u64,
    /// The epoch this generation belongs to (1-based).
    pub epoch: u32,
    /// Every tournament, in group order.
    pub tournaments: Vec<TournamentRecord>,
    /// Survivors of the previous generation that won their group.
    pub survivors_kept: u32,
    /// Games played.
    pub games: u32,
    /// Mean plies per game.
    pub mean_plies: f64,
    /// Wall-clock seconds for the generation.
    pub seconds: f64,
    /// Games per second.
    pub games_per_second: f64,
    /// Worker threads or processes that took part.
    pub workers: usize,
    /// In cluster mode, each worker registered at the end of the generation with what it did in
    /// it; empty (and left out of the line) otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub worker_detail: Vec<WorkerRecord>,
    /// What the run's method reports about the generation, in its own names and order (e.g.
    /// how its candidates scored; a search's step size); absent if it reports nothing, as the
    /// knockout does. The JSON key is `fitness`, this field's name when it held only the judged
    /// schemes' scores: runs' files have it, and every method writes it.
    #[serde(rename = "fitness", default, skip_serializing_if = "Option::is_none")]
    pub figures: Option<Figures>,
}

impl GenerationRecord {
    /// The record without what differs between any two runs of the same seed (wall-clock time,
    /// throughput, worker count and detail): two runs that computed the same generation have
    /// equal deterministic parts.
    pub fn deterministic_part(&self) -> GenerationRecord {
        GenerationRecord { seconds: 0.0, games_per_second: 0.0, workers: 0, worker_detail: Vec::new(), ..self.clone() }
    }
}

/// What one worker did during a generation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WorkerRecord {
    /// The name it registered with (name, slots, address).
    pub name: String,
    /// Outcomes of the generation's tasks it delivered first.
    pub tasks: u64,
    /// `tasks` over the generation's wall-clock time.
    pub tasks_per_second: f64,
    /// Whether it was seen straggling during the generation (checked about 10 times a second).
    pub straggler: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{EndReason, Outcome};

    fn sample() -> GameSummary {
        GameSummary { outcome: Outcome::Draw, reason: EndReason::PlyCap, plies: 100 }
    }

    #[test]
    fn best_mean_median() {
        let entry = |c: u32| BenchmarkEntry { serial: 0, scores: [c, 0], combined: c, games: [sample(); 2] };
        let r = EpochReport::new(1, 10, vec![entry(30), entry(200), entry(100), entry(50)]);
        assert_eq!((r.best, r.mean, r.median), (200, 95.0, 75.0));
        let r = EpochReport::new(1, 10, vec![entry(30), entry(200), entry(100)]);
        assert_eq!(r.median, 100.0);
        assert_eq!(BenchmarkEntry::new(3, [120, 60], [sample(); 2]).combined, 180);
    }

    #[test]
    fn the_champion_scores_highest_and_ties_go_to_the_lower_serial() {
        let entry = |serial, c| BenchmarkEntry { serial, scores: [c, 0], combined: c, games: [sample(); 2] };
        let r = EpochReport::new(1, 10, vec![entry(9, 50), entry(7, 120), entry(4, 120), entry(2, 30)]);
        assert_eq!(r.champion().map(|e| e.serial), Some(4));
        assert_eq!(EpochReport::new(0, 0, vec![]).champion(), None);
    }
}
