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
        let bytes = std::fs::read(path).map_err(|e| CheckpointError::Io(path.to_path_buf(), e))?;
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
    /// configuration parses and is valid, the individuals are valid networks, and the scheme
    /// takes up its state.
    pub fn from_stored(config: &str, s: Stored) -> Result<RunState, InvalidState> {
        let config = ExperimentConfig::from_toml(config).map_err(InvalidState::Config)?;
        if s.scheme != config.selection.scheme.name {
            return Err(InvalidState::Scheme { saved: s.scheme, configured: config.selection.scheme.name });
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
mod tests {
    use super::*;
    use crate::config::SchemeConfig;
    use crate::generation::initial_population;
    use crate::selection::{SchemeState, evolution_strategies};
    use loa_engine::network::Topology;

    /// A state at generation 0 of a run whose `[selection]` is `selection`, on 2 individuals.
    fn state(selection: &str) -> RunState {
        let text = format!("population = 2\n{selection}");
        let config = selection::normalized(&ExperimentConfig::from_toml(&text).unwrap()).unwrap();
        let (mut rng, mut serials) = (GaRng::from_seed(4), SerialCounter::default());
        let population = initial_population(&config, Topology::default(), &mut rng, &mut serials).unwrap();
        let scheme_state = selection::build(&config).unwrap().save().unwrap();
        RunState {
            config,
            generation: 0,
            epoch: 0,
            serials,
            rng,
            population: population.iter().cloned().map(StoredIndividual::from).collect(),
            epochs: Vec::new(),
            scheme_state,
            clock: RunClock::default(),
        }
    }

    /// `payload` under a header of format `version`.
    fn rewrap(version: u32, payload: &[u8]) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        out.extend_from_slice(&version.to_le_bytes());
        out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
        out.extend_from_slice(&crc32fast::hash(payload).to_le_bytes());
        out.extend_from_slice(payload);
        out
    }

    const ES_ADAM: &str = "[selection.scheme.evolution-strategies]\nopponents = 1\noptimizer = \"adam\"\n\
                           hall_of_fame = 1\nladder = [\"random:1\", \"aloa:1\"]\n";

    #[test]
    fn every_scheme_writes_format_7_and_reads_it_back() {
        let mu = "[selection.scheme.mu-plus-lambda]\nopponents = 2\n";
        for selection in ["", mu, ES_ADAM] {
            let s = state(selection);
            let bytes = s.encode().unwrap();
            assert_eq!(bytes[8..12], 7u32.to_le_bytes(), "{selection}");
            assert_eq!(RunState::decode(&bytes, Path::new("x")).unwrap(), s, "{selection}");
        }
    }

    #[test]
    fn the_config_is_kept_as_its_toml_text_and_the_scheme_state_as_tagged_bytes() {
        let mut s = state(ES_ADAM);
        let mut scheme = evolution_strategies::State::load(&s.scheme_state).unwrap();
        let gradient: Vec<f64> = (0..2041).map(|i| f64::from(i) - 1000.0).collect();
        scheme.adam.step(&gradient, 0.01).unwrap();
        scheme.judged.rung = 1;
        s.scheme_state = scheme.save().unwrap();
        let bytes = s.encode().unwrap();
        let ((config, layout), used): ((String, u32), usize) = codec::decode_prefix(&bytes[HEADER..]).unwrap();
        assert_eq!((ExperimentConfig::from_toml(&config).unwrap(), layout), (s.config.clone(), 1));
        assert!(config.contains("[selection.scheme.evolution-strategies]") && config.contains("optimizer = \"adam\""));
        let stored: Stored = codec::decode(&bytes[HEADER + used..]).unwrap();
        assert_eq!((stored.scheme.as_str(), &stored.scheme_state), ("evolution-strategies", &s.scheme_state));
        let back = RunState::decode(&bytes, Path::new("x")).unwrap();
        assert_eq!(evolution_strategies::State::load(&back.scheme_state).unwrap(), scheme);
    }

    #[test]
    fn bad_states_are_refused_naming_the_file_and_the_problem() {
        let named = |s: &RunState, file: &str| {
            let err = RunState::decode(&s.encode().unwrap(), Path::new(file)).unwrap_err().to_string();
            assert!(err.contains(file), "{err}");
            err
        };
        // A knockout population of another size than configured: breeding one survivor found
        // no partner for its child.
        for keep in [0, 1] {
            let mut s = state("");
            s.population.truncate(keep);
            let err = named(&s, "size.ckpt");
            assert!(err.contains(&format!("population of {keep} individuals")), "{err}");
        }
        // A scheme's state under another scheme's configuration.
        let mut s = state("");
        s.config.selection.scheme = state(ES_ADAM).config.selection.scheme;
        s.scheme_state = state(ES_ADAM).scheme_state;
        let mut bytes = s.encode().unwrap();
        let mut knockout = state("");
        knockout.scheme_state = s.scheme_state.clone();
        assert!(named(&knockout, "tail.ckpt").contains("does not decode"));
        // Tag the ES state as the knockout's.
        let text = toml::to_string(&s.config).unwrap();
        let stored =
            Stored { scheme: "knockout".into(), ..decode_payload(&bytes[HEADER..], Path::new("x")).unwrap().1 };
        let payload = codec::encode(&(text, STATE_LAYOUT, stored)).unwrap();
        let err = RunState::decode(&rewrap(7, &payload), Path::new("tag.ckpt")).unwrap_err().to_string();
        assert!(err.contains("the state of scheme `knockout` for a run of scheme `evolution-strategies`"), "{err}");
        // Adam's moments for another network.
        let mut scheme = evolution_strategies::State::load(&s.scheme_state).unwrap();
        scheme.adam.step(&[1.0; 2040], 0.01).unwrap();
        s.scheme_state = scheme.save().unwrap();
        assert!(named(&s, "odd.ckpt").contains("2040 and 2040 moments for 2041 weights"));
        // A rung beyond the ladder.
        scheme = evolution_strategies::State::load(&state(ES_ADAM).scheme_state).unwrap();
        scheme.judged.rung = 2;
        s.scheme_state = scheme.save().unwrap();
        assert!(named(&s, "rung.ckpt").contains("ladder rung 2 of a ladder of 2 rungs"));
        // An unknown state layout, and an unknown format.
        bytes = state("").encode().unwrap();
        let ((config, _), used): ((String, u32), usize) = codec::decode_prefix(&bytes[HEADER..]).unwrap();
        let mut payload = codec::encode(&(config, 2u32)).unwrap();
        payload.extend_from_slice(&bytes[HEADER + used..]);
        let err = RunState::decode(&rewrap(7, &payload), Path::new("new.ckpt")).unwrap_err().to_string();
        assert!(err.contains("new.ckpt: state layout 2, this build reads layout 1"), "{err}");
        let err = RunState::decode(&rewrap(8, &bytes[HEADER..]), Path::new("new.ckpt")).unwrap_err().to_string();
        assert!(err.contains("format version 8, this build reads 1 to 7"), "{err}");
    }

    #[test]
    fn only_runs_that_validate_store_their_clock_and_a_payload_without_one_reads_as_zero() {
        let clock = RunClock { cpu_seconds: 12.5, wall_seconds: 7.25 };
        // Without validation the clock is not stored: the bytes are those of a zero clock.
        let plain = RunState { clock, ..state("") };
        let bytes = plain.encode().unwrap();
        assert_eq!(bytes, state("").encode().unwrap());
        assert_eq!(RunState::decode(&bytes, Path::new("x")).unwrap().clock, RunClock::default());
        // With validation it follows the state, and reads back.
        let mut validating = RunState { clock, ..state("") };
        validating.config.validation =
            Some(crate::config::ValidationConfig { opponents: vec!["aloa:1".into()], ..Default::default() });
        let bytes = validating.encode().unwrap();
        assert_eq!(RunState::decode(&bytes, Path::new("x")).unwrap(), validating);
        // A format-7 checkpoint without the clock (as older builds wrote) reads with a zero one.
        let without = RunState { clock: RunClock::default(), ..validating.clone() };
        let cut = &bytes[HEADER..bytes.len() - codec::encode(&clock).unwrap().len()];
        assert_eq!(RunState::decode(&rewrap(7, cut), Path::new("x")).unwrap(), without);
        // Bytes after the clock are refused.
        let mut padded = bytes[HEADER..].to_vec();
        padded.push(0);
        let err = RunState::decode(&rewrap(7, &padded), Path::new("pad.ckpt")).unwrap_err().to_string();
        assert!(err.contains("pad.ckpt: cannot decode") && err.contains("left over"), "{err}");
    }

    #[test]
    fn a_length_misread_from_a_file_is_refused_without_allocating_it() {
        // The configuration's length says 2^62 bytes (a varint of 9 bytes, tag 255).
        let mut payload = vec![255];
        payload.extend_from_slice(&(1u64 << 62).to_le_bytes());
        payload.extend_from_slice(&[0; 64]);
        let err = RunState::decode(&rewrap(7, &payload), Path::new("huge.ckpt")).unwrap_err().to_string();
        assert!(err.contains("huge.ckpt: cannot decode"), "{err}");
    }

    #[test]
    fn an_invalid_configuration_is_refused_by_name() {
        let mut s = state("");
        s.config.seed = u64::MAX;
        let err = RunState::decode(&s.encode().unwrap(), Path::new("seed.ckpt")).unwrap_err().to_string();
        assert!(err.contains("seed.ckpt: configuration") && err.contains("seed"), "{err}");
        s.config.seed = 1;
        s.config.selection.scheme = SchemeConfig::new("no-such-scheme", toml::Table::new());
        let err = RunState::decode(&s.encode().unwrap(), Path::new("name.ckpt")).unwrap_err().to_string();
        assert!(err.contains("name.ckpt") && err.contains("unknown scheme `no-such-scheme`"), "{err}");
    }
}
