//! Round trips of real tasks and outcomes, and one refusal per validated field.

use super::*;
use loa_engine::network::random_uniform;

fn entrant(serial: u64) -> Entrant {
    Entrant { serial, chromosome: Arc::new(random_uniform(serial)) }
}

fn rules() -> Rules {
    Rules { both_connected: BothConnected::MoverWins, no_moves: NoMoves::Passes, ply_cap: 30 }
}

fn tournament() -> Task {
    Task::Tournament(TournamentTask { entrants: (10..14).map(entrant).collect(), rules: rules(), depth: 1, seed: 7 })
}

fn benchmark(reference: Reference) -> Task {
    Task::Benchmark(BenchmarkTask { entrant: entrant(3), reference, depth: 1, rules: Rules::default(), seed: 99 })
}

fn tournament_proto() -> pb::TournamentTask {
    match task_to_proto(1, &tournament()).kind {
        Some(pb::task::Kind::Tournament(t)) => t,
        other => panic!("not a tournament: {other:?}"),
    }
}

fn refused(t: pb::TournamentTask) -> String {
    let err = task_from_proto(pb::Task { id: 1, kind: Some(pb::task::Kind::Tournament(t)) }).unwrap_err();
    err.to_string()
}

#[test]
fn tasks_and_outcomes_survive_the_round_trip() {
    let references = [
        Reference::Aloa { evaluator: AloaKind::Quad, depth: 2 },
        Reference::Aloa { evaluator: AloaKind::Normal, depth: 1 },
        Reference::Random { depth: 3 },
    ];
    let tasks = std::iter::once(tournament()).chain(references.map(benchmark));
    for (i, task) in tasks.enumerate() {
        let (id, back) = task_from_proto(task_to_proto(40 + i as u64, &task)).unwrap();
        assert_eq!((id, &back), (40 + i as u64, &task));
        if i > 1 {
            continue; // playing every reference adds time, not coverage of the conversions
        }
        let result = Ok(task.run().unwrap());
        assert_eq!(result_from_proto(Some(&result_to_proto(&result))).unwrap(), result);
    }
    let failure = Err(loa_engine::tasks::TaskFailure::Reported("a worker ran out of memory".to_owned()));
    assert_eq!(result_from_proto(Some(&result_to_proto(&failure))).unwrap(), failure);
    // A worker's own failure travels as its message and arrives as a report.
    let invalid = Err(loa_engine::tasks::TaskFailure::Invalid(loa_engine::tasks::TaskError::Depth(13)));
    let arrived = result_from_proto(Some(&result_to_proto(&invalid))).unwrap();
    assert_eq!(
        arrived,
        Err(loa_engine::tasks::TaskFailure::Reported("invalid task: search depth 13 is outside 1..=12".into()))
    );
}

#[test]
fn bad_tasks_are_refused_naming_the_field() {
    let mut t = tournament_proto();
    t.entrants.pop();
    assert!(refused(t).contains("tournament.entrants: a tournament needs 4 entrants, got 3"));

    let mut t = tournament_proto();
    t.entrants[2].weights[17] = f32::NAN;
    assert!(refused(t).contains("tournament.entrants[2].weights[17]: NaN is not finite"));

    let mut t = tournament_proto();
    t.entrants[1].weights.push(0.5);
    assert!(refused(t).contains("tournament.entrants[1].weights: 2042 weights"));

    let mut t = tournament_proto();
    t.entrants[0].weights[0] = 1e30;
    assert!(refused(t).starts_with("tournament.entrants[0].weights"));

    let mut t = tournament_proto();
    t.entrants[3].topology = "board-200-40-1".into();
    assert!(refused(t).contains("tournament.entrants[3].topology: unknown topology"));

    let mut t = tournament_proto();
    t.entrants[3].serial = t.entrants[0].serial;
    assert!(refused(t).contains("tournament.entrants[3].serial"));

    for bad in [0, 13] {
        let mut t = tournament_proto();
        t.depth = bad;
        assert!(refused(t).contains(&format!("tournament.depth: search depth {bad} is outside 1..=12")));
    }

    let mut t = tournament_proto();
    t.rules = None;
    assert!(refused(t).contains("tournament.rules: missing"));

    let mut t = tournament_proto();
    t.rules.as_mut().unwrap().no_moves = 9;
    assert!(refused(t).contains("tournament.rules.no_moves: unknown value 9"));

    let mut t = tournament_proto();
    t.rules.as_mut().unwrap().both_connected = 0;
    assert!(refused(t).contains("tournament.rules.both_connected: unspecified"));

    let err = task_from_proto(pb::Task { id: 3, kind: None }).unwrap_err();
    assert_eq!(err.field, "kind");
}

#[test]
fn bad_benchmarks_are_refused() {
    let Some(pb::task::Kind::Benchmark(good)) = task_to_proto(5, &benchmark(Reference::Random { depth: 2 })).kind
    else {
        panic!("not a benchmark")
    };
    let check = |b: pb::BenchmarkTask, expected: &str| {
        let err = task_from_proto(pb::Task { id: 5, kind: Some(pb::task::Kind::Benchmark(b)) }).unwrap_err();
        assert!(err.to_string().contains(expected), "{err}");
    };
    check(pb::BenchmarkTask { reference_depth: 13, ..good.clone() }, "benchmark.reference_depth");
    check(pb::BenchmarkTask { reference: 0, ..good.clone() }, "benchmark.reference: unspecified");
    check(pb::BenchmarkTask { reference: 4, ..good.clone() }, "benchmark.reference: unknown value 4");
    check(pb::BenchmarkTask { entrant: None, ..good.clone() }, "benchmark.entrant: missing");
    check(pb::BenchmarkTask { depth: 0, ..good }, "benchmark.depth");
}

fn outcome_proto() -> pb::TournamentOutcome {
    let outcome = tournament().run().unwrap();
    match result_to_proto(&Ok(outcome)) {
        pb::complete_request::Result::Tournament(t) => t,
        other => panic!("not a tournament outcome: {other:?}"),
    }
}

fn outcome_refused(t: pb::TournamentOutcome) -> String {
    result_from_proto(Some(&pb::complete_request::Result::Tournament(t))).unwrap_err().to_string()
}

#[test]
fn bad_outcomes_are_refused_naming_the_field() {
    let good = outcome_proto();
    assert!(result_from_proto(Some(&pb::complete_request::Result::Tournament(good.clone()))).is_ok());

    let mut t = good.clone();
    t.winner = 7;
    assert!(outcome_refused(t).contains("tournament.winner: entrant index 7 is not below 4"));

    let mut t = good.clone();
    t.winner = (0..4).find(|&w| w != good.winner).unwrap();
    assert!(outcome_refused(t).contains("did not win the final"));

    let mut t = good.clone();
    t.matches.pop();
    assert!(outcome_refused(t).contains("tournament.matches: 3 matches expected, got 2"));

    let mut t = good.clone();
    t.matches[1].b = t.matches[1].a;
    assert!(outcome_refused(t).contains("tournament.matches[1].b"));

    let mut t = good.clone();
    t.matches[2].games.truncate(1);
    assert!(outcome_refused(t).contains("tournament.matches[2].games: 2 games expected, got 1"));

    let mut t = good.clone();
    t.matches[0].games[1].reason = 42;
    assert!(outcome_refused(t).contains("tournament.matches[0].games[1].reason: unknown value 42"));

    let mut t = good;
    t.matches[0].criterion = 0;
    assert!(outcome_refused(t).contains("tournament.matches[0].criterion: unspecified"));

    let bad = pb::BenchmarkOutcome { games: vec![], scores: vec![1, 2] };
    let err = result_from_proto(Some(&pb::complete_request::Result::Benchmark(bad))).unwrap_err();
    assert_eq!(err.field, "benchmark.games");
    assert_eq!(result_from_proto(None).unwrap_err().field, "result");
}
