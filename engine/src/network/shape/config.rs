//! A shape in serde: written as its name, read from its name or from a `[network]` table.
//!
//! ```toml
//! [network]
//! board_side = 5            # 5 to 8; default 8
//! inputs = ["board"]        # any of board, nonad, pieces, quads, euler; default ["board", "nonad"]
//! encoding = "spec"         # or "printed"; default "spec"
//! hidden = [12]             # 1 to 3 layers of 1 to 64 units; default [20]
//! ```

use super::{Encoding, Inputs, Topology};
use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use std::fmt;

/// One entry of a `[network]` table's `inputs`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Input {
    Board,
    Nonad,
    Pieces,
    Quads,
    Euler,
}

/// A `[network]` table as written; every field defaults to the thesis's shape.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Table {
    #[serde(default = "default_side")]
    board_side: u64,
    #[serde(default = "default_inputs")]
    inputs: Vec<Input>,
    #[serde(default)]
    encoding: Encoding,
    #[serde(default = "default_hidden")]
    hidden: Vec<usize>,
}

fn default_side() -> u64 {
    Topology::THESIS.side().into()
}

fn default_inputs() -> Vec<Input> {
    vec![Input::Board, Input::Nonad]
}

fn default_hidden() -> Vec<usize> {
    Topology::THESIS.hidden().collect()
}

impl Table {
    fn shape(&self) -> Result<Topology, super::ShapeError> {
        let side = u8::try_from(self.board_side).map_err(|_| super::ShapeError::BoardSide { side: self.board_side })?;
        let has = |input| self.inputs.contains(&input);
        let inputs = Inputs {
            board: has(Input::Board),
            nonads: has(Input::Nonad),
            encoding: self.encoding,
            pieces: has(Input::Pieces),
            quads: has(Input::Quads),
            euler: has(Input::Euler),
        };
        Topology::new(side, inputs, &self.hidden)
    }
}

/// The shape's name, as chromosome files and tasks carry it.
impl Serialize for Topology {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// A name (`"5x5-board-25-12-1"`) or a table (`{board_side = 5, inputs = ["board"], hidden =
/// [12]}`), validated; errors name the field at fault.
impl<'de> Deserialize<'de> for Topology {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ShapeVisitor)
    }
}

struct ShapeVisitor;

impl<'de> Visitor<'de> for ShapeVisitor {
    type Value = Topology;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a network shape: a name like \"board-nonad-100-20-1\" or a table with board_side, inputs, encoding, hidden")
    }

    fn visit_str<E: de::Error>(self, name: &str) -> Result<Topology, E> {
        name.parse().map_err(E::custom)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Topology, A::Error> {
        let table = Table::deserialize(de::value::MapAccessDeserializer::new(map))?;
        table.shape().map_err(de::Error::custom)
    }
}
