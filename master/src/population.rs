//! Individuals and the population: chromosomes with birth serials, and the form they are stored
//! in.

use loa_engine::network::{Chromosome, ChromosomeError, Topology};
use loa_engine::tasks::MatchEntrant;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// A chromosome with its birth serial. Serials are given in creation order and never reused,
/// so a lower serial always means an older chromosome (docs/spec.md §5's "A"). Stored (and checked when
/// read) as a [`StoredIndividual`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(into = "StoredIndividual", try_from = "StoredIndividual")]
pub struct Individual {
    /// Birth serial.
    pub serial: u64,
    /// The network weights.
    pub chromosome: Arc<Chromosome>,
}

impl Individual {
    /// This individual as an entrant of a match task.
    pub fn entrant(&self) -> MatchEntrant {
        MatchEntrant::Network { serial: self.serial, chromosome: Arc::clone(&self.chromosome) }
    }
}

/// An individual as stored: serial, topology name and weights (not the chromosome's own serde
/// form, which is made for JSON files).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StoredIndividual {
    /// Birth serial.
    pub serial: u64,
    /// Topology name, e.g. `board-nonad-100-20-1`.
    pub topology: String,
    /// The weights.
    pub weights: Vec<f32>,
}

impl From<Individual> for StoredIndividual {
    fn from(i: Individual) -> StoredIndividual {
        let (topology, weights) = (i.chromosome.topology().name().to_string(), i.chromosome.weights().to_vec());
        StoredIndividual { serial: i.serial, topology, weights }
    }
}

/// Rebuilds the individual, validating the chromosome.
impl TryFrom<StoredIndividual> for Individual {
    type Error = ChromosomeError;

    fn try_from(stored: StoredIndividual) -> Result<Individual, ChromosomeError> {
        let topology = Topology::from_name(&stored.topology)
            .ok_or_else(|| ChromosomeError::UnknownTopology { name: stored.topology.clone() })?;
        Ok(Individual { serial: stored.serial, chromosome: Arc::new(Chromosome::new(topology, stored.weights)?) })
    }
}

/// Hands out birth serials in creation order (the default's first is 0).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SerialCounter {
    next: u64,
}

impl SerialCounter {
    /// A counter whose next serial is `next` (a stored counter).
    pub fn starting_at(next: u64) -> SerialCounter {
        SerialCounter { next }
    }

    /// The next serial.
    pub fn issue(&mut self) -> u64 {
        let s = self.next;
        // Cannot overflow: a loaded counter is at most `checkpoint::MAX_SERIAL`, 2^62.
        self.next += 1;
        s
    }

    /// The serial the next individual will get.
    pub fn peek(&self) -> u64 {
        self.next
    }
}
