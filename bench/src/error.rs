//! What can go wrong in a benchmark, each naming what is wrong.

use std::path::PathBuf;

/// Why a benchmark could not run, or could not be trusted.
#[derive(Debug)]
pub enum BenchError {
    /// A flag's value is out of range or does not fit the other flags.
    Flag {
        /// The flag, e.g. `--steps`.
        flag: &'static str,
        /// What is wrong with it.
        problem: String,
    },
    /// The engine refused a task or a network of the workload.
    Engine(String),
    /// The master's service could not start.
    Serve(std::io::Error),
    /// A program could not be started or waited for.
    Spawn {
        /// The program.
        program: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The kernel refused to pin threads to CPUs (`--pin`).
    Pin(&'static str),
    /// A call of the stub workers to the master, or to each other, failed.
    Rpc {
        /// What the stub was doing.
        during: &'static str,
        /// The call's status.
        status: tonic::Status,
    },
    /// The stub workers could not connect to the master.
    Connect(tonic::transport::Error),
    /// The stub process failed or reported nothing usable.
    Stubs(String),
    /// The master did not take every task's outcome.
    Incomplete {
        /// Outcomes the master accepted.
        accepted: u64,
        /// Tasks handed out.
        tasks: usize,
        /// Outcomes the stubs sent.
        sent: u64,
    },
    /// The fault proxy could not start.
    Proxy(crate::faultproxy::ProxyError),
    /// A build compared side by side failed, or printed no figures.
    Build {
        /// The build's binary.
        binary: PathBuf,
        /// What went wrong.
        problem: String,
    },
}

impl std::fmt::Display for BenchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BenchError::Flag { flag, problem } => write!(f, "{flag}: {problem}"),
            BenchError::Engine(e) => write!(f, "the workload: {e}"),
            BenchError::Serve(e) => write!(f, "the master's service could not start: {e}"),
            BenchError::Spawn { program, source } => write!(f, "cannot run {}: {source}", program.display()),
            BenchError::Pin(what) => write!(f, "--pin: the kernel refused to pin {what}"),
            BenchError::Rpc { during, status } => {
                write!(f, "a stub worker {during}: {} ({:?})", status.message(), status.code())
            }
            BenchError::Connect(e) => write!(f, "the stub workers cannot connect to the master: {e}"),
            BenchError::Stubs(why) => write!(f, "the stub workers failed: {why}"),
            BenchError::Incomplete { accepted, tasks, sent } => {
                write!(f, "dispatched {accepted} of {tasks} tasks ({sent} outcomes from the stubs)")
            }
            BenchError::Proxy(e) => write!(f, "{e}"),
            BenchError::Build { binary, problem } => write!(f, "{}: {problem}", binary.display()),
        }
    }
}

impl std::error::Error for BenchError {}

impl From<crate::faultproxy::ProxyError> for BenchError {
    fn from(e: crate::faultproxy::ProxyError) -> BenchError {
        BenchError::Proxy(e)
    }
}

impl BenchError {
    /// A flag error.
    pub(crate) fn flag(flag: &'static str, problem: impl Into<String>) -> BenchError {
        BenchError::Flag { flag, problem: problem.into() }
    }

    /// A failed call of a stub, `during` what.
    pub(crate) fn rpc(during: &'static str) -> impl FnOnce(tonic::Status) -> BenchError {
        move |status| BenchError::Rpc { during, status }
    }
}
