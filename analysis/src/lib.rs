//! Analysis of loa-evolve runs and `loa match` series: the thesis's charts (pLoGANN, Figures
//! 15-19) and tables (Tables 1-8), for one run or several side by side, with honest statistics.
//!
//! Reading:
//! - [`run`]: a run directory ([`Run`]: `config.toml`, `epochs.jsonl`, `generations.jsonl`),
//!   also while it is still being written.
//! - [`config`]: the few configuration fields used ([`RunConfig`]).
//! - [`mod@matches`]: a `loa match --out` file ([`MatchSeries`]).
//! - [`validation`]: a run's `validation.jsonl` ([`validation::ValidationRun`]).
//!
//! Numbers:
//! - [`stats`]: mean, median, sample standard deviation, centred smoothing, least-squares trend,
//!   Wilson interval, Welch's t-test, Student's t.
//! - [`scores`]: scores and results by colour and by match ([`ScoreSets`], [`Outcomes`]).
//!
//! Output:
//! - [`charts`]: line charts as PNG and SVG with an embedded font; [`figures`]: the thesis's
//!   figures as charts; [`tables`]: the thesis's tables as Markdown.
//! - [`plot`], [`report`], [`compare`], [`validation`], [`noise`]: what the `analysis` subcommands write;
//!   [`output`]: where (never inside a run directory).
//! - [`export`]: a run's metrics as flat CSV files (`analysis export`).
//! - [`error`]: every failure as one line naming the file and line ([`AnalysisError`]).

#![warn(missing_docs)]

pub mod charts;
pub mod compare;
pub mod config;
pub mod error;
pub mod export;
pub mod figures;
pub mod matches;
pub mod noise;
pub mod output;
pub mod plot;
pub mod report;
pub mod run;
pub mod scores;
pub mod stats;
pub mod tables;
pub mod validation;

pub use config::RunConfig;
pub use error::{AnalysisError, Result};
pub use matches::MatchSeries;
pub use run::Run;
pub use scores::{Column, EpochStatistic, Outcomes, ScoreKind, ScoreSets};
