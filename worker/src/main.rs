//! `worker`: joins a loa-evolve master and plays the tasks it hands out. Parses flags and calls
//! the library.

use clap::Parser;
use loa_worker::{Control, WorkerOptions, run};
use std::process::ExitCode;
use std::time::Duration;

#[derive(Parser)]
#[command(name = "worker", version, about = "loa-evolve worker: plays tournaments for a master")]
struct Cli {
    /// The master's URL, e.g. http://node001:50051.
    #[arg(long)]
    master: String,
    /// Player threads, 1 to 1024 (default: one per core).
    #[arg(long)]
    slots: Option<usize>,
    /// Shared token (default: the LOA_TOKEN environment variable, if set).
    #[arg(long, env = "LOA_TOKEN", hide_env_values = true)]
    token: Option<String>,
    /// Name shown by the master (default: host:pid).
    #[arg(long)]
    name: Option<String>,
    /// The CA certificate (PEM) that signed the master's TLS certificate (for https:// URLs).
    #[arg(long)]
    tls_ca: Option<std::path::PathBuf>,
    /// Exit once the master has not answered for this many seconds (default: wait forever).
    #[arg(long)]
    give_up_after: Option<u64>,
    /// Chromosomes to keep between tasks (about 8 KiB each), so the master can send a network's
    /// id instead of its 33 KiB of weights; the least recently used goes first. 0 keeps none.
    #[arg(long, default_value_t = loa_proto::cache::DEFAULT_CAPACITY)]
    chromosome_cache: usize,
    /// Outcomes to deliver together in one message, for masters serving thousands of workers (the
    /// worker holds as many tasks more); an outcome waits at most until no unstarted task is
    /// left. 1 delivers each as it finishes.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=64))]
    batch: u32,
    /// Serve the chromosomes this worker holds to the master's other workers on this address,
    /// e.g. 0.0.0.0:50052 (port 0: any free port), so that new networks travel as their origins
    /// and their parents come from peers instead of the master (for large clusters).
    #[arg(long, value_name = "ADDR:PORT")]
    peer_listen: Option<std::net::SocketAddr>,
    /// The host other workers reach this worker's peer service at (default: the address the
    /// master sees this worker connect from).
    #[arg(long, requires = "peer_listen")]
    peer_host: Option<String>,
}

fn main() -> ExitCode {
    // SIGPIPE stays ignored, as Rust sets it: a worker talks to its master and peers over
    // sockets, and one whose peer went away must get EPIPE (a retry), not be killed.
    let cli = Cli::parse();
    let mut options = WorkerOptions::new(cli.master);
    options.slots = cli.slots.unwrap_or(options.slots);
    options.token = cli.token;
    if let Some(path) = &cli.tls_ca {
        match std::fs::read(path) {
            Ok(pem) => options.tls_ca = Some(pem),
            Err(e) => {
                eprintln!("worker: error: {}: {e}", path.display());
                return ExitCode::FAILURE;
            }
        }
    }
    options.name = cli.name.unwrap_or(options.name);
    options.give_up_after = cli.give_up_after.map(Duration::from_secs);
    options.chromosome_cache = cli.chromosome_cache;
    options.batch = cli.batch as usize;
    options.peer_listen = cli.peer_listen;
    options.peer_host = cli.peer_host;
    let control = Control::default();
    let on_signal = control.clone();
    let installed = ctrlc::set_handler(move || {
        if on_signal.stopping() {
            std::process::exit(130); // a second Ctrl-C: do not wait
        }
        eprintln!("\nworker: finishing the tasks in hand (Ctrl-C again to quit at once)");
        on_signal.stop();
    });
    if let Err(e) = installed {
        eprintln!("worker: error: cannot install the Ctrl-C handler: {e}");
        return ExitCode::FAILURE;
    }
    eprintln!("worker {}: {} slots, master {}", options.name, options.slots, options.master);
    match run(options, control) {
        Ok(r) => {
            let why = if r.master_gone { "the master is gone" } else { "stopped" };
            eprintln!(
                "worker: {why}: {} tasks played, {} accepted, {} duplicates, {} unknown, {} undelivered; \
                 networks {} received, {} from the cache, {} made from origins, {} fetched; chromosomes \
                 {} from peers ({} asked of peers in vain), {} origins or sources unusable",
                r.played,
                r.accepted,
                r.duplicates,
                r.unknown,
                r.undelivered,
                r.received,
                r.cache_hits,
                r.made,
                r.fetched,
                r.from_peers,
                r.peer_misses,
                r.unusable
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("worker: error: {e}");
            ExitCode::FAILURE
        }
    }
}
