//! A series that is asked to stop: no game begins after the answer, the series says it did not
//! finish, and one that is never stopped is the series `play_series` plays.

use loa_cli::series::{PairPlayers, SeriesConfig, play_series, play_series_until};
use loa_engine::game::Player;
use loa_engine::spec::{Accepts, PlayerSpec};
use loa_engine::{Position, Rules};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

fn config(games: u32, threads: usize) -> SeriesConfig {
    SeriesConfig { games, seed: 5, threads, start: Position::start(), opening_plies: 4, rules: Rules::default() }
}

fn with_players<T>(spec: &str, f: impl FnOnce(&(dyn Fn(u64) -> PairPlayers + Sync)) -> T) -> T {
    let prepared = PlayerSpec::parse_in(spec, Accepts::Playable).unwrap().prepare().unwrap();
    f(&|s: u64| -> PairPlayers {
        (prepared.for_match(s) as Arc<dyn Player + Send>, prepared.for_match(s) as Arc<dyn Player + Send>)
    })
}

#[test]
fn a_series_never_stopped_is_the_plain_series() {
    with_players("random:1", |players| {
        let plain = play_series(&config(12, 3), players, &|_| {});
        let asked = AtomicUsize::new(0);
        let mut never = || {
            asked.fetch_add(1, Ordering::Relaxed);
            false
        };
        let until = play_series_until(&config(12, 3), players, &|_| {}, &mut never).expect("never stopped");
        let moves = |r: &loa_cli::series::SeriesReport| r.games().map(|g| g.moves.clone()).collect::<Vec<_>>();
        assert_eq!(until.games().count(), 12);
        assert_eq!(moves(&until), moves(&plain));
        assert!(asked.load(Ordering::Relaxed) >= 1, "asked before the first game");
    });
}

#[test]
fn a_stop_before_the_first_game_plays_none() {
    with_players("random:1", |players| {
        let played = AtomicUsize::new(0);
        let on_game = |_: &_| {
            played.fetch_add(1, Ordering::Relaxed);
        };
        assert!(play_series_until(&config(40, 2), players, &on_game, &mut || true).is_none());
        assert_eq!(played.load(Ordering::Relaxed), 0);
    });
}

#[test]
fn a_stop_during_the_series_ends_it_after_the_games_in_hand() {
    // The stop is asked every 100 ms, so some games are played before it is heard; the series
    // is long enough (a second and more of ALoA(2) games on a fast machine) to be far from done.
    with_players("aloa:2", |players| {
        let played = AtomicUsize::new(0);
        let on_game = |_: &_| {
            played.fetch_add(1, Ordering::Relaxed);
        };
        let mut stop = || played.load(Ordering::Relaxed) >= 4;
        assert!(play_series_until(&config(100_000, 2), players, &on_game, &mut stop).is_none());
        let n = played.load(Ordering::Relaxed);
        assert!((4..50_000).contains(&n), "{n} games played");
    });
}
