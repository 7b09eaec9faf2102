//! The position: where the pieces stand and whose turn it is.

use crate::{Bitboard, BoardSize, Color, Move, PositionError, Square};

/// The most pieces a colour can have on any board (the 8×8 start position's count; on an N×N
/// board it is [`BoardSize::max_pieces`]).
pub const MAX_PIECES: u32 = 12;

/// A Lines of Action position: one bitboard per colour, the side to move and the board's size.
///
/// A `Position` always holds at least one and at most [`BoardSize::max_pieces`] pieces of each
/// colour, on distinct squares of its board; [`Position::from_pieces_on`] and the position-text
/// parser check this. It knows nothing of game history (the ply counter lives with the game,
/// [`crate::game::play_game`]).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Position {
    pub(crate) pieces: [u64; 2],
    pub(crate) side: Color,
    pub(crate) size: BoardSize,
}

/// The start position in position text.
pub const START_TEXT: &str = ".bbbbbb./w......w/w......w/w......w/w......w/w......w/w......w/.bbbbbb. b";

impl Position {
    /// The start position: Black on b1–g1 and b8–g8, White on a2–a7 and h2–h7, Black to move.
    pub const fn start() -> Position {
        Position {
            pieces: [0x7E00_0000_0000_007E, 0x0081_8181_8181_8100],
            side: Color::Black,
            size: BoardSize::STANDARD,
        }
    }

    /// A position on the 8×8 board from piece sets, checked as [`Position::from_pieces_on`]
    /// does.
    pub fn from_pieces(black: Bitboard, white: Bitboard, side: Color) -> Result<Position, PositionError> {
        Position::from_pieces_on(BoardSize::STANDARD, black, white, side)
    }

    /// A position on the `size` board from piece sets, checked: every piece on the board, the
    /// sets not overlapping, and each colour with 1 to [`BoardSize::max_pieces`] pieces.
    pub fn from_pieces_on(
        size: BoardSize,
        black: Bitboard,
        white: Bitboard,
        side: Color,
    ) -> Result<Position, PositionError> {
        if let Some(square) = ((black | white) & !Bitboard(size.mask())).first() {
            return Err(PositionError::OffBoard { square, size });
        }
        if !(black & white).is_empty() {
            return Err(PositionError::Overlap { square: (black & white).first().unwrap_or(Square::new(0)) });
        }
        for (color, bb) in [(Color::Black, black), (Color::White, white)] {
            if bb.count() > size.max_pieces() {
                return Err(PositionError::TooManyPieces { color, count: bb.count(), max: size.max_pieces() });
            }
            if bb.is_empty() {
                return Err(PositionError::NoPieces { color });
            }
        }
        Ok(Position { pieces: [black.0, white.0], side, size })
    }

    /// The board's size.
    #[inline]
    pub const fn size(&self) -> BoardSize {
        self.size
    }

    /// The board's squares (see [`BoardSize::mask`]).
    #[inline]
    pub const fn board(&self) -> Bitboard {
        Bitboard(self.size.mask())
    }

    /// The side to move.
    #[inline]
    pub const fn side_to_move(&self) -> Color {
        self.side
    }

    /// The pieces of `color`.
    #[inline]
    pub const fn pieces(&self, color: Color) -> Bitboard {
        Bitboard(self.pieces[color.index()])
    }

    /// The pieces of the side to move.
    #[inline]
    pub const fn own(&self) -> Bitboard {
        Bitboard(self.pieces[self.side.index()])
    }

    /// The pieces of the side not to move.
    #[inline]
    pub const fn enemy(&self) -> Bitboard {
        Bitboard(self.pieces[self.side.opponent().index()])
    }

    /// Every occupied square.
    #[inline]
    pub const fn occupied(&self) -> Bitboard {
        Bitboard(self.pieces[0] | self.pieces[1])
    }

    /// The colour of the piece on `sq`, if any.
    pub fn piece_at(&self, sq: Square) -> Option<Color> {
        Color::ALL.into_iter().find(|c| self.pieces(*c).contains(sq))
    }

    /// The same board with the other side to move.
    #[inline]
    #[must_use]
    pub const fn with_side_to_move(mut self, side: Color) -> Position {
        self.side = side;
        self
    }

    /// The position after `mv` (copy-make; measured faster than make/unmake for two `u64`s).
    ///
    /// `mv` must be legal here (or [`Move::PASS`], which only hands the turn over); use
    /// [`Position::is_legal`] for untrusted moves.
    #[inline]
    #[must_use]
    pub fn play(&self, mv: Move) -> Position {
        let us = self.side.index();
        let mut next = *self;
        next.side = self.side.opponent();
        if mv.is_pass() {
            return next;
        }
        let (from, to) = (mv.from().bit(), mv.to().bit());
        next.pieces[us] ^= from | to;
        next.pieces[us ^ 1] &= !to;
        next
    }
}

impl Default for Position {
    fn default() -> Self {
        Position::start()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_position_matches_the_spec() {
        let p = Position::start();
        assert_eq!(p.to_string(), START_TEXT);
        assert_eq!(p.pieces(Color::Black).count(), 12);
        assert_eq!(p.pieces(Color::White).count(), 12);
        assert_eq!(p.piece_at(Square::parse("b1").unwrap()), Some(Color::Black));
        assert_eq!(p.piece_at(Square::parse("a2").unwrap()), Some(Color::White));
        assert_eq!(p.piece_at(Square::parse("a1").unwrap()), None);
    }

    #[test]
    fn play_moves_and_captures() {
        let p = Position::start();
        let b1 = Square::parse("b1").unwrap();
        let b3 = Square::parse("b3").unwrap();
        let q = p.play(Move::new(b1, b3, false));
        assert_eq!(q.side_to_move(), Color::White);
        assert_eq!(q.piece_at(b1), None);
        assert_eq!(q.piece_at(b3), Some(Color::Black));
        let a3 = Square::parse("a3").unwrap();
        let r = q.play(Move::new(a3, b3, true));
        assert_eq!(r.piece_at(b3), Some(Color::White));
        assert_eq!(r.pieces(Color::Black).count(), 11);
        assert_eq!(r.play(Move::PASS).side_to_move(), Color::White);
    }
}
