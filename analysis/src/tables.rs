//! The thesis's tables as Markdown: per-epoch detail (Tables 1-2), score summaries by colour
//! (Tables 3-5, 7), wins / losses / ties with Wilson intervals (Tables 6, 8), Welch's t-test
//! between two sets of scores, and the trend of each epoch statistic.

use crate::figures::{SMOOTHING_HALF_WIDTH, combined_trend, fixed};
use crate::run::Run;
use crate::scores::{Column, EpochStatistic, Outcomes, ScoreKind, ScoreSets};
use crate::stats::{Summary, Trend, WinLossTie, smooth_centred, welch};

/// A table: a header row and rows of cells.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Table {
    /// Column headings.
    pub headers: Vec<String>,
    /// Rows, each as long as `headers`.
    pub rows: Vec<Vec<String>>,
}

impl Table {
    /// The table as GitHub-flavoured Markdown: columns of numbers right-aligned, others left.
    pub fn markdown(&self) -> String {
        let numeric = |i: usize| {
            i > 0
                && self.rows.iter().all(|r| {
                    r.get(i).is_none_or(|c| c.starts_with(|ch: char| ch.is_ascii_digit() || "-–<+".contains(ch)))
                })
        };
        let mut s = format!("| {} |\n|", self.headers.join(" | "));
        for i in 0..self.headers.len() {
            s.push_str(if numeric(i) { " ---: |" } else { " --- |" });
        }
        s.push('\n');
        for row in &self.rows {
            s.push_str(&format!("| {} |\n", row.join(" | ")));
        }
        s
    }
}

/// A number with `digits` decimals, `–` for NaN.
pub fn num(x: f64, digits: usize) -> String {
    if x.is_nan() { "–".into() } else { format!("{x:.digits$}") }
}

/// A p-value: 4 decimals, or scientific below 0.0001.
pub fn p_value(p: f64) -> String {
    match p {
        p if p.is_nan() => "–".into(),
        0.0 => "< 1e-300".into(),
        p if p < 1e-4 => format!("{p:.2e}"),
        p => format!("{p:.4}"),
    }
}

/// Tables 1-2: the chosen epochs' mean, median and max of every game score and of the combined
/// scores (and the means by colour), raw or after 5-point centred smoothing of each column.
pub fn epoch_detail(run: &Run, epochs: &[u32], smoothed: bool) -> Table {
    // Each column, epoch by epoch, over every epoch (smoothing needs the neighbours).
    let overall = |r: &loa_records::EpochReport| Summary::of(&ScoreSets::of_epochs([r]).overall());
    let columns: Vec<(&str, Vec<f64>)> = vec![
        ("Mean", run.epochs.iter().map(|r| overall(r).mean).collect()),
        ("Median", run.epochs.iter().map(|r| overall(r).median).collect()),
        ("Max", run.epochs.iter().map(|r| overall(r).max).collect()),
        ("Comb. mean", run.epochs.iter().map(|r| EpochStatistic::Mean.of(r, ScoreKind::Combined)).collect()),
        ("Comb. median", run.epochs.iter().map(|r| EpochStatistic::Median.of(r, ScoreKind::Combined)).collect()),
        ("Comb. max", run.epochs.iter().map(|r| EpochStatistic::Best.of(r, ScoreKind::Combined)).collect()),
        ("Mean as Black", run.epochs.iter().map(|r| EpochStatistic::Mean.of(r, ScoreKind::Black)).collect()),
        ("Mean as White", run.epochs.iter().map(|r| EpochStatistic::Mean.of(r, ScoreKind::White)).collect()),
    ];
    let columns: Vec<(&str, Vec<f64>)> = columns
        .into_iter()
        .map(|(h, v)| (h, if smoothed { smooth_centred(&v, SMOOTHING_HALF_WIDTH) } else { v }))
        .collect();
    let mut headers = vec!["Epoch".to_string()];
    headers.extend(columns.iter().map(|(h, _)| h.to_string()));
    let rows = epochs
        .iter()
        .filter_map(|&e| run.epochs.iter().position(|r| r.epoch == e))
        .map(|i| {
            let mut row = vec![run.epochs[i].epoch.to_string()];
            row.extend(columns.iter().map(|(_, v)| num(v[i], 2)));
            row
        })
        .collect();
    Table { headers, rows }
}

/// The default epochs for Tables 1-2: the epoch with the highest combined score and its
/// neighbours (as the thesis showed 902-904 around its best network).
pub fn default_detail_epochs(run: &Run) -> Vec<u32> {
    let best = run.epochs.iter().enumerate().max_by_key(|(i, r)| (r.best, std::cmp::Reverse(*i))).map_or(0, |(i, _)| i);
    let lo = best.saturating_sub(1);
    let hi = (best + 2).min(run.epochs.len());
    run.epochs[lo..hi].iter().map(|r| r.epoch).collect()
}

/// Tables 3-5 and 7: mean, median, max and sample standard deviation of each set's scores,
/// overall, as White, as Black and combined, sets side by side (`A: Overall`, ...).
pub fn score_table(sets: &[(&str, &ScoreSets)]) -> Table {
    let mut headers = vec![String::new()];
    let letters =
        |i: usize| if sets.len() == 1 { String::new() } else { format!("{}: ", (b'A' + (i % 26) as u8) as char) };
    let mut summaries = Vec::new();
    for (i, (_, s)) in sets.iter().enumerate() {
        for c in Column::ALL {
            headers.push(format!("{}{}", letters(i), c.label()));
            summaries.push(Summary::of(&s.column(c)));
        }
    }
    let row = |name: &str, f: &dyn Fn(&Summary) -> String| {
        let mut r = vec![name.to_string()];
        r.extend(summaries.iter().map(f));
        r
    };
    Table {
        headers,
        rows: vec![
            row("Mean", &|s| num(s.mean, 2)),
            row("Median", &|s| num(s.median, 1)),
            row("Max", &|s| num(s.max, 0)),
            row("Standard deviation", &|s| num(s.sd, 2)),
            row("n", &|s| s.n.to_string()),
        ],
    }
}

/// The key under a side-by-side table: which letter is which set.
pub fn key(labels: &[&str]) -> String {
    if labels.len() < 2 {
        return String::new();
    }
    let parts: Vec<String> =
        labels.iter().enumerate().map(|(i, l)| format!("{}: {l}", (b'A' + (i % 26) as u8) as char)).collect();
    format!("{}.\n", parts.join("; "))
}

fn percent(r: &WinLossTie) -> (String, String) {
    match r.win_share_ci95() {
        Some((lo, hi)) => (num(100.0 * r.win_share(), 2), format!("{} – {}", num(100.0 * lo, 2), num(100.0 * hi, 2))),
        None => ("–".into(), "–".into()),
    }
}

/// Tables 6 and 8: wins, losses, ties and the winning percentage (of decided games, ties left
/// out, as the thesis counts it) with its 95 % Wilson interval, and the share of all games won,
/// over all games, as White, as Black and by two-game match, for each set.
pub fn record_table(sets: &[(&str, &Outcomes)]) -> Table {
    let headers =
        ["Player", "Games / matches", "Wins", "Losses", "Ties", "Win % of decided", "95% CI (Wilson)", "Win % of all"];
    let mut rows = Vec::new();
    for (label, o) in sets {
        for (what, r) in [("All games", o.all_games()), ("White", o.white), ("Black", o.black), ("Match", o.matches)] {
            let (pct, ci) = percent(&r);
            rows.push(vec![
                label.to_string(),
                what.to_string(),
                r.wins.to_string(),
                r.losses.to_string(),
                r.ties.to_string(),
                pct,
                ci,
                num(100.0 * r.win_share_of_all(), 2),
            ]);
        }
    }
    Table { headers: headers.iter().map(|h| h.to_string()).collect(), rows }
}

/// Welch's t-test between two sets of scores, column by column: sizes, means, the difference,
/// t, the Welch–Satterthwaite degrees of freedom and the two-sided p-value.
pub fn welch_table(a: &ScoreSets, b: &ScoreSets) -> Table {
    let headers = ["Scores", "n A", "mean A", "n B", "mean B", "A − B", "t", "df", "p (two-sided)"];
    let rows = Column::ALL
        .iter()
        .map(|&c| {
            let (x, y) = (a.column(c), b.column(c));
            let (mx, my) = (Summary::of(&x).mean, Summary::of(&y).mean);
            let w = welch(&x, &y);
            vec![
                c.label().to_string(),
                x.len().to_string(),
                num(mx, 2),
                y.len().to_string(),
                num(my, 2),
                num(mx - my, 2),
                w.map_or("–".into(), |w| num(w.t, 3)),
                w.map_or("–".into(), |w| num(w.df, 1)),
                w.map_or("–".into(), |w| p_value(w.p)),
            ]
        })
        .collect();
    Table { headers: headers.iter().map(|h| h.to_string()).collect(), rows }
}

/// The fewest epochs a trend's verdict is drawn from: a line through three points can fit them
/// exactly, an interval of width 0 that is no evidence.
pub const MIN_TREND_EPOCHS: usize = 5;

/// What a trend shows: rising or falling where its 95 % interval excludes 0, and nothing from
/// fewer than [`MIN_TREND_EPOCHS`] epochs.
pub fn verdict(t: &Trend) -> String {
    let (lo, hi) = t.slope_ci95;
    if t.n < MIN_TREND_EPOCHS || lo.is_nan() {
        format!("too few epochs ({} of the {MIN_TREND_EPOCHS} a verdict needs)", t.n)
    } else if lo > 0.0 {
        "rising".into()
    } else if hi < 0.0 {
        "falling".into()
    } else {
        "no trend shown".into()
    }
}

/// The least-squares trend of the best, mean and median combined score per epoch: slope per
/// epoch and its 95 % interval (fitted to the raw epoch values).
pub fn trend_table(runs: &[&Run]) -> Table {
    let headers = ["Run", "Statistic", "Epochs", "Slope (points/epoch)", "95% CI", "Verdict"];
    let mut rows = Vec::new();
    for run in runs {
        for stat in EpochStatistic::ALL {
            let row = match combined_trend(run, stat) {
                Some(t) => {
                    let (lo, hi) = t.slope_ci95;
                    let scale = if hi.is_nan() { t.slope } else { hi - lo };
                    let f = |x: f64| fixed(x, scale);
                    vec![t.n.to_string(), f(t.slope), format!("{} – {}", f(lo), f(hi)), verdict(&t)]
                }
                None => vec![run.epochs.len().to_string(), "–".into(), "–".into(), "too few epochs".into()],
            };
            let mut r = vec![run.name.clone(), format!("{} combined", stat.name())];
            r.extend(row);
            rows.push(r);
        }
    }
    Table { headers: headers.iter().map(|h| h.to_string()).collect(), rows }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_and_numbers() {
        let t = Table { headers: vec!["a".into(), "b".into()], rows: vec![vec!["x".into(), "1".into()]] };
        assert_eq!(t.markdown(), "| a | b |\n| --- | ---: |\n| x | 1 |\n");
        assert_eq!((num(f64::NAN, 2), num(1.005, 1)), ("–".into(), "1.0".into()));
        assert_eq!(
            (fixed(0.000231, 0.00104), fixed(-1.25, 8.9), fixed(12.0, 150.0)),
            ("+0.00023".into(), "-1.25".into(), "+12.0".into())
        );
        assert_eq!((p_value(0.5), p_value(2e-7), p_value(0.0)), ("0.5000".into(), "2.00e-7".into(), "< 1e-300".into()));
    }

    #[test]
    fn a_trend_of_few_epochs_has_no_verdict() {
        use crate::stats::least_squares;
        // Three points on a line: a slope of 4 with an interval of width 0.
        let three = least_squares(&[1.0, 2.0, 3.0], &[10.0, 14.0, 18.0]).unwrap();
        assert_eq!(three.slope_ci95, (4.0, 4.0));
        assert_eq!(verdict(&three), "too few epochs (3 of the 5 a verdict needs)");
        let five = least_squares(&[1.0, 2.0, 3.0, 4.0, 5.0], &[10.0, 14.0, 18.0, 22.0, 27.0]).unwrap();
        assert_eq!(verdict(&five), "rising");
        let flat = least_squares(&[1.0, 2.0, 3.0, 4.0, 5.0], &[10.0, 14.0, 9.0, 13.0, 10.0]).unwrap();
        assert_eq!(verdict(&flat), "no trend shown");
    }

    #[test]
    fn records_have_wilson_intervals() {
        let o = Outcomes {
            white: WinLossTie { wins: 81, losses: 182, ties: 37 },
            black: WinLossTie::default(),
            matches: WinLossTie { wins: 0, losses: 20, ties: 0 },
        };
        let t = record_table(&[("net", &o)]);
        // Newcombe's 81 of 263 decided games; 81 of all 300 is 27 %.
        assert_eq!(t.rows[1][5..], ["30.80".to_string(), "25.53 – 36.62".to_string(), "27.00".to_string()]);
        assert_eq!(t.rows[2][5], "–");
        assert_eq!(t.rows[3][6], "0.00 – 16.11");
    }
}
