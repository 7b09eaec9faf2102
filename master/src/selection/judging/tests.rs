//! Plans and scores of judging on small hand-made populations and outcomes.

use super::*;
use crate::config::{ConfigError, ExperimentConfig};
use crate::population::SerialCounter;
use loa_engine::tasks::MatchTaskOutcome;
use loa_engine::{Color, Outcome};

#[test]
fn groups_cover_every_candidate_once_with_sizes_within_one() {
    let mut rng = GaRng::from_seed(5);
    for (n, size) in [(32, 8), (30, 8), (17, 4), (16, 16), (5, 2)] {
        let gs = groups(n, size, &mut rng);
        assert_eq!(gs.len(), n.div_ceil(size));
        let mut all: Vec<usize> = gs.iter().flatten().copied().collect();
        all.sort_unstable();
        assert_eq!(all, (0..n).collect::<Vec<_>>(), "n {n} size {size}");
        let (min, max) = (gs.iter().map(Vec::len).min(), gs.iter().map(Vec::len).max());
        assert!(max.unwrap() - min.unwrap() <= 1 && max.unwrap() <= size, "n {n} size {size}: {gs:?}");
    }
}

fn settings() -> JudgingConfig {
    JudgingConfig {
        opponents: 2,
        fixed_opponents: vec!["random:1".into()],
        fixed_matches: 3,
        hall_of_fame: 2,
        opening_plies: 4,
        fitness: Fitness::BenchmarkScore,
        ..JudgingConfig::default()
    }
}

fn judging() -> JudgingConfig {
    settings()
}

fn population(n: usize) -> Vec<Individual> {
    let config = ExperimentConfig { population: n, ..ExperimentConfig::default() };
    let (mut rng, mut serials) = (GaRng::from_seed(2), crate::population::SerialCounter::default());
    crate::generation::initial_population(&config, loa_engine::network::Topology::default(), &mut rng, &mut serials)
        .unwrap()
}

#[test]
fn fixed_matches_share_their_openings_and_champions_never_meet_themselves() {
    let all = population(8);
    let (candidates, hall) = (&all[..6], [all[0].clone(), all[6].clone(), all[7].clone()]);
    let config = ExperimentConfig::default();
    let state = JudgingState { hall_of_fame: hall.to_vec(), ..JudgingState::default() };
    let (judged, tasks) = plan(
        candidates.to_vec(),
        &judging(),
        &state,
        &mut Breeding {
            config: &config,
            generation: 7,
            rng: &mut GaRng::from_seed(1),
            serials: &mut SerialCounter::default(),
        },
    );
    assert_eq!(tasks.len(), 6);
    let fixed_seeds = |t: &MatchTask| -> Vec<u64> {
        let MatchFormat::Pairs(pairs) = &t.format else { panic!("pairs") };
        let fixed = t.entrants.len() - 1;
        pairs.iter().filter(|p| p.b == fixed).map(|p| p.seed).collect()
    };
    for (host, task) in tasks.iter().enumerate() {
        task.validate().unwrap();
        // Itself, 2 drawn, 2 champions, the fixed player; 2 + 2 + 3 matches from 4 plies.
        assert_eq!(task.entrants.len(), 6, "host {host}");
        assert_eq!(task.entrants[0].serial(), candidates[host].serial);
        let MatchFormat::Pairs(pairs) = &task.format else { panic!("pairs") };
        assert_eq!(pairs.len(), 7);
        assert!(pairs.iter().all(|p| p.opening_plies == 4 && p.a == 0));
        // Common random numbers: every candidate meets the fixed player from the same 3
        // openings, and they differ from each other.
        assert_eq!(fixed_seeds(task), fixed_seeds(&tasks[0]));
        let mut distinct = fixed_seeds(task);
        distinct.dedup();
        assert_eq!(distinct.len(), 3);
        assert_eq!(&judged.seats[host][3..], [Seat::Champion, Seat::Champion, Seat::Fixed]);
    }
    // Candidate 0 is also champion 0: its own task draws the other two champions.
    let champions: Vec<u64> = tasks[0].entrants[3..5].iter().map(MatchEntrant::serial).collect();
    assert!(champions.contains(&all[6].serial) && champions.contains(&all[7].serial));
}

#[test]
fn groups_play_round_robins_and_scores_follow_the_benchmark_rule() {
    use loa_engine::game::{Criterion, MatchSide};
    use loa_engine::tasks::{GameSummary, MatchSummary};
    let candidates = population(4);
    let settings = JudgingConfig { opponents: 0, groups: 2, fixed_matches: 1, hall_of_fame: 0, ..settings() };
    let judging = settings;
    let state = JudgingState::default();
    let (judged, tasks) = plan(
        candidates,
        &judging,
        &state,
        &mut Breeding {
            config: &ExperimentConfig::default(),
            generation: 1,
            rng: &mut GaRng::from_seed(3),
            serials: &mut SerialCounter::default(),
        },
    );
    // Two groups of two (one match each), then 4 host tasks against the fixed player.
    assert_eq!(tasks.len(), 6);
    let matches = |t: &MatchTask| match &t.format {
        MatchFormat::Pairs(pairs) => pairs.len(),
        MatchFormat::Knockout { .. } => 0,
    };
    assert!(tasks[..2].iter().all(|t| t.entrants.len() == 2 && matches(t) == 1));
    assert!(tasks[2..].iter().all(|t| t.entrants.len() == 2));
    let game = |outcome, plies| GameSummary { outcome, reason: loa_engine::EndReason::Connected, plies };
    let summary =
        |g0, g1| MatchSummary { a: 0, b: 1, winner: MatchSide::A, criterion: Criterion::FasterWin, games: [g0, g1] };
    // Group matches: A wins as Black in 30 plies, then a draw. Fixed: each candidate loses as
    // Black in 20 plies and wins as White in 50.
    let mut outcomes =
        vec![
            MatchTaskOutcome { matches: vec![summary(game(Outcome::Win(Color::Black), 30), game(Outcome::Draw, 100))] };
            2
        ];
    outcomes.extend((0..4).map(|_| MatchTaskOutcome {
        matches: vec![summary(game(Outcome::Win(Color::White), 20), game(Outcome::Win(Color::White), 50))],
    }));
    let scores = judged.scores(Fitness::BenchmarkScore, &outcomes).unwrap();
    // Group A: 170 + 100; group B: 30 + 100; every candidate vs fixed: 20 + 150.
    let a_of_group = |g: usize| match judged.seats[g][0] {
        Seat::Candidate(c) => c,
        _ => panic!("a candidate"),
    };
    for c in 0..4 {
        let is_a = (0..2).any(|g| a_of_group(g) == c);
        let expected = if is_a { 270 } else { 130 } + 170;
        assert_eq!((scores.total[c], scores.games[c]), (expected, 4), "candidate {c}");
    }
    assert_eq!(scores.vs_fixed, (4 * 170, 8));
    let summary = scores.summary();
    assert_eq!((summary.best, summary.mean, summary.vs_fixed), (110.0, 92.5, Some(85.0)));
    assert_eq!((summary.rung, summary.vs_rung), (None, None));
}

/// Plans generation `generation` of `candidates` against `hall` under `settings`, with the
/// run's generator seeded 1; also gives the generator's next number after planning.
fn planned(
    candidates: &[Individual],
    hall: &[Individual],
    settings: &JudgingConfig,
    generation: u64,
) -> (Judged, Vec<MatchTask>, u64) {
    let state = JudgingState { hall_of_fame: hall.to_vec(), ..JudgingState::default() };
    let mut rng = GaRng::from_seed(1);
    let config = ExperimentConfig::default();
    let mut b = Breeding { config: &config, generation, rng: &mut rng, serials: &mut SerialCounter::default() };
    let (judged, tasks) = plan(candidates.to_vec(), settings, &state, &mut b);
    (judged, tasks, rng.next_u64())
}

/// Each task's champions: (entrant serial, the seeds of its matches), in seat order.
fn champion_matches(judged: &Judged, tasks: &[MatchTask]) -> Vec<Vec<(u64, Vec<u64>)>> {
    let hosts = judged.seats.iter().zip(tasks);
    hosts
        .map(|(seat, task)| {
            let MatchFormat::Pairs(pairs) = &task.format else { panic!("pairs") };
            (0..seat.len())
                .filter(|&b| seat[b] == Seat::Champion)
                .map(|b| (task.entrants[b].serial(), pairs.iter().filter(|p| p.b == b).map(|p| p.seed).collect()))
                .collect()
        })
        .collect()
}

fn common() -> JudgingConfig {
    JudgingConfig { hall_of_fame_draw: HallOfFameDraw::Common, ..settings() }
}

#[test]
fn under_the_common_draw_every_candidate_meets_the_same_champions_from_the_same_openings() {
    let all = population(10);
    let (candidates, hall) = (&all[..6], &all[6..]);
    let (judged, tasks, _) = planned(candidates, hall, &common(), 7);
    let met = champion_matches(&judged, &tasks);
    for (host, task) in tasks.iter().enumerate() {
        task.validate().unwrap();
        // Itself, 2 drawn, 2 champions, the fixed player; 2 + 2 × 3 + 3 matches.
        assert_eq!(task.entrants.len(), 6, "host {host}");
        let MatchFormat::Pairs(pairs) = &task.format else { panic!("pairs") };
        assert_eq!(pairs.len(), 11, "host {host}");
        assert_eq!(met[host], met[0], "host {host}");
    }
    // Two distinct champions of the hall, 3 matches each, 6 distinct openings.
    let serials: Vec<u64> = met[0].iter().map(|m| m.0).collect();
    assert!(serials[0] != serials[1] && serials.iter().all(|s| hall.iter().any(|h| h.serial == *s)));
    let mut seeds: Vec<u64> = met[0].iter().flat_map(|m| m.1.clone()).collect();
    assert_eq!(seeds.len(), 6);
    seeds.sort_unstable();
    seeds.dedup();
    assert_eq!(seeds.len(), 6);
    // Per candidate, as before: the champions differ between hosts, one match each.
    let (judged, tasks, _) = planned(candidates, hall, &settings(), 7);
    let met = champion_matches(&judged, &tasks);
    assert!(met.iter().all(|m| m.len() == 2 && m.iter().all(|c| c.1.len() == 1)));
    assert!(met.iter().any(|m| m != &met[0]), "{met:?}");
}

#[test]
fn the_common_draw_leaves_the_runs_generator_as_a_run_without_champions_does() {
    let all = population(10);
    let (candidates, hall) = (&all[..6], &all[6..]);
    let without = JudgingConfig { hall_of_fame: 0, ..settings() };
    let (.., after_without) = planned(candidates, hall, &without, 7);
    let (.., after_common) = planned(candidates, hall, &common(), 7);
    let (.., after_per_candidate) = planned(candidates, hall, &settings(), 7);
    assert_eq!(after_common, after_without);
    assert_ne!(after_per_candidate, after_without);
    // Another generation draws again, from its own openings.
    let (j7, t7, _) = planned(candidates, hall, &common(), 7);
    let (j8, t8, _) = planned(candidates, hall, &common(), 8);
    let seeds = |j: &Judged, t: &[MatchTask]| -> Vec<u64> {
        champion_matches(j, t)[0].iter().flat_map(|m| m.1.clone()).collect()
    };
    assert!(seeds(&j7, &t7).iter().all(|s| !seeds(&j8, &t8).contains(s)));
}

#[test]
fn champions_come_from_the_window_of_the_most_recent() {
    let all = population(12);
    let (candidates, hall) = (&all[..6], &all[6..]);
    let recent: Vec<u64> = hall[4..].iter().map(|h| h.serial).collect();
    for draw in [HallOfFameDraw::PerCandidate, HallOfFameDraw::Common] {
        let settings = JudgingConfig { hall_of_fame_draw: draw, hall_of_fame_window: 2, ..settings() };
        for generation in 1..6 {
            let (judged, tasks, _) = planned(candidates, hall, &settings, generation);
            for met in champion_matches(&judged, &tasks) {
                let mut serials: Vec<u64> = met.iter().map(|m| m.0).collect();
                serials.sort_unstable();
                assert_eq!(serials, recent, "{draw:?}, generation {generation}");
            }
        }
    }
}

#[test]
fn a_commonly_drawn_champion_that_is_a_candidate_does_not_meet_itself() {
    let all = population(8);
    let (candidates, hall) = (&all[..6], [all[0].clone(), all[6].clone(), all[7].clone()]);
    let settings = JudgingConfig { opponents: 0, hall_of_fame: 3, ..common() };
    let (judged, tasks, _) = planned(candidates, &hall, &settings, 3);
    let met = champion_matches(&judged, &tasks);
    assert!(met[0].iter().all(|m| m.0 != all[0].serial) && met[0].len() == 2);
    assert!(met[1..].iter().all(|m| m.len() == 3 && m.iter().any(|c| c.0 == all[0].serial)));
    // The openings of a champion do not depend on who else is met.
    assert!(met[0].iter().all(|m| met[1].contains(m)));
    tasks.iter().for_each(|t| t.validate().unwrap());
}

#[test]
fn hall_of_fame_settings_are_checked() {
    let why = |j: JudgingConfig| match j.validate("s", 8, Default::default()) {
        Err(ConfigError::Invalid { key, why }) => format!("{key}: {why}"),
        other => panic!("{other:?}"),
    };
    let none = JudgingConfig { hall_of_fame: 0, ..common() };
    assert!(why(none.clone()).starts_with("s.hall_of_fame_draw: has no effect with hall_of_fame = 0"));
    let window = JudgingConfig { hall_of_fame_draw: HallOfFameDraw::PerCandidate, hall_of_fame_window: 3, ..none };
    assert!(why(window).starts_with("s.hall_of_fame_window: has no effect"));
    let small = JudgingConfig { hall_of_fame_window: 1, ..common() };
    assert!(why(small).contains("at least hall_of_fame (2)"));
    // 2 drawn + 2 champions × 100 + 100 fixed: too many matches under the common draw only.
    let many = JudgingConfig { fixed_matches: 100, ..common() };
    assert!(why(many.clone()).starts_with("s.fixed_matches: a candidate's task would have 302 matches"));
    JudgingConfig { hall_of_fame_draw: HallOfFameDraw::PerCandidate, ..many }
        .validate("s", 8, Default::default())
        .unwrap();
    JudgingConfig { hall_of_fame_window: 2, ..common() }.validate("s", 8, Default::default()).unwrap();
}

#[test]
fn opponents_and_openings_are_checked_against_the_board() {
    let small = loa_engine::BoardSize::MIN;
    let why = |j: JudgingConfig| match j.validate("s", 8, small) {
        Err(ConfigError::Invalid { key, why }) => format!("{key}: {why}"),
        other => panic!("{other:?}"),
    };
    let ladder = JudgingConfig { ladder: vec!["aloa:1".into(), "randomann:2:7".into()], ..common() };
    assert!(ladder.validate("s", 8, Default::default()).is_ok());
    let refusal = why(ladder);
    assert!(
        refusal.starts_with("s.ladder: `randomann:2:7`: the network board-nonad-100-20-1 reads the 8x8"),
        "{refusal}"
    );
    let long = JudgingConfig { opening_plies: 7, ..common() };
    assert!(why(long).starts_with("s.opening_plies: must be at most 6 on the 5x5 board"));
    JudgingConfig { opening_plies: 6, ..common() }.validate("s", 8, small).unwrap();
}

#[test]
fn the_noise_signal_and_reliability_follow_the_hand_computation() {
    use loa_engine::game::{Criterion, MatchSide};
    use loa_engine::tasks::{GameSummary, MatchSummary};
    let settings = JudgingConfig {
        opponents: 0,
        hall_of_fame: 0,
        fitness: Fitness::Points,
        fixed_matches: 2,
        report_noise: true,
        ..settings()
    };
    let (judged, tasks, _) = planned(&population(3), &[], &settings, 1);
    assert!(tasks.iter().all(|t| t.entrants.len() == 2));
    let game = |outcome| GameSummary { outcome, reason: loa_engine::EndReason::Connected, plies: 30 };
    let two = |g0, g1| MatchSummary {
        a: 0,
        b: 1,
        winner: MatchSide::A,
        criterion: Criterion::FasterWin,
        games: [game(g0), game(g1)],
    };
    let (black, white, draw) = (Outcome::Win(Color::Black), Outcome::Win(Color::White), Outcome::Draw);
    // The candidate is Black in game 0, White in game 1. In points per game: candidate 0 wins
    // all four (1, 1, 1, 1), candidate 1 wins, loses and draws twice (1, 0, ½, ½), candidate 2
    // loses all four (0, 0, 0, 0).
    let outcomes = vec![
        MatchTaskOutcome { matches: vec![two(black, white), two(black, white)] },
        MatchTaskOutcome { matches: vec![two(black, black), two(draw, draw)] },
        MatchTaskOutcome { matches: vec![two(white, black), two(white, black)] },
    ];
    let scores = judged.scores(Fitness::Points, &outcomes).unwrap();
    // By hand, in points: means 1, ½, 0. Candidate 1's sample variance is
    // (¼ + ¼ + 0 + 0) / 3 = 1/6, so its mean's is 1/6 / 4 = 1/24; the others' are 0. Noise:
    // (0 + 1/24 + 0) / 3 = 1/72. Signal: ((1 − ½)² + 0 + (0 − ½)²) / 2 = ¼. Reliability:
    // (¼ − 1/72) / ¼ = 17/18.
    let summary = scores.summary();
    let close = |x: Option<f64>, y: f64| x.is_some_and(|x| (x - y).abs() < 1e-12);
    assert!(close(summary.noise_sd, (1.0f64 / 72.0).sqrt()), "{summary:?}");
    assert!(close(summary.signal_sd, 0.5), "{summary:?}");
    assert!(close(summary.reliability, 17.0 / 18.0), "{summary:?}");
    // In half-points, the unit of the scores: variances 4 times as large.
    let noise = scores.noise().unwrap();
    assert!((noise.noise - 4.0 / 72.0).abs() < 1e-12 && (noise.signal - 1.0).abs() < 1e-12);
    // Not asked for, not written. Equal candidates have no reliability: each with games of
    // (2, 2, 0, 0) half-points, sample variance 4 / 3, its mean's 4 / 3 / 4 = 1/3.
    let quiet = Scores { report_noise: false, ..scores.clone() }.summary();
    assert_eq!((quiet.noise_sd, quiet.signal_sd, quiet.reliability), (None, None, None));
    let equal = Scores { total: vec![4; 3], squares: vec![8; 3], ..scores };
    assert_eq!(equal.noise().map(|n| (n.noise, n.signal, n.reliability())), Some((1.0 / 3.0, 0.0, None)));
}
