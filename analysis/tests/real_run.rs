//! Files written by the real programs: `tests/data/quick` is a run of `experiments/quick.toml`
//! (its `config.toml`, all 4 epoch lines and the first 3 generation lines), and
//! `tests/data/rh-aloa-40.jsonl` is `loa match --black random:3 --white aloa:5 --games 40
//! --seed 1 --out ...`. If the master's or `loa match`'s records change shape, these tests say so.

mod common;

use common::{check_png, check_svg};
use loa_analysis::plot::plot_run;
use loa_analysis::report::{matches_markdown, write_report};
use loa_analysis::{MatchSeries, Run};
use std::path::Path;

fn data(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name)
}

#[test]
fn the_quick_runs_files_are_read_and_charted() {
    let run = Run::load(&data("quick")).unwrap();
    assert_eq!((run.epochs.len(), run.generations.len()), (4, 3));
    assert_eq!(
        (run.config.population, run.config.generations_per_epoch, run.config.ply_cap),
        (Some(24), Some(5), Some(100))
    );
    assert_eq!(run.config.reference_name(), "aloa:5");
    assert!(run.epochs.iter().all(|e| e.entries.len() == 24));
    let out = tempfile::tempdir().unwrap();
    for chart in plot_run(&run, out.path(), None).unwrap() {
        check_png(&chart.files[0], 20_000);
        check_svg(&chart.files[1], "quick");
    }
    let rh = MatchSeries::load(&data("rh-aloa-40.jsonl")).unwrap();
    let report = std::fs::read_to_string(write_report(&run, &[rh], None, out.path()).unwrap()).unwrap();
    assert!(report.contains("| quick networks vs aloa:5 | All games | 0 | 144 | 0 |"), "{report}");
}

#[test]
fn a_loa_match_file_agrees_with_its_own_totals() {
    let rh = MatchSeries::load(&data("rh-aloa-40.jsonl")).unwrap();
    assert!(rh.notes.is_empty(), "{:?}", rh.notes);
    let totals = rh.summary.clone().unwrap();
    assert_eq!((rh.first.as_str(), rh.second.as_str(), rh.games.len()), ("random:3", "aloa:5", 40));
    let o = rh.outcomes().all_games();
    let side = &totals.sides[0];
    assert_eq!((o.wins, o.losses, o.ties), (u64::from(side.wins), u64::from(side.losses), u64::from(side.draws)));
    let s = rh.scores();
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    assert!((mean(&s.overall()) - side.mean_score).abs() < 1e-9);
    assert!((mean(&s.black) - side.mean_score_black).abs() < 1e-9);
    assert!((mean(&s.white) - side.mean_score_white).abs() < 1e-9);
    assert_eq!(s.combined.len(), totals.matches as usize);
    assert!(
        matches_markdown(&[rh]).contains("| random:3 vs aloa:5 | All games | 0 | 40 | 0 | 0.00 | 0.00 – 8.76 | 0.00 |")
    );
}

#[test]
fn the_dashboard_chart_is_drawn_in_memory_as_svg() {
    let run = Run::load(&data("quick")).unwrap();
    let chart = loa_analysis::figures::overview_chart(&run);
    let labels: Vec<&str> = chart.series.iter().map(|s| s.label.as_str()).collect();
    assert_eq!(labels, ["best", "best, smoothed", "mean", "mean, smoothed", "median", "median, smoothed"]);
    let best: Vec<f64> = run.epochs.iter().map(|e| f64::from(e.best)).collect();
    assert_eq!(chart.series[0].points.iter().map(|p| p.1).collect::<Vec<_>>(), best);
    let svg = loa_analysis::charts::svg_string(&chart, 860, 500).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("median, smoothed") && svg.trim_end().ends_with("</svg>"));
}
