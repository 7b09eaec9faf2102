//! The loa-evolve run dashboard: one web page and its JSON, for a running master or a run
//! directory, over HTTP (axum on a small tokio runtime of its own).
//!
//! - [`model`]: what the page shows, as JSON shapes ([`Status`], [`EpochSummary`], ...).
//! - [`Provider`]: where the data comes from. The master implements it over its live state
//!   (`loa_master::dashboard`); [`RunDirProvider`] over a run directory's files (read-only, for
//!   a finished run or one another process is writing).
//! - [`server`]: the routes (`/`, `/api/status`, `/api/epochs`, `/api/chart.svg`,
//!   `/api/validation`, `/api/validation.svg`), the token check and [`serve`], which runs them on
//!   a background thread until [`Server::shutdown`].
//! - [`validation`]: the chart of held-out validation against the run's time.
//!
//! Everything is read-only: no route changes a run. Bad requests get an HTTP status (401, 404,
//! 405, 400, 414), never a panic.

#![warn(missing_docs)]

pub mod model;
pub mod rundir;
pub mod server;
pub mod validation;

pub use model::{Counts, EpochSummary, GenerationRate, ProgressInfo, RunInfo, Status, StepInfo, TaskRate, WorkerRow};
pub use rundir::RunDirProvider;
pub use server::{MAX_QUERY_BYTES, Server, serve};

use loa_records::{EpochReport, ValidationRecord};
use std::path::Path;
use std::sync::Arc;

/// Most throughput samples a provider keeps (older ones are dropped).
pub const HISTORY: usize = 600;

/// Where the dashboard's data comes from. Called from the server's blocking threads, at request
/// time; an implementation should hold its locks briefly.
pub trait Provider: Send + Sync + 'static {
    /// The run's state now.
    fn status(&self) -> Status;
    /// Every epoch report so far, as in `epochs.jsonl` (epoch 0 first).
    fn epochs(&self) -> Vec<Arc<EpochReport>>;
    /// Every held-out validation line so far, as in `validation.jsonl` (none for a run without
    /// `[validation]`).
    fn validation(&self) -> Vec<Arc<ValidationRecord>>;
}

/// The number of slots in a worker's registered name, `"NAME (N slots, ADDR)"` (remote workers);
/// embedded workers (`embedded-I`) have one; `None` if the name does not say.
pub fn slots_from_name(name: &str) -> Option<u32> {
    if name.starts_with("embedded-") {
        return Some(1);
    }
    let open = name.rfind(" (")?;
    let rest = &name[open + 2..];
    let (count, tail) = rest.split_once(' ')?;
    if tail.starts_with("slot") { count.parse().ok() } else { None }
}

/// The name the page shows for the run in `dir`: its directory's name (of the absolute path, so
/// that `.` has one), else the path as given.
pub fn run_name(dir: &Path) -> String {
    dir.canonicalize()
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| dir.display().to_string())
}

/// The fewest characters a token may have on an address reachable from other hosts.
pub const MIN_PUBLIC_TOKEN: usize = 16;

/// Refuses a token that is empty or whitespace (it would let anyone in: the slip `--token
/// "$UNSET"`), holds anything but printable ASCII (or a space at either end), or, when `public`
/// (served beyond loopback), is shorter than [`MIN_PUBLIC_TOKEN`]. The rule of
/// `loa_proto::check_token`, which this crate does not depend on; says what is wrong, for the
/// flag's name to go before it.
pub fn check_token(token: &str, public: bool) -> Result<(), String> {
    if token.trim().is_empty() {
        return Err("is empty: an empty token would let anyone in (is a variable unset?)".into());
    }
    if !token.bytes().all(|b| b == b' ' || b.is_ascii_graphic()) || token.trim() != token {
        return Err("must be printable ASCII, without spaces at either end".into());
    }
    if public && token.len() < MIN_PUBLIC_TOKEN {
        return Err(format!(
            "has {} characters: a port reachable from other hosts needs at least {MIN_PUBLIC_TOKEN}",
            token.len()
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{check_token, slots_from_name};

    #[test]
    fn blank_and_short_public_tokens_are_refused() {
        for bad in ["", " ", "\t", " a", "a\tb"] {
            assert!(check_token(bad, false).is_err(), "{bad:?}");
        }
        assert!(check_token("short", true).is_err());
        assert!(check_token("short", false).is_ok());
        assert!(check_token("s3cret token", false).is_ok(), "a space inside");
        assert!(check_token("0123456789abcdef", true).is_ok());
    }

    #[test]
    fn slots_are_read_from_names() {
        assert_eq!(slots_from_name("node7 (4 slots, 10.0.0.7:41234)"), Some(4));
        assert_eq!(slots_from_name("a (1 slot, 127.0.0.1:1)"), Some(1));
        assert_eq!(slots_from_name("embedded-3"), Some(1));
        assert_eq!(slots_from_name("weird (x slots"), None);
        assert_eq!(slots_from_name("plain"), None);
    }
}
