//! A TD run's saved state: its configuration, the games played, the weights to the bit (and
//! their moving average if the run keeps one), and the compute spent. `state.json` is the latest
//! (written after every batch), and `checkpoints/td-GAMES.json` are snapshots a run can be
//! resumed from. Files are written atomically and carry a digest that loading checks.

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
    /// Their moving average, if the configuration sets `average_games`.
    pub average: Option<Model>,
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
    #[serde(default, skip_serializing_if = "Option::is_none")]
    average: Option<Vec<u64>>,
    cpu_seconds: f64,
    wall_seconds: f64,
    digest: u64,
}

/// Folds the games and every weight's bits (the average's after the weights') into a check
/// value; a state without an average has the digest it had before averages existed.
fn digest(games: u64, weights: &[u64], average: Option<&[u64]>) -> u64 {
    let fold = |h: u64, w: &[u64]| w.iter().fold(h, |h, &w| derive_seed(h ^ w, 0x7D));
    let h = fold(derive_seed(games, weights.len() as u64), weights);
    average.map_or(h, |a| fold(derive_seed(h, 0xA7), a))
}

fn bits(model: &Model) -> Vec<u64> {
    model.weights.iter().map(|w| w.to_bits()).collect()
}

impl TdState {
    /// A run's first state: no games, the initial weights of its seed.
    pub fn initial(config: TdConfig) -> TdState {
        let model = Model::init(config.network, derive_seed(config.seed, 0x1417), config.init_range);
        let average = config.average_games.map(|_| model.clone());
        TdState { config, games: 0, model, average, cpu_seconds: 0.0, wall_seconds: 0.0 }
    }

    /// The network the run validates and saves: the average if it keeps one, else the weights.
    pub fn network(&self) -> &Model {
        self.average.as_ref().unwrap_or(&self.model)
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
        let weights = bits(&self.model);
        let average = self.average.as_ref().map(bits);
        let file = StateFile {
            format: FORMAT,
            config: self.config.clone(),
            games: self.games,
            digest: digest(self.games, &weights, average.as_deref()),
            weights,
            average,
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
        if file.digest != digest(file.games, &file.weights, file.average.as_deref()) {
            return Err(at("damaged: its digest does not match its weights".into()));
        }
        file.config.check().map_err(|e| at(format!("its configuration: {e}")))?;
        if file.games > file.config.games {
            return Err(at(format!("{} games played of a run of {}", file.games, file.config.games)));
        }
        let model_of = |bits: &[u64]| {
            Model::from_weights(file.config.network, bits.iter().map(|&b| f64::from_bits(b)).collect()).map_err(at)
        };
        let model = model_of(&file.weights)?;
        let average = match (&file.average, file.config.average_games) {
            (Some(bits), Some(_)) => Some(model_of(bits).map_err(|e| format!("{e} (the average)"))?),
            (None, None) => None,
            (Some(_), None) => {
                return Err(at("holds an average of the weights, but its configuration has no average_games".into()));
            }
            (None, Some(_)) => {
                return Err(at("its configuration sets average_games, but it holds no average of the weights".into()));
            }
        };
        let finite =
            |s: f64| if s.is_finite() && s >= 0.0 { Ok(s) } else { Err(at(format!("a clock of {s} seconds"))) };
        Ok(TdState {
            games: file.games,
            model,
            average,
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

    #[test]
    fn the_average_reads_back_is_covered_by_the_digest_and_must_match_the_configuration() {
        let dir = tempfile::tempdir().unwrap();
        let path = TdState::latest_path(dir.path());
        let mut state = TdState::initial(TdConfig { average_games: Some(64), ..TdConfig::default() });
        state.games = 16;
        state.average.as_mut().unwrap().weights[3] = 1.0 / 3.0;
        state.write(&path).unwrap();
        let back = TdState::read(&path).unwrap();
        assert_eq!(back, state);
        assert_eq!(back.network().weights[3], 1.0 / 3.0);
        assert_ne!(back.model.weights[3], 1.0 / 3.0);

        let text = std::fs::read_to_string(&path).unwrap();
        let bits = (1.0f64 / 3.0).to_bits().to_string();
        std::fs::write(&path, text.replace(&bits, &(1.0f64 / 7.0).to_bits().to_string())).unwrap();
        let err = TdState::read(&path).unwrap_err();
        assert!(err.contains("damaged"), "{err}");

        // A file whose configuration and contents disagree about the average is refused.
        let mut plain = state.clone();
        plain.config.average_games = None;
        plain.write(&path).unwrap();
        let err = TdState::read(&path).unwrap_err();
        assert!(err.contains("no average_games"), "{err}");
        let mut bare = state;
        bare.average = None;
        bare.write(&path).unwrap();
        let err = TdState::read(&path).unwrap_err();
        assert!(err.contains("holds no average"), "{err}");
    }
}
