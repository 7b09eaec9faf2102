//! Self-play tasks: a network plays itself from seeded openings, and the whole game comes back
//! (every move, how it ended, and on request the principal variation of every search), so
//! that a learner on the master can step its weights from the game. A task is the whole
//! description of its games: played anywhere, it gives the same [`SelfPlayOutcome`].

use super::{MatchEntrant, OPENING_SEED_LABEL, OutcomeMismatch, TaskError, check_depth};
use crate::game::Player;
use crate::network::Chromosome;
use crate::openings::{max_opening_plies, random_opening_from};
use crate::players::{ShapedPlayer, network_plays_on};
use crate::random::derive_seed;
use crate::{BoardSize, EndReason, Move, Outcome, Position, Rules, Start};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// Most games one self-play task plays: bounds its duration and its outcome's size.
pub const MAX_SELF_PLAY_GAMES: usize = 64;

/// Most moves a self-play outcome may hold, the principal variations' included: a task's games
/// times its ply cap (times the depth, with leaves) must stay within it, so that an outcome is
/// at most about 100 KB on the wire whatever the rules.
pub const MAX_SELF_PLAY_MOVES: u64 = 1 << 15;

/// One game of a self-play task: its seed and its random opening.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SelfPlayGame {
    /// Seeds the game; its opening's seed is `derive_seed(seed, OPENING_SEED_LABEL)`, as a
    /// match pairing's.
    pub seed: u64,
    /// Random plies from the task's start position before the network plays.
    pub opening_plies: u32,
}

/// A network against itself: games from seeded openings, each returned whole.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SelfPlayTask {
    /// The network's serial (the master's name for it; outcomes do not repeat it).
    pub serial: u64,
    /// The network, playing both sides.
    pub network: Arc<Chromosome>,
    /// Its search depth.
    pub depth: u32,
    /// The rules of every game; the ply cap must be set, so every game's length is bounded.
    pub rules: Rules,
    /// The board, which the network's shape reads.
    pub board: BoardSize,
    /// The position every opening starts from.
    pub start: Start,
    /// The games, played in order.
    pub games: Vec<SelfPlayGame>,
    /// Whether each search's principal variation comes back (TD-Leaf learns from its leaf).
    pub leaves: bool,
}

/// A played self-play game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayedGame {
    /// Who won, or a draw (a tie at the ply cap included).
    pub outcome: Outcome,
    /// Why it ended.
    pub reason: EndReason,
    /// The moves after the opening, in order; the game ends after the last.
    pub moves: Vec<Move>,
    /// With [`SelfPlayTask::leaves`]: for each move, the rest of the principal variation of the
    /// search that chose it (at most depth − 1 moves, fewer where the game ends within the
    /// horizon), so the leaf is the position after the move and these. Empty otherwise.
    pub leaves: Vec<Vec<Move>>,
}

/// The games of a self-play task, in the task's order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SelfPlayOutcome {
    /// One per game of the task.
    pub games: Vec<PlayedGame>,
}

impl SelfPlayOutcome {
    /// Plies played over all games (openings not counted).
    pub fn plies(&self) -> u32 {
        self.games.iter().fold(0u32, |sum, g| sum.saturating_add(u32::try_from(g.moves.len()).unwrap_or(u32::MAX)))
    }
}

impl SelfPlayTask {
    /// The opening of game `game`: its random plies from the start position (a running game).
    pub fn opening(&self, game: &SelfPlayGame) -> Result<Position, TaskError> {
        let start = self.start.position(self.board).map_err(TaskError::Start)?;
        Ok(random_opening_from(&start, game.opening_plies, derive_seed(game.seed, OPENING_SEED_LABEL), &self.rules))
    }

    /// Most moves the outcome can hold: every game at the ply cap, each with a full variation.
    pub fn most_moves(&self) -> u64 {
        let per_move = if self.leaves { u64::from(self.depth) } else { 1 };
        self.games.len() as u64 * u64::from(self.rules.ply_cap) * per_move
    }

    /// The task as an entrant list, for what handles every task's networks alike.
    pub fn entrant(&self) -> MatchEntrant {
        MatchEntrant::Network { serial: self.serial, chromosome: Arc::clone(&self.network) }
    }

    /// Checks everything [`SelfPlayTask::run`] needs and the outcome's bound.
    pub fn validate(&self) -> Result<(), TaskError> {
        check_depth(self.depth)?;
        self.start.position(self.board).map_err(TaskError::Start)?;
        network_plays_on(self.network.topology(), self.board)
            .map_err(|error| TaskError::Board { entrant: 0, error })?;
        if self.games.is_empty() || self.games.len() > MAX_SELF_PLAY_GAMES {
            return Err(TaskError::GameCount(self.games.len()));
        }
        let most = max_opening_plies(self.board);
        if let Some((game, g)) = self.games.iter().enumerate().find(|(_, g)| g.opening_plies > most) {
            return Err(TaskError::GameOpeningPlies { game, plies: g.opening_plies, most });
        }
        if self.rules.ply_cap == 0 {
            return Err(TaskError::Unbounded);
        }
        if self.most_moves() > MAX_SELF_PLAY_MOVES {
            return Err(TaskError::TooManyMoves { moves: self.most_moves() });
        }
        Ok(())
    }

    /// Plays every game after [`SelfPlayTask::validate`].
    pub fn run(&self) -> Result<SelfPlayOutcome, TaskError> {
        self.validate()?;
        let games = self
            .games
            .iter()
            .map(|game| {
                // One player a game: what it remembers cannot carry between games, whichever
                // worker plays them.
                let player = ShapedPlayer::new(&self.network, self.depth);
                let opening = self.opening(game)?;
                Ok(play_recorded(&player, &self.rules, opening, game.seed, self.leaves))
            })
            .collect::<Result<Vec<_>, TaskError>>()?;
        Ok(SelfPlayOutcome { games })
    }

    /// Checks that `outcome` is one of this task's games: as many games, each a legal game from
    /// its opening that ends as it says where it says, each variation legal and within the
    /// depth. The moves' choice is not checked (verification by replay does that).
    pub fn check_outcome(&self, outcome: &SelfPlayOutcome) -> Result<(), OutcomeMismatch> {
        if outcome.games.len() != self.games.len() {
            return Err(OutcomeMismatch::GameCount { expected: self.games.len(), got: outcome.games.len() });
        }
        for (index, (game, played)) in self.games.iter().zip(&outcome.games).enumerate() {
            let opening = self.opening(game).map_err(|_| OutcomeMismatch::Game { game: index, ply: 0 })?;
            self.check_game(opening, played).map_err(|ply| OutcomeMismatch::Game { game: index, ply })?;
        }
        Ok(())
    }

    /// The ply at which `played` stops being a legal game from `opening` (or its end is not the
    /// one it claims).
    fn check_game(&self, opening: Position, played: &PlayedGame) -> Result<(), u32> {
        let expected_leaves = if self.leaves { played.moves.len() } else { 0 };
        if played.leaves.len() != expected_leaves {
            return Err(0);
        }
        let mut pos = opening;
        for (ply, &mv) in played.moves.iter().enumerate() {
            let ply = ply as u32;
            if game_over(&pos, &self.rules, ply).is_some() || !is_legal(&pos, mv, &self.rules) {
                return Err(ply);
            }
            pos = pos.play(mv);
            if let Some(variation) = played.leaves.get(ply as usize) {
                if variation.len() >= self.depth as usize {
                    return Err(ply);
                }
                let mut leaf = pos;
                for (k, &reply) in variation.iter().enumerate() {
                    if game_over(&leaf, &self.rules, ply + 1 + k as u32).is_some()
                        || !is_legal(&leaf, reply, &self.rules)
                    {
                        return Err(ply);
                    }
                    leaf = leaf.play(reply);
                }
            }
        }
        let plies = played.moves.len() as u32;
        match game_over(&pos, &self.rules, plies) {
            Some(end) if end == (played.outcome, played.reason) => Ok(()),
            _ => Err(plies),
        }
    }
}

/// How the game stands at `pos` after `plies` plies under `rules`: its end, if it is over (the
/// ply cap a tie), as [`crate::game::play_game`] decides it.
pub fn game_over(pos: &Position, rules: &Rules, plies: u32) -> Option<(Outcome, EndReason)> {
    let end = pos.game_end(rules).map(|e| (e.outcome, e.reason));
    end.or((rules.ply_cap > 0 && plies >= rules.ply_cap).then_some((Outcome::Draw, EndReason::PlyCap)))
}

/// Whether `mv` may be played at `pos` (a running game): one of its legal moves, or a pass
/// where it has none and the rules let it pass.
fn is_legal(pos: &Position, mv: Move, rules: &Rules) -> bool {
    let moves = pos.legal_moves();
    match moves.is_empty() {
        true => mv.is_pass() && rules.no_moves == crate::NoMoves::Passes,
        false => moves.contains(&mv),
    }
}

/// Plays one game between `player` and itself from `opening`, as [`crate::game::play_game`]
/// does, with each search's principal variation when asked.
fn play_recorded(player: &ShapedPlayer, rules: &Rules, opening: Position, seed: u64, leaves: bool) -> PlayedGame {
    let (mut pos, mut moves, mut variations) = (opening, Vec::new(), Vec::new());
    loop {
        let plies = moves.len() as u32;
        if let Some((outcome, reason)) = game_over(&pos, rules, plies) {
            return PlayedGame { outcome, reason, moves, leaves: variations };
        }
        // `game_over` found a legal move, or the rules let the side pass.
        let mv = player.choose(&pos, rules, plies, seed).best.unwrap_or(Move::PASS);
        if leaves {
            variations.push(player.principal_variation(&pos, rules, plies, mv));
        }
        pos = pos.play(mv);
        moves.push(mv);
    }
}
