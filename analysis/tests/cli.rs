//! The `analysis` command: it writes where it is told (never into a run), and bad input is one
//! clear line naming the file and line, with a non-zero exit.

mod common;

use common::{check_png, check_svg, write_matches, write_run};
use std::path::Path;
use std::process::{Command, Output};

fn analysis(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_analysis")).args(args).output().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn listing(dir: &Path) -> Vec<(String, u64)> {
    let mut v: Vec<(String, u64)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (e.file_name().to_string_lossy().into_owned(), e.metadata().unwrap().len())
        })
        .collect();
    v.sort();
    v
}

fn one_error_line(o: &Output) -> String {
    assert!(!o.status.success());
    let err = stderr(o);
    assert_eq!(err.lines().count(), 1, "{err}");
    err.trim_end().to_string()
}

#[test]
fn plot_and_report_write_beside_the_run_and_never_into_it() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    write_run(&run, 3);
    let before = listing(&run);
    let o = analysis(&["plot", run.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = dir.path().join("run-analysis");
    check_png(&out.join("mean.png"), 20_000);
    let rh = dir.path().join("rh.jsonl");
    write_matches(&rh, "random:3", "aloa:5", 4, &|_| false);
    let report = dir.path().join("rep");
    let o = analysis(&[
        "report",
        run.to_str().unwrap(),
        "--baseline",
        rh.to_str().unwrap(),
        "--out",
        report.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(report.join("report.md").is_file() && report.join("tournaments.png").is_file());
    let inside = run.join("plots");
    let err = one_error_line(&analysis(&["plot", run.to_str().unwrap(), "--out", inside.to_str().unwrap()]));
    assert!(err.starts_with("analysis: error: --out ") && err.contains("is inside the run directory"), "{err}");
    let o = analysis(&["compare", run.to_str().unwrap(), run.to_str().unwrap(), "--out", run.to_str().unwrap()]);
    assert!(one_error_line(&o).contains("is inside the run directory"));
    assert_eq!(listing(&run), before, "nothing is written into a run directory");
}

#[test]
fn bad_input_is_one_line_naming_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nope");
    let err = one_error_line(&analysis(&["plot", missing.to_str().unwrap()]));
    assert_eq!(err, format!("analysis: error: {}: no such run directory", missing.display()));

    let run = dir.path().join("run");
    write_run(&run, 2);
    let epochs = run.join("epochs.jsonl");
    let good = std::fs::read_to_string(&epochs).unwrap();
    let out = dir.path().join("out");
    let plot = || analysis(&["plot", run.to_str().unwrap(), "--out", out.to_str().unwrap()]);

    std::fs::write(&epochs, "").unwrap();
    assert_eq!(one_error_line(&plot()), format!("analysis: error: {}: empty: no records", epochs.display()));

    let lines: Vec<&str> = good.lines().collect();
    std::fs::write(&epochs, format!("{}\nthis is not json\n{}\n", lines[0], lines[1])).unwrap();
    let err = one_error_line(&plot());
    assert!(err.starts_with(&format!("analysis: error: {}:2: not JSON", epochs.display())), "{err}");

    std::fs::write(&epochs, format!("{}\n{}\n", lines[0], lines[1].replacen("\"format\":1", "\"format\":7", 1)))
        .unwrap();
    let err = one_error_line(&plot());
    assert_eq!(
        err,
        format!("analysis: error: {}:2: record format version 7, this build reads up to 1", epochs.display())
    );

    std::fs::write(run.join("config.toml"), "population = = 3\n").unwrap();
    std::fs::write(&epochs, &good).unwrap();
    let err = one_error_line(&plot());
    assert!(err.starts_with(&format!("analysis: error: {}:1: bad TOML", run.join("config.toml").display())), "{err}");

    let m = dir.path().join("m.jsonl");
    std::fs::write(&m, "{\"format\":1,\"kind\":\"game\",\"pair\":0}\n").unwrap();
    let err = one_error_line(&analysis(&["matches", m.to_str().unwrap()]));
    assert!(err.starts_with(&format!("analysis: error: {}:1: missing field", m.display())), "{err}");
}

#[test]
fn a_run_still_being_written_is_plotted_with_one_note() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    write_run(&run, 3);
    let epochs = run.join("epochs.jsonl");
    let mut text = std::fs::read_to_string(&epochs).unwrap();
    text.push_str("{\"format\":1,\"epoch\":4,\"gener");
    std::fs::write(&epochs, text).unwrap();
    std::fs::remove_file(run.join("generations.jsonl")).unwrap();
    let o = analysis(&["plot", run.to_str().unwrap(), "--out", dir.path().join("o").to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    assert_eq!(err.matches("is cut off").count(), 1, "{err}");
    assert!(err.contains(&format!("{}:5: the last line is cut off", epochs.display())), "{err}");
    assert!(err.contains("generations.jsonl: not written yet"), "{err}");
    assert!(dir.path().join("o/median-smoothed.png").is_file());
    assert!(!dir.path().join("o/tournaments.png").exists());
}

#[test]
fn matches_sets_series_side_by_side() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("net.jsonl"), dir.path().join("rann.jsonl"));
    write_matches(&a, "net:3:best.json", "random:3", 50, &|i| i % 5 == 0);
    write_matches(&b, "randomann:3", "random:3", 50, &|i| i % 30 == 0);
    let md = dir.path().join("t/matches.md");
    let o = analysis(&["matches", a.to_str().unwrap(), b.to_str().unwrap(), "--out", md.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert_eq!(std::fs::read_to_string(&md).unwrap(), out);
    assert!(out.contains("A: net:3:best.json vs random:3; B: randomann:3 vs random:3."), "{out}");
    assert!(out.contains("| net:3:best.json vs random:3 | All games | 20 | 80 | 0 | 20.00 |"), "{out}");
    assert!(out.contains("## Welch's t-test: net:3:best.json vs random:3 against randomann:3 vs random:3"), "{out}");
}

#[test]
fn compare_refuses_one_run_and_mixed_references_unless_told() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    write_run(&a, 3);
    write_run(&b, 3);
    let config = std::fs::read_to_string(b.join("config.toml")).unwrap();
    std::fs::write(b.join("config.toml"), config.replace("depth = 5", "depth = 3")).unwrap();
    let out = dir.path().join("cmp");
    let (a, b, o) = (a.to_str().unwrap(), b.to_str().unwrap(), out.to_str().unwrap());
    let err = one_error_line(&analysis(&["compare", a, "--out", o]));
    assert!(err.contains("two or more runs") && err.contains("analysis report RUN"), "{err}");
    let err = one_error_line(&analysis(&["compare", a, b, "--out", o]));
    assert!(err.contains(&format!("{a} against aloa:5, {b} against aloa:3")), "{err}");
    assert!(err.contains("--mixed-references"), "{err}");
    assert!(!out.exists(), "nothing is written for a refused comparison");
    let ok = analysis(&["compare", a, b, "--out", o, "--mixed-references"]);
    assert!(ok.status.success(), "{}", stderr(&ok));
    check_svg(&out.join("compare-raw.svg"), "a vs aloa:5");
    check_svg(&out.join("compare-raw.svg"), "b vs aloa:3");
    let md = std::fs::read_to_string(out.join("compare.md")).unwrap();
    assert!(md.contains("| a | aloa:5 | 3 |") && md.contains("| b | aloa:3 | 3 |"), "{md}");
    assert!(md.contains("**Caveat:** a was judged against aloa:5 and b against aloa:3"), "{md}");
    // Three epochs (four with epoch 0) give no verdict.
    assert!(md.contains("too few epochs (4 of the 5 a verdict needs)") && !md.contains("rising"), "{md}");
}

#[test]
fn report_refuses_epochs_the_run_did_not_record() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    write_run(&run, 3);
    let out = dir.path().join("rep");
    for (epochs, missing) in [("99", "99"), ("2,3,7,8", "7, 8")] {
        let o = analysis(&["report", run.to_str().unwrap(), "--epochs", epochs, "--out", out.to_str().unwrap()]);
        let err = one_error_line(&o);
        let expected = format!("{} has no epoch {missing} (it records epochs 0 to 3)", run.display());
        assert!(err.contains(&expected) && err.contains("--epochs"), "{err}");
        assert!(!out.exists(), "no empty report is written");
    }
    let o = analysis(&["report", run.to_str().unwrap(), "--epochs", "0,3", "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(std::fs::read_to_string(out.join("report.md")).unwrap().contains("## Epochs 0, 3 in detail"));
}

#[test]
fn validation_charts_each_opponent_for_any_set_of_runs_and_refuses_a_run_without_lines() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b, bare) = (dir.path().join("es"), dir.path().join("ga"), dir.path().join("bare"));
    let line = |epoch: u32, opponent: &str, wins: u32, seconds: f64| {
        let mut r = loa_records::ValidationRecord::new(epoch, u64::from(epoch), 1, opponent, [wins, 20 - wins, 0]);
        (r.cpu_seconds, r.wall_seconds) = (2.0 * seconds, seconds);
        r
    };
    for (run, wins) in [(&a, 4), (&b, 1)] {
        std::fs::create_dir_all(run).unwrap();
        let lines: Vec<_> = (0..4u32)
            .flat_map(|e| {
                [line(e, "aloa:3", wins * e, 600.0 * f64::from(e)), line(e, "random:3", 10 + e, 600.0 * f64::from(e))]
            })
            .collect();
        loa_records::jsonl::write_lines(&run.join("validation.jsonl"), &lines).unwrap();
    }
    std::fs::create_dir_all(&bare).unwrap();
    let out = dir.path().join("strength");
    let (a, b, o) = (a.to_str().unwrap(), b.to_str().unwrap(), out.to_str().unwrap());
    let err = one_error_line(&analysis(&["validation", a, bare.to_str().unwrap(), "--out", o]));
    assert!(err.contains("bare: no validation.jsonl") && err.contains("[validation]"), "{err}");
    let refused = analysis(&["validation", a, "--reach", "120", "--out", o]);
    let err = stderr(&refused);
    assert!(!refused.status.success() && err.contains("--reach") && err.contains("not a percentage"), "{err}");
    let ok = analysis(&["validation", a, b, "--reach", "40", "--out", o]);
    assert!(ok.status.success(), "{}", stderr(&ok));
    for n in [1, 2] {
        check_png(&out.join(format!("validation-{n}.png")), 20_000);
    }
    check_svg(&out.join("validation-1.svg"), "win rate against aloa:3 by CPU time");
    check_svg(&out.join("validation-1.svg"), "wall-clock time (minutes)");
    check_svg(&out.join("validation-2.svg"), "strength against random:3");
    let md = std::fs::read_to_string(out.join("validation.md")).unwrap();
    // es's last line against aloa:3: 12 of 20 at 30 wall minutes; its four lines pooled, 24 of
    // 80; it first won 40 % (8 of 20) at epoch 2, 40 CPU minutes. Wilson intervals by the
    // formula in Python's decimal at 40 digits: 12/20 38.658-78.119 %, 24/80 21.065-40.768 %.
    let es = "| es | aloa:3 | 3 | 20 | 60.0 | 38.7-78.1 | 30.0 | 21.1-40.8 | 60.00 | 30.00 | 60.0 | 3 | 40.0 |";
    assert!(md.contains(es), "{md}");
    assert!(md.contains("| ga | aloa:3 | 3 | 20 | 15.0 |") && md.contains("| not reached |"), "{md}");
}

#[test]
fn a_missing_baseline_says_which_command_writes_one() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    write_run(&run, 3);
    let (missing, out) = (dir.path().join("rh-aloa.jsonl"), dir.path().join("rep"));
    let o = analysis(&[
        "report",
        run.to_str().unwrap(),
        "--baseline",
        missing.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    let err = one_error_line(&o);
    assert!(err.contains(&format!("{}: no such file", missing.display())), "{err}");
    assert!(err.contains(&format!("--out {}`", missing.display())) && err.contains("loa match"), "{err}");
}

#[test]
fn export_writes_one_flat_csv_per_record_kind() {
    use loa_records::{EpochReport, Figures, GenerationRecord, jsonl};
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    write_run(&run, 3);
    // A generation line with figures, one of them in a group, and a text with a comma.
    let generations = jsonl::read::<GenerationRecord>(&run.join("generations.jsonl")).unwrap().records;
    let figures =
        Figures::new().with("best", 0.5).with("group", Figures::new().with("step", 0.25)).with("note", "a, b");
    let extra = GenerationRecord { generation: 7, figures: Some(figures), ..generations[5].clone() };
    jsonl::append_line(&run.join("generations.jsonl"), &extra).unwrap();
    let out = dir.path().join("csv");
    let o = analysis(&["export", run.to_str().unwrap(), "--csv", "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let read = |name: &str| std::fs::read_to_string(out.join(name)).unwrap();
    let lines = |name: &str| read(name).lines().map(str::to_owned).collect::<Vec<_>>();
    let g = lines("generations.csv");
    assert_eq!(
        g[0],
        "generation,epoch,games,mean_plies,seconds,games_per_second,workers,survivors_kept,tournaments,figures.best,\
         figures.group.step,figures.note"
    );
    assert_eq!(g.len(), 1 + 7);
    assert!(g[1].starts_with("1,1,36,71,1.5,25,2,1,6,,,"), "{}", g[1]);
    assert!(g[7].ends_with(",0.5,0.25,\"a, b\""), "{}", g[7]);
    // Epochs: the best and its network's own games, as epochs.jsonl has them.
    let reports = jsonl::read::<EpochReport>(&run.join("epochs.jsonl")).unwrap().records;
    let e = lines("epochs.csv");
    assert_eq!(e[0], "epoch,generation,networks,best,mean,median,best_serial,best_black,best_white");
    assert_eq!(e.len(), 1 + reports.len());
    for (row, r) in e[1..].iter().zip(&reports) {
        let cells: Vec<&str> = row.split(',').collect();
        let best = r.entries.iter().max_by_key(|b| (b.combined, std::cmp::Reverse(b.serial))).unwrap();
        assert_eq!(cells[3], r.entries.iter().map(|b| b.combined).max().unwrap().to_string());
        assert_eq!(cells[6..], [best.serial.to_string(), best.scores[0].to_string(), best.scores[1].to_string()]);
    }
    let b = lines("benchmark.csv");
    assert_eq!((b[0].as_str(), b.len()), ("epoch,serial,black,white,combined", 1 + 4 * 6));
    assert!(!out.join("validation.csv").exists(), "the run has no validation.jsonl");
    let o = analysis(&["export", run.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert!(!o.status.success() && stderr(&o).contains("--csv"), "{}", stderr(&o));
}
