//! `loa match`: a series between two players with a progress bar, its totals printed and
//! optionally every game written to a match file.

use crate::match_file::write_match_file;
use crate::series::{PairPlayers, SeriesConfig, play_series};
use indicatif::{ProgressBar, ProgressStyle};
use loa_engine::BoardSize;
use loa_engine::game::{MatchSide, Player};
use loa_engine::openings::max_opening_plies;
use loa_engine::spec::{Accepts, PlayerSpec};
use std::path::Path;
use std::sync::Arc;

/// The most games a series may ask for.
pub const MAX_GAMES: u32 = 10_000_000;
/// The longest random opening on 8×8: random play rarely connects a side within 40 plies; far
/// longer openings could make every attempt end the game. Smaller boards allow fewer
/// ([`max_opening_plies`]).
pub const MAX_OPENING_PLIES: u32 = max_opening_plies(BoardSize::STANDARD);

/// Checks `loa match`'s flags, naming the one at fault and what to give instead.
pub fn check_flags(games: u32, opening_plies: u32, size: BoardSize, out: Option<&Path>) -> Result<(), String> {
    if games == 0 || games > MAX_GAMES {
        return Err(format!("--games must be 2..={MAX_GAMES}, not {games}"));
    }
    // An odd count would leave one player Black once more than White, from a start the other
    // never gets as Black: its totals would not compare the players.
    if games % 2 == 1 {
        let around =
            if games == 1 { "--games 2".to_string() } else { format!("--games {} or {}", games - 1, games + 1) };
        return Err(format!(
            "--games must be even, not {games}: games come in two-game matches, each player Black once from the \
             same start (use {around})"
        ));
    }
    let most = max_opening_plies(size);
    if opening_plies > most {
        return Err(format!("--opening-plies must be at most {most} on the {size} board, not {opening_plies}"));
    }
    // Refuse a file that cannot be written before playing, not after.
    if let Some(dir) = out.and_then(Path::parent).filter(|d| !d.as_os_str().is_empty())
        && !dir.is_dir()
    {
        return Err(format!("--out: no directory {}", dir.display()));
    }
    Ok(())
}

/// Plays the series between the players `black` and `white` name (the first has Black in the
/// first game of every pair), prints the totals and writes the match file if asked.
pub fn run_match(black: &str, white: &str, config: &SeriesConfig, out: Option<&Path>) -> Result<(), String> {
    let parse = |text: &str| PlayerSpec::parse_in(text, Accepts::Playable).map_err(|e| e.to_string());
    let (a, b) = (parse(black)?, parse(white)?);
    let size = config.start.size();
    let (pa, pb) = (a.prepare_on(size).map_err(|e| e.to_string())?, b.prepare_on(size).map_err(|e| e.to_string())?);
    let bar = ProgressBar::new(u64::from(config.games));
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} games  {per_sec}  ETA {eta}").map_err(|e| e.to_string())?,
    );
    let players = |seed: u64| -> PairPlayers {
        let (x, y) = (pa.for_match(seed), pb.for_match(seed));
        (x as Arc<dyn Player + Send>, y as Arc<dyn Player + Send>)
    };
    let report = play_series(config, &players, &|_| bar.inc(1));
    bar.finish_and_clear();
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
            .map_err(|e| format!("{}: {e}", path.display()))?;
        println!("wrote {} ({} games)", path.display(), report.games().count());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn odd_game_counts_are_refused_with_the_even_ones_around() {
        assert_eq!(
            check_flags(3, 0, BoardSize::STANDARD, None).unwrap_err(),
            "--games must be even, not 3: games come in two-game matches, each player Black once from the same \
             start (use --games 2 or 4)"
        );
        assert!(check_flags(1, 0, BoardSize::STANDARD, None).unwrap_err().ends_with("(use --games 2)"));
        assert!(check_flags(0, 0, BoardSize::STANDARD, None).unwrap_err().starts_with("--games must be 2..="));
        assert!(check_flags(4, 0, BoardSize::STANDARD, None).is_ok());
        assert!(
            check_flags(4, 41, BoardSize::STANDARD, None).unwrap_err().contains("at most 40 on the 8x8 board, not 41")
        );
        let five = BoardSize::MIN;
        assert!(check_flags(4, 6, five, None).is_ok());
        assert!(check_flags(4, 7, five, None).unwrap_err().contains("at most 6 on the 5x5 board, not 7"));
    }
}
