//! The reference implementations of the thesis's tournament and benchmark (`reference/`), which
//! the match task's knockout and one-pairing formats are checked against, follow docs/spec.md §5: the
//! knockout pairs by birth serial, and benchmark scores follow the games.

mod reference;

use loa_engine::network::random_uniform;
use loa_engine::tasks::Reference;
use loa_engine::{Rules, aloa::AloaKind};
use reference::{BenchmarkTask, Entrant, TournamentTask, play_benchmark, play_tournament};
use std::sync::Arc;

fn entrant(serial: u64) -> Entrant {
    Entrant { serial, chromosome: Arc::new(random_uniform(serial * 7 + 1)) }
}

fn tournament(serials: [u64; 4]) -> TournamentTask {
    let rules = Rules { ply_cap: 60, ..Rules::default() };
    TournamentTask { entrants: serials.iter().map(|&s| entrant(s)).collect(), rules, depth: 1, seed: 5 }
}

#[test]
fn knockout_pairs_the_two_lowest_serials_first() {
    // Entrants by index have serials 7, 3, 9, 5: the semi-finals are 3 v 5 and 7 v 9.
    let task = tournament([7, 3, 9, 5]);
    let outcome = play_tournament(&task);
    let [semi1, semi2, last] = outcome.matches;
    assert_eq!((semi1.a, semi1.b), (1, 3));
    assert_eq!((semi2.a, semi2.b), (0, 2));
    let (w1, w2) = (semi1.winner_index(), semi2.winner_index());
    let serial = |i: usize| task.entrants[i].serial;
    let (a, b) = if serial(w1) < serial(w2) { (w1, w2) } else { (w2, w1) };
    assert_eq!((last.a, last.b), (a, b), "the final pairs the winners, the older as A");
    assert_eq!(outcome.winner, last.winner_index());
    // Deterministic: the same task gives the same outcome.
    assert_eq!(play_tournament(&task), outcome);
}

#[test]
fn benchmark_scores_follow_the_games() {
    let task = BenchmarkTask {
        entrant: entrant(1),
        reference: Reference::Aloa { evaluator: AloaKind::Quad, depth: 2 },
        depth: 1,
        rules: Rules::default(),
        seed: 0,
    };
    let b = play_benchmark(&task);
    for g in 0..2 {
        let color = if g == 0 { loa_engine::Color::Black } else { loa_engine::Color::White };
        assert_eq!(b.scores[g], loa_engine::game::benchmark_score(b.games[g].outcome, b.games[g].plies, color));
    }
}
