//! The `loa` command: output format and clear errors on bad input (never a panic).

use std::process::{Command, Output};

const START: &str = ".bbbbbb./w......w/w......w/w......w/w......w/w......w/w......w/.bbbbbb. b";

fn loa(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_loa")).args(args).output().expect("run loa")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn perft_prints_the_count_last() {
    let o = loa(&["perft", START, "3"]);
    assert!(o.status.success());
    assert_eq!(stdout(&o).lines().last(), Some("44952"));
    let o = loa(&["perft", START, "2", "--divide"]);
    let out = stdout(&o);
    assert_eq!(out.lines().count(), 37);
    assert_eq!(out.lines().next(), Some("b1-h1 35"));
    assert_eq!(out.lines().last(), Some("1244"));
}

#[test]
fn moves_lists_canonical_order() {
    let o = loa(&["moves", START]);
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 36);
    assert_eq!(lines[0], "b1-h1");
    assert_eq!(lines[3], "c1xa3");
}

#[test]
fn show_reports_groups_quads_and_state() {
    let o = loa(&["show", START]);
    let out = stdout(&o);
    assert!(out.contains("side to move: black"), "{out}");
    assert!(out.contains("black: 12 pieces, 2 groups"), "{out}");
    assert!(out.contains("Euler 2, not connected"), "{out}");
    assert!(out.contains("game not over"), "{out}");
    let won = "......../......../w......./w......./......../......../......b./.......b w";
    let out = stdout(&loa(&["show", won]));
    assert!(out.contains("game over: draw as both sides are connected"), "{out}");
}

#[test]
fn bad_input_is_a_one_line_error_and_nonzero_exit() {
    let cases: &[&[&str]] = &[
        &["perft", "not a position", "2"],
        &["moves", ".bbbbbb./w......w/w......w/w......w/w......w/w......w/w......w/.bbbbbb."],
        &["show", ".bbbbbb./w......w/w..Q...w/w......w/w......w/w......w/w......w/.bbbbbb. b"],
        &["perft", START, "two"],
        &["perft", START, "-1"],
        &["frobnicate"],
    ];
    for args in cases {
        let o = loa(args);
        let err = stderr(&o);
        assert!(!o.status.success(), "{args:?} should fail");
        assert!(err.contains("error"), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    let err = stderr(&loa(&["show", ".bbbbbb./w......w/w..Q...w/w......w/w......w/w......w/w......w/.bbbbbb. b"]));
    assert_eq!(err.lines().count(), 1);
    assert!(err.contains("bad character 'Q' on d6"), "{err}");
}
