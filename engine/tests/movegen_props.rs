//! Property tests: the fast generator against a slow, obviously correct one written here from the
//! rules' plain definition, on random placements and on positions from random games.

use loa_engine::connect::is_connected;
use loa_engine::quads::QuadCounts;
use loa_engine::{Bitboard, Color, Move, Position, Rules, Square};
use proptest::prelude::*;

/// Every legal move by the definition of docs/spec.md §1, found by trying every (from, to) pair in
/// ascending order: same line, distance = pieces on the whole line, no enemy jumped, not onto an
/// own piece.
fn slow_moves(pos: &Position) -> Vec<Move> {
    let own = pos.pieces(pos.side_to_move());
    let enemy = pos.pieces(pos.side_to_move().opponent());
    let occupied = |x: i32, y: i32| Square::from_coords(x, y).is_some_and(|s| (own | enemy).contains(s));
    let mut moves = Vec::new();
    for from in Square::all().filter(|s| own.contains(*s)) {
        for to in Square::all() {
            let (fx, fy) = (from.file() as i32, from.rank() as i32);
            let (dx, dy) = (to.file() as i32 - fx, to.rank() as i32 - fy);
            let steps = dx.abs().max(dy.abs());
            if steps == 0 || !(dx == 0 || dy == 0 || dx.abs() == dy.abs()) {
                continue;
            }
            let (ux, uy) = (dx.signum(), dy.signum());
            let on_line = (-7..=7).filter(|&k| occupied(fx + k * ux, fy + k * uy)).count() as i32;
            if on_line != steps || own.contains(to) {
                continue;
            }
            let jumps_enemy =
                (1..steps).any(|k| Square::from_coords(fx + k * ux, fy + k * uy).is_some_and(|s| enemy.contains(s)));
            if !jumps_enemy {
                moves.push(Move::new(from, to, enemy.contains(to)));
            }
        }
    }
    moves
}

/// A random legal placement: 2..=24 distinct squares split between the colours.
fn placement() -> impl Strategy<Value = Position> {
    (proptest::sample::subsequence((0u8..64).collect::<Vec<_>>(), 2..=24), any::<u32>(), any::<bool>()).prop_filter_map(
        "each colour needs 1..=12 pieces",
        |(squares, colours, white_to_move)| {
            let (mut black, mut white) = (Bitboard::EMPTY, Bitboard::EMPTY);
            for (i, &s) in squares.iter().enumerate() {
                let sq = Bitboard::from_square(Square::new(s));
                if colours >> i & 1 == 0 { black |= sq } else { white |= sq }
            }
            let side = if white_to_move { Color::White } else { Color::Black };
            Position::from_pieces(black, white, side).ok()
        },
    )
}

/// The positions of a random game from the start (choices index the legal moves), stopping when
/// a side has no move.
fn game(choices: &[u16]) -> Vec<(Position, Move, Position)> {
    let mut pos = Position::start();
    let mut out = Vec::new();
    for &c in choices {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            break;
        }
        let mv = moves[c as usize % moves.len()];
        let next = pos.play(mv);
        out.push((pos, mv, next));
        pos = next;
    }
    out
}

fn check_generator(pos: &Position) -> Result<(), TestCaseError> {
    let fast: Vec<Move> = pos.legal_moves().to_vec();
    let slow = slow_moves(pos);
    prop_assert_eq!(&fast, &slow, "position {}", pos);
    prop_assert_eq!(pos.count_moves() as usize, slow.len());
    prop_assert_eq!(pos.has_legal_move(), !slow.is_empty());
    for mv in &fast {
        prop_assert!(pos.is_legal(*mv));
        prop_assert_eq!(pos.parse_move(&mv.to_string()), Ok(*mv));
        let next = pos.play(*mv);
        let (us, them) = (pos.side_to_move(), pos.side_to_move().opponent());
        prop_assert_eq!(next.side_to_move(), them);
        prop_assert_eq!(next.pieces(us).count(), pos.pieces(us).count());
        prop_assert_eq!(next.pieces(them).count() + mv.is_capture() as u32, pos.pieces(them).count());
        prop_assert!(next.pieces(us).contains(mv.to()) && !next.occupied().contains(mv.from()));
    }
    // Moves the generator left out are illegal by the slow definition, and are refused.
    for from in pos.own() {
        for to in Square::all() {
            let mv = Move::new(from, to, pos.enemy().contains(to));
            prop_assert_eq!(pos.is_legal(mv), slow.contains(&mv));
        }
    }
    prop_assert_eq!(pos.to_string().parse::<Position>(), Ok(*pos));
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn generator_matches_slow_definition_on_random_placements(pos in placement()) {
        check_generator(&pos)?;
    }

    #[test]
    fn generator_matches_slow_definition_along_random_games(choices in proptest::collection::vec(any::<u16>(), 0..120)) {
        for (pos, _, _) in game(&choices) {
            check_generator(&pos)?;
        }
    }

    #[test]
    fn incremental_quads_match_from_scratch_along_random_games(choices in proptest::collection::vec(any::<u16>(), 0..120)) {
        let mut quads = [QuadCounts::of(Position::start().pieces(Color::Black)), QuadCounts::of(Position::start().pieces(Color::White))];
        for (before, mv, after) in game(&choices) {
            let (us, them) = (before.side_to_move(), before.side_to_move().opponent());
            let own = before.pieces(us);
            let lifted = quads[us.index()].removed(own, mv.from());
            quads[us.index()] = lifted.added(own & !Bitboard::from_square(mv.from()), mv.to());
            if mv.is_capture() {
                quads[them.index()] = quads[them.index()].removed(before.pieces(them), mv.to());
            }
            for c in Color::ALL {
                prop_assert_eq!(quads[c.index()], QuadCounts::of(after.pieces(c)), "{} after {}", after, mv);
            }
        }
    }

    #[test]
    fn euler_above_one_proves_not_connected(pos in placement()) {
        for c in Color::ALL {
            if QuadCounts::of(pos.pieces(c)).euler() > 1 {
                prop_assert!(!is_connected(pos.pieces(c)));
            }
        }
    }

    #[test]
    fn fast_connection_test_agrees_with_the_full_one(choices in proptest::collection::vec(any::<u16>(), 0..120)) {
        let rules = Rules::default();
        for (before, mv, after) in game(&choices) {
            if before.game_end(&rules).is_some() {
                break;
            }
            let full = after.game_end(&rules).filter(|e| e.reason != loa_engine::EndReason::NoMoves);
            prop_assert_eq!(after.connection_end_after(mv, &rules), full, "{} after {}", after, mv);
        }
    }
}
