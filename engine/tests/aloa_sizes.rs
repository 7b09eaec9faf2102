//! ALoA and the random heuristic on the smaller boards: measurements against a slow reference
//! that knows only the board's side N, the board's symmetries, the incremental states, and whole
//! games.

use loa_engine::aloa::{Aloa, MIN_DISTANCE_SUM, SideFeatures};
use loa_engine::game::play_game;
use loa_engine::openings::sample_positions_from;
use loa_engine::players::{AloaPlayer, RandomPlayer};
use loa_engine::search::Evaluator;
use loa_engine::{Bitboard, BoardSize, Color, Move, Position, Rules, Square, Start};

fn smaller_sizes() -> [BoardSize; 3] {
    [5, 6, 7].map(|n| BoardSize::new(n).unwrap())
}

fn positions(size: BoardSize, count: usize, seed: u64) -> Vec<Position> {
    sample_positions_from(&Start::Standard.position(size).unwrap(), count, seed)
}

/// The measurements the obvious way on an N×N board: f64 coordinates, the board centre at
/// ((N−1)/2, (N−1)/2), the ring a square's distance to the nearest edge (at most 3), every 2×2
/// window of the N×N board with its empty border visited.
fn slow_features(pieces: Bitboard, n: i32) -> (f64, f64, u32, u32, u32, u32) {
    let sq: Vec<(f64, f64)> = pieces.map(|s| (f64::from(s.file()), f64::from(s.rank()))).collect();
    let count = sq.len() as f64;
    let (cx, cy) = (sq.iter().map(|p| p.0).sum::<f64>() / count, sq.iter().map(|p| p.1).sum::<f64>() / count);
    let distance: f64 = sq.iter().map(|&(x, y)| (x - cx).abs().max((y - cy).abs())).sum();
    let last = f64::from(n - 1);
    let offcentre = (cx - last / 2.0).abs().max((cy - last / 2.0).abs());
    let ring = |x: f64, y: f64| x.min(last - x).min(y).min(last - y).min(3.0) as u32;
    let ring_sum = sq.iter().map(|&(x, y)| ring(x, y)).sum();
    let edge = sq.iter().filter(|&&(x, y)| ring(x, y) == 0).count() as u32;
    let on =
        |x: i32, y: i32| (0..n).contains(&x) && (0..n).contains(&y) && pieces.contains(Square::new((8 * y + x) as u8));
    let (mut q3, mut q4) = (0, 0);
    for wy in -1..n {
        for wx in -1..n {
            let inside = [(0, 0), (1, 0), (0, 1), (1, 1)].iter().filter(|(dx, dy)| on(wx + dx, wy + dy)).count();
            let (mx, my) = (f64::from(wx) + 0.5, f64::from(wy) + 0.5);
            if (mx - cx).abs().max((my - cy).abs()) <= 2.0 {
                q3 += u32::from(inside == 3);
                q4 += u32::from(inside == 4);
            }
        }
    }
    (distance, offcentre, ring_sum, edge, q3, q4)
}

#[test]
fn features_match_the_slow_reference_on_every_size() {
    for size in smaller_sizes() {
        let n = i32::from(size.side());
        for pos in positions(size, 3000, 5) {
            for color in Color::ALL {
                let pieces = pos.pieces(color);
                let f = SideFeatures::on(size, pieces, true);
                let (distance, offcentre, ring_sum, edge, q3, q4) = slow_features(pieces, n);
                let count = f64::from(f.count);
                assert!((f64::from(f.distance_sum) / count - distance).abs() < 1e-9, "{pos}");
                assert!((f64::from(f.com_offcentre) / (2.0 * count) - offcentre).abs() < 1e-9, "{pos}");
                assert_eq!(f.excess, f.distance_sum - MIN_DISTANCE_SUM[f.count as usize], "{pos}");
                assert_eq!((f.ring_sum, f.edge, f.near_q3, f.near_q4), (ring_sum, edge, q3, q4), "{pos}");
            }
        }
    }
}

/// The position with every square sent through `map` (colours and side to move kept).
fn transformed(pos: &Position, map: impl Fn(i32, i32) -> (i32, i32)) -> Position {
    let image = |pieces: Bitboard| -> Bitboard {
        pieces
            .map(|s| {
                let (x, y) = map(i32::from(s.file()), i32::from(s.rank()));
                Square::from_coords(x, y).unwrap()
            })
            .collect()
    };
    let (black, white) = (image(pos.pieces(Color::Black)), image(pos.pieces(Color::White)));
    Position::from_pieces_on(pos.size(), black, white, pos.side_to_move()).unwrap()
}

#[test]
fn the_board_symmetries_of_each_size_leave_the_value_unchanged() {
    for size in smaller_sizes() {
        let last = i32::from(size.side()) - 1;
        for e in [Aloa::quad(), Aloa::normal()] {
            for pos in positions(size, 1000, 8) {
                let v = e.score(&pos, Color::Black);
                assert_eq!(e.score(&transformed(&pos, |x, y| (last - x, y)), Color::Black), v, "mirror {pos}");
                assert_eq!(e.score(&transformed(&pos, |x, y| (x, last - y)), Color::Black), v, "flip {pos}");
                assert_eq!(e.score(&transformed(&pos, |x, y| (y, x)), Color::Black), v, "transpose {pos}");
                assert_eq!(v, -e.score(&pos, Color::White));
            }
        }
    }
}

/// The same piece sets mean different things on different boards: an edge piece of 6×6 is
/// an inner piece of 8×8.
#[test]
fn the_board_changes_the_value() {
    let six = Start::Standard.position(BoardSize::new(6).unwrap()).unwrap();
    let aloa = Aloa::quad();
    let on_six = aloa.side_terms_on(six.size(), six.pieces(Color::White));
    let on_eight = aloa.side_terms(six.pieces(Color::White));
    // White on a2..a5 and f2..f5: all on the edge of 6×6, only the a-file ones on 8×8.
    assert_eq!(on_six.edge, -10 * 8);
    assert_eq!(on_eight.edge, -10 * 4);
    assert_ne!(on_six.total(), on_eight.total());
    // On 8×8 the same sets lean towards a1: the centre of mass is off-centre there, not on 6×6.
    assert_eq!(on_six.com_centralisation, 0);
    assert!(on_eight.com_centralisation < 0);
}

/// Incremental and batched states equal states from scratch on every size, with states of
/// other sizes made in between on the same thread (the totals cache must not mix boards).
#[test]
fn states_are_exact_on_every_size_and_across_sizes() {
    let aloa = Aloa::quad();
    let mut all: Vec<Position> = smaller_sizes().iter().flat_map(|&s| positions(s, 300, 11)).collect();
    all.extend(loa_engine::openings::sample_positions(300, 11));
    // Interleave the sizes.
    all.sort_by_key(|p| p.occupied().0.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let mut checked = 0;
    for pos in &all {
        let root = aloa.root_state(pos, Color::White);
        let mut moves: Vec<Move> = pos.legal_moves().iter().copied().collect();
        moves.push(Move::PASS);
        let mut batch = vec![root; moves.len()];
        aloa.child_states(&root, pos, &moves, &mut batch);
        for (&mv, state) in moves.iter().zip(&batch) {
            let child = pos.play(mv);
            assert_eq!(*state, aloa.root_state(&child, Color::White), "{pos} {mv}");
            assert_eq!(aloa.child_state(&root, pos, mv), *state, "{pos} {mv}");
            assert_eq!(aloa.evaluate(state, &child), aloa.score(&child, Color::White) as f32, "{pos} {mv}");
            checked += 1;
        }
        // A state made, then another size's search, then the child states of the first.
        let other = &all[(checked * 7) % all.len()];
        let _ = aloa.root_state(other, Color::Black);
        for &mv in pos.legal_moves().iter() {
            assert_eq!(aloa.child_state(&root, pos, mv), aloa.root_state(&pos.play(mv), Color::White));
        }
    }
    assert!(checked > 10_000, "{checked}");
}

/// ALoA and the random heuristic play whole games on every size and start, every move legal
/// and on the board.
#[test]
fn games_on_every_size_finish_with_legal_moves() {
    let rules = Rules::default();
    let mut starts: Vec<Position> = BoardSize::ALL.iter().map(|&s| Start::Standard.position(s).unwrap()).collect();
    starts.push(Start::ScrambledEggs.position(BoardSize::STANDARD).unwrap());
    for start in starts {
        let (aloa, random) = (AloaPlayer { eval: Aloa::quad(), depth: 2 }, RandomPlayer { depth: 2, salt: 0 });
        for seed in 0..3 {
            for (black, white) in
                [(&aloa as &dyn loa_engine::game::Player, &random as &dyn loa_engine::game::Player), (&random, &aloa)]
            {
                let record = play_game(black, white, &rules, start, seed);
                let mut pos = start;
                for &mv in &record.moves {
                    assert!(pos.is_legal(mv), "{pos} {mv}");
                    pos = pos.play(mv);
                    assert!((pos.occupied() & !pos.board()).is_empty());
                }
                assert!(record.plies <= rules.ply_cap);
            }
        }
    }
}
