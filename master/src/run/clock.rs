//! The compute a run has spent: CPU seconds of the master's process (user + system, its
//! embedded worker threads included) and wall-clock seconds, summed over every session of the
//! run. Checkpoints of runs that validate carry the totals ([`RunClock`]), so a resumed run goes
//! on counting from its checkpoint; the time a crash loses is not counted, as the resumed run
//! redoes that work and counts it then.
//!
//! A [`Budget`] (`master run|resume --stop-after`) ends a session at the end of the first epoch
//! at which that clock reaches it.

use crate::checkpoint::RunClock;
use std::time::Instant;

pub use loa_engine::clock::process_cpu_seconds;

/// A session of a run (from its start or a resume): the totals it began with, and when.
#[derive(Clone, Copy, Debug)]
pub struct SessionClock {
    base: RunClock,
    started: Instant,
    cpu_at_start: f64,
}

impl SessionClock {
    /// A session starting now from the totals `base` (a checkpoint's).
    pub fn start(base: RunClock) -> SessionClock {
        SessionClock { base, started: Instant::now(), cpu_at_start: process_cpu_seconds() }
    }

    /// The run's totals now.
    pub fn now(&self) -> RunClock {
        RunClock {
            cpu_seconds: self.base.cpu_seconds + (process_cpu_seconds() - self.cpu_at_start).max(0.0),
            wall_seconds: self.base.wall_seconds + self.started.elapsed().as_secs_f64(),
        }
    }
}

/// A compute budget: the session stops cleanly (resumable, as on Ctrl-C) at the first epoch
/// boundary at which the run's clock has reached either limit. Runs that validate count over
/// all their sessions (their checkpoints keep the clock); the others count the session only.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Budget {
    /// Wall-clock seconds.
    pub wall_seconds: Option<f64>,
    /// CPU seconds of the master's process.
    pub cpu_seconds: Option<f64>,
}

/// A budget that does not parse.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("`{0}` is not a time budget: give more than zero seconds (7200), or minutes or hours (90m, 2h, 1.5h)")]
pub struct BadBudget(pub String);

impl Budget {
    /// Seconds from `text`: a positive number with an optional unit, `s`, `m` or `min`, or `h`
    /// (`7200`, `90m`, `2h`).
    pub fn parse_seconds(text: &str) -> Result<f64, BadBudget> {
        let t = text.trim();
        let split = t.find(|c: char| c.is_ascii_alphabetic()).unwrap_or(t.len());
        let (number, unit) = t.split_at(split);
        let scale = match unit.trim() {
            "" | "s" => 1.0,
            "m" | "min" => 60.0,
            "h" => 3600.0,
            _ => return Err(BadBudget(text.into())),
        };
        match number.trim().parse::<f64>() {
            Ok(n) if n.is_finite() && n > 0.0 && (n * scale).is_finite() => Ok(n * scale),
            _ => Err(BadBudget(text.into())),
        }
    }

    /// Why a session with `clock` is out of budget (which limit, its time and the budget), or
    /// `None`; `cumulative` says whether the clock counts the run's sessions or this one's.
    pub fn reached(&self, clock: &RunClock, cumulative: bool) -> Option<String> {
        let whose = if cumulative { "the run's" } else { "this session's" };
        let limits =
            [("wall-clock", self.wall_seconds, clock.wall_seconds), ("CPU", self.cpu_seconds, clock.cpu_seconds)];
        limits.into_iter().find_map(|(what, limit, spent)| {
            let limit = limit.filter(|&limit| spent >= limit)?;
            Some(format!("{whose} {what} time, {spent:.1} s, has reached its budget of {limit} s"))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budgets_read_seconds_minutes_and_hours_and_refuse_the_rest() {
        let read = ["7200", "90m", "2h", "1.5h", " 45 s ", "3 min"].map(|t| Budget::parse_seconds(t).unwrap());
        assert_eq!(read, [7200.0, 5400.0, 7200.0, 5400.0, 45.0, 180.0]);
        for bad in ["", "0", "-5", "2d", "h", "nan", "inf", "1e309", "2hh"] {
            let err = Budget::parse_seconds(bad).unwrap_err().to_string();
            assert!(err.contains(&format!("`{bad}`")) && err.contains("90m, 2h"), "{bad}: {err}");
        }
    }

    #[test]
    fn a_budget_is_reached_when_either_clock_gets_to_it() {
        let clock = RunClock { cpu_seconds: 100.0, wall_seconds: 60.0 };
        let wall = Budget { wall_seconds: Some(60.0), cpu_seconds: None };
        assert_eq!(
            wall.reached(&clock, true).as_deref(),
            Some("the run's wall-clock time, 60.0 s, has reached its budget of 60 s")
        );
        assert_eq!(Budget { wall_seconds: Some(60.5), ..wall }.reached(&clock, true), None);
        let cpu = Budget { wall_seconds: Some(1000.0), cpu_seconds: Some(99.0) };
        assert!(cpu.reached(&clock, false).unwrap().starts_with("this session's CPU time, 100.0 s"));
        assert_eq!(Budget::default().reached(&clock, true), None);
    }

    #[test]
    fn a_session_adds_what_it_spends_to_the_totals_it_began_with() {
        let clock = SessionClock::start(RunClock { cpu_seconds: 100.0, wall_seconds: 200.0 });
        // Spend some CPU: a busy loop the optimiser cannot remove.
        let mut x = 0u64;
        let begun = Instant::now();
        while begun.elapsed().as_millis() < 50 {
            x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(7));
        }
        let now = clock.now();
        assert!(now.wall_seconds >= 200.05 && now.wall_seconds < 260.0, "{now:?}");
        if cfg!(unix) {
            assert!(now.cpu_seconds > 100.0 && now.cpu_seconds < 160.0, "{now:?}");
        }
    }
}
