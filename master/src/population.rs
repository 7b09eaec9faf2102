//! Individuals and the population: chromosomes with birth serials.

use loa_engine::network::Chromosome;
use loa_engine::tasks::MatchEntrant;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// A chromosome with its birth serial. Serials are given in creation order and never reused,
/// so a lower serial always means an older chromosome (SPEC §5's "A").
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
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

/// Hands out birth serials in creation order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SerialCounter {
    next: u64,
}

impl SerialCounter {
    /// A counter whose first serial is 0.
    pub fn new() -> SerialCounter {
        SerialCounter { next: 0 }
    }

    /// The next serial.
    pub fn issue(&mut self) -> u64 {
        let s = self.next;
        self.next += 1;
        s
    }

    /// The serial the next individual will get.
    pub fn peek(&self) -> u64 {
        self.next
    }
}

impl Default for SerialCounter {
    fn default() -> Self {
        SerialCounter::new()
    }
}
