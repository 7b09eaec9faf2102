//! `master show DIR`: a run's summary, read from its checkpoints.

use super::resume::{epoch_checkpoints, newest_usable_epoch, run_dir};
use super::{RunError, load};
use crate::checkpoint::RunState;
use crate::selection::{SchemeState, cma_es};
use loa_records::SearchSummary;
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
    /// The search distribution now, for schemes that adapt one (CMA-ES, once it has selected);
    /// left out of the JSON otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub search: Option<SearchSummary>,
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
            None => return Err(error),
        },
    };
    let epochs = state.epochs.iter().map(|r| {
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
    let config = &state.config;
    Ok(RunOverview {
        dir: dir.to_path_buf(),
        source,
        note,
        seed: config.seed,
        population: config.population,
        scheme: config.selection.scheme.name.clone(),
        target_epochs: config.epochs,
        generations_per_epoch: config.generations_per_epoch,
        reference: config.reference().to_string(),
        generation: state.generation,
        epoch: state.epoch,
        epochs: epochs.collect(),
        checkpoints: epoch_checkpoints(&run).into_iter().map(|(epoch, _)| epoch).collect(),
        abandoned,
        search: search(&state),
    })
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
        writeln!(f, "checkpoints: {}", ranges(&self.checkpoints))?;
        if let Some(s) = &self.search {
            writeln!(
                f,
                "search: sigma {:.4}, {} candidates per generation, {} restarts",
                s.sigma, s.lambda, s.restarts
            )?;
        }
        for name in &self.abandoned {
            writeln!(f, "set aside by a resume from an earlier epoch: checkpoints/{name}")?;
        }
        Ok(())
    }
}

/// The search distribution of a CMA-ES run's state, if it has one.
fn search(state: &RunState) -> Option<SearchSummary> {
    if state.config.selection.scheme.name != cma_es::NAME {
        return None;
    }
    let cma = cma_es::State::load(&state.scheme_state).ok()?.cma?;
    Some(cma_es::search(&cma, None))
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
}
