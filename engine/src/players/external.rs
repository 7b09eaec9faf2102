//! A player in another process: any program that speaks `loa engine`'s line protocol
//! (docs/engine-protocol.md), run from its command line. It is told each game from its start,
//! with the game's seed, and answers `bestmove`.
//!
//! A program that cannot be started, ends, says nothing within the time a move may take, or
//! answers a move that is not legal is a failure naming the command, the position and what it
//! said. The failure is kept (the first one of a player, shared by every match it plays) for the
//! caller to report, and from then on the player plays the first legal move, so a series ends
//! quickly instead of hanging. The process is told `quit` and, if it does not leave, killed,
//! when the player is dropped: none is left behind.

use crate::game::Player;
use crate::search::SearchResult;
use crate::{Move, Position, Rules};
use std::fmt;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long a move (or the greeting) may take before the program counts as silent.
pub const MOVE_TIMEOUT: Duration = Duration::from_secs(60);

/// How long a program told `quit` has to leave before it is killed.
const QUIT_GRACE: Duration = Duration::from_secs(1);

/// Why an external engine failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineFailure {
    /// The command line, as given.
    pub command: String,
    /// What went wrong, and where.
    pub why: String,
}

impl fmt::Display for EngineFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "engine `{}`: {}", self.command, self.why)
    }
}

impl std::error::Error for EngineFailure {}

/// The first failure of a player, shared by the processes it starts.
pub type FailureSlot = Arc<Mutex<Option<EngineFailure>>>;

/// A running program: its input, and its output's lines as a reader thread reads them.
struct Process {
    child: Child,
    input: ChildStdin,
    lines: Receiver<std::io::Result<String>>,
}

/// A player played by a program in another process.
pub struct ExternalEngine {
    command: String,
    timeout: Duration,
    process: Mutex<Option<Process>>,
    failure: FailureSlot,
}

impl fmt::Debug for ExternalEngine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ExternalEngine").field("command", &self.command).finish()
    }
}

impl ExternalEngine {
    /// Starts `command` (a program and its arguments separated by spaces; no shell reads it) and
    /// greets it (`uci`, awaiting `uciok`), each answer awaited at most `timeout`. A failure is
    /// put in `failure` (unless one is there), and the player then plays first legal moves.
    pub fn start(command: &str, timeout: Duration, failure: FailureSlot) -> ExternalEngine {
        let engine = ExternalEngine { command: command.to_owned(), timeout, process: Mutex::new(None), failure };
        if engine.failed().is_none() {
            match engine.spawn() {
                Ok(process) => *engine.lock() = Some(process),
                Err(why) => engine.fail(why),
            }
        }
        engine
    }

    /// The first failure of this player (or of another sharing its slot).
    pub fn failed(&self) -> Option<EngineFailure> {
        self.failure.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Process>> {
        self.process.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Keeps the first failure and stops the process.
    fn fail(&self, why: String) {
        let mut slot = self.failure.lock().unwrap_or_else(|p| p.into_inner());
        slot.get_or_insert(EngineFailure { command: self.command.clone(), why });
        drop(slot);
        if let Some(process) = self.lock().take() {
            stop(process);
        }
    }

    fn spawn(&self) -> Result<Process, String> {
        let mut words = self.command.split_whitespace();
        let program = words.next().ok_or("no program named after `engine:`")?;
        let mut child = Command::new(program)
            .args(words)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start {program}: {e}"))?;
        let (Some(input), Some(output)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            let _ = child.wait();
            return Err("cannot talk to it: no pipe".into());
        };
        let (send, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(output).lines() {
                let end = line.is_err();
                if send.send(line).is_err() || end {
                    break;
                }
            }
        });
        let mut process = Process { child, input, lines };
        let asked = "the greeting `uci`";
        let greeted = say(&mut process, "uci", asked).and_then(|()| self.await_line(&mut process, "uciok", asked));
        match greeted {
            Ok(_) => Ok(process),
            Err(why) => {
                stop(process);
                Err(why)
            }
        }
    }

    /// The lines up to the one starting with `word` (returned last), each within the timeout.
    fn await_line(&self, process: &mut Process, word: &str, asked: &str) -> Result<Vec<String>, String> {
        let deadline = Instant::now() + self.timeout;
        let mut said = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match process.lines.recv_timeout(left) {
                Ok(Ok(line)) => {
                    let line = line.trim().to_owned();
                    let done = line.split_whitespace().next() == Some(word);
                    said.push(line);
                    if done {
                        return Ok(said);
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    return Err(format!("no `{word}` within {:.1} s after {asked}", self.timeout.as_secs_f64()));
                }
                Ok(Err(_)) | Err(RecvTimeoutError::Disconnected) => return Err(gone(process, asked, said.last())),
            }
        }
    }

    /// The program's move in `pos`, `moves` into the game from `start`.
    fn ask(&self, start: &Position, moves: &[Move], pos: &Position, seed: u64) -> Result<SearchResult, String> {
        let mut guard = self.lock();
        let process = guard.as_mut().ok_or("it is not running")?;
        let listed: Vec<String> = moves.iter().map(Move::to_string).collect();
        let position = match listed.is_empty() {
            true => format!("position fen {start}"),
            false => format!("position fen {start} moves {}", listed.join(" ")),
        };
        let asked = format!("`go` in {pos}");
        for line in [format!("setoption name Seed value {seed}"), position, "go".to_owned()] {
            say(process, &line, &asked)?;
        }
        let said = self.await_line(process, "bestmove", &asked)?;
        let answer = said.last().and_then(|l| l.split_whitespace().nth(1)).unwrap_or_default();
        let errors: Vec<&str> = said.iter().filter_map(|l| l.strip_prefix("info string ")).collect();
        let mv = pos.parse_move(answer).map_err(|e| {
            let told = if errors.is_empty() { String::new() } else { format!(" (it said: {})", errors.join("; ")) };
            format!("answered `bestmove {answer}` to {asked}: {e}{told}")
        })?;
        let info = said.iter().rev().find(|l| l.starts_with("info depth"));
        let field = |name: &str| {
            let words: Vec<&str> = info.map_or(Vec::new(), |l| l.split_whitespace().collect());
            words.iter().position(|w| *w == name).and_then(|i| words.get(i + 1)).map(|w| w.to_string())
        };
        let value = field("value").and_then(|v| v.parse().ok()).unwrap_or(0.0);
        let nodes = field("nodes").and_then(|v| v.parse().ok()).unwrap_or(0);
        Ok(SearchResult { best: Some(mv), value, nodes })
    }
}

/// Sends one line, part of what `asked` asks: a program that has gone is said to have.
fn say(process: &mut Process, line: &str, asked: &str) -> Result<(), String> {
    let sent = writeln!(process.input, "{line}").and_then(|()| process.input.flush());
    sent.map_err(|e| match process.child.try_wait() {
        Ok(None) => format!("cannot send `{line}`: {e}"),
        _ => gone(process, asked, None),
    })
}

/// Why a program whose output closed failed: its exit status (killed if it lingers) and the last
/// line it wrote.
fn gone(process: &mut Process, asked: &str, last: Option<&String>) -> String {
    let status = match exit_within(process, QUIT_GRACE) {
        Some(status) => status.to_string(),
        None => "closed its output and was killed".to_owned(),
    };
    let last = last.map_or(String::new(), |l| format!(" (its last line: `{l}`)"));
    format!("it ended ({status}) before answering {asked}{last}")
}

/// The program's exit status if it exits within `grace`; otherwise it is killed (`None`).
fn exit_within(process: &mut Process, grace: Duration) -> Option<std::process::ExitStatus> {
    let deadline = Instant::now() + grace;
    loop {
        if let Ok(Some(status)) = process.child.try_wait() {
            return Some(status);
        }
        if Instant::now() >= deadline {
            let _ = process.child.kill();
            let _ = process.child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Tells the program to quit, and kills it if it has not left within [`QUIT_GRACE`].
fn stop(mut process: Process) {
    let _ = writeln!(process.input, "quit").and_then(|()| process.input.flush());
    exit_within(&mut process, QUIT_GRACE);
}

impl Drop for ExternalEngine {
    fn drop(&mut self) {
        if let Some(process) = self.lock().take() {
            stop(process);
        }
    }
}

impl Player for ExternalEngine {
    fn choose(&self, pos: &Position, rules: &Rules, plies_played: u32, game_seed: u64) -> SearchResult {
        // Told the position alone, the program takes it as the game's start.
        let _ = plies_played;
        self.choose_in_game(pos, &[], pos, rules, game_seed)
    }

    fn choose_in_game(&self, start: &Position, moves: &[Move], pos: &Position, _: &Rules, seed: u64) -> SearchResult {
        if self.failed().is_none() {
            match self.ask(start, moves, pos, seed) {
                Ok(result) => return result,
                Err(why) => self.fail(why),
            }
        }
        // Failed: the first legal move ends the game without waiting on the program again.
        SearchResult { best: pos.legal_moves().iter().next().copied(), value: 0.0, nodes: 0 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slot() -> FailureSlot {
        Arc::new(Mutex::new(None))
    }

    #[test]
    fn a_program_that_cannot_start_ends_or_stays_silent_is_a_failure_naming_it() {
        let why = |command: &str| {
            let engine = ExternalEngine::start(command, Duration::from_millis(300), slot());
            let start = Position::start();
            let played = engine.choose(&start, &Rules::default(), 0, 0).best;
            assert_eq!(played, start.legal_moves().iter().next().copied(), "{command}: a failed engine plays on");
            engine.failed().expect("a failure").to_string()
        };
        let missing = why("/no/such/engine --flag");
        assert!(missing.starts_with("engine `/no/such/engine --flag`: cannot start /no/such/engine"), "{missing}");
        let ended = why("true");
        assert!(ended.contains("it ended (exit status: 0) before answering the greeting `uci`"), "{ended}");
        // `cat` echoes `uci` back and never says `uciok`.
        let silent = why("cat");
        assert!(silent.contains("no `uciok` within 0.3 s after the greeting `uci`"), "{silent}");
        assert!(why("").contains("no program named"));
    }
}
