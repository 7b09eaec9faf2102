//! The players a spec makes: built once where they are the same in every match, and per match
//! where they are not (a RandomANN without a seed, an external engine's process).

use super::{PlayerSpec, SpecError, SpecProblem};
use crate::BoardSize;
use crate::network::Topology;
use crate::players::{
    EngineFailure, ExternalEngine, FailureSlot, MOVE_TIMEOUT, PlayerDebug, ShapedPlayer, network_plays_on,
};
use crate::random::derive_seed;
use crate::tasks::FixedPlayer;
use std::sync::Arc;

/// The label that draws a fresh RandomANN's weights from the match seed,
/// `derive_seed(match_seed, FRESH_ANN_LABEL)`, as `loa match` does for both its players (an
/// experiment draws its A's so, and its B's with a label of its own).
pub const FRESH_ANN_LABEL: u64 = 0xA11;

/// A spec with its file read, ready to make the player of each match.
#[derive(Clone, Debug)]
pub enum PreparedPlayer {
    /// A player that is the same in every match.
    Fixed(Arc<dyn PlayerDebug>),
    /// A fresh RandomANN per match.
    FreshRandomAnn {
        /// Search depth.
        depth: u32,
        /// Whether it reads the board with the thesis's printed encoding.
        printed: bool,
    },
    /// An external engine: a process started for every match, so that matches played at once
    /// do not share one.
    Engine {
        /// The command line.
        command: String,
        /// The first failure of any of its processes ([`PreparedPlayer::failure`]).
        failure: FailureSlot,
    },
}

impl PlayerSpec {
    /// The fixed player this spec plays in the match with seed `match_seed`: its own if it is
    /// fixed; for a fresh RandomANN, the one seeded `derive_seed(match_seed, label)`; `None` for
    /// a network file or a run's survivors.
    pub fn fixed_for_match(&self, match_seed: u64, label: u64) -> Option<FixedPlayer> {
        match *self {
            PlayerSpec::Fixed(player) => Some(player),
            PlayerSpec::FreshRandomAnn { depth, printed } => {
                Some(random_ann(depth, printed, derive_seed(match_seed, label)))
            }
            PlayerSpec::Net { .. } | PlayerSpec::Run { .. } | PlayerSpec::Engine { .. } => None,
        }
    }

    /// Reads the file the spec names and builds what can be built once, whatever board it is
    /// for ([`PlayerSpec::prepare_on`] checks the board too). A `run:` spec is refused: only
    /// the master expands a run's survivors.
    pub fn prepare(&self) -> Result<PreparedPlayer, SpecError> {
        self.build(None)
    }

    /// [`PlayerSpec::prepare`] for games on the `size` board: an error if the player cannot play
    /// there (as [`PlayerSpec::plays_on`] says), reading a chromosome file once.
    pub fn prepare_on(&self, size: BoardSize) -> Result<PreparedPlayer, SpecError> {
        self.build(Some(size))
    }

    fn build(&self, size: Option<BoardSize>) -> Result<PreparedPlayer, SpecError> {
        let on_board = |shape: Topology| match size {
            Some(size) => network_plays_on(shape, size).map_err(|e| self.error(SpecProblem::Board(e))),
            None => Ok(()),
        };
        Ok(match self {
            PlayerSpec::Fixed(player) => {
                if let Some(size) = size {
                    player.plays_on(size).map_err(|e| self.error(SpecProblem::Board(e)))?;
                }
                PreparedPlayer::Fixed(Arc::from(player.player()))
            }
            &PlayerSpec::FreshRandomAnn { depth, printed } => {
                on_board(Topology::THESIS)?;
                PreparedPlayer::FreshRandomAnn { depth, printed }
            }
            PlayerSpec::Net { depth, .. } => {
                let chromosome = self.read_chromosome()?;
                on_board(chromosome.topology())?;
                PreparedPlayer::Fixed(Arc::new(ShapedPlayer::new(&chromosome, *depth)))
            }
            PlayerSpec::Engine { command } => {
                PreparedPlayer::Engine { command: command.clone(), failure: FailureSlot::default() }
            }
            PlayerSpec::Run { .. } => return Err(self.error(SpecProblem::RunOutsideExperiment)),
        })
    }
}

/// The RandomANN seeded `seed`.
fn random_ann(depth: u32, printed: bool, seed: u64) -> FixedPlayer {
    if printed { FixedPlayer::RandomAnnPrinted { depth, seed } } else { FixedPlayer::RandomAnn { depth, seed } }
}

impl PreparedPlayer {
    /// The player of the match with seed `match_seed` (a fresh RandomANN's weights drawn with
    /// [`FRESH_ANN_LABEL`]).
    pub fn for_match(&self, match_seed: u64) -> Arc<dyn PlayerDebug> {
        match *self {
            PreparedPlayer::Fixed(ref player) => Arc::clone(player),
            PreparedPlayer::FreshRandomAnn { depth, printed } => {
                Arc::from(random_ann(depth, printed, derive_seed(match_seed, FRESH_ANN_LABEL)).player())
            }
            PreparedPlayer::Engine { ref command, ref failure } => {
                Arc::new(ExternalEngine::start(command, MOVE_TIMEOUT, Arc::clone(failure)))
            }
        }
    }

    /// Why an external engine failed, if it did: its first failure in any match (the games after
    /// it were played out with first legal moves, so they measure nothing).
    pub fn failure(&self) -> Option<EngineFailure> {
        match self {
            PreparedPlayer::Engine { failure, .. } => failure.lock().unwrap_or_else(|p| p.into_inner()).clone(),
            _ => None,
        }
    }
}
