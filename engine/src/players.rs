//! The thesis's players (docs/spec.md §4): alpha-beta searchers over the network, ALoA or the random
//! heuristic. Tasks and the `loa` command play networks as [`RememberingPlayer`]s and ALoA as an
//! [`AloaPlayer`], which remember the results of positions they have searched (games that cycle
//! and the benchmark's openings repeat them); [`SearchPlayer`] searches every position afresh,
//! which `loa bench` times. An [`ExternalEngine`] is a program in another process that speaks
//! `loa engine`'s protocol. The text that names a player (`aloa:5`, `net:3:FILE`) is
//! [`crate::spec`]'s.

use crate::game::Player;
use crate::network::{Chromosome, Network, ShapeError, ShapedNetwork, Topology};
use crate::random::{RandomHeuristic, derive_seed};
use crate::search::{Evaluator, SearchLimits, SearchResult, alpha_beta};
use crate::{BoardSize, Move, Position, Rules};
use std::sync::Arc;

/// The deepest search a task or spec may ask for (deeper searches would take hours per move).
pub const MAX_DEPTH: u32 = 12;

/// A [`Player`] that can also be printed for debugging and sent to another thread: what a spec
/// builds.
pub trait PlayerDebug: Player + std::fmt::Debug + Send {}
impl<T: Player + std::fmt::Debug + Send> PlayerDebug for T {}

/// A network asked to play on a board it cannot read: its shape names the board it reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NetworkBoardError {
    /// The network's shape.
    pub shape: Topology,
    /// The board asked for.
    pub size: BoardSize,
}

impl std::fmt::Display for NetworkBoardError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let side = self.shape.side();
        write!(
            f,
            "the network {} reads the {side}x{side} board, not {}: play it on {side}x{side}, or give a network \
             of a {} shape (docs/spec.md §3)",
            self.shape, self.size, self.size
        )
    }
}

impl std::error::Error for NetworkBoardError {}

/// Whether a network of `shape` can play on the `size` board: the one check every caller that
/// sets a network to play a board makes (the evaluator itself reads whatever it is given).
pub fn network_plays_on(shape: Topology, size: BoardSize) -> Result<(), NetworkBoardError> {
    if shape.side() == size.side() { Ok(()) } else { Err(NetworkBoardError { shape, size }) }
}

/// A searching player: alpha-beta over an evaluator to a fixed depth.
#[derive(Clone, Debug)]
pub struct SearchPlayer<E> {
    /// The leaf evaluator.
    pub eval: E,
    /// Search depth in plies.
    pub depth: u32,
}

impl<E: Evaluator + Sync> Player for SearchPlayer<E> {
    fn choose(&self, pos: &Position, rules: &Rules, plies_played: u32, _game_seed: u64) -> SearchResult {
        alpha_beta(pos, rules, SearchLimits::new(self.depth, rules, plies_played), &self.eval)
    }
}

/// The random heuristic player: its leaf values are keyed by the game's seed and a salt.
#[derive(Clone, Copy, Debug)]
pub struct RandomPlayer {
    /// Search depth in plies.
    pub depth: u32,
    /// Mixed into the game seed.
    pub salt: u64,
}

impl Player for RandomPlayer {
    fn choose(&self, pos: &Position, rules: &Rules, plies_played: u32, game_seed: u64) -> SearchResult {
        let eval = RandomHeuristic::new(derive_seed(game_seed, self.salt));
        alpha_beta(pos, rules, SearchLimits::new(self.depth, rules, plies_played), &eval)
    }
}

/// A network player (docs/spec.md §4): alpha-beta over the network evaluator.
pub type NetworkPlayer = SearchPlayer<Arc<Network>>;

/// A network player remembering its searches, on the evaluator its chromosome's shape calls
/// for, chosen once when it is made: the thesis's fast [`Network`] for its layout, the generic
/// [`ShapedNetwork`] for any other. Each search then runs one evaluator's code, with no branch
/// per node.
#[derive(Debug)]
pub enum ShapedPlayer {
    /// The thesis's layout, on its fast path.
    Thesis(RememberingPlayer<Arc<Network>>),
    /// Any other shape, on the generic path.
    Generic(RememberingPlayer<Arc<ShapedNetwork>>),
}

impl ShapedPlayer {
    /// The player searching `depth` plies with `chromosome`'s network, whatever its shape.
    pub fn new(chromosome: &Chromosome, depth: u32) -> ShapedPlayer {
        match Network::try_new(chromosome) {
            Ok(network) => ShapedPlayer::Thesis(RememberingPlayer::new(Arc::new(network), depth)),
            Err(_) => ShapedPlayer::Generic(RememberingPlayer::new(Arc::new(ShapedNetwork::new(chromosome)), depth)),
        }
    }

    /// The rest of the principal variation of its search at `pos` after `chosen`
    /// ([`RememberingPlayer::principal_variation`]).
    pub fn principal_variation(&self, pos: &Position, rules: &Rules, plies_played: u32, chosen: Move) -> Vec<Move> {
        match self {
            ShapedPlayer::Thesis(player) => player.principal_variation(pos, rules, plies_played, chosen),
            ShapedPlayer::Generic(player) => player.principal_variation(pos, rules, plies_played, chosen),
        }
    }

    /// [`ShapedPlayer::new`], if `chromosome` is of shape `expected` (a run's or a match's).
    pub fn expecting(expected: Topology, chromosome: &Chromosome, depth: u32) -> Result<ShapedPlayer, ShapeError> {
        if chromosome.topology() != expected {
            return Err(ShapeError::Mismatch { expected, found: chromosome.topology() });
        }
        Ok(ShapedPlayer::new(chromosome, depth))
    }
}

impl Player for ShapedPlayer {
    fn choose(&self, pos: &Position, rules: &Rules, plies_played: u32, game_seed: u64) -> SearchResult {
        match self {
            ShapedPlayer::Thesis(player) => player.choose(pos, rules, plies_played, game_seed),
            ShapedPlayer::Generic(player) => player.choose(pos, rules, plies_played, game_seed),
        }
    }
}

mod external;
mod remembered;

pub use external::{EngineFailure, ExternalEngine, FailureSlot, MOVE_TIMEOUT};
pub use remembered::{AloaPlayer, RememberingPlayer};
