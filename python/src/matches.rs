//! `play_match`: a series as `loa match` plays it, through `loa match`'s own code, so the
//! records are the same bytes as `loa match --out` writes.

use crate::value_error;
use loa_cli::match_file::{match_lines, write_match_file};
use loa_cli::matches::{MatchError, check_flags};
use loa_cli::series::{PairPlayers, SeriesConfig, play_series_until};
use loa_engine::Rules;
use loa_engine::spec::{Accepts, PlayerSpec};
use loa_records::jsonl;
use pyo3::exceptions::PyKeyboardInterrupt;
use pyo3::prelude::*;
use std::path::PathBuf;
use std::sync::Arc;

/// Plays ``games`` games (even: two-game matches) between the players ``black`` and ``white``
/// name (``black`` has Black in the first game of every pair), each pair from the start or a
/// random opening of ``opening_plies`` plies seeded by ``seed``, on ``threads`` threads (every
/// core if None; the games do not depend on it). Returns the JSON lines ``loa match --out``
/// writes for the same arguments, one per game then the totals; writes them to ``out`` too if
/// given. Releases the GIL while playing; Ctrl-C stops it (the games in hand are finished) and
/// raises KeyboardInterrupt. ``loa_evolve.play_match`` wraps this.
#[pyfunction]
#[pyo3(signature = (black, white, *, games = 2, seed = 0, opening_plies = 0, board = None, start = "standard", threads = None, out = None))]
#[allow(clippy::too_many_arguments)]
pub fn play_match(
    py: Python<'_>,
    black: &str,
    white: &str,
    games: u32,
    seed: u64,
    opening_plies: u32,
    board: Option<&Bound<'_, PyAny>>,
    start: &str,
    threads: Option<usize>,
    out: Option<PathBuf>,
) -> PyResult<String> {
    let size = board.map_or(Ok(loa_engine::BoardSize::STANDARD), crate::args::board)?;
    let start = crate::args::start(start)?.position(size).map_err(value_error)?;
    check_flags(games, opening_plies, size, out.as_deref()).map_err(value_error)?;
    let threads = crate::args::threads(threads)?;
    let config = SeriesConfig { games, seed, threads, start, opening_plies, rules: Rules::default() };
    // As `loa match` prepares them, with its words for a bad spec.
    let player = |flag: &'static str, text: &str| {
        let prepared = PlayerSpec::parse_in(text, Accepts::Playable).and_then(|s| Ok((s.prepare_on(size)?, s)));
        prepared.map_err(|source| value_error(MatchError::Player { flag, source }))
    };
    let ((pa, a), (pb, b)) = (player("--black", black)?, player("--white", white)?);
    let (first, second) = (a.to_string(), b.to_string());
    let played = py.detach(|| {
        let players = |seed: u64| -> PairPlayers {
            let (x, y) = (pa.for_match(seed), pb.for_match(seed));
            (x as Arc<dyn loa_engine::game::Player + Send>, y as Arc<dyn loa_engine::game::Player + Send>)
        };
        // About every 100 ms: Ctrl-C is seen by Python's handler, which only Python code reads.
        let mut interrupt = None;
        let mut stop = || match Python::attach(|py| py.check_signals()) {
            Ok(()) => false,
            Err(e) => {
                interrupt = Some(e);
                true
            }
        };
        let Some(report) = play_series_until(&config, &players, &|_| {}, &mut stop) else {
            return Err(Stopped(interrupt));
        };
        let written = match &out {
            Some(path) => write_match_file(path, &report, &first, &second, &config)
                .map_err(|source| Stopped::error(MatchError::Write { path: path.clone(), source })),
            None => Ok(()),
        };
        written.and_then(|()| {
            let mut text = String::new();
            for line in match_lines(&report, &first, &second, &config) {
                text.push_str(&jsonl::line(&line).map_err(Stopped::error)?);
                text.push('\n');
            }
            Ok(text)
        })
    });
    played.map_err(|Stopped(why)| why.unwrap_or_else(|| PyKeyboardInterrupt::new_err("the match was stopped")))
}

/// Why a series gave no lines: Ctrl-C (its exception) or an error (as a `ValueError`).
struct Stopped(Option<PyErr>);

impl Stopped {
    fn error(e: impl std::fmt::Display) -> Stopped {
        Stopped(Some(value_error(e)))
    }
}
