//! What the console shows while a run works. On a terminal: an epoch bar and a bar for the
//! generation or benchmark in hand, with rates and ETAs, and the epochs and cluster events above
//! them. Otherwise (standard output piped or redirected): `run.log`'s lines on standard output,
//! one per generation or event.

use super::RunError;
use super::events::{RunEvent, Step, Subscriber, message};
use crate::checkpoint::RunState;
use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::{IsTerminal, Write};

/// The progress display (silent when disabled, e.g. in tests).
pub struct Progress {
    multi: MultiProgress,
    epoch: ProgressBar,
    step: ProgressBar,
    /// Plain lines on standard output instead of bars.
    lines: bool,
}

fn style(template: &str) -> ProgressStyle {
    ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_bar())
}

impl Progress {
    /// A display for a run at `state`: bars if standard output is a terminal, else lines.
    pub fn new(enabled: bool, state: &RunState) -> Progress {
        let lines = enabled && !std::io::stdout().is_terminal();
        let target = if enabled && !lines { ProgressDrawTarget::stderr() } else { ProgressDrawTarget::hidden() };
        let multi = MultiProgress::with_draw_target(target);
        let total = u64::from(state.config.epochs) * u64::from(state.config.generations_per_epoch);
        let epoch = multi.add(ProgressBar::new(total));
        epoch.set_style(style("{prefix:>10} [{bar:30}] generation {pos}/{len}  {msg}  ETA {eta}"));
        epoch.set_prefix("run");
        epoch.set_position(state.generation.min(total));
        epoch.reset_eta();
        let step = multi.add(ProgressBar::new(1));
        step.set_style(style("{prefix:>10} [{bar:30}] {pos}/{len} tasks  {msg}"));
        Progress { multi, epoch, step, lines }
    }

    /// Shows an event's line: above the bars, or as a line of standard output. A closed output
    /// (`| head`) stops the lines, not the run: `run.log` has them all.
    pub fn say(&self, line: &str) {
        match self.lines {
            true => drop(writeln!(std::io::stdout().lock(), "{line}")),
            false => drop(self.multi.println(line)),
        }
    }
}

impl Subscriber for Progress {
    fn notify(&self, event: &RunEvent<'_>) -> Result<(), RunError> {
        let shown = self.lines
            || matches!(
                event,
                RunEvent::WorkerJoined(_)
                    | RunEvent::WorkerDropped(_)
                    | RunEvent::Verification(_)
                    | RunEvent::RolledBack(_)
            );
        if let Some(line) = message(event).filter(|_| shown) {
            self.say(&line);
        }
        if self.lines {
            return Ok(());
        }
        match event {
            RunEvent::StepStarted { step, tasks } => {
                self.step.set_prefix(match step {
                    Step::Generation(g) => format!("gen {g}"),
                    Step::Benchmark(e) => format!("bench {e}"),
                    Step::Validation(e) => format!("valid {e}"),
                });
                self.step.set_length(*tasks as u64);
                self.step.set_position(0);
                self.step.reset_elapsed();
            }
            RunEvent::Progress { done, stats } => {
                self.step.set_position(*done as u64);
                let secs = self.step.elapsed().as_secs_f64();
                let rate = if secs > 0.0 { *done as f64 / secs } else { 0.0 };
                self.step.set_message(format!(
                    "{rate:.1} tasks/s | {} workers ({} stragglers), {} in flight, {} re-leased, {} duplicates, {} unknown",
                    stats.workers, stats.stragglers, stats.in_flight, stats.re_leased, stats.duplicates, stats.unknown
                ));
            }
            RunEvent::GenerationDone { record, .. } => {
                self.epoch.set_position(record.generation);
                self.epoch.set_message(format!(
                    "epoch {} | {:.0} games/s, {:.0} plies/game",
                    record.epoch, record.games_per_second, record.mean_plies
                ));
            }
            RunEvent::EpochDone(report) => {
                self.say(&format!(
                    "epoch {:>4} (generation {:>6}): benchmark vs reference  best {:>3}  mean {:>6.1}  median {:>6.1}",
                    report.epoch, report.generation, report.best, report.mean, report.median
                ));
            }
            RunEvent::Validated(_) | RunEvent::WaitingForWorkers { .. } => {
                if let Some(line) = message(event) {
                    self.say(&line);
                }
            }
            RunEvent::Finished(_) => {
                self.step.finish_and_clear();
                self.epoch.finish();
            }
            _ => {}
        }
        Ok(())
    }
}
