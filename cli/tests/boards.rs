//! The `loa` command on the smaller boards and from Scrambled Eggs: `--board` and `--start`,
//! position text of any size, and clear errors for what a board cannot do.

use std::io::Write;
use std::process::{Command, Output, Stdio};

const FIVE: &str = ".bbb./w...w/w...w/w...w/.bbb. b";
const SIX: &str = ".bbbb./w....w/w....w/w....w/w....w/.bbbb. b";
const EGGS: &str = ".wbwbwb./b......w/w......b/b......w/w......b/b......w/w......b/.bwbwbw. b";

fn loa(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_loa")).args(args).output().expect("run loa")
}

fn loa_stdin(args: &[&str], input: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_loa"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run loa");
    child.stdin.take().expect("stdin").write_all(input.as_bytes()).expect("write");
    child.wait_with_output().expect("wait")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A failure with a one-line message containing `want`.
fn fails_with(o: &Output, want: &str) {
    let err = stderr(o);
    assert!(!o.status.success(), "{err}");
    assert!(err.contains(want), "wanted `{want}` in: {err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn position_commands_take_any_size() {
    // Counts of the engine tests' independent 2-D generator (engine/tests/perft_sizes.rs).
    assert_eq!(stdout(&loa(&["perft", FIVE, "3"])).lines().last(), Some("4164"));
    assert_eq!(stdout(&loa(&["perft", SIX, "2"])).lines().last(), Some("524"));
    assert_eq!(stdout(&loa(&["perft", EGGS, "2"])).lines().last(), Some("992"));
    let moves = stdout(&loa(&["moves", FIVE]));
    assert_eq!(moves.lines().count(), 18);
    assert_eq!(moves.lines().next(), Some("b1-e1"));
    let show = stdout(&loa(&["show", SIX]));
    assert!(show.contains("board: 6x6"), "{show}");
    assert!(show.contains("   a b c d e f\n"), "{show}");
    // The (6+1)² = 49 windows of the 6×6 board: 8 pieces in two rows of four.
    assert!(show.contains("black: 8 pieces, 2 groups, quads Q0=29 Q1=8 Q2=12"), "{show}");
    assert_eq!(stdout(&loa(&["apply", FIVE, "b1-b3"])).trim(), ".bbb./w...w/wb..w/w...w/..bb. w");
    let best = stdout(&loa(&["best", "--player", "aloa:2", SIX]));
    assert!(best.starts_with("move: "), "{best}");
}

#[test]
fn moves_and_pieces_off_the_board_are_named() {
    fails_with(&loa(&["apply", FIVE, "b1-b6"]), "b6 is outside the 5x5 board");
    fails_with(&loa(&["apply", FIVE, "f1-f3"]), "f1 is outside the 5x5 board");
    fails_with(&loa(&["perft", ".bbb./w...w/w...w/w...w/.bbbb. b", "1"]), "rank 1 must have 5 squares");
    fails_with(&loa(&["perft", "w/b/w b", "1"]), "5 to 8 ranks");
    fails_with(&loa(&["perft", "bbbbb/bb.../...../...../....w b", "1"]), "black has 7 pieces, at most 6");
}

#[test]
fn match_and_play_take_a_board_and_a_start() {
    let o = loa(&["match", "--black", "aloa:1", "--white", "random:1", "--games", "4", "--board", "5x5"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("4 games"), "{}", stdout(&o));
    let o =
        loa(&["match", "--black", "aloa:1", "--white", "aloa:2", "--start", "scrambled-eggs", "--opening-plies", "4"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = loa_stdin(&["play", "--opponent", "aloa:1", "--board", "6"], "moves\nquit\n");
    let out = stdout(&o);
    assert!(out.contains("6  . b b b b .\n"), "{out}");
    assert!(!out.contains("7  "), "{out}");
    let o = loa_stdin(&["play", "--opponent", "aloa:1", "--start", "scrambled-eggs"], "quit\n");
    assert!(stdout(&o).contains("8  . w b w b w b .\n"), "{}", stdout(&o));
}

#[test]
fn bad_boards_starts_and_networks_off_their_board_are_refused() {
    fails_with(&loa(&["match", "--black", "aloa:1", "--white", "aloa:1", "--board", "9"]), "must be 5 to 8");
    fails_with(&loa(&["match", "--black", "aloa:1", "--white", "aloa:1", "--board", "6x7"]), "not square");
    fails_with(&loa(&["play", "--opponent", "aloa:1", "--board", "six"]), "write 5x5, 6x6, 7x7 or 8x8");
    fails_with(&loa(&["play", "--opponent", "aloa:1", "--start", "eggs"]), "`standard` or `scrambled-eggs`");
    fails_with(
        &loa(&["match", "--black", "aloa:1", "--white", "aloa:1", "--board", "7", "--start", "scrambled-eggs"]),
        "8x8 board only, not on 7x7",
    );
    fails_with(
        &loa(&["match", "--black", "aloa:1", "--white", "aloa:1", "--board", "5", "--opening-plies", "7"]),
        "at most 6 on the 5x5 board",
    );
    fails_with(&loa(&["match", "--black", "randomann:1", "--white", "aloa:1", "--board", "6"]), "reads the 8x8 board");
    // A network file of the thesis's shape on 5x5 and 6x6, and one of a 5x5 shape on 8x8.
    let dir = tempfile::tempdir().unwrap();
    let thesis = dir.path().join("thesis.json");
    loa_engine::network::random_uniform(3).write(&thesis).unwrap();
    let five: loa_engine::network::Topology = "5x5-board-25-3-1".parse().unwrap();
    let small = dir.path().join("five.json");
    loa_engine::network::Chromosome::new(five, vec![0.1; five.weight_count()]).unwrap().write(&small).unwrap();
    let (thesis, small) = (thesis.display().to_string(), small.display().to_string());
    fails_with(&loa(&["play", "--opponent", &format!("net:1:{thesis}"), "--board", "5"]), "not 5x5");
    fails_with(&loa(&["best", "--player", "randomann:1:3", FIVE]), "reads the 8x8 board, not 5x5");
    fails_with(&loa(&["eval", "--weights", &thesis, SIX]), "not 6x6");
    fails_with(&loa(&["eval", "--weights", &small, loa_engine::START_TEXT]), "reads the 5x5 board, not 8x8");
    let value: f32 = stdout(&loa(&["eval", "--weights", &small, FIVE])).trim().parse().unwrap();
    assert!(value.abs() <= 1.0, "{value}");
}

#[test]
fn the_engine_starts_from_its_board_and_refuses_networks_off_theirs() {
    let o = loa_stdin(&["engine", "--board", "5"], "position startpos\ngo depth 1\nquit\n");
    let out = stdout(&o);
    let best = out.lines().find_map(|l| l.strip_prefix("bestmove ")).expect("a bestmove");
    assert!(stdout(&loa(&["moves", FIVE])).lines().any(|m| m == best), "{best} is not a 5x5 start move");
    let input = format!("setoption name Player value randomann:1:4\nposition fen {FIVE}\ngo\nquit\n");
    let out = stdout(&loa_stdin(&["engine"], &input));
    assert!(
        out.contains(
            "info string error: go: player `randomann:1:4`: the network board-nonad-100-20-1 reads the 8x8 board, not 5x5"
        ),
        "{out}"
    );
    assert!(out.contains("bestmove (none)"), "{out}");
}
