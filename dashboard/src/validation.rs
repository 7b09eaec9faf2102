//! The held-out validation panel: the chart of the win rate against each opponent over the
//! run's cumulative wall or CPU time, with its 95 % interval as a band (`/api/validation.svg`).
//! The page draws the table of the latest values itself from `/api/validation`.

use loa_analysis::charts::{Chart, PALETTE, Series, Style};
use loa_records::ValidationRecord;
use std::sync::Arc;

/// A time axis of the validation chart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Axis {
    /// The run's wall-clock seconds, summed over its sessions.
    Wall,
    /// The CPU seconds of the master's process, summed over the run's sessions.
    Cpu,
}

impl Axis {
    /// The axis a query's `axis=` value names (`wall`, the default, or `cpu`); `None` otherwise.
    pub fn parse(value: Option<&str>) -> Option<Axis> {
        match value {
            None | Some("wall") => Some(Axis::Wall),
            Some("cpu") => Some(Axis::Cpu),
            Some(_) => None,
        }
    }

    fn seconds(self, r: &ValidationRecord) -> f64 {
        match self {
            Axis::Wall => r.wall_seconds,
            Axis::Cpu => r.cpu_seconds,
        }
    }

    fn label(self) -> &'static str {
        match self {
            Axis::Wall => "wall-clock time of the run",
            Axis::Cpu => "CPU time of the master's process",
        }
    }
}

/// The unit to show times up to `seconds` in: its name and its length in seconds.
fn unit(seconds: f64) -> (&'static str, f64) {
    match seconds {
        s if s < 120.0 => ("seconds", 1.0),
        s if s < 7200.0 => ("minutes", 60.0),
        _ => ("hours", 3600.0),
    }
}

/// The opponents of `records`, in the order they first appear.
pub fn opponents(records: &[Arc<ValidationRecord>]) -> Vec<&str> {
    let mut found: Vec<&str> = Vec::new();
    for r in records {
        if !found.contains(&r.opponent.as_str()) {
            found.push(&r.opponent);
        }
    }
    found
}

/// Colours in the order opponents get them (the palette without black first: black reads as
/// an axis on a small chart).
const ORDER: [usize; 8] = [2, 5, 3, 1, 4, 6, 0, 7];

/// The win rate (%) against each opponent over `axis`, one band (the 95 % Wilson interval) and
/// one line per opponent, in the order the opponents first appear.
pub fn chart(records: &[Arc<ValidationRecord>], axis: Axis) -> Chart {
    let longest = records.iter().map(|r| axis.seconds(r)).fold(0.0, f64::max);
    let (unit_name, unit_seconds) = unit(longest);
    let time = |r: &ValidationRecord| axis.seconds(r) / unit_seconds;
    let mut series = Vec::new();
    for (i, opponent) in opponents(records).into_iter().enumerate() {
        let color = PALETTE[ORDER[i % ORDER.len()]];
        let mut lines: Vec<&ValidationRecord> =
            records.iter().map(Arc::as_ref).filter(|r| r.opponent == opponent).collect();
        lines.sort_by(|a, b| time(a).total_cmp(&time(b)));
        let lower = lines.iter().map(|r| (time(r), 100.0 * r.win_rate_low));
        let upper = lines.iter().rev().map(|r| (time(r), 100.0 * r.win_rate_high));
        series.push(Series { label: String::new(), points: lower.chain(upper).collect(), color, style: Style::Band });
        let points = lines.iter().map(|r| (time(r), 100.0 * r.win_rate)).collect();
        series.push(Series { label: opponent.to_owned(), points, color, style: Style::LineAndDots });
    }
    let name = match axis {
        Axis::Wall => "wall",
        Axis::Cpu => "CPU",
    };
    Chart {
        title: format!("win rate by {name} time (band: 95 % interval)"),
        x_label: format!("{} ({unit_name})", axis.label()),
        y_label: "matches won (%)".into(),
        series,
        y_from_zero: true,
        x_whole: false,
        x_log: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(epoch: u32, opponent: &str, wins: u32, wall: f64) -> Arc<ValidationRecord> {
        let mut r = ValidationRecord::new(epoch, u64::from(epoch), 1, opponent, [wins, 10 - wins, 0]);
        (r.cpu_seconds, r.wall_seconds) = (3.0 * wall, wall);
        Arc::new(r)
    }

    #[test]
    fn each_opponent_is_a_band_and_a_line_over_the_chosen_clock() {
        let records =
            [record(0, "aloa:3", 1, 30.0), record(0, "random:3", 9, 30.0), record(1, "aloa:3", 4, 90.0)].to_vec();
        assert_eq!(opponents(&records), ["aloa:3", "random:3"]);
        let wall = chart(&records, Axis::Wall);
        let kinds: Vec<(&str, Style)> = wall.series.iter().map(|s| (s.label.as_str(), s.style)).collect();
        assert_eq!(
            kinds,
            [("", Style::Band), ("aloa:3", Style::LineAndDots), ("", Style::Band), ("random:3", Style::LineAndDots)]
        );
        assert_eq!(wall.series[1].points, [(30.0, 10.0), (90.0, 40.0)]);
        assert_eq!(wall.x_label, "wall-clock time of the run (seconds)");
        // The band goes along the lower ends and back along the upper ones: the Wilson interval
        // of 1/10 is 1.788-40.415 %, of 4/10 16.818-68.733 % (computed apart, in Python).
        let band: Vec<(f64, f64)> = wall.series[0].points.iter().map(|&(x, y)| (x, (y * 1000.0).round())).collect();
        assert_eq!(band, [(30.0, 1788.0), (90.0, 16818.0), (90.0, 68733.0), (30.0, 40415.0)]);
        // CPU time here is three times the wall time: 90 s and 270 s, shown in minutes.
        let cpu = chart(&records, Axis::Cpu);
        assert_eq!(cpu.series[1].points, [(1.5, 10.0), (4.5, 40.0)]);
        assert_eq!(cpu.x_label, "CPU time of the master's process (minutes)");
        assert_eq!(
            (Axis::parse(None), Axis::parse(Some("cpu")), Axis::parse(Some("gpu"))),
            (Some(Axis::Wall), Some(Axis::Cpu), None)
        );
    }
}
