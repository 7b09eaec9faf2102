//! The lines of `validation.jsonl`: the run's current best network against each held-out
//! opponent, every few epochs, with the compute the run had spent by then.

use crate::interval::wilson95;
use serde::{Deserialize, Serialize};

/// One validation of one opponent: the net's matches against it, criterion 4 (equal lengths or
/// two draws) counted as a tie.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ValidationRecord {
    /// The epoch whose best network played (0: the initial population).
    pub epoch: u32,
    /// Generations completed at that epoch.
    pub generation: u64,
    /// The birth serial of the network that played.
    pub serial: u64,
    /// The opponent's player spec, e.g. `aloa:3`.
    pub opponent: String,
    /// Two-game matches played (half with the network as A, half as B, from the same openings).
    pub matches: u32,
    /// Matches the network won by criteria 1-3.
    pub wins: u32,
    /// Matches the opponent won by criteria 1-3.
    pub losses: u32,
    /// Matches criterion 4 decided: ties.
    pub ties: u32,
    /// `wins / matches`.
    pub win_rate: f64,
    /// The 95 % Wilson interval of `win_rate`: its lower end.
    pub win_rate_low: f64,
    /// Its upper end.
    pub win_rate_high: f64,
    /// The run's CPU seconds (user + system of the master's process, summed over its sessions)
    /// when the validation began: embedded workers' games count, remote workers' do not.
    pub cpu_seconds: f64,
    /// The run's wall-clock seconds (summed over its sessions) when the validation began.
    pub wall_seconds: f64,
}

/// Fields of a [`ValidationRecord`] that measure the machine rather than the run.
pub const VALIDATION_TIMING: [&str; 2] = ["cpu_seconds", "wall_seconds"];

impl ValidationRecord {
    /// The record of `wins`, `losses` and `ties` against `opponent`, its rate and interval
    /// computed, with the clock at zero (set [`ValidationRecord::cpu_seconds`] and
    /// [`ValidationRecord::wall_seconds`] after).
    pub fn new(epoch: u32, generation: u64, serial: u64, opponent: &str, [wins, losses, ties]: [u32; 3]) -> Self {
        let matches = wins + losses + ties;
        let (win_rate_low, win_rate_high) = wilson95(u64::from(wins), u64::from(matches)).unwrap_or((0.0, 1.0));
        let win_rate = if matches == 0 { 0.0 } else { f64::from(wins) / f64::from(matches) };
        ValidationRecord {
            epoch,
            generation,
            serial,
            opponent: opponent.to_owned(),
            matches,
            wins,
            losses,
            ties,
            win_rate,
            win_rate_low,
            win_rate_high,
            cpu_seconds: 0.0,
            wall_seconds: 0.0,
        }
    }

    /// The record without its timing: two runs that computed the same validation have equal
    /// deterministic parts.
    pub fn deterministic_part(&self) -> ValidationRecord {
        ValidationRecord { cpu_seconds: 0.0, wall_seconds: 0.0, ..self.clone() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rate_and_interval_are_of_wins_among_all_matches() {
        // 81 wins of 263 matches: Newcombe (1998), Table II, method 3: 0.2553-0.3662.
        let r = ValidationRecord::new(4, 40, 7, "aloa:3", [81, 150, 32]);
        assert_eq!((r.matches, r.wins, r.losses, r.ties), (263, 81, 150, 32));
        assert!((r.win_rate - 81.0 / 263.0).abs() < 1e-15);
        assert_eq!(
            (format!("{:.4}", r.win_rate_low), format!("{:.4}", r.win_rate_high)),
            ("0.2553".into(), "0.3662".into())
        );
        let timed = ValidationRecord { cpu_seconds: 3.5, wall_seconds: 2.0, ..r.clone() };
        assert_eq!(timed.deterministic_part(), r);
        let json = serde_json::to_value(&timed).unwrap();
        assert!(VALIDATION_TIMING.iter().all(|k| json.get(k).is_some()));
    }
}
