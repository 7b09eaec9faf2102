//! The training loop: batches of self-play games on threads, their updates applied in game
//! order, the state saved after every batch, validation and snapshots at their intervals.
//!
//! A run directory holds `td.toml` (the configuration), `state.json` (the latest state),
//! `checkpoints/td-GAMES.json` (snapshots), `net.json` (the latest snapshot's network as a
//! chromosome, for `net:DEPTH:FILE`: the weights, or their moving average if the run keeps one),
//! `td.jsonl` (one line per batch), `validation.jsonl` (as a master run's, its `generation` the
//! games played, so `analysis validation` charts TD and evolution runs together) and `run.log`.

use super::average::fold_in;
use super::config::TdConfig;
use super::learn::{UpdateStats, add_update};
use super::selfplay::{SelfPlayGame, self_play};
use super::state::TdState;
use super::validation::validate;
use indicatif::{ProgressBar, ProgressStyle};
use loa_engine::clock::process_cpu_seconds;
use loa_engine::random::derive_seed;
use loa_engine::{Color, Outcome, Rules};
use loa_records::ValidationRecord;
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

/// How a session runs: none of it changes a result.
#[derive(Clone, Copy, Debug)]
pub struct TdOptions {
    /// Threads that play games.
    pub threads: usize,
    /// End the session after the batch at which the run's CPU seconds reach this.
    pub stop_after_cpu: Option<f64>,
    /// No progress bar.
    pub quiet: bool,
}

/// One batch's line of `td.jsonl`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BatchRecord {
    /// Games learnt from so far (this batch's included).
    pub games: u64,
    /// The batch's mean game length in plies (random opening plies not counted).
    pub mean_plies: f64,
    /// The batch's games Black won.
    pub black_wins: u32,
    /// The batch's games White won.
    pub white_wins: u32,
    /// Its draws and ties.
    pub draws: u32,
    /// The mean squared temporal difference over the batch's predictions.
    pub td_error: f64,
    /// The run's CPU seconds at the batch's end.
    pub cpu_seconds: f64,
    /// The run's wall-clock seconds at the batch's end.
    pub wall_seconds: f64,
}

/// How a session ended.
#[derive(Clone, Debug)]
pub struct TdSummary {
    /// Games learnt from.
    pub games: u64,
    /// Whether the run has played all its games.
    pub finished: bool,
    /// The last validation's records.
    pub last_validation: Vec<ValidationRecord>,
}

/// Starts the run `config` in `dir` (which must not hold a run).
pub fn start(config: TdConfig, dir: &Path, options: TdOptions) -> Result<TdSummary, String> {
    config.check()?;
    if TdState::latest_path(dir).exists() {
        return Err(format!("{} holds a TD run already: `loa td --resume {0}` goes on with it", dir.display()));
    }
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let text = toml::to_string(&config).map_err(|e| e.to_string())?;
    loa_records::jsonl::write_atomically(&dir.join("td.toml"), text.as_bytes()).map_err(|e| e.to_string())?;
    train(TdState::initial(config), dir, options)
}

/// Resumes the run in `dir` from its latest state, or from its snapshot after `from` games; the
/// metrics files are cut back to that point.
pub fn resume(dir: &Path, from: Option<u64>, options: TdOptions) -> Result<TdSummary, String> {
    let path = match from {
        Some(games) => TdState::snapshot_path(dir, games),
        None => TdState::latest_path(dir),
    };
    if !path.exists() {
        return Err(format!(
            "{}: no such state (snapshots are in {})",
            path.display(),
            dir.join("checkpoints").display()
        ));
    }
    let state = TdState::read(&path)?;
    cut_back(&dir.join("td.jsonl"), state.games)?;
    let validation = loa_records::RunDir::new(dir).validation();
    loa_records::jsonl::truncate_after(&validation, state.games)
        .map_err(|e| format!("{}: {e}", validation.display()))?;
    train(state, dir, options)
}

/// Keeps the lines of `td.jsonl` up to `games` (a torn last line goes too).
fn cut_back(path: &Path, games: u64) -> Result<(), String> {
    if !path.exists() {
        return Ok(());
    }
    let lines = loa_records::jsonl::read::<BatchRecord>(path).map_err(|e| e.to_string())?;
    let kept: Vec<&BatchRecord> = lines.records.iter().filter(|r| r.games <= games).collect();
    loa_records::jsonl::write_lines(path, &kept).map_err(|e| format!("{}: {e}", path.display()))
}

fn train(mut state: TdState, dir: &Path, options: TdOptions) -> Result<TdSummary, String> {
    let config = state.config.clone();
    let start = config.start_position()?;
    let rules = Rules::default();
    let threads = options.threads.max(1);
    let session = Clock::start(state.cpu_seconds, state.wall_seconds);
    let mut log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.join("run.log"))
        .map_err(|e| format!("{}: {e}", dir.join("run.log").display()))?;
    let mut say = |line: String| {
        let _ = writeln!(log, "{line}");
    };
    say(format!(
        "session: {} of {} games played; network {}, batch {}, α {}{}, λ {}{}, {threads} threads",
        state.games,
        config.games,
        config.network,
        config.batch,
        config.learning_rate,
        config.learning_rate_half_life.map(|h| format!(" halving every {h} games")).unwrap_or_default(),
        config.lambda,
        config.average_games.map(|n| format!(", validating the average over {n} games")).unwrap_or_default(),
    ));
    let bar = if options.quiet { ProgressBar::hidden() } else { ProgressBar::new(config.games) };
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} games  {per_sec}  ETA {eta}  {msg}")
            .map_err(|e| e.to_string())?,
    );
    bar.set_position(state.games);
    let mut last_validation = Vec::new();
    if state.games == 0 && config.validation.is_some() {
        last_validation = validation_step(&state, dir, &session, threads, &mut say)?;
    }
    while state.games < config.games {
        if let Some(limit) = options.stop_after_cpu
            && session.cpu() >= limit
        {
            say(format!(
                "stopped at {} games: {:.0} CPU seconds reached (`loa td --resume DIR` goes on)",
                state.games,
                session.cpu()
            ));
            break;
        }
        let count = u64::from(config.batch).min(config.games - state.games);
        let chromosome = state.model.chromosome()?;
        let games = play_batch(count as usize, threads, |k| {
            let seed = derive_seed(config.seed, state.games + k as u64);
            self_play(&chromosome, config.depth, &rules, &start, config.opening_plies, seed)
        })?;
        let mut change = vec![0.0; state.model.weights.len()];
        let mut stats = UpdateStats::default();
        let rate = config.learning_rate_at(state.games);
        for game in &games {
            let s = add_update(&state.model, game, config.lambda, rate, &mut change);
            stats.steps += s.steps;
            stats.squared_error += s.squared_error;
        }
        state.model.weights.iter_mut().zip(&change).for_each(|(w, c)| *w += c);
        state.games += count;
        if let (Some(average), Some(horizon)) = (&mut state.average, config.average_games) {
            fold_in(average, &state.model, count, state.games, horizon);
        }
        (state.cpu_seconds, state.wall_seconds) = (session.cpu(), session.wall());
        let record = batch_record(&games, &state, stats);
        bar.set_position(state.games);
        bar.set_message(format!("TD error {:.4}", record.td_error));
        state.write(&TdState::latest_path(dir))?;
        loa_records::jsonl::append_line(&dir.join("td.jsonl"), &record).map_err(|e| e.to_string())?;
        if let Some(v) = &config.validation
            && state.games.is_multiple_of(v.every)
        {
            last_validation = validation_step(&state, dir, &session, threads, &mut say)?;
        }
        if state.games.is_multiple_of(config.checkpoint_every) || state.games == config.games {
            state.write(&TdState::snapshot_path(dir, state.games))?;
            state.network().chromosome()?.write(dir.join("net.json")).map_err(|e| e.to_string())?;
            say(format!(
                "games {}: snapshot; TD error {:.4}, mean {:.1} plies",
                state.games, record.td_error, record.mean_plies
            ));
        }
    }
    bar.finish_and_clear();
    let finished = state.games >= config.games;
    if finished {
        say(format!("finished: {} games, {:.0} CPU seconds", state.games, state.cpu_seconds));
    }
    Ok(TdSummary { games: state.games, finished, last_validation })
}

/// Plays games `0..count` of a batch on `threads` threads; returns them in game order, or an
/// error if a thread failed (a batch is learnt from whole or not at all).
fn play_batch(
    count: usize,
    threads: usize,
    play: impl Fn(usize) -> SelfPlayGame + Sync,
) -> Result<Vec<SelfPlayGame>, String> {
    let next = AtomicUsize::new(0);
    let mut slots: Vec<Option<SelfPlayGame>> = vec![None; count];
    let played: Vec<(usize, SelfPlayGame)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads.min(count).max(1))
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let k = next.fetch_add(1, Ordering::Relaxed);
                        if k >= count {
                            return done;
                        }
                        done.push((k, play(k)));
                    }
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().unwrap_or_default()).collect()
    });
    for (k, game) in played {
        slots[k] = Some(game);
    }
    let games: Vec<SelfPlayGame> = slots.into_iter().flatten().collect();
    if games.len() != count {
        return Err(format!("self-play: {} games of a batch of {count} came back (a thread failed)", games.len()));
    }
    Ok(games)
}

fn batch_record(games: &[SelfPlayGame], state: &TdState, stats: UpdateStats) -> BatchRecord {
    let wins = |c: Color| games.iter().filter(|g| g.outcome == Outcome::Win(c)).count() as u32;
    let (black_wins, white_wins) = (wins(Color::Black), wins(Color::White));
    let plies: usize = games.iter().map(|g| g.positions.len()).sum();
    BatchRecord {
        games: state.games,
        mean_plies: plies as f64 / games.len().max(1) as f64,
        black_wins,
        white_wins,
        draws: games.len() as u32 - black_wins - white_wins,
        td_error: stats.squared_error / stats.steps.max(1) as f64,
        cpu_seconds: state.cpu_seconds,
        wall_seconds: state.wall_seconds,
    }
}

/// Validates the state's network, appends the records to `validation.jsonl`.
fn validation_step(
    state: &TdState,
    dir: &Path,
    session: &Clock,
    threads: usize,
    say: &mut impl FnMut(String),
) -> Result<Vec<ValidationRecord>, String> {
    let Some(v) = &state.config.validation else {
        return Ok(Vec::new());
    };
    let (cpu, wall) = (session.cpu(), session.wall());
    let counts = validate(&state.network().chromosome()?, &state.config, v, threads)?;
    let path = loa_records::RunDir::new(dir).validation();
    let mut records = Vec::new();
    for (opponent, count) in v.opponents.iter().zip(counts) {
        let epoch = u32::try_from(state.games / v.every).unwrap_or(u32::MAX);
        let mut r = ValidationRecord::new(epoch, state.games, state.games, opponent, count);
        (r.cpu_seconds, r.wall_seconds) = (cpu, wall);
        loa_records::jsonl::append_line(&path, &r).map_err(|e| format!("{}: {e}", path.display()))?;
        say(format!(
            "games {}: validation against {opponent}: {:.1} % ({:.1}-{:.1}) of {} matches",
            state.games,
            100.0 * r.win_rate,
            100.0 * r.win_rate_low,
            100.0 * r.win_rate_high,
            r.matches
        ));
        records.push(r);
    }
    Ok(records)
}

/// The run's compute: the totals it began the session with plus this session's.
struct Clock {
    cpu_base: f64,
    wall_base: f64,
    cpu_at_start: f64,
    started: Instant,
}

impl Clock {
    fn start(cpu_base: f64, wall_base: f64) -> Clock {
        Clock { cpu_base, wall_base, cpu_at_start: process_cpu_seconds(), started: Instant::now() }
    }

    fn cpu(&self) -> f64 {
        self.cpu_base + (process_cpu_seconds() - self.cpu_at_start).max(0.0)
    }

    fn wall(&self) -> f64 {
        self.wall_base + self.started.elapsed().as_secs_f64()
    }
}
