//! Players from the project's player specs, and their choice of move.

use crate::network::Network;
use crate::position::Position;
use crate::value_error;
use loa_engine::players::{MAX_DEPTH, PlayerDebug, ShapedPlayer};
use loa_engine::spec::{Accepts, PlayerSpec, PreparedPlayer};
use loa_engine::{BoardSize, Rules};
use pyo3::prelude::*;
use std::sync::Arc;

/// A player from a player spec, as ``loa`` takes it: ``aloa:D``, ``aloa-normal:D``,
/// ``random:D[:SALT]``, ``randomann:D[:SEED]``, ``randomann-printed:D[:SEED]`` or ``net:D:FILE``
/// (``PLAYER_FORMS`` lists them), built for games on ``board``. A network file is read once, here.
#[pyclass(frozen, module = "loa_evolve._native")]
pub struct Player {
    prepared: PreparedPlayer,
    spec: String,
    size: BoardSize,
}

/// A player's choice in a position: the move (None if the side to move has none and so loses),
/// its value for the side to move, and the positions searched.
#[pyclass(frozen, get_all, module = "loa_evolve._native")]
pub struct Best {
    /// The move text, or None.
    #[pyo3(name = "move")]
    pub mv: Option<String>,
    /// The search's value of the position for the side to move.
    pub value: f32,
    /// Positions visited, the root included.
    pub nodes: u64,
}

#[pymethods]
impl Best {
    fn __repr__(&self) -> String {
        format!("Best(move={:?}, value={}, nodes={})", self.mv, self.value, self.nodes)
    }
}

#[pymethods]
impl Player {
    #[new]
    #[pyo3(signature = (spec, *, board = None))]
    fn new(spec: &str, board: Option<&Bound<'_, PyAny>>) -> PyResult<Player> {
        let size = board.map_or(Ok(BoardSize::STANDARD), crate::args::board)?;
        let parsed = PlayerSpec::parse_in(spec, Accepts::Playable).map_err(value_error)?;
        let prepared = parsed.prepare_on(size).map_err(value_error)?;
        Ok(Player { prepared, spec: parsed.to_string(), size })
    }

    /// The player searching ``depth`` plies (1 to 12) with ``network``, on the board its shape reads.
    #[staticmethod]
    fn from_network(network: &Network, depth: u32) -> PyResult<Player> {
        if depth == 0 || depth > MAX_DEPTH {
            return Err(value_error(format!("depth must be 1 to {MAX_DEPTH}, not {depth}")));
        }
        let chromosome = &network.chromosome;
        let size = BoardSize::new(chromosome.topology().side()).map_err(value_error)?;
        let player: Arc<dyn PlayerDebug> = Arc::new(ShapedPlayer::new(chromosome, depth));
        let spec = format!("net:{depth}:<{}>", chromosome.topology());
        Ok(Player { prepared: PreparedPlayer::Fixed(player), spec, size })
    }

    /// The move this player chooses in ``position`` (a game not over), ``plies_played`` plies
    /// into a game with seed ``seed`` (the random heuristic's values and a fresh RandomANN's
    /// weights come from it), as ``loa best`` prints it. Releases the GIL while searching.
    #[pyo3(signature = (position, *, plies_played = 0, seed = 0))]
    fn best(&self, py: Python<'_>, position: &Position, plies_played: u32, seed: u64) -> PyResult<Best> {
        let pos = position.inner;
        if pos.size() != self.size {
            let why = format!("the player is for the {} board, the position is on {}", self.size, pos.size());
            return Err(value_error(why));
        }
        if let Some(end) = pos.game_end(&Rules::default()) {
            return Err(value_error(format!("the game is over in this position: {end}")));
        }
        let player = self.prepared.for_match(seed);
        let result = py.detach(|| player.choose(&pos, &Rules::default(), plies_played, seed));
        Ok(Best { mv: result.best.map(|m| m.to_string()), value: result.value, nodes: result.nodes })
    }

    /// The spec, as the engine writes it back.
    #[getter]
    fn spec(&self) -> &str {
        &self.spec
    }

    /// The board it plays on, e.g. ``"8x8"``.
    #[getter]
    fn board(&self) -> String {
        self.size.to_string()
    }

    fn __repr__(&self) -> String {
        format!("Player({:?}, board={:?})", self.spec, self.size.to_string())
    }
}
