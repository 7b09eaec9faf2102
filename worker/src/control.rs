//! Stopping a worker from another thread, and workers on background threads.

use crate::{WorkerError, WorkerOptions, WorkerReport, run};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Stops a running worker from another thread.
#[derive(Clone, Debug, Default)]
pub struct Control {
    stop: Arc<AtomicBool>,
    kill: Arc<AtomicBool>,
}

impl Control {
    /// Finish the tasks in hand, deliver their outcomes, leave.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Release);
    }
    /// Stop at once: no more calls, no outcomes, no leave (a simulated crash).
    pub fn kill(&self) {
        self.kill.store(true, Ordering::Release);
    }
    /// Whether [`Control::stop`] or [`Control::kill`] was called.
    pub fn stopping(&self) -> bool {
        self.stop.load(Ordering::Acquire) || self.killed()
    }
    /// Whether [`Control::kill`] was called.
    pub fn killed(&self) -> bool {
        self.kill.load(Ordering::Acquire)
    }
}

/// A worker running on its own thread.
pub struct WorkerHandle {
    control: Control,
    thread: std::thread::JoinHandle<Result<WorkerReport, WorkerError>>,
}

/// Starts a worker on a background thread.
pub fn spawn(options: WorkerOptions) -> std::io::Result<WorkerHandle> {
    let control = Control::default();
    let inner = control.clone();
    let thread = std::thread::Builder::new().name("worker".into()).spawn(move || run(options, inner))?;
    Ok(WorkerHandle { control, thread })
}

impl WorkerHandle {
    /// Stops it gracefully and waits for it.
    pub fn stop(self) -> Result<WorkerReport, WorkerError> {
        self.control.stop();
        self.join()
    }

    /// Kills it (no leave, no outcomes) and waits for its network side to end.
    pub fn kill(self) -> Result<WorkerReport, WorkerError> {
        self.control.kill();
        self.join()
    }

    /// Waits for it to end on its own.
    pub fn join(self) -> Result<WorkerReport, WorkerError> {
        self.thread.join().unwrap_or_else(|_| Err(WorkerError::Options("the worker thread panicked".into())))
    }
}
