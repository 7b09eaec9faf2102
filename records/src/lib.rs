//! What a loa-evolve run writes, readable without the rest of loa-evolve (serde only).
//!
//! - [`game`]: games and two-game matches as records ([`GameSummary`], [`MatchSummary`]).
//! - [`run`]: the lines of `generations.jsonl` and `epochs.jsonl` ([`GenerationRecord`],
//!   [`EpochReport`]).
//! - [`figures`]: what a method reports about each generation ([`Figures`]), by name, in its
//!   own order.
//! - [`mod@matches`]: the lines of a `loa match --out` file ([`MatchLine`]: one per game, then the
//!   series' totals).
//! - [`validation`]: the lines of `validation.jsonl` ([`ValidationRecord`]), and
//!   [`interval`], the Wilson interval they carry.
//! - [`dir`]: the layout of a run directory ([`RunDir`]).
//! - [`jsonl`]: JSON-lines files: appending, reading (a torn last line is reported, not fatal),
//!   cutting back after a resume, atomic writes; every line carries [`FORMAT_VERSION`].
//!
//! The record types mirror the engine's (same JSON shapes), so that the files are a stable
//! schema of their own: a reader needs this crate, not the engine.

#![warn(missing_docs)]

pub mod dir;
pub mod figures;
pub mod game;
pub mod interval;
pub mod jsonl;
pub mod matches;
pub mod run;
pub mod validation;

pub use dir::RunDir;
pub use figures::{Figure, Figures};
pub use game::{Color, Criterion, EndReason, GameSummary, MatchSide, MatchSummary, Outcome};
pub use jsonl::{FORMAT_VERSION, JsonLines, RecordError};
pub use matches::{MatchGameRecord, MatchLine, MatchSeriesSummary, MatchSideSummary};
pub use run::{BenchmarkEntry, EpochReport, GenerationRecord, TournamentRecord, WorkerRecord};
pub use validation::{VALIDATION_TIMING, ValidationRecord};
