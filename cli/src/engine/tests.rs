use super::*;
use loa_engine::game::Player;
use loa_engine::players::RandomPlayer;

/// The replies to `lines`, one string per line written.
fn session(lines: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    run(Engine::new(), lines.join("\n").as_bytes(), &mut out).unwrap();
    String::from_utf8(out).unwrap().lines().map(str::to_string).collect()
}

#[test]
fn uci_and_isready_are_answered() {
    let replies = session(&["uci", "isready"]);
    assert!(replies[0].starts_with("id name loa-evolve "), "{replies:?}");
    assert_eq!(replies[1], "id author the loa-evolve authors");
    assert_eq!(replies[2], "option name Player type string default aloa:5");
    assert_eq!(replies[3], "option name Seed type string default 0");
    assert_eq!(replies[4..], ["uciok", "readyok"]);
}

#[test]
fn go_answers_the_players_move_with_the_games_seed_and_plies() {
    // The random heuristic's move depends on the game seed: the engine's answer must be the
    // player's own choice for that seed, in the position after the moves.
    let pos = apply_moves(Position::start(), &["b1-b3", "h2-f2"], &Rules::default()).unwrap();
    for seed in [0u64, 7, 123_456_789_012] {
        let expected = RandomPlayer { depth: 2, salt: 3 }.choose(&pos, &Rules::default(), 2, seed).best.unwrap();
        let replies = session(&[
            "setoption name Player value random:2:3",
            &format!("setoption name Seed value {seed}"),
            "position startpos moves b1-b3 h2-f2",
            "go movetime 50",
        ]);
        assert_eq!(replies.last().unwrap(), &format!("bestmove {expected}"), "{replies:?}");
        assert!(replies[0].starts_with("info depth 2 nodes "), "{replies:?}");
    }
}

#[test]
fn go_depth_searches_that_deep_with_the_same_evaluator() {
    let pos = Position::start();
    let expected = RandomPlayer { depth: 3, salt: 0 }.choose(&pos, &Rules::default(), 0, 5).best.unwrap();
    let replies = session(&["setoption name Player value random:1", "setoption name Seed value 5", "go depth 3"]);
    assert_eq!(replies, [replies[0].clone(), format!("bestmove {expected}")]);
    assert!(replies[0].starts_with("info depth 3 "), "{replies:?}");
}

#[test]
fn a_finished_game_gets_no_move() {
    let won = "w......w/......../......../......../......../......../..b...../.b...... w";
    let replies = session(&[&format!("position fen {won}"), "go"]);
    assert_eq!(replies, ["info string game over: black wins by connecting all its pieces", "bestmove (none)"]);
    // 100 plies (the ply cap) of shuffling back and forth: a draw, no move.
    let shuffle: Vec<&str> = ["b1-b3", "h2-f2", "b3-b1", "f2-h2"].into_iter().cycle().take(100).collect();
    let replies = session(&[&format!("position startpos moves {}", shuffle.join(" ")), "go"]);
    assert_eq!(replies, ["info string game over: draw at the ply cap (100 plies played)", "bestmove (none)"]);
}

#[test]
fn bad_input_is_named_and_the_session_goes_on() {
    let replies = session(&[
        "hello",
        "position startpos moves b1-b3 h2-f2 c1xc3",
        "go",
        "setoption name Player value chess:3",
        "setoption name Player value randomann:3",
        "setoption name Player value net:2:/no/such/net.json",
        "setoption name Seed value -1",
        "setoption name Colour value red",
        "go depth 40",
        "position startpos",
        "isready",
    ]);
    let expect = [
        "info string error: unknown command `hello`",
        "info string error: position: move 3 `c1xc3`: `c1xc3` goes to the empty square c3: write it with `-`, as c1-c3",
        "info string error: go: no position",
        "bestmove (none)",
        "info string error: option Player: bad player `chess:3`: unknown player kind `chess`",
        "info string error: option Player: `randomann:3` draws a new network for every match",
        "info string error: option Player: cannot read chromosome file /no/such/net.json",
        "info string error: option Seed: `-1` is not a whole number",
        "info string error: unknown option `Colour` (options: Player, Seed)",
        "info string error: go: depth must be 1..=12, not 40",
        "bestmove (none)",
        "readyok",
    ];
    assert_eq!(replies.len(), expect.len(), "{replies:?}");
    for (reply, start) in replies.iter().zip(expect) {
        assert!(reply.starts_with(start), "{reply:?} should start with {start:?}");
    }
}

#[test]
fn quit_ends_the_session_and_a_line_that_is_not_text_does_not() {
    let mut out = Vec::new();
    run(Engine::new(), &b"\xff\xfe\nisready\nquit\nisready\n"[..], &mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert_eq!(text, "info string error: the line is not UTF-8 text; send commands as plain text\nreadyok\n");
}

#[test]
fn odd_lines_never_stop_the_session_and_every_go_gets_one_bestmove() {
    let long = format!("position startpos moves {}", ["b1-b3", "h2-f2", "b3-b1", "f2-h2"].repeat(40).join(" "));
    let lines = [
        "position fen",
        "position fen a b c",
        "position startpos moves",
        "position startpos moves pass",
        "position startpos moves b1-b3 b1-b3",
        "go depth -1",
        "go depth 99999999999999999999999",
        "go movetime",
        "go depth 2 depth",
        "setoption",
        "setoption name",
        "setoption name value",
        "setoption name Player value",
        "setoption name Seed value 18446744073709551616",
        "\t",
        "uci\r",
        "pösition startpos",
        "go\u{0}",
        "position fen .bbbbbb./w......w/w..Q...w/w......w/w......w/w......w/w......w/.bbbbbb. b",
        &long,
        "go",
        "isready",
    ];
    let replies = session(&lines);
    let goes = lines.iter().filter(|l| l.split_whitespace().next() == Some("go")).count();
    assert_eq!(replies.iter().filter(|r| r.starts_with("bestmove ")).count(), goes, "{replies:#?}");
    assert_eq!(replies.last().map(String::as_str), Some("readyok"), "{replies:#?}");
    // Echoed input is escaped: no control character reaches the output.
    assert!(replies.iter().all(|r| !r.is_empty() && !r.contains(char::is_control)), "{replies:#?}");
    assert!(replies.iter().any(|r| r.contains("unknown command `go\\0`")), "{replies:#?}");
    // Other characters are left as they are.
    assert!(replies.iter().any(|r| r.contains("bad character 'Q' on d6")), "{replies:#?}");
}
