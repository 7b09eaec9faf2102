//! The file `loa match --out FILE.jsonl` writes: one line per game in pair order, then the
//! series' totals (`loa_records::matches`). Built from the finished series, so the file is the
//! same with any thread count.

use crate::series::{SeriesConfig, SeriesReport};
use loa_engine::game::{MatchSide, benchmark_score, color_in_game};
use loa_engine::random::derive_seed;
use loa_engine::{Color, EndReason, Outcome};
use loa_records::matches::{MatchGameRecord, MatchLine, MatchSeriesSummary, MatchSideSummary};
use loa_records::{self as records, jsonl};
use std::path::Path;

fn color(c: Color) -> records::Color {
    match c {
        Color::Black => records::Color::Black,
        Color::White => records::Color::White,
    }
}

fn outcome(o: Outcome) -> records::Outcome {
    match o {
        Outcome::Win(c) => records::Outcome::Win(color(c)),
        Outcome::Draw => records::Outcome::Draw,
    }
}

fn reason(r: EndReason) -> records::EndReason {
    match r {
        EndReason::Connected => records::EndReason::Connected,
        EndReason::BothConnected => records::EndReason::BothConnected,
        EndReason::NoMoves => records::EndReason::NoMoves,
        EndReason::PlyCap => records::EndReason::PlyCap,
    }
}

/// The lines of the match file for `report`, played by `first` (Black in game 0 of each pair)
/// and `second` under `config`.
pub fn match_lines(report: &SeriesReport, first: &str, second: &str, config: &SeriesConfig) -> Vec<MatchLine> {
    let mut lines = Vec::with_capacity(report.games().count() + 1);
    for (p, pair) in report.pairs.iter().enumerate() {
        let match_seed = derive_seed(config.seed, p as u64);
        for (g, game) in pair.games.iter().enumerate() {
            let first_color = color_in_game(MatchSide::A, g);
            let (black, white) = if first_color == Color::Black { (first, second) } else { (second, first) };
            lines.push(MatchLine::Game(MatchGameRecord {
                pair: p as u64,
                game: g as u32,
                black: black.to_string(),
                white: white.to_string(),
                first_color: color(first_color),
                outcome: outcome(game.outcome),
                reason: reason(game.reason),
                plies: game.plies,
                black_score: benchmark_score(game.outcome, game.plies, Color::Black),
                white_score: benchmark_score(game.outcome, game.plies, Color::White),
                seed: derive_seed(match_seed, g as u64),
                start: pair.start.to_string(),
                moves: game.moves.iter().map(ToString::to_string).collect(),
            }));
        }
    }
    let side = |side: MatchSide, spec: &str| {
        let s = report.stats(side);
        MatchSideSummary {
            spec: spec.to_string(),
            wins: s.wins,
            losses: s.losses,
            draws: s.draws,
            mean_score: s.mean_score,
            mean_score_black: s.mean_score_black,
            mean_score_white: s.mean_score_white,
            matches_won: s.matches_won,
        }
    };
    lines.push(MatchLine::Summary(MatchSeriesSummary {
        games: report.games().count() as u32,
        matches: report.matches() as u32,
        mean_plies: report.mean_plies(),
        seed: config.seed,
        opening_plies: config.opening_plies,
        ply_cap: config.rules.ply_cap,
        sides: [side(MatchSide::A, first), side(MatchSide::B, second)],
    }));
    lines
}

/// Writes the match file for `report` to `path`, atomically.
pub fn write_match_file(
    path: &Path,
    report: &SeriesReport,
    first: &str,
    second: &str,
    config: &SeriesConfig,
) -> std::io::Result<()> {
    jsonl::write_lines(path, &match_lines(report, first, second, config))
}
