//! Speed measurements printed by `loa bench` (see docs/speed.md): move generation and
//! connectivity here, the network in [`network_figures`], ALoA in [`aloa_figures`], and searches and games in
//! [`player_figures`]; the generic network path against the thesis's fast path in [`shape_figures`].
//!
//! [`compare`] runs two builds' benches interleaved and prints the ratios (`loa bench --baseline`).
//!
//! Timings are wall-clock on one thread. Each figure is the best of `repeats` runs, which
//! filters out interference from other processes on a shared machine.

use loa_engine::connect::is_connected;
use loa_engine::perft::{perft, perft_make_all};
use loa_engine::quads::QuadCounts;
use loa_engine::{Bitboard, Color, Position};
use std::hint::black_box;
use std::time::{Duration, Instant};

mod aloa;
mod compare;
mod network;
mod shapes;

pub use aloa::aloa_figures;
pub use compare::{CompareError, ParsedFigure, compare, parse_figure};
pub use loa_engine::openings::sample_positions;
pub use network::network_figures;
pub use shapes::shape_figures;

/// One measured figure.
#[derive(Clone, Debug)]
pub struct Figure {
    /// What was measured.
    pub name: String,
    /// The rate.
    pub per_second: f64,
    /// The unit of the rate, e.g. "leaves/s".
    pub unit: &'static str,
    /// Extra detail, e.g. the count and the time.
    pub detail: String,
}

impl std::fmt::Display for Figure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let rate = self.per_second;
        let (scaled, prefix) = if rate >= 1e6 { (rate / 1e6, "M ") } else { (rate / 1e3, "k ") };
        write!(f, "{:<44} {:>9.2} {}{}  ({})", self.name, scaled, prefix, self.unit, self.detail)
    }
}

pub(crate) fn best_of<T>(repeats: u32, mut run: impl FnMut() -> T) -> (T, Duration) {
    let start = Instant::now();
    let mut result = run();
    let mut best = start.elapsed();
    for _ in 1..repeats {
        let start = Instant::now();
        result = run();
        best = best.min(start.elapsed());
    }
    (result, best)
}

/// Perft speed from the start position, with bulk counting at the last ply and without.
pub fn movegen_figures(depth: u32, repeats: u32) -> Vec<Figure> {
    let start = Position::start();
    let mut figures = Vec::new();
    for (name, bulk) in [("perft, bulk count at last ply", true), ("perft, every leaf move made", false)] {
        let (leaves, time) =
            best_of(repeats, || if bulk { perft(&start, depth) } else { perft_make_all(&start, depth) });
        figures.push(Figure {
            name: format!("{name} (depth {depth})"),
            per_second: leaves as f64 / time.as_secs_f64(),
            unit: "leaves/s",
            detail: format!("{leaves} leaves in {:.3} s", time.as_secs_f64()),
        });
    }
    figures
}

/// The cost of a connectivity test and of the quad/Euler computations on playout positions.
pub fn connectivity_figures(repeats: u32) -> Vec<Figure> {
    let positions = sample_positions(100_000, 7);
    let sides: Vec<Bitboard> =
        positions.iter().flat_map(|p| [p.pieces(Color::Black), p.pieces(Color::White)]).collect();
    let n = sides.len() as f64;
    let mut figures = Vec::new();
    let mut push = |name: &str, time: Duration, what: &str| {
        figures.push(Figure {
            name: name.to_string(),
            per_second: n / time.as_secs_f64(),
            unit: "tests/s",
            detail: format!("{:.1} ns each, {what}", time.as_secs_f64() * 1e9 / n),
        });
    };
    let (connected, t) = best_of(repeats, || sides.iter().filter(|&&b| is_connected(black_box(b))).count());
    push("connectivity test (flood fill)", t, &format!("{connected} connected sides"));
    let (_, t) = best_of(repeats, || {
        sides.iter().filter(|&&b| QuadCounts::of(black_box(b)).euler() <= 1 && is_connected(b)).count()
    });
    push("connectivity test (Euler pre-check, fill if E<=1)", t, "quads from scratch");
    let (_, t) =
        best_of(repeats, || sides.iter().map(|&b| black_box(QuadCounts::of(black_box(b))).euler()).sum::<i32>());
    push("quad counts + Euler from scratch", t, "u128 shifts");
    let (_, t) = best_of(repeats, || {
        sides
            .iter()
            .map(|&b| {
                let sq = b.first().unwrap_or(loa_engine::Square::new(0));
                let q = QuadCounts::default();
                black_box(q.removed(black_box(b), black_box(sq))).euler()
            })
            .sum::<i32>()
    });
    push("quad counts incremental update (one square)", t, "3x3 table lookup");
    figures
}

/// Search and game speed of the players: a 3-ply network move, an ALoA depth-5 move and a whole
/// 3-ply network game (with every position searched, and with players that remember their
/// searches as tasks' players do), each averaged over many positions or games.
pub fn player_figures(positions: usize, games: usize) -> Vec<Figure> {
    use loa_engine::aloa::Aloa;
    use loa_engine::game::play_game;
    use loa_engine::network::{Network, random_uniform};
    use loa_engine::players::{RememberingPlayer, SearchPlayer};
    use loa_engine::search::{SearchLimits, alpha_beta};
    use loa_engine::{Rules, search::Evaluator};
    use std::sync::Arc;

    let rules = Rules::default();
    let sample: Vec<Position> =
        sample_positions(positions * 4, 11).into_iter().filter(|p| p.game_end(&rules).is_none()).step_by(4).collect();
    let mut figures = Vec::new();
    let mut search_figure = |name: &str, depth: u32, eval: &dyn Fn(&Position) -> u64| {
        let start = Instant::now();
        let nodes: u64 = sample.iter().map(|p| eval(black_box(p))).sum();
        let time = start.elapsed().as_secs_f64();
        figures.push(Figure {
            name: name.to_string(),
            per_second: sample.len() as f64 / time,
            unit: "moves/s",
            detail: format!(
                "{:.3} ms per move, {:.0} nodes per move, {:.2} M nodes/s, depth {depth}, {} positions",
                time * 1e3 / sample.len() as f64,
                nodes as f64 / sample.len() as f64,
                nodes as f64 / time / 1e6,
                sample.len()
            ),
        });
    };
    fn search<E: Evaluator>(p: &Position, rules: &Rules, depth: u32, e: &E) -> u64 {
        alpha_beta(p, rules, SearchLimits { depth, plies_left: u32::MAX }, e).nodes
    }
    let net = Network::new(&random_uniform(1));
    search_figure("network move, 3 ply", 3, &|p| search(p, &rules, 3, &net));
    let aloa = Aloa::quad();
    search_figure("ALoA move, 5 ply", 5, &|p| search(p, &rules, 5, &aloa));
    // Whole games between random networks (different seeds, so games differ): once with every
    // position searched, once with players that remember their searches, as tasks play them
    // (random networks' games often cycle, and a cycle's positions are then not searched again;
    // the same games either way).
    let network = |seed| Arc::new(Network::new(&random_uniform(seed)));
    let mut game_figure = |remembering: bool| {
        let start = Instant::now();
        let (mut plies, mut searched) = (0u64, 0u64);
        for g in 0..games as u64 {
            let (black, white) = (network(2 * g + 100), network(2 * g + 101));
            let game_plies = if remembering {
                let (black, white) = (RememberingPlayer::new(black, 3), RememberingPlayer::new(white, 3));
                let game_plies = play_game(&black, &white, &rules, Position::start(), g).plies;
                searched += (black.remembered() + white.remembered()) as u64;
                game_plies
            } else {
                let (black, white) = (SearchPlayer { eval: black, depth: 3 }, SearchPlayer { eval: white, depth: 3 });
                let game_plies = play_game(&black, &white, &rules, Position::start(), g).plies;
                searched += u64::from(game_plies);
                game_plies
            };
            plies += u64::from(game_plies);
        }
        let time = start.elapsed().as_secs_f64();
        let name =
            if remembering { "network vs network game, 3 ply, remembering" } else { "network vs network game, 3 ply" };
        figures.push(Figure {
            name: name.to_string(),
            per_second: games as f64 / time,
            unit: "games/s",
            detail: format!(
                "{:.1} ms per game, {:.1} plies per game, {:.0} % of moves searched, {} games",
                time * 1e3 / games as f64,
                plies as f64 / games as f64,
                100.0 * searched as f64 / plies as f64,
                games
            ),
        });
    };
    game_figure(false);
    game_figure(true);
    figures
}
