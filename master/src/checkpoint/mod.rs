//! Checkpoints: the whole state of a run at a generation boundary, written atomically and
//! verified on load.
//!
//! File layout: the magic `LOAEVOCK`, a format version (u32 LE), the payload length (u64 LE),
//! the payload's CRC-32 (u32 LE), then the payload: [`RunState`] in bincode 2 (serde, standard
//! configuration); from format 2 on, followed by the scheme's [`SchemeMemory`] (hall of fame,
//! ladder rung) and, for self-adaptive mutation only, the survivors' steps.
//!
//! Format 1 is written for the thesis's knockout scheme, so its checkpoints keep the bytes they had
//! before format 2 existed; format 2 for (μ + λ), whose settings grew (judging options) and whose
//! state grew ([`SchemeMemory`]); format 6 (format 2's layout, and for Adam's runs its moments
//! at the end) for evolution strategies, whose settings grew four times more (format 3:
//! learning-rate half-life, weight decay; format 4: an initial network; format 5: tied weights
//! and a σ half-life; format 6: the optimiser). A format-2 to -5 file of evolution strategies
//! is read as format 6 with the newer settings at their defaults, which is what the build that
//! wrote it did (`legacy`); a format-1 file of (μ + λ) or evolution
//! strategies comes from an older build and is refused, naming the format and that build.
//!
//! A file is written to a temporary name, fsynced, renamed over the target and
//! the directory fsynced, so a crash leaves either the old checkpoint or the new one.
//! A checkpoint holds no timing, thread count or host: runs with the same configuration and
//! seed write byte-identical checkpoints.

mod legacy;

use crate::config::{EsOptimizer, ExperimentConfig, MAX_STEP, MIN_STEP, SelectionScheme};
use crate::population::{Individual, SerialCounter};
use crate::rng::GaRng;
use crate::selection::adam::AdamState;
use loa_engine::network::{Chromosome, ChromosomeError, Topology};
use loa_records::EpochReport;
use loa_records::jsonl::write_atomically;
use serde::{Deserialize, Serialize};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;

const MAGIC: &[u8; 8] = b"LOAEVOCK";
/// The newest checkpoint format version this build writes and reads (it also writes formats 1
/// and 2 for the schemes that keep them, and reads formats 1 to 5; see the module's
/// documentation).
pub const FORMAT_VERSION: u32 = 6;
const HEADER: usize = 8 + 4 + 8 + 4;

/// At most this many bytes are allocated for what a checkpoint's lengths announce.
const DECODE_LIMIT: usize = 1 << 30;

/// The bincode configuration checkpoints are read with: the standard one (which writes them),
/// with a limit on what decoding allocates, so a length misread from a damaged or mislabelled
/// file (one whose checksum still matches) is an error, not an allocation of exabytes that
/// aborts the process. A limit acts only on reading, so the bytes written are unchanged.
pub(crate) fn reading() -> bincode::config::Configuration<
    bincode::config::LittleEndian,
    bincode::config::Varint,
    bincode::config::Limit<DECODE_LIMIT>,
> {
    bincode::config::standard().with_limit::<DECODE_LIMIT>()
}

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
    /// What a points-judged scheme remembers besides the population. Stored after the rest
    /// (format 2 and later).
    #[serde(skip)]
    pub memory: SchemeMemory,
}

/// What (μ + λ) and ES remember across generations besides the population.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SchemeMemory {
    /// Champions of past epochs (the best benchmarked network of each, oldest first), used as
    /// opponents by schemes with a hall of fame.
    pub hall_of_fame: Vec<StoredIndividual>,
    /// The ladder's current rung (index into the configured ladder).
    pub rung: u32,
    /// Each survivor's self-adaptive mutation step, by serial (empty unless the operator is
    /// self-adaptive). Stored after the rest of the memory, and only when not empty, so runs
    /// without it keep the bytes they had before it existed.
    #[serde(skip)]
    pub steps: Vec<(u64, f64)>,
    /// Adam's moments, for evolution strategies stepping with Adam: stored after the rest of
    /// the memory for such runs only (format 6), so other runs keep their bytes.
    #[serde(skip)]
    pub adam: AdamState,
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
    /// A format-1 checkpoint of a scheme whose state format 2 changed.
    OldScheme(PathBuf),
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
                write!(f, "checkpoint {}: format version {v}, this build reads 1 to {FORMAT_VERSION}", p.display())
            }
            CheckpointError::OldScheme(p) => write!(
                f,
                "checkpoint {}: format version 1 of a (mu + lambda) or evolution-strategies run, whose settings \
                 format 2 changed; continue it with the build that wrote it (commit 9e96a2e or earlier)",
                p.display()
            ),
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
        let standard = bincode::config::standard();
        let mut payload = bincode::serde::encode_to_vec(self, standard).map_err(|e| e.to_string())?;
        let version = self.format_version();
        if version >= 2 {
            payload.extend(bincode::serde::encode_to_vec(&self.memory, standard).map_err(|e| e.to_string())?);
            if !self.memory.steps.is_empty() {
                payload.extend(bincode::serde::encode_to_vec(&self.memory.steps, standard).map_err(|e| e.to_string())?);
            }
            if self.steps_with_adam() {
                payload.extend(bincode::serde::encode_to_vec(&self.memory.adam, standard).map_err(|e| e.to_string())?);
            }
        }
        let mut out = Vec::with_capacity(HEADER + payload.len());
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&version.to_le_bytes());
        out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
        out.extend_from_slice(&crc32fast::hash(&payload).to_le_bytes());
        out.extend_from_slice(&payload);
        Ok(out)
    }

    /// Whether the run is evolution strategies stepping with Adam, whose checkpoints end with
    /// Adam's moments.
    fn steps_with_adam(&self) -> bool {
        matches!(&self.config.selection.scheme, SelectionScheme::EvolutionStrategies(es) if es.optimizer == EsOptimizer::Adam)
    }

    /// The format this state is written in: 1 for the knockout (whose checkpoints keep their
    /// bytes), 6 for evolution strategies, 2 for the rest.
    pub fn format_version(&self) -> u32 {
        match self.config.selection.scheme {
            SelectionScheme::Knockout if self.memory == SchemeMemory::default() => 1,
            SelectionScheme::EvolutionStrategies(_) => FORMAT_VERSION,
            _ => 2,
        }
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
        let standard = reading();
        let upgraded;
        let (version, payload) = match version {
            2..=5 if legacy::is_evolution_strategies(payload) => {
                upgraded = legacy::upgrade_es(payload, version).map_err(|e| CheckpointError::Decode(p(), e))?;
                (FORMAT_VERSION, &upgraded[..])
            }
            _ => (version, payload),
        };
        let decoded: Result<(RunState, usize), _> = bincode::serde::decode_from_slice(payload, standard);
        if version == 1 && !matches!(&decoded, Ok((s, _)) if s.config.selection.scheme == SelectionScheme::Knockout) {
            // The settings of the other schemes changed shape in format 2: such a file either
            // fails to decode or decodes into nonsense.
            return Err(CheckpointError::OldScheme(p()));
        }
        let (mut state, mut used) = decoded.map_err(|e| CheckpointError::Decode(p(), e.to_string()))?;
        if version >= 2 {
            let (memory, more): (SchemeMemory, usize) =
                bincode::serde::decode_from_slice(&payload[used..], standard)
                    .map_err(|e| CheckpointError::Decode(p(), format!("scheme memory (hall of fame, ladder): {e}")))?;
            state.memory = memory;
            used += more;
            if state.steps_with_adam() {
                let (adam, more): (AdamState, usize) = bincode::serde::decode_from_slice(&payload[used..], standard)
                    .map_err(|e| CheckpointError::Decode(p(), format!("Adam's moments: {e}")))?;
                let weights = state.population.first().map_or(0, |c| c.weights.len());
                adam.check(weights).map_err(|e| CheckpointError::Decode(p(), e))?;
                state.memory.adam = adam;
                used += more;
            } else if used < payload.len() {
                let (steps, more): (Vec<(u64, f64)>, usize) =
                    bincode::serde::decode_from_slice(&payload[used..], standard)
                        .map_err(|e| CheckpointError::Decode(p(), format!("mutation steps: {e}")))?;
                if steps.is_empty() || steps.iter().any(|&(_, step)| !(MIN_STEP..=MAX_STEP).contains(&step)) {
                    return Err(CheckpointError::Decode(p(), "mutation steps: empty or out of range".into()));
                }
                state.memory.steps = steps;
                used += more;
            }
        }
        if used != payload.len() {
            return Err(CheckpointError::Decode(p(), format!("{} bytes left over", payload.len() - used)));
        }
        state.config.validate().map_err(|e| CheckpointError::Decode(p(), e.to_string()))?;
        // The knockout keeps its size from generation to generation (one winner a group, a
        // group a survivor), and breeding a child needs a partner.
        if matches!(state.config.selection.scheme, SelectionScheme::Knockout)
            && state.population.len() != state.config.population
        {
            let (found, expected) = (state.population.len(), state.config.population);
            let why = format!("a knockout population of {found} individuals, the configuration says {expected}");
            return Err(CheckpointError::Decode(p(), why));
        }
        for i in &state.population {
            i.to_individual().map_err(|e| CheckpointError::Decode(p(), format!("individual {}: {e}", i.serial)))?;
        }
        for i in &state.memory.hall_of_fame {
            i.to_individual()
                .map_err(|e| CheckpointError::Decode(p(), format!("hall of fame, individual {}: {e}", i.serial)))?;
        }
        let rungs = state.config.judging().map_or(0, |j| j.ladder.len());
        if state.memory.rung as usize >= rungs.max(1) {
            return Err(CheckpointError::Decode(
                p(),
                format!("ladder rung {} of a ladder of {rungs} rungs", state.memory.rung),
            ));
        }
        if state.format_version() != version {
            return Err(CheckpointError::Decode(
                p(),
                format!("a format-{version} file holding a format-{} state", state.format_version()),
            ));
        }
        Ok(state)
    }

    /// The population as individuals (validated on load).
    pub fn individuals(&self) -> Result<Vec<Individual>, ChromosomeError> {
        self.population.iter().map(StoredIndividual::to_individual).collect()
    }

    /// The hall of fame as individuals (validated on load).
    pub fn hall_of_fame(&self) -> Result<Vec<Individual>, ChromosomeError> {
        self.memory.hall_of_fame.iter().map(StoredIndividual::to_individual).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{MuPlusLambdaConfig, SelectionConfig};
    use crate::generation::initial_population;

    fn state(scheme: SelectionScheme) -> RunState {
        let config = ExperimentConfig {
            population: 2,
            selection: SelectionConfig { scheme },
            mutation: crate::config::MutationConfig::default(),
            ..ExperimentConfig::default()
        };
        let (mut rng, mut serials) = (GaRng::from_seed(4), SerialCounter::new());
        let population = initial_population(&config, Topology::default(), &mut rng, &mut serials).unwrap();
        let population: Vec<StoredIndividual> = population.iter().map(StoredIndividual::from_individual).collect();
        RunState {
            config,
            generation: 0,
            epoch: 0,
            serials,
            rng,
            memory: SchemeMemory {
                hall_of_fame: population[..1].to_vec(),
                rung: 3,
                steps: vec![(0, 0.05), (1, 0.1)],
                adam: AdamState::default(),
            },
            population,
            epochs: Vec::new(),
        }
    }

    /// `bytes` with another version and payload, header fixed up.
    fn rewrap(version: u32, payload: &[u8]) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        out.extend_from_slice(&version.to_le_bytes());
        out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
        out.extend_from_slice(&crc32fast::hash(payload).to_le_bytes());
        out.extend_from_slice(payload);
        out
    }

    #[test]
    fn the_hall_of_fame_round_trips_in_format_2_and_the_knockout_stays_format_1() {
        let ladder = ["random:1", "aloa:1", "aloa:2", "aloa:3"].map(String::from).to_vec();
        let mu_plus_lambda =
            SelectionScheme::MuPlusLambda(MuPlusLambdaConfig { opponents: 2, ladder, ..Default::default() });
        let s = state(mu_plus_lambda);
        let bytes = s.encode().unwrap();
        assert_eq!(bytes[8..12], 2u32.to_le_bytes());
        assert_eq!(RunState::decode(&bytes, Path::new("x")).unwrap(), s);
        let knockout = RunState { memory: SchemeMemory::default(), ..state(SelectionScheme::Knockout) };
        let bytes = knockout.encode().unwrap();
        assert_eq!(bytes[8..12], 1u32.to_le_bytes());
        // Format 1 is the state's bincode alone: what builds before format 2 wrote.
        let payload = bincode::serde::encode_to_vec(&knockout, bincode::config::standard()).unwrap();
        assert_eq!(bytes[HEADER..], payload[..]);
        assert_eq!(RunState::decode(&bytes, Path::new("x")).unwrap(), knockout);
    }

    #[test]
    fn a_knockout_population_of_another_size_than_configured_is_refused_by_name() {
        // A file whose checksum holds (written so) but whose population lost an individual:
        // breeding one survivor found no partner for its child and indexed past the end.
        for keep in [0, 1] {
            let mut s = RunState { memory: SchemeMemory::default(), ..state(SelectionScheme::Knockout) };
            s.population.truncate(keep);
            let err = RunState::decode(&s.encode().unwrap(), Path::new("x.ckpt")).unwrap_err().to_string();
            assert!(err.contains("x.ckpt") && err.contains(&format!("knockout population of {keep}")), "{err}");
        }
    }

    #[test]
    fn evolution_strategies_write_format_6_and_refuse_their_format_1_files_by_name() {
        use crate::config::EsConfig;
        use loa_engine::network::symmetry::WeightTying;
        let es = EsConfig {
            opponents: 1,
            learning_rate_half_life: 500,
            weight_decay: 0.005,
            initial_network: "start.json".into(),
            symmetry: WeightTying::Equivariant,
            sigma_half_life: 300,
            ..EsConfig::default()
        };
        let mut s = state(SelectionScheme::EvolutionStrategies(es));
        s.memory.rung = 0;
        let bytes = s.encode().unwrap();
        assert_eq!(bytes[8..12], 6u32.to_le_bytes());
        assert_eq!(RunState::decode(&bytes, Path::new("x")).unwrap(), s);
        let err = RunState::decode(&rewrap(1, &bytes[HEADER..]), Path::new("es.ckpt")).unwrap_err().to_string();
        assert!(err.contains("format version 1") && err.contains("9e96a2e"), "{err}");
        // Format-2 to format-5 files are read by splicing in the settings added since: a file
        // that is not what its format wrote (here: already format 6's bytes) is refused, not
        // misread (format 5's splice misreads a string's length as about 8 · 10^18 bytes: the
        // decoding limit refuses it, where its allocation aborted the process before).
        for old in [2, 3, 4, 5] {
            let err = RunState::decode(&rewrap(old, &bytes[HEADER..]), Path::new("es.ckpt")).unwrap_err().to_string();
            assert!(err.contains("es.ckpt: cannot decode"), "format {old}: {err}");
        }
    }

    #[test]
    fn adams_moments_round_trip_and_missing_or_corrupt_moments_are_refused_by_name() {
        use crate::config::EsConfig;
        let es = EsConfig { opponents: 1, optimizer: EsOptimizer::Adam, ..EsConfig::default() };
        let mut s = state(SelectionScheme::EvolutionStrategies(es));
        s.memory.rung = 0;
        s.memory.steps.clear();
        // Before the first update the moments are empty, and still written.
        let empty = s.encode().unwrap();
        assert_eq!(RunState::decode(&empty, Path::new("x")).unwrap(), s);
        let gradient: Vec<f64> = (0..2041).map(|i| f64::from(i) - 1000.0).collect();
        s.memory.adam.step(&gradient, 0.01).unwrap();
        s.memory.adam.step(&gradient, 0.01).unwrap();
        let bytes = s.encode().unwrap();
        assert_eq!(bytes[8..12], 6u32.to_le_bytes());
        // 2 × 2041 moments of 8 bytes more, and each length's varint 3 bytes instead of 1.
        assert_eq!(bytes.len(), empty.len() + 2 * 2041 * 8 + 2 * 2);
        assert_eq!(RunState::decode(&bytes, Path::new("x")).unwrap(), s);
        // Cut off inside the moments.
        let cut = &bytes[HEADER..bytes.len() - 100];
        let err = RunState::decode(&rewrap(6, cut), Path::new("cut.ckpt")).unwrap_err().to_string();
        assert!(err.contains("cut.ckpt") && err.contains("Adam's moments"), "{err}");
        // Moments for another network.
        s.memory.adam.first.pop();
        let err = RunState::decode(&s.encode().unwrap(), Path::new("odd.ckpt")).unwrap_err().to_string();
        assert!(err.contains("odd.ckpt") && err.contains("2040 and 2041 moments"), "{err}");
    }

    #[test]
    fn a_format_1_file_of_a_newer_scheme_and_unknown_versions_are_refused_by_name() {
        let mut s = state(SelectionScheme::MuPlusLambda(MuPlusLambdaConfig { opponents: 2, ..Default::default() }));
        s.memory.rung = 0;
        let bytes = s.encode().unwrap();
        // The same state's bytes without the hall of fame, labelled format 1.
        let payload = bincode::serde::encode_to_vec(&s, bincode::config::standard()).unwrap();
        let err = RunState::decode(&rewrap(1, &payload), Path::new("old.ckpt")).unwrap_err().to_string();
        assert!(err.contains("format version 1") && err.contains("old.ckpt"), "{err}");
        let err = RunState::decode(&rewrap(7, &bytes[HEADER..]), Path::new("new.ckpt")).unwrap_err().to_string();
        assert!(err.contains("format version 7, this build reads 1 to 6"), "{err}");
        // Format 2 without its hall of fame is cut short.
        let err = RunState::decode(&rewrap(2, &payload), Path::new("cut.ckpt")).unwrap_err().to_string();
        assert!(err.contains("scheme memory"), "{err}");
        // A rung beyond the configured ladder (none here) is refused.
        let bad = RunState { memory: SchemeMemory { rung: 1, ..SchemeMemory::default() }, ..s };
        let err = RunState::decode(&bad.encode().unwrap(), Path::new("rung.ckpt")).unwrap_err().to_string();
        assert!(err.contains("ladder rung 1 of a ladder of 0 rungs"), "{err}");
    }
}
