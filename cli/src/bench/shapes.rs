//! The generic network path against the thesis's fast path, for `loa bench`.
//!
//! On the thesis's shape both evaluators run on the same positions, moves and games, rounds of
//! one alternating with rounds of the other so both see the same load, and the generic figure
//! prints the ratio fast / generic. Three other shapes measure the generic path alone: the small
//! board's `5x5-board-25-12-1`, the deeper `board-nonad-100-32-16-1` and the thesis's inputs
//! with piece, quad and Euler counts, `board-nonad-pieces-quads-euler-110-20-1`.

use super::{Figure, best_of};
use loa_engine::game::{GameRecord, play_game};
use loa_engine::network::{
    Chromosome, Network, ShapedAccumulator, ShapedNetwork, SplitMix64, Topology, random_uniform,
};
use loa_engine::openings::sample_positions_from;
use loa_engine::players::{RememberingPlayer, ShapedPlayer};
use loa_engine::{BoardSize, Move, Position, Rules, Start};
use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;

/// The small board's shape: the board alone, 12 hidden units.
const SMALL: &str = "5x5-board-25-12-1";

/// The thesis's inputs with two hidden layers.
const DEEP: &str = "board-nonad-100-32-16-1";

/// The thesis's shape with the extra feature inputs (the strongest TD learner's).
const FEATURES: &str = "board-nonad-pieces-quads-euler-110-20-1";

/// The search depth of the games.
const DEPTH: u32 = 3;

/// Evaluations per second of an incremental update plus the output (every legal move of
/// 10 000 playout positions, one leaf at a time), and games per second of `games` 3-ply games
/// between random networks with players remembering their searches (as tasks play them): the
/// thesis's shape on both paths, then the generic path on the other shapes (games on the small
/// board and with features; no game figures for no games). Each figure is the best of `repeats`
/// runs.
pub fn shape_figures(repeats: u32, games: usize) -> Vec<Figure> {
    let mut figures = thesis_evaluation_figures(repeats);
    for (name, start) in [(SMALL, small_start()), (DEEP, Position::start()), (FEATURES, Position::start())] {
        let (count, time) = generic_evaluations(repeats, &random(shape(name), 1), &start);
        figures.push(evaluation_figure(name, "generic", count, time, String::new()));
    }
    if games == 0 {
        return figures;
    }
    figures.extend(thesis_game_figures(repeats, games));
    for (name, start) in [(SMALL, small_start()), (FEATURES, Position::start())] {
        let chromosomes = game_chromosomes(shape(name), games);
        let (records, time) = best_of(repeats, || play_games(&chromosomes, start, ShapedPlayer::new));
        figures.push(game_figure(name, "generic", &records, time, String::new()));
    }
    figures
}

/// The incremental evaluation of the thesis's shape on the fast `Network` and on `ShapedNetwork`.
fn thesis_evaluation_figures(repeats: u32) -> Vec<Figure> {
    let chromosome = random_uniform(1);
    let (fast, generic) = (Network::new(&chromosome), ShapedNetwork::new(&chromosome));
    let parents = parents(&Position::start());
    let fast_accs: Vec<_> = parents.iter().map(|(p, _)| fast.accumulator(p, p.side_to_move())).collect();
    let generic_accs = accumulators(&generic, &parents);
    let fast_pass = || {
        let mut sum = 0.0f32;
        for ((pos, moves), acc) in parents.iter().zip(&fast_accs) {
            for &(mv, _) in moves {
                sum += fast.evaluate_accumulator(&fast.update(black_box(acc), pos, black_box(mv)));
            }
        }
        sum
    };
    let ((fast_sum, fast_time), ((count, generic_sum), generic_time)) =
        alternating(repeats, fast_pass, || generic_pass(&generic, &parents, &generic_accs));
    black_box((fast_sum, generic_sum));
    let name = Topology::THESIS.name();
    let ratio = format!(", the fast path {:.2}x this", generic_time.as_secs_f64() / fast_time.as_secs_f64());
    vec![
        evaluation_figure(&name, "fast", count, fast_time, String::new()),
        evaluation_figure(&name, "generic", count, generic_time, ratio),
    ]
}

/// The same 3-ply games on the thesis's shape with the `Thesis` and the `Generic` player, and
/// how many of them agree move for move (the two evaluators' values differ in their last bits,
/// so a near-tie could split them).
fn thesis_game_figures(repeats: u32, games: usize) -> Vec<Figure> {
    let chromosomes: Vec<(Chromosome, Chromosome)> =
        (0..games as u64).map(|g| (random_uniform(2 * g + 100), random_uniform(2 * g + 101))).collect();
    let (fast, generic) = alternating(
        repeats,
        || play_games(&chromosomes, Position::start(), ShapedPlayer::new),
        || play_games(&chromosomes, Position::start(), generic_player),
    );
    let same = fast.0.iter().zip(&generic.0).filter(|(a, b)| a.moves == b.moves).count();
    let agreement = format!(", {same} of {games} games the same move for move as the fast path's");
    let ratio = format!(", the fast path {:.2}x this", generic.1.as_secs_f64() / fast.1.as_secs_f64());
    let name = Topology::THESIS.name();
    vec![
        game_figure(&name, "fast", &fast.0, fast.1, String::new()),
        game_figure(&name, "generic", &generic.0, generic.1, agreement + &ratio),
    ]
}

/// `a` and `b` run alternately `repeats` times each, so both see the same load: each one's last
/// result and best time.
fn alternating<A, B>(
    repeats: u32,
    mut a: impl FnMut() -> A,
    mut b: impl FnMut() -> B,
) -> ((A, Duration), (B, Duration)) {
    let (mut first, mut second) = (best_of(1, &mut a), best_of(1, &mut b));
    for _ in 1..repeats {
        let (result, time) = best_of(1, &mut a);
        first = (result, first.1.min(time));
        let (result, time) = best_of(1, &mut b);
        second = (result, second.1.min(time));
    }
    (first, second)
}

/// Every legal move of playout positions from `start`, with the position after it.
type Parents = Vec<(Position, Vec<(Move, Position)>)>;

/// 10 000 playout positions from `start` (seed 11, as the thesis network's figures use), each
/// with its legal moves and their children.
fn parents(start: &Position) -> Parents {
    sample_positions_from(start, 10_000, 11)
        .into_iter()
        .map(|p| (p, p.legal_moves().iter().map(|&mv| (mv, p.play(mv))).collect()))
        .collect()
}

/// Each parent's accumulator from its side to move's point of view (built before the timing, as
/// the fast path's figures build theirs).
fn accumulators(network: &ShapedNetwork, parents: &Parents) -> Vec<ShapedAccumulator> {
    parents.iter().map(|(p, _)| network.accumulator(p, p.side_to_move())).collect()
}

/// The generic path's incremental update plus output over every child of `parents`, from their
/// accumulators `accs`: the count and a checksum.
fn generic_pass(network: &ShapedNetwork, parents: &Parents, accs: &[ShapedAccumulator]) -> (usize, f32) {
    let (mut count, mut sum) = (0, 0.0f32);
    for ((pos, moves), acc) in parents.iter().zip(accs) {
        for (mv, child) in moves {
            sum += network.evaluate_accumulator(&network.update(black_box(acc), pos, black_box(*mv)), child);
            count += 1;
        }
    }
    (count, sum)
}

/// The generic path's evaluations of `chromosome`'s network from `start`'s playouts: the count
/// and the best time.
fn generic_evaluations(repeats: u32, chromosome: &Chromosome, start: &Position) -> (usize, Duration) {
    let network = ShapedNetwork::new(chromosome);
    let parents = parents(start);
    let accs = accumulators(&network, &parents);
    let ((count, sum), time) = best_of(repeats, || generic_pass(&network, &parents, &accs));
    black_box(sum);
    (count, time)
}

/// A game per pair of `chromosomes` from `start`, Black the first, with players `player` makes
/// for each game (as a task makes its players).
fn play_games(
    chromosomes: &[(Chromosome, Chromosome)],
    start: Position,
    player: fn(&Chromosome, u32) -> ShapedPlayer,
) -> Vec<GameRecord> {
    let rules = Rules::default();
    (0..)
        .zip(chromosomes)
        .map(|(g, (black, white))| play_game(&player(black, DEPTH), &player(white, DEPTH), &rules, start, g))
        .collect()
}

/// The generic path's player for any shape, the thesis's included.
fn generic_player(chromosome: &Chromosome, depth: u32) -> ShapedPlayer {
    ShapedPlayer::Generic(RememberingPlayer::new(Arc::new(ShapedNetwork::new(chromosome)), depth))
}

/// `games` pairs of random networks of `topology`, each from its own seed.
fn game_chromosomes(topology: Topology, games: usize) -> Vec<(Chromosome, Chromosome)> {
    (0..games as u64).map(|g| (random(topology, 2 * g + 100), random(topology, 2 * g + 101))).collect()
}

fn evaluation_figure(shape: &str, path: &str, count: usize, time: Duration, extra: String) -> Figure {
    Figure {
        name: format!("shape {shape}, {path} path, incremental + output"),
        per_second: count as f64 / time.as_secs_f64(),
        unit: "evals/s",
        detail: format!("{:.1} ns each, {count} evaluations{extra}", time.as_secs_f64() * 1e9 / count as f64),
    }
}

fn game_figure(shape: &str, path: &str, records: &[GameRecord], time: Duration, extra: String) -> Figure {
    let games = records.len() as f64;
    let plies: u32 = records.iter().map(|r| r.plies).sum();
    Figure {
        name: format!("shape {shape}, {path} path, {DEPTH}-ply game"),
        per_second: games / time.as_secs_f64(),
        unit: "games/s",
        detail: format!(
            "{:.2} ms per game, {:.1} plies per game, {} games{extra}",
            time.as_secs_f64() * 1e3 / games,
            f64::from(plies) / games,
            records.len()
        ),
    }
}

fn shape(name: &str) -> Topology {
    Topology::from_name(name).expect("the bench's shapes are valid")
}

/// The 5×5 board's standard start.
fn small_start() -> Position {
    let size = BoardSize::new(5).expect("5x5 is a board size");
    Start::Standard.position(size).expect("the standard start exists on every board")
}

/// A chromosome of `topology` with weights uniform in [-1, 1) from `seed`.
fn random(topology: Topology, seed: u64) -> Chromosome {
    let mut rng = SplitMix64::new(seed);
    Chromosome::random(topology, || rng.next_u64())
}

#[cfg(test)]
mod tests {
    use super::*;
    use loa_engine::Color;
    use loa_engine::search::{SearchLimits, alpha_beta};

    /// Along 3-ply games between random networks of the thesis's shape, the generic path's
    /// search values are the fast path's within 1e-4: each leaf's values agree within 1e-4
    /// (`engine/tests/shapes.rs`), and a minimax value moves no further than its leaves. The
    /// moves are the same but at near-ties, where the two paths' last bits may split them (game
    /// 7 has one at ply 3: two moves of equal value on the fast path).
    #[test]
    fn the_generic_path_plays_the_fast_path_s_moves_on_the_thesis_shape() {
        let rules = Rules::default();
        let (mut positions, mut same) = (0, 0);
        for game in 0..10u64 {
            let (black, white) = (random_uniform(2 * game + 100), random_uniform(2 * game + 101));
            let (black_player, white_player) = (ShapedPlayer::new(&black, DEPTH), ShapedPlayer::new(&white, DEPTH));
            assert!(matches!(black_player, ShapedPlayer::Thesis(_)));
            let record = play_game(&black_player, &white_player, &rules, Position::start(), game);
            let networks = [&black, &white].map(|c| (Network::new(c), ShapedNetwork::new(c)));
            let mut pos = Position::start();
            for (ply, &mv) in (0..).zip(&record.moves) {
                let (fast, generic) = &networks[usize::from(pos.side_to_move() == Color::White)];
                let limits = SearchLimits::new(DEPTH, &rules, ply);
                let (f, g) = (alpha_beta(&pos, &rules, limits, fast), alpha_beta(&pos, &rules, limits, generic));
                // The game's move is the fast path's search's.
                assert_eq!(f.best.unwrap_or(Move::PASS), mv, "ply {ply} of game {game}");
                assert!(
                    (f.value - g.value).abs() <= 1e-4,
                    "ply {ply} of game {game}: fast {} generic {}",
                    f.value,
                    g.value
                );
                positions += 1;
                same += usize::from(f.best == g.best);
                pos = pos.play(mv);
            }
        }
        assert!(positions > 100, "{positions} positions");
        assert!(same * 100 >= positions * 99, "the same move at {same} of {positions} positions");
    }
}
