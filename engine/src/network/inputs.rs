//! The default topology's 100 inputs (docs/spec.md §3), computed plainly from their definition.
//!
//! This is the one place the input geometry is written down: the fast path's tables are
//! derived from [`encode`] too, so the two can only disagree through arithmetic.

use crate::{Bitboard, Color, Position, Square};

/// Board inputs: one per square.
pub const BOARD_INPUTS: usize = 64;
/// Nonad inputs: one per 3×3 window whose centre is off the edge (6 × 6 centres).
pub const NONAD_INPUTS: usize = 36;
/// All inputs of the default topology.
pub const INPUTS: usize = BOARD_INPUTS + NONAD_INPUTS;

pub(super) const OWN_CELL: f32 = 0.75;
pub(super) const OPPONENT_CELL: f32 = 0.25;
pub(super) const EMPTY_CELL: f32 = 0.5;
pub(super) const NONAD_CENTRE: f32 = 1.0;
pub(super) const NONAD_ORTHOGONAL: f32 = 0.8;
pub(super) const NONAD_DIAGONAL: f32 = 0.75;

/// The board input of `sq`: reading order a8, b8, …, h8, a7, …, h1, i.e. `(7 − rank)·8 + file`.
pub const fn board_input_index(sq: Square) -> usize {
    (7 - sq.rank() as usize) * 8 + sq.file() as usize
}

/// The nonad input of the window centred on `centre`, or `None` if `centre` is on the edge.
/// Centres in reading order b7, c7, …, g7, b6, …, g2: `64 + (6 − rank)·6 + (file − 1)`.
pub const fn nonad_input_index(centre: Square) -> Option<usize> {
    let (file, rank) = (centre.file() as usize, centre.rank() as usize);
    if file == 0 || file == 7 || rank == 0 || rank == 7 {
        None
    } else {
        Some(BOARD_INPUTS + (6 - rank) * 6 + (file - 1))
    }
}

/// The 100 inputs for `pos` seen from `pov` ("self"): own pieces are `pov`'s.
pub fn inputs(pos: &Position, pov: Color) -> [f32; INPUTS] {
    encode(pos.pieces(pov), pos.pieces(pov.opponent()))
}

/// The inputs for any two disjoint piece sets (empty ones too, which the table builder needs):
/// the thesis's shape's board and nonad inputs, as [`super::Topology::encode`] defines them
/// for every shape.
pub(crate) fn encode(own: Bitboard, opponent: Bitboard) -> [f32; INPUTS] {
    let mut x = [0.0; INPUTS];
    super::Topology::THESIS.encode_linear(own, opponent, &mut x);
    x
}
