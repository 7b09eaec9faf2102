//! Arguments as Python gives them: a board as `"8x8"` or `8`, a start by name.

use crate::value_error;
use loa_engine::{BoardSize, Start};
use pyo3::prelude::*;

/// A board size from `"8x8"`, `"8"` or `8`, as `loa`'s `--board` takes it.
pub(crate) fn board(value: &Bound<'_, PyAny>) -> PyResult<BoardSize> {
    let text = match value.extract::<i64>() {
        Ok(n) => n.to_string(),
        Err(_) => value.extract::<String>().map_err(|_| value_error("board: give a size such as \"8x8\" or 8"))?,
    };
    text.parse::<BoardSize>().map_err(value_error)
}

/// A start by name (`standard`, `scrambled-eggs`), as `loa`'s `--start` takes it.
pub(crate) fn start(text: &str) -> PyResult<Start> {
    text.parse::<Start>().map_err(value_error)
}

/// Worker threads: as given (at least 1), or every core as `loa match` uses without `--threads`.
pub(crate) fn threads(threads: Option<usize>) -> PyResult<usize> {
    match threads {
        Some(0) => Err(value_error("threads must be at least 1, not 0")),
        Some(n) => Ok(n),
        None => Ok(std::thread::available_parallelism().map_or(1, |n| n.get())),
    }
}
