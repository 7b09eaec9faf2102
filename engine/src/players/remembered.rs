//! [`AloaPlayer`]: ALoA's searches remembered by position, across games and threads.
//!
//! The benchmark plays every survivor against ALoA from the start position, so ALoA searches
//! the same positions again and again: its first move as Black in every game, its replies to
//! the networks' few favourite first moves, and every move of a survivor's match when the
//! survivor plays the same games as in the epoch before. In a thesis run a fifth of ALoA's
//! search time went to positions it had searched before (six benchmarks, the README's round 9).
//!
//! Remembering changes no result: an alpha-beta search is a pure function of the position,
//! the rules, the limits and the evaluator (every table it uses starts empty for each search),
//! so the remembered [`SearchResult`] is the one a new search would return, node count
//! included. The key holds all four; of the limits, only where the ply cap falls within the
//! search's horizon matters, so the plies left are clipped there.

use crate::aloa::Aloa;
use crate::game::Player;
use crate::search::{SearchLimits, SearchResult, alpha_beta};
use crate::{Position, Rules};
use std::collections::HashMap;
use std::sync::{LazyLock, Mutex};

/// ALoA searching to a fixed depth, with the results of positions searched before (by any
/// `AloaPlayer` of this process) remembered: the same moves as
/// [`SearchPlayer`](crate::players::SearchPlayer) over [`Aloa`], fewer searches.
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
        let key = SearchKey {
            pos: *pos,
            eval: self.eval,
            rules: *rules,
            depth: self.depth,
            plies_left: limits.plies_left.min(self.depth.saturating_add(1)),
        };
        if let Some(result) = MEMORY.recall(&key) {
            return result;
        }
        let result = alpha_beta(pos, rules, limits, &self.eval);
        MEMORY.remember(key, result);
        result
    }
}

/// Everything an ALoA search's result depends on. A search never looks more than `depth`
/// plies ahead, so all plies left beyond `depth` (no cap within reach) read `depth + 1`.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct SearchKey {
    pos: Position,
    eval: Aloa,
    rules: Rules,
    depth: u32,
    plies_left: u32,
}

/// Results in two halves, the current and the previous: a new result goes into the current
/// half, and when that holds [`HALF`] results the previous is dropped and the current becomes
/// it. A result recalled from the previous half is copied into the current one, so positions
/// that keep recurring (the openings) outlive the turnover while the memory stays bounded.
struct Memory {
    halves: Mutex<[HashMap<SearchKey, SearchResult>; 2]>,
}

/// Results per half: at most about 2 × 16 384 × 100 bytes, 3 MB, in all. A thesis benchmark
/// adds about 2 000 positions an epoch.
const HALF: usize = 1 << 14;

/// One memory for the process: a worker's threads share what they searched. A search takes
/// about a millisecond, a lookup well under a microsecond, so the lock is never contended.
static MEMORY: LazyLock<Memory> = LazyLock::new(Memory::new);

type Halves = [HashMap<SearchKey, SearchResult>; 2];

impl Memory {
    fn new() -> Memory {
        Memory { halves: Mutex::new([HashMap::new(), HashMap::new()]) }
    }

    fn recall(&self, key: &SearchKey) -> Option<SearchResult> {
        let mut halves = self.lock();
        if let Some(result) = halves[0].get(key) {
            return Some(*result);
        }
        let result = *halves[1].get(key)?;
        insert(&mut halves, *key, result);
        Some(result)
    }

    fn remember(&self, key: SearchKey, result: SearchResult) {
        insert(&mut self.lock(), key, result);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Halves> {
        // Poisoned only if a thread panicked while holding the lock; the maps are whole between
        // operations, so they are still good.
        self.halves.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

fn insert(halves: &mut Halves, key: SearchKey, result: SearchResult) {
    if halves[0].len() >= HALF {
        halves.swap(0, 1);
        halves[0].clear();
    }
    halves[0].insert(key, result);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aloa::{AloaKind, AloaWeights};
    use crate::players::SearchPlayer;
    use crate::{BothConnected, NoMoves};

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
    fn the_memory_stays_bounded_and_keeps_what_recurs() {
        let key = |i: u64| SearchKey {
            pos: Position::start(),
            eval: Aloa::quad(),
            rules: Rules { ply_cap: i as u32, ..Rules::default() },
            depth: 5,
            plies_left: 6,
        };
        let result = SearchResult { best: None, value: 0.0, nodes: 1 };
        let memory = Memory::new();
        for i in 0..(3 * HALF as u64) {
            memory.remember(key(i), result);
            // Key 0 is asked for all along, so it is always recalled.
            assert!(memory.recall(&key(0)).is_some(), "{i}");
            let h = memory.lock();
            assert!(h[0].len() <= HALF && h[1].len() <= HALF);
        }
        assert!(memory.recall(&key(1)).is_none(), "an old result no one asked for again is gone");
    }
}
