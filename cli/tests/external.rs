//! External engines as players (`engine:CMD`): `loa engine` itself as the program plays the
//! games of the in-process player, and a program that fails is an error naming it, with no
//! process left behind.

use loa_records::{MatchGameRecord, MatchLine, jsonl};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const LOA: &str = env!("CARGO_BIN_EXE_loa");

fn loa(args: &[&str]) -> Output {
    Command::new(LOA).args(args).output().expect("run loa")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The games of a match file, without the players' names.
fn games(path: &Path) -> Vec<MatchGameRecord> {
    let lines = jsonl::read::<MatchLine>(path).unwrap().records;
    let games = lines.into_iter().filter_map(|l| if let MatchLine::Game(g) = l { Some(g) } else { None });
    games.map(|g| MatchGameRecord { black: String::new(), white: String::new(), ..g }).collect()
}

/// `loa match` between `black` and `white`, written to `dir/name`.
fn series(dir: &Path, name: &str, black: &str, white: &str, extra: &[&str]) -> PathBuf {
    let out = dir.join(name);
    let args = ["match", "--black", black, "--white", white, "--out", out.to_str().unwrap()];
    let o = loa(&[&args[..], extra].concat());
    assert!(o.status.success(), "{black} vs {white}: {}", stderr(&o));
    out
}

#[test]
fn loa_engine_as_an_external_engine_plays_the_in_process_players_games() {
    let dir = tempfile::tempdir().unwrap();
    // The random heuristic uses each game's seed: the engine is told it. Openings make the
    // engine's games start from position text, and some games run long, to the ply cap's reach.
    for (player, extra) in [
        ("random:1", &["--games", "6", "--seed", "5", "--opening-plies", "3"][..]),
        ("aloa:1", &["--games", "4", "--seed", "2", "--opening-plies", "2", "--threads", "2"][..]),
    ] {
        let engine = format!("engine:{LOA} engine --player {player}");
        let inside = series(dir.path(), "inside.jsonl", player, "random:2", extra);
        let outside = series(dir.path(), "outside.jsonl", &engine, "random:2", extra);
        let (a, b) = (games(&inside), games(&outside));
        assert!(!a.is_empty() && a.iter().all(|g| !g.moves.is_empty()));
        assert_eq!(a, b, "{player}");
    }
}

/// A shell script in `dir` that greets as an engine and answers `go` with `answer`; it records
/// its pid in `dir/pids` and ignores `quit`, so only a kill ends it.
fn stubborn_engine(dir: &Path, answer: &str) -> PathBuf {
    let script = dir.join("engine.sh");
    let pids = dir.join("pids");
    let text = format!(
        "#!/bin/sh\necho $$ >> {pids}\nwhile read line; do case \"$line\" in uci) echo uciok;; go*) echo 'info string \
         thinking'; echo '{answer}';; esac; done\nsleep 1000\n",
        pids = pids.display()
    );
    std::fs::write(&script, text).unwrap();
    let mut permissions = std::fs::metadata(&script).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o755);
    std::fs::set_permissions(&script, permissions).unwrap();
    script
}

#[test]
fn a_failing_engine_is_an_error_naming_it_and_is_not_left_running() {
    let dir = tempfile::tempdir().unwrap();
    let script = stubborn_engine(dir.path(), "bestmove a1-a2");
    let spec = format!("engine:{}", script.display());
    let o = loa(&["match", "--black", &spec, "--white", "aloa:1", "--games", "4"]);
    let err = stderr(&o);
    assert!(!o.status.success(), "{err}");
    let start = ".bbbbbb./w......w/w......w/w......w/w......w/w......w/w......w/.bbbbbb. b";
    let expected =
        format!("loa: error: --black: engine `{}`: answered `bestmove a1-a2` to `go` in {start}: ", script.display());
    assert!(err.contains(&expected) && err.contains("(it said: thinking)"), "{err}");
    assert!(!err.contains("wins"), "no totals of games played out after the failure: {err}");
    // Every process the match started is gone: each pair starts one, and each was killed.
    let pids = std::fs::read_to_string(dir.path().join("pids")).unwrap();
    assert!(!pids.is_empty());
    for pid in pids.lines() {
        assert!(!Path::new(&format!("/proc/{pid}")).exists(), "engine process {pid} left running");
    }
    // A program that is not there, or ends at once.
    let err = stderr(&loa(&["best", "--player", "engine:/no/such/program", "startpos"]));
    assert!(err.starts_with("loa: error: --player: engine `/no/such/program`: cannot start /no/such/program"), "{err}");
    let err = stderr(&loa(&["match", "--black", "aloa:1", "--white", "engine:false", "--games", "2"]));
    assert!(
        err.contains("--white: engine `false`: it ended (exit status: 1) before answering the greeting `uci`"),
        "{err}"
    );
    // Not in an experiment, nor as `loa engine`'s own player.
    let err = stderr(&loa(&["engine", "--player", &spec]));
    assert!(err.contains("is another engine"), "{err}");
}

#[test]
fn loa_play_against_an_external_engine_sees_its_moves() {
    use std::io::Write;
    let play = |opponent: &str| {
        let mut child = Command::new(LOA)
            .args(["play", "--opponent", opponent, "--as", "white"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(b"a2-c2\nquit\n").unwrap();
        let out = String::from_utf8(child.wait_with_output().unwrap().stdout).unwrap();
        out.lines()
            .filter(|l| l.contains(" plays "))
            .map(|l| l.split(" (").next().unwrap().to_owned())
            .collect::<Vec<_>>()
    };
    let inside = play("aloa:2");
    assert_eq!(inside.len(), 2, "{inside:?}");
    assert_eq!(play(&format!("engine:{LOA} engine --player aloa:2")), inside);
}
