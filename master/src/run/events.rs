//! What a run tells the world as it goes: [`RunEvent`]s sent to [`Subscriber`]s, which write
//! the metrics files ([`MetricsFiles`]) and the log ([`RunLog`]), draw the progress bars and feed
//! a dashboard. Events come before the checkpoint that records the same step, so a crash between
//! the two leaves a metrics line that `resume` cuts back and redoes.

use super::RunError;
use crate::checkpoint::RunState;
use crate::cluster::Dropped;
use crate::scheduler::SchedulerStats;
use crate::selection::Champion;
use loa_records::jsonl::append_line;
use loa_records::{EpochReport, GenerationRecord, RunDir, ValidationRecord, WorkerRecord};
use std::io::Write;
use std::time::Instant;

/// The step a run is working on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Breeding and the tournaments of this generation.
    Generation(u64),
    /// The benchmark that ends this epoch (0: the initial population).
    Benchmark(u32),
    /// The validation of this epoch's best network.
    Validation(u32),
}

/// Something that happened in a run.
#[derive(Clone, Copy, Debug)]
pub enum RunEvent<'a> {
    /// The run starts or resumes at this state, aiming for its configuration's `epochs`.
    Started(&'a RunState),
    /// A step's tasks were submitted.
    StepStarted {
        /// The step.
        step: Step,
        /// Its task count.
        tasks: usize,
    },
    /// Tasks done so far in the current step, with the scheduler's counters (about 10 times a
    /// second).
    Progress {
        /// Tasks of the step with an outcome.
        done: usize,
        /// The scheduler's counters.
        stats: &'a SchedulerStats,
    },
    /// Tasks wait and no worker is there to play them (a master with `--threads 0`): said after
    /// a few seconds, then now and again, so that a silent master is not taken for a stuck one.
    WaitingForWorkers {
        /// Workers registered now.
        connected: usize,
        /// Tasks of the step not yet played.
        left: usize,
    },
    /// A generation finished; its checkpoint follows.
    GenerationDone {
        /// Its line of `generations.jsonl`.
        record: &'a GenerationRecord,
        /// Whether the scheme keeps survivors, so that the record's count of them means something.
        keeps_survivors: bool,
    },
    /// What each remote worker did in a generation (cluster mode): its record's `worker_detail`,
    /// once the generation is checkpointed.
    Workers(&'a GenerationRecord),
    /// An epoch's benchmark finished; its validation lines and checkpoints follow.
    EpochDone(&'a EpochReport),
    /// The epoch's best network was validated against one opponent; the epoch's checkpoints
    /// follow.
    Validated(&'a ValidationRecord),
    /// A remote worker registered, under this name.
    WorkerJoined(&'a str),
    /// The master dropped a remote worker.
    WorkerDropped(&'a Dropped),
    /// This epoch's champion (its best benchmarked network) joined the hall of fame.
    Champion(u32, Champion),
    /// The run's scheme had this to say about this generation (one of its
    /// [`crate::selection::Selected`] notes), after its line.
    Noted(u64, &'a str),
    /// The session's budget is spent (why); it stops at this epoch boundary.
    OutOfBudget(&'a str),
    /// The run stopped early on request (Ctrl-C, or its budget spent) at this state; `master
    /// resume` continues it.
    Stopped(&'a RunState),
    /// The run reached its target at this state.
    Finished(&'a RunState),
    /// Verification by replay quarantined a worker, or set aside files (the line says what).
    Verification(&'a str),
    /// A liar's outcomes were in the run's state: it goes on from this earlier one, without them.
    RolledBack(&'a RunState),
}

/// Receives a run's events. A subscriber whose work is part of the run's record (the metrics
/// files) returns its failures, which stop the run; the others swallow theirs.
pub trait Subscriber: Send + Sync {
    /// Handles one event.
    fn notify(&self, event: &RunEvent<'_>) -> Result<(), RunError>;
}

/// Appends `generations.jsonl`, `epochs.jsonl` and `validation.jsonl` lines to the run directory
/// it holds.
pub struct MetricsFiles(pub RunDir);

impl Subscriber for MetricsFiles {
    fn notify(&self, event: &RunEvent<'_>) -> Result<(), RunError> {
        let (path, result) = match event {
            RunEvent::GenerationDone { record, .. } => {
                (self.0.generations(), append_line(&self.0.generations(), record))
            }
            RunEvent::EpochDone(report) => (self.0.epochs(), append_line(&self.0.epochs(), report)),
            RunEvent::Validated(record) => (self.0.validation(), append_line(&self.0.validation(), record)),
            _ => return Ok(()),
        };
        result.map_err(super::error::io(&path))
    }
}

/// Most workers a [`RunLog`] line names; the rest are summed up, so the log stays readable.
pub const WORKERS_LISTED: usize = 16;

/// The human-readable `run.log`: one timestamped line per notable event.
pub struct RunLog {
    dir: RunDir,
    started: Instant,
}

impl RunLog {
    /// The log of `dir`, timing from `started`.
    pub fn new(dir: RunDir, started: Instant) -> RunLog {
        RunLog { dir, started }
    }

    /// Appends a line, `2026-11-27T12:00:00Z +0.0s MESSAGE` (a log that cannot be written does
    /// not stop the run).
    pub fn line(&self, message: &str) {
        let line = format!("{} +{:.1}s {message}\n", utc_now(), self.started.elapsed().as_secs_f64());
        if let Ok(mut f) = std::fs::OpenOptions::new().create(true).append(true).open(self.dir.log()) {
            let _ = f.write_all(line.as_bytes());
        }
    }
}

impl Subscriber for RunLog {
    fn notify(&self, event: &RunEvent<'_>) -> Result<(), RunError> {
        if let Some(message) = message(event) {
            self.line(&message);
        }
        Ok(())
    }
}

/// The line `run.log` has for `event`, if any (the console without progress bars prints the same).
pub fn message(event: &RunEvent<'_>) -> Option<String> {
    Some(match event {
        RunEvent::Started(s) => {
            format!("run at generation {} epoch {}, target {} epochs", s.generation, s.epoch, s.config.epochs)
        }
        RunEvent::GenerationDone { record: r, keeps_survivors } => {
            let figures = r.figures.as_ref().filter(|f| !f.is_empty()).map_or(String::new(), |f| format!("; {f}"));
            let kept = if *keeps_survivors { format!(", {} survivors kept", r.survivors_kept) } else { String::new() };
            format!(
                "generation {}: {} games, {:.1} plies/game, {:.1} games/s{kept}{figures}",
                r.generation, r.games, r.mean_plies, r.games_per_second
            )
        }
        RunEvent::Workers(r) => worker_line(r.generation, &r.worker_detail),
        RunEvent::EpochDone(r) => {
            format!("epoch {}: benchmark best {} mean {:.1} median {:.1}", r.epoch, r.best, r.mean, r.median)
        }
        RunEvent::Validated(r) => format!(
            "validation, epoch {}: #{} vs {} won {:.1} % ({:.1}-{:.1}) of {} matches ({} won, {} lost, {} tied), \
             {} CPU s, {} s",
            r.epoch,
            r.serial,
            r.opponent,
            100.0 * r.win_rate,
            100.0 * r.win_rate_low,
            100.0 * r.win_rate_high,
            r.matches,
            r.wins,
            r.losses,
            r.ties,
            seconds(r.cpu_seconds),
            seconds(r.wall_seconds)
        ),
        RunEvent::WorkerJoined(name) => format!("worker {name} registered"),
        RunEvent::WaitingForWorkers { connected, left } => {
            format!("waiting for workers: {connected} connected, {left} tasks of this step to play")
        }
        RunEvent::WorkerDropped(d) => format!("worker {} dropped: {}", d.name, d.reason),
        RunEvent::Champion(epoch, c) => {
            format!("hall of fame: #{}, epoch {epoch}'s best, joins ({} champions)", c.serial, c.members)
        }
        RunEvent::Noted(generation, note) => format!("generation {generation}: {note}"),
        RunEvent::OutOfBudget(why) => format!("{why}: stopping at the end of the epoch"),
        RunEvent::Stopped(s) => format!("stopped at generation {} (epoch {})", s.generation, s.epoch),
        RunEvent::Finished(s) => format!("finished: {} epochs, {} generations", s.epoch, s.generation),
        RunEvent::Verification(line) => (*line).to_owned(),
        RunEvent::RolledBack(s) => format!(
            "verification: rollback: the run goes on from generation {} (epoch {}), before the liar's first \
             unverified outcome, and plays again from there",
            s.generation, s.epoch
        ),
        RunEvent::StepStarted { .. } | RunEvent::Progress { .. } => return None,
    })
}

/// `secs` with three significant digits up to 100 (`0.0412`, `3.27`, `41.3`), whole above: a
/// short validation is not `0 s`.
fn seconds(secs: f64) -> String {
    let digits =
        if secs <= 0.0 || !secs.is_finite() { 0 } else { (2.0 - secs.log10().floor()).clamp(0.0, 4.0) as usize };
    format!("{secs:.digits$}")
}

/// The time now in UTC, ISO 8601 to the second: `2026-11-27T12:00:00Z`.
pub fn utc_now() -> String {
    utc(std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs()))
}

/// `secs` after the Unix epoch in UTC, ISO 8601 (the proleptic Gregorian calendar, by Howard
/// Hinnant's `civil_from_days`).
fn utc(secs: u64) -> String {
    let (days, time) = (secs / 86_400 + 719_468, secs % 86_400);
    let (era, day_of_era) = (days / 146_097, days % 146_097);
    let year_of_era = (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let m = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * m + 2) / 5 + 1;
    let month = if m < 10 { m + 3 } else { m - 9 };
    let year = era * 400 + year_of_era + u64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z", time / 3600, time / 60 % 60, time % 60)
}

/// One line for the log: each worker's tasks done during a generation and its rate (the first
/// [`WORKERS_LISTED`]), and how many were seen straggling.
pub fn worker_line(generation: u64, records: &[WorkerRecord]) -> String {
    let parts: Vec<String> = records
        .iter()
        .take(WORKERS_LISTED)
        .map(|w| {
            let flag = if w.straggler { " STRAGGLER" } else { "" };
            format!("{} {} tasks {:.2}/s{flag}", w.name, w.tasks, w.tasks_per_second)
        })
        .collect();
    let more = records.len().saturating_sub(WORKERS_LISTED);
    let more = if more > 0 { format!("; {more} more") } else { String::new() };
    let stragglers = records.iter().filter(|w| w.straggler).count();
    format!("workers, generation {generation}: {}{more} ({stragglers} stragglers)", parts.join("; "))
}

#[cfg(test)]
mod tests {
    #[test]
    fn utc_times_are_iso_8601_on_the_gregorian_calendar() {
        // The reference values are from `date -u -d @SECS +%FT%TZ`.
        assert_eq!(super::utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(super::utc(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(super::utc(1_795_755_785), "2026-11-27T05:03:05Z");
        assert_eq!(super::utc(4_107_542_399), "2100-02-28T23:59:59Z");
    }

    #[test]
    fn short_times_keep_their_digits() {
        let s = super::seconds;
        assert_eq!(
            [s(0.04123), s(0.4), s(3.271), s(41.26), s(412.6), s(0.0)],
            ["0.0412", "0.400", "3.27", "41.3", "413", "0"]
        );
    }

    #[test]
    fn a_generation_line_shows_the_schemes_figures_and_a_note_has_its_own_line() {
        use super::{RunEvent, message};
        use loa_records::{Figures, GenerationRecord};
        let group = Figures::new().with("step", 0.24740367220156328).with("size", 32u32).with("count", 1u32);
        let figures = Figures::new().with("unit", "points").with("best", 0.75).with("vs_fixed", None::<f64>);
        let record = GenerationRecord {
            generation: 530,
            epoch: 53,
            tournaments: Vec::new(),
            survivors_kept: 0,
            games: 64,
            mean_plies: 41.3,
            seconds: 2.0,
            games_per_second: 32.0,
            workers: 2,
            worker_detail: Vec::new(),
            figures: Some(figures.with("group", group)),
        };
        let line = message(&RunEvent::GenerationDone { record: &record, keeps_survivors: true }).unwrap();
        assert_eq!(
            line,
            "generation 530: 64 games, 41.3 plies/game, 32.0 games/s, 0 survivors kept; unit points, best 0.75, \
             vs_fixed –, group.step 0.2474, group.size 32, group.count 1"
        );
        let bare = GenerationRecord { figures: None, ..record };
        let done = |keeps_survivors| message(&RunEvent::GenerationDone { record: &bare, keeps_survivors }).unwrap();
        assert!(done(true).ends_with("32.0 games/s, 0 survivors kept"), "{}", done(true));
        // A scheme that keeps none (ES, CMA-ES, TD, PBT) says nothing of survivors.
        assert!(done(false).ends_with("32.0 games/s"), "{}", done(false));
        let note = "the scheme has something to say";
        assert_eq!(message(&RunEvent::Noted(530, note)).unwrap(), format!("generation 530: {note}"));
    }
}
