//! Round trips of real tasks and outcomes, and one refusal per validated field of networks,
//! rules and outcomes (fixed players and formats: `matches/tests.rs`).

use super::match_only::{task_from_proto, task_to_proto};
use super::*;
use loa_engine::network::random_uniform;
use loa_engine::tasks::{MatchEntrant, MatchFormat, MatchTask, TaskError};

fn rules() -> Rules {
    Rules { both_connected: BothConnected::MoverWins, no_moves: NoMoves::Passes, ply_cap: 30 }
}

/// The thesis's tournament as a match task: a knockout of four networks.
fn knockout() -> MatchTask {
    MatchTask {
        entrants: (10..14)
            .map(|serial| MatchEntrant::Network { serial, chromosome: Arc::new(random_uniform(serial)) })
            .collect(),
        network_depth: 1,
        rules: rules(),
        board: Default::default(),
        start: Default::default(),
        format: MatchFormat::Knockout { seed: 7 },
    }
}

fn refused(t: pb::Task) -> String {
    task_from_proto(t, &|_| None).unwrap_err().to_string()
}

/// The wire form of `knockout()` with network `i` changed by `change`.
fn with_network(i: usize, change: impl FnOnce(&mut pb::Entrant)) -> pb::Task {
    let mut t = task_to_proto(1, &knockout(), &mut |_| Sending::Weights);
    let Some(pb::match_entrant::Kind::Network(n)) = t.entrants[i].kind.as_mut() else { panic!("a network") };
    change(n);
    t
}

#[test]
fn tasks_and_outcomes_survive_the_round_trip() {
    let task = knockout();
    let (id, back) = task_from_proto(task_to_proto(40, &task, &mut |_| Sending::Weights), &|_| None).unwrap();
    assert_eq!((id, &back), (40, &task));
    let result = Ok(task.run().unwrap().into());
    assert_eq!(outcome_from_proto(&outcome_to_proto(40, &result, 0)).unwrap(), (40, 0, result));
    let failure = Err(TaskFailure::Reported("a worker ran out of memory".to_owned()));
    assert_eq!(outcome_from_proto(&outcome_to_proto(41, &failure, 9)).unwrap(), (41, 9, failure));
    // A worker's own failure travels as its message and arrives as a report.
    let invalid = Err(TaskFailure::Invalid(TaskError::Depth(13)));
    let (_, _, arrived) = outcome_from_proto(&outcome_to_proto(42, &invalid, 0)).unwrap();
    assert_eq!(arrived, Err(TaskFailure::Reported("invalid task: search depth 13 is outside 1..=12".into())));
}

#[test]
fn bad_networks_and_rules_are_refused_naming_the_field() {
    let nan = f32::NAN.to_le_bytes();
    let m = with_network(2, |n| n.weights[17 * 4..18 * 4].copy_from_slice(&nan));
    assert_eq!(refused(m), "entrants[2].network.weights[17]: NaN is not finite");
    let m = with_network(1, |n| n.weights.extend([0; 4]));
    assert!(refused(m).starts_with("entrants[1].network.weights: 2042 weights"));
    let m = with_network(1, |n| n.weights.push(0));
    assert_eq!(refused(m), "entrants[1].network.weights: 8165 bytes, not 4 per weight");
    let m = with_network(0, |n| n.weights[..4].copy_from_slice(&1e30f32.to_le_bytes()));
    assert!(refused(m).starts_with("entrants[0].network.weights: "));
    let m = with_network(3, |n| n.topology = "board-200-40-1".into());
    assert!(refused(m).starts_with("entrants[3].network.topology: unknown topology"));
    // Weights must hash to the id they come with, and come with one.
    let m = with_network(3, |n| n.id = Some(id_to_proto(random_uniform(99).id())));
    assert!(refused(m).contains("entrants[3].network.id: the weights hash to"));
    let m = with_network(3, |n| n.id = None);
    assert_eq!(refused(m), "entrants[3].network.id: missing");
    // An id alone names a chromosome the receiver must hold.
    let m = with_network(0, |n| n.weights.clear());
    let why = refused(m);
    assert!(why.starts_with("entrants[0].network.id: chromosome") && why.contains("neither sent"), "{why}");

    let m = with_network(3, |n| n.serial = 10);
    assert_eq!(refused(m), "entrants[3].network.serial: serial 10 appears twice");
    let mut t = task_to_proto(1, &knockout(), &mut |_| Sending::Weights);
    t.rules = None;
    assert_eq!(refused(t), "rules: missing");
    let mut t = task_to_proto(1, &knockout(), &mut |_| Sending::Weights);
    t.rules.as_mut().unwrap().no_moves = 9;
    assert_eq!(refused(t), "rules.no_moves: unknown value 9");
    let mut t = task_to_proto(1, &knockout(), &mut |_| Sending::Weights);
    t.rules.as_mut().unwrap().both_connected = 0;
    assert_eq!(refused(t), "rules.both_connected: unspecified");
}

#[test]
fn bad_outcomes_are_refused_naming_the_field() {
    let result = Ok(knockout().run().unwrap().into());
    let good = outcome_to_proto(5, &result, 0);
    let refused = |change: &dyn Fn(&mut pb::MatchOutcome)| {
        let mut o = good.clone();
        let Some(pb::outcome::Result::Match(m)) = o.result.as_mut() else { panic!("a match outcome") };
        change(m);
        outcome_from_proto(&o).unwrap_err().to_string()
    };
    assert_eq!(refused(&|m| m.matches[1].a = 16), "match.matches[1].a: entrant index 16 is not below 16");
    assert!(refused(&|m| m.matches[2].b = m.matches[2].a).starts_with("match.matches[2].b: entrant"));
    assert_eq!(
        refused(&|m| {
            m.matches[0].games.pop();
        }),
        "match.matches[0].games: 2 games expected, got 1"
    );
    assert_eq!(refused(&|m| m.matches[1].winner = 0), "match.matches[1].winner: unspecified");
    assert_eq!(refused(&|m| m.matches[0].criterion = 0), "match.matches[0].criterion: unspecified");
    assert_eq!(refused(&|m| m.matches[1].games[0].reason = 42), "match.matches[1].games[0].reason: unknown value 42");
    assert_eq!(refused(&|m| m.matches.clear()), "match.matches: 1 to 256 matches expected, got 0");
    let none = pb::Outcome { task_id: 5, result: None, leased_to: 0 };
    assert_eq!(outcome_from_proto(&none).unwrap_err().field, "result");
}

/// Each table pairs every specified value of its wire enum (1 to `specified`) with a distinct
/// engine value, and refuses 0 and the values past it.
fn pairs_every_wire_value<W, E>(table: &Table<W, E>, specified: i32)
where
    W: Copy + Into<i32> + TryFrom<i32> + PartialEq,
    E: Copy + PartialEq + std::fmt::Debug,
{
    assert_eq!(table.len(), specified as usize);
    for value in 1..=specified {
        let engine = from_wire(table, "f", value).unwrap();
        assert_eq!(to_wire(table, engine), value, "{engine:?}");
    }
    assert_eq!(from_wire(table, "f", 0).unwrap_err().problem, "unspecified");
    assert_eq!(from_wire(table, "f", specified + 1).unwrap_err().problem, format!("unknown value {}", specified + 1));
}

#[test]
fn enum_tables_pair_every_wire_value_both_ways() {
    pairs_every_wire_value(BOTH_CONNECTED, 2);
    pairs_every_wire_value(NO_MOVES, 2);
    pairs_every_wire_value(OUTCOMES, 3);
    pairs_every_wire_value(REASONS, 4);
    pairs_every_wire_value(SIDES, 2);
    pairs_every_wire_value(CRITERIA, 4);
}
