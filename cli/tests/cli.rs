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
    // Sizes out of range are refused naming the value: each would have overflowed the stack (a
    // ply a frame, which also prints "fatal runtime error"), asked for petabytes or for more
    // threads than the system gives.
    let sizes: &[&[&str]] = &[
        &["perft", START, "30000"],
        &["bench", "--depth", "30000"],
        &["bench", "--positions", "1000000000000000"],
        &["bench", "--repeats", "0"],
        &["match", "--black", "random:1", "--white", "random:2", "--threads", "5000"],
    ];
    for args in sizes {
        let o = loa(args);
        let err = stderr(&o);
        assert!(!o.status.success(), "{args:?} should fail");
        let value = args.last().unwrap();
        assert!(err.contains(&format!("invalid value '{value}'")), "{args:?}: {err}");
    }
    let err = stderr(&loa(&["show", ".bbbbbb./w......w/w..Q...w/w......w/w......w/w......w/w......w/.bbbbbb. b"]));
    assert_eq!(err.lines().count(), 1);
    assert!(err.contains("bad character 'Q' on d6"), "{err}");
}

fn loa_stdin(args: &[&str], input: &str) -> Output {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_loa"))
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run loa");
    child.stdin.take().expect("stdin").write_all(input.as_bytes()).expect("write");
    child.wait_with_output().expect("wait")
}

#[test]
fn eval_prints_the_network_output_last() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("net.json");
    let chromosome = loa_engine::network::random_uniform(3);
    chromosome.write(&path).unwrap();
    let o = loa(&["eval", "--weights", path.to_str().unwrap(), START]);
    assert!(o.status.success(), "{}", stderr(&o));
    let value: f32 = stdout(&o).lines().last().unwrap().parse().unwrap();
    let net = loa_engine::network::Network::new(&chromosome);
    assert_eq!(value, net.evaluate_plain(&loa_engine::Position::start(), loa_engine::Color::Black));
    // A bad file is named with the problem.
    std::fs::write(&path, r#"{"topology": "board-nonad-100-20-1", "weights": [1, 2]}"#).unwrap();
    let err = stderr(&loa(&["eval", "--weights", path.to_str().unwrap(), START]));
    assert!(err.contains("net.json") && err.contains("2041"), "{err}");
}

#[test]
fn best_reports_move_value_and_nodes() {
    let out = stdout(&loa(&["best", "--player", "aloa:2", START]));
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].starts_with("move: "), "{out}");
    let mv = lines[0].trim_start_matches("move: ");
    assert!(loa_engine::Position::start().parse_move(mv).is_ok(), "{mv} is legal");
    assert!(lines[2].trim_start_matches("nodes: ").parse::<u64>().unwrap() > 36);
    let won = "......../......../w......./w......./......../......../......b./.......b w";
    let err = stderr(&loa(&["best", "--player", "aloa:2", won]));
    assert!(err.contains("game is over"), "{err}");
    let err = stderr(&loa(&["best", "--player", "chess:3", START]));
    assert!(err.contains("unknown player kind"), "{err}");
}

#[test]
fn match_prints_results_for_both_sides() {
    let o =
        loa(&["match", "--black", "aloa:1", "--white", "random:1", "--games", "4", "--seed", "9", "--threads", "2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.starts_with("4 games (2 two-game matches)"), "{out}");
    let line = |name: &str| out.lines().find(|l| l.starts_with(name)).unwrap().to_string();
    let count = |l: &str, what: &str| -> u32 {
        let words: Vec<&str> = l.split_whitespace().collect();
        let i = words.iter().position(|w| w.trim_end_matches([',', ';']) == what).unwrap();
        words[i - 1].parse().unwrap()
    };
    let (a, b) = (line("aloa:1:"), line("random:1:"));
    assert_eq!(count(&a, "wins") + count(&a, "losses") + count(&a, "draws"), 4);
    assert_eq!(count(&a, "wins"), count(&b, "losses"));
    // The same seed gives the same series whatever the thread count.
    let again =
        loa(&["match", "--black", "aloa:1", "--white", "random:1", "--games", "4", "--seed", "9", "--threads", "1"]);
    assert_eq!(stdout(&again), out);
}

#[test]
fn play_refuses_illegal_input_and_lists_moves() {
    let o = loa_stdin(&["play", "--opponent", "aloa:1", "--as", "black"], "hello\nb1-b4\nb1-b3\nquit\n");
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("`hello` is not move text"), "{out}");
    assert!(out.contains("b1-b4 is illegal here: there are 2 pieces on that line"), "{out}");
    assert!(out.contains("Legal moves: b1-h1 b1-b3"), "{out}");
    assert!(out.contains("white plays"), "the opponent answered b1-b3: {out}");
    assert!(out.trim_end().ends_with("Stopped."), "{out}");
    // End of input also stops cleanly.
    assert!(loa_stdin(&["play", "--opponent", "random:1", "--as", "white"], "").status.success());
}

#[test]
fn a_closed_output_pipe_ends_quietly() {
    use std::io::BufRead;
    let mut child = Command::new(env!("CARGO_BIN_EXE_loa"))
        .args(["bench", "--depth", "4", "--repeats", "1", "--positions", "20", "--games", "2"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run loa");
    let mut first = String::new();
    std::io::BufReader::new(child.stdout.take().expect("stdout")).read_line(&mut first).expect("read");
    assert!(first.starts_with("loa bench"), "{first}");
    // The reader is dropped here: the pipe closes while loa still has lines to print.
    let out = child.wait_with_output().expect("wait");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn match_out_writes_one_versioned_line_per_game_whatever_the_thread_count() {
    use loa_records::{MatchLine, jsonl};
    let dir = tempfile::tempdir().unwrap();
    let (one, two) = (dir.path().join("one.jsonl"), dir.path().join("two.jsonl"));
    let args = ["match", "--black", "random:1", "--white", "aloa:1", "--games", "5", "--seed", "4"];
    for (path, threads) in [(&one, "1"), (&two, "2")] {
        let o = loa(&[&args[..], &["--threads", threads, "--out", path.to_str().unwrap()]].concat());
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(stdout(&o).starts_with("5 games (2 two-game matches)"), "{}", stdout(&o));
    }
    let text = std::fs::read_to_string(&one).unwrap();
    assert_eq!(text, std::fs::read_to_string(&two).unwrap());
    let lines = jsonl::read::<MatchLine>(&one).unwrap().records;
    assert_eq!(lines.len(), 6, "{text}");
    let games: Vec<_> = lines.iter().filter_map(|l| if let MatchLine::Game(g) = l { Some(g) } else { None }).collect();
    assert_eq!(games.iter().map(|g| (g.pair, g.game)).collect::<Vec<_>>(), [(0, 0), (0, 1), (1, 0), (1, 1), (2, 0)]);
    assert_eq!((games[0].black.as_str(), games[0].white.as_str()), ("random:1", "aloa:1"));
    assert_eq!((games[1].black.as_str(), games[1].white.as_str()), ("aloa:1", "random:1"));
    for g in &games {
        let expected = match g.outcome.winner() {
            None => (100, 100),
            Some(loa_records::Color::Black) => (200 - g.plies, g.plies),
            Some(loa_records::Color::White) => (g.plies, 200 - g.plies),
        };
        assert_eq!((g.black_score, g.white_score), expected);
    }
    let MatchLine::Summary(s) = &lines[5] else { panic!("the last line is the summary: {text}") };
    assert_eq!((s.games, s.matches, s.sides[0].spec.as_str()), (5, 2, "random:1"));
    assert_eq!(s.sides[0].wins + s.sides[0].losses + s.sides[0].draws, 5);
    let err = stderr(&loa(&[&args[..], &["--out", "/nonexistent-dir/x.jsonl"]].concat()));
    assert_eq!(err.trim_end(), "loa: error: --out: no directory /nonexistent-dir");
}

#[test]
fn imitate_writes_a_network_the_players_read_and_refuses_bad_flags() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("net.json");
    let out = out.to_str().expect("utf-8 path");
    let o = loa(&["imitate", "--positions", "300", "--epochs", "2", "--batch", "32", "--seed", "5", "--out", out]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("epoch 2: train MSE"), "{text}");
    assert!(text.lines().last().is_some_and(|l| l.starts_with("wrote ")), "{text}");
    // The file is a chromosome the `net:D:FILE` player reads.
    let player = format!("net:1:{out}");
    let o = loa(&["best", "--player", &player, START]);
    assert!(o.status.success(), "{}", stderr(&o));
    for (flag, value, message) in [
        ("--positions", "5", "--positions must be 100..=2000000 (memory: 800 bytes each), not 5"),
        ("--validation", "1.5", "--validation must be at least 0 and below 0.9, not 1.5"),
        ("--epochs", "0", "--epochs must be 1..=100000, not 0"),
        ("--batch", "0", "--batch must be 1..=1000000, not 0"),
        ("--learning-rate", "-1", "--learning-rate must be in (0, 1], not -1"),
        ("--learning-rate", "NaN", "--learning-rate must be in (0, 1], not NaN"),
        ("--scale", "0", "--scale must be a positive number, not 0"),
        ("--out", "/nonexistent-dir/x.json", "--out: no directory /nonexistent-dir"),
    ] {
        let mut args = vec![("--positions", "300"), ("--epochs", "1"), ("--out", out)];
        args.retain(|(f, _)| *f != flag);
        args.push((flag, value));
        let args: Vec<String> = args.iter().map(|(f, v)| format!("{f}={v}")).collect();
        let args: Vec<&str> = std::iter::once("imitate").chain(args.iter().map(String::as_str)).collect();
        let o = loa(&args);
        assert!(!o.status.success(), "{flag} {value} should fail");
        assert_eq!(stderr(&o).trim_end(), format!("loa: error: {message}"), "{flag} {value}");
    }
}
