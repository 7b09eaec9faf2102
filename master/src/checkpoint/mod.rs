//! Checkpoints: the whole state of a run at a generation boundary, written atomically and
//! verified on load. Format 7 holds the configuration as TOML text, so its types can change
//! without a new format, and the scheme's state as opaque bytes; [`legacy`] reads formats 1 to
//! 6. The layout and every check are in `docs/checkpoints.md`.

pub mod legacy;

use crate::codec::{self, CodecError};
use crate::config::{ConfigError, ExperimentConfig};
use crate::population::{Individual, SerialCounter, StoredIndividual};
use crate::rng::GaRng;
use crate::selection::{self, Scheme, StateError};
use legacy::LegacyError;
use loa_engine::network::ChromosomeError;
use loa_records::EpochReport;
use loa_records::jsonl::write_atomically;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

const MAGIC: &[u8; 8] = b"LOAEVOCK";
/// The checkpoint format this build writes (it reads formats 1 to this one).
pub const FORMAT_VERSION: u32 = 7;
/// The layout of [`Stored`] this build writes.
const STATE_LAYOUT: u32 = 1;
const HEADER: usize = 8 + 4 + 8 + 4;

/// The most generations a run reaches: task ids hold 40 bits of the generation
/// (`run::task_id`), and a generation a second would take 35 000 years to get there.
pub const MAX_GENERATION: u64 = (1 << 40) - 1;
/// The largest birth serial a checkpoint may hold next: far beyond any run (a million
/// individuals a second for 140 years), and far below `u64::MAX`, which the benchmark's
/// reference player takes, so a run that goes on from it never overflows.
pub const MAX_SERIAL: u64 = 1 << 62;
/// The largest epoch a checkpoint may hold: one below `u32::MAX`, so the next epoch is a `u32`.
pub const MAX_EPOCH: u32 = u32::MAX - 1;

/// Everything needed to continue a run.
#[derive(Clone, Debug, PartialEq)]
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
    /// The selection scheme's state, as it saved it ([`Scheme::save`]).
    pub scheme_state: Vec<u8>,
    /// The compute the run has spent so far; stored only by runs that validate (whose
    /// validation lines report it), zero from checkpoints without it.
    pub clock: RunClock,
}

/// The compute a run has spent, summed over its sessions (`run::clock`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RunClock {
    /// CPU seconds of the master's process (user + system).
    pub cpu_seconds: f64,
    /// Wall-clock seconds.
    pub wall_seconds: f64,
}

/// The state as a format-7 payload holds it, after the configuration (layout 1).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Stored {
    /// Generations completed.
    pub generation: u64,
    /// Epochs completed.
    pub epoch: u32,
    /// The next birth serial.
    pub next_serial: u64,
    /// The generator's state.
    pub rng: [u64; 4],
    /// The survivors, in order.
    pub population: Vec<StoredIndividual>,
    /// Every epoch's benchmark report.
    pub epochs: Vec<EpochReport>,
    /// The selection scheme's name.
    pub scheme: String,
    /// The scheme's own state.
    pub scheme_state: Vec<u8>,
}

/// Why a run's state is not one a run can continue from.
#[derive(Debug, thiserror::Error)]
pub enum InvalidState {
    /// The configuration does not parse or is invalid.
    #[error("configuration: {0}")]
    Config(#[source] ConfigError),
    /// The state belongs to another scheme than the configuration's.
    #[error("the state of scheme `{saved}` for a run of scheme `{configured}`")]
    Scheme {
        /// The scheme the state is tagged with.
        saved: String,
        /// The configuration's scheme.
        configured: String,
    },
    /// An individual's chromosome is invalid.
    #[error("individual {serial}: {error}")]
    Individual {
        /// Its serial.
        serial: u64,
        /// Why.
        #[source]
        error: ChromosomeError,
    },
    /// The scheme cannot take up its saved state.
    #[error("{0}")]
    SchemeState(#[source] StateError),
    /// A counter beyond what any run reaches: the file was crafted or corrupted in a way its
    /// checksum did not catch.
    #[error(
        "{counter} {value} is beyond {max}, more than any run reaches: the checkpoint is corrupt or crafted \
         (resume from an earlier epoch's checkpoint)"
    )]
    Counter {
        /// Which counter: "generation", "epoch", "next serial".
        counter: &'static str,
        /// Its value.
        value: u64,
        /// The largest it may be.
        max: u64,
    },
    /// More epochs completed than the generations allow: an epoch ends every
    /// `generations_per_epoch` generations.
    #[error(
        "epoch {epoch} at generation {generation}, {per_epoch} generations an epoch: an epoch ends after its \
         generations, so the checkpoint is corrupt or crafted (resume from an earlier epoch's checkpoint)"
    )]
    EpochAhead {
        /// Epochs completed.
        epoch: u32,
        /// Generations completed.
        generation: u64,
        /// The configuration's `generations_per_epoch`.
        per_epoch: u32,
    },
}

/// `value` of `counter`, refused above `max`.
fn bounded(counter: &'static str, value: u64, max: u64) -> Result<(), InvalidState> {
    if value > max { Err(InvalidState::Counter { counter, value, max }) } else { Ok(()) }
}

/// Why a state could not be written as a checkpoint.
#[derive(Debug, thiserror::Error)]
pub enum EncodeError {
    /// The configuration has no TOML form (a value TOML cannot hold).
    #[error("the configuration as TOML: {0}")]
    Config(#[source] toml::ser::Error),
    /// The state could not be encoded.
    #[error("the state: {0}")]
    State(#[source] CodecError),
}

/// Why a checkpoint could not be written or used; each names the file.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    /// Reading or writing failed.
    #[error("checkpoint {0}: {1}")]
    Io(PathBuf, #[source] std::io::Error),
    /// Not a checkpoint file.
    #[error("checkpoint {0}: not a loa-evolve checkpoint")]
    BadMagic(PathBuf),
    /// Cut off within its header (e.g. by a crash or a full disk).
    #[error("checkpoint {0}: truncated or corrupt: {1} bytes, shorter than its {HEADER}-byte header")]
    ShortHeader(PathBuf, usize),
    /// Written in a format this build does not read.
    #[error("checkpoint {0}: format version {1}, this build reads 1 to {FORMAT_VERSION}")]
    Version(PathBuf, u32),
    /// Shorter or longer than its header says (e.g. cut off by a crash or a full disk).
    #[error("checkpoint {path}: truncated or padded: header says {expected} payload bytes, file has {found}")]
    Truncated {
        /// The file.
        path: PathBuf,
        /// Bytes the header announces.
        expected: u64,
        /// Bytes present.
        found: u64,
    },
    /// The payload does not match its checksum.
    #[error("checkpoint {0}: corrupted: the checksum does not match the contents")]
    Checksum(PathBuf),
    /// The payload does not decode.
    #[error("checkpoint {0}: cannot decode: {1}")]
    Decode(PathBuf, #[source] CodecError),
    /// A state layout this build does not know.
    #[error("checkpoint {0}: state layout {1}, this build reads layout {STATE_LAYOUT}")]
    Layout(PathBuf, u32),
    /// A checkpoint of an older format that cannot be read.
    #[error("checkpoint {0}: {1}")]
    Legacy(PathBuf, #[source] LegacyError),
    /// The state decodes but is not one a run can continue from.
    #[error("checkpoint {0}: {1}")]
    Invalid(PathBuf, #[source] InvalidState),
    /// The state could not be encoded.
    #[error("checkpoint {0}: cannot encode {1}")]
    Encode(PathBuf, #[source] EncodeError),
}

impl RunState {
    /// The checkpoint bytes of this state.
    pub fn encode(&self) -> Result<Vec<u8>, EncodeError> {
        let config = toml::to_string(&self.config).map_err(EncodeError::Config)?;
        let stored = Stored {
            generation: self.generation,
            epoch: self.epoch,
            next_serial: self.serials.peek(),
            rng: self.rng.state(),
            population: self.population.clone(),
            epochs: self.epochs.clone(),
            scheme: self.config.selection.scheme.name.clone(),
            scheme_state: self.scheme_state.clone(),
        };
        let mut payload = codec::encode(&(config, STATE_LAYOUT, stored)).map_err(EncodeError::State)?;
        // Only runs that validate report their compute: the others' checkpoints stay the bytes
        // they were, identical for any number of workers.
        if self.config.validation.is_some() {
            payload.extend(codec::encode(&self.clock).map_err(EncodeError::State)?);
        }
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
        let bytes = self.encode().map_err(|e| CheckpointError::Encode(path.to_path_buf(), e))?;
        write_atomically(path, &bytes).map_err(|e| CheckpointError::Io(path.to_path_buf(), e))
    }

    /// Reads and verifies the checkpoint at `path`.
    pub fn load(path: &Path) -> Result<RunState, CheckpointError> {
        // No checkpoint decodes past the codec's limit, so none is read past it either.
        let bytes = loa_engine::files::read_at_most(path, crate::codec::DECODE_LIMIT as u64)
            .map_err(|e| CheckpointError::Io(path.to_path_buf(), e))?;
        RunState::decode(&bytes, path)
    }

    /// Verifies and decodes checkpoint bytes of any format (`path` names them in errors).
    pub fn decode(bytes: &[u8], path: &Path) -> Result<RunState, CheckpointError> {
        let p = || path.to_path_buf();
        // A file cut short within its header (a crash, a full disk) still starts as one.
        if !bytes.starts_with(MAGIC) && !MAGIC.starts_with(bytes) {
            return Err(CheckpointError::BadMagic(p()));
        }
        if bytes.len() < HEADER {
            return Err(CheckpointError::ShortHeader(p(), bytes.len()));
        }
        // The header is at least HEADER bytes long (checked above), so these reads are in range.
        let version = u32::from_le_bytes(std::array::from_fn(|i| bytes[8 + i]));
        if !(1..=FORMAT_VERSION).contains(&version) {
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
        let (config, stored, clock) = match version {
            FORMAT_VERSION => decode_payload(payload, path)?,
            old => {
                let (config, stored) = legacy::read(old, payload).map_err(|e| CheckpointError::Legacy(p(), e))?;
                (config, stored, RunClock::default())
            }
        };
        let state = RunState::from_stored(&config, stored).map_err(|e| CheckpointError::Invalid(p(), e))?;
        Ok(RunState { clock, ..state })
    }

    /// The state a checkpoint holds (the configuration's TOML text and the rest), checked: the
    /// configuration parses and is valid (and is normalised: [`selection::normalized`]), the
    /// counters are within [`MAX_GENERATION`], [`MAX_EPOCH`] and [`MAX_SERIAL`] and the epoch is
    /// not ahead of the generations, the individuals
    /// are valid networks, and the scheme takes up its state.
    pub fn from_stored(config: &str, s: Stored) -> Result<RunState, InvalidState> {
        let config = ExperimentConfig::from_toml(config).map_err(InvalidState::Config)?;
        // Settings added after the checkpoint was written take their defaults, written out as a
        // new run's are, so the state compares equal to the same run started today.
        let config = selection::normalized(&config).map_err(InvalidState::Config)?;
        if s.scheme != config.selection.scheme.name {
            return Err(InvalidState::Scheme { saved: s.scheme, configured: config.selection.scheme.name });
        }
        // Bounded here, so a run going on from them needs no overflow checks.
        bounded("generation", s.generation, MAX_GENERATION)?;
        bounded("epoch", u64::from(s.epoch), u64::from(MAX_EPOCH))?;
        bounded("next serial", s.next_serial, MAX_SERIAL)?;
        // Else the run would play generations for ever without reaching the next epoch.
        let per_epoch = config.generations_per_epoch;
        if u64::from(s.epoch) > s.generation / u64::from(per_epoch) {
            return Err(InvalidState::EpochAhead { epoch: s.epoch, generation: s.generation, per_epoch });
        }
        let state = RunState {
            config,
            generation: s.generation,
            epoch: s.epoch,
            serials: SerialCounter::starting_at(s.next_serial),
            rng: GaRng::from_state(s.rng),
            population: s.population,
            epochs: s.epochs,
            scheme_state: s.scheme_state,
            clock: RunClock::default(),
        };
        state.scheme()?;
        Ok(state)
    }

    /// The population as individuals (validated on load).
    pub fn individuals(&self) -> Result<Vec<Individual>, InvalidState> {
        let individual = |i: &StoredIndividual| {
            Individual::try_from(i.clone()).map_err(|error| InvalidState::Individual { serial: i.serial, error })
        };
        self.population.iter().map(individual).collect()
    }

    /// The configured scheme, in the state this run saved.
    pub fn scheme(&self) -> Result<Box<dyn Scheme>, InvalidState> {
        let mut scheme = selection::build(&self.config).map_err(InvalidState::Config)?;
        let population = self.individuals()?;
        scheme.restore(&self.scheme_state, &population, &self.config).map_err(InvalidState::SchemeState)?;
        Ok(scheme)
    }
}

/// The configuration's TOML text, the state and the clock of a format-7 payload (a payload
/// without a clock after the state, as runs without validation and older builds write, has a
/// zero clock).
fn decode_payload(payload: &[u8], path: &Path) -> Result<(String, Stored, RunClock), CheckpointError> {
    let undecodable = |e| CheckpointError::Decode(path.to_path_buf(), e);
    let ((config, layout), used): ((String, u32), usize) = codec::decode_prefix(payload).map_err(undecodable)?;
    if layout != STATE_LAYOUT {
        return Err(CheckpointError::Layout(path.to_path_buf(), layout));
    }
    let (state, more): (Stored, usize) = codec::decode_prefix(&payload[used..]).map_err(undecodable)?;
    let rest = &payload[used + more..];
    let clock = if rest.is_empty() { RunClock::default() } else { codec::decode(rest).map_err(undecodable)? };
    Ok((config, state, clock))
}

#[cfg(test)]
mod tests;
