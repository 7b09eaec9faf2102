//! `loa engine` driven as another program would: two engine processes play a series, a driver
//! here passes the moves between them and judges the end with the engine crate's rules, and
//! the games are the ones `loa match` plays for the same players and seed.

use loa_cli::series::{PairPlayers, SeriesConfig, play_series};
use loa_engine::game::Player;
use loa_engine::spec::{Accepts, PlayerSpec};
use loa_engine::{Color, EndReason, Outcome, Position, Rules};
use loa_records::{MatchGameRecord, MatchLine, jsonl};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::Arc;

/// A running `loa engine`.
struct Engine {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
    depth: u32,
}

impl Engine {
    /// Starts an engine playing `player`: through `setoption` or, with `flag`, `--player`.
    fn start(player: &str, flag: bool) -> Engine {
        let mut command = Command::new(env!("CARGO_BIN_EXE_loa"));
        command.arg("engine");
        if flag {
            command.args(["--player", player]);
        }
        let mut child =
            command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::inherit()).spawn().expect("run loa");
        let (input, output) = (child.stdin.take().expect("stdin"), child.stdout.take().expect("stdout"));
        let depth = PlayerSpec::parse_in(player, Accepts::Playable).expect("a spec").depth();
        let mut engine = Engine { child, input, output: BufReader::new(output), depth };
        engine.send("uci");
        engine.read_until("uciok");
        if !flag {
            engine.send(&format!("setoption name Player value {player}"));
        }
        engine.send("isready");
        engine.read_until("readyok");
        engine
    }

    fn send(&mut self, line: &str) {
        writeln!(self.input, "{line}").expect("write to the engine");
        self.input.flush().expect("flush");
    }

    /// Reads replies until one starts with `prefix`; an error reply fails the test.
    fn read_until(&mut self, prefix: &str) -> String {
        loop {
            let mut line = String::new();
            assert!(self.output.read_line(&mut line).expect("read") > 0, "the engine ended before `{prefix}`");
            assert!(!line.contains("error"), "the engine refused something: {line}");
            if line.starts_with(prefix) {
                return line.trim_end().to_string();
            }
        }
    }

    /// The engine's move `moves` into the game from `start` with seed `seed`, asked with one of
    /// the three forms of `go` in turn (all search the player's own depth).
    fn best(&mut self, start: &str, moves: &[String], seed: u64) -> String {
        self.send(&format!("setoption name Seed value {seed}"));
        let tail = if moves.is_empty() { String::new() } else { format!(" moves {}", moves.join(" ")) };
        self.send(&format!("position fen {start}{tail}"));
        let go = match moves.len() % 3 {
            0 => "go".to_string(),
            1 => format!("go depth {}", self.depth),
            _ => "go movetime 5".to_string(),
        };
        self.send(&go);
        self.read_until("bestmove ").trim_start_matches("bestmove ").to_string()
    }

    fn quit(mut self) {
        self.send("quit");
        assert!(self.child.wait().expect("wait").success());
    }
}

/// A game as the driver saw it.
struct Played {
    moves: Vec<String>,
    outcome: Outcome,
    reason: EndReason,
}

/// Plays one game of the match file between the engines, judging the end itself.
fn drive(record: &MatchGameRecord, black: &mut Engine, white: &mut Engine) -> Played {
    let rules = Rules::default();
    let mut pos: Position = record.start.parse().expect("start position");
    let mut moves = Vec::new();
    loop {
        let plies = moves.len() as u32;
        let end = pos.game_end(&rules).map(|e| (e.outcome, e.reason));
        if let Some((outcome, reason)) = end.or((plies >= rules.ply_cap).then_some((Outcome::Draw, EndReason::PlyCap)))
        {
            // Either engine, asked for a move now, says there is none.
            assert_eq!(black.best(&record.start, &moves, record.seed), "(none)");
            return Played { moves, outcome, reason };
        }
        let engine = if pos.side_to_move() == Color::Black { &mut *black } else { &mut *white };
        let text = engine.best(&record.start, &moves, record.seed);
        // The strict parser: the engine writes moves as the board has them.
        pos = pos.play(pos.parse_move(&text).unwrap_or_else(|e| panic!("the engine played {text}: {e}")));
        moves.push(text);
    }
}

fn outcome_text(outcome: Outcome) -> String {
    match outcome {
        Outcome::Win(c) => format!("{c} wins"),
        Outcome::Draw => "draw".into(),
    }
}

fn record_outcome_text(record: &MatchGameRecord) -> String {
    match record.outcome {
        loa_records::Outcome::Win(loa_records::Color::Black) => "black wins".into(),
        loa_records::Outcome::Win(loa_records::Color::White) => "white wins".into(),
        loa_records::Outcome::Draw => "draw".into(),
    }
}

/// `loa match` for `first` against `second`, and the same series played by two engines.
fn engines_play_loa_match(first: &str, second: &str, games: u32, seed: u64, opening_plies: u32, dir: &Path) {
    let out = dir.join("match.jsonl");
    let args = [
        "match".to_string(),
        format!("--black={first}"),
        format!("--white={second}"),
        format!("--games={games}"),
        format!("--seed={seed}"),
        format!("--opening-plies={opening_plies}"),
        format!("--out={}", out.display()),
    ];
    let o = Command::new(env!("CARGO_BIN_EXE_loa")).args(&args).output().expect("run loa match");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let records: Vec<MatchGameRecord> = jsonl::read::<MatchLine>(&out)
        .expect("match file")
        .records
        .into_iter()
        .filter_map(|l| if let MatchLine::Game(g) = l { Some(g) } else { None })
        .collect();
    assert_eq!(records.len(), games as usize);

    // The series' moves, from the library `loa match` plays it with (the file has no moves).
    let (a, b) = (
        PlayerSpec::parse_in(first, Accepts::Playable).unwrap(),
        PlayerSpec::parse_in(second, Accepts::Playable).unwrap(),
    );
    let (pa, pb) = (a.prepare().unwrap(), b.prepare().unwrap());
    let players = |s: u64| -> PairPlayers {
        (pa.for_match(s) as Arc<dyn Player + Send>, pb.for_match(s) as Arc<dyn Player + Send>)
    };
    let config =
        SeriesConfig { games, seed, threads: 1, start: Position::start(), opening_plies, rules: Rules::default() };
    let series: Vec<_> = play_series(&config, &players, &|_| {}).games().cloned().collect();

    let (mut first_engine, mut second_engine) = (Engine::start(first, false), Engine::start(second, true));
    for (record, game) in records.iter().zip(&series) {
        let (black, white) = if record.first_color == loa_records::Color::Black {
            (&mut first_engine, &mut second_engine)
        } else {
            (&mut second_engine, &mut first_engine)
        };
        let played = drive(record, black, white);
        let what = format!("pair {} game {} ({} - {})", record.pair, record.game, record.black, record.white);
        assert_eq!(played.moves.len() as u32, record.plies, "{what}: plies");
        assert_eq!(outcome_text(played.outcome), record_outcome_text(record), "{what}: outcome");
        assert_eq!(format!("{:?}", played.reason), format!("{:?}", record.reason), "{what}: reason");
        let expected: Vec<String> = game.moves.iter().map(|m| m.to_string()).collect();
        assert_eq!(played.moves, expected, "{what}: moves");
    }
    first_engine.quit();
    second_engine.quit();
}

#[test]
fn two_engines_play_the_games_of_loa_match() {
    let dir = tempfile::tempdir().expect("temp dir");
    // The random heuristic's moves depend on each game's seed; random openings start every
    // pair elsewhere, given to the engines as position text.
    engines_play_loa_match("random:2", "aloa:2", 4, 11, 3, dir.path());
    // A network from a chromosome file against a salted random player.
    let net = dir.path().join("net.json");
    loa_engine::network::random_uniform(21).write(&net).expect("write the network");
    engines_play_loa_match(&format!("net:2:{}", net.display()), "random:1:5", 2, 3, 0, dir.path());
}
