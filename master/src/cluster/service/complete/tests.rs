//! A batch of outcomes is answered as its requests one after another would be: refusals,
//! drops and leases included.

use super::*;
use crate::cluster::Counters;
use crate::scheduler::Scheduler;
use loa_engine::tasks::{FixedPlayer, MatchEntrant, MatchFormat, MatchTask, TaskFailure, TournamentTask};
use loa_proto::convert::result_to_proto;
use pb::master_server::Master;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

/// A two-player knockout of random players: quick to play, and checked against its outcome.
fn pair() -> Task {
    let fixed = |serial| MatchEntrant::Fixed { serial, player: FixedPlayer::Random { depth: 1, salt: serial } };
    Task::Match(MatchTask {
        entrants: vec![fixed(1), fixed(2)],
        network_depth: 1,
        rules: Default::default(),
        format: MatchFormat::Knockout { seed: 9 },
    })
}

/// A service with workers `a` and `b` registered (their wire ids), tasks 0-7 submitted (0-5
/// tournaments, 6-7 two-player match tasks), tasks 0-2 leased to `a` and 3 to `b`.
fn service() -> (MasterService, u64, u64) {
    let scheduler = Arc::new(Scheduler::new(Duration::from_secs(60)));
    let service = MasterService::new(Arc::clone(&scheduler), Duration::from_secs(60), Arc::new(Counters::default()));
    let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
    let register = |name: &str| {
        let request = pb::RegisterRequest { name: name.into(), slots: 1, ..Default::default() };
        runtime.block_on(service.register(tonic::Request::new(request))).unwrap().into_inner().worker_id
    };
    let (a, b) = (register("a"), register("b"));
    let tournament =
        Task::Tournament(TournamentTask { entrants: Vec::new(), rules: Default::default(), depth: 1, seed: 0 });
    let mut tasks: Vec<(u64, Task)> = (0..6).map(|id| (id, tournament.clone())).collect();
    tasks.extend([(6, pair()), (7, pair())]);
    scheduler.submit(tasks);
    assert_eq!(scheduler.lease(a & 0xffff_ffff, 3).len(), 3);
    assert_eq!(scheduler.lease(b & 0xffff_ffff, 1).len(), 1);
    (service, a, b)
}

/// What an answer says: its completion and the ids of the tasks it leased, or its status code.
fn said(answer: &pb::DeliverReply) -> Result<(i32, Vec<u64>), tonic::Code> {
    match &answer.answer {
        Some(pb::deliver_reply::Answer::Reply(r)) => Ok((r.completion, r.tasks.iter().map(|t| t.id).collect())),
        Some(pb::deliver_reply::Answer::Error(e)) => Err(tonic::Code::from_i32(e.code)),
        None => Err(tonic::Code::Unknown),
    }
}

#[test]
fn a_batch_is_answered_as_its_requests_one_by_one() {
    // A played match task's outcome, and one that does not fit it (the sides swapped).
    let Ok(TaskOutcome::Match(played)) = pair().run() else { panic!("a match task plays") };
    let mut swapped = played.clone();
    let m = &mut swapped.matches[0];
    (m.a, m.b) = (m.b, m.a);
    let failure = || Some(result_to_proto(&Err(TaskFailure::Reported("x".into()))));
    let requests = |a: u64, b: u64| {
        let r = |worker_id, task_id, result, max_tasks| pb::CompleteRequest { worker_id, task_id, result, max_tasks };
        vec![
            r(a, 0, failure(), 1),                                                       // accepted, leases 4
            r(a, 3, failure(), 1),                                                       // b's task: refused
            r(12_345, 98, failure(), 1), // a worker id this master never gave: no lease
            r(b, 3, failure(), 0),       // b's, accepted
            r(a, 0, failure(), 1),       // duplicate, leases 5
            r(a, 6, Some(result_to_proto(&Ok(TaskOutcome::Match(swapped.clone())))), 1), // misfit: a dropped
            r(a, 1, failure(), 1),       // nobody's now: no lease
            r(b, 7, Some(result_to_proto(&Ok(TaskOutcome::Match(played.clone())))), 1), // not b's: refused
            r(b, 99, failure(), 1),      // unknown; leases 2 (a's, back in the queue, 1 done)
            r(b, 2, None, 0),            // malformed: b dropped
            r(b, 2, failure(), 2),       // nobody's: accepted
        ]
    };
    let (one_by_one, a, b) = service();
    let singly: Vec<_> = requests(a, b).into_iter().map(|r| said(&one_by_one.answer(r))).collect();
    let (batched, a, b) = service();
    let batch = batched.answer_batch(pb::DeliveryBatch { requests: requests(a, b), wait_ms: 0 });
    let together: Vec<_> = batch.answers.iter().map(said).collect();
    assert_eq!(together, singly);
    // The answers are what the comments say (so the comparison compares something).
    let (accepted, duplicate, unknown) =
        (pb::Completion::Accepted as i32, pb::Completion::Duplicate as i32, pb::Completion::Unknown as i32);
    use tonic::Code::{InvalidArgument, PermissionDenied};
    let expected = vec![
        Ok((accepted, vec![4])),
        Err(PermissionDenied),
        Ok((unknown, vec![])),
        Ok((accepted, vec![])),
        Ok((duplicate, vec![5])),
        Err(InvalidArgument),
        Ok((accepted, vec![])),
        Err(PermissionDenied),
        Ok((unknown, vec![2])),
        Err(InvalidArgument),
        Ok((accepted, vec![])),
    ];
    assert_eq!(together, expected);
    // The same state behind: counters, drops, the scheduler's books.
    for service in [&one_by_one, &batched] {
        assert_eq!(service.counters.invalid.load(Ordering::Relaxed), 2);
        let drops: Vec<_> = service.counters.drops().into_iter().map(|d| d.reason).collect();
        assert_eq!(drops, [DropReason::MalformedOutcome, DropReason::MalformedOutcome]);
    }
    assert_eq!(batched.scheduler.stats(), one_by_one.scheduler.stats());
}
