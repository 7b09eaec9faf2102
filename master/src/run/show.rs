//! `master show DIR`: a run's summary, read from its checkpoints.

use super::resume::{epoch_checkpoints, newest_usable_epoch, run_dir};
use super::{RunError, load};
use crate::checkpoint::RunState;
use crate::config::ExperimentConfig;
use loa_records::{EpochReport, Figures, RunDir, ValidationRecord, jsonl};
use serde::Serialize;
use std::fmt;
use std::path::{Path, PathBuf};

/// A run's summary: its configuration's essentials, every epoch's benchmark, where it stopped
/// and the checkpoints it has.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunOverview {
    /// The run directory.
    pub dir: PathBuf,
    /// The checkpoint read: `latest.ckpt`, or the newest epoch checkpoint that loads.
    pub source: PathBuf,
    /// Why `latest.ckpt` was not read, if it was not.
    pub note: Option<String>,
    /// The run's seed.
    pub seed: u64,
    /// Survivors per generation.
    pub population: usize,
    /// The selection scheme.
    pub scheme: String,
    /// The epochs the run aims for.
    pub target_epochs: u32,
    /// Generations per epoch.
    pub generations_per_epoch: u32,
    /// The benchmark's reference player, e.g. `aloa:3`.
    pub reference: String,
    /// Generations completed.
    pub generation: u64,
    /// Epochs completed.
    pub epoch: u32,
    /// Every epoch's benchmark (epoch 0: the initial population).
    pub epochs: Vec<EpochLine>,
    /// The epochs whose checkpoint is present.
    pub checkpoints: Vec<u32>,
    /// Directories that `master resume --from-epoch` set aside in `checkpoints/`.
    pub abandoned: Vec<String>,
    /// What the scheme's state says now, in its own figures ([`crate::selection::Scheme::state_figures`]:
    /// e.g. a search distribution); left out of the JSON if none.
    #[serde(skip_serializing_if = "Figures::is_empty")]
    pub figures: Figures,
    /// Whether the run has `[validation]`.
    pub validating: bool,
    /// The latest held-out validation against each opponent (`validation.jsonl`, up to the
    /// last epoch the checkpoint read has finished), in the configuration's order.
    pub validation: Vec<ValidationRecord>,
    /// Why `validation.jsonl` was not read, if it was not.
    pub validation_note: Option<String>,
}

/// One epoch's benchmark: combined scores of the two games against the reference (0 to 398).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EpochLine {
    /// The epoch.
    pub epoch: u32,
    /// Generations completed at its end.
    pub generation: u64,
    /// The best score.
    pub best: u32,
    /// The mean score.
    pub mean: f64,
    /// The median score.
    pub median: f64,
    /// The best network's index in the epoch's population (`master export --best` writes it).
    pub best_individual: Option<usize>,
    /// Its birth serial.
    pub best_serial: Option<u64>,
}

/// The summary of the run in `dir`.
pub fn show(dir: &Path) -> Result<RunOverview, RunError> {
    let run = run_dir(dir)?;
    let (source, note, state) = match load(run.latest_checkpoint()) {
        Ok(state) => (run.latest_checkpoint(), None, state),
        Err(error) => match newest_usable_epoch(&run) {
            Some(epoch) => (run.epoch_checkpoint(epoch), Some(error.to_string()), load(run.epoch_checkpoint(epoch))?),
            None => return without_checkpoint(&run, error),
        },
    };
    overview(&run, source, note, &state.config, &state.epochs, (state.generation, state.epoch), state_figures(&state))
}

/// The summary of a run no checkpoint of which loads, from what can be read: `config.toml`
/// and `epochs.jsonl`. `error` (why no checkpoint loads) is returned if they cannot be read.
fn without_checkpoint(run: &RunDir, error: RunError) -> Result<RunOverview, RunError> {
    let config = std::fs::read_to_string(run.config()).ok().and_then(|t| ExperimentConfig::from_toml(&t).ok());
    let epochs = jsonl::read::<EpochReport>(&run.epochs()).map(|lines| lines.records);
    let (Some(config), Ok(epochs)) = (config, epochs) else { return Err(error) };
    let at = epochs.last().map_or((0, 0), |e| (e.generation, e.epoch));
    let note = format!(
        "{error}; shown from config.toml and epochs.jsonl, which read: the checkpoints' populations cannot be, so \
         the run cannot be resumed or exported"
    );
    overview(run, run.epochs(), Some(note), &config, &epochs, at, Figures::new())
}

/// The summary of the run in `run` from its configuration and epoch reports, read from `source`,
/// at `(generation, epoch)`.
fn overview(
    run: &RunDir,
    source: PathBuf,
    note: Option<String>,
    config: &ExperimentConfig,
    reports: &[EpochReport],
    (generation, epoch): (u64, u32),
    figures: Figures,
) -> Result<RunOverview, RunError> {
    let epochs = reports.iter().map(|r| {
        let champion = r.champion();
        EpochLine {
            epoch: r.epoch,
            generation: r.generation,
            best: r.best,
            mean: r.mean,
            median: r.median,
            // Entries are in population order.
            best_individual: champion.and_then(|c| r.entries.iter().position(|e| e.serial == c.serial)),
            best_serial: champion.map(|c| c.serial),
        }
    });
    let abandoned = std::fs::read_dir(run.checkpoints()).into_iter().flatten().flatten();
    let mut abandoned: Vec<String> = abandoned
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|name| name.starts_with("abandoned-"))
        .collect();
    abandoned.sort();
    let finished = reports.last().map(|r| r.epoch);
    let (validation, validation_note) = match latest_validation(run, finished) {
        Ok(lines) => (lines, None),
        Err(e) => (Vec::new(), Some(e)),
    };
    Ok(RunOverview {
        dir: run.root().to_path_buf(),
        source,
        note,
        seed: config.seed,
        population: config.population,
        scheme: config.selection.scheme.name.clone(),
        target_epochs: config.epochs,
        generations_per_epoch: config.generations_per_epoch,
        reference: config.reference()?.to_string(),
        generation,
        epoch,
        epochs: epochs.collect(),
        checkpoints: epoch_checkpoints(run).into_iter().map(|(epoch, _)| epoch).collect(),
        abandoned,
        figures,
        validating: config.validation.is_some(),
        validation,
        validation_note,
    })
}

/// The last line of each opponent in `validation.jsonl` among the epochs up to `finished` (a
/// file ahead of the checkpoint holds lines a resume redoes), opponents in the order they first
/// appear; `Err` saying why the file does not read. A missing file has no lines.
fn latest_validation(run: &RunDir, finished: Option<u32>) -> Result<Vec<ValidationRecord>, String> {
    let path = run.validation();
    if !path.exists() {
        return Ok(Vec::new());
    }
    let lines = loa_records::jsonl::read::<ValidationRecord>(&path).map_err(|e| e.to_string())?;
    let mut latest: Vec<ValidationRecord> = Vec::new();
    for r in lines.records.into_iter().filter(|r| finished.is_some_and(|f| r.epoch <= f)) {
        match latest.iter_mut().find(|l| l.opponent == r.opponent) {
            Some(slot) => *slot = r,
            None => latest.push(r),
        }
    }
    Ok(latest)
}

/// `seconds` as `42 s`, `12 min 05 s` or `2 h 03 min`.
fn duration(seconds: f64) -> String {
    let s = seconds.max(0.0).round() as u64;
    match s {
        0..60 => format!("{s} s"),
        60..3600 => format!("{} min {:02} s", s / 60, s % 60),
        _ => format!("{} h {:02} min", s / 3600, s / 60 % 60),
    }
}

impl fmt::Display for RunOverview {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let dir = self.dir.display();
        writeln!(
            f,
            "run {dir}: seed {}, population {}, scheme {}, {} epochs of {} generations",
            self.seed, self.population, self.scheme, self.target_epochs, self.generations_per_epoch
        )?;
        if let Some(note) = &self.note {
            writeln!(f, "read from {} ({note})", self.source.display())?;
        }
        let state = match self.epoch >= self.target_epochs {
            true => "finished".to_owned(),
            false => format!("continue it with `master resume {dir}`"),
        };
        writeln!(f, "at generation {}, epoch {}: {state}", self.generation, self.epoch)?;
        writeln!(f, "benchmark against {}, two games, combined score 0 to 398:", self.reference)?;
        writeln!(f, " epoch generation  best    mean  median  best individual (serial)")?;
        for e in &self.epochs {
            let best = e.best_individual.zip(e.best_serial).map_or("-".into(), |(i, s)| format!("{i} (#{s})"));
            writeln!(f, "{:>6} {:>10} {:>5} {:>7.1} {:>7.1}  {best}", e.epoch, e.generation, e.best, e.mean, e.median)?;
        }
        self.fmt_validation(f)?;
        writeln!(f, "checkpoints: {}", ranges(&self.checkpoints))?;
        if !self.figures.is_empty() {
            writeln!(f, "{} now: {}", self.scheme, self.figures)?;
        }
        for name in &self.abandoned {
            writeln!(f, "set aside by a resume from an earlier epoch: checkpoints/{name}")?;
        }
        Ok(())
    }
}

/// The figures of the state's scheme as its state stands; none if the scheme cannot be made
/// from the state (the checkpoint loaded, so it can).
fn state_figures(state: &RunState) -> Figures {
    state.scheme().map_or_else(|_| Figures::new(), |scheme| scheme.state_figures())
}

impl RunOverview {
    /// The latest held-out validation, for runs that validate.
    fn fmt_validation(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(note) = &self.validation_note {
            writeln!(f, "held-out validation not shown: {note}")?;
        }
        if self.validation.is_empty() {
            if self.validating && self.validation_note.is_none() {
                writeln!(f, "held-out validation: none yet (the first comes with epoch 0's benchmark)")?;
            }
            return Ok(());
        }
        writeln!(f, "held-out validation, latest (matches won, 95 % interval; criterion 4 a tie; the run's time):")?;
        let [o, e, m, w, l, t] = ["opponent", "epoch", "matches", "won", "lost", "tied"];
        let [rate, interval, cpu, wall] = ["win rate", "interval", "CPU time", "wall time"];
        writeln!(f, " {o:<16} {e:>5} {m:>7} {w:>5} {l:>5} {t:>5} {rate:>9} {interval:>13} {cpu:>12} {wall:>12}")?;
        for r in &self.validation {
            let interval = format!("{:.1}-{:.1} %", 100.0 * r.win_rate_low, 100.0 * r.win_rate_high);
            writeln!(
                f,
                " {:<16} {:>5} {:>7} {:>5} {:>5} {:>5} {:>7.1} % {:>13} {:>12} {:>12}",
                r.opponent,
                r.epoch,
                r.matches,
                r.wins,
                r.losses,
                r.ties,
                100.0 * r.win_rate,
                interval,
                duration(r.cpu_seconds),
                duration(r.wall_seconds)
            )?;
        }
        Ok(())
    }
}

/// `epochs 0..3, 5` for the sorted numbers `[0, 1, 2, 3, 5]`.
fn ranges(epochs: &[u32]) -> String {
    let mut runs: Vec<(u32, u32)> = Vec::new();
    for &e in epochs {
        match runs.last_mut() {
            Some((_, end)) if *end + 1 == e => *end = e,
            _ => runs.push((e, e)),
        }
    }
    let text: Vec<String> =
        runs.iter().map(|&(a, b)| if a == b { a.to_string() } else { format!("{a}..{b}") }).collect();
    if text.is_empty() { "no epoch checkpoint".into() } else { format!("epochs {}", text.join(", ")) }
}

#[cfg(test)]
mod tests {
    #[test]
    fn epoch_ranges_are_compact() {
        assert_eq!(super::ranges(&[0, 1, 2, 3, 5, 7, 8]), "epochs 0..3, 5, 7..8");
        assert_eq!(super::ranges(&[]), "no epoch checkpoint");
    }

    #[test]
    fn durations_read_in_the_largest_units() {
        let shown = [0.4, 42.0, 725.0, 7380.0].map(super::duration);
        assert_eq!(shown, ["0 s", "42 s", "12 min 05 s", "2 h 03 min"]);
    }
}
