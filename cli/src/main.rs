//! `loa`: the Lines of Action command line. Parses flags and calls the library.

use clap::{Parser, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use loa_cli::describe::describe;
use loa_cli::imitate::{ImitateConfig, PositionConfig, TrainConfig, imitate};
use loa_cli::match_file::write_match_file;
use loa_cli::series::{SeriesConfig, play_series};
use loa_cli::spec::PlayerSpec;
use loa_engine::game::{MatchSide, Player};
use loa_engine::network::symmetry::WeightTying;
use loa_engine::network::{Chromosome, Network};
use loa_engine::{Color, Position, Rules, perft};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

#[derive(Parser)]
#[command(name = "loa", version, about = "Lines of Action: rules, move generation and players")]
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
        /// Depth in plies, 0 to 20 (the tree is walked depth-first, a stack frame a ply).
        #[arg(value_parser = clap::value_parser!(u32).range(0..=20))]
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
    /// Print the network's output for the side to move (the last line).
    Eval {
        /// Chromosome JSON file.
        #[arg(long)]
        weights: PathBuf,
        /// Position text.
        position: String,
    },
    /// The move a player chooses, its value and the nodes searched.
    Best {
        /// Player spec: aloa:D, aloa-normal:D, random:D:SALT, randomann:D:SEED (salt, seed optional), net:D:FILE.
        #[arg(long)]
        player: String,
        /// Position text.
        position: String,
        /// Plies already played in the game (for the ply cap).
        #[arg(long, default_value_t = 0)]
        plies_played: u32,
        /// Game seed (the random heuristic's values depend on it).
        #[arg(long, default_value_t = 0)]
        seed: u64,
    },
    /// Play a series of games between two players (colours alternate) and print the results.
    Match {
        /// The first player (Black in the first game of every pair; "A" of each two-game match).
        #[arg(long)]
        black: String,
        /// The second player.
        #[arg(long)]
        white: String,
        /// Number of games.
        #[arg(long, default_value_t = 2)]
        games: u32,
        /// Series seed.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Random plies from the start position before each pair of games.
        #[arg(long, default_value_t = 0)]
        opening_plies: u32,
        /// Worker threads, 1 to 1024 (default: all cores).
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1024))]
        threads: Option<u32>,
        /// Also write one JSON line per game (then the totals) to this file, e.g. `rh.jsonl`;
        /// `analysis matches` reads it.
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Play against a player in the terminal.
    Play {
        /// The opponent's player spec.
        #[arg(long)]
        opponent: String,
        /// Your colour: black or white.
        #[arg(long = "as", default_value = "black")]
        color: String,
        /// Game seed.
        #[arg(long, default_value_t = 0)]
        seed: u64,
    },
    /// Fit a network to ALoA's static evaluation (supervised imitation) and write it as a
    /// chromosome file: can the network represent a player as strong as ALoA?
    Imitate {
        /// Distinct positions to collect from seeded games (each gives two samples, one per side).
        #[arg(long, default_value_t = 200_000)]
        positions: usize,
        /// Fraction of the games held out for validation.
        #[arg(long, default_value_t = 0.1)]
        validation: f64,
        /// Passes over the training samples.
        #[arg(long, default_value_t = 30)]
        epochs: u32,
        /// Samples per Adam step.
        #[arg(long, default_value_t = 256)]
        batch: usize,
        /// Adam's initial step size (decays along a half cosine to a tenth).
        #[arg(long, default_value_t = 0.002)]
        learning_rate: f64,
        /// Label scale s in tanh(score / s) (default: the standard deviation of the scores).
        #[arg(long)]
        scale: Option<f64>,
        /// Seed of the games, the split, the initial weights and the shuffles.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Weights tied by the board's symmetries: none, invariant or equivariant (the network
        /// evolution strategies search with `symmetry`).
        #[arg(long, default_value = "none")]
        symmetry: WeightTying,
        /// The chromosome file to write (e.g. `net.json`, for `--player net:3:net.json`).
        #[arg(long)]
        out: PathBuf,
    },
    /// Measure move generation and connectivity speed.
    Bench {
        /// Perft depth from the start position, 1 to 10.
        #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=10))]
        depth: u32,
        /// Runs per figure, 1 to 1000; the best is kept.
        #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=1000))]
        repeats: u32,
        /// Positions for the mean move times, 1 to 1000000.
        #[arg(long, default_value_t = 500, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
        positions: u32,
        /// Games for the mean game time, 0 to 1000000.
        #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u32).range(0..=1_000_000))]
        games: u32,
        /// Another `loa` binary (e.g. a build of main) to compare with: both run this bench
        /// with the same arguments, interleaved, and the ratios of their best figures are printed.
        #[arg(long)]
        baseline: Option<PathBuf>,
        /// Rounds of the side-by-side comparison (each runs both binaries once), 1 to 1000.
        #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=1000))]
        rounds: u32,
    },
}

fn parse_position(text: &str) -> Result<Position, String> {
    text.parse().map_err(|e| format!("bad position `{text}`: {e}"))
}

fn parse_spec(text: &str) -> Result<PlayerSpec, String> {
    text.parse().map_err(|e: loa_cli::spec::PlayerError| e.to_string())
}

fn game_over_check(pos: &Position) -> Result<(), String> {
    match pos.game_end(&Rules::default()) {
        Some(end) => Err(format!("the game is over in this position: {end}")),
        None => Ok(()),
    }
}

fn run_match(black: &str, white: &str, config: SeriesConfig, out: Option<&Path>) -> Result<(), String> {
    let (a, b) = (parse_spec(black)?, parse_spec(white)?);
    let (pa, pb) = (a.prepare().map_err(|e| e.to_string())?, b.prepare().map_err(|e| e.to_string())?);
    let bar = ProgressBar::new(u64::from(config.games));
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} games  {per_sec}  ETA {eta}").map_err(|e| e.to_string())?,
    );
    let players = |seed: u64| -> loa_cli::series::PairPlayers {
        let (x, y) = (pa.for_match(seed), pb.for_match(seed));
        (x as Arc<dyn Player + Send>, y as Arc<dyn Player + Send>)
    };
    let report = play_series(&config, &players, &|_| bar.inc(1));
    bar.finish_and_clear();
    println!(
        "{} games ({} two-game matches), mean {:.1} plies",
        report.games().count(),
        report.matches(),
        report.mean_plies()
    );
    for (side, spec) in [(MatchSide::A, &a), (MatchSide::B, &b)] {
        let s = report.stats(side);
        println!(
            "{spec}: {} wins, {} losses, {} draws; mean score {:.2} (as black {:.2}, as white {:.2}); {} matches won",
            s.wins, s.losses, s.draws, s.mean_score, s.mean_score_black, s.mean_score_white, s.matches_won
        );
    }
    if let Some(path) = out {
        write_match_file(path, &report, &a.to_string(), &b.to_string(), &config)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        println!("wrote {} ({} games)", path.display(), report.games().count());
    }
    Ok(())
}

fn run(cli: Cli) -> Result<(), String> {
    match cli.command {
        Command::Perft { position, depth, divide } => {
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
        Command::Show { position } => print!("{}", describe(&parse_position(&position)?, &Rules::default())),
        Command::Eval { weights, position } => {
            let pos = parse_position(&position)?;
            let chromosome = Chromosome::read(&weights).map_err(|e| format!("{}: {e}", weights.display()))?;
            let net = Network::new(&chromosome);
            println!("{}", net.evaluate_plain(&pos, pos.side_to_move()));
        }
        Command::Best { player, position, plies_played, seed } => {
            let pos = parse_position(&position)?;
            game_over_check(&pos)?;
            let prepared = parse_spec(&player)?.prepare().map_err(|e| e.to_string())?;
            let result = prepared.for_match(seed).choose(&pos, &Rules::default(), plies_played, seed);
            let mv = result.best.map_or("none (no legal move)".to_string(), |m| m.to_string());
            println!("move: {mv}\nvalue: {}\nnodes: {}", result.value, result.nodes);
        }
        Command::Match { black, white, games, seed, opening_plies, threads, out } => {
            if games == 0 || games > 10_000_000 {
                return Err(format!("--games must be 1..=10000000, not {games}"));
            }
            // Random play rarely connects a side within 40 plies; far longer openings could
            // make every attempt end the game.
            if opening_plies > 40 {
                return Err(format!("--opening-plies must be at most 40, not {opening_plies}"));
            }
            // Refuse a file that cannot be written before playing, not after.
            if let Some(dir) = out.as_deref().and_then(Path::parent).filter(|d| !d.as_os_str().is_empty())
                && !dir.is_dir()
            {
                return Err(format!("--out: no directory {}", dir.display()));
            }
            let threads =
                threads.map_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()), |t| t as usize);
            let config = SeriesConfig { games, seed, threads, opening_plies, rules: Rules::default() };
            run_match(&black, &white, config, out.as_deref())?;
        }
        Command::Play { opponent, color, seed } => {
            let human = Color::from_name(&color).ok_or(format!("--as must be black or white, not `{color}`"))?;
            let prepared = parse_spec(&opponent)?.prepare().map_err(|e| e.to_string())?;
            let stdin = std::io::stdin();
            loa_cli::interactive::play_interactive(
                &*prepared.for_match(seed),
                human,
                &Rules::default(),
                seed,
                stdin.lock(),
                std::io::stdout(),
            )
            .map_err(|e| format!("terminal: {e}"))?;
        }
        Command::Imitate { positions, validation, epochs, batch, learning_rate, scale, seed, symmetry, out } => {
            if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty())
                && !dir.is_dir()
            {
                return Err(format!("--out: no directory {}", dir.display()));
            }
            let config = ImitateConfig {
                positions: PositionConfig { positions, validation, seed },
                train: TrainConfig { epochs, batch, learning_rate, seed, tying: symmetry },
                scale,
            };
            let summary = imitate(&config, |line| println!("{line}"))?;
            summary.chromosome.write(&out).map_err(|e| e.to_string())?;
            println!("wrote {}", out.display());
        }
        Command::Bench { depth, repeats, positions, games, baseline: Some(baseline), rounds } => {
            let args = [
                format!("--depth={depth}"),
                format!("--repeats={repeats}"),
                format!("--positions={positions}"),
                format!("--games={games}"),
            ];
            let me = std::env::current_exe().map_err(|e| format!("cannot find this binary: {e}"))?;
            print!("{}", loa_cli::bench::compare(&baseline, &me, &args, rounds)?);
        }
        Command::Bench { depth, repeats, positions, games, baseline: None, rounds: _ } => {
            println!("loa bench: one thread, best of {repeats} runs");
            for figure in loa_cli::bench::movegen_figures(depth, repeats) {
                println!("{figure}");
            }
            for figure in loa_cli::bench::connectivity_figures(repeats) {
                println!("{figure}");
            }
            for figure in loa_cli::bench::network_figures(repeats) {
                println!("{figure}");
            }
            for figure in loa_cli::bench::aloa_figures(repeats) {
                println!("{figure}");
            }
            for figure in loa_cli::bench::player_figures(positions as usize, games as usize) {
                println!("{figure}");
            }
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    loa_engine::restore_sigpipe();
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("loa: error: {message}");
            ExitCode::FAILURE
        }
    }
}
