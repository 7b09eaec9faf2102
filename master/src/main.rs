//! `master`: runs the genetic algorithm. Parses flags and calls the library.

use clap::{Args, CommandFactory, Parser, Subcommand};
use loa_master::cluster::{ClusterOptions, TlsIdentity};
use loa_master::config::ExperimentConfig;
use loa_master::experiment::{self, MatchExperiment};
use loa_master::run::clock::Budget;
#[cfg(feature = "dashboard")]
use loa_master::run::dashboard::DashboardOptions;
use loa_master::run::{
    Halt, Pick, RunError, RunOptions, RunSummary, WorkOptions, export, last_epoch, resume, show, start,
};
use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// mimalloc instead of glibc's malloc: the cluster service allocates and frees many small
/// protobuf messages on two threads that free each other's memory, which drains glibc's
/// per-thread caches.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's `mi_option_purge_delay`, its place in the `mi_option_e` enum of the v3 header
/// libmimalloc-sys 0.1 builds, which names no constant for it (checked by a test below).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// Keeps memory the master frees for its next use instead of returning it to the OS a second
/// later, so a step longer than that does not fault its working set in again.
fn keep_freed_memory() {
    // SAFETY: sets an option of the allocator, which mimalloc allows at any time.
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, -1) }
}

#[derive(Parser)]
#[command(name = "master", version, about = "loa-evolve master: evolves Lines of Action networks")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// Cluster mode: serve tasks to remote `worker` processes.
#[derive(Args)]
struct ClusterFlags {
    /// Serve remote workers on this address, e.g. 0.0.0.0:50051.
    #[arg(long)]
    listen: Option<SocketAddr>,
    /// Shared token workers must present (default: the LOA_TOKEN environment variable, if set).
    /// Required when listening on an address other than loopback.
    #[arg(long, requires = "listen")]
    token: Option<String>,
    /// Listen on a non-loopback address without a token: anyone who can reach the port can
    /// lease tasks and send outcomes.
    #[arg(long, requires = "listen", conflicts_with = "token")]
    insecure_no_token: bool,
    /// Seconds without a heartbeat after which a worker is dropped and its tasks leased again.
    #[arg(long, default_value_t = 30, requires = "listen", value_parser = clap::value_parser!(u64).range(1..=86_400))]
    lease_seconds: u64,
    /// Serve over TLS with this certificate chain (PEM); workers use https:// and --tls-ca.
    #[arg(long, requires_all = ["listen", "tls_key"])]
    tls_cert: Option<PathBuf>,
    /// The TLS private key (PEM) for --tls-cert.
    #[arg(long, requires = "tls_cert")]
    tls_key: Option<PathBuf>,
    /// Share of remote workers' outcomes played again by another worker (or the master) and
    /// compared: 0 to 1 (or a percentage), `all`, or 0 (off). A worker caught lying is
    /// quarantined and what it delivered since its last verified outcome is played again.
    #[arg(long, default_value = "0.03", requires = "listen", value_name = "RATE")]
    verify: loa_master::scheduler::VerifyRate,
    /// Share of the verifications the master plays itself instead of leasing a copy to another
    /// worker, so workers that lie alike are caught: 0 to 1 (or a percentage), `all`, or 0.
    #[arg(long, default_value = "0.1", requires = "listen", value_name = "SHARE")]
    verify_by_master: loa_master::scheduler::VerifyRate,
    /// Seconds a connection may take to make its first authenticated call before it is closed.
    #[arg(long, default_value_t = 10, requires = "listen", value_parser = clap::value_parser!(u64).range(1..=3_600))]
    handshake_seconds: u64,
    /// Seconds without a frame from a worker after which the master sends an HTTP/2 PING (0: never).
    #[arg(long, default_value_t = 20, requires = "listen", value_parser = clap::value_parser!(u64).range(0..=86_400))]
    keepalive_seconds: u64,
    /// Seconds a worker has to answer a PING before its connection is closed.
    #[arg(long, default_value_t = 20, requires = "listen", value_parser = clap::value_parser!(u64).range(1..=3_600))]
    keepalive_timeout_seconds: u64,
    /// Most connections open at once from one IP address (workers behind one NAT share one).
    #[arg(long, default_value_t = 256, requires = "listen", value_parser = clap::value_parser!(u64).range(1..))]
    max_connections_per_address: u64,
    /// Most connections open at once in all.
    #[arg(long, default_value_t = 16_384, requires = "listen", value_parser = clap::value_parser!(u64).range(1..))]
    max_connections: u64,
    /// Only workers with these names (their --name) may register, e.g. node1,node2. Names are
    /// what workers claim: this keeps out strangers by mistake, not a token holder.
    #[arg(long, requires = "listen", value_delimiter = ',', value_name = "NAME,...")]
    allow_workers: Option<Vec<String>>,
}

impl ClusterFlags {
    /// The token: `--token`, else LOA_TOKEN. Read only with `--listen`, so a LOA_TOKEN set for
    /// the workers on the same machine does not stop a run without `--listen`.
    /// An empty LOA_TOKEN counts as given, so that it is refused rather than taken for none.
    fn token(&self) -> Option<String> {
        self.listen?;
        self.token.clone().or_else(|| std::env::var("LOA_TOKEN").ok())
    }

    fn options(&self) -> Result<Option<ClusterOptions>, String> {
        let Some(listen) = self.listen else { return Ok(None) };
        let token = self.token();
        if token.is_some() && self.insecure_no_token {
            return Err("--insecure-no-token contradicts a token (--token or LOA_TOKEN)".into());
        }
        if let Some(token) = &token {
            let from = if self.token.is_some() { "--token" } else { "LOA_TOKEN" };
            loa_proto::check_token(token, !listen.ip().is_loopback()).map_err(|e| format!("{from} {e}"))?;
        }
        if token.is_none() && !listen.ip().is_loopback() && !self.insecure_no_token {
            return Err(format!(
                "--listen {listen} is reachable from other hosts: give workers a shared secret with --token \
                 (or LOA_TOKEN), or pass --insecure-no-token to accept any caller"
            ));
        }
        let mut options = ClusterOptions::new(listen, token);
        options.lease_time = std::time::Duration::from_secs(self.lease_seconds);
        options.verify = self.verify;
        options.verify_by_master = self.verify_by_master;
        let seconds = std::time::Duration::from_secs;
        options.connections = loa_proto::admit::ConnectionLimits {
            handshake: seconds(self.handshake_seconds),
            keepalive: (self.keepalive_seconds > 0).then(|| seconds(self.keepalive_seconds)),
            keepalive_timeout: seconds(self.keepalive_timeout_seconds),
            per_address: usize::try_from(self.max_connections_per_address).unwrap_or(usize::MAX),
            total: usize::try_from(self.max_connections).unwrap_or(usize::MAX),
        };
        if let Some(names) = &self.allow_workers {
            // A blank entry (`a,,b`, or the slip `--allow-workers "$UNSET"`) is no worker's name.
            if names.iter().any(|n| n.trim().is_empty()) {
                return Err(format!(
                    "--allow-workers {:?}: a blank name; give worker names, comma-separated",
                    names.join(",")
                ));
            }
            options.allowed_workers = Some(names.iter().cloned().collect());
        }
        if let (Some(cert), Some(key)) = (&self.tls_cert, &self.tls_key) {
            options.tls = Some(TlsIdentity::read(cert, key).map_err(|e| e.to_string())?);
        }
        Ok(Some(options))
    }
}

/// How the work gets done: embedded workers, display, cluster mode.
#[derive(Args)]
struct WorkFlags {
    /// Embedded worker threads (default: one per core; 0 with --listen).
    #[arg(long)]
    threads: Option<usize>,
    /// No progress output (bars on a terminal, else a line per generation or event); run.log
    /// has every event.
    #[arg(long)]
    quiet: bool,
    #[command(flatten)]
    cluster: ClusterFlags,
}

/// The live dashboard: a read-only web page of the run.
#[derive(Args)]
#[cfg_attr(not(feature = "dashboard"), allow(dead_code))]
struct DashboardFlags {
    /// Serve the run's dashboard (web page and JSON) on this address, e.g. 127.0.0.1:8080.
    #[arg(long)]
    dashboard: Option<SocketAddr>,
    /// Token the page asks for (default: LOA_DASHBOARD_TOKEN, else the cluster's --token).
    /// Required on an address other than loopback.
    #[arg(long, env = "LOA_DASHBOARD_TOKEN", hide_env_values = true)]
    dashboard_token: Option<String>,
    /// Serve the dashboard on a non-loopback address without a token: anyone who can reach
    /// the port sees the run's configuration, workers and results.
    #[arg(long, requires = "dashboard")]
    insecure_dashboard: bool,
    /// Keep serving the dashboard this many seconds after the run ends (Ctrl-C cuts it short).
    #[arg(long, default_value_t = 0, requires = "dashboard", value_parser = clap::value_parser!(u64).range(0..=86_400))]
    dashboard_linger: u64,
}

impl DashboardFlags {
    /// `options` with the dashboard the flags ask for.
    #[cfg(feature = "dashboard")]
    fn apply(&self, options: RunOptions, cluster_token: Option<&str>) -> Result<RunOptions, String> {
        let Some(listen) = self.dashboard else { return Ok(options) };
        let token = self.dashboard_token.clone().or_else(|| cluster_token.map(str::to_owned));
        if let Some(token) = &token {
            let from = if self.dashboard_token.is_some() { "--dashboard-token" } else { "--token" };
            loa_proto::check_token(token, !listen.ip().is_loopback()).map_err(|e| format!("{from} {e}"))?;
        }
        if token.is_none() && !listen.ip().is_loopback() && !self.insecure_dashboard {
            return Err(format!(
                "--dashboard {listen} is reachable from other hosts: set --dashboard-token (or --token), \
                 or pass --insecure-dashboard to show the run to anyone who can reach the port"
            ));
        }
        let linger = std::time::Duration::from_secs(self.dashboard_linger);
        let dashboard = DashboardOptions { listen, token, bound: Default::default(), linger };
        Ok(RunOptions { dashboard: Some(dashboard), ..options })
    }

    /// `options`, or an error if the flags ask for the dashboard this binary lacks.
    #[cfg(not(feature = "dashboard"))]
    fn apply(&self, options: RunOptions, _cluster_token: Option<&str>) -> Result<RunOptions, String> {
        let lacking = "--dashboard: this master was built without its `dashboard` feature; \
                       rebuild it with `cargo build --release -p loa-master` (default features)";
        self.dashboard.map_or(Ok(options), |_| Err(lacking.into()))
    }
}

/// A time budget for the session.
#[derive(Args)]
struct BudgetFlags {
    /// Stop cleanly, as Ctrl-C does (`master resume` continues bit-identically), at the end of
    /// the first epoch at which the run's wall-clock time reaches this budget: seconds, or with
    /// a unit (90m, 2h). Runs with [validation] count their time over all sessions (their
    /// checkpoints keep it), so the same budget on every resume bounds the whole run, and a run
    /// already past it stops at once; runs without [validation] count this session's time only.
    #[arg(long, value_name = "DURATION", value_parser = parse_budget)]
    stop_after: Option<f64>,
    /// The same for the CPU time of the master's process (user + system; embedded workers
    /// count, remote workers do not).
    #[arg(long, value_name = "DURATION", value_parser = parse_budget)]
    stop_after_cpu: Option<f64>,
}

fn parse_budget(text: &str) -> Result<f64, String> {
    Budget::parse_seconds(text).map_err(|e| e.to_string())
}

impl BudgetFlags {
    fn budget(&self) -> Budget {
        Budget { wall_seconds: self.stop_after, cpu_seconds: self.stop_after_cpu }
    }
}

#[derive(Subcommand)]
enum Command {
    /// Start a run from a configuration file.
    Run {
        /// Experiment configuration (TOML), e.g. experiments/quick.toml.
        #[arg(long)]
        config: PathBuf,
        /// Run directory to create (refused if it already holds a run).
        #[arg(long)]
        out: PathBuf,
        /// Replace a run directory that holds run files but no usable checkpoint (a run killed
        /// before its first checkpoint). A usable run is never replaced.
        #[arg(long)]
        force: bool,
        /// Keep only the N newest epoch checkpoints, deleting older ones as the run goes
        /// (default: keep every one; `master show` lists those kept).
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
        keep_checkpoints: Option<u32>,
        #[command(flatten)]
        budget: BudgetFlags,
        #[command(flatten)]
        work: WorkFlags,
        #[command(flatten)]
        dashboard: DashboardFlags,
    },
    /// Continue a run from its last generation or from a saved epoch.
    Resume {
        /// The run directory.
        dir: PathBuf,
        /// Resume from the end of this epoch instead of the last generation (what the run
        /// recorded after it is moved to checkpoints/abandoned-TIME/).
        #[arg(long)]
        from_epoch: Option<u32>,
        /// Run this many more epochs (default: up to the configuration's `epochs`).
        #[arg(long)]
        epochs: Option<u32>,
        /// Keep only the N newest epoch checkpoints, deleting older ones as the run goes
        /// (default: keep every one).
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
        keep_checkpoints: Option<u32>,
        #[command(flatten)]
        budget: BudgetFlags,
        #[command(flatten)]
        work: WorkFlags,
        #[command(flatten)]
        dashboard: DashboardFlags,
    },
    /// Play a match experiment (experiments/eN.toml) and write every game as JSON lines.
    Experiment {
        /// Experiment configuration (TOML), e.g. experiments/e2.toml.
        #[arg(long)]
        config: PathBuf,
        /// The match file to write (the format `analysis matches` reads).
        #[arg(long)]
        out: PathBuf,
        #[command(flatten)]
        work: WorkFlags,
    },
    /// Print an individual of a saved epoch as chromosome JSON; play it with
    /// `loa play --opponent net:3:FILE` or `loa match --black net:3:FILE --white aloa:3`.
    #[command(group = clap::ArgGroup::new("pick").required(true).args(["individual", "best", "validated"]))]
    Export {
        /// The run directory.
        dir: PathBuf,
        /// The epoch: a number, or `latest` (the default), the last one with a checkpoint.
        #[arg(long, default_value = "latest")]
        epoch: EpochChoice,
        /// The individual's index in the population (0-based; `master show` lists each epoch's best).
        #[arg(long)]
        individual: Option<usize>,
        /// The epoch's best by benchmark (highest score against the reference, ties to the
        /// lower serial).
        #[arg(long)]
        best: bool,
        /// The network the run validates at that epoch: the best by benchmark, ES's and
        /// CMA-ES's centre, PBT's best learner of its last ranking (docs/config.md, `[validation]`).
        #[arg(long)]
        validated: bool,
        /// Write to this file instead of standard output.
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Summarize a run: its configuration, each epoch's benchmark, where it stopped, its
    /// checkpoints.
    Show {
        /// The run directory.
        dir: PathBuf,
        /// Print the summary as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Print a shell's completion script, e.g. `master completions bash` (see docs/evolving.md).
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
}

/// The workers the flags ask for, with a stop flag that Ctrl-C sets.
fn work(flags: &WorkFlags) -> Result<WorkOptions, String> {
    let stop = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&stop);
    // Ctrl-C, and SIGTERM as Slurm's scancel or a service manager sends it.
    ctrlc::set_handler(move || {
        if flag.swap(true, Ordering::AcqRel) {
            // A second Ctrl-C: the user does not want to wait.
            std::process::exit(130);
        }
        eprintln!("\nstopping after the work in hand (Ctrl-C again to quit at once)");
    })
    .map_err(|e| format!("cannot install the Ctrl-C handler: {e}"))?;
    let cluster = flags.cluster.options()?;
    // With remote workers the master's cores serve the network, unless told otherwise.
    let default = if cluster.is_some() { 0 } else { std::thread::available_parallelism().map_or(1, |n| n.get()) };
    let threads = flags.threads.unwrap_or(default);
    if threads == 0 && cluster.is_none() {
        return Err("--threads must be at least 1 (or serve remote workers with --listen)".into());
    }
    Ok(WorkOptions { threads, cluster, stop, progress: !flags.quiet })
}

/// A run's options: its work, budget, the dashboard, and a halt point for the crash tests.
fn options(work_flags: &WorkFlags, budget: &BudgetFlags, dashboard: &DashboardFlags) -> Result<RunOptions, String> {
    let (work, halt, budget) = (work(work_flags)?, halt_from_env()?, budget.budget());
    let options = RunOptions { work, halt, budget, ..RunOptions::default() };
    dashboard.apply(options, work_flags.cluster.token().as_deref())
}

/// Fault injection for the crash tests: `LOA_HALT_AT=after-generation-line:3` makes the process
/// abort at that phase boundary, as a crash there would (see `loa_master::run::halt`). Only
/// test builds (feature `crash-tests`) read it.
#[cfg(feature = "crash-tests")]
fn halt_from_env() -> Result<Option<Halt>, String> {
    let Ok(text) = std::env::var("LOA_HALT_AT") else { return Ok(None) };
    let point = text.parse::<loa_master::run::HaltPoint>().map_err(|e| format!("LOA_HALT_AT: {e}"))?;
    Ok(Some(Halt { point, abort: true }))
}

/// A release build has no halt points.
#[cfg(not(feature = "crash-tests"))]
fn halt_from_env() -> Result<Option<Halt>, String> {
    Ok(None)
}

/// Prints `text` on standard output; a closed output (`| head`) is no error once the work is done.
fn say(text: &str) {
    let _ = std::io::stdout().lock().write_all(text.as_bytes());
}

fn report(summary: RunSummary, dir: &std::path::Path) {
    let state = if summary.stopped { "stopped" } else { "finished" };
    say(&format!("{state} at epoch {} (generation {})\n", summary.epoch, summary.generation));
    if let Some(why) = &summary.out_of_budget {
        say(&format!("{why}; continue with `master resume {}`\n", dir.display()));
    }
    if let Some(r) = summary.last_report {
        say(&format!(
            "last benchmark (epoch {}): best {} mean {:.1} median {:.1}\n",
            r.epoch, r.best, r.mean, r.median
        ));
    }
}

/// `result`, with a run stopped by a full disk (or a file-size limit) said as such: the run's
/// files are written so that the last checkpoint survives a failed write.
fn stopped_by_disk(result: Result<RunSummary, RunError>, dir: &std::path::Path) -> Result<RunSummary, String> {
    result.map_err(|error| {
        let full = std::iter::successors(Some(&error as &dyn std::error::Error), |e| e.source())
            .filter_map(|e| e.downcast_ref::<std::io::Error>())
            .any(|e| matches!(e.raw_os_error(), Some(libc::ENOSPC | libc::EFBIG | libc::EDQUOT)));
        match full {
            true => format!(
                "{error}\nthe disk is full (or a file-size or quota limit was reached): the run stopped with its last \
                 checkpoint intact; free space (`--keep-checkpoints N` keeps fewer) and continue with `master resume {}`",
                dir.display()
            ),
            false => error.to_string(),
        }
    })
}

fn run(cli: Cli) -> Result<(), Box<dyn std::error::Error>> {
    match cli.command {
        Command::Run { config, out, force, keep_checkpoints, budget, work, dashboard } => {
            let config = ExperimentConfig::read(&config)?;
            let options = RunOptions { force, keep_checkpoints, ..options(&work, &budget, &dashboard)? };
            report(stopped_by_disk(start(config, &out, &options), &out)?, &out);
        }
        Command::Resume { dir, from_epoch, epochs, keep_checkpoints, budget, work, dashboard } => {
            let options = RunOptions { keep_checkpoints, ..options(&work, &budget, &dashboard)? };
            report(stopped_by_disk(resume(&dir, from_epoch, epochs, &options), &dir)?, &dir)
        }
        Command::Experiment { config, out, work: flags } => {
            let config = MatchExperiment::read(&config)?;
            say(&experiment::run(&config, &out, &work(&flags)?)?.to_string());
        }
        Command::Export { dir, epoch, individual, best, validated, out } => {
            let epoch = match epoch {
                EpochChoice::Latest => last_epoch(&dir)?,
                EpochChoice::Number(epoch) => epoch,
            };
            let pick = match individual {
                Some(index) => Pick::Index(index),
                None if validated => Pick::Validated,
                None => Pick::Best,
            };
            let exported = export(&dir, epoch, pick)?;
            if best || validated {
                let which = if best { "best" } else { "validated network" };
                eprintln!(
                    "master: epoch {epoch}'s {which}: individual {} (serial {})",
                    exported.index, exported.serial
                );
            }
            match out {
                Some(path) => std::fs::write(&path, exported.json).map_err(|e| format!("{}: {e}", path.display()))?,
                None => println!("{}", exported.json),
            }
        }
        Command::Show { dir, json } => {
            let overview = show(&dir)?;
            match json {
                true => println!("{}", serde_json::to_string_pretty(&overview)?),
                false => print!("{overview}"),
            }
        }
        Command::Completions { shell } => {
            clap_complete::generate(shell, &mut Cli::command(), "master", &mut std::io::stdout());
        }
    }
    Ok(())
}

/// `master export --epoch`: an epoch, or the last one with a checkpoint.
#[derive(Clone, Copy, Debug)]
enum EpochChoice {
    /// `latest`.
    Latest,
    /// A number.
    Number(u32),
}

impl std::str::FromStr for EpochChoice {
    type Err = String;

    fn from_str(text: &str) -> Result<EpochChoice, String> {
        match text {
            "latest" => Ok(EpochChoice::Latest),
            _ => text
                .parse()
                .map(EpochChoice::Number)
                .map_err(|_| format!("`{text}` is not an epoch number or `latest`")),
        }
    }
}

fn main() -> ExitCode {
    keep_freed_memory();
    // A write past a file-size limit (`ulimit -f`) then fails with EFBIG, which the run reports
    // and stops on cleanly, instead of killing the process mid-write.
    // SAFETY: sets a signal's disposition to ignore, before any other thread runs.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
    let cli = Cli::parse();
    // Only for a command that just prints: a master serving workers or a dashboard must get
    // EPIPE from a socket whose peer went away, not be killed by SIGPIPE.
    if matches!(cli.command, Command::Export { .. } | Command::Show { .. } | Command::Completions { .. }) {
        loa_engine::restore_sigpipe();
    }
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("master: error: {message}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn purge_delay_option_is_the_one_set() {
        // SAFETY: reads an option of the allocator.
        let get = |option| unsafe { libmimalloc_sys::mi_option_get(option) };
        // 1000 ms is purge_delay's default (v3's `options.c`); its neighbours in the enum
        // default to 1 (eager_commit_delay) and 0 (use_numa_nodes), so a shifted enum would not
        // read 1000.
        assert_eq!(get(MI_OPTION_PURGE_DELAY), 1000);
        keep_freed_memory();
        assert_eq!(get(MI_OPTION_PURGE_DELAY), -1);
    }
}
