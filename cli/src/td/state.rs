//! A TD run's saved state: its configuration, the games played, the weights to the bit, and
//! the compute spent. `state.json` is the latest (written after every batch), and
//! `checkpoints/td-GAMES.json` are snapshots a run can be resumed from. Files are written
//! atomically and carry a digest that loading checks.

use super::config::TdConfig;
use super::model::Model;
use loa_engine::random::derive_seed;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The file format's version.
const FORMAT: u32 = 1;

/// Largest state file read: a 3-layer 8×8 network's weights as JSON numbers are well under it.
const READ_LIMIT: u64 = 64 << 20;

/// A TD run's state.
#[derive(Clone, Debug, PartialEq)]
pub struct TdState {
    /// The configuration (a resume keeps it).
    pub config: TdConfig,
    /// Self-play games learnt from.
    pub games: u64,
    /// The weights.
    pub model: Model,
    /// CPU seconds of the run's processes over its sessions.
    pub cpu_seconds: f64,
    /// Wall-clock seconds over its sessions.
    pub wall_seconds: f64,
}

/// The file's form: weights as their f64 bit patterns, so they are read back exactly.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct StateFile {
    format: u32,
    config: TdConfig,
    games: u64,
    weights: Vec<u64>,
    cpu_seconds: f64,
    wall_seconds: f64,
    digest: u64,
}

/// Folds the games and every weight's bits into a check value.
fn digest(games: u64, weights: &[u64]) -> u64 {
    weights.iter().fold(derive_seed(games, weights.len() as u64), |h, &w| derive_seed(h ^ w, 0x7D))
}

impl TdState {
    /// A run's first state: no games, the initial weights of its seed.
    pub fn initial(config: TdConfig) -> TdState {
        let model = Model::init(config.network, derive_seed(config.seed, 0x1417), config.init_range);
        TdState { config, games: 0, model, cpu_seconds: 0.0, wall_seconds: 0.0 }
    }

    /// The snapshot file of this state in `dir`.
    pub fn snapshot_path(dir: &Path, games: u64) -> PathBuf {
        dir.join("checkpoints").join(format!("td-{games:09}.json"))
    }

    /// The latest state's file in `dir`.
    pub fn latest_path(dir: &Path) -> PathBuf {
        dir.join("state.json")
    }

    /// Writes the state to `path` atomically.
    pub fn write(&self, path: &Path) -> Result<(), String> {
        let weights: Vec<u64> = self.model.weights.iter().map(|w| w.to_bits()).collect();
        let file = StateFile {
            format: FORMAT,
            config: self.config.clone(),
            games: self.games,
            digest: digest(self.games, &weights),
            weights,
            cpu_seconds: self.cpu_seconds,
            wall_seconds: self.wall_seconds,
        };
        let text = serde_json::to_string(&file).map_err(|e| format!("{}: {e}", path.display()))?;
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        loa_records::jsonl::write_atomically(path, text.as_bytes()).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// Reads and checks a state file.
    pub fn read(path: &Path) -> Result<TdState, String> {
        let at = |why: String| format!("{}: {why}", path.display());
        let text = loa_engine::files::read_text_at_most(path, READ_LIMIT).map_err(|e| at(e.to_string()))?;
        let file: StateFile = serde_json::from_str(&text).map_err(|e| at(format!("not a TD state file: {e}")))?;
        if file.format != FORMAT {
            return Err(at(format!("format {} is not {FORMAT}, the one this build reads", file.format)));
        }
        if file.digest != digest(file.games, &file.weights) {
            return Err(at("damaged: its digest does not match its weights".into()));
        }
        file.config.check().map_err(|e| at(format!("its configuration: {e}")))?;
        if file.games > file.config.games {
            return Err(at(format!("{} games played of a run of {}", file.games, file.config.games)));
        }
        let weights = file.weights.iter().map(|&b| f64::from_bits(b)).collect();
        let model = Model::from_weights(file.config.network, weights).map_err(at)?;
        let finite =
            |s: f64| if s.is_finite() && s >= 0.0 { Ok(s) } else { Err(at(format!("a clock of {s} seconds"))) };
        Ok(TdState {
            games: file.games,
            model,
            cpu_seconds: finite(file.cpu_seconds)?,
            wall_seconds: finite(file.wall_seconds)?,
            config: file.config,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_state_reads_back_to_the_bit_and_damage_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let mut state = TdState::initial(TdConfig::default());
        state.games = 32;
        state.model.weights[5] = 1.0 / 3.0;
        state.cpu_seconds = 12.5;
        let path = TdState::latest_path(dir.path());
        state.write(&path).unwrap();
        assert_eq!(TdState::read(&path).unwrap(), state);

        let text = std::fs::read_to_string(&path).unwrap();
        let bits = (1.0f64 / 3.0).to_bits().to_string();
        std::fs::write(&path, text.replace(&bits, &(1.0f64 / 7.0).to_bits().to_string())).unwrap();
        let err = TdState::read(&path).unwrap_err();
        assert!(err.contains("damaged"), "{err}");

        std::fs::write(&path, "{\"format\": 1}").unwrap();
        let err = TdState::read(&path).unwrap_err();
        assert!(err.contains("not a TD state file"), "{err}");
    }
}
