//! Evaluation speed of the network, for `loa bench`.

use super::{Figure, best_of, sample_positions};
use loa_engine::network::simd::Supported;
use loa_engine::network::{Accumulator, Network, random_uniform, tanh_many};
use loa_engine::{Move, Position};
use std::hint::black_box;
use std::time::Duration;

/// Evaluations per second on one thread: the plain pass, an accumulator from scratch plus the
/// output, and an incremental update plus the output (every legal move of playout positions,
/// as at a search's leaves), one at a time and 8 at once as the search does it, and bounds on
/// the output unit's input 8 at once (as the search settles most leaves), and the hidden layer's
/// 20 tanh alone (the exact figures' ceiling). Each figure is the best of `repeats` runs.
pub fn network_figures(repeats: u32) -> Vec<Figure> {
    let network = Network::new(&random_uniform(1));
    let positions = sample_positions(10_000, 11);
    let parents: Vec<(Position, Accumulator, Vec<Move>)> =
        positions.iter().map(|p| (*p, network.accumulator(p, p.side_to_move()), p.legal_moves().to_vec())).collect();
    let child_count: usize = parents.iter().map(|(_, _, moves)| moves.len()).sum();

    let (plain, plain_time) = best_of(repeats, || {
        positions.iter().map(|p| network.evaluate_plain(black_box(p), p.side_to_move())).sum::<f32>()
    });
    let (scratch, scratch_time) = best_of(repeats, || {
        positions
            .iter()
            .map(|p| network.evaluate_accumulator(&network.accumulator(black_box(p), p.side_to_move())))
            .sum::<f32>()
    });
    let (incremental, incremental_time) = best_of(repeats, || {
        let mut sum = 0.0f32;
        for (pos, acc, moves) in &parents {
            for &mv in moves {
                sum += network.evaluate_accumulator(&network.update(black_box(acc), pos, black_box(mv)));
            }
        }
        sum
    });
    // As the search evaluates leaves: up to 8 children of a position updated, then evaluated
    // together (`Network::evaluate_accumulators`).
    let (batched, batched_time) = best_of(repeats, || {
        let mut sum = 0.0f32;
        let mut accs = [network.accumulator(&positions[0], positions[0].side_to_move()); 8];
        let mut values = [0.0f32; 8];
        for (pos, acc, moves) in &parents {
            for chunk in moves.chunks(8) {
                for (a, &mv) in accs.iter_mut().zip(chunk) {
                    *a = network.update(black_box(acc), pos, black_box(mv));
                }
                network.evaluate_accumulators(&accs[..chunk.len()], &mut values[..chunk.len()]);
                sum += values[..chunk.len()].iter().sum::<f32>();
            }
        }
        sum
    });
    // As the search settles most leaves: the same, with bounds instead of exact values
    // (`Network::bound_accumulators`).
    let (bounded, bounded_time) = best_of(repeats, || {
        let mut sum = 0.0f32;
        let mut accs = [network.accumulator(&positions[0], positions[0].side_to_move()); 8];
        let (mut lo, mut hi) = ([0.0f32; 8], [0.0f32; 8]);
        for (pos, acc, moves) in &parents {
            for chunk in moves.chunks(8) {
                for (a, &mv) in accs.iter_mut().zip(chunk) {
                    *a = network.update(black_box(acc), pos, black_box(mv));
                }
                let n = chunk.len();
                network.bound_accumulators(&accs[..n], &mut lo[..n], &mut hi[..n]);
                sum += lo[..n].iter().sum::<f32>() + hi[..n].iter().sum::<f32>();
            }
        }
        sum
    });
    // The hidden layer's tanh alone, on the exact evaluation's vectors, as many as the exact figures above
    // compute: what any exact evaluation must spend, bit-identity fixing tanh's operations (its
    // evaluations per second are their ceiling). Over the first 64 children's pre-activations
    // again and again, so the values stay in L1 cache (tanh is branch-free: its cost does not
    // depend on the values).
    let block: Vec<f32> = parents
        .iter()
        .flat_map(|(pos, acc, moves)| moves.iter().map(|&mv| network.update(acc, pos, mv)))
        .take(TANH_BLOCK)
        .flat_map(|child| child.pre_activations())
        .collect();
    let mut activated = vec![0.0f32; block.len()];
    let blocks = child_count / TANH_BLOCK;
    let (tanh_sum, tanh_time) = best_of(repeats, || {
        let mut sum = 0.0;
        for _ in 0..blocks {
            activate_all(black_box(&block), &mut activated);
            sum += activated[0];
        }
        sum
    });
    black_box((plain, scratch, incremental, batched, bounded, tanh_sum));

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
        figure("network, incremental update + output, 8 at once", child_count, batched_time),
        figure("network, incremental update + bounds, 8 at once", child_count, bounded_time),
        figure("network, the hidden layer's 20 tanh alone (exact ceiling)", blocks * TANH_BLOCK, tanh_time),
    ]
}

/// Children whose hidden units the `tanh` figure activates, again and again.
const TANH_BLOCK: usize = 64;

/// `out[i] = tanh(xs[i])` with the vectors the exact evaluation uses (its detected path).
#[inline(never)]
fn activate_all(xs: &[f32], out: &mut [f32]) {
    tanh_many(Supported::detected(), xs, out);
}
