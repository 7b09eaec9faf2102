//! Players that remember the results of positions they have searched: the same moves as a
//! new search, fewer searches.
//!
//! - [`RememberingPlayer`]: any searcher, remembering its own searches. A game between two
//!   deterministic players that falls into a cycle (the same positions, the same player to
//!   move) repeats every move of the cycle until the ply cap ends it, and random networks' games
//!   do so often: throwaway counters over a 5-epoch thesis run found a quarter of the networks'
//!   search time spent on positions the same network had searched before, mostly from ply
//!   40 on (at ply 60, 5 341 of 6 228 searches), and half of the searches of the start position
//!   (a player's memory lasts for its task, so it catches the finalists', who search it again
//!   in the final, but not a survivor's of earlier generations).
//! - [`AloaPlayer`]: ALoA, remembering for the whole process. The benchmark plays every
//!   survivor against ALoA from the start position, so ALoA searches the same positions again
//!   and again: its first move as Black in every game, its replies to the networks' few
//!   favourite first moves, and every move of a survivor's match when the survivor plays the
//!   same games as in the epoch before (a fifth of ALoA's search time over six benchmarks).
//!
//! Remembering changes no result: an alpha-beta search is a pure function of the position,
//! the rules, the limits and the evaluator (every table it uses starts empty for each search),
//! so the remembered [`SearchResult`] is the one a new search would return, node count
//! included. The keys hold all four; of the limits, only where the ply cap falls within the
//! search's horizon matters, so the plies left are clipped there. `loa bench`'s "game with
//! remembering players" figure measures what it saves (docs/speed.md).

use crate::aloa::Aloa;
use crate::game::Player;
use crate::players::SearchPlayer;
use crate::search::{Evaluator, SearchLimits, SearchResult, alpha_beta, alpha_beta_for};
use crate::{Move, Position, Rules};
use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{LazyLock, Mutex};

/// A searching player that remembers the results of the positions it has searched (see the
/// module documentation): [`SearchPlayer`]'s moves, each position searched once. For evaluators
/// whose values depend only on the position (not the random heuristic, whose values depend on
/// the game's seed, nor a person). Its memory lasts as long as it does, at most about
/// 2 × 4 096 results (800 KB); a task makes its players for its own games.
#[derive(Debug)]
pub struct RememberingPlayer<E> {
    search: SearchPlayer<E>,
    memory: Memory<PositionKey>,
}

impl<E> RememberingPlayer<E> {
    /// A player searching `depth` plies over `eval`, remembering nothing yet.
    pub fn new(eval: E, depth: u32) -> RememberingPlayer<E> {
        RememberingPlayer { search: SearchPlayer { eval, depth }, memory: Memory::new(1 << 12) }
    }

    /// The results it holds: the positions it has searched, until its memory first turns over
    /// (then fewer).
    pub fn remembered(&self) -> usize {
        self.memory.lock().iter().map(HashMap::len).sum()
    }
}

impl<E: Evaluator> RememberingPlayer<E> {
    /// The rest of the principal variation of its search at `pos` after `chosen`, the move that
    /// search chose: each next move is the reply of a search one ply shallower seen from
    /// `pos`'s side to move, as the first search saw it, so that the position at its end is the
    /// leaf whose value is the search's. Shorter than the depth − 1 plies where the game ends
    /// first (a finished game or the ply cap).
    pub fn principal_variation(&self, pos: &Position, rules: &Rules, plies_played: u32, chosen: Move) -> Vec<Move> {
        let pov = pos.side_to_move();
        let mut variation = Vec::new();
        let mut leaf = pos.play(chosen);
        for k in 1..self.search.depth {
            let ply = plies_played + k;
            let capped = rules.ply_cap > 0 && ply >= rules.ply_cap;
            if capped || leaf.game_end(rules).is_some() {
                break;
            }
            let limits = SearchLimits::new(self.search.depth - k, rules, ply);
            let reply = alpha_beta_for(&leaf, rules, limits, &self.search.eval, pov).best.unwrap_or(Move::PASS);
            leaf = leaf.play(reply);
            variation.push(reply);
        }
        variation
    }
}

impl<E: Evaluator + Sync + Send> Player for RememberingPlayer<E> {
    fn choose(&self, pos: &Position, rules: &Rules, plies_played: u32, _game_seed: u64) -> SearchResult {
        let depth = self.search.depth;
        let limits = SearchLimits::new(depth, rules, plies_played);
        let key = PositionKey { pos: *pos, rules: *rules, plies_left: plies_in_reach(limits) };
        self.memory.recall_or(key, || alpha_beta(pos, rules, limits, &self.search.eval))
    }
}

/// What a search's result depends on besides the player: the position, the rules and the
/// plies left ([`plies_in_reach`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct PositionKey {
    pos: Position,
    rules: Rules,
    plies_left: u32,
}

/// The plies left as a search sees them: it never looks more than its depth ahead, so all plies
/// left beyond the depth (no cap within reach) read `depth + 1`.
fn plies_in_reach(limits: SearchLimits) -> u32 {
    limits.plies_left.min(limits.depth.saturating_add(1))
}

/// ALoA searching to a fixed depth, with the results of positions searched before by any
/// `AloaPlayer` of this process remembered: the same moves as [`SearchPlayer`] over [`Aloa`],
/// fewer searches.
#[derive(Clone, Copy, Debug)]
pub struct AloaPlayer {
    /// The evaluator.
    pub eval: Aloa,
    /// Search depth in plies.
    pub depth: u32,
}

impl Player for AloaPlayer {
    fn choose(&self, pos: &Position, rules: &Rules, plies_played: u32, _game_seed: u64) -> SearchResult {
        let limits = SearchLimits::new(self.depth, rules, plies_played);
        let key = AloaKey {
            eval: self.eval,
            depth: self.depth,
            position: PositionKey { pos: *pos, rules: *rules, plies_left: plies_in_reach(limits) },
        };
        ALOA_MEMORY.recall_or(key, || alpha_beta(pos, rules, limits, &self.eval))
    }
}

/// Everything an ALoA search's result depends on.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct AloaKey {
    eval: Aloa,
    depth: u32,
    position: PositionKey,
}

/// One memory for the process: a worker's threads share what they searched. A search takes
/// about a millisecond, a lookup well under a microsecond, so the lock is never contended.
/// At most about 2 × 16 384 × 100 bytes, 3 MB; a thesis benchmark adds about 2 000 positions an
/// epoch.
static ALOA_MEMORY: LazyLock<Memory<AloaKey>> = LazyLock::new(|| Memory::new(1 << 14));

/// Results in two halves, the current and the previous: a new result goes into the current
/// half, and when that holds `half` results the previous is dropped and the current becomes
/// it. A result recalled from the previous half is copied into the current one, so positions
/// that keep recurring (the openings) outlive the turnover while the memory stays bounded.
struct Memory<K> {
    halves: Mutex<Halves<K>>,
    half: usize,
}

type Halves<K> = [HashMap<K, SearchResult>; 2];

impl<K> std::fmt::Debug for Memory<K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Memory").field("half", &self.half).finish_non_exhaustive()
    }
}

impl<K: Hash + Eq + Copy> Memory<K> {
    fn new(half: usize) -> Memory<K> {
        Memory { halves: Mutex::new([HashMap::new(), HashMap::new()]), half }
    }

    /// The result remembered for `key`, or `search`'s, remembered. The search runs without the
    /// lock held, so other threads' lookups do not wait for it (two threads may then search
    /// the same position at once; both find the same result).
    fn recall_or(&self, key: K, search: impl FnOnce() -> SearchResult) -> SearchResult {
        if let Some(result) = self.recall(&key) {
            return result;
        }
        let result = search();
        self.remember(key, result);
        result
    }

    fn recall(&self, key: &K) -> Option<SearchResult> {
        let mut halves = self.lock();
        if let Some(result) = halves[0].get(key) {
            return Some(*result);
        }
        let result = *halves[1].get(key)?;
        self.insert(&mut halves, *key, result);
        Some(result)
    }

    fn remember(&self, key: K, result: SearchResult) {
        self.insert(&mut self.lock(), key, result);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Halves<K>> {
        // Poisoned only if a thread panicked while holding the lock; the maps are whole between
        // operations, so they are still good.
        self.halves.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn insert(&self, halves: &mut Halves<K>, key: K, result: SearchResult) {
        if halves[0].len() >= self.half {
            halves.swap(0, 1);
            halves[0].clear();
        }
        halves[0].insert(key, result);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aloa::{AloaKind, AloaWeights};
    use crate::game::play_game;
    use crate::network::{Network, random_uniform};
    use crate::{BothConnected, NoMoves};
    use std::sync::Arc;

    /// Every variant that changes a search's result: rules, depth, weights and the ply cap.
    fn players_and_rules() -> Vec<(AloaPlayer, Rules)> {
        let heavy_edges = AloaWeights { edge: -40, ..AloaWeights::default() };
        let evals = [Aloa::quad(), Aloa::normal(), Aloa::with_weights(AloaKind::Quad, heavy_edges).unwrap()];
        let rules = [
            Rules::default(),
            Rules { both_connected: BothConnected::MoverWins, no_moves: NoMoves::Passes, ply_cap: 0 },
        ];
        let mut out = Vec::new();
        for eval in evals {
            for depth in [1, 2] {
                for rules in rules {
                    out.push((AloaPlayer { eval, depth }, rules));
                }
            }
        }
        out
    }

    /// Positions of random games, and one where the two rules variants disagree: Black's c3xc5
    /// connects Black (b6, c5) and leaves White's h1 and h2 connected too, which is a draw
    /// under the default rules and a win for Black under the other.
    fn positions() -> Vec<Position> {
        let mut out = crate::openings::sample_positions(60, 5);
        out.push("......../......../.b....../..w...../......../..b...../.......w/.......w b".parse().unwrap());
        out.retain(|pos| pos.game_end(&Rules::default()).is_none());
        out
    }

    #[test]
    fn remembered_results_are_those_of_a_new_search() {
        // Positions near the ends of random games, where connections and captures decide, each
        // asked of every variant at several game lengths (the cap in reach at 99 and 98, not at
        // 0), in an order that puts every variant's question after the others': a key that
        // missed any of these would hand one variant another's result.
        let positions = positions();
        let variants = players_and_rules();
        let mut recalled = 0;
        for round in 0..2 {
            for pos in &positions {
                for plies_played in [99, 0, 98] {
                    for (player, rules) in &variants {
                        if pos.game_end(rules).is_some() || (rules.ply_cap > 0 && plies_played >= rules.ply_cap) {
                            continue;
                        }
                        let plain = SearchPlayer { eval: player.eval, depth: player.depth };
                        let want = plain.choose(pos, rules, plies_played, 0);
                        assert_eq!(player.choose(pos, rules, plies_played, 0), want, "{pos} {rules:?} {plies_played}");
                        recalled += round;
                    }
                }
            }
        }
        assert!(recalled > 500, "{recalled} questions asked again");
    }

    #[test]
    fn the_variants_give_different_results() {
        // Without this, the test above could pass with a key that ignores a field, if that
        // field never changed a result on its positions.
        let positions = positions();
        let variants = players_and_rules();
        let mut differ = [false; 4]; // weights or kind, depth, rules, plies played
        for pos in &positions {
            let result = |i: usize, plies: u32| {
                let (p, r) = &variants[i];
                SearchPlayer { eval: p.eval, depth: p.depth }.choose(pos, r, plies, 0)
            };
            if variants.iter().any(|(_, r)| pos.game_end(r).is_some()) {
                continue;
            }
            differ[0] |= result(0, 0) != result(4, 0) || result(0, 0) != result(8, 0);
            differ[1] |= result(0, 0) != result(2, 0);
            differ[2] |= result(0, 0) != result(1, 0);
            differ[3] |= result(2, 0) != result(2, 99);
        }
        assert_eq!(differ, [true; 4]);
    }

    #[test]
    fn a_remembering_network_player_answers_as_a_new_search() {
        // As above, for networks (each player remembers its own searches), with the two rules
        // variants asked of the same player in turn.
        let positions = positions();
        let rules = players_and_rules().into_iter().take(2).map(|(_, r)| r).collect::<Vec<_>>();
        let mut recalled = 0;
        for (seed, depth) in [(1, 1), (2, 2), (3, 3)] {
            let net = Arc::new(Network::new(&random_uniform(seed)));
            let player = RememberingPlayer::new(Arc::clone(&net), depth);
            let plain = SearchPlayer { eval: net, depth };
            for round in 0..2 {
                for pos in &positions {
                    for plies_played in [99, 0, 98] {
                        for rules in &rules {
                            if pos.game_end(rules).is_some() || (rules.ply_cap > 0 && plies_played >= rules.ply_cap) {
                                continue;
                            }
                            let want = plain.choose(pos, rules, plies_played, 0);
                            assert_eq!(
                                player.choose(pos, rules, plies_played, 0),
                                want,
                                "{pos} {rules:?} {plies_played}"
                            );
                            recalled += round;
                        }
                    }
                }
            }
        }
        assert!(recalled > 500, "{recalled} questions asked again");
    }

    #[test]
    fn games_of_remembering_players_are_those_of_searching_players() {
        // Random networks' games from random openings, played out to the ply cap where they
        // cycle: the same moves, and most of the cycles' moves recalled, not searched.
        let rules = Rules::default();
        let (mut moves, mut searched) = (0, 0);
        for g in 0..6u64 {
            let (a, b) =
                (Arc::new(Network::new(&random_uniform(2 * g))), Arc::new(Network::new(&random_uniform(2 * g + 1))));
            let start = crate::openings::random_opening(4, g, &rules);
            let plain = play_game(
                &SearchPlayer { eval: Arc::clone(&a), depth: 2 },
                &SearchPlayer { eval: Arc::clone(&b), depth: 2 },
                &rules,
                start,
                g,
            );
            let (black, white) = (RememberingPlayer::new(a, 2), RememberingPlayer::new(b, 2));
            let remembered = play_game(&black, &white, &rules, start, g);
            assert_eq!(remembered, plain, "game {g}");
            moves += remembered.moves.len();
            searched += black.remembered() + white.remembered();
        }
        assert!(searched < moves * 3 / 4, "{searched} searches for {moves} moves");
    }

    #[test]
    fn the_memory_stays_bounded_and_keeps_what_recurs() {
        let result = SearchResult { best: None, value: 0.0, nodes: 1 };
        let memory = Memory::<u64>::new(64);
        for key in 0..(3 * 64) {
            memory.remember(key, result);
            // Key 0 is asked for all along, so it is always recalled.
            assert!(memory.recall(&0).is_some(), "{key}");
            let h = memory.lock();
            assert!(h[0].len() <= 64 && h[1].len() <= 64);
        }
        assert!(memory.recall(&1).is_none(), "an old result no one asked for again is gone");
        let mut searches = 0;
        let mut search = || {
            searches += 1;
            result
        };
        memory.recall_or(1000, &mut search);
        memory.recall_or(1000, &mut search);
        assert_eq!(searches, 1);
    }
}
