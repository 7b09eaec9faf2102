//! Positions to start games from and to measure on: seeded random openings (so deterministic
//! players play varied games) and positions from random playouts (for tests and benchmarks).

use crate::random::{SplitMix64, derive_seed, mix64};
use crate::{Color, Position, Rules};

/// A start position after `plies` seeded uniformly random plies from the start position; if a
/// game ends (or a side has no move) on the way, another seed is tried, so the result is always
/// a running game. `plies` should stay well below the length of a random game (40 at most is
/// safe: random play rarely connects a side that early).
pub fn random_opening(plies: u32, seed: u64, rules: &Rules) -> Position {
    let mut attempt = 0u64;
    loop {
        if let Some(pos) = try_opening(plies, derive_seed(seed, attempt), rules) {
            return pos;
        }
        attempt += 1;
    }
}

fn try_opening(plies: u32, mut state: u64, rules: &Rules) -> Option<Position> {
    let mut pos = Position::start();
    for _ in 0..plies {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            return None;
        }
        state = mix64(state);
        pos = pos.play(moves[(state % moves.len() as u64) as usize]);
        if pos.game_end(rules).is_some() {
            return None;
        }
    }
    Some(pos)
}

/// `count` positions from random playouts of the start position (deterministic for a seed):
/// every position along games of uniformly random moves, restarted at a connection, at a side
/// without moves or after 100 plies. Realistic boards for timing per-position operations and for
/// property tests.
pub fn sample_positions(count: usize, seed: u64) -> Vec<Position> {
    let mut rng = SplitMix64::new(seed);
    let mut out = Vec::with_capacity(count);
    let mut pos = Position::start();
    let mut plies = 0;
    while out.len() < count {
        let moves = pos.legal_moves();
        let over = crate::connect::is_connected(pos.pieces(Color::Black))
            || crate::connect::is_connected(pos.pieces(Color::White));
        if moves.is_empty() || over || plies >= 100 {
            pos = Position::start();
            plies = 0;
            continue;
        }
        pos = pos.play(moves[(rng.next_u64() % moves.len() as u64) as usize]);
        plies += 1;
        out.push(pos);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn openings_are_seeded_running_games_of_the_asked_length() {
        let rules = Rules::default();
        let a = random_opening(8, 5, &rules);
        assert_eq!(a, random_opening(8, 5, &rules));
        assert_ne!(a, random_opening(8, 6, &rules));
        assert!(a.game_end(&rules).is_none());
        // Eight plies from the start: Black to move again.
        assert_eq!(a.side_to_move(), Color::Black);
        assert_eq!(random_opening(0, 9, &rules), Position::start());
    }

    #[test]
    fn playout_positions_are_deterministic() {
        let a = sample_positions(300, 3);
        assert_eq!(a.len(), 300);
        assert_eq!(a, sample_positions(300, 3));
        assert_ne!(a, sample_positions(300, 4));
    }
}
