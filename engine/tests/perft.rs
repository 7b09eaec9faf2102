//! Perft from the start position against the published counts (docs/spec.md §1; four independent public
//! engines agree), with and without bulk counting.

use loa_engine::perft::{divide, perft, perft_make_all};
use loa_engine::{Position, START_TEXT};

const START_COUNTS: [u64; 5] = [36, 1_244, 44_952, 1_563_208, 55_963_132];

#[test]
fn start_position_depths_1_to_4() {
    let start: Position = START_TEXT.parse().unwrap();
    for (depth, &count) in START_COUNTS.iter().enumerate().take(4) {
        assert_eq!(perft(&start, depth as u32 + 1), count, "depth {}", depth + 1);
        assert_eq!(perft_make_all(&start, depth as u32 + 1), count, "depth {} (make all)", depth + 1);
    }
}

/// 0.1 s in release (the README's test command builds release); slow in a debug build.
#[test]
fn start_position_depth_5() {
    assert_eq!(perft(&Position::start(), 5), START_COUNTS[4]);
}

#[test]
fn divide_sums_to_perft() {
    let start = Position::start();
    let split = divide(&start, 3);
    assert_eq!(split.len(), 36);
    assert_eq!(split.iter().map(|(_, n)| n).sum::<u64>(), START_COUNTS[2]);
}
