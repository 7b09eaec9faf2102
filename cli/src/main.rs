//! `loa`: the Lines of Action command line. Parses flags and calls the library.

use clap::{CommandFactory, Parser, Subcommand};
use loa_cli::apply::{ApplyError, apply_moves};
use loa_cli::bench::CompareError;
use loa_cli::describe::describe;
use loa_cli::engine::PlayerChoiceError;
use loa_cli::imitate::{ImitateConfig, ImitateError, PositionConfig, TrainConfig, imitate};
use loa_cli::matches::MatchError;
use loa_cli::replay::{ReplayError, replay, replay_text};
use loa_cli::series::SeriesConfig;
use loa_engine::network::symmetry::WeightTying;
use loa_engine::network::{Chromosome, ChromosomeError, ShapedNetwork};
use loa_engine::players::{EngineFailure, NetworkBoardError};
use loa_engine::spec::{Accepts, PlayerSpec, PreparedPlayer, SpecError};
use loa_engine::{BoardSize, Color, GameEnd, Position, PositionError, Rules, Start, StartError, perft};
use std::io;
use std::path::PathBuf;
use std::process::ExitCode;

/// Why a command failed: what `main` prints, after `loa: error: `.
#[derive(Debug, thiserror::Error)]
enum CliError {
    /// A position argument that does not parse.
    #[error("bad position `{text}`: {source}")]
    Position { text: String, source: PositionError },
    /// `--start` names a start the board does not have.
    #[error("--start: {0}")]
    Start(StartError),
    /// A player flag's spec is bad, or cannot play the board.
    #[error("{flag}: {source}")]
    Player { flag: &'static str, source: SpecError },
    /// A finished game's position given to search.
    #[error("the game is over in this position: {0}")]
    GameOver(GameEnd),
    /// `loa apply`'s moves.
    #[error(transparent)]
    Apply(#[from] ApplyError),
    /// `--weights` could not be read.
    #[error("--weights: {0}")]
    Weights(ChromosomeError),
    /// A network asked to read a board of another size.
    #[error(transparent)]
    Board(#[from] NetworkBoardError),
    /// `loa match`.
    #[error(transparent)]
    Match(#[from] MatchError),
    /// `loa engine --player`.
    #[error("--player: {0}")]
    EnginePlayer(PlayerChoiceError),
    /// `loa engine`'s standard input or output.
    #[error("engine input or output: {0}")]
    EngineIo(io::Error),
    /// `loa play --as`.
    #[error("--as must be black or white, not `{0}`")]
    Colour(String),
    /// `loa play`'s terminal.
    #[error("terminal: {0}")]
    Terminal(io::Error),
    /// `loa td`, which became a method of `master run`.
    #[error(
        "loa td is now the td method of master run: `master run --config FILE --out DIR` with a master \
         configuration (experiments/td/*.toml are such; docs/td.md maps loa td's keys to theirs), and \
         `master resume DIR` goes on"
    )]
    TdMoved,
    /// `--out` in a directory that does not exist.
    #[error("--out: no directory {dir}", dir = .0.display())]
    NoOutDir(PathBuf),
    /// `loa imitate`.
    #[error(transparent)]
    Imitate(#[from] ImitateError),
    /// The fitted network could not be written (the error names the file).
    #[error("{0}")]
    Write(ChromosomeError),
    /// `loa bench --baseline` cannot find its own binary.
    #[error("cannot find this binary: {0}")]
    CurrentExe(io::Error),
    /// `loa bench --baseline`.
    #[error(transparent)]
    Bench(#[from] CompareError),
    /// `loa replay`.
    #[error(transparent)]
    Replay(#[from] ReplayError),
    /// An external engine failed (it named, with the position and what it said).
    #[error("{flag}: {failure}")]
    Engine { flag: &'static str, failure: EngineFailure },
}

#[derive(Parser)]
#[command(name = "loa", version, about = "Lines of Action: rules, move generation and players")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// The start position of commands that play from it.
#[derive(clap::Args)]
struct StartArgs {
    /// Board size: 5x5, 6x6, 7x7 or 8x8 (or just 5 to 8).
    #[arg(long, default_value = "8x8")]
    board: BoardSize,
    /// Start position: standard (every size) or scrambled-eggs (8x8 only).
    #[arg(long, default_value = "standard")]
    start: Start,
}

impl StartArgs {
    fn position(&self) -> Result<Position, CliError> {
        self.start.position(self.board).map_err(CliError::Start)
    }
}

#[derive(Subcommand)]
enum Command {
    /// Count the leaves of the full legal-move tree (the count is the last line).
    Perft {
        /// Position text of any board size 5x5 to 8x8, e.g. the start position (see README).
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
        /// Position text, or `startpos`.
        position: String,
    },
    /// Print the position after the moves, each checked: legal where it is played and written
    /// as the board has it (`c8-c6` to an empty square, `d1xa4` onto an enemy piece).
    Apply {
        /// Position text, or `startpos`.
        position: String,
        /// The moves, in order, e.g. `b1-b3 h2-f2`.
        moves: Vec<String>,
    },
    /// Show a board diagram, groups, quad counts, Euler numbers and whether the game is over.
    Show {
        /// Position text, or `startpos`.
        position: String,
    },
    /// Print the network's output for the side to move (the last line).
    Eval {
        /// Chromosome JSON file.
        #[arg(long)]
        weights: PathBuf,
        /// Position text, or `startpos`.
        position: String,
    },
    /// The move a player chooses, its value and the nodes searched.
    Best {
        // Given as `help`, not a doc comment, so that it is the engine's list of forms.
        #[arg(long, help = format!("Player spec: {}", Accepts::Playable.forms()))]
        player: String,
        /// Position text, or `startpos`.
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
        /// Number of games: even, as games come in two-game matches.
        #[arg(long, default_value_t = 2)]
        games: u32,
        /// Series seed.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Random plies from the start position before each pair of games (at most 40 on 8x8,
        /// 24 on 7x7, 12 on 6x6, 6 on 5x5).
        #[arg(long, default_value_t = 0)]
        opening_plies: u32,
        #[command(flatten)]
        start: StartArgs,
        /// Worker threads, 1 to 1024 (default: all cores).
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1024))]
        threads: Option<u32>,
        /// Also write one JSON line per game (then the totals) to this file, e.g. `rh.jsonl`;
        /// `analysis matches` reads it.
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Replay game N of a `loa match --out` file: each move checked, with the position after it.
    Replay {
        /// The match file.
        file: PathBuf,
        /// The game, from 1, in the file's order (game 2P+G+1 is game G of pair P).
        n: usize,
        /// Instead, show the position after this many plies (0: the start) as `loa show` does.
        #[arg(long)]
        ply: Option<usize>,
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
        #[command(flatten)]
        start: StartArgs,
    },
    /// Play as an engine: a line protocol in the style of UCI on stdin and stdout, for GUIs,
    /// tournament managers and other programs (docs/engine-protocol.md).
    Engine {
        /// The player until `setoption name Player` changes it (a player spec, as for `match`;
        /// default aloa:5).
        #[arg(long)]
        player: Option<String>,
        /// The game seed until `setoption name Seed` changes it.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// `startpos` and `ucinewgame` set up this board's start.
        #[command(flatten)]
        start: StartArgs,
    },
    /// Print the shell completion script for `loa`, e.g.
    /// `loa completions bash > ~/.local/share/bash-completion/completions/loa`.
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Moved: TD(λ) self-play is the `td` method of `master run` (docs/td.md); this says how.
    Td {
        /// Whatever `loa td` was given: it only says what replaces it.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, hide = true)]
        args: Vec<String>,
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

/// Position text, or `startpos` for the standard 8x8 start (as `loa engine`'s `position` takes it).
fn parse_position(text: &str) -> Result<Position, CliError> {
    if text == "startpos" {
        return Ok(Position::start());
    }
    text.parse().map_err(|source| CliError::Position { text: text.to_owned(), source })
}

/// The player the spec of `flag` names, built for the `size` board.
fn prepare_player(flag: &'static str, text: &str, size: BoardSize) -> Result<PreparedPlayer, CliError> {
    let prepared = PlayerSpec::parse_in(text, Accepts::Playable).and_then(|spec| spec.prepare_on(size));
    prepared.map_err(|source| CliError::Player { flag, source })
}

/// Whether the command plays an external engine (`engine:` specs).
fn talks_to_an_engine(cli: &Cli) -> bool {
    let specs: Vec<&str> = match &cli.command {
        Command::Match { black, white, .. } => vec![black, white],
        Command::Best { player, .. } => vec![player],
        Command::Play { opponent, .. } => vec![opponent],
        _ => Vec::new(),
    };
    specs.iter().any(|s| s.starts_with("engine:"))
}

fn game_over_check(pos: &Position) -> Result<(), CliError> {
    match pos.game_end(&Rules::default()) {
        Some(end) => Err(CliError::GameOver(end)),
        None => Ok(()),
    }
}

fn run(cli: Cli) -> Result<(), CliError> {
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
        Command::Apply { position, moves } => {
            let pos = apply_moves(parse_position(&position)?, &moves, &Rules::default())?;
            println!("{pos}");
        }
        Command::Show { position } => print!("{}", describe(&parse_position(&position)?, &Rules::default())),
        Command::Eval { weights, position } => {
            let pos = parse_position(&position)?;
            let chromosome = Chromosome::read(&weights).map_err(CliError::Weights)?;
            loa_engine::players::network_plays_on(chromosome.topology(), pos.size())?;
            // The plain pass of any shape (for the thesis's, bit for bit `Network::evaluate_plain`).
            let net = ShapedNetwork::new(&chromosome);
            println!("{}", net.evaluate_plain(&pos, pos.side_to_move()));
        }
        Command::Best { player, position, plies_played, seed } => {
            let pos = parse_position(&position)?;
            game_over_check(&pos)?;
            let prepared = prepare_player("--player", &player, pos.size())?;
            let result = prepared.for_match(seed).choose(&pos, &Rules::default(), plies_played, seed);
            if let Some(failure) = prepared.failure() {
                return Err(CliError::Engine { flag: "--player", failure });
            }
            let mv = result.best.map_or("none (no legal move)".to_string(), |m| m.to_string());
            println!("move: {mv}\nvalue: {}\nnodes: {}", result.value, result.nodes);
        }
        Command::Match { black, white, games, seed, opening_plies, start, threads, out } => {
            let start = start.position()?;
            loa_cli::matches::check_flags(games, opening_plies, start.size(), out.as_deref())?;
            let threads =
                threads.map_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()), |t| t as usize);
            let config = SeriesConfig { games, seed, threads, start, opening_plies, rules: Rules::default() };
            loa_cli::matches::run_match(&black, &white, &config, out.as_deref())?;
        }
        Command::Engine { player, seed, start } => {
            let start = start.position()?;
            let engine = match player {
                Some(player) => loa_cli::engine::Engine::with_player(&player, seed).map_err(CliError::EnginePlayer)?,
                None => loa_cli::engine::Engine::new().with_seed(seed),
            };
            let engine = engine.with_start(start);
            loa_cli::engine::run(engine, std::io::stdin().lock(), std::io::stdout().lock())
                .map_err(CliError::EngineIo)?;
        }
        Command::Completions { shell } => {
            clap_complete::generate(shell, &mut Cli::command(), "loa", &mut std::io::stdout());
        }
        Command::Play { opponent, color, seed, start } => {
            let human = Color::from_name(&color).ok_or_else(|| CliError::Colour(color.clone()))?;
            let start = start.position()?;
            let prepared = prepare_player("--opponent", &opponent, start.size())?;
            let stdin = std::io::stdin();
            loa_cli::interactive::play_interactive(
                &*prepared.for_match(seed),
                human,
                &Rules::default(),
                seed,
                start,
                stdin.lock(),
                std::io::stdout(),
            )
            .map_err(CliError::Terminal)?;
            if let Some(failure) = prepared.failure() {
                return Err(CliError::Engine { flag: "--opponent", failure });
            }
        }
        Command::Td { .. } => return Err(CliError::TdMoved),
        Command::Replay { file, n, ply } => {
            let (game, positions) = replay(&file, n)?;
            match ply {
                None => print!("{}", replay_text(&game, &positions)),
                Some(ply) => {
                    let pos = positions.get(ply).ok_or(ReplayError::Ply { ply, n, plies: positions.len() - 1 })?;
                    println!("{pos}");
                    print!("{}", describe(pos, &Rules::default()));
                }
            }
        }
        Command::Imitate { positions, validation, epochs, batch, learning_rate, scale, seed, symmetry, out } => {
            if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty())
                && !dir.is_dir()
            {
                return Err(CliError::NoOutDir(dir.to_path_buf()));
            }
            let config = ImitateConfig {
                positions: PositionConfig { positions, validation, seed },
                train: TrainConfig { epochs, batch, learning_rate, seed, tying: symmetry },
                scale,
            };
            let summary = imitate(&config, |line| println!("{line}"))?;
            summary.chromosome.write(&out).map_err(CliError::Write)?;
            println!("wrote {}", out.display());
        }
        Command::Bench { depth, repeats, positions, games, baseline: Some(baseline), rounds } => {
            let args = [
                format!("--depth={depth}"),
                format!("--repeats={repeats}"),
                format!("--positions={positions}"),
                format!("--games={games}"),
            ];
            let me = std::env::current_exe().map_err(CliError::CurrentExe)?;
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
            for figure in loa_cli::bench::shape_figures(repeats, games as usize) {
                println!("{figure}");
            }
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // A closed output pipe ends `loa` quietly; but an external engine that dies must be an
    // error to report, not a signal that ends `loa` while it writes to the engine.
    if !talks_to_an_engine(&cli) {
        loa_engine::restore_sigpipe();
    }
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        // The one place errors are printed.
        Err(error) => {
            eprintln!("loa: error: {error}");
            ExitCode::FAILURE
        }
    }
}
