//! `loa match`: a series between two players with a progress bar, its totals printed and
//! optionally every game written to a match file.

use crate::match_file::write_match_file;
use crate::series::{PairPlayers, SeriesConfig, play_series};
use indicatif::{ProgressBar, ProgressStyle};
use loa_engine::BoardSize;
use loa_engine::game::{MatchSide, Player};
use loa_engine::openings::max_opening_plies;
use loa_engine::players::EngineFailure;
use loa_engine::spec::SpecError;
use loa_engine::spec::{Accepts, PlayerSpec};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The most games a series may ask for.
pub const MAX_GAMES: u32 = 10_000_000;
/// The longest random opening on 8×8: random play rarely connects a side within 40 plies; far
/// longer openings could make every attempt end the game. Smaller boards allow fewer
/// ([`max_opening_plies`]).
pub const MAX_OPENING_PLIES: u32 = max_opening_plies(BoardSize::STANDARD);

/// Why `loa match` refused its flags or could not play or write the series.
#[derive(Debug, thiserror::Error)]
pub enum MatchError {
    /// `--games` out of range.
    #[error("--games must be 2..={MAX_GAMES}, not {0}")]
    Games(u32),
    /// `--games` odd: the counts either side are offered.
    #[error(
        "--games must be even, not {0}: games come in two-game matches, each player Black once from the same \
         start (use {around})",
        around = even_around(*.0)
    )]
    OddGames(u32),
    /// `--opening-plies` longer than the board allows.
    #[error("--opening-plies must be at most {most} on the {size} board, not {plies}")]
    OpeningPlies {
        /// As given.
        plies: u32,
        /// The board's most.
        most: u32,
        /// The board.
        size: BoardSize,
    },
    /// `--out` in a directory that does not exist.
    #[error("--out: no directory {dir}", dir = .0.display())]
    NoOutDir(PathBuf),
    /// A player flag's spec (`--black` or `--white`) is bad or cannot play the board.
    #[error("{flag}: {source}")]
    Player {
        /// The flag.
        flag: &'static str,
        /// Why.
        #[source]
        source: SpecError,
    },
    /// An external engine failed: the games after its failure measure nothing, so no totals.
    #[error("{flag}: {failure}")]
    Engine {
        /// `--black` or `--white`.
        flag: &'static str,
        /// The engine, where and why.
        failure: EngineFailure,
    },
    /// The progress bar's template was refused.
    #[error("progress bar: {0}")]
    Progress(#[from] indicatif::style::TemplateError),
    /// The match file could not be written.
    #[error("{path}: {source}", path = .path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

/// The even game counts around an odd `games`, as flags.
fn even_around(games: u32) -> String {
    if games == 1 { "--games 2".to_string() } else { format!("--games {} or {}", games - 1, games + 1) }
}

/// Checks `loa match`'s flags, naming the one at fault and what to give instead.
pub fn check_flags(games: u32, opening_plies: u32, size: BoardSize, out: Option<&Path>) -> Result<(), MatchError> {
    if games == 0 || games > MAX_GAMES {
        return Err(MatchError::Games(games));
    }
    // An odd count would leave one player Black once more than White, from a start the other
    // never gets as Black: its totals would not compare the players.
    if games % 2 == 1 {
        return Err(MatchError::OddGames(games));
    }
    let most = max_opening_plies(size);
    if opening_plies > most {
        return Err(MatchError::OpeningPlies { plies: opening_plies, most, size });
    }
    // Refuse a file that cannot be written before playing, not after.
    if let Some(dir) = out.and_then(Path::parent).filter(|d| !d.as_os_str().is_empty())
        && !dir.is_dir()
    {
        return Err(MatchError::NoOutDir(dir.to_path_buf()));
    }
    Ok(())
}

/// The warning for a series whose pairs would all be the same two games: both players play the
/// same move in the same position whatever the seed, and every pair starts from the start
/// position. `None` when the games can differ.
pub fn repeated_games_warning(a: &PlayerSpec, b: &PlayerSpec, games: u32, opening_plies: u32) -> Option<String> {
    (games > 2 && opening_plies == 0 && !a.uses_seed() && !b.uses_seed()).then(|| {
        format!(
            "warning: {a} and {b} do not depend on the seed and every pair starts from the start position, so \
             all {pairs} pairs are the same two games; give --opening-plies (e.g. --opening-plies 4) for \
             seeded random openings",
            pairs = games / 2
        )
    })
}

/// Plays the series between the players `black` and `white` name (the first has Black in the
/// first game of every pair), prints the totals and writes the match file if asked.
pub fn run_match(black: &str, white: &str, config: &SeriesConfig, out: Option<&Path>) -> Result<(), MatchError> {
    let size = config.start.size();
    let player = |flag: &'static str, text: &str| {
        let prepared = PlayerSpec::parse_in(text, Accepts::Playable).and_then(|s| Ok((s.prepare_on(size)?, s)));
        prepared.map_err(|source| MatchError::Player { flag, source })
    };
    let ((pa, a), (pb, b)) = (player("--black", black)?, player("--white", white)?);
    if let Some(warning) = repeated_games_warning(&a, &b, config.games, config.opening_plies) {
        eprintln!("{warning}");
    }
    let bar = ProgressBar::new(u64::from(config.games));
    bar.set_style(ProgressStyle::with_template("{bar:40} {pos}/{len} games  {per_sec}  ETA {eta}")?);
    let players = |seed: u64| -> PairPlayers {
        let (x, y) = (pa.for_match(seed), pb.for_match(seed));
        (x as Arc<dyn Player + Send>, y as Arc<dyn Player + Send>)
    };
    let report = play_series(config, &players, &|_| bar.inc(1));
    bar.finish_and_clear();
    for (flag, prepared) in [("--black", &pa), ("--white", &pb)] {
        if let Some(failure) = prepared.failure() {
            return Err(MatchError::Engine { flag, failure });
        }
    }
    println!(
        "{} games ({} two-game matches), mean {:.1} plies",
        report.games().count(),
        report.matches(),
        report.mean_plies()
    );
    for (side, spec) in [(MatchSide::A, &a), (MatchSide::B, &b)] {
        let s = report.stats(side);
        println!(
            "{spec}: {} wins, {} losses, {} draws; mean score {:.2} (as black {:.2}, as white {:.2}); {} matches won",
            s.wins, s.losses, s.draws, s.mean_score, s.mean_score_black, s.mean_score_white, s.matches_won
        );
    }
    if let Some(path) = out {
        write_match_file(path, &report, &a.to_string(), &b.to_string(), config)
            .map_err(|source| MatchError::Write { path: path.to_path_buf(), source })?;
        println!("wrote {} ({} games)", path.display(), report.games().count());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn odd_game_counts_are_refused_with_the_even_ones_around() {
        let err = |games, plies, size| check_flags(games, plies, size, None).unwrap_err().to_string();
        assert_eq!(
            err(3, 0, BoardSize::STANDARD),
            "--games must be even, not 3: games come in two-game matches, each player Black once from the same \
             start (use --games 2 or 4)"
        );
        assert!(err(1, 0, BoardSize::STANDARD).ends_with("(use --games 2)"));
        assert!(err(0, 0, BoardSize::STANDARD).starts_with("--games must be 2..="));
        assert!(check_flags(4, 0, BoardSize::STANDARD, None).is_ok());
        assert!(err(4, 41, BoardSize::STANDARD).contains("at most 40 on the 8x8 board, not 41"));
        let five = BoardSize::MIN;
        assert!(check_flags(4, 6, five, None).is_ok());
        assert!(err(4, 7, five).contains("at most 6 on the 5x5 board, not 7"));
        let missing = check_flags(4, 0, five, Some(Path::new("/no/such/dir/x.jsonl"))).unwrap_err();
        assert!(matches!(&missing, MatchError::NoOutDir(dir) if dir == Path::new("/no/such/dir")), "{missing}");
    }

    #[test]
    fn a_series_of_identical_pairs_is_warned_of_naming_the_flag() {
        let spec = |text: &str| PlayerSpec::parse_in(text, Accepts::Playable).unwrap();
        let (aloa, net, random) = (spec("aloa:3"), spec("net:3:x.json"), spec("random:3"));
        let warning = repeated_games_warning(&net, &aloa, 20, 0).unwrap();
        assert!(warning.contains("all 10 pairs are the same two games"), "{warning}");
        assert!(warning.contains("--opening-plies"), "{warning}");
        assert!(repeated_games_warning(&net, &aloa, 20, 4).is_none());
        assert!(repeated_games_warning(&net, &aloa, 2, 0).is_none(), "one pair repeats nothing");
        assert!(repeated_games_warning(&random, &aloa, 20, 0).is_none());
        assert!(repeated_games_warning(&aloa, &spec("randomann:3"), 20, 0).is_none());
        assert!(repeated_games_warning(&aloa, &spec("randomann:3:7"), 20, 0).is_some());
    }
}
