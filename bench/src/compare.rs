//! `loa-bench dispatch --baseline BINARY`: this build's dispatch figures side by side with
//! another build's.
//!
//! The master CPU per task drifts by tens of percent within minutes on a shared machine, so
//! figures taken at different times compare badly. Here both builds run the benchmark as child
//! processes, interleaved (baseline, new, baseline, new, ...), so both see the same load, and the
//! median and best of each are compared. A build is either another `loa-bench` (`BINARY
//! dispatch`) or a master that still carried the benchmark (`BINARY bench-dispatch`); both
//! print the figures compared in the same form. The baseline gets those of the workload's flags
//! that its `--help` lists, so both measure the same workload where the baseline can, and any
//! given for it alone (`--baseline-args`).

use crate::BenchError;
use std::path::{Path, PathBuf};
use std::process::Command;

/// What one run of the benchmark printed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DispatchRun {
    /// Master CPU per task, µs.
    pub cpu_us: f64,
    /// Tasks per second.
    pub tasks_per_second: f64,
    /// The time of one real tournament, ms (T), if printed.
    pub tournament_ms: Option<f64>,
    /// CPU per task of the thread that submits and collects (µs), if printed: the master
    /// spends it too.
    pub collector_us: Option<f64>,
}

/// Parses the report of a dispatch benchmark: `None` if a figure is missing.
pub fn parse_dispatch(output: &str) -> Option<DispatchRun> {
    let mut cpu_us = None;
    let mut tasks_per_second = None;
    let mut tournament_ms = None;
    let mut collector_us = None;
    for line in output.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        if let Some(i) = words.iter().position(|w| *w == "CPU") {
            // "master CPU 35.0 µs per task"
            cpu_us = words.get(i + 1).and_then(|w| w.parse::<f64>().ok());
        } else if words.get(1) == Some(&"tasks/s") {
            tasks_per_second = words.first().and_then(|w| w.parse::<f64>().ok());
        } else if words.get(2).is_some_and(|w| w.starts_with("tournament")) {
            // "one 3-ply tournament: 43.1 ms"
            tournament_ms = words.get(3).and_then(|w| w.parse::<f64>().ok());
        } else if words.get(1) == Some(&"collecting") {
            // "the collecting thread (a run's own): 1.53 µs per task more"
            collector_us = words.iter().find_map(|w| w.parse::<f64>().ok());
        }
    }
    Some(DispatchRun { cpu_us: cpu_us?, tasks_per_second: tasks_per_second?, tournament_ms, collector_us })
}

/// A build that runs the dispatch benchmark: its binary, the subcommand that does, and the
/// flags that subcommand takes.
#[derive(Clone, Debug)]
pub struct Build {
    /// The binary.
    pub binary: PathBuf,
    /// `dispatch` (`loa-bench`) or `bench-dispatch` (a master that carried the benchmark).
    pub subcommand: &'static str,
    /// The flags its `--help` lists.
    pub flags: Vec<String>,
}

/// The subcommands that run the benchmark, in the order they are tried.
const SUBCOMMANDS: [&str; 2] = ["dispatch", "bench-dispatch"];

impl Build {
    /// The build of `binary`: whichever of the subcommands its `--help` knows.
    pub fn detect(binary: &Path) -> Result<Build, BenchError> {
        for subcommand in SUBCOMMANDS {
            let output = Command::new(binary)
                .args([subcommand, "--help"])
                .output()
                .map_err(|source| BenchError::Spawn { program: binary.to_owned(), source })?;
            let help = String::from_utf8_lossy(&output.stdout);
            if output.status.success() && help.contains("--tasks") {
                let flags =
                    help.split_whitespace().filter(|w| w.starts_with("--")).map(|w| w.trim_end_matches(',').to_owned());
                return Ok(Build { binary: binary.to_owned(), subcommand, flags: flags.collect() });
            }
        }
        Err(BenchError::Build {
            binary: binary.to_owned(),
            problem: format!("runs no dispatch benchmark (neither `{}` nor `{}`)", SUBCOMMANDS[0], SUBCOMMANDS[1]),
        })
    }

    /// Those of `args` (flags, each followed by its value unless the next is a flag too) that
    /// this build takes.
    pub fn accepted(&self, args: &[String]) -> Vec<String> {
        let mut out = Vec::new();
        let mut i = 0;
        while i < args.len() {
            let takes_value = args.get(i + 1).is_some_and(|next| !next.starts_with("--"));
            let end = if takes_value { i + 2 } else { i + 1 };
            if self.flags.contains(&args[i]) {
                out.extend_from_slice(&args[i..end]);
            }
            i = end;
        }
        out
    }

    /// Runs the benchmark with `args` and reads its figures.
    fn run(&self, args: &[String]) -> Result<DispatchRun, BenchError> {
        let failed = |problem| BenchError::Build { binary: self.binary.clone(), problem };
        let output = Command::new(&self.binary)
            .arg(self.subcommand)
            .args(args)
            .output()
            .map_err(|source| BenchError::Spawn { program: self.binary.clone(), source })?;
        let stdout = String::from_utf8_lossy(&output.stdout);
        if !output.status.success() {
            let stderr = String::from_utf8_lossy(&output.stderr);
            return Err(failed(format!("{} failed ({}): {}", self.subcommand, output.status, stderr.trim())));
        }
        parse_dispatch(&stdout).ok_or_else(|| failed(format!("no dispatch figures in {stdout:?}")))
    }
}

/// The median of `xs` (not empty).
fn median(xs: &[f64]) -> f64 {
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    let mid = v.len() / 2;
    if v.len() % 2 == 1 { v[mid] } else { (v[mid - 1] + v[mid]) / 2.0 }
}

/// The load average of the last minute, if the system says.
fn load_average() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg").ok()?.split_whitespace().next()?.parse().ok()
}

/// Runs `baseline` with those of `args` it takes and `extra`, and `new` with `args`,
/// alternately, `rounds` times each (baseline first), with progress on stderr, and returns the
/// comparison: master CPU per task, the collecting thread's and tasks per second, median and
/// best of each, and the ratios (above 1: the new build costs less, or dispatches more).
pub fn compare_dispatch(
    baseline: &Path,
    new: &Path,
    args: &[String],
    extra: &[String],
    rounds: u32,
) -> Result<String, BenchError> {
    let rounds = rounds.max(1);
    let (old_build, new_build) = (Build::detect(baseline)?, Build::detect(new)?);
    let mut base_args = old_build.accepted(args);
    base_args.extend_from_slice(extra);
    let load_before = load_average();
    let (mut old, mut fresh) = (Vec::new(), Vec::new());
    for round in 1..=rounds {
        eprintln!("round {round}/{rounds}: baseline {}", baseline.display());
        old.push(old_build.run(&base_args)?);
        eprintln!("round {round}/{rounds}: new {}", new.display());
        fresh.push(new_build.run(args)?);
    }
    let load_after = load_average();
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let mut out = format!(
        "dispatch side by side: {rounds} interleaved rounds, {cores} cores\n  baseline {} {} {}\n  new      {} {} {}\n",
        baseline.display(),
        old_build.subcommand,
        base_args.join(" "),
        new.display(),
        new_build.subcommand,
        args.join(" ")
    );
    if let (Some(before), Some(after)) = (load_before, load_after) {
        out += &format!("  load average (1 min) {before:.2} before, {after:.2} after\n");
    }
    out += &format!("{:<28} {:>12} {:>12} {:>9}\n", "figure", "baseline", "new", "old/new");
    let row = |name: &str, o: f64, n: f64, ratio: f64, decimals: usize| {
        format!("{name:<28} {o:>12.decimals$} {n:>12.decimals$} {ratio:>8.2}x\n")
    };
    let min = |xs: &[f64]| xs.iter().copied().fold(f64::INFINITY, f64::min);
    let max = |xs: &[f64]| xs.iter().copied().fold(0.0, f64::max);
    let cpu = |runs: &[DispatchRun]| runs.iter().map(|r| r.cpu_us).collect::<Vec<_>>();
    let (old_cpu, new_cpu) = (cpu(&old), cpu(&fresh));
    let (om, nm) = (median(&old_cpu), median(&new_cpu));
    out += &row("master CPU per task, median", om, nm, om / nm, 1);
    let (ob, nb) = (min(&old_cpu), min(&new_cpu));
    out += &row("master CPU per task, best", ob, nb, ob / nb, 1);
    // The collecting thread, and the two together, where both builds print it.
    let collector = |runs: &[DispatchRun]| runs.iter().map(|r| r.collector_us).collect::<Option<Vec<_>>>();
    if let (Some(oc), Some(nc)) = (collector(&old), collector(&fresh)) {
        let (om, nm) = (median(&oc), median(&nc));
        out += &row("collecting thread, median", om, nm, om / nm, 2);
        let total = |cpu: &[f64], c: &[f64]| cpu.iter().zip(c).map(|(a, b)| a + b).collect::<Vec<_>>();
        let (ot, nt) = (total(&old_cpu, &oc), total(&new_cpu, &nc));
        let (om, nm) = (median(&ot), median(&nt));
        out += &row("both, median", om, nm, om / nm, 1);
        let (ob, nb) = (min(&ot), min(&nt));
        out += &row("both, best", ob, nb, ob / nb, 1);
    }
    let rate = |runs: &[DispatchRun]| runs.iter().map(|r| r.tasks_per_second).collect::<Vec<_>>();
    let (old_rate, new_rate) = (rate(&old), rate(&fresh));
    let (om, nm) = (median(&old_rate), median(&new_rate));
    out += &row("tasks/s, median", om, nm, nm / om, 0);
    let (ob, nb) = (max(&old_rate), max(&new_rate));
    out += &row("tasks/s, best", ob, nb, nb / ob, 0);
    // Workers per core come from one T for both (the median of every run's): T is the same
    // engine's tournament in both builds unless the engine changed, and it is the noisier figure.
    let t: Vec<f64> = old.iter().chain(&fresh).filter_map(|r| r.tournament_ms).collect();
    if !t.is_empty() {
        let t = median(&t);
        let (ow, nw) = (t * 1e3 / median(&old_cpu), t * 1e3 / median(&new_cpu));
        out += &row("workers per core, median", ow, nw, nw / ow, 0);
        out +=
            &format!("(single-slot workers one master core keeps busy at T = {t:.1} ms, the median of all runs' T)\n");
    }
    out += "(CPU in µs; ratios above 1: the new build costs less per task, or dispatches more)";
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a master that carried the benchmark printed (`master bench-dispatch --tasks 60
    /// --clients 2 --samples 1 --depth 1 --reuse repeat`).
    const MASTER_REPORT: &str = include_str!("../tests/fixtures/master-bench-dispatch.txt");

    #[test]
    fn parses_the_reports_of_both_kinds_of_build() {
        assert_eq!(
            parse_dispatch(MASTER_REPORT),
            Some(DispatchRun {
                cpu_us: 35.0,
                tasks_per_second: 14005.0,
                tournament_ms: Some(0.8),
                collector_us: Some(4.08)
            })
        );
        let bench = "dispatch: 3840000 tasks in 2 steps to 10000 stub workers over 10000 connections in 19.66 s\n  \
                     195320 tasks/s\n  master CPU 3.9 µs per task\n  the collecting thread (a run's own): 1.53 µs \
                     per task more\n  the scheduler alone (timed after, one thread, steps of 1920000 tasks, 64 a \
                     message): 0.26 µs per task\n  one 3-ply tournament: 13.5 ms\n";
        assert_eq!(
            parse_dispatch(bench),
            Some(DispatchRun {
                cpu_us: 3.9,
                tasks_per_second: 195320.0,
                tournament_ms: Some(13.5),
                collector_us: Some(1.53)
            })
        );
        let bare =
            "dispatch: 4000 tasks to 32 stub workers in 0.34 s\n  11878 tasks/s\n  master CPU 60.9 µs per task\n";
        assert_eq!(
            parse_dispatch(bare),
            Some(DispatchRun { cpu_us: 60.9, tasks_per_second: 11878.0, tournament_ms: None, collector_us: None })
        );
        assert_eq!(parse_dispatch("dispatch: nothing"), None);
        assert_eq!(parse_dispatch(&MASTER_REPORT.replace("tasks/s", "tasks")), None);
    }

    #[test]
    fn only_the_flags_a_baseline_takes_are_passed_on() {
        let args: Vec<String> =
            ["--reuse", "repeat", "--warm-up", "--chromosome-cache", "0"].map(str::to_owned).to_vec();
        let build = |flags: &[&str]| Build {
            binary: PathBuf::from("x"),
            subcommand: "dispatch",
            flags: flags.iter().map(|f| (*f).to_owned()).collect(),
        };
        assert_eq!(build(&["--tasks", "--reuse"]).accepted(&args), ["--reuse", "repeat"]);
        assert_eq!(
            build(&["--warm-up", "--chromosome-cache"]).accepted(&args),
            ["--warm-up", "--chromosome-cache", "0"]
        );
    }

    #[test]
    fn a_binary_without_the_benchmark_is_named() {
        let e = Build::detect(Path::new("/bin/true")).unwrap_err().to_string();
        assert!(e.starts_with("/bin/true: runs no dispatch benchmark"), "{e}");
        let e = Build::detect(Path::new("/nonexistent/loa-bench")).unwrap_err().to_string();
        assert!(e.starts_with("cannot run /nonexistent/loa-bench"), "{e}");
    }

    #[test]
    fn medians() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
    }
}
