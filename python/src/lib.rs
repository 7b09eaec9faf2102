//! `loa_evolve._native`: the Python extension over the loa-evolve crates. A thin layer: every
//! type wraps the library's own, every long call releases the GIL, and every refusal is a
//! `ValueError` carrying the library error's words. Nothing here panics across the boundary:
//! PyO3 turns a panic into a `PanicException`, but no path below is meant to reach one.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

mod args;
mod evaluator;
mod matches;
mod network;
mod player;
mod position;

/// The ValueError of a refusal, in the Rust error's words.
pub(crate) fn value_error(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// The native half of loa_evolve: the engine, the players and the fitness evaluator.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<position::Position>()?;
    m.add_class::<position::GameEnd>()?;
    m.add_class::<player::Player>()?;
    m.add_class::<player::Best>()?;
    m.add_class::<network::Network>()?;
    m.add_class::<evaluator::Evaluator>()?;
    m.add_function(wrap_pyfunction!(network::weight_count, m)?)?;
    m.add_function(wrap_pyfunction!(matches::play_match, m)?)?;
    m.add("START_TEXT", loa_engine::START_TEXT)?;
    m.add("PLAYER_FORMS", loa_engine::spec::Accepts::Playable.forms())?;
    Ok(())
}
