//! `analysis`: charts and tables from runs and match series. Parses flags and calls the library.

use clap::{Parser, Subcommand, ValueEnum};
use loa_analysis::compare::{check_comparable, compare_runs};
use loa_analysis::export::export_csv;
use loa_analysis::noise::{NOISE_KEY, noise_table, reliability_by_block};
use loa_analysis::output::{default_for_run, prepare, write_text};
use loa_analysis::plot::{chosen_figures, plot_run};
use loa_analysis::report::{check_epochs, matches_markdown, plot_series_blocks, write_report};
use loa_analysis::validation::{load_all, validation_charts};
use loa_analysis::{AnalysisError, EpochStatistic, MatchSeries, Result, Run};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "analysis", version, about = "Charts and tables from loa-evolve runs and `loa match` series")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, ValueEnum)]
enum Statistic {
    Best,
    Mean,
    Median,
}

#[derive(Subcommand)]
enum Command {
    /// Draw a run's charts (PNG and SVG): best / mean / median per epoch, smoothed with trends,
    /// tournaments per generation, and the figures its method reports per generation.
    Plot {
        /// The run directory (the master's --out).
        run: PathBuf,
        /// Only these of the method's figures, by path, e.g. best,vs_fixed (default: every
        /// number its generation lines carry).
        #[arg(long, value_delimiter = ',')]
        figures: Option<Vec<String>>,
        /// Where to write (default: RUN-analysis beside the run; never inside it).
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Write a Markdown report with the charts and the thesis's tables.
    Report {
        /// The run directory.
        run: PathBuf,
        /// A `loa match --out` file to set the run against (repeatable), described from its
        /// first player's side.
        #[arg(long)]
        baseline: Vec<PathBuf>,
        /// Epochs for the per-epoch tables, e.g. 9,10,11 (default: the best epoch and its
        /// neighbours).
        #[arg(long, value_delimiter = ',')]
        epochs: Option<Vec<u32>>,
        /// Where to write (default: RUN-analysis beside the run; never inside it).
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Several runs on one chart and in one table (runs benchmarked against the same reference
    /// player, unless --mixed-references).
    Compare {
        /// Two or more run directories.
        #[arg(required = true, num_args = 1..)]
        runs: Vec<PathBuf>,
        /// Which epoch statistic of the combined score to compare.
        #[arg(long, value_enum, default_value = "mean")]
        statistic: Statistic,
        /// Chart runs benchmarked against different reference players together (refused
        /// otherwise: their scores are on different scales); the legend names each one's.
        #[arg(long)]
        mixed_references: bool,
        /// Where to write (default: ./compare-analysis; never inside a run).
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Strength against compute from runs' `validation.jsonl`: for each held-out opponent, the
    /// win rate against CPU time and against wall time, one line per run with its 95 % interval
    /// as a band, and a table of each run's last and best validation.
    Validation {
        /// One or more run directories (runs with a `[validation]` section).
        #[arg(required = true, num_args = 1..)]
        runs: Vec<PathBuf>,
        /// Also time each run's first validation that won at least this share of its matches
        /// (percent), and each method's median over its seeds.
        #[arg(long, value_parser = percent)]
        reach: Option<f64>,
        /// Draw the time axes on a logarithmic scale: for runs whose compute differs by orders
        /// of magnitude, which a linear axis squeezes into its first few percent.
        #[arg(long)]
        log_time: bool,
        /// Where to write (default: ./validation-analysis; never inside a run).
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// How much of each run's fitness spread is noise: the median noise, signal and reliability
    /// over its last generations (runs with `report_noise = true`).
    Noise {
        /// One or more run directories.
        #[arg(required = true, num_args = 1..)]
        runs: Vec<PathBuf>,
        /// Generations (the last that report the noise) the medians are over.
        #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(u32).range(1..))]
        last: u32,
        /// Also print each run's mean reliability over blocks of this many generations.
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
        blocks: Option<u32>,
    },
    /// A run's metrics as flat CSV files, one per record kind (generations, epochs, each
    /// epoch's benchmark, validation), with stable column names, for spreadsheets and pandas.
    Export {
        /// The run directory.
        run: PathBuf,
        /// Write CSV (the one format for now; the flag keeps room for others).
        #[arg(long, required = true)]
        csv: bool,
        /// Where to write (default: RUN-analysis beside the run; never inside it).
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// The table of `loa match --out` series side by side, with intervals and t-tests.
    Matches {
        /// One or more match files.
        #[arg(required = true, num_args = 1..)]
        files: Vec<PathBuf>,
        /// Also write the table to this Markdown file.
        #[arg(long)]
        out: Option<PathBuf>,
        /// Also draw each series' best and mean score per block of matches (thesis Figure 20)
        /// into this directory.
        #[arg(long)]
        charts: Option<PathBuf>,
        /// Two-game matches per block for --charts (the thesis: 62, one population).
        #[arg(long, default_value_t = 62, value_parser = clap::value_parser!(u32).range(1..))]
        block: u32,
    },
}

/// A percentage flag: a number from 0 to 100.
fn percent(text: &str) -> std::result::Result<f64, String> {
    match text.parse::<f64>() {
        Ok(p) if (0.0..=100.0).contains(&p) => Ok(p),
        _ => Err(format!("{text:?} is not a percentage from 0 to 100")),
    }
}

fn note_all(notes: &[String]) {
    for n in notes {
        eprintln!("analysis: note: {n}");
    }
}

fn load_run(dir: &Path) -> Result<Run> {
    let run = Run::load(dir)?;
    note_all(&run.notes);
    Ok(run)
}

fn load_series(path: &Path) -> Result<MatchSeries> {
    let s = MatchSeries::load(path)?;
    note_all(&s.notes);
    Ok(s)
}

fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Plot { run, figures, out } => {
            let loaded = load_run(&run)?;
            // Before anything is written.
            chosen_figures(&loaded, figures.as_deref())?;
            let out = prepare(&out.unwrap_or_else(|| default_for_run(&run)), &[&run])?;
            for chart in plot_run(&loaded, &out, figures.as_deref())? {
                for f in chart.files {
                    println!("{}", f.display());
                }
            }
        }
        Command::Report { run, baseline, epochs, out } => {
            let loaded = load_run(&run)?;
            let series = baseline.iter().map(|b| load_series(b)).collect::<Result<Vec<_>>>()?;
            check_epochs(&loaded, epochs.as_deref())?;
            let out = prepare(&out.unwrap_or_else(|| default_for_run(&run)), &[&run])?;
            println!("{}", write_report(&loaded, &series, epochs.as_deref(), &out)?.display());
        }
        Command::Compare { runs, statistic, mixed_references, out } => {
            let loaded = runs.iter().map(|r| load_run(r)).collect::<Result<Vec<_>>>()?;
            check_comparable(&loaded, mixed_references)?;
            let dirs: Vec<&Path> = runs.iter().map(PathBuf::as_path).collect();
            let out = prepare(&out.unwrap_or_else(|| PathBuf::from("compare-analysis")), &dirs)?;
            let stat = match statistic {
                Statistic::Best => EpochStatistic::Best,
                Statistic::Mean => EpochStatistic::Mean,
                Statistic::Median => EpochStatistic::Median,
            };
            let (charts, md) = compare_runs(&loaded, stat, mixed_references, &out)?;
            for f in charts.into_iter().flat_map(|c| c.files) {
                println!("{}", f.display());
            }
            println!("{}", md.display());
        }
        Command::Validation { runs, reach, log_time, out } => {
            let loaded = load_all(&runs)?;
            for run in &loaded {
                note_all(&run.notes);
            }
            let dirs: Vec<&Path> = runs.iter().map(PathBuf::as_path).collect();
            let out = prepare(&out.unwrap_or_else(|| PathBuf::from("validation-analysis")), &dirs)?;
            let (charts, md) = validation_charts(&loaded, reach, log_time, &out)?;
            for f in charts.into_iter().flat_map(|c| c.files) {
                println!("{}", f.display());
            }
            println!("{}", md.display());
        }
        Command::Noise { runs, last, blocks } => {
            let loaded = runs.iter().map(|r| load_run(r)).collect::<Result<Vec<_>>>()?;
            println!("{}\n", NOISE_KEY);
            print!("{}", noise_table(&loaded, last as usize).markdown());
            if let Some(block) = blocks {
                println!("\nMean reliability per {block} generations:\n");
                print!("{}", reliability_by_block(&loaded, block as usize).markdown());
            }
        }
        Command::Export { run, csv: _, out } => {
            let loaded = load_run(&run)?;
            let out = prepare(&out.unwrap_or_else(|| default_for_run(&run)), &[&run])?;
            for file in export_csv(&loaded, &out)? {
                println!("{}", file.display());
            }
        }
        Command::Matches { files, out, charts, block } => {
            let series = files.iter().map(|f| load_series(f)).collect::<Result<Vec<_>>>()?;
            if let Some(dir) = charts {
                let dir = prepare(&dir, &[])?;
                for f in plot_series_blocks(&series, block as usize, &dir)?.into_iter().flat_map(|c| c.files) {
                    eprintln!("{}", f.display());
                }
            }
            let text = matches_markdown(&series);
            if let Some(path) = out {
                if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                    std::fs::create_dir_all(dir).map_err(|e| AnalysisError::Write(dir.to_path_buf(), e))?;
                }
                write_text(&path, &text)?;
            }
            print!("{text}");
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("analysis: error: {e}");
            ExitCode::FAILURE
        }
    }
}
