//! Checkpoints of formats 1 to 6 (the bincode of the run state with the configuration's types of
//! their day inside), read with frozen copies of the old types (`types.rs`, never today's) into
//! format 7's contents: the configuration as TOML text, the scheme's memory as version 1 of
//! its state, written from frozen copies of those layouts (`state.rs`, never the live schemes'
//! types, which may move on). Settings a format lacks take the defaults that do what its builds
//! did. The formats are listed in `docs/checkpoints.md`.

mod state;
#[cfg(test)]
mod tests;
mod types;

use super::Stored;
use crate::codec::{self, CodecError};
use crate::config::{Named, SelectionConfig};
use crate::population::{Individual, StoredIndividual};
use loa_engine::network::ChromosomeError;
use serde::de::DeserializeOwned;
use state::names;
use types::*;

/// Why an old checkpoint cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum LegacyError {
    /// Format 1 of a scheme whose settings format 2 changed.
    #[error(
        "format version 1 of a (mu + lambda) or evolution-strategies run, whose settings format 2 changed; continue \
         it with a build that still writes format 1 (docs/checkpoints.md names the last one)"
    )]
    OldScheme,
    /// A scheme that the format was never written for.
    #[error("cannot decode: a format-{format} file holding a {scheme} run, which it never held")]
    Mismatch {
        /// The format.
        format: u32,
        /// The scheme's name.
        scheme: &'static str,
    },
    /// A scheme variant no format had.
    #[error("cannot decode: selection scheme variant {0}")]
    UnknownScheme(u32),
    /// A part of the file does not decode.
    #[error("cannot decode {part}: {error}")]
    Decode {
        /// The part.
        part: &'static str,
        /// Why.
        #[source]
        error: CodecError,
    },
    /// A hall-of-fame champion is not a valid network.
    #[error("hall of fame: {0}")]
    Champion(#[source] ChromosomeError),
    /// The configuration could not be written as TOML.
    #[error("the configuration as TOML: {0}")]
    Config(#[source] toml::ser::Error),
    /// The scheme's state could not be encoded.
    #[error("the scheme's state: {0}")]
    State(#[source] CodecError),
}

/// Old bytes read in order.
struct Reader<'a> {
    bytes: &'a [u8],
}

impl Reader<'_> {
    fn read<T: DeserializeOwned>(&mut self, part: &'static str) -> Result<T, LegacyError> {
        let (value, used) = codec::decode_prefix(self.bytes).map_err(|error| LegacyError::Decode { part, error })?;
        self.bytes = &self.bytes[used..];
        Ok(value)
    }
}

/// The configuration's TOML text and the state of the payload of a format-`format` checkpoint
/// (1 to 6).
pub fn read(format: u32, payload: &[u8]) -> Result<(String, Stored), LegacyError> {
    let mut r = Reader { bytes: payload };
    let head: ConfigHead = r.read("the configuration")?;
    let variant: u32 = r.read("the configuration")?;
    let scheme = match (variant, format) {
        (KNOCKOUT, 1) => None,
        (MU_PLUS_LAMBDA | EVOLUTION_STRATEGIES, 1) => return Err(LegacyError::OldScheme),
        (MU_PLUS_LAMBDA, 2) => {
            Some((names::MU_PLUS_LAMBDA, table(&r.read::<MuPlusLambda>("the (mu + lambda) settings")?)?))
        }
        (EVOLUTION_STRATEGIES, 2..=6) => Some((names::EVOLUTION_STRATEGIES, es_settings(&mut r, format)?)),
        (KNOCKOUT, _) => return Err(LegacyError::Mismatch { format, scheme: names::KNOCKOUT }),
        (MU_PLUS_LAMBDA, _) => return Err(LegacyError::Mismatch { format, scheme: names::MU_PLUS_LAMBDA }),
        (other, _) => return Err(LegacyError::UnknownScheme(other)),
    };
    let benchmark: Benchmark = r.read("the configuration")?;
    let rules: Rules = r.read("the configuration")?;
    let tail: StateTail = r.read("the run's state")?;
    let scheme_state = match scheme.as_ref().map(|(name, _)| *name) {
        None => Vec::new(),
        Some(name) => {
            let memory: Memory = r.read("the scheme memory (hall of fame, ladder)")?;
            let judged = judged(memory)?;
            let saved = if name == names::MU_PLUS_LAMBDA {
                let steps = if r.bytes.is_empty() { Vec::new() } else { r.read("the mutation steps")? };
                state::save(&state::MuPlusLambda { judged, steps })
            } else {
                let adam = match scheme.as_ref().and_then(|(_, t)| t.get("optimizer")).and_then(|o| o.as_str()) {
                    Some("adam") => adam(r.read("Adam's moments")?),
                    _ => state::Adam::default(),
                };
                state::save(&state::EvolutionStrategies { judged, adam })
            };
            saved.map_err(LegacyError::State)?
        }
    };
    if !r.bytes.is_empty() {
        return Err(LegacyError::Decode { part: "the file", error: CodecError::Trailing(r.bytes.len()) });
    }
    let mut config = table(&head)?;
    let (name, settings) = scheme.unwrap_or((names::KNOCKOUT, toml::Table::new()));
    let selection = SelectionConfig { scheme: Named::new(name, settings) };
    config.insert("selection".into(), toml::Value::Table(table(&selection)?));
    config.insert("benchmark".into(), toml::Value::Table(table(&benchmark)?));
    config.insert("rules".into(), toml::Value::Table(table(&rules)?));
    let state = Stored {
        generation: tail.generation,
        epoch: tail.epoch,
        next_serial: tail.next_serial,
        rng: tail.rng,
        population: tail.population.into_iter().map(stored).collect(),
        epochs: tail.epochs,
        scheme: name.to_owned(),
        scheme_state,
    };
    Ok((toml::to_string(&config).map_err(LegacyError::Config)?, state))
}

/// An old value as a TOML table (keys: its field names, which today's configuration shares).
fn table<T: serde::Serialize>(value: &T) -> Result<toml::Table, LegacyError> {
    toml::Table::try_from(value).map_err(LegacyError::Config)
}

/// Evolution strategies' settings of format `format`, the settings added since at their
/// defaults (a constant learning rate, no weight decay, a random first centre, no tied weights,
/// a constant σ, plain steps: what the builds writing it did).
fn es_settings(r: &mut Reader<'_>, format: u32) -> Result<toml::Table, LegacyError> {
    let part = "the evolution-strategies settings";
    let mut settings = table(&r.read::<Es2>(part)?)?;
    let added = [
        table(&if format >= 3 { r.read(part)? } else { Added3 { learning_rate_half_life: 0, weight_decay: 0.0 } })?,
        table(&if format >= 4 { r.read(part)? } else { Added4 { initial_network: String::new() } })?,
        table(&if format >= 5 { r.read(part)? } else { Added5 { symmetry: WeightTying::None, sigma_half_life: 0 } })?,
        table(&if format >= 6 { r.read(part)? } else { Added6 { optimizer: EsOptimizer::Plain } })?,
    ];
    settings.extend(added.into_iter().flatten());
    Ok(settings)
}

fn adam(Adam { updates, beta_1_power, beta_2_power, first, second }: Adam) -> state::Adam {
    state::Adam { updates, beta_1_power, beta_2_power, first, second }
}

fn stored(i: types::Individual) -> StoredIndividual {
    StoredIndividual { serial: i.serial, topology: i.topology, weights: i.weights }
}

/// The judging state of an old memory, its champions checked as networks and stored as today's
/// individuals are (the topology by its name).
fn judged(memory: Memory) -> Result<state::Judging, LegacyError> {
    let champion = |i| {
        let checked = Individual::try_from(stored(i)).map_err(LegacyError::Champion)?;
        let StoredIndividual { serial, topology, weights } = StoredIndividual::from(checked);
        Ok(state::Individual { serial, topology, weights })
    };
    let hall_of_fame = memory.hall_of_fame.into_iter().map(champion).collect::<Result<_, _>>()?;
    Ok(state::Judging { hall_of_fame, rung: memory.rung })
}
