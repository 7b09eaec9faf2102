//! `loa bench --baseline BIN`: this binary's figures side by side with another build's.
//!
//! Wall-clock figures on a shared machine drift by tens of percent within minutes, so comparing
//! numbers taken at different times says little. Here both binaries run `bench` with the same
//! arguments as child processes, interleaved (baseline, new, baseline, new, ...), so both see the
//! same load; each figure's best rate per binary is kept and the ratio new / baseline printed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus};

/// Why a side-by-side comparison stopped: a binary that would not run or whose bench failed.
#[derive(Debug, thiserror::Error)]
pub enum CompareError {
    /// The binary could not be started.
    #[error("cannot run {binary}: {source}", binary = .binary.display())]
    Start {
        /// The binary.
        binary: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// Its `bench` ended in failure: its status and what it wrote to standard error.
    #[error("{binary} bench failed ({status}): {stderr}", binary = .binary.display())]
    Failed {
        /// The binary.
        binary: PathBuf,
        /// How it ended.
        status: ExitStatus,
        /// Its standard error.
        stderr: String,
    },
}

/// One figure line of `loa bench` output, parsed back: its name and rate in units per second.
#[derive(Clone, Debug, PartialEq)]
pub struct ParsedFigure {
    /// The figure's name (the text before the rate).
    pub name: String,
    /// The rate, in `unit` per second.
    pub per_second: f64,
    /// The unit, e.g. "leaves/s".
    pub unit: String,
}

/// Parses one line printed by [`super::Figure`]'s `Display` (`NAME  RATE M|k UNIT  (DETAIL)`);
/// `None` for any other line.
pub fn parse_figure(line: &str) -> Option<ParsedFigure> {
    let (head, detail) = line.split_once("  (").unwrap_or((line, ""));
    let mut tokens: Vec<&str> = head.split_whitespace().collect();
    let unit = tokens.pop()?;
    let scale = match *tokens.last()? {
        "M" => 1e6,
        "k" => 1e3,
        _ => 1.0,
    };
    if scale != 1.0 {
        tokens.pop();
    }
    let mut rate = tokens.pop()?.parse::<f64>().ok()? * scale;
    if tokens.is_empty() || !unit.ends_with("/s") {
        return None;
    }
    // Slow figures print few digits of their rate ("0.10 k games/s") but the time per item in
    // full ("10.3 ms per game"): take the rate from the time when there is one.
    if let Some((ms, _)) = detail.split_once(" ms per ")
        && let Ok(ms) = ms.parse::<f64>()
        && ms > 0.0
    {
        rate = 1e3 / ms;
    }
    Some(ParsedFigure { name: tokens.join(" "), per_second: rate, unit: unit.to_string() })
}

/// Runs `binary bench ARGS` once and parses its figures.
fn run_bench(binary: &Path, args: &[String]) -> Result<Vec<ParsedFigure>, CompareError> {
    let output = Command::new(binary)
        .arg("bench")
        .args(args)
        .output()
        .map_err(|source| CompareError::Start { binary: binary.to_path_buf(), source })?;
    if !output.status.success() {
        return Err(CompareError::Failed {
            binary: binary.to_path_buf(),
            status: output.status,
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        });
    }
    Ok(String::from_utf8_lossy(&output.stdout).lines().filter_map(parse_figure).collect())
}

/// Each figure's rates per round, in first-seen order.
#[derive(Default)]
struct Rates {
    order: Vec<String>,
    by_name: BTreeMap<String, (String, Vec<f64>)>,
}

impl Rates {
    fn add(&mut self, figures: Vec<ParsedFigure>) {
        for f in figures {
            let entry = self.by_name.entry(f.name.clone()).or_insert_with(|| {
                self.order.push(f.name.clone());
                (f.unit.clone(), Vec::new())
            });
            entry.1.push(f.per_second);
        }
    }

    fn best(&self, name: &str) -> Option<f64> {
        self.by_name.get(name).map(|(_, rates)| rates.iter().copied().fold(0.0, f64::max))
    }
}

fn format_rate(rate: f64) -> String {
    if rate >= 1e6 {
        format!("{:.2} M", rate / 1e6)
    } else if rate >= 1e4 {
        format!("{:.2} k", rate / 1e3)
    } else {
        format!("{rate:.2}  ")
    }
}

/// Runs `baseline bench ARGS` and `new bench ARGS` alternately, `rounds` times each (baseline
/// first), printing progress to stderr, and returns the side-by-side table: per figure the best
/// rate of each binary and the ratio new / baseline (above 1: the new binary is faster).
pub fn compare(baseline: &Path, new: &Path, args: &[String], rounds: u32) -> Result<String, CompareError> {
    let (mut old_rates, mut new_rates) = (Rates::default(), Rates::default());
    for round in 1..=rounds.max(1) {
        eprintln!("round {round}/{rounds}: baseline {}", baseline.display());
        old_rates.add(run_bench(baseline, args)?);
        eprintln!("round {round}/{rounds}: new {}", new.display());
        new_rates.add(run_bench(new, args)?);
    }
    let mut out = format!(
        "loa bench side by side: {rounds} interleaved rounds, best per binary\n  baseline {}\n  new      {}\n",
        baseline.display(),
        new.display()
    );
    out += &format!("{:<50} {:>14} {:>14} {:>8}\n", "figure", "baseline", "new", "new/old");
    for name in &new_rates.order {
        let unit = &new_rates.by_name[name].0;
        let new_best = new_rates.best(name).unwrap_or(0.0);
        match old_rates.best(name) {
            Some(old_best) if old_best > 0.0 => {
                out += &format!(
                    "{name:<50} {:>14} {:>14} {:>7.2}x  ({unit})\n",
                    format_rate(old_best),
                    format_rate(new_best),
                    new_best / old_best
                );
            }
            _ => out += &format!("{name:<50} {:>14} {:>14} {:>8}  ({unit})\n", "-", format_rate(new_best), "-"),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::Figure;

    #[test]
    fn a_binary_that_does_not_run_is_named() {
        let missing = Path::new("/no/such/loa");
        let err = compare(missing, missing, &[], 1).unwrap_err();
        assert!(matches!(&err, CompareError::Start { binary, .. } if binary == missing), "{err}");
        assert!(err.to_string().starts_with("cannot run /no/such/loa: "), "{err}");
        let failing = compare(Path::new("false"), Path::new("false"), &[], 1).unwrap_err();
        assert!(matches!(&failing, CompareError::Failed { status, .. } if !status.success()), "{failing}");
        assert!(failing.to_string().starts_with("false bench failed ("), "{failing}");
    }

    #[test]
    fn printed_figures_parse_back() {
        for (rate, name) in [(463.2e6, "perft, bulk count at last ply (depth 5)"), (2630.0, "ALoA move, 5 ply")] {
            let figure = Figure { name: name.to_string(), per_second: rate, unit: "moves/s", detail: "x (y)".into() };
            let parsed = parse_figure(&figure.to_string()).unwrap();
            assert_eq!(parsed.name, name);
            assert_eq!(parsed.unit, "moves/s");
            assert!((parsed.per_second - rate).abs() <= rate * 1e-3, "{parsed:?}");
        }
        let long = "connectivity test (Euler pre-check, fill if E<=1)";
        let figure = Figure { name: long.into(), per_second: 2.5e8, unit: "tests/s", detail: "d".into() };
        assert_eq!(parse_figure(&figure.to_string()).unwrap().name, long);
        assert_eq!(parse_figure("loa bench: one thread, best of 3 runs"), None);
        // The time per item, printed in full, gives the rate of slow figures.
        let game = "network vs network game, 3 ply   0.10 k games/s  (10.3 ms per game, 83.5 plies per game, 50 games)";
        let parsed = parse_figure(game).unwrap();
        assert_eq!(parsed.name, "network vs network game, 3 ply");
        assert!((parsed.per_second - 1e3 / 10.3).abs() < 1e-9);
    }
}
