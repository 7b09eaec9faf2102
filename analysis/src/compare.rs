//! `analysis compare`: several runs on one chart and in one table.

use crate::charts::render;
use crate::error::{AnalysisError, Result};
use crate::figures::compare_chart;
use crate::output::write_text;
use crate::plot::ChartFile;
use crate::run::Run;
use crate::scores::{EpochStatistic, ScoreKind, ScoreSets};
use crate::stats::Summary;
use crate::tables::{Table, key, num, trend_table, welch_table};
use std::path::{Path, PathBuf};

/// One row per run: its shape and its benchmark (combined scores, epochs after 0 pooled).
pub fn runs_table(runs: &[Run]) -> Table {
    let headers = [
        "Run",
        "Reference",
        "Epochs",
        "Population",
        "Generations / epoch",
        "Epoch 0 mean",
        "Last epoch mean",
        "Mean (epochs ≥ 1)",
        "St. dev.",
        "Best",
    ];
    let rows = runs
        .iter()
        .map(|r| {
            let pooled = Summary::of(&ScoreSets::of_epochs(evolved(r)).combined);
            let mean_of = |e: Option<&loa_records::EpochReport>| {
                e.map_or(f64::NAN, |e| EpochStatistic::Mean.of(e, ScoreKind::Combined))
            };
            let opt = |v: Option<u64>| v.map_or("?".to_string(), |v| v.to_string());
            vec![
                r.name.clone(),
                r.config.reference_name(),
                r.epochs.last().map_or(0, |e| e.epoch).to_string(),
                opt(r.config.population),
                opt(r.config.generations_per_epoch),
                num(mean_of(r.epochs.iter().find(|e| e.epoch == 0)), 2),
                num(mean_of(r.epochs.last()), 2),
                num(pooled.mean, 2),
                num(pooled.sd, 2),
                num(pooled.max, 0),
            ]
        })
        .collect();
    Table { headers: headers.iter().map(|h| h.to_string()).collect(), rows }
}

/// The epochs of a run after the initial random population (all of them if there is only
/// epoch 0).
pub fn evolved(run: &Run) -> impl Iterator<Item = &loa_records::EpochReport> {
    let only_initial = run.epochs.iter().all(|e| e.epoch == 0);
    run.epochs.iter().filter(move |e| only_initial || e.epoch > 0)
}

/// Refuses fewer than two runs, and runs benchmarked against different reference players (a
/// score against aloa:3 is no measure on the scale of one against aloa:5) unless `mixed` says
/// to chart them together anyway.
pub fn check_comparable(runs: &[Run], mixed: bool) -> Result<()> {
    if runs.len() < 2 {
        return Err(AnalysisError::Usage(
            "compare needs two or more runs: for one run's charts and tables use `analysis report RUN`".into(),
        ));
    }
    if !mixed && runs.iter().any(|r| r.config.reference_name() != runs[0].config.reference_name()) {
        return Err(AnalysisError::MixedReferences(
            runs.iter().map(|r| (r.dir.clone(), r.config.reference_name())).collect(),
        ));
    }
    Ok(())
}

/// Writes `compare-raw` and `compare-smoothed` charts (PNG + SVG) and `compare.md` into `out`
/// for `stat` of the combined score; returns the charts and the Markdown file. The runs must
/// pass [`check_comparable`] (`mixed`: whatever their reference players).
pub fn compare_runs(runs: &[Run], stat: EpochStatistic, mixed: bool, out: &Path) -> Result<(Vec<ChartFile>, PathBuf)> {
    check_comparable(runs, mixed)?;
    let charts = vec![
        ChartFile {
            name: "compare-raw".into(),
            caption: format!("{} combined score per epoch", stat.name()),
            files: render(&out.join("compare-raw"), None, &[compare_chart(runs, stat, false)], 1)?,
        },
        ChartFile {
            name: "compare-smoothed".into(),
            caption: format!("{} combined score per epoch, 5-point smoothing and trends", stat.name()),
            files: render(&out.join("compare-smoothed"), None, &[compare_chart(runs, stat, true)], 1)?,
        },
    ];
    let md = out.join("compare.md");
    write_text(&md, &compare_markdown(runs, &charts))?;
    Ok((charts, md))
}

/// The comparison as Markdown: the charts, the runs table, the trends, and Welch's t-test of
/// the first run's scores against each other run's.
pub fn compare_markdown(runs: &[Run], charts: &[ChartFile]) -> String {
    let mut s = String::from("# Runs compared\n\n");
    for c in charts {
        s.push_str(&format!("![{}]({}.png)\n\n", c.caption, c.name));
    }
    s.push_str("## Runs\n\nCombined benchmark scores (max 398); pooled over the epochs after epoch 0.\n\n");
    s.push_str(&runs_table(runs).markdown());
    s.push_str("\n## Trends\n\nLeast-squares slope of each epoch statistic, fitted to the raw epoch values, with its 95 % interval (t with n − 2 degrees of freedom).\n\n");
    let refs: Vec<&Run> = runs.iter().collect();
    s.push_str(&trend_table(&refs).markdown());
    if let Some((first, others)) = runs.split_first() {
        let a = ScoreSets::of_epochs(evolved(first));
        for other in others {
            s.push_str(&format!("\n## Welch's t-test: {} against {}\n\n", first.name, other.name));
            s.push_str(&key(&[&first.name, &other.name]));
            s.push('\n');
            let (ra, rb) = (first.config.reference_name(), other.config.reference_name());
            if ra != rb {
                s.push_str(&format!(
                    "**Caveat:** {} was judged against {ra} and {} against {rb}: the scores are on different \
                     scales, so this test compares the references as much as the runs.\n\n",
                    first.name, other.name
                ));
            }
            s.push_str(&welch_table(&a, &ScoreSets::of_epochs(evolved(other))).markdown());
        }
    }
    s
}
