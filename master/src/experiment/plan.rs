//! An experiment's matches, the tasks that play them and the per-game lines of their outcomes.
//! Match `j` (0-based, A's entrants in order, each playing `matches` matches) has seed
//! `derive_seed(seed, j)` and starts from `random_opening_from(start, opening_plies,
//! derive_seed(seed_j, OPENING_SEED_LABEL))`, `start` the board's start position, exactly as pair
//! `j` of `loa match --seed SEED --opening-plies K` with the same board and start; with
//! swapped colours the same match with B as A follows. Tasks take consecutive matches, so an
//! outcome is put back in its place by task id and position, whatever worker played it.

use super::config::MatchExperiment;
use super::side::Side;
use crate::metrics;
use loa_engine::Color;
use loa_engine::game::{Criterion, MatchSide, benchmark_score};
use loa_engine::openings::random_opening_from;
use loa_engine::random::derive_seed;
use loa_engine::spec::{FRESH_ANN_LABEL, PlayerSpec};
use loa_engine::tasks::{
    MAX_ENTRANTS, MatchEntrant, MatchFormat, MatchSummary, MatchTask, OPENING_SEED_LABEL, Pairing,
};
use loa_records::{MatchGameRecord, MatchLine, MatchSeriesSummary, MatchSideSummary};
use std::mem::take;

/// The label that draws a fresh RandomANN's weights from the match seed for player A: the one
/// `loa match` uses for both players.
pub const FRESH_ANN_LABEL_A: u64 = FRESH_ANN_LABEL;
/// The same for player B (so two fresh RandomANNs in one match differ).
pub const FRESH_ANN_LABEL_B: u64 = 0xA12;

/// One two-game match of the experiment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlannedMatch {
    /// The match number `j` its seed comes from (a swapped match shares it with its original).
    pub number: u64,
    /// The match seed.
    pub seed: u64,
    /// Whether B is the match's A (colours swapped).
    pub swapped: bool,
    /// A's entrant (index into its side's networks; 0 for other players).
    pub a_entrant: usize,
    /// B's entrant.
    pub b_entrant: usize,
}

/// An entrant of a task, by what it stands for: its side (A or B) and its index among that
/// side's entrants, or for fresh RandomANNs the number of the match whose seed draws them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Key {
    a: bool,
    index: u64,
}

/// The matches, in file order.
pub fn plan_matches(seed: u64, matches: u32, swap: bool, a: &Side, b: &Side) -> Vec<PlannedMatch> {
    let per = u64::from(matches);
    let (na, nb) = (a.entrants() as u64, b.entrants() as u64);
    let mut planned = Vec::new();
    for a_entrant in 0..na {
        for r in 0..per {
            let number = a_entrant * per + r;
            let m = PlannedMatch {
                number,
                seed: derive_seed(seed, number),
                swapped: false,
                a_entrant: a_entrant as usize,
                b_entrant: (number % nb) as usize,
            };
            planned.push(m);
            if swap {
                planned.push(PlannedMatch { swapped: true, ..m });
            }
        }
    }
    planned
}

fn key(side: &Side, a: bool, entrant: usize, number: u64) -> Key {
    let index = if matches!(side.spec, PlayerSpec::FreshRandomAnn { .. }) { number } else { entrant as u64 };
    Key { a, index }
}

fn entrant(side: &Side, key: Key, serial: u64, match_seed: u64) -> MatchEntrant {
    let label = if key.a { FRESH_ANN_LABEL_A } else { FRESH_ANN_LABEL_B };
    if let PlayerSpec::Engine { .. } = side.spec {
        return crate::local::stand_in(serial);
    }
    match side.spec.fixed_for_match(match_seed, label) {
        Some(player) => MatchEntrant::Fixed { serial, player },
        // A network spec: `plan_matches` numbers a side's entrants below its count of networks.
        None => MatchEntrant::Network { serial, chromosome: side.nets[key.index as usize].chromosome.clone() },
    }
}

/// A task and the file positions of its matches.
#[derive(Clone, Debug)]
pub struct PlannedTask {
    /// The task.
    pub task: MatchTask,
    /// For each of its pairings, the index of the match in the planned list.
    pub matches: Vec<usize>,
    /// The entrants that are external engines, by index, with their command lines: the master
    /// plays the task itself ([`crate::local`]).
    pub engines: Vec<(usize, String)>,
}

impl PlannedTask {
    /// Who plays it: any worker, or the master if an engine is in it.
    pub fn work(&self) -> crate::local::Work {
        crate::local::Work::of(self.task.clone(), self.engines.clone())
    }
}

/// Cuts the planned matches into tasks of at most `per_task` consecutive matches and
/// [`MAX_ENTRANTS`] entrants.
pub fn plan_tasks(planned: &[PlannedMatch], a: &Side, b: &Side, config: &MatchExperiment) -> Vec<PlannedTask> {
    let (per_task, opening_plies, rules) = (config.matches_per_task as usize, config.opening_plies, config.rules);
    let network_depth = a.spec.network_depth().or(b.spec.network_depth()).unwrap_or(1);
    let task = |entrants, pairs, matches, engines| PlannedTask {
        engines,
        task: MatchTask {
            entrants,
            network_depth,
            rules,
            board: config.board,
            start: config.start,
            format: MatchFormat::Pairs(pairs),
        },
        matches,
    };
    let mut tasks = Vec::new();
    let (mut keys, mut entrants, mut pairs, mut indices) = (Vec::<Key>::new(), Vec::new(), Vec::new(), Vec::new());
    let mut engines = Vec::new();
    for (index, m) in planned.iter().enumerate() {
        let (ka, kb) = (key(a, true, m.a_entrant, m.number), key(b, false, m.b_entrant, m.number));
        let new = [ka, kb].iter().filter(|k| !keys.contains(k)).count();
        if !pairs.is_empty() && (pairs.len() >= per_task || keys.len() + new > MAX_ENTRANTS) {
            tasks.push(task(take(&mut entrants), take(&mut pairs), take(&mut indices), take(&mut engines)));
            keys.clear();
        }
        let mut place = |k: Key, side: &Side| {
            keys.iter().position(|x| *x == k).unwrap_or_else(|| {
                if let PlayerSpec::Engine { command } = &side.spec {
                    engines.push((keys.len(), command.clone()));
                }
                entrants.push(entrant(side, k, keys.len() as u64, m.seed));
                keys.push(k);
                keys.len() - 1
            })
        };
        let (ia, ib) = (place(ka, a), place(kb, b));
        let (pa, pb) = if m.swapped { (ib, ia) } else { (ia, ib) };
        pairs.push(Pairing { a: pa, b: pb, seed: m.seed, opening_plies });
        indices.push(index);
    }
    if !pairs.is_empty() {
        tasks.push(task(entrants, pairs, indices, engines));
    }
    tasks
}

/// Match results of one player: its match file's summary, and criterion 4 scored as a tie.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchTally {
    /// The match file's last line: games, matches, and each side's games and matches won by
    /// docs/spec.md §5 (criterion 4 gives a tie to the match's A).
    pub series: MatchSeriesSummary,
    /// Matches the first, then the second player won by criteria 1-3 (criterion 4 as a tie).
    pub decided: [u32; 2],
    /// Matches criterion 4 decided (equal lengths or two draws): ties without it.
    pub ties: u32,
    /// Of those, the ones given to the first player (it was the match's A).
    pub ties_to_first: u32,
    /// Games that reached the ply cap.
    pub games_at_cap: u32,
}

/// The lines of a match file for these matches from the first player's side (config A), and
/// their tally. `specs` are the first and second player's specs as written into the file.
pub fn series_lines(
    played: &[(PlannedMatch, MatchSummary)],
    specs: [&str; 2],
    config: &MatchExperiment,
) -> (Vec<MatchLine>, MatchTally) {
    let (seed, opening_plies, rules) = (config.seed, config.opening_plies, &config.rules);
    let first = config.start_position();
    let mut lines = Vec::with_capacity(2 * played.len() + 1);
    // Matches won by docs/spec.md §5, then by criteria 1-3 alone: the first player's, then the second's.
    let (mut won, mut decided, mut ties, mut ties_to_first) = ([0; 2], [0; 2], 0, 0);
    let (mut plies, mut games_at_cap) = (0, 0);
    let mut sides = [SideGames::default(), SideGames::default()];
    let mut start_of = (u64::MAX, String::new());
    for (pair, (m, s)) in played.iter().enumerate() {
        if start_of.0 != m.seed || start_of.1.is_empty() {
            let start = random_opening_from(&first, opening_plies, derive_seed(m.seed, OPENING_SEED_LABEL), rules);
            start_of = (m.seed, start.to_string());
        }
        for (g, game) in s.games.iter().enumerate() {
            // Game 0: the match's A has Black. The first player is the match's A unless swapped.
            let first_black = (g == 0) != m.swapped;
            let first_color = if first_black { Color::Black } else { Color::White };
            let (black, white) = if first_black { (specs[0], specs[1]) } else { (specs[1], specs[0]) };
            let rec = metrics::game(game);
            let [black_score, white_score] =
                [Color::Black, Color::White].map(|c| benchmark_score(game.outcome, game.plies, c));
            for (i, side) in sides.iter_mut().enumerate() {
                let color = if i == 0 { first_color } else { first_color.opponent() };
                match game.outcome.winner() {
                    None => side.draws += 1,
                    Some(w) if w == color => side.wins += 1,
                    Some(_) => side.losses += 1,
                }
                match color {
                    Color::Black => side.black.push(f64::from(black_score)),
                    Color::White => side.white.push(f64::from(white_score)),
                }
            }
            plies += u64::from(game.plies);
            games_at_cap += u32::from(game.reason == loa_engine::EndReason::PlyCap);
            lines.push(MatchLine::Game(MatchGameRecord {
                pair: pair as u64,
                game: g as u32,
                black: black.to_string(),
                white: white.to_string(),
                first_color: if first_black { loa_records::Color::Black } else { loa_records::Color::White },
                outcome: rec.outcome,
                reason: rec.reason,
                plies: game.plies,
                black_score,
                white_score,
                seed: derive_seed(m.seed, g as u64),
                start: start_of.1.clone(),
                // A worker reports a game's result, not its moves.
                moves: Vec::new(),
            }));
        }
        let winner = usize::from((s.winner == MatchSide::A) == m.swapped);
        won[winner] += 1;
        if s.criterion == Criterion::DefaultToA {
            ties += 1;
            ties_to_first += u32::from(winner == 0);
        } else {
            decided[winner] += 1;
        }
    }
    let [first, second] = sides;
    let games = 2 * played.len() as u32;
    let series = MatchSeriesSummary {
        games,
        matches: played.len() as u32,
        mean_plies: if games == 0 { 0.0 } else { plies as f64 / f64::from(games) },
        seed,
        opening_plies,
        ply_cap: rules.ply_cap,
        sides: [first.summary(specs[0], won[0]), second.summary(specs[1], won[1])],
    };
    lines.push(MatchLine::Summary(series.clone()));
    (lines, MatchTally { series, decided, ties, ties_to_first, games_at_cap })
}

/// One player's games of a series: wins, losses, draws and its benchmark scores by colour.
#[derive(Default)]
struct SideGames {
    wins: u32,
    losses: u32,
    draws: u32,
    black: Vec<f64>,
    white: Vec<f64>,
}

impl SideGames {
    /// Its line in the series summary, as the player `spec` that won `won` matches.
    fn summary(&self, spec: &str, won: u32) -> MatchSideSummary {
        MatchSideSummary {
            spec: spec.to_string(),
            wins: self.wins,
            losses: self.losses,
            draws: self.draws,
            mean_score: mean(&[self.black.clone(), self.white.clone()].concat()),
            mean_score_black: mean(&self.black),
            mean_score_white: mean(&self.white),
            matches_won: won,
        }
    }
}

/// The mean of `values` (0 for none), summed in order.
fn mean(values: &[f64]) -> f64 {
    if values.is_empty() { 0.0 } else { values.iter().sum::<f64>() / values.len() as f64 }
}
