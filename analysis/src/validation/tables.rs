//! The tables of `analysis validation`: one row per run, and one per method of several seeds.

use super::{ValidationRun, methods, opponents};
use crate::stats::describe::median;
use crate::tables::{Table, num};
use loa_records::ValidationRecord;
use loa_records::interval::wilson95;

/// How many of a run's last validations are pooled for its end level (the headers say 5): 1 000
/// matches of nearly the same network with the usual 200 a validation, an interval under half
/// as wide as one validation's.
pub const POOLED: usize = 5;

/// A run's validations against one opponent, in file order, and what the tables read from them.
struct Lines<'a>(Vec<&'a ValidationRecord>);

impl Lines<'_> {
    /// The last `POOLED` validations pooled: their win rate and its 95 % Wilson interval, in
    /// percent.
    fn pooled(&self) -> (f64, (f64, f64)) {
        let tail = &self.0[self.0.len().saturating_sub(POOLED)..];
        let wins: u64 = tail.iter().map(|r| u64::from(r.wins)).sum();
        let matches: u64 = tail.iter().map(|r| u64::from(r.matches)).sum();
        let (low, high) = wilson95(wins, matches).unwrap_or((0.0, 1.0));
        let rate = if matches == 0 { 0.0 } else { wins as f64 / matches as f64 };
        (100.0 * rate, (100.0 * low, 100.0 * high))
    }

    /// The CPU seconds of the first validation that won at least `percent` % of its matches.
    fn first_reaching(&self, percent: f64) -> Option<f64> {
        // Rates are ratios of small integers: compare with a little slack so 35 % reaches 35.
        self.0.iter().find(|r| 100.0 * r.win_rate >= percent - 1e-9).map(|r| r.cpu_seconds)
    }
}

/// An interval in percent, as the tables print it.
fn interval((low, high): (f64, f64)) -> String {
    format!("{low:.1}-{high:.1}")
}

/// Minutes of CPU, or "not reached".
fn minutes(seconds: Option<f64>) -> String {
    seconds.filter(|s| s.is_finite()).map_or_else(|| "not reached".into(), |s| num(s / 60.0, 1))
}

/// The reach column's header.
fn reach_header(percent: f64) -> String {
    format!("First ≥ {percent} % (CPU min)")
}

/// One row per run and opponent: its last validation, its last `POOLED` pooled, its best, and
/// (with `reach`) the CPU time of its first validation at or above `reach` %.
pub fn validation_table(runs: &[ValidationRun], reach: Option<f64>) -> Table {
    let mut headers: Vec<String> = [
        "Run",
        "Opponent",
        "Last epoch",
        "Matches",
        "Win rate (%)",
        "95 % interval",
        "Last 5 pooled (%)",
        "95 % interval (pooled)",
        "CPU (min)",
        "Wall (min)",
        "Best win rate (%)",
        "At epoch",
    ]
    .map(String::from)
    .into();
    headers.extend(reach.map(reach_header));
    let mut rows = Vec::new();
    for opponent in opponents(runs) {
        for run in runs {
            let lines = Lines(run.against(&opponent).collect());
            let (Some(last), Some(best)) = (
                lines.0.last(),
                lines.0.iter().max_by(|a, b| a.win_rate.total_cmp(&b.win_rate).then(b.epoch.cmp(&a.epoch))),
            ) else {
                continue;
            };
            let (pooled, pooled_interval) = lines.pooled();
            let mut row = vec![
                run.name.clone(),
                opponent.clone(),
                last.epoch.to_string(),
                last.matches.to_string(),
                num(100.0 * last.win_rate, 1),
                interval((100.0 * last.win_rate_low, 100.0 * last.win_rate_high)),
                num(pooled, 1),
                interval(pooled_interval),
                num(last.cpu_seconds / 60.0, 2),
                num(last.wall_seconds / 60.0, 2),
                num(100.0 * best.win_rate, 1),
                best.epoch.to_string(),
            ];
            row.extend(reach.map(|p| minutes(lines.first_reaching(p))));
            rows.push(row);
        }
    }
    Table { headers, rows }
}

/// The smallest and largest of `values`, as the tables print a range.
fn range(values: &[f64]) -> String {
    let low = values.iter().copied().fold(f64::INFINITY, f64::min);
    let high = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    interval((low, high))
}

/// One row per method of two or more seeds and opponent: the median and range of its seeds' last
/// validations and of their last `POOLED` pooled, the median of their best, the median CPU time
/// of the last, and (with `reach`) the median CPU time to a first validation at or above `reach`
/// % (a seed that never did counts as slower than every one that did).
pub fn seeds_table(runs: &[ValidationRun], reach: Option<f64>) -> Table {
    let mut headers: Vec<String> = [
        "Method",
        "Opponent",
        "Seeds",
        "Last win rate, median (%)",
        "Last, range (%)",
        "Last 5 pooled, median (%)",
        "Pooled, range (%)",
        "Best win rate, median (%)",
        "CPU at last (min), median",
    ]
    .map(String::from)
    .into();
    if let Some(p) = reach {
        headers.push(format!("{}, median", reach_header(p)));
        headers.push("Seeds that reached it".into());
    }
    let mut rows = Vec::new();
    for opponent in opponents(runs) {
        for (method, members) in methods(runs).into_iter().filter(|(_, m)| m.len() > 1) {
            let seeds: Vec<Lines> = members
                .iter()
                .map(|&i| Lines(runs[i].against(&opponent).collect()))
                .filter(|l| !l.0.is_empty())
                .collect();
            if seeds.is_empty() {
                continue;
            }
            let of = |f: &dyn Fn(&Lines) -> f64| seeds.iter().map(f).collect::<Vec<f64>>();
            let last = of(&|l| l.0.last().map_or(0.0, |r| 100.0 * r.win_rate));
            let pooled = of(&|l| l.pooled().0);
            let best = of(&|l| l.0.iter().map(|r| 100.0 * r.win_rate).fold(0.0, f64::max));
            let cpu = of(&|l| l.0.last().map_or(0.0, |r| r.cpu_seconds / 60.0));
            let mut row = vec![
                method.to_string(),
                opponent.clone(),
                seeds.len().to_string(),
                num(median(&last), 1),
                range(&last),
                num(median(&pooled), 1),
                range(&pooled),
                num(median(&best), 1),
                num(median(&cpu), 2),
            ];
            if let Some(p) = reach {
                let times = of(&|l| l.first_reaching(p).unwrap_or(f64::INFINITY));
                let reached = times.iter().filter(|t| t.is_finite()).count();
                row.push(minutes(Some(median(&times))));
                row.push(format!("{reached} of {}", seeds.len()));
            }
            rows.push(row);
        }
    }
    Table { headers, rows }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(wins: u32, cpu_seconds: f64) -> ValidationRecord {
        let mut r = ValidationRecord::new(0, 0, 1, "aloa:3", [wins, 10 - wins, 0]);
        r.cpu_seconds = cpu_seconds;
        r
    }

    fn run(name: &str, wins: &[u32]) -> ValidationRun {
        let records = wins.iter().enumerate().map(|(i, &w)| record(w, 60.0 * (i + 1) as f64)).collect();
        ValidationRun { name: name.into(), records, notes: Vec::new() }
    }

    #[test]
    fn the_last_five_are_pooled_and_the_first_to_reach_a_level_is_timed() {
        // Six validations of 10 matches: the last five won 3+5+2+4+6 = 20 of 50, 40 %. Wilson's
        // 95 % intervals by the formula in Python's decimal: 20/50 27.61-53.82 %, 6/10
        // 31.27-83.18 %.
        let runs = [run("es-s1", &[9, 3, 5, 2, 4, 6])];
        let table = validation_table(&runs, Some(50.0));
        assert_eq!(table.headers.last().map(String::as_str), Some("First ≥ 50 % (CPU min)"));
        let row = &table.rows[0];
        assert_eq!(row[4..8], ["60.0", "31.3-83.2", "40.0", "27.6-53.8"]);
        // The first validation reaching 50 % is the first (9 of 10), at 1 CPU minute; 50 % is
        // reached by exactly 5 of 10 as well.
        assert_eq!(row[12], "1.0");
        assert_eq!(Lines(runs[0].records.iter().skip(1).collect()).first_reaching(50.0), Some(180.0));
        assert_eq!(Lines(runs[0].records.iter().skip(1).collect()).first_reaching(61.0), None);
        assert_eq!(validation_table(&runs, None).headers.len(), 12);
    }

    #[test]
    fn seeds_are_summarised_by_their_median_and_range_with_unreached_seeds_slowest() {
        // es: seeds reach 40 % at 2, never, and 1 CPU minutes; sorted 1, 2, ∞: the median is 2.
        // thesis: two seeds, one never reaches it: the median of (3, ∞) is not reached.
        let runs = [
            run("es-s1", &[1, 4]),
            run("es-s2", &[2, 3, 1]),
            run("es-s3", &[5]),
            run("thesis-s1", &[0, 0, 4]),
            run("thesis-s2", &[0]),
            run("other", &[9]),
        ];
        let table = seeds_table(&runs, Some(40.0));
        assert_eq!(table.rows.len(), 2);
        // es: last 40, 10, 50 %; pooled 5 of 20, 6 of 30, 5 of 10: 25, 20, 50 %; best 40, 30, 50 %.
        assert_eq!(
            table.rows[0],
            ["es", "aloa:3", "3", "40.0", "10.0-50.0", "25.0", "20.0-50.0", "40.0", "2.00", "2.0", "2 of 3"]
        );
        assert_eq!(table.rows[1][9..], ["not reached", "1 of 2"]);
        assert_eq!(seeds_table(&runs, None).headers.len(), 9);
    }
}
