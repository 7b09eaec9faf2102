//! Positions to start games from and to measure on: seeded random openings (so deterministic
//! players play varied games) and positions from random playouts (for tests and benchmarks).

use crate::random::{SplitMix64, derive_seed, mix64};
use crate::{Color, Position, Rules};

/// A start position after `plies` seeded uniformly random plies from the 8×8 start position:
/// [`random_opening_from`] with [`Position::start`].
pub fn random_opening(plies: u32, seed: u64, rules: &Rules) -> Position {
    random_opening_from(&Position::start(), plies, seed, rules)
}

/// A start position after `plies` seeded uniformly random plies from `start` (any board size);
/// if a game ends (or a side has no move) on the way, another seed is tried, so the result is
/// always a running game. `plies` should stay well below the length of a random game (40 at
/// most is safe on 8×8: random play rarely connects a side that early; see
/// [`max_opening_plies`] for the other sizes).
pub fn random_opening_from(start: &Position, plies: u32, seed: u64, rules: &Rules) -> Position {
    let mut attempt = 0u64;
    loop {
        if let Some(pos) = try_opening(start, plies, derive_seed(seed, attempt), rules) {
            return pos;
        }
        attempt += 1;
    }
}

/// The longest random opening allowed on `size`: random games on small boards are short, and
/// an opening that most random games do not survive would take many attempts (see the test
/// `most_random_openings_of_the_longest_length_survive`).
pub const fn max_opening_plies(size: crate::BoardSize) -> u32 {
    match size.side() {
        5 => 6,
        6 => 12,
        7 => 24,
        _ => 40,
    }
}

fn try_opening(start: &Position, plies: u32, mut state: u64, rules: &Rules) -> Option<Position> {
    let mut pos = *start;
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

/// `count` positions from random playouts of the 8×8 start position: [`sample_positions_from`]
/// with [`Position::start`].
pub fn sample_positions(count: usize, seed: u64) -> Vec<Position> {
    sample_positions_from(&Position::start(), count, seed)
}

/// `count` positions from random playouts of `start` (deterministic for a seed): every
/// position along games of uniformly random moves, restarted at a connection, at a side without
/// moves or after 100 plies. Realistic boards for timing per-position operations and for
/// property tests.
pub fn sample_positions_from(start: &Position, count: usize, seed: u64) -> Vec<Position> {
    let mut rng = SplitMix64::new(seed);
    let mut out = Vec::with_capacity(count);
    let mut pos = *start;
    let mut plies = 0;
    while out.len() < count {
        let moves = pos.legal_moves();
        let over = crate::connect::is_connected(pos.pieces(Color::Black))
            || crate::connect::is_connected(pos.pieces(Color::White));
        if moves.is_empty() || over || plies >= 100 {
            pos = *start;
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

    /// On every board, openings of the longest allowed length are found in a few attempts:
    /// more than a third of random games survive them.
    #[test]
    fn most_random_openings_of_the_longest_length_survive() {
        let rules = Rules::default();
        for size in crate::BoardSize::ALL {
            let start = crate::Start::Standard.position(size).unwrap();
            let plies = max_opening_plies(size);
            let survived = (0..1000).filter(|&s| try_opening(&start, plies, mix64(s), &rules).is_some()).count();
            assert!(survived > 333, "{size}: {survived} of 1000 survive {plies} plies");
            let a = random_opening_from(&start, plies, 3, &rules);
            assert_eq!(a.size(), size);
            assert!(a.game_end(&rules).is_none());
            assert_eq!(a.side_to_move(), if plies.is_multiple_of(2) { Color::Black } else { Color::White });
        }
    }

    #[test]
    fn playout_positions_on_a_small_board_stay_on_it() {
        let start = crate::Start::Standard.position(crate::BoardSize::MIN).unwrap();
        let positions = sample_positions_from(&start, 2000, 5);
        assert!(positions.iter().all(|p| p.size() == crate::BoardSize::MIN && (p.occupied() & !p.board()).is_empty()));
        assert_eq!(positions, sample_positions_from(&start, 2000, 5));
    }

    #[test]
    fn playout_positions_are_deterministic() {
        let a = sample_positions(300, 3);
        assert_eq!(a.len(), 300);
        assert_eq!(a, sample_positions(300, 3));
        assert_ne!(a, sample_positions(300, 4));
    }
}
