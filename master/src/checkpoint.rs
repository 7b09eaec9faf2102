//! Checkpoints: the whole state of a run at a generation boundary, written atomically and
//! verified on load.
//!
//! File layout: the magic `LOAEVOCK`, a format version (u32 LE), the payload length (u64 LE),
//! the payload's CRC-32 (u32 LE), then the payload: [`RunState`] in bincode 2 (serde, standard
//! configuration). A file is written to a temporary name, fsynced, renamed over the target and
//! the directory fsynced, so a crash leaves either the old checkpoint or the new one.
//! A checkpoint holds no timing, thread count or host: runs with the same configuration and
//! seed write byte-identical checkpoints.

use crate::config::ExperimentConfig;
use crate::population::{Individual, SerialCounter};
use crate::rng::GaRng;
use loa_engine::network::{Chromosome, ChromosomeError, Topology};
use loa_records::EpochReport;
use loa_records::jsonl::write_atomically;
use serde::{Deserialize, Serialize};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;

const MAGIC: &[u8; 8] = b"LOAEVOCK";
/// The checkpoint format version this build writes and reads.
pub const FORMAT_VERSION: u32 = 1;
const HEADER: usize = 8 + 4 + 8 + 4;

/// Everything needed to continue a run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunState {
    /// The configuration (with `epochs` the run's current target).
    pub config: ExperimentConfig,
    /// Generations completed (0: the initial random population).
    pub generation: u64,
    /// Epochs completed (benchmarked and checkpointed).
    pub epoch: u32,
    /// The next birth serial.
    pub serials: SerialCounter,
    /// The generator, positioned after everything drawn so far.
    pub rng: GaRng,
    /// The survivors, in order.
    pub population: Vec<StoredIndividual>,
    /// The benchmark report of every epoch so far (epoch 0 is the initial population).
    pub epochs: Vec<EpochReport>,
}

/// An individual as stored: serial, topology name and weights (no reliance on the chromosome
/// type's own serde form, which is made for JSON).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StoredIndividual {
    /// Birth serial.
    pub serial: u64,
    /// Topology name, e.g. `board-nonad-100-20-1`.
    pub topology: String,
    /// The weights.
    pub weights: Vec<f32>,
}

impl StoredIndividual {
    /// Stores an individual.
    pub fn from_individual(i: &Individual) -> StoredIndividual {
        StoredIndividual {
            serial: i.serial,
            topology: i.chromosome.topology().name().to_string(),
            weights: i.chromosome.weights().to_vec(),
        }
    }

    /// Rebuilds the individual, validating the chromosome.
    pub fn to_individual(&self) -> Result<Individual, ChromosomeError> {
        let topology = Topology::from_name(&self.topology)
            .ok_or_else(|| ChromosomeError::UnknownTopology { name: self.topology.clone() })?;
        Ok(Individual { serial: self.serial, chromosome: Arc::new(Chromosome::new(topology, self.weights.clone())?) })
    }
}

/// Why a checkpoint could not be written or used.
#[derive(Debug)]
pub enum CheckpointError {
    /// Reading or writing failed.
    Io(PathBuf, std::io::Error),
    /// Not a checkpoint file.
    BadMagic(PathBuf),
    /// Written by another format version.
    Version(PathBuf, u32),
    /// Shorter or longer than its header says (e.g. cut off by a crash or a full disk).
    Truncated {
        /// The file.
        path: PathBuf,
        /// Bytes the header announces.
        expected: u64,
        /// Bytes present.
        found: u64,
    },
    /// The payload does not match its checksum.
    Checksum(PathBuf),
    /// The payload does not decode, or holds an invalid chromosome.
    Decode(PathBuf, String),
}

impl std::fmt::Display for CheckpointError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CheckpointError::Io(p, e) => write!(f, "checkpoint {}: {e}", p.display()),
            CheckpointError::BadMagic(p) => write!(f, "checkpoint {}: not a loa-evolve checkpoint", p.display()),
            CheckpointError::Version(p, v) => {
                write!(f, "checkpoint {}: format version {v}, this build reads {FORMAT_VERSION}", p.display())
            }
            CheckpointError::Truncated { path, expected, found } => write!(
                f,
                "checkpoint {}: truncated or padded: header says {expected} payload bytes, file has {found}",
                path.display()
            ),
            CheckpointError::Checksum(p) => {
                write!(f, "checkpoint {}: corrupted: the checksum does not match the contents", p.display())
            }
            CheckpointError::Decode(p, why) => write!(f, "checkpoint {}: cannot decode: {why}", p.display()),
        }
    }
}

impl std::error::Error for CheckpointError {}

impl RunState {
    /// The checkpoint bytes of this state.
    pub fn encode(&self) -> Result<Vec<u8>, String> {
        let payload = bincode::serde::encode_to_vec(self, bincode::config::standard()).map_err(|e| e.to_string())?;
        let mut out = Vec::with_capacity(HEADER + payload.len());
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
        out.extend_from_slice(&crc32fast::hash(&payload).to_le_bytes());
        out.extend_from_slice(&payload);
        Ok(out)
    }

    /// Writes this state to `path` atomically.
    pub fn save(&self, path: &Path) -> Result<(), CheckpointError> {
        let bytes = self.encode().map_err(|e| CheckpointError::Decode(path.to_path_buf(), e))?;
        write_atomically(path, &bytes).map_err(|e| CheckpointError::Io(path.to_path_buf(), e))
    }

    /// Reads and verifies the checkpoint at `path`.
    pub fn load(path: &Path) -> Result<RunState, CheckpointError> {
        let bytes = fs::read(path).map_err(|e| CheckpointError::Io(path.to_path_buf(), e))?;
        RunState::decode(&bytes, path)
    }

    /// Verifies and decodes checkpoint bytes (`path` names them in errors).
    pub fn decode(bytes: &[u8], path: &Path) -> Result<RunState, CheckpointError> {
        let p = || path.to_path_buf();
        if bytes.len() < HEADER || &bytes[..8] != MAGIC {
            return Err(CheckpointError::BadMagic(p()));
        }
        // The header is at least HEADER bytes long (checked above), so these reads are in range.
        let version = u32::from_le_bytes(std::array::from_fn(|i| bytes[8 + i]));
        if version != FORMAT_VERSION {
            return Err(CheckpointError::Version(p(), version));
        }
        let expected = u64::from_le_bytes(std::array::from_fn(|i| bytes[12 + i]));
        let crc = u32::from_le_bytes(std::array::from_fn(|i| bytes[20 + i]));
        let payload = &bytes[HEADER..];
        if payload.len() as u64 != expected {
            return Err(CheckpointError::Truncated { path: p(), expected, found: payload.len() as u64 });
        }
        if crc32fast::hash(payload) != crc {
            return Err(CheckpointError::Checksum(p()));
        }
        let (state, used): (RunState, usize) = bincode::serde::decode_from_slice(payload, bincode::config::standard())
            .map_err(|e| CheckpointError::Decode(p(), e.to_string()))?;
        if used != payload.len() {
            return Err(CheckpointError::Decode(p(), format!("{} bytes left over", payload.len() - used)));
        }
        state.config.validate().map_err(|e| CheckpointError::Decode(p(), e.to_string()))?;
        for i in &state.population {
            i.to_individual().map_err(|e| CheckpointError::Decode(p(), format!("individual {}: {e}", i.serial)))?;
        }
        Ok(state)
    }

    /// The population as individuals (validated on load).
    pub fn individuals(&self) -> Result<Vec<Individual>, ChromosomeError> {
        self.population.iter().map(StoredIndividual::to_individual).collect()
    }
}
