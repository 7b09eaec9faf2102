//! The library on a small synthetic run: charts (valid, non-trivial PNG and SVG with text drawn
//! by the embedded font), the report's tables, match series.

mod common;

use common::{check_png, check_svg, write_matches, write_run};
use loa_analysis::compare::compare_runs;
use loa_analysis::plot::plot_run;
use loa_analysis::report::{matches_markdown, plot_series_blocks, write_report};
use loa_analysis::{EpochStatistic, MatchSeries, Run};

#[test]
fn charts_of_a_synthetic_run_are_valid_and_carry_text() {
    let dir = tempfile::tempdir().unwrap();
    let run_dir = dir.path().join("synthetic");
    write_run(&run_dir, 12);
    let run = Run::load(&run_dir).unwrap();
    assert_eq!((run.epochs.len(), run.generations.len(), run.notes.len()), (13, 24, 0));
    let out = dir.path().join("out");
    std::fs::create_dir(&out).unwrap();
    let charts = plot_run(&run, &out, None).unwrap();
    let names: Vec<&str> = charts.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["best", "mean", "median", "best-smoothed", "mean-smoothed", "median-smoothed", "tournaments"]);
    for c in &charts {
        assert_eq!(c.files.len(), 2);
        let (w, h) = check_png(&c.files[0], 20_000);
        assert!(w >= 1000 && h >= 600, "{:?}: {w}×{h}", c.files[0]);
        check_svg(&c.files[1], if c.name == "tournaments" { "generation" } else { "epoch" });
    }
    assert!(!out.join("figures.png").exists(), "a run whose method reports no figures has no figures chart");
    let smoothed = std::fs::read_to_string(out.join("mean-smoothed.svg")).unwrap();
    assert!(smoothed.contains("points/epoch, 95% CI ["), "the legend gives the slope and its interval");
    // Each legend entry gives its unit: one game or the two-game match.
    for label in ["as Black: per game (max 199)", "combined, Black + White: per match (max 398)"] {
        assert!(smoothed.contains(label), "no `{label}` in the legend");
    }
    let (charts, md) = compare_runs(&[run.clone(), run], EpochStatistic::Median, false, &out).unwrap();
    check_png(&charts[1].files[0], 20_000);
    assert!(std::fs::read_to_string(md).unwrap().contains("| synthetic | aloa:5 | 12 | 6 | 2 |"));
}

#[test]
fn the_report_has_every_table_and_the_baselines() {
    let dir = tempfile::tempdir().unwrap();
    let run_dir = dir.path().join("r");
    write_run(&run_dir, 4);
    let base = dir.path().join("rh.jsonl");
    write_matches(&base, "random:3", "aloa:5", 10, &|i| i % 9 == 0);
    let run = Run::load(&run_dir).unwrap();
    let series = MatchSeries::load(&base).unwrap();
    let out = dir.path().join("out");
    std::fs::create_dir(&out).unwrap();
    let report = std::fs::read_to_string(write_report(&run, &[series], Some(&[1, 2, 3]), &out).unwrap()).unwrap();
    for needle in [
        "![mean benchmark score of each epoch, by colour (thesis Figure 16)](mean.png)",
        "## Epochs 1, 2, 3 in detail (Tables 1-2)",
        "| Epoch | Mean | Median | Max | Comb. mean |",
        "## Scores by colour (Tables 3-5, 7)",
        "| Standard deviation |",
        "## Wins, losses and ties (Tables 6, 8)",
        "95% CI (Wilson)",
        "## Welch's t-test: r networks vs aloa:5 against random:3 vs aloa:5",
        "| Overall | 48 |",
        "no totals line",
    ] {
        assert!(report.contains(needle), "missing `{needle}` in\n{report}");
    }
    // The first pair: random:3 won game 0 (i = 0), lost game 1; 20 games, 3 won (i = 0, 9, 18).
    let charts = plot_series_blocks(&[MatchSeries::load(&base).unwrap()], 3, &out).unwrap();
    assert_eq!(charts.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(), ["rh-best", "rh-mean"]);
    check_png(&charts[0].files[0], 20_000);
    check_svg(&charts[1].files[1], "block of 3 two-game matches");
    let md = matches_markdown(&[MatchSeries::load(&base).unwrap()]);
    assert!(md.contains("| random:3 vs aloa:5 | All games | 3 | 17 | 0 | 15.00 | 5.24 – 36.04 |"), "{md}");
}

#[test]
fn values_too_large_to_plot_are_refused_not_drawn_forever() {
    use loa_analysis::charts::{Chart, Series, Style, svg_string};
    // A metrics line may hold any f64 JSON allows: near its limit the axis span (from zero, as
    // the tournaments chart's) is infinite, where plotters' tick search never returned
    // (`analysis plot` and the dashboard hung).
    for points in [vec![(0.0, 1.7e308), (1.0, 1.7e308)], vec![(0.0, -1e308), (1.0, 1e308)]] {
        let series = Series { label: "games/s".into(), points, color: (0, 0, 0), style: Style::Line };
        let chart = Chart {
            title: "tournaments".into(),
            x_label: "generation".into(),
            y_label: "games/s".into(),
            series: vec![series],
            y_from_zero: true,
            x_whole: true,
            x_log: false,
        };
        let err = svg_string(&chart, 400, 300).unwrap_err();
        assert!(err.contains("tournaments") && err.contains("too large to plot"), "{err}");
    }
}

#[test]
fn a_logarithmic_axis_spaces_each_factor_of_ten_alike_and_leaves_out_zero() {
    use loa_analysis::charts::{Chart, Series, Style, svg_string};
    let centres = |x_log: bool| -> Vec<f64> {
        let points = vec![(0.0, 5.0), (1.0, 10.0), (10.0, 20.0), (100.0, 30.0)];
        let series = Series { label: "run".into(), points, color: (0, 0, 0), style: Style::LineAndDots };
        let chart = Chart {
            title: "strength".into(),
            x_label: "CPU time".into(),
            y_label: "won".into(),
            series: vec![series],
            y_from_zero: true,
            x_whole: false,
            x_log,
        };
        let svg = svg_string(&chart, 800, 500).unwrap();
        // The dots are the SVG's circles; their centres' x, in drawing order.
        svg.split("<circle")
            .skip(1)
            .map(|c| c.split("cx=\"").nth(1).unwrap().split('"').next().unwrap().parse().unwrap())
            .collect()
    };
    let linear = centres(false);
    assert_eq!(linear.len(), 4);
    // Linear: 1 to 10 is a tenth of 10 to 100.
    let ratio = (linear[3] - linear[2]) / (linear[2] - linear[1]);
    assert!((ratio - 10.0).abs() < 0.5, "{linear:?}");
    let log = centres(true);
    assert_eq!(log.len(), 3, "x = 0 has no place on a logarithmic axis: {log:?}");
    let ratio = (log[2] - log[1]) / (log[1] - log[0]);
    assert!((ratio - 1.0).abs() < 0.02 && log[1] - log[0] > 100.0, "{log:?}");
}

/// A run whose method reports figures: a text, numbers, a null now and then and a nested
/// group, as a search would.
fn reporting_run(dir: &std::path::Path) -> Run {
    write_run(dir, 3);
    let mut run = Run::load(dir).unwrap();
    for g in &mut run.generations {
        let search = loa_records::Figures::new()
            .with("sigma", 0.3 / g.generation as f64)
            .with("lambda", if g.generation < 4 { 16u32 } else { 32 })
            .with_some("restart", (g.generation == 4).then_some("TolFun"));
        let figures = loa_records::Figures::new()
            .with("unit", "points")
            .with("best", 0.5)
            .with("vs_fixed", (g.generation % 2 == 0).then_some(0.25))
            .with("search", search);
        g.figures = Some(figures);
    }
    run
}

#[test]
fn a_methods_numeric_figures_are_charted_one_panel_each() {
    let dir = tempfile::tempdir().unwrap();
    let run = reporting_run(&dir.path().join("method"));
    let out = dir.path().join("out");
    std::fs::create_dir(&out).unwrap();
    let charts = plot_run(&run, &out, None).unwrap();
    let figures = charts.iter().find(|c| c.name == "figures").expect("a figures chart");
    check_png(&figures.files[0], 20_000);
    check_svg(&figures.files[1], "generation");
    let svg = std::fs::read_to_string(&figures.files[1]).unwrap();
    // The SVG writes each text on a line of its own.
    let text = |svg: &str, t: &str| svg.contains(&format!(">\n{t}\n</text>"));
    for path in ["best", "vs_fixed", "search.sigma", "search.lambda"] {
        assert!(text(&svg, path), "no panel for {path}");
    }
    assert!(!text(&svg, "unit") && !svg.contains("search.restart"), "texts are not charted");
    // A choice of figures: those alone; one the lines do not have is refused, naming theirs.
    let chosen = vec!["search.sigma".to_string()];
    let charts = plot_run(&run, &out, Some(&chosen)).unwrap();
    let svg = std::fs::read_to_string(&charts.iter().find(|c| c.name == "figures").unwrap().files[1]).unwrap();
    assert!(text(&svg, "search.sigma") && !text(&svg, "search.lambda"));
    let err = plot_run(&run, &out, Some(&["sigma".to_string()])).unwrap_err().to_string();
    assert!(err.contains("no figure `sigma`") && err.contains("best, vs_fixed, search.sigma, search.lambda"), "{err}");
}
