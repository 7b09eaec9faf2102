//! `worker`: joins a loa-evolve master and plays the tasks it hands out. Parses flags and calls
//! the library.

use clap::Parser;
use loa_worker::{Control, WorkerOptions, run};
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "worker", version, about = "loa-evolve worker: plays tournaments for a master")]
struct Cli {
    #[command(flatten)]
    options: WorkerOptions,
}

fn main() -> ExitCode {
    // SIGPIPE stays ignored, as Rust sets it: a worker talks to its master and peers over
    // sockets, and one whose peer went away must get EPIPE (a retry), not be killed.
    let options = Cli::parse().options;
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
