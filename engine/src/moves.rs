//! Moves and fixed-capacity move lists.

use crate::Square;
use std::fmt;

/// A move: a piece goes from one square to another, capturing whatever enemy piece stands there.
///
/// Packed in 16 bits: from (6), to (6), capture flag (1). The special [`Move::PASS`] exists only
/// under the "no move passes" rules variant. Ordering (`Ord`) is the canonical move order of
/// docs/spec.md §1: ascending from-square, then ascending to-square.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Move(u16);

const CAPTURE_FLAG: u16 = 1 << 12;
const PASS_BITS: u16 = 1 << 15;

impl Move {
    /// The pass move, played only when the side to move has no legal move and the rules say it
    /// passes. Sorts after every real move.
    pub const PASS: Move = Move(PASS_BITS);

    /// A move from `from` to `to`; `capture` says whether an enemy piece stands on `to`.
    #[inline]
    pub const fn new(from: Square, to: Square, capture: bool) -> Move {
        Move(((from.index() as u16) << 6) | to.index() as u16 | if capture { CAPTURE_FLAG } else { 0 })
    }

    /// The square the piece leaves.
    #[inline]
    pub const fn from(self) -> Square {
        Square::new(((self.0 >> 6) & 63) as u8)
    }

    /// The square the piece lands on.
    #[inline]
    pub const fn to(self) -> Square {
        Square::new((self.0 & 63) as u8)
    }

    /// Whether the move captures an enemy piece.
    #[inline]
    pub const fn is_capture(self) -> bool {
        self.0 & CAPTURE_FLAG != 0
    }

    /// Whether this is [`Move::PASS`].
    #[inline]
    pub const fn is_pass(self) -> bool {
        self.0 == PASS_BITS
    }

    /// The packed 16 bits: from (bits 6-11), to (bits 0-5), capture (bit 12), pass (bit 15
    /// alone). The form moves travel in (self-play outcomes on the wire).
    #[inline]
    pub const fn to_bits(self) -> u16 {
        self.0
    }

    /// The move with packed bits `bits`, as [`Move::to_bits`] returned them.
    #[inline]
    pub(crate) const fn from_bits(bits: u16) -> Move {
        Move(bits)
    }

    /// The move whose packed bits ([`Move::to_bits`]) are `bits`, if they are a move's: a
    /// square pair with or without the capture flag, or the pass. Whether it is legal anywhere
    /// is for its position to say.
    pub const fn from_packed(bits: u16) -> Option<Move> {
        if bits == PASS_BITS || bits & !(CAPTURE_FLAG | 0x0FFF) == 0 { Some(Move(bits)) } else { None }
    }

    /// The canonical sort key: from-square, then to-square (the capture flag never matters,
    /// since a square pair fixes it).
    #[inline]
    const fn key(self) -> u16 {
        self.0 & !CAPTURE_FLAG
    }
}

impl PartialOrd for Move {
    fn partial_cmp(&self, other: &Move) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Move {
    fn cmp(&self, other: &Move) -> std::cmp::Ordering {
        self.key().cmp(&other.key())
    }
}

/// Move text: `c8-c6` for a quiet move, `d1xa4` for a capture, `pass` for the pass move.
impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_pass() {
            return f.write_str("pass");
        }
        let sep = if self.is_capture() { 'x' } else { '-' };
        write!(f, "{}{}{}", self.from(), sep, self.to())
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// The most legal moves a position can have: 12 pieces × 8 directions.
pub const MAX_MOVES: usize = 96;

/// A list of at most [`MAX_MOVES`] moves on the stack, so generating moves never allocates.
#[derive(Clone)]
pub struct MoveList {
    moves: [Move; MAX_MOVES],
    len: usize,
}

impl MoveList {
    /// An empty list.
    #[inline]
    pub const fn new() -> MoveList {
        MoveList { moves: [Move::PASS; MAX_MOVES], len: 0 }
    }

    /// Appends a move. A position never has more than [`MAX_MOVES`] moves; a list that would
    /// overflow drops the move (debug builds assert).
    #[inline]
    pub fn push(&mut self, mv: Move) {
        debug_assert!(self.len < MAX_MOVES);
        if self.len < MAX_MOVES {
            self.moves[self.len] = mv;
            self.len += 1;
        }
    }

    /// Number of moves.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no moves.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The moves as a slice.
    #[inline]
    pub fn as_slice(&self) -> &[Move] {
        &self.moves[..self.len]
    }

    /// The moves as a mutable slice (for move ordering).
    #[inline]
    pub fn as_mut_slice(&mut self) -> &mut [Move] {
        &mut self.moves[..self.len]
    }

    /// Keeps only the moves for which `keep` is true, in their order.
    #[inline]
    pub fn retain(&mut self, mut keep: impl FnMut(&Move) -> bool) {
        let mut len = 0;
        for i in 0..self.len {
            let mv = self.moves[i];
            if keep(&mv) {
                self.moves[len] = mv;
                len += 1;
            }
        }
        self.len = len;
    }

    /// Removes every move.
    #[inline]
    pub fn clear(&mut self) {
        self.len = 0;
    }
}

impl Default for MoveList {
    fn default() -> Self {
        MoveList::new()
    }
}

impl std::ops::Deref for MoveList {
    type Target = [Move];
    #[inline]
    fn deref(&self) -> &[Move] {
        self.as_slice()
    }
}

impl<'a> IntoIterator for &'a MoveList {
    type Item = &'a Move;
    type IntoIter = std::slice::Iter<'a, Move>;
    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

impl fmt::Debug for MoveList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

impl std::str::FromStr for Move {
    type Err = String;

    /// Parses move text without a position: `c8-c6` is a quiet move, `d1xa4` a capture, `pass`
    /// the pass move. Whether it is legal anywhere is not checked (see
    /// [`crate::Position::parse_move`] for that).
    fn from_str(text: &str) -> Result<Move, String> {
        if text == "pass" {
            return Ok(Move::PASS);
        }
        let bad = || format!("`{text}` is not move text (e.g. c8-c6 or d1xa4)");
        if !text.is_ascii() || text.len() != 5 {
            return Err(bad());
        }
        let (from, to) = (Square::parse(&text[0..2]).ok_or_else(bad)?, Square::parse(&text[3..5]).ok_or_else(bad)?);
        match &text[2..3] {
            "-" => Ok(Move::new(from, to, false)),
            "x" => Ok(Move::new(from, to, true)),
            _ => Err(bad()),
        }
    }
}

/// Moves are stored as move text in JSON (logs, game records).
impl serde::Serialize for Move {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Move {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Move, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(s: &str) -> Square {
        Square::parse(s).unwrap()
    }

    #[test]
    fn move_text() {
        assert_eq!(Move::new(sq("c8"), sq("c6"), false).to_string(), "c8-c6");
        assert_eq!(Move::new(sq("d1"), sq("a4"), true).to_string(), "d1xa4");
        assert_eq!(Move::PASS.to_string(), "pass");
    }

    #[test]
    fn canonical_order_is_from_then_to_and_ignores_capture() {
        let a = Move::new(sq("b1"), sq("h7"), true);
        let b = Move::new(sq("c1"), sq("a1"), false);
        let c = Move::new(sq("c1"), sq("c3"), false);
        assert!(a < b && b < c);
        assert!(c < Move::PASS);
    }
}
