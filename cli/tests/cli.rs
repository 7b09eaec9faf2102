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
    // A missing file is named once, with the flag that gave it.
    let err = stderr(&loa(&["eval", "--weights", "/no/such/net.json", START]));
    assert!(err.starts_with("loa: error: --weights: cannot read chromosome file /no/such/net.json: "), "{err}");
    assert_eq!(err.matches("/no/such/net.json").count(), 1, "{err}");
    let err = stderr(&loa(&["best", "--player", "net:2:/no/such/net.json", START]));
    assert_eq!(err.matches("/no/such/net.json").count(), 1, "{err}");
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
    assert!(err.starts_with("loa: error: --player: bad player `chess:3`: unknown player kind `chess`"), "{err}");
    // The forms listed are the ones `loa` plays: not a run's survivors, which it refuses.
    assert!(err.trim_end().ends_with("net:D:FILE or engine:CMD)"), "{err}");
    let err = stderr(&loa(&["best", "--player", "run:3:runs/x:epochs=1", START]));
    assert!(err.contains("--player: bad player `run:3:runs/x:epochs=1`: a run's survivors"), "{err}");
}

#[test]
fn a_bad_player_is_named_by_its_flag() {
    let err = stderr(&loa(&["match", "--black", "aloa:1", "--white", "aloa:0"]));
    assert!(err.starts_with("loa: error: --white: bad player `aloa:0`: the depth must be 1..=12"), "{err}");
    let err = stderr(&loa(&["play", "--opponent", "randomann:2", "--board", "6"]));
    assert!(err.starts_with("loa: error: --opponent: player `randomann:2`: the network"), "{err}");
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
    let args = ["match", "--black", "random:1", "--white", "aloa:1", "--games", "6", "--seed", "4"];
    for (path, threads) in [(&one, "1"), (&two, "2")] {
        let o = loa(&[&args[..], &["--threads", threads, "--out", path.to_str().unwrap()]].concat());
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(stdout(&o).starts_with("6 games (3 two-game matches)"), "{}", stdout(&o));
    }
    let text = std::fs::read_to_string(&one).unwrap();
    assert_eq!(text, std::fs::read_to_string(&two).unwrap());
    let lines = jsonl::read::<MatchLine>(&one).unwrap().records;
    assert_eq!(lines.len(), 7, "{text}");
    let games: Vec<_> = lines.iter().filter_map(|l| if let MatchLine::Game(g) = l { Some(g) } else { None }).collect();
    assert_eq!(
        games.iter().map(|g| (g.pair, g.game)).collect::<Vec<_>>(),
        [(0, 0), (0, 1), (1, 0), (1, 1), (2, 0), (2, 1)]
    );
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
    let MatchLine::Summary(s) = &lines[6] else { panic!("the last line is the summary: {text}") };
    assert_eq!((s.games, s.matches, s.sides[0].spec.as_str()), (6, 3, "random:1"));
    assert_eq!(s.sides[0].wins + s.sides[0].losses + s.sides[0].draws, 6);
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

#[test]
fn play_wants_the_separator_the_board_has() {
    // In the start position c3 is empty (c1-c3 is quiet) and h3 holds a white piece (f1xh3
    // takes it): each written with the other separator is refused, naming the right form.
    let o = loa_stdin(&["play", "--opponent", "aloa:1", "--as", "black"], "c1xc3\nf1-h3\nquit\n");
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("`c1xc3` goes to the empty square c3: write it with `-`, as c1-c3"), "{out}");
    assert!(out.contains("`f1-h3` takes the piece on h3: write the capture with `x`, as f1xh3"), "{out}");
    assert!(!out.contains("white plays"), "neither was played: {out}");
}

#[test]
fn apply_prints_the_position_after_the_moves() {
    // Worked by hand: the b-file holds b1 and b8, so b1 moves two squares to b3; rank 2 holds
    // a2 and h2, so h2 moves two squares to f2; then the a2-g8 diagonal holds a2, b3 and g8,
    // so Black's b3 moves three squares along it to e6.
    let o = loa(&["apply", START, "b1-b3", "h2-f2", "b3-e6"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), ".bbbbbb./w......w/w...b..w/w......w/w......w/w......w/w....w../..bbbbb. w\n");
    // No moves: the position itself.
    assert_eq!(stdout(&loa(&["apply", START])), format!("{START}\n"));
}

#[test]
fn apply_refuses_a_move_naming_it_its_place_and_why() {
    let o = loa(&["apply", START, "b1-b3", "h2-f2", "c1-c4"]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(
        err.starts_with(
            "loa: error: move 3 `c1-c4`: c1-c4 is illegal here: there are 2 pieces on that line, so the piece must \
             move 2 squares, not 3 (in .bbbbbb./w......w/w......w/w......w/w......w/wb.....w/w....w../..bbbbb. b); \
             legal moves from c1: "
        ),
        "{err}"
    );
    assert!(stdout(&o).is_empty());
    let err = stderr(&loa(&["apply", START, "b1xb3"]));
    assert!(err.contains("move 1 `b1xb3`: `b1xb3` goes to the empty square b3: write it with `-`, as b1-b3"), "{err}");
    let err = stderr(&loa(&["apply", START, "b1-b3", "nonsense"]));
    assert!(err.contains("move 2 `nonsense`: `nonsense` is not move text"), "{err}");
    let won = "w......w/......../......../......../......../......../..b...../.b...... w";
    let err = stderr(&loa(&["apply", won, "a8-a7"]));
    assert!(err.contains("move 1 `a8-a7`: the game is already over"), "{err}");
}

#[test]
fn match_refuses_an_odd_number_of_games() {
    let o = loa(&["match", "--black", "random:1", "--white", "random:2", "--games", "3"]);
    assert!(!o.status.success());
    assert_eq!(
        stderr(&o).trim_end(),
        "loa: error: --games must be even, not 3: games come in two-game matches, each player Black once from the \
         same start (use --games 2 or 4)"
    );
    assert!(stdout(&o).is_empty(), "no game was played");
}

#[test]
fn imitate_says_when_there_is_no_validation_set() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("net.json");
    let out = out.to_str().expect("utf-8 path");
    // 100 positions from seed 1 come from four games, none of them in the held-out 10 %.
    let o = loa(&["imitate", "--positions", "100", "--epochs", "1", "--seed", "1", "--out", out]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("training and 0 validation samples"), "{text}");
    assert!(text.contains("validation: none: the set is held out by game, and none of the 4 games"), "{text}");
    assert!(!text.contains("validation MSE"), "no figures of an empty set: {text}");
    assert!(text.contains("epoch 1: train MSE "), "{text}");
    let o = loa(&["imitate", "--positions", "100", "--epochs", "1", "--validation", "0", "--out", out]);
    assert!(stdout(&o).contains("validation: none (--validation 0)"), "{}", stdout(&o));
    // With a validation set, its figures are printed.
    let o = loa(&["imitate", "--positions", "100", "--epochs", "1", "--seed", "7", "--out", out]);
    assert!(stdout(&o).contains("validation MSE"), "{}", stdout(&o));
}

#[test]
fn completions_are_printed_for_each_shell() {
    for (shell, marker) in [("bash", "_loa()"), ("zsh", "#compdef loa"), ("fish", "complete -c loa")] {
        let o = loa(&["completions", shell]);
        assert!(o.status.success(), "{shell}: {}", stderr(&o));
        let script = stdout(&o);
        assert!(script.contains(marker), "{shell}: {script}");
        // The subcommands and their flags are in it.
        for word in ["apply", "engine", "match", "opening-plies"] {
            assert!(script.contains(word), "{shell} lacks {word}");
        }
    }
    // The bash script is valid bash (checked where bash is installed).
    let script = stdout(&loa(&["completions", "bash"]));
    if let Ok(o) = Command::new("bash").args(["-n", "-c", &script]).output() {
        assert!(o.status.success(), "bash -n: {}", stderr(&o));
    }
    let err = stderr(&loa(&["completions", "tcsh"]));
    assert!(err.contains("invalid value 'tcsh'") && err.contains("bash"), "{err}");
}

#[test]
fn engine_refuses_a_bad_player_flag_before_starting() {
    // No input: the engine exits before reading any (writing it some would race the exit).
    let o = loa(&["engine", "--player", "randomann:3"]);
    assert!(!o.status.success());
    assert!(stderr(&o).starts_with("loa: error: --player: `randomann:3` draws a new network"), "{}", stderr(&o));
    assert!(stdout(&o).is_empty());
    // A good one answers the protocol; the end of input ends it.
    let o = loa_stdin(&["engine", "--player", "random:1", "--seed", "3"], "uci\nisready\ngo depth 1\n");
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    // The options' defaults shown are the values the flags gave.
    assert!(out.contains("option name Player type string default random:1\n"), "{out}");
    assert!(out.contains("option name Seed type string default 3\nuciok\nreadyok\ninfo depth 1 nodes "), "{out}");
    assert!(out.lines().last().is_some_and(|l| l.starts_with("bestmove ")), "{out}");
}

/// TD training is a method of `master run` now: `loa td`, given anything, trains nothing and
/// says what replaces it.
#[test]
fn loa_td_says_which_master_command_replaces_it() {
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().join("run");
    for args in [
        vec!["td", "--config", "experiments/td/5x5.toml", "--out", dir.to_str().unwrap()],
        vec!["td", "--resume", dir.to_str().unwrap()],
        vec!["td"],
    ] {
        let o = loa(&args);
        assert!(!o.status.success(), "{args:?}");
        let err = stderr(&o);
        assert!(err.contains("master run --config FILE --out DIR") && err.contains("docs/td.md"), "{err}");
        assert!(!dir.exists(), "nothing written");
    }
}

/// The games of a match file, in order.
fn match_games(path: &std::path::Path) -> Vec<loa_records::matches::MatchGameRecord> {
    use loa_records::{MatchLine, jsonl};
    let lines = jsonl::read::<MatchLine>(path).unwrap().records;
    lines.into_iter().filter_map(|l| if let MatchLine::Game(g) = l { Some(g) } else { None }).collect()
}

#[test]
fn a_series_of_deterministic_players_from_one_start_is_warned_of() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("m.jsonl");
    let args = ["match", "--black", "aloa:1", "--white", "aloa:2", "--games", "6", "--out", out.to_str().unwrap()];
    let o = loa(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("all 3 pairs are the same two games"), "{err}");
    assert!(err.contains("--opening-plies"), "{err}");
    // The warning is true: every pair replays pair 0, move for move.
    let games = match_games(&out);
    assert!(!games[0].moves.is_empty());
    for g in &games[2..] {
        assert_eq!(g.moves, games[g.game as usize].moves);
    }
    let o = loa(&[&args[..], &["--opening-plies", "4"]].concat());
    assert!(!stderr(&o).contains("warning"), "{}", stderr(&o));
    let games = match_games(&out);
    assert_ne!(games[0].start, games[2].start, "seeded openings differ");
    // A player that depends on the seed plays varied games: no warning.
    let o = loa(&["match", "--black", "aloa:1", "--white", "random:1", "--games", "4"]);
    assert!(!stderr(&o).contains("warning"), "{}", stderr(&o));
}

#[test]
fn a_match_files_game_replays_to_its_recorded_end() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("m.jsonl");
    let path = out.to_str().unwrap();
    let o = loa(&[
        "match",
        "--black",
        "random:1",
        "--white",
        "aloa:1",
        "--games",
        "4",
        "--opening-plies",
        "2",
        "--out",
        path,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let games = match_games(&out);
    for (i, game) in games.iter().enumerate() {
        assert_eq!(game.moves.len() as u32, game.plies);
        let n = (i + 1).to_string();
        let text = stdout(&loa(&["replay", path, &n]));
        let plies: Vec<&str> = text
            .lines()
            .filter(|l| l.trim_start().split_once(". ").is_some_and(|(n, _)| n.parse::<usize>().is_ok()))
            .collect();
        assert_eq!(plies.len(), game.moves.len(), "{text}");
        // The last position, after the recorded moves, is the end `loa show` finds.
        let last = stdout(&loa(&["replay", path, &n, "--ply", &game.plies.to_string()]));
        let expected = match game.outcome.winner() {
            Some(loa_records::Color::Black) => "black wins",
            Some(loa_records::Color::White) => "white wins",
            None => "draw",
        };
        if game.reason != loa_records::EndReason::PlyCap {
            assert!(last.contains(&format!("game over: {expected}")), "game {n}: {last}");
        }
        // `loa apply` plays the same moves to the same position.
        let applied =
            loa(&[&["apply", game.start.as_str()][..], &game.moves.iter().map(String::as_str).collect::<Vec<_>>()]
                .concat());
        assert_eq!(stdout(&applied).trim(), last.lines().next().unwrap(), "game {n}");
    }
    let err = stderr(&loa(&["replay", path, "9"]));
    assert_eq!(err.trim_end(), format!("loa: error: {path}: no game 9: the file holds games 1 to 4"));
    let err = stderr(&loa(&["replay", path, "1", "--ply", "999"]));
    assert!(err.starts_with("loa: error: --ply 999: game 1 has "), "{err}");
    let err = stderr(&loa(&["replay", "/no/such.jsonl", "1"]));
    assert!(err.starts_with("loa: error: ") && err.contains("/no/such.jsonl"), "{err}");
}

#[test]
fn startpos_is_the_standard_start_wherever_a_position_is_read() {
    assert_eq!(stdout(&loa(&["show", "startpos"])), stdout(&loa(&["show", START])));
    assert_eq!(stdout(&loa(&["perft", "startpos", "2"])), stdout(&loa(&["perft", START, "2"])));
}
