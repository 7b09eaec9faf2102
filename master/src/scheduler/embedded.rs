//! Embedded workers: threads of the master process that pull tasks from the scheduler like any
//! remote worker.

use super::{Delivery, Scheduler, unchecked};
use loa_engine::tasks::TaskFailure;
use std::sync::Arc;
use std::time::Duration;

/// Runs `threads` in-process workers that pull tasks until the scheduler closes.
pub fn spawn_embedded_workers(
    scheduler: &Arc<Scheduler>,
    threads: usize,
) -> std::io::Result<Vec<std::thread::JoinHandle<()>>> {
    (0..threads.max(1))
        .map(|i| {
            let scheduler = Arc::clone(scheduler);
            std::thread::Builder::new().name(format!("worker-{i}")).spawn(move || {
                let id = scheduler.register(format!("embedded-{i}"), 1);
                while !scheduler.is_closed() {
                    for (task_id, task) in scheduler.lease_wait(id, 1, Duration::from_millis(200)) {
                        let outcome = task.run().map_err(TaskFailure::Invalid);
                        let delivery = Delivery { worker: id, id: task_id, outcome };
                        let _ = scheduler.record([delivery], unchecked);
                    }
                }
                scheduler.unregister(id);
            })
        })
        .collect()
}
