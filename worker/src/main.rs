//! `worker`: joins a loa-evolve master and plays the tasks it hands out. Parses flags and calls
//! the library.

use clap::{CommandFactory, Parser, Subcommand};
use loa_worker::{Control, WorkerOptions, run};
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "worker", version, about = "loa-evolve worker: plays tournaments for a master")]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    options: Option<WorkerOptions>,
}

#[derive(Subcommand)]
enum Command {
    /// Print the shell completion script for `worker`, e.g. `worker completions bash >
    /// ~/.local/share/bash-completion/completions/worker`.
    Completions { shell: clap_complete::Shell },
}

fn main() -> ExitCode {
    let options = match Cli::parse() {
        Cli { command: Some(Command::Completions { shell }), .. } => {
            clap_complete::generate(shell, &mut Cli::command(), "worker", &mut std::io::stdout());
            return ExitCode::SUCCESS;
        }
        Cli { options: Some(options), .. } => options,
        // clap asks for --master before this: a fallback, not a path.
        Cli { .. } => Cli::command().error(clap::error::ErrorKind::MissingRequiredArgument, "give --master").exit(),
    };
    if let Err(e) = options.check() {
        eprintln!("worker: error: {e}");
        return ExitCode::FAILURE;
    }
    // SIGPIPE stays ignored, as Rust sets it: a worker talks to its master and peers over
    // sockets, and one whose peer went away must get EPIPE (a retry), not be killed.
    let control = Control::default();
    let on_signal = control.clone();
    // Ctrl-C, and SIGTERM as Slurm, a service manager or `kill` sends it: the tasks in hand are
    // finished and delivered rather than lost with the process.
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
    let (name, slots, master) = (&options.name, loa_worker::slots(options.slots), &options.master);
    eprintln!("worker {name}: {slots}, joining the master at {master}");
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
