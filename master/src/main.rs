//! `master`: runs the genetic algorithm. Parses flags and calls the library.

use clap::{Parser, Subcommand};
use loa_master::config::ExperimentConfig;
use loa_master::run::{RunOptions, RunSummary, export, resume, start};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

#[derive(Parser)]
#[command(name = "master", version, about = "loa-evolve master: evolves Lines of Action networks")]
struct Cli {
    #[command(subcommand)]
    command: Command,
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
        /// Embedded worker threads (default: one per core).
        #[arg(long)]
        threads: Option<usize>,
        /// No progress bars.
        #[arg(long)]
        quiet: bool,
    },
    /// Continue a run from its last generation or from a saved epoch.
    Resume {
        /// The run directory.
        dir: PathBuf,
        /// Resume from the end of this epoch instead of the last generation.
        #[arg(long)]
        from_epoch: Option<u32>,
        /// Run this many more epochs (default: up to the configuration's `epochs`).
        #[arg(long)]
        epochs: Option<u32>,
        /// Embedded worker threads (default: one per core).
        #[arg(long)]
        threads: Option<usize>,
        /// No progress bars.
        #[arg(long)]
        quiet: bool,
    },
    /// Print an individual of a saved epoch as chromosome JSON (for `loa --player net:3:FILE`).
    Export {
        /// The run directory.
        dir: PathBuf,
        /// The epoch.
        #[arg(long)]
        epoch: u32,
        /// The individual's index in the population (0-based).
        #[arg(long)]
        individual: usize,
        /// Write to this file instead of standard output.
        #[arg(long)]
        out: Option<PathBuf>,
    },
}

fn options(threads: Option<usize>, quiet: bool) -> Result<RunOptions, String> {
    let stop = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&stop);
    ctrlc::set_handler(move || {
        if flag.swap(true, Ordering::AcqRel) {
            // A second Ctrl-C: the user does not want to wait.
            std::process::exit(130);
        }
        eprintln!("\nstopping after the work in hand (Ctrl-C again to quit at once)");
    })
    .map_err(|e| format!("cannot install the Ctrl-C handler: {e}"))?;
    let threads = threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    if threads == 0 {
        return Err("--threads must be at least 1".into());
    }
    Ok(RunOptions { threads, stop, progress: !quiet })
}

fn report(summary: RunSummary) {
    let state = if summary.stopped { "stopped" } else { "finished" };
    println!("{state} at epoch {} (generation {})", summary.epoch, summary.generation);
    if let Some(r) = summary.last_report {
        println!("last benchmark (epoch {}): best {} mean {:.1} median {:.1}", r.epoch, r.best, r.mean, r.median);
    }
}

fn run(cli: Cli) -> Result<(), String> {
    match cli.command {
        Command::Run { config, out, threads, quiet } => {
            let config = ExperimentConfig::read(&config).map_err(|e| e.to_string())?;
            report(start(config, &out, &options(threads, quiet)?).map_err(|e| e.to_string())?);
        }
        Command::Resume { dir, from_epoch, epochs, threads, quiet } => {
            report(resume(&dir, from_epoch, epochs, &options(threads, quiet)?).map_err(|e| e.to_string())?);
        }
        Command::Export { dir, epoch, individual, out } => {
            let json = export(&dir, epoch, individual).map_err(|e| e.to_string())?;
            match out {
                Some(path) => std::fs::write(&path, json).map_err(|e| format!("{}: {e}", path.display()))?,
                None => println!("{json}"),
            }
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("master: error: {message}");
            ExitCode::FAILURE
        }
    }
}
