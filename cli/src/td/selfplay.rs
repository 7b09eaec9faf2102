//! One self-play game: the network against itself at the configured depth, from a seeded
//! random opening, with every position in which a move was chosen.

use loa_engine::game::play_game;
use loa_engine::network::Chromosome;
use loa_engine::openings::random_opening_from;
use loa_engine::players::ShapedPlayer;
use loa_engine::random::derive_seed;
use loa_engine::tasks::OPENING_SEED_LABEL;
use loa_engine::{Color, Outcome, Position, Rules};

/// A finished self-play game.
#[derive(Clone, Debug)]
pub struct SelfPlayGame {
    /// The positions in which a move was chosen, from the opening on; the game's end follows
    /// the last.
    pub positions: Vec<Position>,
    /// How it ended.
    pub outcome: Outcome,
}

impl SelfPlayGame {
    /// The result from `pov`'s side: 1 for a win, −1 for a loss, 0 for a draw or a tie.
    pub fn result_for(&self, pov: Color) -> f64 {
        match self.outcome.winner() {
            Some(winner) if winner == pov => 1.0,
            Some(_) => -1.0,
            None => 0.0,
        }
    }
}

/// Plays game `seed`: `opening_plies` random plies from `start`, then `chromosome`'s network
/// searching `depth` plies for both sides until the game ends under `rules`.
pub fn self_play(
    chromosome: &Chromosome,
    depth: u32,
    rules: &Rules,
    start: &Position,
    opening_plies: u32,
    seed: u64,
) -> SelfPlayGame {
    let opening = random_opening_from(start, opening_plies, derive_seed(seed, OPENING_SEED_LABEL), rules);
    // One player a game: what it remembers of earlier searches cannot carry between games,
    // whichever thread plays them.
    let player = ShapedPlayer::new(chromosome, depth);
    let record = play_game(&player, &player, rules, opening, seed);
    let mut positions = Vec::with_capacity(record.moves.len());
    let mut pos = opening;
    for &mv in &record.moves {
        positions.push(pos);
        pos = pos.play(mv);
    }
    SelfPlayGame { positions, outcome: record.outcome }
}
