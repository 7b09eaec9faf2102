//! The run's records ([`loa_records`]) made from the engine's task outcomes. The record types
//! mirror the engine's game and match types field for field (so files and checkpoints keep their
//! shape); these functions are the only place that converts.

use loa_engine::tasks::{BenchmarkOutcome, GameSummary, MatchSummary};
use loa_records as records;

/// A game as recorded.
pub fn game(g: &GameSummary) -> records::GameSummary {
    records::GameSummary { outcome: outcome(g.outcome), reason: reason(g.reason), plies: g.plies }
}

fn color(c: loa_engine::Color) -> records::Color {
    match c {
        loa_engine::Color::Black => records::Color::Black,
        loa_engine::Color::White => records::Color::White,
    }
}

fn outcome(o: loa_engine::Outcome) -> records::Outcome {
    match o {
        loa_engine::Outcome::Win(c) => records::Outcome::Win(color(c)),
        loa_engine::Outcome::Draw => records::Outcome::Draw,
    }
}

fn reason(r: loa_engine::EndReason) -> records::EndReason {
    match r {
        loa_engine::EndReason::Connected => records::EndReason::Connected,
        loa_engine::EndReason::BothConnected => records::EndReason::BothConnected,
        loa_engine::EndReason::NoMoves => records::EndReason::NoMoves,
        loa_engine::EndReason::PlyCap => records::EndReason::PlyCap,
    }
}

/// A match as recorded.
pub fn match_summary(m: &MatchSummary) -> records::MatchSummary {
    use loa_engine::game::{Criterion, MatchSide};
    records::MatchSummary {
        a: m.a,
        b: m.b,
        winner: match m.winner {
            MatchSide::A => records::MatchSide::A,
            MatchSide::B => records::MatchSide::B,
        },
        criterion: match m.criterion {
            Criterion::WonBoth => records::Criterion::WonBoth,
            Criterion::WonAndDrew => records::Criterion::WonAndDrew,
            Criterion::FasterWin => records::Criterion::FasterWin,
            Criterion::DefaultToA => records::Criterion::DefaultToA,
        },
        games: [game(&m.games[0]), game(&m.games[1])],
    }
}

/// The benchmark entry of the individual with `serial`.
pub fn benchmark_entry(serial: u64, outcome: &BenchmarkOutcome) -> records::BenchmarkEntry {
    records::BenchmarkEntry::new(serial, outcome.scores, [game(&outcome.games[0]), game(&outcome.games[1])])
}

#[cfg(test)]
mod tests {
    use super::*;
    use loa_engine::game::{Criterion, MatchSide};

    #[test]
    fn records_have_the_engines_json_form() {
        let g = GameSummary {
            outcome: loa_engine::Outcome::Win(loa_engine::Color::White),
            reason: loa_engine::EndReason::NoMoves,
            plies: 41,
        };
        let m = MatchSummary { a: 2, b: 0, winner: MatchSide::B, criterion: Criterion::FasterWin, games: [g, g] };
        assert_eq!(serde_json::to_string(&match_summary(&m)).unwrap(), serde_json::to_string(&m).unwrap());
        let b = BenchmarkOutcome { games: [g, g], scores: [41, 41] };
        assert_eq!(benchmark_entry(9, &b).combined, 82);
    }
}
