//! Positions: the engine's `Position`, its moves, perft and the end of its game.

use crate::value_error;
use loa_engine::{EndReason, Outcome, Rules};
use pyo3::prelude::*;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

/// The most perft depth taken, as `loa perft` takes: the tree is walked a stack frame a ply.
const MAX_PERFT_DEPTH: u32 = 20;

/// A Lines of Action position on any board from 5x5 to 8x8: the pieces and the side to move.
///
/// ``Position()`` is the standard start on 8x8; ``Position("startpos", board="6x6")`` the start of
/// another board (``start="scrambled-eggs"`` on 8x8); otherwise ``text`` is position text, as
/// ``loa`` prints and takes it (ranks from the top separated by ``/``, ``b``/``w``/``.``, then the
/// side to move). Positions are immutable: ``play`` returns a new one.
#[pyclass(frozen, eq, module = "loa_evolve._native")]
#[derive(Clone, PartialEq)]
pub struct Position {
    pub(crate) inner: loa_engine::Position,
}

/// How a game ended: the outcome, why, and the engine's sentence for it (``str(end)``).
#[pyclass(frozen, get_all, module = "loa_evolve._native")]
pub struct GameEnd {
    /// ``"black"``, ``"white"`` or ``"draw"``.
    pub outcome: String,
    /// ``"connected"``, ``"both-connected"``, ``"no-moves"`` or ``"ply-cap"``.
    pub reason: String,
    text: String,
}

#[pymethods]
impl GameEnd {
    /// The winner's colour, or None for a draw.
    #[getter]
    fn winner(&self) -> Option<String> {
        (self.outcome != "draw").then(|| self.outcome.clone())
    }

    fn __str__(&self) -> String {
        self.text.clone()
    }

    fn __repr__(&self) -> String {
        format!("GameEnd(outcome={:?}, reason={:?})", self.outcome, self.reason)
    }
}

pub(crate) fn game_end(end: loa_engine::GameEnd) -> GameEnd {
    let outcome = match end.outcome {
        Outcome::Win(c) => c.to_string(),
        Outcome::Draw => "draw".to_owned(),
    };
    let reason = match end.reason {
        EndReason::Connected => "connected",
        EndReason::BothConnected => "both-connected",
        EndReason::NoMoves => "no-moves",
        EndReason::PlyCap => "ply-cap",
    };
    GameEnd { outcome, reason: reason.to_owned(), text: end.to_string() }
}

#[pymethods]
impl Position {
    #[new]
    #[pyo3(signature = (text = "startpos", *, board = None, start = None))]
    fn new(text: &str, board: Option<&Bound<'_, PyAny>>, start: Option<&str>) -> PyResult<Position> {
        if text.trim() == "startpos" {
            let size = board.map_or(Ok(loa_engine::BoardSize::STANDARD), crate::args::board)?;
            let start = crate::args::start(start.unwrap_or("standard"))?;
            return Ok(Position { inner: start.position(size).map_err(value_error)? });
        }
        if board.is_some() || start.is_some() {
            return Err(value_error("board and start go with \"startpos\": position text names its own board"));
        }
        let inner = text.parse::<loa_engine::Position>().map_err(value_error)?;
        Ok(Position { inner })
    }

    /// The legal moves in canonical order, as ``loa moves`` lists them (``"pass"`` never: a side
    /// without a move loses under the default rules).
    fn moves(&self) -> Vec<String> {
        self.inner.legal_moves().iter().map(|m| m.to_string()).collect()
    }

    /// The position after ``moves`` (one move text, or several in order), each checked as
    /// ``loa apply`` checks it: legal where it is played, and written as the board has it
    /// (``c8-c6`` to an empty square, ``d1xa4`` onto an enemy piece).
    fn play(&self, moves: &Bound<'_, PyAny>) -> PyResult<Position> {
        let list: Vec<String> = match moves.extract::<String>() {
            Ok(one) => vec![one],
            Err(_) => moves.extract().map_err(|_| value_error("moves: give a move text or a list of them"))?,
        };
        let inner = loa_cli::apply::apply_moves(self.inner, &list, &Rules::default()).map_err(value_error)?;
        Ok(Position { inner })
    }

    /// The leaves of the legal-move tree ``depth`` plies deep (0 to 20), as ``loa perft``
    /// counts them. Releases the GIL.
    fn perft(&self, py: Python<'_>, depth: u32) -> PyResult<u64> {
        check_perft_depth(depth)?;
        let pos = self.inner;
        Ok(py.detach(|| loa_engine::perft::perft(&pos, depth)))
    }

    /// The leaves below each root move, in canonical order, as ``loa perft --divide`` prints
    /// them. Releases the GIL.
    fn divide(&self, py: Python<'_>, depth: u32) -> PyResult<Vec<(String, u64)>> {
        check_perft_depth(depth)?;
        let pos = self.inner;
        let divided = py.detach(|| loa_engine::perft::divide(&pos, depth));
        Ok(divided.into_iter().map(|(m, n)| (m.to_string(), n)).collect())
    }

    /// How the game has ended in this position under the default rules, or None if it goes on.
    /// ``plies_played`` counts towards the ply cap (100 plies: a draw).
    #[pyo3(signature = (plies_played = 0))]
    fn game_end(&self, plies_played: u32) -> Option<GameEnd> {
        let rules = Rules::default();
        if let Some(end) = self.inner.game_end(&rules) {
            return Some(game_end(end));
        }
        (plies_played >= rules.ply_cap)
            .then_some(loa_engine::GameEnd { outcome: Outcome::Draw, reason: EndReason::PlyCap })
            .map(game_end)
    }

    /// Whether the game is over in this position (ply cap aside).
    #[getter]
    fn is_over(&self) -> bool {
        self.inner.game_end(&Rules::default()).is_some()
    }

    /// The side to move: ``"black"`` or ``"white"``.
    #[getter]
    fn side_to_move(&self) -> String {
        self.inner.side_to_move().to_string()
    }

    /// The board, e.g. ``"8x8"``.
    #[getter]
    fn board(&self) -> String {
        self.inner.size().to_string()
    }

    /// The board diagram, groups, quad counts and Euler numbers ``loa show`` prints.
    fn show(&self) -> String {
        loa_cli::describe::describe(&self.inner, &Rules::default())
    }

    /// The position text (what ``Position(text)`` reads back).
    fn __str__(&self) -> String {
        self.inner.to_string()
    }

    fn __repr__(&self) -> String {
        format!("Position({:?})", self.inner.to_string())
    }

    fn __hash__(&self) -> u64 {
        let mut h = DefaultHasher::new();
        self.inner.hash(&mut h);
        h.finish()
    }
}

fn check_perft_depth(depth: u32) -> PyResult<()> {
    if depth > MAX_PERFT_DEPTH {
        return Err(value_error(format!("depth must be 0 to {MAX_PERFT_DEPTH}, not {depth}")));
    }
    Ok(())
}
