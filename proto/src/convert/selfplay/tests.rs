//! Self-play tasks and outcomes on the wire: round trips of real ones, and one refusal per
//! validated field.

use crate::convert::{
    Sending, outcome_from_proto, outcome_size_bound, outcome_to_proto, task_from_proto, task_to_proto,
};
use crate::pb;
use loa_engine::network::random_uniform;
use loa_engine::tasks::{SelfPlayGame, SelfPlayTask, Task, TaskOutcome, TaskResult};
use loa_engine::{BoardSize, Rules, Start};
use prost::Message;
use std::sync::Arc;

fn task(leaves: bool) -> SelfPlayTask {
    SelfPlayTask {
        serial: 12,
        network: Arc::new(random_uniform(4)),
        depth: 2,
        rules: Rules { ply_cap: 40, ..Rules::default() },
        board: BoardSize::STANDARD,
        start: Start::Standard,
        games: vec![SelfPlayGame { seed: 5, opening_plies: 4 }, SelfPlayGame { seed: 6, opening_plies: 0 }],
        leaves,
    }
}

fn wire(t: &SelfPlayTask) -> pb::Task {
    task_to_proto(3, &Task::SelfPlay(t.clone()), &mut |_| Sending::Weights)
}

fn refused(t: pb::Task) -> String {
    task_from_proto(t, &|_| None).unwrap_err().to_string()
}

#[test]
fn tasks_and_outcomes_round_trip() {
    for leaves in [false, true] {
        let t = task(leaves);
        let (id, back) = task_from_proto(wire(&t), &|_| None).unwrap();
        assert_eq!((id, &back), (3, &Task::SelfPlay(t.clone())));
        let result: TaskResult = Ok(back.run().unwrap());
        let TaskOutcome::SelfPlay(played) = result.as_ref().unwrap().clone() else { panic!("games") };
        assert!(played.games.iter().all(|g| g.leaves.len() == if leaves { g.moves.len() } else { 0 }));
        let message = outcome_to_proto(3, &result, 0);
        assert_eq!(outcome_from_proto(&message).unwrap(), (3, 0, result.clone()));
        // The bound a worker fills its messages with holds.
        assert!(message.encoded_len() <= outcome_size_bound(&result), "{} bytes", message.encoded_len());
    }
}

#[test]
fn bad_tasks_are_refused_naming_the_field() {
    let good = wire(&task(true));
    let mut two = good.clone();
    two.entrants.push(two.entrants[0].clone());
    assert_eq!(refused(two), "entrants: a self-play task has 1 entrant, got 2");
    let fixed = pb::MatchEntrant {
        kind: Some(pb::match_entrant::Kind::Fixed(pb::FixedEntrant { serial: 1, player: "aloa:1".into() })),
    };
    assert_eq!(
        refused(pb::Task { entrants: vec![fixed], ..good.clone() }),
        "entrants[0]: a self-play task's entrant is a network"
    );
    let games = |edit: &dyn Fn(&mut Vec<pb::SelfPlayGame>)| {
        let mut t = good.clone();
        let Some(pb::task::Format::SelfPlay(s)) = t.format.as_mut() else { panic!("self-play") };
        edit(&mut s.games);
        t
    };
    assert_eq!(refused(games(&|g| g.clear())), "format.self_play.games: 1 to 64 games expected, got 0");
    assert_eq!(
        refused(games(&|g| g[1].opening_plies = 41)),
        "format.self_play.games[1].opening_plies: 41 opening plies, at most 40 on this board"
    );
    let rules = |ply_cap| pb::Task { rules: Some(pb::Rules { ply_cap, ..good.rules.unwrap() }), ..good.clone() };
    assert!(refused(rules(0)).starts_with("rules.ply_cap: a self-play task needs a ply cap"));
    assert!(refused(rules(10_000)).starts_with("rules.ply_cap: a self-play task's games could hold 40000 moves"));
    assert!(refused(pb::Task { network_depth: 0, ..good.clone() }).starts_with("network_depth:"));
    let small = pb::Task { board_side: 6, ..good };
    assert!(refused(small).starts_with("entrants[0].network.topology:"), "a network of another board");
}

#[test]
fn bad_outcomes_are_refused_naming_the_field() {
    let result: TaskResult = Ok(Task::SelfPlay(task(true)).run().unwrap());
    let good = outcome_to_proto(3, &result, 0);
    let edit = |change: &dyn Fn(&mut pb::SelfPlayOutcome)| {
        let mut o = good.clone();
        let Some(pb::outcome::Result::SelfPlay(s)) = o.result.as_mut() else { panic!("games") };
        change(s);
        outcome_from_proto(&o).unwrap_err().to_string()
    };
    assert_eq!(edit(&|s| s.games.clear()), "self_play.games: 1 to 64 games expected, got 0");
    assert_eq!(edit(&|s| s.games[1].outcome = 0), "self_play.games[1].outcome: unspecified");
    let Some(pb::outcome::Result::SelfPlay(s)) = good.result.as_ref() else { panic!("games") };
    let odd = format!("self_play.games[0].moves: {} bytes, not 2 a move", s.games[0].moves.len() + 1);
    assert_eq!(edit(&|s| s.games[0].moves.push(7)), odd);
    assert_eq!(
        edit(&|s| s.games[0].moves[..2].copy_from_slice(&0x4000u16.to_le_bytes())),
        "self_play.games[0].moves[0]: 0x4000 is no move"
    );
    assert_eq!(
        edit(&|s| s.games[0].leaves[0] = 12),
        "self_play.games[0].leaves[0]: 12 moves, longer than any search's variation"
    );
    assert_eq!(
        edit(&|s| s.games[0].leaves.push(1)).split(": ").nth(1).map(str::to_owned),
        Some("1 moves announced, fewer sent".to_owned())
    );
}
