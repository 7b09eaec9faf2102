//! The scheduler on a controlled clock: counts, leases, stragglers and backups.

use super::*;
use loa_engine::tasks::TaskFailure;

use loa_engine::tasks::{MatchFormat, MatchTask};
use std::sync::atomic::AtomicU64;

fn fail(message: &str) -> TaskResult {
    Err(TaskFailure::Reported(message.into()))
}

/// Records one outcome from `worker`, as an embedded worker does.
fn complete(s: &Scheduler, worker: WorkerId, id: TaskId, outcome: TaskResult) -> Completion {
    let (completions, _) = s.record([Delivery { worker, id, outcome }], unchecked);
    completions[0]
}

/// A scheduler on a clock that only moves when the test says so.
fn manual(lease_time: Duration) -> (Scheduler, Arc<AtomicU64>) {
    let base = Instant::now();
    let millis = Arc::new(AtomicU64::new(0));
    let clock = Arc::clone(&millis);
    let scheduler =
        Scheduler::with_clock(lease_time, move || base + Duration::from_millis(clock.load(Ordering::SeqCst)));
    (scheduler, millis)
}

fn advance(clock: &AtomicU64, millis: u64) {
    clock.fetch_add(millis, Ordering::SeqCst);
}

/// Tasks that are never played: the scheduler only moves them around.
fn tasks(ids: std::ops::Range<TaskId>) -> Vec<(TaskId, Task)> {
    let task = Task::Match(MatchTask {
        entrants: Vec::new(),
        network_depth: 1,
        rules: Default::default(),
        board: Default::default(),
        start: Default::default(),
        format: MatchFormat::Pairs(vec![]),
    });
    ids.map(|id| (id, task.clone())).collect()
}

fn ids(leased: &[(TaskId, Arc<Task>)]) -> Vec<TaskId> {
    leased.iter().map(|(id, _)| *id).collect()
}

/// What `in_flight` should be, counted the slow way.
fn counted(s: &Scheduler) -> usize {
    s.lock().open.values().filter(|e| !e.leases.is_empty()).count()
}

#[test]
fn in_flight_stays_right_through_lease_complete_expire_and_unregister() {
    let (s, clock) = manual(Duration::from_secs(10));
    let (a, b) = (s.register("a".into(), 64), s.register("b".into(), 64));
    s.submit(tasks(0..5));
    let check = |expected: usize| {
        assert_eq!(s.stats().in_flight, expected);
        assert_eq!(counted(&s), expected);
    };
    check(0);
    assert_eq!(ids(&s.lease(a, 3)), [0, 1, 2]);
    check(3);
    assert_eq!(ids(&s.lease(b, 2)), [3, 4]);
    check(5);
    assert_eq!(complete(&s, a, 0, fail("x")), Completion::Accepted);
    check(4);
    assert_eq!(complete(&s, b, 0, fail("x")), Completion::Duplicate);
    check(4);
    // b renews, a does not: only a's two leases lapse.
    advance(&clock, 6_000);
    s.renew(b);
    advance(&clock, 5_000);
    s.expire_leases();
    check(2);
    assert_eq!(s.stats().re_leased, 2);
    // Task 1 is now leased by b; a's late outcome for it still counts and clears it.
    assert_eq!(ids(&s.lease(b, 1)), [1]);
    check(3);
    assert_eq!(complete(&s, a, 1, fail("late")), Completion::Accepted);
    check(2);
    s.unregister(b);
    check(0);
    assert_eq!(s.stats().queued, 3);
    assert_eq!(ids(&s.lease(a, 10)), [3, 4, 2]);
    check(3);
    for id in [2, 3, 4] {
        complete(&s, a, id, fail("x"));
    }
    check(0);
    assert_eq!(s.stats().completed, 5);
}

#[test]
fn per_worker_counts() {
    let (s, clock) = manual(Duration::from_secs(60));
    let (a, b) = (s.register("a".into(), 64), s.register("b".into(), 64));
    s.submit(tasks(0..5));
    s.lease(a, 2);
    s.lease(b, 1);
    advance(&clock, 100);
    complete(&s, a, 0, fail("x"));
    advance(&clock, 200);
    complete(&s, a, 1, fail("x"));
    complete(&s, b, 2, fail("x"));
    // An outcome from no registered worker (e.g. leased before a master restart) is refused.
    assert_eq!(complete(&s, WorkerId::MAX, 3, fail("x")), Completion::Unregistered);
    let w = s.workers();
    assert_eq!((w[0].1.name.as_str(), w[0].1.completed), ("a", 2));
    assert_eq!((w[1].1.name.as_str(), w[1].1.completed), ("b", 1));
    assert_eq!(s.stats().completed, 3);
    // b holds task 4 from now on: its oldest lease ages with the clock.
    assert_eq!(w[1].1.oldest_lease, None);
    s.lease(b, 1);
    advance(&clock, 50);
    assert_eq!(s.workers()[1].1.oldest_lease, Some(Duration::from_millis(50)));
    assert_eq!(s.workers()[0].1.oldest_lease, None);
}

#[test]
fn a_worker_is_a_straggler_past_three_medians_of_the_batch() {
    let (s, clock) = manual(Duration::from_secs(600));
    let (fast, slow) = (s.register("fast".into(), 64), s.register("slow".into(), 64));
    s.submit(tasks(0..4));
    s.lease(slow, 1);
    // Nothing completed: no median, no straggler however old the lease.
    advance(&clock, 30_000);
    assert_eq!(s.stats().stragglers, 0);
    // The fast worker does three tasks of 2 s each: median 2 s, threshold 6 s.
    for id in 1..4 {
        s.lease(fast, 1);
        advance(&clock, 2_000);
        complete(&s, fast, id, fail("x"));
    }
    let w = s.workers();
    assert!(!w[0].1.straggler && w[1].1.straggler, "{w:?}");
    assert_eq!(s.stats().stragglers, 1);
    // A new batch forgets the old median; the slow worker's lease is judged again.
    complete(&s, slow, 0, fail("x"));
    s.submit(tasks(10..12));
    s.lease(slow, 1);
    s.lease(fast, 1);
    advance(&clock, 1_500);
    complete(&s, fast, 11, fail("x")); // median 1.5 s: threshold 4.5 s
    advance(&clock, 2_900); // slow's lease is 4.4 s old
    assert_eq!(s.stats().stragglers, 0);
    advance(&clock, 200); // 4.6 s
    assert_eq!(s.stats().stragglers, 1);
    // Leaving clears it.
    s.unregister(slow);
    assert_eq!(s.stats().stragglers, 0);
}

#[test]
fn the_straggler_rule_has_a_floor() {
    let ms = Duration::from_millis;
    assert!(!is_straggler(ms(10_000), None));
    assert!(!is_straggler(ms(30), Some(ms(5)))); // 6× the median but under a second
    assert!(!is_straggler(ms(1_000), Some(ms(5))));
    assert!(is_straggler(ms(1_001), Some(ms(5))));
    assert!(!is_straggler(ms(3_000), Some(ms(1_000))));
    assert!(is_straggler(ms(3_001), Some(ms(1_000))));
}

#[test]
fn idle_workers_take_backup_copies_of_straggling_tasks_and_the_first_outcome_wins() {
    let (s, clock) = manual(Duration::from_secs(600));
    let (dead, fast) = (s.register("dead".into(), 64), s.register("fast".into(), 64));
    s.submit(tasks(0..4));
    // The dead worker holds two tasks it will never finish; the fast one does the rest.
    assert_eq!(ids(&s.lease(dead, 2)), [0, 1]);
    for id in [2, 3] {
        s.lease(fast, 1);
        advance(&clock, 500);
        complete(&s, fast, id, fail("x"));
    }
    // Median 0.5 s, threshold max(1.5 s, 1 s): the dead worker's leases are 1 s old, no backup.
    assert!(s.lease(fast, 2).is_empty());
    advance(&clock, 600);
    // 1.6 s old: the queue is empty, so the idle worker gets copies, oldest first.
    assert_eq!(ids(&s.lease(fast, 2)), [0, 1]);
    assert_eq!(s.stats().backups, 2);
    // At most two copies of a task, and never a second copy to the same worker.
    let third = s.register("third".into(), 64);
    advance(&clock, 5_000);
    assert!(s.lease(third, 2).is_empty());
    assert!(s.lease(fast, 2).is_empty());
    // The backup's outcome wins; the dead worker's late one is a duplicate.
    assert_eq!(complete(&s, fast, 0, fail("x")), Completion::Accepted);
    assert_eq!(complete(&s, dead, 0, fail("x")), Completion::Duplicate);
    assert_eq!(s.stats().in_flight, 1);
    assert_eq!(counted(&s), 1);
}

#[test]
fn a_worker_registered_with_its_slots_takes_that_many_backup_copies_a_call() {
    let (s, clock) = manual(Duration::from_secs(600));
    let dead = s.register("dead".into(), 64);
    let (one, three) = (s.register("one".into(), 1), s.register("three".into(), 3));
    s.submit(tasks(0..10));
    assert_eq!(ids(&s.lease(dead, 8)), [0, 1, 2, 3, 4, 5, 6, 7]);
    for id in [8, 9] {
        s.lease(one, 1);
        advance(&clock, 500);
        complete(&s, one, id, fail("x"));
    }
    advance(&clock, 2_000);
    // Eight straggling leases, the queue empty: asking for 64, each gets its slots' worth.
    assert_eq!(ids(&s.lease(one, 64)), [0]);
    assert_eq!(ids(&s.lease(three, 64)), [1, 2, 3]);
    assert_eq!(ids(&s.lease(one, 64)), [4], "and as many again on its next call");
    // A worker of 64 slots takes what it asks for.
    let any = s.register("any".into(), 64);
    assert_eq!(ids(&s.lease(any, 64)), [5, 6, 7]);
    assert_eq!(s.stats().backups, 8);
    // Tasks from the queue are not limited: a new step's tasks go out as asked.
    s.submit(tasks(10..20));
    assert_eq!(s.lease(one, 6).len(), 6);
}

#[test]
fn no_backups_while_work_is_queued_or_before_anything_completed() {
    let (s, clock) = manual(Duration::from_secs(600));
    let (a, b) = (s.register("a".into(), 64), s.register("b".into(), 64));
    s.submit(tasks(0..3));
    s.lease(a, 1);
    advance(&clock, 60_000);
    // Nothing completed: no median, so no judgement and no copy; queued work comes first.
    assert_eq!(ids(&s.lease(b, 5)), [1, 2]);
    assert_eq!(s.stats().backups, 0);
}

#[test]
fn an_outcome_for_a_task_the_sender_never_leased_is_refused() {
    let (s, clock) = manual(Duration::from_secs(10));
    let (a, b) = (s.register("a".into(), 64), s.register("b".into(), 64));
    s.submit(tasks(0..2));
    s.lease(a, 1);
    // b is registered and never held task 0 (nor task 1, still queued).
    assert_eq!(complete(&s, b, 0, fail("forged")), Completion::NotLeased);
    assert_eq!(complete(&s, b, 1, fail("forged")), Completion::NotLeased);
    assert_eq!(s.stats().not_leased, 2);
    // The task stays open for its holder.
    assert_eq!(complete(&s, a, 0, fail("x")), Completion::Accepted);
    // A lease that lapsed still lets its late outcome count.
    s.lease(b, 1);
    advance(&clock, 11_000);
    s.expire_leases();
    assert_eq!(complete(&s, b, 1, fail("late")), Completion::Accepted);
    // An id this scheduler never issued (a worker of an earlier master process), or one it
    // dropped, holds no lease: its outcome, and so its failure, is refused and the task stays
    // open for a registered worker.
    s.submit(tasks(5..6));
    assert_eq!(complete(&s, WorkerId::MAX, 5, fail("forged")), Completion::Unregistered);
    assert_eq!(ids(&s.lease(a, 1)), [5]);
    s.unregister(a);
    assert_eq!(complete(&s, a, 5, fail("stale")), Completion::Unregistered);
    assert_eq!(s.stats().not_leased, 4);
    assert_eq!(ids(&s.lease(b, 1)), [5], "back in the queue");
    assert_eq!(complete(&s, b, 5, fail("x")), Completion::Accepted);
}

#[test]
fn record_answers_each_outcome_in_turn_and_stops_at_the_first_refused() {
    let (s, _) = manual(Duration::from_secs(10));
    let (a, b) = (s.register("a".into(), 64), s.register("b".into(), 64));
    s.submit(tasks(0..8));
    assert_eq!(ids(&s.lease(a, 3)), [0, 1, 2]);
    let delivery = |worker, id| Delivery { worker, id, outcome: fail(&id.to_string()) };
    // 0 accepted; 0 again a duplicate; 1 refused as not leased to b; 7 from a worker the
    // scheduler does not know (an earlier master's) refused; 2 refused by the check; 1 left.
    let deliveries =
        [delivery(a, 0), delivery(a, 0), delivery(b, 1), delivery(WorkerId::MAX, 7), delivery(a, 2), delivery(a, 1)];
    let (completions, refused) =
        s.record(deliveries, |id, _, _| if id == 2 { Err(format!("task {id}")) } else { Ok(()) });
    let expected = [Completion::Accepted, Completion::Duplicate, Completion::NotLeased, Completion::Unregistered];
    assert_eq!(completions, expected);
    assert_eq!(refused.as_deref(), Some("task 2"));
    // The refused outcome and the one after it changed nothing: 1 and 2 are still open and a's.
    assert_eq!((s.stats().completed, s.stats().in_flight, s.stats().not_leased, counted(&s)), (1, 2, 2, 2));
    assert_eq!(complete(&s, a, 2, fail("2")), Completion::Accepted);
    assert_eq!(complete(&s, a, 1, fail("1")), Completion::Accepted);
    // Recording leased nothing, and a task with an outcome is not leased any more (7, whose
    // outcome was refused, is).
    assert_eq!(ids(&s.lease(a, 8)), [3, 4, 5, 6, 7]);
    // Nothing to record answers nothing and refuses nothing.
    let (completions, refused) = s.record(std::iter::empty(), |_, _, _| Err(()));
    assert!(completions.is_empty() && refused.is_none());
}

#[test]
fn a_renewal_extends_the_leases_held_then_and_never_shortens_one() {
    let (s, clock) = manual(Duration::from_secs(10));
    let (a, b) = (s.register("a".into(), 64), s.register("b".into(), 64));
    s.submit(tasks(0..4));
    // a renews before its lease on 0 is granted: the lease keeps its own deadline (t = 10 s).
    s.renew(a);
    advance(&clock, 2_000);
    assert_eq!(ids(&s.lease(a, 1)), [0]);
    assert_eq!(ids(&s.lease(b, 1)), [1]);
    // At t = 9 s b renews (its lease on 1 now lapses at 19 s, not 12 s); a's lease on 2,
    // granted at 10 s, lapses at its own 20 s.
    advance(&clock, 7_000);
    s.renew(b);
    advance(&clock, 1_000);
    assert_eq!(ids(&s.lease(a, 1)), [2]);
    advance(&clock, 1_500); // t = 11.5 s
    s.expire_leases();
    assert_eq!(s.stats().re_leased, 0, "a's lease on 0 lapses 10 s from its grant (12 s), not from a's renewal");
    advance(&clock, 500); // t = 12 s: 0's deadline
    s.expire_leases();
    assert_eq!(s.stats().re_leased, 1);
    assert_eq!(s.stats().queued, 2, "task 0 is back, task 3 was never leased");
    advance(&clock, 7_000); // t = 19 s: b's renewed lease lapses; a's lease on 2 (from 10 s) holds
    s.expire_leases();
    assert_eq!(s.stats().re_leased, 2);
    advance(&clock, 1_000); // t = 20 s
    s.expire_leases();
    assert_eq!(s.stats().re_leased, 3);
    assert_eq!(counted(&s), 0);
}

/// Whether no collect waits for anything (nothing left behind by one that returned).
fn nothing_awaited(s: &Scheduler) -> bool {
    let s = s.lock();
    s.awaited.by_id.is_empty() && s.awaited.left.is_empty()
}

#[test]
fn two_collects_at_once_each_get_their_own_outcomes_in_order() {
    let s = Arc::new(Scheduler::new(Duration::from_secs(60)));
    let w = s.register("w".into(), 64);
    s.submit(tasks(0..200));
    let collect = |ids: Vec<TaskId>| {
        let s = Arc::clone(&s);
        std::thread::spawn(move || s.collect(&ids, || false, |_| {}).expect("not stopped"))
    };
    let even_ids: Vec<TaskId> = (0..200).step_by(2).collect();
    let odd_ids: Vec<TaskId> = (1..200).step_by(2).collect::<Vec<_>>().into_iter().rev().collect();
    let (evens, odds) = (collect(even_ids.clone()), collect(odd_ids.clone()));
    for (id, _) in s.lease(w, 200).into_iter().rev() {
        assert_eq!(complete(&s, w, id, fail(&id.to_string())), Completion::Accepted);
    }
    let messages = |results: Vec<TaskResult>| -> Vec<String> {
        results.into_iter().map(|r| r.expect_err("failures stand for outcomes").to_string()).collect()
    };
    let expected =
        |ids: &[TaskId]| ids.iter().map(|id| fail(&id.to_string()).unwrap_err().to_string()).collect::<Vec<_>>();
    assert_eq!(messages(evens.join().expect("collect")), expected(&even_ids));
    assert_eq!(messages(odds.join().expect("collect")), expected(&odd_ids));
    assert!(nothing_awaited(&s));
    // Outcomes in before a collect begins count too.
    s.submit(tasks(200..203));
    for (id, _) in s.lease(w, 3) {
        complete(&s, w, id, fail("early"));
    }
    assert_eq!(s.collect(&[202, 200, 201], || false, |_| {}).map(|r| r.len()), Some(3));
    assert!(nothing_awaited(&s));
}

#[test]
fn a_stopped_collect_leaves_its_outcomes_and_nothing_awaited() {
    let s = Scheduler::new(Duration::from_secs(60));
    let w = s.register("w".into(), 64);
    s.submit(tasks(0..3));
    s.lease(w, 3);
    complete(&s, w, 1, fail("one"));
    let mut ticks = Vec::new();
    let stopped = std::cell::Cell::new(false);
    let got = s.collect(
        &[0, 1, 2],
        || stopped.get(),
        |done| {
            ticks.push(done);
            stopped.set(true);
        },
    );
    assert!(got.is_none());
    assert_eq!(ticks, [1], "one of three done at the first tick");
    assert!(nothing_awaited(&s));
    // The outcome stays for a later collect, which waits for the rest.
    complete(&s, w, 0, fail("zero"));
    complete(&s, w, 2, fail("two"));
    assert_eq!(s.collect(&[0, 1, 2], || false, |_| {}).map(|r| r.len()), Some(3));
}

#[test]
fn late_duplicates_are_told_from_unknown_ids_for_two_steps() {
    let s = Scheduler::new(Duration::from_secs(60));
    let (a, b) = (s.register("a".into(), 64), s.register("b".into(), 64));
    let step = |ids: std::ops::Range<TaskId>| {
        s.submit(tasks(ids.clone()));
        let leased = s.lease(a, ids.clone().count());
        for (id, _) in &leased {
            complete(&s, a, *id, fail("x"));
        }
        s.collect(&ids.collect::<Vec<_>>(), || false, |_| {}).expect("collected");
    };
    step(0..2);
    // b held no lease: an id it names is checked only once it is not open.
    assert_eq!(complete(&s, b, 1, fail("late")), Completion::Duplicate, "the step just done");
    step(10..12);
    assert_eq!(complete(&s, b, 1, fail("late")), Completion::Duplicate, "the step before");
    assert_eq!(complete(&s, b, 11, fail("late")), Completion::Duplicate);
    step(20..22);
    assert_eq!(complete(&s, b, 1, fail("late")), Completion::Unknown, "two steps back: forgotten");
    assert_eq!(complete(&s, b, 11, fail("late")), Completion::Duplicate);
    assert_eq!(s.stats().duplicates, 4);
    assert_eq!(s.stats().unknown, 1);
}

#[test]
fn steps_of_one_size_take_the_tables_the_step_before_emptied() {
    let s = Scheduler::new(Duration::from_secs(60));
    let a = s.register("a".into(), 64);
    let mut capacities = Vec::new();
    for step in 0..4u64 {
        let ids: Vec<TaskId> = (step * 1000..step * 1000 + 1000).collect();
        s.submit(tasks(step * 1000..step * 1000 + 1000));
        // Right after the submit: `done` and `finished` are empty, `open` holds the step; their
        // capacities are what they can take.
        let (done, finished, open) = {
            let st = s.lock();
            (st.done.capacity(), st.finished.capacity(), st.open.capacity())
        };
        capacities.push((done, finished, open));
        for (id, _) in s.lease(a, 1000) {
            complete(&s, a, id, fail("x"));
        }
        s.collect(&ids, || false, |_| {}).expect("collected");
    }
    // Without the reset, the removals' tombstones leave the emptied table less room than a
    // step, and the reserve moves it to a table twice the size (new memory).
    assert!(capacities.iter().all(|&c| c == capacities[0]), "capacities by step: {capacities:?}");
    assert!(capacities[0].0 >= 1000 && capacities[0].1 >= 1000 && capacities[0].2 >= 1000, "{capacities:?}");
}

#[test]
fn an_outcome_that_fails_its_check_changes_nothing() {
    let s = Scheduler::new(Duration::from_secs(60));
    let a = s.register("a".into(), 64);
    s.submit(tasks(0..3));
    assert_eq!(ids(&s.lease(a, 1)), [0]);
    let refuse = |_: TaskId, _: &Task, _: &TaskResult| Err("does not fit");
    let (completions, refused) = s.record([Delivery { worker: a, id: 0, outcome: fail("x") }], refuse);
    assert_eq!((completions.len(), refused), (0, Some("does not fit")));
    assert_eq!(s.stats().completed, 0);
    assert_eq!(counted(&s), 1, "the lease stands");
    // Checked against the open task; a task no longer open is not checked (its outcome is a
    // duplicate whatever it holds).
    let mut seen = Vec::new();
    let (completions, _) = s.record([Delivery { worker: a, id: 0, outcome: fail("x") }], |id, task: &Task, _| {
        seen.push((id, task.as_match().map(|m| m.network_depth)));
        Ok::<(), ()>(())
    });
    assert_eq!((completions, seen), (vec![Completion::Accepted], vec![(0, Some(1))]));
    let (again, refused) = s.record([Delivery { worker: a, id: 0, outcome: fail("x") }], refuse);
    assert_eq!((again, refused), (vec![Completion::Duplicate], None));
}

#[test]
fn queued_tasks_wake_one_waiting_lease_call_each_and_closing_wakes_all() {
    use std::future::Future;
    let s = Scheduler::new(Duration::from_secs(60));
    let mut waiting: Vec<_> = (0..10).map(|_| Box::pin(s.work_arrived.notified())).collect();
    for w in &mut waiting {
        w.as_mut().enable();
    }
    let woken = |waiting: &mut [std::pin::Pin<Box<tokio::sync::futures::Notified<'_>>>]| -> Vec<bool> {
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        waiting.iter_mut().map(|w| w.as_mut().poll(&mut cx).is_ready()).collect()
    };
    s.submit(tasks(0..2));
    // The two that waited longest, and only they.
    let ready = woken(&mut waiting);
    assert_eq!(ready, [true, true, false, false, false, false, false, false, false, false]);
    // Tasks already open add nothing to wake for.
    s.submit(tasks(0..2));
    assert_eq!(woken(&mut waiting).iter().filter(|&&r| r).count(), 2);
    s.close();
    assert!(woken(&mut waiting).iter().all(|&r| r));
}

/// Each worker's oldest open lease the slow way: a scan of every open task's leases.
fn oldest_by_scan(s: &Scheduler, now: Instant) -> HashMap<WorkerId, Duration> {
    let mut oldest: HashMap<WorkerId, Duration> = HashMap::new();
    for lease in s.lock().open.values().flat_map(|e| &e.leases) {
        let age = now.saturating_duration_since(lease.since);
        let slot = oldest.entry(lease.worker).or_default();
        *slot = (*slot).max(age);
    }
    oldest
}

#[test]
fn the_oldest_leases_kept_as_granted_agree_with_a_scan() {
    let (s, clock) = manual(Duration::from_secs(10));
    let now = |s: &Scheduler| s.now();
    let check = |s: &Scheduler, when: &str| {
        let kept: HashMap<WorkerId, Duration> =
            s.workers().into_iter().filter_map(|(id, w)| Some((id, w.oldest_lease?))).collect();
        assert_eq!(kept, oldest_by_scan(s, s.now()), "{when}");
    };
    let (a, b, c) = (s.register("a".into(), 64), s.register("b".into(), 64), s.register("c".into(), 64));
    s.submit(tasks(0..12));
    assert_eq!(ids(&s.lease(a, 3)), [0, 1, 2]);
    advance(&clock, 100);
    assert_eq!(ids(&s.lease(b, 3)), [3, 4, 5]);
    advance(&clock, 100);
    check(&s, "leased");
    // Out of order: a's newest, then b's oldest.
    complete(&s, a, 2, fail("x"));
    complete(&s, b, 3, fail("x"));
    check(&s, "completed out of order");
    advance(&clock, 100);
    assert_eq!(ids(&s.lease(c, 2)), [6, 7]);
    complete(&s, a, 0, fail("x"));
    check(&s, "a's oldest done");
    // Everything lapses: the tasks go back to the queue, and nobody holds anything (asked of
    // the scan only, so the logs still hold the lapsed leases when some are granted again).
    advance(&clock, 20_000);
    s.expire_leases();
    assert!(oldest_by_scan(&s, now(&s)).is_empty());
    // Leased again (the lapsed ones after the rest: a gets its own task 1 back, granted anew),
    // then b leaves with its leases.
    let by_b = ids(&s.lease(b, 2));
    advance(&clock, 50);
    let by_a = ids(&s.lease(a, 20));
    assert_eq!(by_b.len() + by_a.len(), 9);
    check(&s, "leased again");
    s.unregister(b);
    check(&s, "b gone");
    for &id in &by_a[..4] {
        complete(&s, a, id, fail("x"));
    }
    advance(&clock, 5_000);
    check(&s, "a's first four done");
    // c takes b's two tasks, back in the queue, and then, the queue empty, a backup copy of
    // one of a's straggling leases.
    assert_eq!(s.lease(c, 3).len(), 3);
    assert_eq!(s.stats().backups, 1);
    check(&s, "a backup copy");
    assert_eq!(s.stats().in_flight, counted(&s));
}

/// The tasks whose every lease has lapsed at `now`, by a scan of every open task (the rule
/// `expire_leases` applied before it read the workers' logs instead).
fn lapsed_by_scan(s: &Scheduler, lease_time: Duration) -> Vec<TaskId> {
    let (st, now) = (s.lock(), s.now());
    let renewed = |w: WorkerId| st.workers.get(&w).and_then(|w| w.renewed);
    let lapsed = |l: &Lease| renewed(l.worker).map_or(l.since, |at| at.max(l.since)) + lease_time <= now;
    let mut ids: Vec<TaskId> = st
        .open
        .iter()
        .filter(|(_, e)| !e.leases.is_empty() && e.leases.iter().all(lapsed))
        .map(|(&id, _)| id)
        .collect();
    ids.sort_unstable();
    ids
}

#[test]
fn expiry_read_from_the_lease_logs_agrees_with_a_scan_of_every_task() {
    let lease_time = Duration::from_secs(10);
    let (s, clock) = manual(lease_time);
    let mut workers: Vec<WorkerId> = (0..4).map(|i| s.register(format!("w{i}"), 64)).collect();
    s.submit(tasks(0..80));
    // A fixed pseudo-random walk (an LCG) through leases, completions, renewals, backups (the
    // queue runs dry), a worker leaving and another joining, and time passing.
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let mut next = |n: u64| {
        state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (state >> 33) % n
    };
    let (mut expired, mut checks) = (0, 0);
    for step in 0..600 {
        let w = workers[next(workers.len() as u64) as usize];
        match next(10) {
            0..=2 => {
                s.lease(w, 1 + next(4) as usize);
            }
            3..=4 => {
                let held: Vec<TaskId> = {
                    let st = s.lock();
                    let mut ids: Vec<TaskId> = st
                        .open
                        .iter()
                        .filter(|(_, e)| e.leases.iter().any(|l| l.worker == w))
                        .map(|(&id, _)| id)
                        .collect();
                    ids.sort_unstable();
                    ids
                };
                if let Some(&id) = held.get(next(held.len().max(1) as u64) as usize) {
                    complete(&s, w, id, fail("x"));
                }
            }
            5 => s.renew(w),
            6 if step % 150 == 149 => {
                s.unregister(w);
                workers.retain(|&x| x != w);
                workers.push(s.register(format!("joined at {step}"), 64));
            }
            _ => advance(&clock, next(4_000)),
        }
        if step % 7 == 0 {
            let expected = lapsed_by_scan(&s, lease_time);
            let before = s.lock().queue.len();
            s.expire_leases();
            let added: Vec<TaskId> = s.lock().queue.iter().skip(before).copied().collect();
            assert_eq!(added, expected, "step {step}");
            assert_eq!(s.stats().in_flight, counted(&s), "step {step}");
            (expired, checks) = (expired + added.len(), checks + 1);
        }
    }
    // The walk did exercise it: expiries happened, and backups were leased.
    assert!(expired > 20 && checks > 80, "{expired} expired in {checks} checks");
    assert!(s.stats().backups > 0);
}
