//! Chromosomes: a network shape ([`Topology`]) and its weights, validated; random chromosomes.

use super::Topology;
use super::error::ChromosomeError;
use crate::breeding::Origin;
use std::sync::{Arc, OnceLock};

/// The largest weight magnitude a chromosome may hold. Far beyond anything evolution reaches,
/// it guarantees that no sum in the network can overflow to infinity or NaN, which would break
/// the search's comparisons.
pub const MAX_ABS_WEIGHT: f32 = 1.0e6;

/// Weights as little-endian bytes, as the wire carries them and [`ChromosomeId`] hashes them: the
/// weights' own memory on a little-endian machine (no copy), converted on a big-endian one.
pub fn little_endian_bytes(weights: &[f32]) -> std::borrow::Cow<'_, [u8]> {
    if cfg!(target_endian = "little") {
        std::borrow::Cow::Borrowed(bytemuck::cast_slice(weights))
    } else {
        std::borrow::Cow::Owned(weights.iter().flat_map(|w| w.to_le_bytes()).collect())
    }
}

/// A chromosome's content address: the 128-bit XXH3 hash of its topology's name, a
/// zero byte, and its weights' bits as little-endian bytes. Chromosomes with the same topology and
/// weight bits have the same id on every machine, so a worker can keep chromosomes it has seen and a task can name them by id
/// instead of carrying 33 KiB of weights.
///
/// XXH3 is specified and its output frozen (xxHash 0.8), fast (an 8 KiB chromosome hashes in well
/// under a microsecond) and has no dependencies; 128 bits make an accidental collision between
/// two of a run's chromosomes negligible (about `n² / 2¹²⁹`: 10⁻²⁶ for a million chromosomes).
/// It is not a cryptographic hash: it guards against mix-ups, not against a hostile master, whom
/// workers trust anyway.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ChromosomeId(pub u128);

impl ChromosomeId {
    /// The id of the chromosome of `topology` with these weights (which need not be valid).
    pub fn of(topology: Topology, weights: &[f32]) -> ChromosomeId {
        let mut hasher = xxhash_rust::xxh3::Xxh3::new();
        hasher.update(topology.to_string().as_bytes());
        hasher.update(&[0]);
        // In one piece: the hasher then works on the weights in place, copying only what is left
        // over at the ends (in small pieces, each update buffered and copied).
        hasher.update(&little_endian_bytes(weights));
        ChromosomeId(hasher.digest128())
    }

    /// The id's high 64 bits (the wire carries an id as two 64-bit halves).
    pub fn high(self) -> u64 {
        (self.0 >> 64) as u64
    }

    /// The id's low 64 bits.
    pub fn low(self) -> u64 {
        self.0 as u64
    }

    /// The id made of two 64-bit halves.
    pub fn from_halves(high: u64, low: u64) -> ChromosomeId {
        ChromosomeId((u128::from(high) << 64) | u128::from(low))
    }
}

impl std::fmt::Display for ChromosomeId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:032x}", self.0)
    }
}

/// A network's weights in the fixed layout of its [`Topology`]: always the right length, every
/// weight finite and within [`MAX_ABS_WEIGHT`].
#[derive(Clone)]
pub struct Chromosome {
    topology: Topology,
    weights: Vec<f32>,
    /// The content address, computed on first use: once per chromosome, however many tasks
    /// carry it, and never for chromosomes that never leave the process.
    id: OnceLock<ChromosomeId>,
    /// How it was bred, if this process knows: the master records it as it breeds, so
    /// a task can send the chromosome as its origin. Not part of its identity, files or
    /// checkpoints.
    origin: Option<Arc<Origin>>,
}

// By hand, so the lazily computed id (a function of the rest) and the origin play no part.
impl PartialEq for Chromosome {
    fn eq(&self, other: &Chromosome) -> bool {
        self.topology == other.topology && self.weights == other.weights
    }
}

impl std::fmt::Debug for Chromosome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Chromosome").field("topology", &self.topology).field("weights", &self.weights).finish()
    }
}

impl Chromosome {
    /// A chromosome from its weights, checked: length, finiteness, magnitude.
    pub fn new(topology: Topology, weights: Vec<f32>) -> Result<Chromosome, ChromosomeError> {
        let expected = topology.weight_count();
        if weights.len() != expected {
            return Err(ChromosomeError::WrongLength { topology, expected, found: weights.len() });
        }
        for (index, &value) in weights.iter().enumerate() {
            if !value.is_finite() {
                return Err(ChromosomeError::NonFiniteWeight { index, value });
            }
            if value.abs() > MAX_ABS_WEIGHT {
                return Err(ChromosomeError::WeightTooLarge { index, value });
            }
        }
        Ok(Chromosome { topology, weights, id: OnceLock::new(), origin: None })
    }

    /// A chromosome whose weights are drawn uniformly from [-1, 1), one call of `next_u64` per
    /// weight in layout order (see [`weight_from_bits`]).
    pub fn random(topology: Topology, mut next_u64: impl FnMut() -> u64) -> Chromosome {
        let weights = (0..topology.weight_count()).map(|_| weight_from_bits(next_u64())).collect();
        Chromosome { topology, weights, id: OnceLock::new(), origin: None }
    }

    /// The same chromosome, known to have been bred as `origin` says (which the caller vouches
    /// for: [`Origin::make`] and the master's breeding do).
    pub fn with_origin(mut self, origin: Arc<Origin>) -> Chromosome {
        self.origin = Some(origin);
        self
    }

    /// How it was bred, if known here.
    pub fn origin(&self) -> Option<&Origin> {
        self.origin.as_deref()
    }

    /// The topology.
    pub fn topology(&self) -> Topology {
        self.topology
    }

    /// The weights in layout order.
    pub fn weights(&self) -> &[f32] {
        &self.weights
    }

    /// The content address ([`ChromosomeId`]), hashed on the first call only.
    pub fn id(&self) -> ChromosomeId {
        *self.id.get_or_init(|| ChromosomeId::of(self.topology, &self.weights))
    }

    /// The weights, giving up the chromosome (e.g. to mutate them and call [`Chromosome::new`]).
    pub fn into_weights(self) -> Vec<f32> {
        self.weights
    }
}

/// A weight uniform in [-1, 1) from 64 random bits: the top 24 bits scaled exactly, so every
/// machine draws the same weights (`(bits >> 40) · 2^-24 · 2 − 1`, all steps exact in f32).
pub fn weight_from_bits(bits: u64) -> f32 {
    crate::random::unit_interval(bits)
}

/// The default-topology chromosome with every weight uniform in [-1, 1), drawn from a
/// [`crate::random::SplitMix64`] stream seeded with `seed` (a RandomANN, docs/spec.md §4).
pub fn random_uniform(seed: u64) -> Chromosome {
    let mut rng = crate::random::SplitMix64::new(seed);
    Chromosome::random(Topology::default(), || rng.next_u64())
}
