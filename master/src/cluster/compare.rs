//! `master bench-dispatch --baseline BIN`: this build's dispatch figures side by side with
//! another build's (issue 14).
//!
//! The master CPU per task drifts by tens of percent within minutes on a shared machine, so
//! figures taken at different times compare badly. Here both binaries run `bench-dispatch` as child
//! processes, interleaved (baseline, new, baseline, new, ...), so both see the same load, and the
//! median and best of each are compared. The baseline gets the arguments every build of
//! `bench-dispatch` takes (`--tasks --clients --samples --depth`), those of the workload options
//! (`--reuse`, `--chromosome-cache`, `--float-weights`) its `--help` lists, so both builds measure
//! the same workload where the baseline can, and any given for it alone (e.g. `--protocol
//! separate`). A build older than the workload options is measured on its one workload, which
//! sends every task's weights whatever the reuse; one older than `--protocol` leases with a
//! Lease and a Complete per task.

use std::path::Path;
use std::process::Command;

/// What one `bench-dispatch` run printed: master CPU per task (µs) and tasks per second.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DispatchRun {
    /// Master CPU per task, µs.
    pub cpu_us: f64,
    /// Tasks per second.
    pub tasks_per_second: f64,
    /// The time of one real tournament, ms (T), if printed.
    pub tournament_ms: Option<f64>,
    /// CPU per task of the thread that submits and collects (µs), if printed (later builds):
    /// the master spends it too.
    pub collector_us: Option<f64>,
}

/// Parses the output of `bench-dispatch` (the [`super::DispatchFigures`] display, in this build's
/// form and in older builds'): `None` if a figure is missing.
pub fn parse_dispatch(output: &str) -> Option<DispatchRun> {
    let mut cpu_us = None;
    let mut tasks_per_second = None;
    let mut tournament_ms = None;
    let mut collector_us = None;
    for line in output.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        if let Some(i) = words.iter().position(|w| *w == "CPU") {
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

fn run(binary: &Path, args: &[String]) -> Result<DispatchRun, String> {
    let output = Command::new(binary)
        .arg("bench-dispatch")
        .args(args)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", binary.display()))?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() {
        return Err(format!(
            "{} bench-dispatch failed ({}): {}",
            binary.display(),
            output.status,
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    parse_dispatch(&stdout).ok_or_else(|| format!("{}: no dispatch figures in {stdout:?}", binary.display()))
}

/// The median of `xs` (not empty).
fn median(xs: &[f64]) -> f64 {
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    let mid = v.len() / 2;
    if v.len() % 2 == 1 { v[mid] } else { (v[mid - 1] + v[mid]) / 2.0 }
}

/// The flags of `binary bench-dispatch --help`.
fn flags_of(binary: &Path) -> Result<Vec<String>, String> {
    let output = Command::new(binary)
        .args(["bench-dispatch", "--help"])
        .output()
        .map_err(|e| format!("cannot run {}: {e}", binary.display()))?;
    let help = String::from_utf8_lossy(&output.stdout);
    Ok(help.split_whitespace().filter(|w| w.starts_with("--")).map(|w| w.trim_end_matches(',').to_owned()).collect())
}

/// Those of `args` (flags, each followed by its value unless the next is a flag too) that
/// `accepted` lists.
fn accepted_args(args: &[String], accepted: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let takes_value = args.get(i + 1).is_some_and(|next| !next.starts_with("--"));
        let end = if takes_value { i + 2 } else { i + 1 };
        if accepted.contains(&args[i]) {
            out.extend_from_slice(&args[i..end]);
        }
        i = end;
    }
    out
}

/// Runs `baseline bench-dispatch COMMON SHARED' EXTRA` (SHARED' the part of `shared` the
/// baseline's `--help` lists) and `new bench-dispatch COMMON OWN` alternately, `rounds` times
/// each (baseline first), with progress on stderr, and returns the comparison: master CPU per
/// task and tasks per second, median and best of each, and the ratios (above 1: the new build
/// costs less, or dispatches more).
pub fn compare_dispatch(
    baseline: &Path,
    new: &Path,
    common: &[String],
    shared: &[String],
    extra: &[String],
    own: &[String],
    rounds: u32,
) -> Result<String, String> {
    let rounds = rounds.max(1);
    let new_args: Vec<String> = common.iter().chain(own).cloned().collect();
    let mut base_args: Vec<String> = common.to_vec();
    base_args.extend(accepted_args(shared, &flags_of(baseline)?));
    base_args.extend_from_slice(extra);
    let common = &base_args;
    let (mut old, mut fresh) = (Vec::new(), Vec::new());
    for round in 1..=rounds {
        eprintln!("round {round}/{rounds}: baseline {}", baseline.display());
        old.push(run(baseline, common)?);
        eprintln!("round {round}/{rounds}: new {}", new.display());
        fresh.push(run(new, &new_args)?);
    }
    let cpu = |runs: &[DispatchRun]| runs.iter().map(|r| r.cpu_us).collect::<Vec<_>>();
    let rate = |runs: &[DispatchRun]| runs.iter().map(|r| r.tasks_per_second).collect::<Vec<_>>();
    let (old_cpu, new_cpu, old_rate, new_rate) = (cpu(&old), cpu(&fresh), rate(&old), rate(&fresh));
    let min = |xs: &[f64]| xs.iter().copied().fold(f64::INFINITY, f64::min);
    let max = |xs: &[f64]| xs.iter().copied().fold(0.0, f64::max);
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let mut out = format!(
        "bench-dispatch side by side: {rounds} interleaved rounds, {cores} cores\n  baseline {} {}\n  new      {} {}\n",
        baseline.display(),
        common.join(" "),
        new.display(),
        new_args.join(" ")
    );
    out += &format!("{:<28} {:>12} {:>12} {:>9}\n", "figure", "baseline", "new", "old/new");
    let (om, nm) = (median(&old_cpu), median(&new_cpu));
    out += &format!("{:<28} {:>12.1} {:>12.1} {:>8.2}x\n", "master CPU per task, median", om, nm, om / nm);
    let (ob, nb) = (min(&old_cpu), min(&new_cpu));
    out += &format!("{:<28} {:>12.1} {:>12.1} {:>8.2}x\n", "master CPU per task, best", ob, nb, ob / nb);
    // The collecting thread, and the two together, where both builds print it.
    let collector = |runs: &[DispatchRun]| runs.iter().map(|r| r.collector_us).collect::<Option<Vec<_>>>();
    if let (Some(oc), Some(nc)) = (collector(&old), collector(&fresh)) {
        let (om, nm) = (median(&oc), median(&nc));
        out += &format!("{:<28} {:>12.2} {:>12.2} {:>8.2}x\n", "collecting thread, median", om, nm, om / nm);
        let total = |cpu: &[f64], c: &[f64]| cpu.iter().zip(c).map(|(a, b)| a + b).collect::<Vec<_>>();
        let (ot, nt) = (total(&old_cpu, &oc), total(&new_cpu, &nc));
        let (om, nm) = (median(&ot), median(&nt));
        out += &format!("{:<28} {:>12.1} {:>12.1} {:>8.2}x\n", "both, median", om, nm, om / nm);
        let (ob, nb) = (min(&ot), min(&nt));
        out += &format!("{:<28} {:>12.1} {:>12.1} {:>8.2}x\n", "both, best", ob, nb, ob / nb);
    }
    let (om, nm) = (median(&old_rate), median(&new_rate));
    out += &format!("{:<28} {:>12.0} {:>12.0} {:>8.2}x\n", "tasks/s, median", om, nm, nm / om);
    let (ob, nb) = (max(&old_rate), max(&new_rate));
    out += &format!("{:<28} {:>12.0} {:>12.0} {:>8.2}x\n", "tasks/s, best", ob, nb, nb / ob);
    // Workers per core come from one T for both (the median of every run's): T is the same
    // engine's tournament in both builds unless the engine changed, and it is the noisier figure.
    let t: Vec<f64> = old.iter().chain(&fresh).filter_map(|r| r.tournament_ms).collect();
    if !t.is_empty() {
        let t = median(&t);
        let (ow, nw) = (t * 1e3 / median(&old_cpu), t * 1e3 / median(&new_cpu));
        out += &format!("{:<28} {:>12.0} {:>12.0} {:>8.2}x\n", "workers per core, median", ow, nw, nw / ow);
        out +=
            &format!("(single-slot workers one master core keeps busy at T = {t:.1} ms, the median of all runs' T)\n");
    }
    out += "(CPU in µs; ratios above 1: the new build costs less per task, or dispatches more)";
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_this_builds_output_and_older_builds() {
        let now = "dispatch: 4000 tasks to 32 stub workers in 0.38 s\n  networks reused: knockout; chromosome cache: 4096 per stub; weights as bytes\n  networks sent: 1 by id, 2 with weights; 0 fetched; lease payload 30640 bytes per task\n  10648 tasks/s (each a lease and a complete round trip)\n  master CPU 49.3 µs per task\n  one 3-ply tournament: 43.1 ms\n  => one master core keeps about 558 single-slot workers busy\n";
        assert_eq!(
            parse_dispatch(now),
            Some(DispatchRun {
                cpu_us: 49.3,
                tasks_per_second: 10648.0,
                tournament_ms: Some(43.1),
                collector_us: None
            })
        );
        let collecting = "dispatch: 3840000 tasks in 2 steps to 10000 stub workers over 10000 connections in 19.66 s\n  195320 tasks/s\n  master CPU 3.9 µs per task\n  the collecting thread (a run's own): 1.53 µs per task more\n  the scheduler alone (timed after, one thread, steps of 1920000 tasks): 0.26 µs per task\n  one 3-ply tournament: 13.5 ms\n";
        assert_eq!(
            parse_dispatch(collecting),
            Some(DispatchRun {
                cpu_us: 3.9,
                tasks_per_second: 195320.0,
                tournament_ms: Some(13.5),
                collector_us: Some(1.53)
            })
        );
        let combined = "dispatch: 4000 tasks to 32 stub workers in 0.3 s\n  leasing: combined; calls: 64 Lease, 4000 Complete, 0 FetchChromosomes (1.02 a task)\n  13000 tasks/s\n  master CPU 30.5 µs per task\n";
        assert_eq!(
            parse_dispatch(combined),
            Some(DispatchRun { cpu_us: 30.5, tasks_per_second: 13000.0, tournament_ms: None, collector_us: None })
        );
        let old = "dispatch: 4000 tasks to 32 stub workers in 0.34 s\n  11878 tasks/s (each a lease and a complete round trip)\n  master CPU 60.9 µs per task\n";
        assert_eq!(
            parse_dispatch(old),
            Some(DispatchRun { cpu_us: 60.9, tasks_per_second: 11878.0, tournament_ms: None, collector_us: None })
        );
        assert_eq!(parse_dispatch("dispatch: nothing"), None);
    }

    #[test]
    fn only_the_flags_a_baseline_takes_are_passed_on() {
        let args: Vec<String> =
            ["--reuse", "repeat", "--float-weights", "--chromosome-cache", "0"].map(str::to_owned).to_vec();
        let old = ["--tasks".to_owned(), "--reuse".to_owned()];
        assert_eq!(accepted_args(&args, &old), ["--reuse", "repeat"]);
        let new = ["--float-weights".to_owned(), "--chromosome-cache".to_owned()];
        assert_eq!(accepted_args(&args, &new), ["--float-weights", "--chromosome-cache", "0"]);
    }

    #[test]
    fn medians() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
    }
}
