//! The dashboard over a run directory's files (`config.toml`, `generations.jsonl`,
//! `epochs.jsonl`, `validation.jsonl`): read-only, for a finished run or one another process is
//! writing. Files are read again only when their size or modification time changed.

use crate::model::{GenerationRate, ProgressInfo, RunInfo, Status, WorkerRow};
use crate::{HISTORY, Provider, slots_from_name};
use loa_analysis::RunConfig;
use loa_records::{EpochReport, GenerationRecord, RunDir, ValidationRecord, jsonl};
use serde::de::DeserializeOwned;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

/// A file's size and modification time, its records and a note, when last read.
type Seen<T> = (u64, Option<SystemTime>, Arc<Vec<Arc<T>>>, Option<String>);

/// A file's records, cached while the file is unchanged.
struct Cached<T> {
    path: PathBuf,
    seen: Mutex<Option<Seen<T>>>,
}

impl<T: DeserializeOwned> Cached<T> {
    fn new(path: PathBuf) -> Cached<T> {
        Cached { path, seen: Mutex::new(None) }
    }

    /// The records and a note (a cut-off last line, an unreadable file); empty if missing.
    fn get(&self) -> (Arc<Vec<Arc<T>>>, Option<String>) {
        let meta = std::fs::metadata(&self.path).ok();
        let stamp = meta.as_ref().map(|m| (m.len(), m.modified().ok()));
        let Ok(mut seen) = self.seen.lock() else { return (Arc::default(), None) };
        if let (Some((len, time)), Some((l, t, records, note))) = (stamp, seen.as_ref())
            && (len, time) == (*l, *t)
        {
            return (Arc::clone(records), note.clone());
        }
        let (records, note) = match jsonl::read::<T>(&self.path) {
            Ok(lines) => {
                let note = lines.torn.map(|line| {
                    format!(
                        "{}:{line}: the last line is cut off (a run still writing?); not shown",
                        self.path.display()
                    )
                });
                (Arc::new(lines.records.into_iter().map(Arc::new).collect::<Vec<_>>()), note)
            }
            Err(_) if meta.is_none() => (Arc::default(), None),
            Err(e) => (Arc::default(), Some(e.to_string())),
        };
        if let Some((len, time)) = stamp {
            *seen = Some((len, time, Arc::clone(&records), note.clone()));
        }
        (records, note)
    }
}

/// A run directory as a dashboard [`Provider`].
pub struct RunDirProvider {
    name: String,
    dir: RunDir,
    epochs: Cached<EpochReport>,
    generations: Cached<GenerationRecord>,
    validation: Cached<ValidationRecord>,
}

impl RunDirProvider {
    /// The run in `dir`; `Err` naming the directory if it is not one.
    pub fn new(dir: &Path) -> Result<RunDirProvider, String> {
        if !dir.is_dir() {
            return Err(format!("{}: not a directory", dir.display()));
        }
        let layout = RunDir::new(dir);
        if !layout.config().exists() && !layout.epochs().exists() {
            return Err(format!("{}: no config.toml or epochs.jsonl: not a run directory", dir.display()));
        }
        Ok(RunDirProvider {
            name: crate::run_name(dir),
            epochs: Cached::new(layout.epochs()),
            generations: Cached::new(layout.generations()),
            validation: Cached::new(layout.validation()),
            dir: layout,
        })
    }
}

impl Provider for RunDirProvider {
    fn status(&self) -> Status {
        let mut notes = Vec::new();
        let config_toml = std::fs::read_to_string(self.dir.config()).unwrap_or_default();
        let config = match RunConfig::parse(&config_toml, &self.dir.config()) {
            Ok(c) => c,
            Err(e) => {
                notes.push(e.to_string());
                RunConfig::default()
            }
        };
        let (epochs, note) = self.epochs.get();
        notes.extend(note);
        let (generations, note) = self.generations.get();
        notes.extend(note);
        let (validation, note) = self.validation.get();
        notes.extend(note);
        // The analysis crate's configuration reader keeps no `[validation]`: the section's
        // header is enough to know.
        let validating = !validation.is_empty() || config_toml.lines().any(|l| l.trim() == "[validation]");
        let generation = generations.last().map_or(0, |g| g.generation);
        let epoch = epochs.last().map_or(0, |e| e.epoch);
        let total = config.epochs.unwrap_or(0).saturating_mul(config.generations_per_epoch.unwrap_or(0));
        let games_per_second = generations
            .iter()
            .skip(generations.len().saturating_sub(HISTORY))
            .map(|g| GenerationRate::from(&**g))
            .collect();
        let workers = generations.last().map_or_else(Vec::new, |g| {
            g.worker_detail
                .iter()
                .map(|w| WorkerRow {
                    name: w.name.clone(),
                    slots: slots_from_name(&w.name),
                    tasks: w.tasks,
                    tasks_per_second: w.tasks_per_second,
                    oldest_lease_seconds: None,
                    straggler: w.straggler,
                })
                .collect()
        });
        Status {
            source: "run directory".into(),
            state: "recorded".into(),
            run: RunInfo {
                name: self.name.clone(),
                seed: config.seed,
                population: config.population,
                target_epochs: config.epochs,
                generations_per_epoch: config.generations_per_epoch,
                network: config.network_name().to_string(),
                board: config.board_name(),
                start: config.start_name().to_string(),
                config_toml,
            },
            generation,
            epoch,
            epochs_recorded: epochs.len(),
            validating,
            validations_recorded: validation.len(),
            step: None,
            progress: ProgressInfo::at(generation, total, 0.0),
            games_per_second,
            tasks_per_second: Vec::new(),
            counts: None,
            workers,
            figures: generations.last().and_then(|g| g.figures.clone()),
            notes,
        }
    }

    fn epochs(&self) -> Vec<Arc<EpochReport>> {
        self.epochs.get().0.as_ref().clone()
    }

    fn validation(&self) -> Vec<Arc<ValidationRecord>> {
        self.validation.get().0.as_ref().clone()
    }
}
