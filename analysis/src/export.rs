//! `analysis export RUN --csv --out DIR`: a run's metrics as flat CSV files, one per record
//! kind, for spreadsheets and pandas. Column names are stable: the fixed ones below, then for
//! generations each figure the run's method reports, as `figures.PATH`.
//!
//! - `generations.csv`: one row per generation line.
//! - `epochs.csv`: one row per epoch benchmark, with its best network's own scores.
//! - `benchmark.csv`: one row per benchmarked network per epoch.
//! - `validation.csv`: one row per held-out validation (only for a run that has them).

use crate::error::{AnalysisError, Result};
use crate::run::{Run, read_records};
use loa_records::{Figure, ValidationRecord};
use std::path::{Path, PathBuf};

/// The fixed columns of `generations.csv`.
pub const GENERATION_COLUMNS: [&str; 9] = [
    "generation",
    "epoch",
    "games",
    "mean_plies",
    "seconds",
    "games_per_second",
    "workers",
    "survivors_kept",
    "tournaments",
];
/// The columns of `epochs.csv`.
pub const EPOCH_COLUMNS: [&str; 9] =
    ["epoch", "generation", "networks", "best", "mean", "median", "best_serial", "best_black", "best_white"];
/// The columns of `benchmark.csv`.
pub const BENCHMARK_COLUMNS: [&str; 5] = ["epoch", "serial", "black", "white", "combined"];
/// The columns of `validation.csv`.
pub const VALIDATION_COLUMNS: [&str; 13] = [
    "epoch",
    "generation",
    "serial",
    "opponent",
    "matches",
    "wins",
    "losses",
    "ties",
    "win_rate",
    "win_rate_low",
    "win_rate_high",
    "cpu_seconds",
    "wall_seconds",
];

/// A field as CSV writes it (RFC 4180): quoted when it holds a comma, a quote or a line break.
fn field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) { format!("\"{}\"", text.replace('"', "\"\"")) } else { text.to_owned() }
}

/// A float as the shortest text that reads back to it; empty where it is not finite.
fn float(x: f64) -> String {
    if x.is_finite() { x.to_string() } else { String::new() }
}

/// CSV text with `header` and `rows`.
fn csv(header: &[String], rows: &[Vec<String>]) -> String {
    let line = |cells: &[String]| cells.iter().map(|c| field(c)).collect::<Vec<_>>().join(",") + "\n";
    std::iter::once(line(header)).chain(rows.iter().map(|r| line(r))).collect()
}

fn figure(f: &Figure) -> String {
    match f {
        Figure::Number(x) => float(*x),
        Figure::Whole(n) => n.to_string(),
        Figure::Text(t) => t.clone(),
        Figure::Absent | Figure::Group(_) => String::new(),
    }
}

/// `generations.csv`: the fixed columns, then every figure path in the order first met.
pub fn generations_csv(run: &Run) -> String {
    let mut paths: Vec<String> = Vec::new();
    for g in &run.generations {
        for (path, _) in g.figures.iter().flat_map(|f| f.leaves()) {
            if !paths.contains(&path) {
                paths.push(path);
            }
        }
    }
    let mut header: Vec<String> = GENERATION_COLUMNS.iter().map(|c| c.to_string()).collect();
    header.extend(paths.iter().map(|p| format!("figures.{p}")));
    let rows: Vec<Vec<String>> = run
        .generations
        .iter()
        .map(|g| {
            let mut row = vec![
                g.generation.to_string(),
                g.epoch.to_string(),
                g.games.to_string(),
                float(g.mean_plies),
                float(g.seconds),
                float(g.games_per_second),
                g.workers.to_string(),
                g.survivors_kept.to_string(),
                g.tournaments.len().to_string(),
            ];
            row.extend(paths.iter().map(|p| g.figures.as_ref().and_then(|f| f.get(p)).map_or(String::new(), figure)));
            row
        })
        .collect();
    csv(&header, &rows)
}

/// `epochs.csv`: each epoch's benchmark and its best network's own scores.
pub fn epochs_csv(run: &Run) -> String {
    let rows: Vec<Vec<String>> = run
        .epochs
        .iter()
        .map(|e| {
            let best = e.champion();
            let of = |f: &dyn Fn(&loa_records::BenchmarkEntry) -> String| best.map_or(String::new(), f);
            vec![
                e.epoch.to_string(),
                e.generation.to_string(),
                e.entries.len().to_string(),
                e.best.to_string(),
                float(e.mean),
                float(e.median),
                of(&|b| b.serial.to_string()),
                of(&|b| b.scores[0].to_string()),
                of(&|b| b.scores[1].to_string()),
            ]
        })
        .collect();
    csv(&EPOCH_COLUMNS.map(String::from), &rows)
}

/// `benchmark.csv`: every benchmarked network of every epoch, in population order.
pub fn benchmark_csv(run: &Run) -> String {
    let rows: Vec<Vec<String>> = run
        .epochs
        .iter()
        .flat_map(|e| {
            e.entries.iter().map(|b| {
                let [black, white] = b.scores.map(|s| s.to_string());
                vec![e.epoch.to_string(), b.serial.to_string(), black, white, b.combined.to_string()]
            })
        })
        .collect();
    csv(&BENCHMARK_COLUMNS.map(String::from), &rows)
}

/// `validation.csv` from the records of `validation.jsonl`.
pub fn validation_csv(records: &[ValidationRecord]) -> String {
    let rows: Vec<Vec<String>> = records
        .iter()
        .map(|r| {
            vec![
                r.epoch.to_string(),
                r.generation.to_string(),
                r.serial.to_string(),
                r.opponent.clone(),
                r.matches.to_string(),
                r.wins.to_string(),
                r.losses.to_string(),
                r.ties.to_string(),
                float(r.win_rate),
                float(r.win_rate_low),
                float(r.win_rate_high),
                float(r.cpu_seconds),
                float(r.wall_seconds),
            ]
        })
        .collect();
    csv(&VALIDATION_COLUMNS.map(String::from), &rows)
}

/// Writes the run's CSV files into `out` (which exists); returns the files written.
pub fn export_csv(run: &Run, out: &Path) -> Result<Vec<PathBuf>> {
    let mut files = vec![
        ("generations.csv", generations_csv(run)),
        ("epochs.csv", epochs_csv(run)),
        ("benchmark.csv", benchmark_csv(run)),
    ];
    let validation = loa_records::RunDir::new(&run.dir).validation();
    if validation.exists() {
        let mut notes = Vec::new();
        files.push(("validation.csv", validation_csv(&read_records::<ValidationRecord>(&validation, &mut notes)?)));
    }
    files
        .into_iter()
        .map(|(name, text)| {
            let path = out.join(name);
            std::fs::write(&path, text).map_err(|e| AnalysisError::Write(path.clone(), e))?;
            Ok(path)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_quoted_only_when_they_must_be() {
        assert_eq!(field("aloa:3"), "aloa:3");
        assert_eq!(field("a,b"), "\"a,b\"");
        assert_eq!(field("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!((float(0.1), float(f64::NAN), float(3.0)), ("0.1".into(), String::new(), "3".into()));
    }
}
