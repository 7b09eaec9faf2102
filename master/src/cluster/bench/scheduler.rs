//! The scheduler alone: what its lease and complete calls cost a task, without the network,
//! protobuf or a second thread, for a step of the benchmark's size (issue 14). The stubs'
//! pattern, on one thread: each worker leases a batch, then delivers the batch's outcomes
//! together (one [`Scheduler::complete_each`], as the service does for a `DeliverBatches`
//! message), each outcome leasing the next task.

use crate::scheduler::{Delivery, Scheduler, TaskId};
use loa_engine::tasks::{Task, TaskFailure, TournamentTask};
use std::time::{Duration, Instant};

/// Steps timed (after one untimed, which faults the tables' pages in).
const STEPS: u64 = 3;

/// Seconds of scheduler time a task, leased and completed by `workers` workers in batches of
/// `batch`, in steps of `tasks` tasks.
pub fn scheduler_seconds_per_task(tasks: usize, workers: usize, batch: usize) -> f64 {
    let scheduler = Scheduler::new(Duration::from_secs(3600));
    let workers: Vec<_> = (0..workers.max(1)).map(|i| scheduler.register(format!("stub {i}"))).collect();
    // Tasks the scheduler only moves around; outcomes that allocate nothing.
    let task = Task::Tournament(TournamentTask { entrants: Vec::new(), rules: Default::default(), depth: 1, seed: 0 });
    let mut spent = Duration::ZERO;
    for step in 0..=STEPS {
        // Ids as a run makes them: the generation in the high bits, the index in the low.
        let ids: Vec<TaskId> = (0..tasks as u64).map(|i| (step << 24) | i).collect();
        scheduler.submit(ids.iter().map(|&id| (id, task.clone())).collect());
        let start = Instant::now();
        let mut held: Vec<Vec<TaskId>> =
            workers.iter().map(|&w| scheduler.lease(w, batch).into_iter().map(|(id, _)| id).collect()).collect();
        while held.iter().any(|h| !h.is_empty()) {
            for (&worker, held) in workers.iter().zip(&mut held) {
                let outcomes = std::mem::take(held).into_iter().map(|id| Delivery {
                    id,
                    outcome: Err(TaskFailure::Reported(String::new())),
                    max: 1,
                });
                let (answers, _) =
                    scheduler.complete_each(worker, &mut outcomes.into_iter(), |_, _, _| Ok::<(), ()>(()));
                held.extend(answers.into_iter().flat_map(|(_, leased)| leased).map(|(id, _)| id));
            }
        }
        if step > 0 {
            spent += start.elapsed();
        }
        scheduler.collect(&ids, || false, |_| {});
    }
    spent.as_secs_f64() / (STEPS as f64 * tasks.max(1) as f64)
}

/// Milliseconds a call of the scheduler's counters ([`Scheduler::stats`], with its straggler
/// count: what every progress tick asks) takes with `workers` workers holding `tasks` tasks, of
/// which half have been completed (so the batch has a median and every worker an oldest lease).
pub fn stats_milliseconds(tasks: usize, workers: usize) -> f64 {
    let scheduler = Scheduler::new(Duration::from_secs(3600));
    let workers: Vec<_> = (0..workers.max(1)).map(|i| scheduler.register(format!("stub {i}"))).collect();
    let task = Task::Tournament(TournamentTask { entrants: Vec::new(), rules: Default::default(), depth: 1, seed: 0 });
    scheduler.submit((0..tasks as u64).map(|i| (i, task.clone())).collect());
    let each = tasks.div_ceil(workers.len());
    let held: Vec<Vec<TaskId>> =
        workers.iter().map(|&w| scheduler.lease(w, each).into_iter().map(|(id, _)| id).collect()).collect();
    for (&worker, held) in workers.iter().zip(&held) {
        for &id in held.iter().step_by(2) {
            scheduler.complete(worker, id, Err(TaskFailure::Reported(String::new())));
        }
    }
    let calls = 10;
    let start = Instant::now();
    for _ in 0..calls {
        std::hint::black_box(scheduler.stats());
    }
    start.elapsed().as_secs_f64() * 1e3 / f64::from(calls)
}
