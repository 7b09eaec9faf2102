//! How to run a worker: the library's options and the `worker` binary's flags, one and the same.

use crate::WorkerError;
use std::time::Duration;

/// The most player threads a worker runs: more than any machine's cores, and a bound on the
/// threads a mistyped `--slots` would start.
pub const MAX_SLOTS: usize = 1024;

/// How to run a worker.
#[derive(Clone, Debug, clap::Args)]
pub struct WorkerOptions {
    /// The master's URL, e.g. http://node001:50051.
    #[arg(long)]
    pub master: String,
    /// Player threads, 1 to 1024 (default: one per core).
    #[arg(long, default_value_t = default_slots(), hide_default_value = true)]
    pub slots: usize,
    /// Shared token (default: the LOA_TOKEN environment variable, if set).
    #[arg(long, env = "LOA_TOKEN", hide_env_values = true)]
    pub token: Option<String>,
    /// The CA certificate (PEM) that signed the master's TLS certificate, for https:// URLs (the
    /// flag gives its file).
    #[arg(long, value_name = "FILE", value_parser = read_file)]
    pub tls_ca: Option<std::vec::Vec<u8>>,
    /// Name shown by the master (default: host:pid).
    #[arg(long, default_value_t = default_name(), hide_default_value = true)]
    pub name: String,
    /// Longest pause between attempts to reach an absent master.
    #[arg(skip = Duration::from_secs(5))]
    pub max_backoff: Duration,
    /// Exit once the master has not answered for this long (the flag: in seconds; default: wait
    /// forever).
    #[arg(long, value_name = "SECONDS", value_parser = seconds)]
    pub give_up_after: Option<Duration>,
    /// Chromosomes to keep between tasks (about 8 KiB each), so the master can send a network's
    /// id instead of its weights; the least recently used goes first. 0 keeps none.
    #[arg(long, default_value_t = loa_proto::cache::DEFAULT_CAPACITY)]
    pub chromosome_cache: usize,
    /// Outcomes to deliver together in one message, 1 to 64, for masters serving thousands of
    /// workers (the worker holds as many tasks more); an outcome waits at most until no
    /// unstarted task is left. 1 delivers each as it finishes.
    #[arg(long, default_value_t = 1)]
    pub batch: usize,
    /// Serve the chromosomes this worker holds to the master's other workers on this address,
    /// e.g. 0.0.0.0:50052 (port 0: any free port), so new networks travel as their origins and
    /// their parents come from peers instead of the master (for large clusters).
    #[arg(long, value_name = "ADDR:PORT")]
    pub peer_listen: Option<std::net::SocketAddr>,
    /// The host other workers reach this worker's peer service at (default: the address the
    /// master sees this worker connect from).
    #[arg(long, requires = "peer_listen")]
    pub peer_host: Option<String>,
}

impl WorkerOptions {
    /// Options for joining `master` with the flags' defaults (the token's too: none, whatever
    /// `LOA_TOKEN` holds), read from the flags themselves so that the two cannot differ.
    pub fn new(master: impl Into<String>) -> Result<WorkerOptions, WorkerError> {
        use clap::{Args, FromArgMatches};
        let command = WorkerOptions::augment_args(clap::Command::new("worker")).mut_arg("token", |a| a.env(None));
        let flags = command.try_get_matches_from(["worker".to_owned(), format!("--master={}", master.into())]);
        flags.and_then(|f| WorkerOptions::from_arg_matches(&f)).map_err(|e| WorkerError::Options(e.to_string()))
    }

    /// Refuses options no worker can run with, naming the flag and its allowed values.
    pub fn check(&self) -> Result<(), WorkerError> {
        let bounded = [("--slots", self.slots, MAX_SLOTS), ("--batch", self.batch, loa_proto::MAX_TASKS_PER_MESSAGE)];
        for (flag, value, most) in bounded {
            if !(1..=most).contains(&value) {
                return Err(WorkerError::Options(format!("{flag} must be in 1..={most}, got {value}")));
            }
        }
        if let Some(token) = &self.token {
            loa_proto::check_token(token, false).map_err(|e| WorkerError::Options(format!("--token {e}")))?;
        }
        if let Some(host) = &self.peer_host {
            // Checked as the master will, so a typo stops the worker at once, saying why.
            loa_proto::convert::check_peer_address("--peer-host", &format!("{host}:1"))
                .map_err(|e| WorkerError::Options(format!("--peer-host {host:?}: {}", e.problem)))?;
            if self.peer_listen.is_none() {
                return Err(WorkerError::Options("--peer-host needs --peer-listen".into()));
            }
        }
        Ok(())
    }
}

/// One slot per core.
fn default_slots() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The host's name and this process's id.
fn default_name() -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_owned())
        .or_else(|_| std::env::var("HOSTNAME"))
        .unwrap_or_else(|_| "worker".to_owned());
    format!("{host}:{}", std::process::id())
}

fn read_file(path: &str) -> Result<Vec<u8>, String> {
    std::fs::read(path).map_err(|e| format!("{path}: {e}"))
}

fn seconds(s: &str) -> Result<Duration, String> {
    s.parse().map(Duration::from_secs).map_err(|e| format!("{s:?} is not a number of seconds: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Flags {
        #[command(flatten)]
        options: WorkerOptions,
    }

    fn parse(args: &[&str]) -> Result<WorkerOptions, String> {
        Flags::try_parse_from([&["worker"], args].concat()).map(|f| f.options).map_err(|e| e.to_string())
    }

    #[test]
    fn the_flags_defaults_are_those_of_new_and_each_flag_sets_its_option() {
        let (flags, new) = (parse(&["--master", "http://m:1"]).unwrap(), WorkerOptions::new("http://m:1").unwrap());
        assert_eq!((&flags.master, flags.slots, &flags.name), (&new.master, new.slots, &new.name));
        assert_eq!((flags.max_backoff, flags.give_up_after, &flags.tls_ca), (new.max_backoff, None, &None));
        assert_eq!((flags.chromosome_cache, flags.batch), (new.chromosome_cache, new.batch));
        assert_eq!((flags.peer_listen, &flags.peer_host), (None, &None));
        // Whatever the environment holds, `new` takes no token from it.
        assert_eq!(new.token, None);
        let pem = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(pem.path(), b"PEM").unwrap();
        let pem = pem.path().to_str().unwrap();
        let o = parse(&[
            "--master",
            "https://m:1",
            "--slots",
            "3",
            "--token",
            "t",
            "--tls-ca",
            pem,
            "--name",
            "w",
            "--give-up-after",
            "7",
            "--chromosome-cache",
            "0",
            "--batch",
            "64",
            "--peer-listen",
            "0.0.0.0:0",
            "--peer-host",
            "h",
        ])
        .unwrap();
        assert_eq!(
            (o.slots, o.token.as_deref(), o.tls_ca.as_deref(), o.name.as_str()),
            (3, Some("t"), Some(&b"PEM"[..]), "w")
        );
        assert_eq!((o.give_up_after, o.chromosome_cache, o.batch), (Some(Duration::from_secs(7)), 0, 64));
        assert_eq!((o.peer_listen, o.peer_host.as_deref()), (Some("0.0.0.0:0".parse().unwrap()), Some("h")));
    }

    #[test]
    fn blank_tokens_are_refused() {
        for blank in ["", " ", "\t"] {
            let o = parse(&["--master", "http://m:1", "--token", blank]).unwrap();
            let e = o.check().unwrap_err().to_string();
            assert!(e.contains("--token") && e.contains("empty"), "{blank:?}: {e}");
        }
        assert!(parse(&["--master", "http://m:1", "--token", "t"]).unwrap().check().is_ok());
    }

    #[test]
    fn bad_flags_are_refused_naming_the_flag() {
        let e = parse(&["--master", "https://m:1", "--tls-ca", "/no/such/ca.pem"]).unwrap_err();
        assert!(e.contains("--tls-ca") && e.contains("/no/such/ca.pem"), "{e}");
        let e = parse(&["--master", "http://m:1", "--give-up-after", "soon"]).unwrap_err();
        assert!(e.contains("--give-up-after") && e.contains("seconds"), "{e}");
        let e = parse(&["--master", "http://m:1", "--peer-host", "h"]).unwrap_err();
        assert!(e.contains("--peer-listen"), "{e}");
    }
}
