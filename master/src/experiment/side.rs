//! The two sides of an experiment: each player's spec ([`loa_engine::spec::PlayerSpec`], of any
//! form) with its files read. A `run:` spec is expanded here into every survivor of the listed
//! epochs, from the run's epoch checkpoints (E3 and E8): the engine parses it but cannot read a
//! run.

use crate::checkpoint::RunState;
use loa_engine::BoardSize;
use loa_engine::network::{Chromosome, Topology};
use loa_engine::players::{NetworkBoardError, network_plays_on};
use loa_engine::spec::{PlayerSpec, SpecError};
use loa_records::RunDir;
use std::path::PathBuf;
use std::sync::Arc;

/// Why a side's files could not be used, or it cannot play the experiment's board.
#[derive(Debug, thiserror::Error)]
pub enum SideError {
    /// The spec's own file (`net:`) or board.
    #[error("{0}")]
    Spec(#[from] SpecError),
    /// An epoch checkpoint of a `run:` spec could not be read.
    #[error("{0}")]
    Checkpoint(String),
    /// A checkpoint's survivors could not be read: the checkpoint, and why.
    #[error("{path}: {1}", path = .0.display())]
    Survivors(PathBuf, String),
    /// The epochs named hold no survivors: the run directory.
    #[error("{path}: the epochs named hold no survivors", path = .0.display())]
    NoSurvivors(PathBuf),
    /// A player of the side cannot play the board (the side's key names it).
    #[error("{0}")]
    Board(#[from] NetworkBoardError),
}

/// One network of a `net:` or `run:` spec.
#[derive(Clone, Debug)]
pub struct PreparedNet {
    /// The epoch it survived (`run:` specs).
    pub epoch: Option<u32>,
    /// Its weights.
    pub chromosome: Arc<Chromosome>,
}

/// A spec with its files read: what the matches of one side are played with.
#[derive(Clone, Debug)]
pub struct Side {
    /// The spec.
    pub spec: PlayerSpec,
    /// The networks of a `net:` or `run:` spec (its entrants); none for the other players.
    pub nets: Vec<PreparedNet>,
}

impl Side {
    /// Reads the files `spec` names.
    pub fn prepare(spec: &PlayerSpec) -> Result<Side, SideError> {
        let nets = match spec {
            // An engine's program runs on the master's machine only (see `crate::local`).
            PlayerSpec::Fixed(_) | PlayerSpec::FreshRandomAnn { .. } | PlayerSpec::Engine { .. } => Vec::new(),
            PlayerSpec::Net { .. } => {
                vec![PreparedNet { epoch: None, chromosome: Arc::new(spec.read_chromosome()?) }]
            }
            PlayerSpec::Run { dir, epochs, .. } => {
                let run = RunDir::new(dir);
                let mut nets = Vec::new();
                for &epoch in epochs {
                    let path = run.epoch_checkpoint(epoch);
                    let state = RunState::load(&path).map_err(|e| SideError::Checkpoint(e.to_string()))?;
                    let individuals = state.individuals().map_err(|e| SideError::Survivors(path, e.to_string()))?;
                    nets.extend(
                        individuals.into_iter().map(|i| PreparedNet { epoch: Some(epoch), chromosome: i.chromosome }),
                    );
                }
                if nets.is_empty() {
                    return Err(SideError::NoSurvivors(dir.clone()));
                }
                nets
            }
        };
        Ok(Side { spec: spec.clone(), nets })
    }

    /// Whether every player of the side plays on `board`: each network's shape reads it (a
    /// RandomANN has the thesis's shape; an external engine is not asked).
    pub fn plays_on(&self, board: BoardSize) -> Result<(), SideError> {
        match &self.spec {
            PlayerSpec::Fixed(player) => player.plays_on(board)?,
            PlayerSpec::FreshRandomAnn { .. } => network_plays_on(Topology::THESIS, board)?,
            // Its program answers for itself.
            PlayerSpec::Engine { .. } => {}
            PlayerSpec::Net { .. } | PlayerSpec::Run { .. } => {
                self.nets.iter().try_for_each(|n| network_plays_on(n.chromosome.topology(), board))?
            }
        }
        Ok(())
    }

    /// How many entrants the side has: the networks of a `net:`/`run:` spec, else 1.
    pub fn entrants(&self) -> usize {
        self.nets.len().max(1)
    }
}
