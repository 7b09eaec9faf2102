//! A shape's inputs computed plainly from their definition (docs/spec.md §3), for any board side.
//!
//! On an N×N board the cells are files a.. and ranks 1..N of the usual bitboard (square index
//! `8·rank + file`); pieces outside them are not the network's to see.

use super::super::inputs::{EMPTY_CELL, NONAD_CENTRE, NONAD_DIAGONAL, NONAD_ORTHOGONAL, OPPONENT_CELL, OWN_CELL};
use super::{Encoding, Topology};
use crate::quads::{QD, QuadCounts};
use crate::{Bitboard, Square};

impl Topology {
    /// The board input of `sq`, if the shape has board inputs and `sq` is on its board: reading
    /// order from the top-left corner, `(N − 1 − rank)·N + file`.
    pub fn board_input(&self, sq: Square) -> Option<usize> {
        let (n, file, rank) = (usize::from(self.side), sq.file() as usize, sq.rank() as usize);
        (self.inputs.board && file < n && rank < n).then(|| (n - 1 - rank) * n + file)
    }

    /// The nonad input of the window centred on `sq`, if the shape has nonads and the window
    /// lies inside its board: centres in reading order, `board inputs + (N − 2 − rank)·(N − 2) +
    /// (file − 1)`.
    pub fn nonad_input(&self, centre: Square) -> Option<usize> {
        let (n, file, rank) = (usize::from(self.side), centre.file() as usize, centre.rank() as usize);
        let inside = (1..n - 1).contains(&file) && (1..n - 1).contains(&rank);
        (self.inputs.nonads && inside).then(|| self.board_input_count() + (n - 2 - rank) * (n - 2) + (file - 1))
    }

    /// The pieces one side starts with on this board, `2·(N − 2)`: the features' scale.
    pub fn start_pieces(&self) -> u32 {
        2 * (u32::from(self.side) - 2)
    }

    /// Every input for own pieces `own` and opponent pieces `opponent` (disjoint), into `x`
    /// (of length [`Topology::input_count`]).
    pub fn encode(&self, own: Bitboard, opponent: Bitboard, x: &mut [f32]) {
        assert_eq!(x.len(), self.input_count(), "one slot per input");
        self.encode_linear(own, opponent, x);
        let first = self.first_feature_input();
        self.features(own, opponent, &mut x[first..]);
    }

    /// The board and nonad inputs (the ones linear in the pieces), into `x`; the feature inputs
    /// are left alone.
    pub(in crate::network) fn encode_linear(&self, own: Bitboard, opponent: Bitboard, x: &mut [f32]) {
        let opponent_cell = match self.inputs.encoding {
            Encoding::Spec => OPPONENT_CELL,
            Encoding::Printed => EMPTY_CELL,
        };
        for sq in Square::all() {
            if let Some(i) = self.board_input(sq) {
                x[i] = if own.contains(sq) {
                    OWN_CELL
                } else if opponent.contains(sq) {
                    opponent_cell
                } else {
                    EMPTY_CELL
                };
            }
            let Some(i) = self.nonad_input(sq) else {
                continue;
            };
            let mut sum = 0.0;
            for dy in -1..=1 {
                for dx in -1..=1 {
                    let Some(cell) = Square::from_coords(sq.file() as i32 + dx, sq.rank() as i32 + dy) else {
                        continue;
                    };
                    if own.contains(cell) {
                        sum += match dx * dx + dy * dy {
                            0 => NONAD_CENTRE,
                            1 => NONAD_ORTHOGONAL,
                            _ => NONAD_DIAGONAL,
                        };
                    }
                }
            }
            x[i] = sum;
        }
    }

    /// The extra feature inputs (docs/spec.md §3), into `x` (of length
    /// [`Topology::feature_input_count`]), each scaled by the start's piece count `P =
    /// 2·(N − 2)` into about [−1, 1]: piece counts `n / P` (own, opponent); quad counts Q1, Q3,
    /// Qd `/ 4P` (own three, opponent three; a piece lies in four quads); Euler numbers `E / P`
    /// (own, opponent; at most the number of groups).
    pub fn features(&self, own: Bitboard, opponent: Bitboard, x: &mut [f32]) {
        let p = self.start_pieces() as f32;
        let mut out = x.iter_mut();
        let mut put = |value: f32| {
            if let Some(slot) = out.next() {
                *slot = value;
            }
        };
        if self.inputs.pieces {
            put(own.count() as f32 / p);
            put(opponent.count() as f32 / p);
        }
        let quads = (self.inputs.quads || self.inputs.euler).then(|| [QuadCounts::of(own), QuadCounts::of(opponent)]);
        if let (true, Some(quads)) = (self.inputs.quads, &quads) {
            for side in quads {
                for k in [1, 3, QD] {
                    put(f32::from(side.counts[k]) / (4.0 * p));
                }
            }
        }
        if let (true, Some(quads)) = (self.inputs.euler, &quads) {
            for side in quads {
                put(side.euler() as f32 / p);
            }
        }
    }
}
