//! Games, two-game matches and the benchmark score (docs/spec.md §5, §6).

use crate::random::derive_seed;
use crate::search::SearchResult;
use crate::{Color, EndReason, Move, Outcome, Position, Rules};
use serde::{Deserialize, Serialize};

/// Anything that picks moves: the search players of [`crate::players`], or a person.
pub trait Player: Sync {
    /// The move to play in `pos` (not a finished game), `plies_played` plies into a game with
    /// seed `game_seed` (the only randomness a player may use, so games replay exactly).
    fn choose(&self, pos: &Position, rules: &Rules, plies_played: u32, game_seed: u64) -> SearchResult;

    /// [`Player::choose`] in a game told from its start: `moves` played from `start` lead to
    /// `pos`. [`play_game`] asks this; a player in another process, which counts the plies from
    /// the moves it is sent, needs the game so. The others choose from the position alone.
    fn choose_in_game(
        &self,
        start: &Position,
        moves: &[Move],
        pos: &Position,
        rules: &Rules,
        game_seed: u64,
    ) -> SearchResult {
        let _ = start;
        self.choose(pos, rules, moves.len() as u32, game_seed)
    }
}

/// A finished game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameRecord {
    /// Who won, or a draw.
    pub outcome: Outcome,
    /// Why the game ended.
    pub reason: EndReason,
    /// Plies played.
    pub plies: u32,
    /// The moves, in order.
    pub moves: Vec<Move>,
}

/// Plays one game from `start` to its end under `rules`.
pub fn play_game(black: &dyn Player, white: &dyn Player, rules: &Rules, start: Position, seed: u64) -> GameRecord {
    let mut pos = start;
    let mut moves = Vec::new();
    loop {
        let plies = moves.len() as u32;
        let end = pos.game_end(rules).map(|e| (e.outcome, e.reason));
        let capped = (rules.ply_cap > 0 && plies >= rules.ply_cap).then_some((Outcome::Draw, EndReason::PlyCap));
        if let Some((outcome, reason)) = end.or(capped) {
            return GameRecord { outcome, reason, plies, moves };
        }
        let player = if pos.side_to_move() == Color::Black { black } else { white };
        // `game_end` found a legal move, or the rules let the side pass: a search always
        // returns a move here; PASS covers the passing case.
        let mv = player.choose_in_game(&start, &moves, &pos, rules, seed).best.unwrap_or(Move::PASS);
        pos = pos.play(mv);
        moves.push(mv);
    }
}

/// The benchmark score of a game for `side` (docs/spec.md §6): a win in m plies scores 200 − m, a loss
/// in m plies scores m, a tie 100.
pub fn benchmark_score(outcome: Outcome, plies: u32, side: Color) -> u32 {
    match outcome {
        Outcome::Draw => 100,
        Outcome::Win(c) if c == side => 200u32.saturating_sub(plies),
        Outcome::Win(_) => plies.min(200),
    }
}

/// Which player of a match: A (the lower birth serial) or B.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum MatchSide {
    /// The chromosome with the lower birth serial; it plays Black in the first game.
    A,
    /// The other chromosome; it plays Black in the second game.
    B,
}

/// Which of docs/spec.md §5's four criteria decided a match.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Criterion {
    /// (1) Won both games.
    WonBoth,
    /// (2) Won one game and drew the other.
    WonAndDrew,
    /// (3) One win each; the winner's win took fewer plies than its loss.
    FasterWin,
    /// (4) Equal lengths or two draws: A wins.
    DefaultToA,
}

/// A two-game match: A plays Black in game 0, B plays Black in game 1.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MatchRecord {
    /// Game 0 (A black) and game 1 (B black).
    pub games: [GameRecord; 2],
    /// The match winner.
    pub winner: MatchSide,
    /// The criterion that decided it.
    pub criterion: Criterion,
}

/// The colour `side` played in game `game` (0 or 1) of a match.
pub fn color_in_game(side: MatchSide, game: usize) -> Color {
    match (side, game) {
        (MatchSide::A, 0) | (MatchSide::B, 1) => Color::Black,
        _ => Color::White,
    }
}

/// Decides a match from its two games by docs/spec.md §5's criteria.
pub fn match_winner(games: [&GameRecord; 2]) -> (MatchSide, Criterion) {
    // For each game: Some(true) if A won, Some(false) if B won, None for a draw; and the plies.
    let result = |g: usize| games[g].outcome.winner().map(|c| c == color_in_game(MatchSide::A, g));
    let (r0, r1) = (result(0), result(1));
    let a_wins = [r0, r1].iter().filter(|r| **r == Some(true)).count();
    let b_wins = [r0, r1].iter().filter(|r| **r == Some(false)).count();
    match (a_wins, b_wins) {
        (2, _) => (MatchSide::A, Criterion::WonBoth),
        (_, 2) => (MatchSide::B, Criterion::WonBoth),
        (1, 0) => (MatchSide::A, Criterion::WonAndDrew),
        (0, 1) => (MatchSide::B, Criterion::WonAndDrew),
        (1, 1) => {
            let a_won = if r0 == Some(true) { 0 } else { 1 };
            let (a_win_plies, b_win_plies) = (games[a_won].plies, games[1 - a_won].plies);
            match a_win_plies.cmp(&b_win_plies) {
                std::cmp::Ordering::Less => (MatchSide::A, Criterion::FasterWin),
                std::cmp::Ordering::Greater => (MatchSide::B, Criterion::FasterWin),
                std::cmp::Ordering::Equal => (MatchSide::A, Criterion::DefaultToA),
            }
        }
        _ => (MatchSide::A, Criterion::DefaultToA),
    }
}

/// Plays a two-game match between `a` and `b` from `start`; game `g` has seed
/// `derive_seed(seed, g)`.
pub fn play_match(a: &dyn Player, b: &dyn Player, rules: &Rules, start: Position, seed: u64) -> MatchRecord {
    let g0 = play_game(a, b, rules, start, derive_seed(seed, 0));
    let g1 = play_game(b, a, rules, start, derive_seed(seed, 1));
    let games = [g0, g1];
    let (winner, criterion) = match_winner([&games[0], &games[1]]);
    MatchRecord { games, winner, criterion }
}

impl MatchRecord {
    /// The benchmark scores of `side` in its two games, game 0 first.
    pub fn scores(&self, side: MatchSide) -> [u32; 2] {
        [0, 1].map(|g| benchmark_score(self.games[g].outcome, self.games[g].plies, color_in_game(side, g)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(outcome: Outcome, plies: u32) -> GameRecord {
        GameRecord { outcome, reason: EndReason::Connected, plies, moves: vec![] }
    }

    const B: Outcome = Outcome::Win(Color::Black);
    const W: Outcome = Outcome::Win(Color::White);
    const D: Outcome = Outcome::Draw;

    #[test]
    fn the_four_criteria() {
        // Game 0: A is Black. Game 1: A is White.
        let w = |o0, p0, o1, p1| match_winner([&game(o0, p0), &game(o1, p1)]);
        assert_eq!(w(B, 40, W, 50), (MatchSide::A, Criterion::WonBoth));
        assert_eq!(w(W, 40, B, 50), (MatchSide::B, Criterion::WonBoth));
        assert_eq!(w(B, 40, D, 100), (MatchSide::A, Criterion::WonAndDrew));
        assert_eq!(w(D, 100, B, 30), (MatchSide::B, Criterion::WonAndDrew));
        // One win each: A won game 0 in 30 plies, B won game 1 in 50.
        assert_eq!(w(B, 30, B, 50), (MatchSide::A, Criterion::FasterWin));
        assert_eq!(w(B, 60, B, 50), (MatchSide::B, Criterion::FasterWin));
        assert_eq!(w(W, 20, W, 50), (MatchSide::B, Criterion::FasterWin));
        assert_eq!(w(W, 50, W, 20), (MatchSide::A, Criterion::FasterWin));
        assert_eq!(w(B, 50, B, 50), (MatchSide::A, Criterion::DefaultToA));
        assert_eq!(w(D, 100, D, 100), (MatchSide::A, Criterion::DefaultToA));
    }

    #[test]
    fn benchmark_scores_match_the_thesis_tables() {
        // A 35-ply win scores 165; a loss in 35 scores 35; together 200 (thesis Table 1 pattern).
        assert_eq!(benchmark_score(B, 35, Color::Black), 165);
        assert_eq!(benchmark_score(B, 35, Color::White), 35);
        assert_eq!(benchmark_score(D, 100, Color::White), 100);
        let m =
            MatchRecord { games: [game(B, 35), game(D, 100)], winner: MatchSide::A, criterion: Criterion::WonAndDrew };
        assert_eq!(m.scores(MatchSide::A), [165, 100]);
        assert_eq!(m.scores(MatchSide::B), [35, 100]);
    }
}
