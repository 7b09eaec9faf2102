//! A series of games between two players, in parallel, as `loa match` plays them.
//!
//! Games come in pairs: in pair `p` the first player has Black in game `2p` and White in game
//! `2p+1`, both from the same start (the start position, or a seeded random opening), so a
//! complete pair is a two-game match with the first player as A. Every game's randomness comes
//! from the series seed and the pair's index, so the report is the same with any thread count.

use loa_engine::game::{GameRecord, MatchSide, Player, benchmark_score, color_in_game, match_winner};
use loa_engine::openings::random_opening_from;
use loa_engine::random::derive_seed;
use loa_engine::{Color, Outcome, Position, Rules};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// How to play a series.
#[derive(Clone, Debug)]
pub struct SeriesConfig {
    /// Games to play.
    pub games: u32,
    /// The series seed.
    pub seed: u64,
    /// Worker threads (at least 1).
    pub threads: usize,
    /// The start position (any board size): [`Position::start`] for the standard game.
    pub start: Position,
    /// Uniformly random plies played from the start position before the players take over (0
    /// for the plain start position), so deterministic players play varied games.
    pub opening_plies: u32,
    /// The rules.
    pub rules: Rules,
}

/// One pair of games from one start.
#[derive(Clone, Debug)]
pub struct PairRecord {
    /// The position both games start from.
    pub start: Position,
    /// One or two games: the first player has Black in game 0.
    pub games: Vec<GameRecord>,
}

/// The games of a series and their statistics.
#[derive(Clone, Debug)]
pub struct SeriesReport {
    /// Every pair, in order.
    pub pairs: Vec<PairRecord>,
}

/// The players of one pair: (first, second).
pub type PairPlayers = (Arc<dyn Player + Send>, Arc<dyn Player + Send>);

/// Plays the series. `players(match_seed)` gives the pair's players; `on_game` is called after
/// each game (for a progress bar).
pub fn play_series(
    config: &SeriesConfig,
    players: &(dyn Fn(u64) -> PairPlayers + Sync),
    on_game: &(dyn Fn(&GameRecord) + Sync),
) -> SeriesReport {
    play(config, players, on_game, None).unwrap_or(SeriesReport { pairs: Vec::new() })
}

/// How often [`play_series_until`] asks whether to stop.
pub const STOP_POLL: std::time::Duration = std::time::Duration::from_millis(100);

/// [`play_series`] that asks `stop`, on the calling thread, about every [`STOP_POLL`] (and once
/// before the first game): when it says yes, no further game begins, the games in hand are
/// finished, and the series returns `None`. For a caller whose stop request can only be read on
/// its own thread, as Python's Ctrl-C is.
pub fn play_series_until(
    config: &SeriesConfig,
    players: &(dyn Fn(u64) -> PairPlayers + Sync),
    on_game: &(dyn Fn(&GameRecord) + Sync),
    stop: &mut dyn FnMut() -> bool,
) -> Option<SeriesReport> {
    play(config, players, on_game, Some(stop))
}

fn play(
    config: &SeriesConfig,
    players: &(dyn Fn(u64) -> PairPlayers + Sync),
    on_game: &(dyn Fn(&GameRecord) + Sync),
    mut stop: Option<&mut dyn FnMut() -> bool>,
) -> Option<SeriesReport> {
    let pair_count = config.games.div_ceil(2) as usize;
    let slots: Mutex<Vec<Option<PairRecord>>> = Mutex::new(vec![None; pair_count]);
    let next = AtomicUsize::new(0);
    let stopping = AtomicBool::new(stop.as_mut().is_some_and(|stop| stop()));
    let worker = || {
        while !stopping.load(Ordering::Relaxed) {
            let p = next.fetch_add(1, Ordering::Relaxed);
            if p >= pair_count {
                break;
            }
            let match_seed = derive_seed(config.seed, p as u64);
            let (first, second) = players(match_seed);
            let start =
                random_opening_from(&config.start, config.opening_plies, derive_seed(match_seed, 0x0B3), &config.rules);
            let game_count = (config.games as usize - 2 * p).min(2);
            let mut games = Vec::with_capacity(2);
            for g in 0..game_count {
                if stopping.load(Ordering::Relaxed) {
                    return;
                }
                let (black, white): (&dyn Player, &dyn Player) =
                    if g == 0 { (&*first, &*second) } else { (&*second, &*first) };
                let record =
                    loa_engine::game::play_game(black, white, &config.rules, start, derive_seed(match_seed, g as u64));
                on_game(&record);
                games.push(record);
            }
            if let Ok(mut slots) = slots.lock() {
                slots[p] = Some(PairRecord { start, games });
            }
        }
    };
    std::thread::scope(|s| {
        // At most a thread a pair. A thread the system refuses is left out: the threads started
        // (or this one, if none) play its pairs, and the results do not depend on the count.
        // Each thread holds a sender, so the channel closes when the last one ends.
        let (ended, threads_left) = std::sync::mpsc::channel::<()>();
        let mut started = 0;
        for _ in 0..config.threads.clamp(1, pair_count.max(1)) {
            let (worker, ended) = (&worker, ended.clone());
            let run = move || {
                let _ended = ended;
                worker();
            };
            if std::thread::Builder::new().name("series".into()).spawn_scoped(s, run).is_err() {
                break;
            }
            started += 1;
        }
        drop(ended);
        if started == 0 {
            worker();
        } else if let Some(stop) = stop.as_mut() {
            while let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = threads_left.recv_timeout(STOP_POLL) {
                if !stopping.load(Ordering::Relaxed) && stop() {
                    stopping.store(true, Ordering::Relaxed);
                }
            }
        }
    });
    if stopping.into_inner() {
        return None;
    }
    let pairs = slots.into_inner().unwrap_or_default().into_iter().flatten().collect();
    Some(SeriesReport { pairs })
}

/// Totals for one player over a series.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SideStats {
    /// Games won, lost and drawn.
    pub wins: u32,
    /// Games lost.
    pub losses: u32,
    /// Games drawn.
    pub draws: u32,
    /// Mean benchmark score (docs/spec.md §6) as Black, as White and over all games.
    pub mean_score_black: f64,
    /// Mean benchmark score as White.
    pub mean_score_white: f64,
    /// Mean benchmark score over all games.
    pub mean_score: f64,
    /// Complete pairs (two-game matches) won by docs/spec.md §5's criteria.
    pub matches_won: u32,
}

impl SeriesReport {
    /// All games in order.
    pub fn games(&self) -> impl Iterator<Item = &GameRecord> {
        self.pairs.iter().flat_map(|p| p.games.iter())
    }

    /// Mean plies per game.
    pub fn mean_plies(&self) -> f64 {
        let (n, sum) = self.games().fold((0u32, 0u64), |(n, s), g| (n + 1, s + u64::from(g.plies)));
        if n == 0 { 0.0 } else { sum as f64 / f64::from(n) }
    }

    /// Complete pairs (two-game matches).
    pub fn matches(&self) -> usize {
        self.pairs.iter().filter(|p| p.games.len() == 2).count()
    }

    /// Statistics for the first (`MatchSide::A`) or second (`MatchSide::B`) player.
    pub fn stats(&self, side: MatchSide) -> SideStats {
        let mut s = SideStats::default();
        let (mut black, mut white) = (Vec::new(), Vec::new());
        for pair in &self.pairs {
            for (g, game) in pair.games.iter().enumerate() {
                let color = color_in_game(side, g);
                match game.outcome {
                    Outcome::Draw => s.draws += 1,
                    Outcome::Win(c) if c == color => s.wins += 1,
                    Outcome::Win(_) => s.losses += 1,
                }
                let score = f64::from(benchmark_score(game.outcome, game.plies, color));
                if color == Color::Black { black.push(score) } else { white.push(score) }
            }
            if let [g0, g1] = &pair.games[..]
                && match_winner([g0, g1]).0 == side
            {
                s.matches_won += 1;
            }
        }
        let mean = |v: &[f64]| if v.is_empty() { 0.0 } else { v.iter().sum::<f64>() / v.len() as f64 };
        s.mean_score_black = mean(&black);
        s.mean_score_white = mean(&white);
        s.mean_score = mean(&[black, white].concat());
        s
    }
}
