//! `analysis validation`: strength against compute for any set of runs, from their
//! `validation.jsonl`: for each held-out opponent, the win rate of each run's validated network
//! against the run's CPU time and against its wall time, one line per run with its 95 % Wilson
//! interval as a band, and a table of each run's last and best validation. Runs named
//! `METHOD-sN` are seeds of one method: they share a colour and a legend entry, and a second
//! table gives each method's median and spread over its seeds.

use crate::charts::{Chart, PALETTE, Series, Style, render};
use crate::error::{AnalysisError, Result};
use crate::output::write_text;
use crate::plot::ChartFile;
use crate::run::read_records;
use loa_records::{RunDir, ValidationRecord};
use std::path::{Path, PathBuf};

mod tables;
pub use tables::{seeds_table, validation_table};

/// A run's validation lines.
#[derive(Clone, Debug)]
pub struct ValidationRun {
    /// A short name for legends and tables (the directory's last component).
    pub name: String,
    /// Every complete line, in file order.
    pub records: Vec<ValidationRecord>,
    /// Things a reader should know (a cut-off last line).
    pub notes: Vec<String>,
}

impl ValidationRun {
    /// Reads the validation lines of the run at `dir`.
    pub fn load(dir: &Path) -> Result<ValidationRun> {
        if !dir.is_dir() {
            return Err(AnalysisError::NoRun(dir.to_path_buf()));
        }
        let path = RunDir::new(dir).validation();
        if !path.exists() {
            return Err(AnalysisError::NoValidation(dir.to_path_buf()));
        }
        let mut notes = Vec::new();
        let records = read_records(&path, &mut notes)?;
        let name = dir
            .canonicalize()
            .ok()
            .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
            .unwrap_or_else(|| dir.display().to_string());
        Ok(ValidationRun { name, records, notes })
    }

    /// Its lines against `opponent`, in file order.
    pub(crate) fn against<'a>(&'a self, opponent: &'a str) -> impl Iterator<Item = &'a ValidationRecord> + 'a {
        self.records.iter().filter(move |r| r.opponent == opponent)
    }
}

/// The opponents of `runs`, in the order they first appear.
pub fn opponents(runs: &[ValidationRun]) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    for r in runs.iter().flat_map(|run| &run.records) {
        if !found.contains(&r.opponent) {
            found.push(r.opponent.clone());
        }
    }
    found
}

/// Reads the validation lines of every run in `dirs`, in order. Runs whose directories share a
/// name (`runs/td/5x5-s1` and `runs/boards/5x5-s1`) are told apart by their parent directory's:
/// `td/5x5-s1`, `boards/5x5-s1`.
pub fn load_all(dirs: &[PathBuf]) -> Result<Vec<ValidationRun>> {
    let mut runs = dirs.iter().map(|dir| ValidationRun::load(dir)).collect::<Result<Vec<_>>>()?;
    let names: Vec<String> = runs.iter().map(|r| r.name.clone()).collect();
    for (run, dir) in runs.iter_mut().zip(dirs) {
        if names.iter().filter(|name| **name == run.name).count() > 1 {
            let parent =
                dir.canonicalize().ok().and_then(|p| Some(p.parent()?.file_name()?.to_string_lossy().into_owned()));
            if let Some(parent) = parent {
                run.name = format!("{parent}/{}", run.name);
            }
        }
    }
    Ok(runs)
}

/// The method a run is a seed of: its name without a trailing `-sN` (`es-s2` → `es`); a name
/// without one is a method of its own.
pub fn method_of(name: &str) -> &str {
    match name.rsplit_once("-s") {
        Some((method, seed)) if !method.is_empty() && !seed.is_empty() && seed.bytes().all(|b| b.is_ascii_digit()) => {
            method
        }
        _ => name,
    }
}

/// The methods of `runs` in the order they first appear, each with the indices of its runs.
pub(crate) fn methods(runs: &[ValidationRun]) -> Vec<(&str, Vec<usize>)> {
    let mut found: Vec<(&str, Vec<usize>)> = Vec::new();
    for (i, run) in runs.iter().enumerate() {
        let method = method_of(&run.name);
        match found.iter_mut().find(|(m, _)| *m == method) {
            Some((_, members)) => members.push(i),
            None => found.push((method, vec![i])),
        }
    }
    found
}

/// A time axis: its name, its label and a record's time on it, in seconds.
type Axis = (&'static str, &'static str, fn(&ValidationRecord) -> f64);

/// The time axes: CPU and wall.
const AXES: [Axis; 2] =
    [("CPU", "CPU time of the run's process", |r| r.cpu_seconds), ("wall", "wall-clock time", |r| r.wall_seconds)];

/// The unit to show times up to `seconds` in: its name and its length in seconds.
fn unit(seconds: f64) -> (&'static str, f64) {
    match seconds {
        s if s < 120.0 => ("seconds", 1.0),
        s if s < 7200.0 => ("minutes", 60.0),
        _ => ("hours", 3600.0),
    }
}

/// The chart of the win rate against `opponent` over one time axis: each run's band, then its
/// line, in its method's colour. The legend names a method once: by the run's name when it is
/// the method's only run, else as `METHOD (N seeds)`. With `log`, the time axis is logarithmic
/// (methods whose runs differ in compute by orders of magnitude).
pub fn strength_chart(runs: &[ValidationRun], opponent: &str, axis: usize, log: bool) -> Chart {
    let (name, x_label, seconds) = AXES[axis.min(1)];
    let longest = runs.iter().flat_map(|r| r.against(opponent)).map(seconds).fold(0.0, f64::max);
    let (unit_name, unit_seconds) = unit(longest);
    let time = |r: &ValidationRecord| seconds(r) / unit_seconds;
    let mut series = Vec::new();
    let methods = methods(runs);
    for (m, (method, members)) in methods.iter().enumerate() {
        let color = PALETTE[m % PALETTE.len()];
        for (k, &i) in members.iter().enumerate() {
            let run = &runs[i];
            let label = match (k, members.len()) {
                (0, 1) => run.name.clone(),
                (0, n) => format!("{method} ({n} seeds)"),
                _ => String::new(),
            };
            run_series(run.against(opponent), label, color, &time, &mut series);
        }
    }
    Chart {
        title: format!("win rate against {opponent} by {name} time (band: 95 % Wilson interval)"),
        x_label: format!("{x_label} ({unit_name}{})", if log { ", logarithmic scale" } else { "" }),
        y_label: "matches won (%), criterion 4 a tie".into(),
        series,
        y_from_zero: true,
        x_whole: false,
        x_log: log,
    }
}

/// Pushes one run's band and line (labelled `label`) onto `series`.
fn run_series<'a>(
    records: impl Iterator<Item = &'a ValidationRecord>,
    label: String,
    color: (u8, u8, u8),
    time: &dyn Fn(&ValidationRecord) -> f64,
    series: &mut Vec<Series>,
) {
    let mut lines: Vec<&ValidationRecord> = records.collect();
    lines.sort_by(|a, b| time(a).total_cmp(&time(b)));
    let lower = lines.iter().map(|r| (time(r), 100.0 * r.win_rate_low));
    let upper = lines.iter().rev().map(|r| (time(r), 100.0 * r.win_rate_high));
    series.push(Series { label: String::new(), points: lower.chain(upper).collect(), color, style: Style::Band });
    let points = lines.iter().map(|r| (time(r), 100.0 * r.win_rate)).collect();
    series.push(Series { label, points, color, style: Style::LineAndDots });
}

/// Writes, for each opponent, `validation-N` (PNG + SVG: the win rate against CPU and against
/// wall time, side by side; N counts the opponents from 1) and `validation.md` (the tables) into
/// `out`; with `reach`, the tables time each run's first validation at or above `reach` %; with
/// `log_time`, the charts' time axes are logarithmic. Returns the charts and the Markdown file.
pub fn validation_charts(
    runs: &[ValidationRun],
    reach: Option<f64>,
    log_time: bool,
    out: &Path,
) -> Result<(Vec<ChartFile>, PathBuf)> {
    let mut written = Vec::new();
    for (i, opponent) in opponents(runs).iter().enumerate() {
        let charts = [strength_chart(runs, opponent, 0, log_time), strength_chart(runs, opponent, 1, log_time)];
        let name = format!("validation-{}", i + 1);
        let title = format!("strength against {opponent}");
        written.push(ChartFile {
            caption: format!("win rate against {opponent} by CPU time and by wall time, with 95 % intervals"),
            files: render(&out.join(&name), Some(&title), &charts, 2)?,
            name,
        });
    }
    let mut md = String::from("# Validation\n\n");
    md.push_str(&validation_table(runs, reach).markdown());
    let seeds = seeds_table(runs, reach);
    if !seeds.rows.is_empty() {
        md.push_str("\n## Seeds of one method\n\n");
        md.push_str(&seeds.markdown());
    }
    for chart in &written {
        md.push_str(&format!("\n![{}]({}.png)\n", chart.caption, chart.name));
    }
    let path = out.join("validation.md");
    write_text(&path, &md)?;
    Ok((written, path))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(epoch: u32, opponent: &str, wins: u32, seconds: f64) -> ValidationRecord {
        let mut r = ValidationRecord::new(epoch, u64::from(epoch) * 10, 1, opponent, [wins, 10 - wins, 0]);
        (r.cpu_seconds, r.wall_seconds) = (2.0 * seconds, seconds);
        r
    }

    fn run(name: &str, records: Vec<ValidationRecord>) -> ValidationRun {
        ValidationRun { name: name.into(), records, notes: Vec::new() }
    }

    #[test]
    fn each_run_is_a_band_and_a_line_in_minutes_and_percent() {
        let runs = [
            run("a", vec![record(0, "aloa:3", 1, 60.0), record(0, "random:3", 9, 60.0), record(1, "aloa:3", 4, 120.0)]),
            run("b", vec![record(0, "aloa:3", 2, 30.0)]),
        ];
        assert_eq!(opponents(&runs), ["aloa:3", "random:3"]);
        let wall = strength_chart(&runs, "aloa:3", 1, false);
        assert_eq!(wall.series.len(), 4);
        // Times below 120 s in seconds, below 2 h in minutes, else in hours.
        assert_eq!(wall.series[1].points, [(1.0, 10.0), (2.0, 40.0)]);
        assert_eq!(wall.x_label, "wall-clock time (minutes)");
        let short = strength_chart(&runs[1..], "aloa:3", 1, false);
        assert_eq!(
            (short.series[1].points.as_slice(), short.x_label.as_str()),
            (&[(30.0, 20.0)][..], "wall-clock time (seconds)")
        );
        assert_eq!((wall.series[1].label.as_str(), wall.series[1].style), ("a", Style::LineAndDots));
        // The band: the lower ends left to right, then the upper ends back. Wilson intervals of
        // 1/10 and 4/10 by the formula in Python's decimal at 40 digits: 1.78762-40.41500 % and
        // 16.81803-68.73262 %.
        let band = &wall.series[0];
        assert_eq!(band.style, Style::Band);
        let xs: Vec<f64> = band.points.iter().map(|p| p.0).collect();
        assert_eq!(xs, [1.0, 2.0, 2.0, 1.0]);
        let want = [1.787_621_309_507, 16.818_032_970_624, 68.732_623_026_634, 40.415_002_679_524];
        for (got, want) in band.points.iter().zip(want) {
            assert!((got.1 - want).abs() < 1e-9, "{:?}", band.points);
        }
        let cpu = strength_chart(&runs, "aloa:3", 0, false);
        assert_eq!(cpu.series[1].points, [(2.0, 10.0), (4.0, 40.0)]);
        assert_eq!(cpu.x_label, "CPU time of the run's process (minutes)");
        assert!(!cpu.x_log);
        let logged = strength_chart(&runs, "aloa:3", 0, true);
        assert_eq!((logged.x_log, logged.series[1].points.as_slice()), (true, cpu.series[1].points.as_slice()));
        assert_eq!(logged.x_label, "CPU time of the run's process (minutes, logarithmic scale)");
        assert_eq!((unit(7199.0), unit(7200.0)), (("minutes", 60.0), ("hours", 3600.0)));
        let table = validation_table(&runs, None);
        assert_eq!(table.rows.len(), 3);
        assert_eq!(table.rows[0][..6], ["a", "aloa:3", "1", "10", "40.0", "16.8-68.7"]);
    }

    #[test]
    fn seeds_of_a_method_share_a_colour_a_legend_entry_and_a_summary_row() {
        assert_eq!(
            ["es-s1", "es-hall-of-fame-s12", "td/8x8-s3", "thesis", "cma-es-s", "-s1", "run-sx1"].map(method_of),
            ["es", "es-hall-of-fame", "td/8x8", "thesis", "cma-es-s", "-s1", "run-sx1"]
        );
        let runs = [
            run("es-s1", vec![record(0, "aloa:3", 2, 60.0), record(1, "aloa:3", 4, 120.0)]),
            run("thesis-s1", vec![record(0, "aloa:3", 0, 60.0)]),
            run("es-s2", vec![record(0, "aloa:3", 5, 60.0), record(1, "aloa:3", 1, 180.0)]),
            run("es-s3", vec![record(0, "aloa:3", 7, 30.0)]),
        ];
        let chart = strength_chart(&runs, "aloa:3", 0, false);
        let lines: Vec<&Series> = chart.series.iter().filter(|s| s.style == Style::LineAndDots).collect();
        let labels: Vec<&str> = lines.iter().map(|s| s.label.as_str()).collect();
        // Grouped by method in order of first appearance: es's three seeds, then thesis.
        assert_eq!(labels, ["es (3 seeds)", "", "", "thesis-s1"]);
        assert_eq!(lines[2].points, [(1.0, 70.0)]);
        assert!(lines[..3].iter().all(|s| s.color == PALETTE[0]) && lines[3].color == PALETTE[1]);
        // Only es has several seeds, so the summary table has its row alone.
        assert_eq!(seeds_table(&runs, None).rows.len(), 1);
    }

    #[test]
    fn runs_of_the_same_name_are_told_apart_by_their_parent() {
        let tmp = tempfile::tempdir().unwrap();
        let dirs: Vec<PathBuf> =
            ["td/5x5-s1", "boards/5x5-s1", "boards/6x6-s1"].iter().map(|d| tmp.path().join(d)).collect();
        for dir in &dirs {
            std::fs::create_dir_all(dir).unwrap();
            let line = serde_json::to_string(&record(0, "aloa:3", 3, 1.0)).unwrap();
            std::fs::write(RunDir::new(dir).validation(), line + "\n").unwrap();
        }
        let names: Vec<String> = load_all(&dirs).unwrap().into_iter().map(|r| r.name).collect();
        assert_eq!(names, ["td/5x5-s1", "boards/5x5-s1", "6x6-s1"]);
    }

    #[test]
    fn a_run_without_validation_is_named_with_what_to_do() {
        let tmp = tempfile::tempdir().unwrap();
        let err = ValidationRun::load(tmp.path()).unwrap_err().to_string();
        assert!(err.contains("no validation.jsonl") && err.contains("[validation]"), "{err}");
    }
}
