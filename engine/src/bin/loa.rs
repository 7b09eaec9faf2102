//! `loa`: the Lines of Action command line. Parses flags and calls the library.

use clap::{Parser, Subcommand};
use loa_engine::describe::describe;
use loa_engine::{Position, Rules, perft};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "loa",
    version,
    about = "Lines of Action: rules, move generation and players"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Count the leaves of the full legal-move tree (the count is the last line).
    Perft {
        /// Position text, e.g. the start position (see README).
        position: String,
        /// Depth in plies.
        depth: u32,
        /// Also print the count below each root move.
        #[arg(long)]
        divide: bool,
    },
    /// List the legal moves in canonical order, one per line.
    Moves {
        /// Position text.
        position: String,
    },
    /// Show a board diagram, groups, quad counts, Euler numbers and whether the game is over.
    Show {
        /// Position text.
        position: String,
    },
    /// Measure move generation and connectivity speed.
    Bench {
        /// Perft depth from the start position.
        #[arg(long, default_value_t = 5)]
        depth: u32,
        /// Runs per figure; the best is kept.
        #[arg(long, default_value_t = 3)]
        repeats: u32,
    },
}

fn parse_position(text: &str) -> Result<Position, String> {
    text.parse()
        .map_err(|e| format!("bad position `{text}`: {e}"))
}

fn run(cli: Cli) -> Result<(), String> {
    match cli.command {
        Command::Perft {
            position,
            depth,
            divide,
        } => {
            let pos = parse_position(&position)?;
            if divide {
                for (mv, count) in perft::divide(&pos, depth) {
                    println!("{mv} {count}");
                }
            }
            println!("{}", perft::perft(&pos, depth));
        }
        Command::Moves { position } => {
            for mv in parse_position(&position)?.legal_moves().iter() {
                println!("{mv}");
            }
        }
        Command::Show { position } => print!(
            "{}",
            describe(&parse_position(&position)?, &Rules::default())
        ),
        Command::Bench { depth, repeats } => {
            println!("loa bench: one thread, best of {repeats} runs");
            for figure in loa_engine::bench::movegen_figures(depth, repeats) {
                println!("{figure}");
            }
            for figure in loa_engine::bench::connectivity_figures(repeats) {
                println!("{figure}");
            }
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("loa: error: {message}");
            ExitCode::FAILURE
        }
    }
}
