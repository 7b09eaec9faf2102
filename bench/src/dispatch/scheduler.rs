//! The scheduler alone: what its calls cost a task, without the network, protobuf or a second
//! thread, for steps of the benchmark's size. The stubs' pattern, on one thread: each worker
//! holds a batch of tasks; for each message of a batch's outcomes the service renews the
//! worker's leases, records the outcomes under one lock ([`Scheduler::record`]) and leases as
//! many tasks again. What is left of the master CPU per task beyond this is the service's:
//! gRPC, protobuf, the mirrors of the workers' caches.

use loa_engine::tasks::{MatchTask, Task, TaskFailure, TaskResult};
use loa_master::scheduler::{Delivery, Scheduler, TaskId};
use std::time::{Duration, Instant};

/// Steps timed (after one untimed, which faults the tables' pages in).
const STEPS: u64 = 3;

/// Seconds of scheduler time a task, leased and recorded by `workers` workers in batches of
/// `batch`, in steps of `tasks` copies of `task`; NaN if a step's tasks did not all go through
/// (a scheduler's bug).
pub fn scheduler_seconds_per_task(task: &MatchTask, tasks: usize, workers: usize, batch: usize) -> f64 {
    let scheduler = Scheduler::new(Duration::from_secs(3600));
    let workers: Vec<_> = (0..workers.max(1)).map(|i| scheduler.register(format!("stub {i}"), 1)).collect();
    // Outcomes that allocate nothing: their making and freeing is not the scheduler's.
    let failure = || -> TaskResult { Err(TaskFailure::Reported(String::new())) };
    let accept = |_: TaskId, _: &Task, _: &TaskResult| Ok::<(), ()>(());
    let mut spent = Duration::ZERO;
    for step in 0..=STEPS {
        // Ids as a run makes them: the generation in the high bits, the index in the low.
        let ids: Vec<TaskId> = (0..tasks as u64).map(|i| (step << 24) | i).collect();
        scheduler.submit(ids.iter().map(|&id| (id, Task::Match(task.clone()))).collect());
        let start = Instant::now();
        let mut held: Vec<Vec<TaskId>> =
            workers.iter().map(|&w| scheduler.lease(w, batch).into_iter().map(|(id, _)| id).collect()).collect();
        while held.iter().any(|h| !h.is_empty()) {
            for (&worker, held) in workers.iter().zip(&mut held) {
                if held.is_empty() {
                    continue;
                }
                scheduler.renew(worker);
                let outcomes = held.drain(..).map(|id| Delivery { worker, id, outcome: failure() });
                let (completions, _) = scheduler.record(outcomes.collect::<Vec<_>>(), accept);
                held.extend(scheduler.lease(worker, completions.len()).into_iter().map(|(id, _)| id));
            }
        }
        if step > 0 {
            spent += start.elapsed();
        }
        // Every outcome is in when the queue is empty: the collect returns at once.
        if scheduler.collect(&ids, || true, |_| {}).is_none() {
            return f64::NAN;
        }
    }
    spent.as_secs_f64() / (STEPS as f64 * tasks.max(1) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_task_goes_through_and_takes_some_time() {
        let task = super::super::workload::tournament(0, 1);
        let seconds = scheduler_seconds_per_task(&task, 200, 3, 4);
        assert!(seconds.is_finite() && seconds > 0.0 && seconds < 1e-3, "{seconds}");
    }
}
