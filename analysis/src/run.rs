//! A run as the master wrote it: its configuration, epoch reports and generation lines, read
//! through `loa-records`. A run still going is fine (whatever is complete is used); a cut-off
//! last line is noted once and skipped.

use crate::config::RunConfig;
use crate::error::{AnalysisError, Result};
use loa_records::{EpochReport, GenerationRecord, JsonLines, RunDir, jsonl};
use serde::de::DeserializeOwned;
use std::path::{Path, PathBuf};

/// A loaded run.
#[derive(Clone, Debug)]
pub struct Run {
    /// The run directory.
    pub dir: PathBuf,
    /// A short name for legends and tables (the directory's last component).
    pub name: String,
    /// What `config.toml` says (all `None` if the file is missing).
    pub config: RunConfig,
    /// Every complete epoch report, in file order (epoch 0 first: the initial population).
    pub epochs: Vec<EpochReport>,
    /// Every complete generation line, in file order (empty if the file is not there yet).
    pub generations: Vec<GenerationRecord>,
    /// Things a reader should know, one line each (cut-off lines, missing files).
    pub notes: Vec<String>,
}

/// Reads a JSON-lines file; a file with no complete record is an error; a torn last line is noted.
pub(crate) fn read_records<T: DeserializeOwned>(path: &Path, notes: &mut Vec<String>) -> Result<Vec<T>> {
    let JsonLines { records, torn } = jsonl::read::<T>(path)?;
    if records.is_empty() {
        return Err(AnalysisError::Empty { path: path.to_path_buf(), torn });
    }
    if let Some(line) = torn {
        notes.push(format!(
            "{}:{line}: the last line is cut off (a run still writing, or a crash); using the {} complete lines before it",
            path.display(),
            records.len()
        ));
    }
    Ok(records)
}

impl Run {
    /// Loads the run at `dir`: `epochs.jsonl` must hold at least one complete epoch;
    /// `generations.jsonl` and `config.toml` may be missing (noted).
    pub fn load(dir: &Path) -> Result<Run> {
        if !dir.is_dir() {
            return Err(AnalysisError::NoRun(dir.to_path_buf()));
        }
        let layout = RunDir::new(dir);
        let mut notes = Vec::new();
        let config = match std::fs::read_to_string(layout.config()) {
            Ok(text) => RunConfig::parse(&text, &layout.config())?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                notes.push(format!("{}: missing; population and rules unknown", layout.config().display()));
                RunConfig::default()
            }
            Err(e) => return Err(AnalysisError::Records(loa_records::RecordError::Io(layout.config(), e))),
        };
        let epochs: Vec<EpochReport> = read_records(&layout.epochs(), &mut notes)?;
        let generations = if layout.generations().exists() {
            read_records(&layout.generations(), &mut notes)?
        } else {
            notes.push(format!("{}: not written yet; no tournament charts", layout.generations().display()));
            Vec::new()
        };
        let name = dir
            .canonicalize()
            .ok()
            .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
            .unwrap_or_else(|| dir.display().to_string());
        Ok(Run { dir: dir.to_path_buf(), name, config, epochs, generations, notes })
    }

    /// The ply cap to count capped games by (the config's, else 100, the default rules').
    pub fn ply_cap(&self) -> u32 {
        self.config.ply_cap.and_then(|c| u32::try_from(c).ok()).unwrap_or(100)
    }
}
