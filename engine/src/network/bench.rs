//! Evaluation speed of the network, for `loa bench`.

use super::{Network, random_uniform};
use crate::bench::{Figure, sample_positions};
use crate::{Move, Position};
use std::hint::black_box;
use std::time::{Duration, Instant};

/// Evaluations per second on one thread: the plain pass, an accumulator from scratch plus the
/// output, and an incremental update plus the output (every legal move of playout positions,
/// as at a search's leaves). Each figure is the best of `repeats` runs.
pub fn network_figures(repeats: u32) -> Vec<Figure> {
    let network = Network::new(&random_uniform(1));
    let positions = sample_positions(10_000, 11);
    let parents: Vec<(Position, super::Accumulator, Vec<Move>)> =
        positions.iter().map(|p| (*p, network.accumulator(p, p.side_to_move()), p.legal_moves().to_vec())).collect();
    let child_count: usize = parents.iter().map(|(_, _, moves)| moves.len()).sum();

    let (plain, plain_time) = fastest_of(repeats, || {
        positions.iter().map(|p| network.evaluate_plain(black_box(p), p.side_to_move())).sum::<f32>()
    });
    let (scratch, scratch_time) = fastest_of(repeats, || {
        positions
            .iter()
            .map(|p| network.evaluate_accumulator(&network.accumulator(black_box(p), p.side_to_move())))
            .sum::<f32>()
    });
    let (incremental, incremental_time) = fastest_of(repeats, || {
        let mut sum = 0.0f32;
        for (pos, acc, moves) in &parents {
            for &mv in moves {
                sum += network.evaluate_accumulator(&network.update(black_box(acc), pos, black_box(mv)));
            }
        }
        sum
    });
    black_box((plain, scratch, incremental));

    let figure = |name: &str, count: usize, time: Duration| Figure {
        name: name.to_string(),
        per_second: count as f64 / time.as_secs_f64(),
        unit: "evals/s",
        detail: format!("{:.1} ns each, {count} evaluations", time.as_secs_f64() * 1e9 / count as f64),
    };
    vec![
        figure("network, plain forward pass", positions.len(), plain_time),
        figure("network, accumulator from scratch + output", positions.len(), scratch_time),
        figure("network, incremental update + output", child_count, incremental_time),
    ]
}

fn fastest_of<T>(repeats: u32, mut run: impl FnMut() -> T) -> (T, Duration) {
    let mut best = Duration::MAX;
    let mut result = run();
    for _ in 0..repeats.max(1) {
        let start = Instant::now();
        result = run();
        best = best.min(start.elapsed());
    }
    (result, best)
}
