//! The thesis's figures as [`Chart`]s: per-epoch benchmark curves (Figures 15-17), the same
//! smoothed with a trend line (Figures 18-19), tournament statistics per generation, runs side
//! by side, and a match series in blocks of matches (Figure 20).

use crate::charts::{Chart, PALETTE, Series, Style};
use crate::matches::MatchSeries;
use crate::run::Run;
use crate::scores::{EpochStatistic, ScoreKind};
use crate::stats::{Trend, least_squares, smooth_centred};
use loa_records::EndReason;

/// `x` with enough decimals to show 3 significant digits of `scale` (for slopes and their
/// intervals, which can be tiny over a thousand epochs): `fixed(0.000231, 0.00104)` is
/// `+0.00023`.
pub fn fixed(x: f64, scale: f64) -> String {
    if x.is_nan() {
        return "–".into();
    }
    let magnitude = if scale.is_finite() && scale != 0.0 { scale.abs().log10().floor() } else { 0.0 };
    let digits = (2.0 - magnitude).clamp(1.0, 10.0) as usize;
    format!("{x:+.digits$}")
}

/// The thesis's smoothing: each epoch with the two before and the two after (edges: the window
/// is cut to the epochs that exist, see [`smooth_centred`]).
pub const SMOOTHING_HALF_WIDTH: usize = 2;

/// The y axis of a benchmark chart by colour (each series' legend gives its unit).
pub fn score_axis(run: &Run) -> String {
    format!("benchmark score vs {} (points)", run.config.reference_name())
}

/// The y axis of a chart of combined scores against `reference`.
fn combined_axis(reference: &str) -> String {
    format!("combined score vs {reference} (points per match, max 398)")
}

fn color(kind: ScoreKind) -> (u8, u8, u8) {
    match kind {
        ScoreKind::Black => PALETTE[0],
        ScoreKind::White => PALETTE[1],
        ScoreKind::Combined => PALETTE[2],
        ScoreKind::Average => PALETTE[3],
    }
}

fn style(n: usize) -> Style {
    if n <= 60 { Style::LineAndDots } else { Style::Line }
}

/// The epochs' numbers and one statistic of one score kind, epoch by epoch.
pub fn epoch_values(run: &Run, stat: EpochStatistic, kind: ScoreKind) -> (Vec<f64>, Vec<f64>) {
    run.epochs.iter().map(|e| (f64::from(e.epoch), stat.of(e, kind))).unzip()
}

fn title(stat: EpochStatistic) -> &'static str {
    match stat {
        EpochStatistic::Best => "Highest-scoring network of each epoch",
        EpochStatistic::Mean => "Mean performance of each epoch",
        EpochStatistic::Median => "Median of each epoch's scores, curve by curve",
    }
}

/// Figures 15-17: one statistic of each epoch's benchmark, as Black, as White, combined, and the
/// average of Black and White.
pub fn epoch_chart(run: &Run, stat: EpochStatistic) -> Chart {
    let series = ScoreKind::ALL
        .iter()
        .map(|&kind| {
            let (x, y) = epoch_values(run, stat, kind);
            Series {
                label: kind.label().to_string(),
                points: x.into_iter().zip(y).collect(),
                color: color(kind),
                style: style(run.epochs.len()),
            }
        })
        .collect();
    Chart {
        title: format!("{}: {} ({} epochs)", run.name, title(stat), run.epochs.len()),
        x_label: "epoch (0 = initial random population)".into(),
        y_label: score_axis(run),
        series,
        y_from_zero: true,
        x_whole: true,
        x_log: false,
    }
}

/// The least-squares trend of one statistic of the combined score over the raw epoch values.
pub fn combined_trend(run: &Run, stat: EpochStatistic) -> Option<Trend> {
    let (x, y) = epoch_values(run, stat, ScoreKind::Combined);
    least_squares(&x, &y)
}

/// A legend text for a trend: slope and its 95 % interval.
pub fn trend_label(what: &str, t: &Trend) -> String {
    let (lo, hi) = t.slope_ci95;
    if lo.is_nan() {
        format!("{what}: slope {} points/epoch (too few epochs for an interval)", fixed(t.slope, t.slope))
    } else {
        let f = |x: f64| fixed(x, hi - lo);
        format!("{what}: slope {} points/epoch, 95% CI [{}, {}]", f(t.slope), f(lo), f(hi))
    }
}

/// Figures 18-19: the four curves after 5-point centred smoothing, with the least-squares trend
/// of the combined score (fitted to the raw epoch values, whose residuals are roughly
/// independent; smoothed values are not, which would make the interval too narrow).
pub fn smoothed_chart(run: &Run, stat: EpochStatistic) -> Chart {
    let mut series: Vec<Series> = ScoreKind::ALL
        .iter()
        .map(|&kind| {
            let (x, y) = epoch_values(run, stat, kind);
            Series {
                label: format!("{}, smoothed", kind.label()),
                points: x.into_iter().zip(smooth_centred(&y, SMOOTHING_HALF_WIDTH)).collect(),
                color: color(kind),
                style: style(run.epochs.len()),
            }
        })
        .collect();
    if let Some(t) = combined_trend(run, stat) {
        let (first, last) = (run.epochs.first().map_or(0, |e| e.epoch), run.epochs.last().map_or(0, |e| e.epoch));
        let xs = [f64::from(first), f64::from(last)];
        series.push(Series {
            label: trend_label("trend of combined (least squares on raw epochs)", &t),
            points: xs.iter().map(|&x| (x, t.at(x))).collect(),
            color: PALETTE[5],
            style: Style::Dashed,
        });
    }
    Chart {
        title: format!("{}: {}, 5-point smoothing", run.name, title(stat)),
        x_label: "epoch (each point: mean of the epoch and up to 2 on each side)".into(),
        y_label: score_axis(run),
        series,
        y_from_zero: true,
        x_whole: true,
        x_log: false,
    }
}

/// The dashboard's chart: the best, mean and median combined score of each epoch, raw (solid,
/// with dots) and after 5-point centred smoothing (dashed, same colour).
pub fn overview_chart(run: &Run) -> Chart {
    let colors = [PALETTE[5], PALETTE[2], PALETTE[3]];
    let mut series = Vec::new();
    for (stat, color) in EpochStatistic::ALL.into_iter().zip(colors) {
        let (x, y) = epoch_values(run, stat, ScoreKind::Combined);
        let smoothed = smooth_centred(&y, SMOOTHING_HALF_WIDTH);
        series.push(Series {
            label: stat.name().to_string(),
            points: x.iter().copied().zip(y).collect(),
            color,
            style: style(run.epochs.len()),
        });
        series.push(Series {
            label: format!("{}, smoothed", stat.name()),
            points: x.into_iter().zip(smoothed).collect(),
            color,
            style: Style::Dashed,
        });
    }
    Chart {
        title: format!("{}: combined benchmark score per epoch ({} epochs)", run.name, run.epochs.len()),
        x_label: "epoch (0 = initial random population)".into(),
        y_label: combined_axis(&run.config.reference_name()),
        series,
        y_from_zero: true,
        x_whole: true,
        x_log: false,
    }
}

/// The share of a generation's tournament games that reached the ply cap.
pub fn ply_cap_share(g: &loa_records::GenerationRecord) -> f64 {
    let games: Vec<_> = g.tournaments.iter().flat_map(|t| t.matches.iter().flat_map(|m| m.games.iter())).collect();
    if games.is_empty() {
        return f64::NAN;
    }
    games.iter().filter(|x| x.reason == EndReason::PlyCap).count() as f64 / games.len() as f64
}

/// Tournament statistics per generation: games per second, mean plies, the share of games that
/// reached the ply cap, and survivors kept (four panels). Empty if there are no generation lines.
pub fn tournament_charts(run: &Run) -> Vec<Chart> {
    if run.generations.is_empty() {
        return Vec::new();
    }
    let gens = &run.generations;
    let panel = |title: &str, y_label: String, f: &dyn Fn(&loa_records::GenerationRecord) -> f64, c: usize| Chart {
        title: title.to_string(),
        x_label: "generation".into(),
        y_label,
        series: vec![Series {
            label: title.to_string(),
            points: gens.iter().map(|g| (g.generation as f64, f(g))).collect(),
            color: PALETTE[c],
            style: style(gens.len()),
        }],
        y_from_zero: true,
        x_whole: true,
        x_log: false,
    };
    let population = run.config.population.map_or(String::new(), |p| format!(" (of {p})"));
    vec![
        panel("Games per second", "games / second (wall clock)".into(), &|g| g.games_per_second, 2),
        panel("Mean game length", "plies per game".into(), &|g| g.mean_plies, 5),
        panel(
            "Games reaching the ply cap",
            format!("share of games at the cap of {} plies (%)", run.ply_cap()),
            &|g| 100.0 * ply_cap_share(g),
            3,
        ),
        panel("Survivors kept", format!("previous survivors kept{population}"), &|g| f64::from(g.survivors_kept), 0),
    ]
}

/// The paths of the numeric figures a run's method reports (`generations.jsonl`'s `fitness`,
/// groups' names joined by dots: `group.name`), in the method's order: a path first seen in a
/// later line (a figure `null` or left out before) takes its place after the one before it there.
pub fn figure_paths(run: &Run) -> Vec<String> {
    let mut paths: Vec<String> = Vec::new();
    for figures in run.generations.iter().filter_map(|g| g.figures.as_ref()) {
        let mut at = 0;
        for (path, value) in figures.leaves() {
            if value.as_number().is_none() {
                continue;
            }
            match paths.iter().position(|p| *p == path) {
                Some(known) => at = known + 1,
                None => {
                    paths.insert(at, path);
                    at += 1;
                }
            }
        }
    }
    paths
}

/// A method's numeric figures per generation, one panel for each of `paths` (see
/// [`figure_paths`]) in order, each over the generations that report it.
pub fn figure_charts(run: &Run, paths: &[String]) -> Vec<Chart> {
    paths
        .iter()
        .enumerate()
        .map(|(i, path)| {
            let points: Vec<(f64, f64)> = run
                .generations
                .iter()
                .filter_map(|g| Some((g.generation as f64, g.figures.as_ref()?.number(path)?)))
                .collect();
            Chart {
                title: path.clone(),
                x_label: "generation".into(),
                y_label: path.clone(),
                series: vec![Series {
                    label: path.clone(),
                    style: style(points.len()),
                    points,
                    color: PALETTE[[2, 5, 3, 0, 4, 1, 6][i % 7]],
                }],
                y_from_zero: true,
                x_whole: true,
                x_log: false,
            }
        })
        .collect()
}

/// Several runs on one chart: one statistic of the combined score per epoch, raw or smoothed
/// (smoothed adds each run's trend line, fitted to its raw values). Runs benchmarked against
/// different reference players name theirs in the legend.
pub fn compare_chart(runs: &[Run], stat: EpochStatistic, smoothed: bool) -> Chart {
    let reference = runs.first().map_or_else(String::new, |r| r.config.reference_name());
    let mixed = runs.iter().any(|r| r.config.reference_name() != reference);
    let mut series = Vec::new();
    for (i, run) in runs.iter().enumerate() {
        let c = PALETTE[[2, 5, 3, 0, 4, 1, 6, 7][i % 8]];
        let (x, y) = epoch_values(run, stat, ScoreKind::Combined);
        let y = if smoothed { smooth_centred(&y, SMOOTHING_HALF_WIDTH) } else { y };
        series.push(Series {
            label: if mixed { format!("{} vs {}", run.name, run.config.reference_name()) } else { run.name.clone() },
            points: x.iter().copied().zip(y).collect(),
            color: c,
            style: style(x.len()),
        });
        if smoothed && let Some(t) = combined_trend(run, stat) {
            let ends = [x.first().copied().unwrap_or(0.0), x.last().copied().unwrap_or(0.0)];
            series.push(Series {
                label: trend_label(&format!("{} trend", run.name), &t),
                points: ends.iter().map(|&e| (e, t.at(e))).collect(),
                color: c,
                style: Style::Dashed,
            });
        }
    }
    let what = if smoothed { ", 5-point smoothing and trends" } else { "" };
    Chart {
        title: format!("{} combined benchmark score per epoch{what}", capitalised(stat.name())),
        x_label: "epoch".into(),
        y_label: combined_axis(if mixed { "each run's reference" } else { &reference }),
        series,
        y_from_zero: true,
        x_whole: true,
        x_log: false,
    }
}

fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    c.next().map_or(String::new(), |f| f.to_uppercase().chain(c).collect())
}

/// Thesis Figure 20 (and the form of Figure 21): a match series cut into blocks of `block`
/// consecutive pairs (the thesis used 62, one "epoch" of matches), one statistic of the first
/// player's scores per block, as Black, as White, combined and the average of the two. Pairs
/// without both games are left out.
pub fn block_chart(series: &MatchSeries, block: usize, stat: EpochStatistic) -> Chart {
    let block = block.max(1);
    let mut pairs: std::collections::BTreeMap<u64, Vec<&loa_records::MatchGameRecord>> = Default::default();
    for g in &series.games {
        pairs.entry(g.pair).or_default().push(g);
    }
    // Each complete pair as (Black score, White score) of the first player.
    let complete: Vec<(f64, f64)> = pairs
        .values()
        .filter_map(|games| {
            let score = |c: loa_records::Color| {
                games.iter().find(|g| g.color_of(true) == c).map(|g| f64::from(g.score_of(true)))
            };
            Some((score(loa_records::Color::Black)?, score(loa_records::Color::White)?))
        })
        .collect();
    let summarise = |v: &[f64]| {
        let s = crate::stats::Summary::of(v);
        match stat {
            EpochStatistic::Best => s.max,
            EpochStatistic::Mean => s.mean,
            EpochStatistic::Median => s.median,
        }
    };
    type Pick = fn(&(f64, f64)) -> f64;
    let kinds: [(ScoreKind, Pick); 4] = [
        (ScoreKind::Black, |p| p.0),
        (ScoreKind::White, |p| p.1),
        (ScoreKind::Combined, |p| p.0 + p.1),
        (ScoreKind::Average, |p| (p.0 + p.1) / 2.0),
    ];
    let n_blocks = complete.len().div_ceil(block);
    let series_out = kinds
        .iter()
        .map(|(kind, f)| Series {
            label: kind.label().to_string(),
            points: complete
                .chunks(block)
                .enumerate()
                .map(|(i, chunk)| ((i + 1) as f64, summarise(&chunk.iter().map(f).collect::<Vec<_>>())))
                .collect(),
            color: color(*kind),
            style: style(n_blocks),
        })
        .collect();
    Chart {
        title: format!("{}: {} score per block of {block} matches", series.label(), stat.name()),
        x_label: format!("block of {block} two-game matches (in pair order)"),
        y_label: format!("score of {} (points)", series.first),
        series: series_out,
        y_from_zero: true,
        x_whole: true,
        x_log: false,
    }
}
