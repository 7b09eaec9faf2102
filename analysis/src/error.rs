//! Everything that can go wrong, as one type that prints as one line naming the file (and the
//! line, where there is one).

use loa_records::RecordError;
use std::path::PathBuf;

/// Why an analysis could not be made.
#[derive(Debug)]
pub enum AnalysisError {
    /// A records file could not be read or has a bad line (names file and line).
    Records(RecordError),
    /// A run directory that does not exist or is not a directory.
    NoRun(PathBuf),
    /// A match series file that does not exist.
    NoMatchFile(PathBuf),
    /// A file with no complete record.
    Empty {
        /// The file.
        path: PathBuf,
        /// A cut-off last line that was all it held, if any.
        torn: Option<usize>,
    },
    /// A file whose records contradict each other (names file and line).
    Inconsistent {
        /// The file.
        path: PathBuf,
        /// The 1-based line.
        line: usize,
        /// What is wrong.
        why: String,
    },
    /// The run's `config.toml` is not valid TOML.
    Config {
        /// The file.
        path: PathBuf,
        /// The 1-based line of the error.
        line: usize,
        /// The parser's message.
        why: String,
    },
    /// The output directory is inside a run directory (analysis never writes into a run).
    OutputInsideRun {
        /// The output directory asked for.
        out: PathBuf,
        /// The run directory.
        run: PathBuf,
    },
    /// A file could not be written or a directory made.
    Write(PathBuf, std::io::Error),
    /// A chart could not be drawn.
    Chart(PathBuf, String),
    /// Arguments that do not make sense together.
    Usage(String),
    /// Runs to compare that were benchmarked against different reference players.
    MixedReferences(Vec<(PathBuf, String)>),
    /// A run without `validation.jsonl` (it has no `[validation]` section, or has not validated
    /// yet).
    NoValidation(PathBuf),
    /// Epochs asked for that the run did not record.
    EpochsNotRecorded {
        /// The run directory.
        run: PathBuf,
        /// The epochs asked for and not recorded.
        missing: Vec<u32>,
        /// The first and last epochs recorded.
        recorded: (u32, u32),
    },
}

impl std::fmt::Display for AnalysisError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AnalysisError::Records(e) => write!(f, "{e}"),
            AnalysisError::NoRun(p) => write!(f, "{}: no such run directory", p.display()),
            AnalysisError::NoMatchFile(p) => write!(
                f,
                "{path}: no such file: a match series is the file `loa match --out` writes, e.g. `loa match --black \
                 random:3 --white aloa:3 --games 200 --opening-plies 4 --out {path}`",
                path = p.display()
            ),
            AnalysisError::Empty { path, torn: None } => write!(f, "{}: empty: no records", path.display()),
            AnalysisError::Empty { path, torn: Some(line) } => {
                write!(f, "{}:{line}: no complete record (only a cut-off line)", path.display())
            }
            AnalysisError::Inconsistent { path, line, why } => write!(f, "{}:{line}: {why}", path.display()),
            AnalysisError::Config { path, line, why } => write!(f, "{}:{line}: bad TOML: {why}", path.display()),
            AnalysisError::OutputInsideRun { out, run } => write!(
                f,
                "--out {} is inside the run directory {}: analysis never writes into a run",
                out.display(),
                run.display()
            ),
            AnalysisError::Write(p, e) => write!(f, "{}: {e}", p.display()),
            AnalysisError::Chart(p, why) => write!(f, "{}: cannot draw the chart: {why}", p.display()),
            AnalysisError::Usage(why) => write!(f, "{why}"),
            AnalysisError::NoValidation(run) => write!(
                f,
                "{}: no validation.jsonl: a run validates only with a [validation] section in its configuration \
                 (docs/config.md), from its first benchmark on; leave this run out",
                run.display()
            ),
            AnalysisError::MixedReferences(runs) => {
                let each: Vec<String> = runs.iter().map(|(dir, r)| format!("{} against {r}", dir.display())).collect();
                write!(
                    f,
                    "the runs were benchmarked against different reference players ({}), so their scores are on \
                     different scales: compare runs with the same reference, or give --mixed-references to chart \
                     them together anyway",
                    each.join(", ")
                )
            }
            AnalysisError::EpochsNotRecorded { run, missing, recorded: (first, last) } => {
                let missing: Vec<String> = missing.iter().map(u32::to_string).collect();
                write!(
                    f,
                    "--epochs: {} has no epoch {} (it records epochs {first} to {last}): choose epochs in that range",
                    run.display(),
                    missing.join(", ")
                )
            }
        }
    }
}

impl std::error::Error for AnalysisError {}

impl From<RecordError> for AnalysisError {
    fn from(e: RecordError) -> AnalysisError {
        AnalysisError::Records(e)
    }
}

/// A result of this crate.
pub type Result<T> = std::result::Result<T, AnalysisError>;
