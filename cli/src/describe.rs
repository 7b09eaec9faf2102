//! Human-readable description of a position, as printed by `loa show`.

use loa_engine::connect::{group_count, is_connected};
use loa_engine::quads::{QD, QuadCounts};
use loa_engine::{Color, Position, Rules, Square};
use std::fmt::Write;

/// A board diagram: the last rank at the top, `b`/`w`/`.` per square, file letters below.
pub fn diagram(pos: &Position) -> String {
    let n = pos.size().side();
    let mut out = String::new();
    for rank in (0..n).rev() {
        let _ = write!(out, "{} ", rank + 1);
        for file in 0..n {
            let ch = pos.piece_at(Square::new(rank * 8 + file)).map_or('.', Color::letter);
            let _ = write!(out, " {ch}");
        }
        out.push('\n');
    }
    out.push_str("  ");
    for file in 0..n {
        let _ = write!(out, " {}", (b'a' + file) as char);
    }
    out.push('\n');
    out
}

/// The full `loa show` report: diagram, board size, side to move, per colour the groups, quad counts, Euler
/// number and connectedness, then whether the game is over and how.
pub fn describe(pos: &Position, rules: &Rules) -> String {
    let mut out = diagram(pos);
    if !pos.size().is_standard() {
        let _ = writeln!(out, "board: {}", pos.size());
    }
    let _ = writeln!(out, "side to move: {}", pos.side_to_move());
    for color in Color::ALL {
        let pieces = pos.pieces(color);
        // Q0 of the board's own (N+1)² windows.
        let q = QuadCounts::of(pieces).on_board(pos.size());
        let c = q.counts;
        let _ = writeln!(
            out,
            "{color}: {} pieces, {} groups, quads Q0={} Q1={} Q2={} Q3={} Q4={} Qd={}, Euler {}, {}",
            pieces.count(),
            group_count(pieces),
            c[0],
            c[1],
            c[2],
            c[3],
            c[4],
            c[QD],
            q.euler(),
            if is_connected(pieces) { "connected" } else { "not connected" }
        );
    }
    let _ = writeln!(out, "legal moves: {}", pos.count_moves());
    match pos.game_end(rules) {
        Some(end) => {
            let _ = writeln!(out, "game over: {end}");
        }
        None => out.push_str("game not over\n"),
    }
    out
}
