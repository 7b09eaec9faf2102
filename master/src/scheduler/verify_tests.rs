//! Verification by replay: held outcomes, second opinions, liars and their quarantine.

use super::verify::Trail;
use super::*;
use loa_engine::aloa::AloaKind;
use loa_engine::game::MatchSide;
use loa_engine::tasks::{FixedPlayer, MatchEntrant, MatchFormat, MatchTask, Pairing, TaskOutcome};
use loa_engine::{BothConnected, NoMoves, Rules};

/// A real task (two fixed players, one short match), so the master can play it.
fn task(seed: u64) -> Task {
    let aloa =
        |serial| MatchEntrant::Fixed { serial, player: FixedPlayer::Aloa { evaluator: AloaKind::Quad, depth: 1 } };
    Task::Match(MatchTask {
        entrants: vec![aloa(1), aloa(2)],
        network_depth: 1,
        rules: Rules { both_connected: BothConnected::Draw, no_moves: NoMoves::Loses, ply_cap: 20 },
        board: Default::default(),
        start: Default::default(),
        format: MatchFormat::Pairs(vec![Pairing { a: 0, b: 1, seed, opening_plies: 4 }]),
    })
}

/// The task's outcome as an honest player gives it, played here independently of the scheduler.
fn truth(seed: u64) -> TaskResult {
    Ok(task(seed).run().unwrap())
}

/// The outcome with its match's winner flipped: what a liar sends.
fn lie(seed: u64) -> TaskResult {
    let Ok(TaskOutcome::Match(mut outcome)) = task(seed).run() else { panic!("a match outcome") };
    let m = &mut outcome.matches[0];
    m.winner = if m.winner == MatchSide::A { MatchSide::B } else { MatchSide::A };
    Ok(outcome.into())
}

fn deliver(s: &Scheduler, worker: WorkerId, id: TaskId, outcome: TaskResult) -> Completion {
    s.record([Delivery { worker, id, outcome }], unchecked).0[0]
}

fn leased(s: &Scheduler, worker: WorkerId) -> Vec<TaskId> {
    s.lease(worker, 8).into_iter().map(|(id, _)| id).collect()
}

/// A key under which, at `rate`, exactly the ids in `wanted` among `ids` are sampled.
fn key_sampling(rate: VerifyRate, ids: &[TaskId], wanted: &[TaskId]) -> u64 {
    (0..1_000_000u64)
        .find(|&key| ids.iter().all(|id| sampled(key, rate, *id) == wanted.contains(id)))
        .expect("a key within a million")
}

/// Waits up to 10 s for `worker` to be leased something.
fn lease_soon(s: &Scheduler, worker: WorkerId) -> Vec<TaskId> {
    let started = Instant::now();
    loop {
        let got = leased(s, worker);
        if !got.is_empty() || started.elapsed() > Duration::from_secs(10) {
            return got;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn a_sampled_outcome_is_held_until_another_workers_copy_agrees() {
    let s = Scheduler::new(Duration::from_secs(60));
    s.verify(VerifyRate::ALL);
    let a = s.register_remote("a".into(), "a", 1).unwrap();
    let b = s.register_remote("b".into(), "b", 1).unwrap();
    s.submit(vec![(5, task(5))]);
    assert_eq!(leased(&s, a), [5]);
    assert_eq!(deliver(&s, a, 5, truth(5)), Completion::Accepted);
    // Held: no outcome for the run yet, and the task goes to another worker only.
    assert_eq!(s.stats().completed, 0);
    assert!(!s.lock().done.contains_key(&5));
    assert_eq!(s.collect(&[5], || true, |_| {}), None, "nothing to collect yet");
    assert!(leased(&s, a).is_empty(), "never the copy of its own outcome");
    assert_eq!(leased(&s, b), [5]);
    assert_eq!(deliver(&s, a, 5, truth(5)), Completion::Duplicate);
    assert_eq!(deliver(&s, b, 5, truth(5)), Completion::Accepted);
    assert_eq!(s.collect(&[5], || false, |_| {}), Some(vec![truth(5)]));
    let stats = s.stats();
    assert_eq!((stats.verified, stats.mismatches, stats.quarantined, stats.completed), (1, 0, 0, 1));
    let verified: Vec<u64> = s.workers().iter().map(|(_, w)| w.verified).collect();
    assert_eq!(verified, [1, 1], "both players' last verified point moved on");
}

#[test]
fn outcomes_of_embedded_workers_and_unsampled_ones_are_not_held() {
    let s = Scheduler::new(Duration::from_secs(60));
    let key = key_sampling(VerifyRate::new(0.5).unwrap(), &[1, 2], &[2]);
    s.verify_with_key(VerifyRate::new(0.5).unwrap(), key);
    let (embedded, remote) = (s.register("e".into(), 1), s.register_remote("r".into(), "r", 1).unwrap());
    s.submit(vec![(1, task(1)), (2, task(2))]);
    assert_eq!(leased(&s, remote), [1, 2]);
    assert_eq!(deliver(&s, remote, 1, truth(1)), Completion::Accepted);
    assert_eq!(s.stats().completed, 1, "task 1 is not sampled");
    s.unregister(remote);
    s.submit(vec![(2, task(2))]);
    assert_eq!(leased(&s, embedded), [2]);
    assert_eq!(deliver(&s, embedded, 2, truth(2)), Completion::Accepted);
    assert_eq!(s.stats().completed, 2, "an embedded worker is trusted");
}

#[test]
fn a_liar_is_quarantined_and_its_unverified_outcomes_in_the_batch_played_again() {
    let rate = VerifyRate::new(0.5).unwrap();
    let s = Arc::new(Scheduler::new(Duration::from_secs(60)));
    s.verify_with_key(rate, key_sampling(rate, &[0, 1, 2], &[1]));
    let liar = s.register_remote("liar (1 slots)".into(), "liar", 1).unwrap();
    let honest = s.register_remote("honest (1 slots)".into(), "honest", 1).unwrap();
    s.submit((0..3).map(|i| (i, task(i))).collect());
    assert_eq!(leased(&s, liar), [0, 1, 2]);
    // Task 0's lie is not sampled: accepted, for now. Task 1's is held; task 2 still out.
    assert_eq!(deliver(&s, liar, 0, lie(0)), Completion::Accepted);
    assert_eq!(deliver(&s, liar, 1, lie(1)), Completion::Accepted);
    assert_eq!(s.stats().completed, 1);
    assert_eq!(leased(&s, honest), [1]);
    // The honest copy differs: the master plays task 1 itself (in the collect) and finds the liar.
    assert_eq!(deliver(&s, honest, 1, truth(1)), Completion::Accepted);
    assert_eq!(s.stats().mismatches, 1);
    let collector = {
        let s = Arc::clone(&s);
        std::thread::spawn(move || s.collect(&[0, 1, 2], || false, |_| {}))
    };
    // Task 0 (its lie re-opened) and task 2 (its lease given back) come to the honest worker.
    let mut again = lease_soon(&s, honest);
    again.sort_unstable();
    assert_eq!(again, [0, 2]);
    assert!(s.is_quarantined(liar));
    for id in again {
        assert_eq!(deliver(&s, honest, id, truth(id)), Completion::Accepted);
    }
    assert_eq!(collector.join().unwrap(), Some(vec![truth(0), truth(1), truth(2)]));
    let stats = s.stats();
    assert_eq!((stats.quarantined, stats.replayed, stats.workers, stats.rollbacks), (1, 1, 1, 0));
    // Its id is refused from now on, and its late lie changes nothing.
    assert_eq!(deliver(&s, liar, 2, lie(2)), Completion::Unregistered);
    assert!(leased(&s, liar).is_empty());
    assert_eq!(s.take_rollback(), None, "nothing of the run's state came from it");
    let notes = s.take_notes();
    assert!(
        notes.len() == 1 && notes[0].contains("quarantined liar (1 slots)") && notes[0].contains("task 1"),
        "{notes:?}"
    );
}

#[test]
fn a_quarantined_name_cannot_register_again() {
    let s = Arc::new(Scheduler::new(Duration::from_secs(60)));
    s.verify(VerifyRate::ALL);
    let liar = s.register_remote("liar".into(), "liar", 1).unwrap();
    s.submit(vec![(3, task(3))]);
    assert_eq!(leased(&s, liar), [3]);
    deliver(&s, liar, 3, lie(3));
    // No other worker: the master plays the copy itself.
    assert_eq!(s.collect(&[3], || false, |_| {}), Some(vec![truth(3)]));
    assert!(s.is_quarantined(liar));
    let refused = s.register_remote("liar (1 slots, 127.0.0.1:9)".into(), "liar", 1).unwrap_err();
    assert_eq!(refused, Quarantined("liar".into()));
    assert!(refused.to_string().contains("\"liar\" is quarantined"), "{refused}");
    assert!(s.register_remote("another".into(), "another", 1).is_ok(), "the token, not the name, is the boundary");
}

#[test]
fn a_copy_out_with_a_hung_worker_is_played_by_the_master_not_waited_for() {
    let clock = Arc::new(Mutex::new(Instant::now()));
    let time = Arc::clone(&clock);
    let s = Scheduler::with_clock(Duration::from_secs(60), move || *time.lock().unwrap());
    s.verify(VerifyRate::ALL);
    let a = s.register_remote("a".into(), "a", 1).unwrap();
    let hung = s.register_remote("hung".into(), "hung", 1).unwrap();
    s.submit(vec![(6, task(6))]);
    assert_eq!(leased(&s, a), [6]);
    deliver(&s, a, 6, truth(6));
    assert_eq!(leased(&s, hung), [6], "the copy goes to the other worker, which never answers");
    // Past the straggler threshold (a second here), far short of the 60 s lease.
    *clock.lock().unwrap() += Duration::from_secs(2);
    let began = Instant::now();
    let collected = s.collect(&[6], || began.elapsed() > Duration::from_secs(10), |_| {});
    assert_eq!(collected, Some(vec![truth(6)]), "the held outcome waited for the hung copy");
    assert_eq!((s.stats().verified, s.stats().quarantined), (1, 0));
}

#[test]
fn a_copy_no_worker_asks_for_is_played_by_the_master_not_waited_for() {
    let clock = Arc::new(Mutex::new(Instant::now()));
    let time = Arc::clone(&clock);
    let s = Scheduler::with_clock(Duration::from_secs(60), move || *time.lock().unwrap());
    s.verify(VerifyRate::ALL);
    let a = s.register_remote("a".into(), "a", 1).unwrap();
    // Registered, so the copy is not the master's at once, but it never asks for work.
    s.register_remote("silent".into(), "silent", 1).unwrap();
    s.submit(vec![(7, task(7))]);
    assert_eq!(leased(&s, a), [7]);
    deliver(&s, a, 7, truth(7));
    *clock.lock().unwrap() += Duration::from_secs(2);
    let began = Instant::now();
    let collected = s.collect(&[7], || began.elapsed() > Duration::from_secs(10), |_| {});
    assert_eq!(collected, Some(vec![truth(7)]), "the held outcome waited in the queue");
}

#[test]
fn a_lone_honest_workers_held_outcome_is_confirmed_by_the_masters_play() {
    let s = Scheduler::new(Duration::from_secs(60));
    s.verify(VerifyRate::ALL);
    let a = s.register_remote("a".into(), "a", 1).unwrap();
    s.submit(vec![(4, task(4))]);
    assert_eq!(leased(&s, a), [4]);
    deliver(&s, a, 4, truth(4));
    assert_eq!(s.collect(&[4], || false, |_| {}), Some(vec![truth(4)]));
    assert_eq!((s.stats().verified, s.stats().quarantined), (1, 0));
    assert_eq!(s.workers()[0].1.verified, 1);
}

#[test]
fn a_lie_in_a_batch_the_run_took_asks_for_a_rollback_to_it() {
    let rate = VerifyRate::new(0.5).unwrap();
    let s = Scheduler::new(Duration::from_secs(60));
    // Generation 1's task is not sampled, generation 2's is.
    let (early, late) = (1 << 24, 2 << 24);
    s.verify_with_key(rate, key_sampling(rate, &[early, late], &[late]));
    let liar = s.register_remote("liar".into(), "liar", 1).unwrap();
    let embedded = s.register("e".into(), 1);
    s.submit(vec![(early, task(1))]);
    assert_eq!(leased(&s, liar), [early]);
    deliver(&s, liar, early, lie(1));
    assert_eq!(s.collect(&[early], || false, |_| {}), Some(vec![lie(1)]), "unsampled: taken");
    s.submit(vec![(late, task(2))]);
    assert_eq!(leased(&s, liar), [late]);
    deliver(&s, liar, late, lie(2));
    // The embedded worker's copy is the master's own play: the truth at once.
    assert_eq!(leased(&s, embedded), [late]);
    deliver(&s, embedded, late, truth(2));
    assert!(s.rollback_pending());
    assert_eq!(s.take_rollback(), Some(early));
    assert_eq!((s.stats().rollbacks, s.take_rollback()), (1, None));
    // The run abandons the batch and submits it again later: it opens anew.
    s.abandon(&[late]);
    s.submit(vec![(late, task(2))]);
    assert_eq!(leased(&s, embedded), [late]);
}

#[test]
fn a_trail_forgets_what_a_verified_sample_covers() {
    let mut t = Trail::default();
    assert_eq!(t.first_unverified(), None);
    t.delivered(7);
    t.delivered(3);
    let first = t.sampled(9);
    t.delivered(12);
    let second = t.sampled(11);
    t.delivered(20);
    assert_eq!(t.first_unverified(), Some(3));
    t.passed(first);
    assert_eq!(t.first_unverified(), Some(11));
    t.passed(first); // again: nothing
    assert_eq!(t.first_unverified(), Some(11));
    t.passed(second);
    assert_eq!(t.first_unverified(), Some(20));
    assert_eq!(t.segments_len(), 1, "only the open segment is kept");
}

#[test]
fn a_copy_goes_to_a_worker_from_another_address_when_there_is_one() {
    let s = Scheduler::new(Duration::from_secs(60));
    s.verify(VerifyRate::ALL);
    let (here, there) = (Some("10.0.0.1".parse().unwrap()), Some("10.0.0.2".parse().unwrap()));
    let a = s.register_remote_at("a".into(), "a", 1, here).unwrap();
    let accomplice = s.register_remote_at("accomplice".into(), "accomplice", 1, here).unwrap();
    s.submit(vec![(5, task(5))]);
    assert_eq!(leased(&s, a), [5]);
    assert_eq!(deliver(&s, a, 5, lie(5)), Completion::Accepted);
    // Nobody from elsewhere yet: a worker from the same address may check it.
    let elsewhere = s.register_remote_at("b".into(), "b", 1, there).unwrap();
    assert!(leased(&s, accomplice).is_empty(), "not the copy of a worker from its own address");
    assert_eq!(leased(&s, elsewhere), [5]);
    s.unregister(elsewhere);
    s.submit(vec![(6, task(6))]);
    assert_eq!(leased(&s, a), [6]);
    assert_eq!(deliver(&s, a, 6, truth(6)), Completion::Accepted);
    let mut copies = leased(&s, accomplice);
    copies.sort_unstable();
    assert_eq!(copies, [5, 6], "with nobody from elsewhere, the copies go to it");
}

#[test]
fn the_master_keeps_its_share_of_the_checks_whoever_holds_a_copy() {
    let s = Arc::new(Scheduler::new(Duration::from_secs(60)));
    s.verify(VerifyRate::ALL);
    s.verify_by_master(VerifyRate::ALL);
    let liar = s.register_remote("liar".into(), "liar", 1).unwrap();
    let accomplice = s.register_remote("accomplice".into(), "accomplice", 1).unwrap();
    s.submit(vec![(5, task(5))]);
    assert_eq!(leased(&s, liar), [5]);
    assert_eq!(deliver(&s, liar, 5, lie(5)), Completion::Accepted);
    assert!(leased(&s, accomplice).is_empty(), "no copy for a worker: the master plays it");
    // The master's play settles it: the liar is caught, the truth is the task's outcome.
    assert_eq!(s.collect(&[5], || false, |_| {}), Some(vec![truth(5)]));
    assert!(s.is_quarantined(liar) && !s.is_quarantined(accomplice));
}
