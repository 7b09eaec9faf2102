//! A shape's one name: `[NxN-]INPUTS-COUNT-HIDDEN...-1`, e.g. `board-nonad-100-20-1` (the
//! thesis's; the 8×8 board is not written) or `5x5-board-25-12-1`.

use super::{Encoding, Inputs, ShapeError, Topology};
use std::fmt;
use std::str::FromStr;

/// The input tokens in name order, each with the flag it sets.
const TOKENS: [&str; 6] = ["board", "printed", "nonad", "pieces", "quads", "euler"];

fn token_flags(inputs: &Inputs) -> [bool; 6] {
    [inputs.board, inputs.encoding == Encoding::Printed, inputs.nonads, inputs.pieces, inputs.quads, inputs.euler]
}

impl fmt::Display for Topology {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.side != 8 {
            write!(f, "{0}x{0}-", self.side)?;
        }
        for (token, _) in TOKENS.iter().zip(token_flags(&self.inputs)).filter(|(_, on)| *on) {
            write!(f, "{token}-")?;
        }
        write!(f, "{}", self.input_count())?;
        for units in self.hidden() {
            write!(f, "-{units}")?;
        }
        f.write_str("-1")
    }
}

/// Parses a name, checking that it is the shape's one spelling (so names round-trip and two
/// names never hash as different chromosomes of one shape).
impl FromStr for Topology {
    type Err = ShapeError;

    fn from_str(name: &str) -> Result<Topology, ShapeError> {
        let bad_token = |token: &str| ShapeError::NameToken { name: name.to_string(), token: token.to_string() };
        let mut tokens = name.split('-').peekable();
        let mut side = 8;
        if let Some((n, m)) = tokens.peek().and_then(|t| t.split_once('x')) {
            let token = tokens.next().unwrap_or_default();
            side = match (n.parse::<u8>(), m.parse::<u8>()) {
                (Ok(n), Ok(m)) if n == m => n,
                _ => return Err(bad_token(token)),
            };
        }
        let mut inputs =
            Inputs { board: false, nonads: false, encoding: Encoding::Spec, pieces: false, quads: false, euler: false };
        let mut last = None;
        while let Some(token) = tokens.next_if(|t| !t.starts_with(|c: char| c.is_ascii_digit())) {
            let index = TOKENS.iter().position(|t| *t == token).ok_or_else(|| bad_token(token))?;
            if last.is_some_and(|last| index <= last) {
                return Err(ShapeError::NameOrder { name: name.to_string() });
            }
            last = Some(index);
            match index {
                0 => inputs.board = true,
                1 => inputs.encoding = Encoding::Printed,
                2 => inputs.nonads = true,
                3 => inputs.pieces = true,
                4 => inputs.quads = true,
                _ => inputs.euler = true,
            }
        }
        let numbers = tokens
            .map(|t| {
                t.parse::<usize>().ok().filter(|_| t.bytes().all(|b| b.is_ascii_digit())).ok_or_else(|| bad_token(t))
            })
            .collect::<Result<Vec<usize>, ShapeError>>()?;
        let [written, hidden @ .., 1] = numbers.as_slice() else {
            return Err(ShapeError::NameLayers { name: name.to_string() });
        };
        let shape = Topology::new(side, inputs, hidden)?;
        if *written != shape.input_count() {
            return Err(ShapeError::NameInputCount {
                name: name.to_string(),
                written: *written,
                actual: shape.input_count(),
            });
        }
        let canonical = shape.to_string();
        if canonical != name {
            return Err(ShapeError::NotCanonical { name: name.to_string(), canonical });
        }
        Ok(shape)
    }
}
