//! The thesis's players (docs/spec.md §4): alpha-beta searchers over the network, ALoA or the random
//! heuristic. Tasks and the `loa` command play networks as [`RememberingPlayer`]s and ALoA as an
//! [`AloaPlayer`], which remember the results of positions they have searched (games that cycle
//! and the benchmark's openings repeat them); [`SearchPlayer`] searches every position afresh,
//! which `loa bench` times. The text specs that name players on the command line (`aloa:5`,
//! `net:3:FILE`) live in the `loa-cli` crate.

use crate::game::Player;
use crate::network::Network;
use crate::random::{RandomHeuristic, derive_seed};
use crate::search::{Evaluator, SearchLimits, SearchResult, alpha_beta};
use crate::{BoardSize, Position, Rules};
use std::sync::Arc;

/// The deepest search a task or spec may ask for (deeper searches would take hours per move).
pub const MAX_DEPTH: u32 = 12;

/// A network asked to play on a board it cannot read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NetworkBoardError {
    /// The board asked for.
    pub size: BoardSize,
}

impl std::fmt::Display for NetworkBoardError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "network players play the 8x8 board only (the network reads the 64 squares and 36 nonads of 8x8), \
             not {}: play ALoA or the random heuristic on it, or use the 8x8 board",
            self.size
        )
    }
}

impl std::error::Error for NetworkBoardError {}

/// Whether a network player or evaluator can play on the `size` board: the one check every
/// caller that sets a network to play a board makes, since the network's inputs are the 8×8
/// board's.
pub fn network_plays_on(size: BoardSize) -> Result<(), NetworkBoardError> {
    if size.is_standard() { Ok(()) } else { Err(NetworkBoardError { size }) }
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

mod remembered;

pub use remembered::{AloaPlayer, RememberingPlayer};
