//! One worker's `Work` stream: outcomes in, tasks out. The master leases as many tasks as the
//! worker wants, at most [`MAX_TASKS_PER_MESSAGE`] a message; each message with outcomes is
//! recorded under one scheduler lock and answered with a receipt, with the tasks leased after it.

use super::{MasterService, unknown_worker};
use crate::cluster::DropReason;
use crate::scheduler::{Completion, Delivery, TaskId, WorkerId};
use loa_engine::tasks::{Task, TaskResult};
use loa_proto::convert::outcome_from_proto;
use loa_proto::{MAX_TASKS_PER_MESSAGE, MAX_WANTED, pb};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;
use tokio::sync::Notify;
use tokio::sync::mpsc::Sender;
use tonic::{Code, Status};

/// How often a worker that wants tasks looks for a straggler's task to back up, which nothing
/// notifies (a quarter of the straggler floor of 1 s).
const RECHECK: Duration = Duration::from_millis(250);

/// A worker's stream, as the master serves it.
pub(super) struct WorkerStream {
    pub(super) service: MasterService,
    pub(super) worker: WorkerId,
    /// The id the worker knows itself by.
    pub(super) wire_id: u64,
    /// Where the master's messages go.
    pub(super) out: Sender<Result<pb::MasterMessage, Status>>,
    /// Notified when the worker is dropped.
    pub(super) gone: Arc<Notify>,
    /// Tasks the worker asked for and was not yet sent.
    pub(super) wanted: u64,
}

impl WorkerStream {
    /// Serves the stream from its `first` message until it ends: the worker leaves (ends it) or
    /// breaks it, is dropped, sends a malformed message, or the scheduler closes.
    pub(super) async fn run(mut self, first: pb::WorkerMessage, mut inbound: tonic::Streaming<pb::WorkerMessage>) {
        let mut next = Some(first);
        loop {
            let receipt = match next.take().map(|message| self.take(message)).transpose() {
                Ok(receipt) => receipt.flatten(),
                // Already taken off: its stream ends, as its `gone` would end it.
                Err(status) if status.code() == Code::NotFound => return self.end(status, None).await,
                Err(status) if status.code() == Code::Unauthenticated => {
                    return self.end(status, Some(DropReason::Quarantined)).await;
                }
                Err(status) => return self.end(status, Some(DropReason::MalformedOutcome)).await,
            };
            // Caught lying while it waited: it gets nothing more.
            if self.service.scheduler.is_quarantined(self.worker) {
                return self.end(quarantined(), Some(DropReason::Quarantined)).await;
            }
            // Registered before leasing, so tasks queued in between are not missed.
            let arrived = self.service.scheduler.work_arrived.notified();
            tokio::pin!(arrived);
            arrived.as_mut().enable();
            let want = (self.wanted as usize).min(MAX_TASKS_PER_MESSAGE);
            let leased = if want == 0 { Vec::new() } else { self.service.scheduler.lease(self.worker, want) };
            self.wanted -= leased.len() as u64;
            if receipt.is_some() || !leased.is_empty() {
                let tasks = self.service.to_wire(self.worker, &leased);
                if self.out.send(Ok(pb::MasterMessage { tasks, receipt })).await.is_err() {
                    // The worker is gone; its leases go back.
                    return self.service.take_off(self.worker, Some(DropReason::ConnectionClosed));
                }
                if !leased.is_empty() {
                    continue;
                }
            }
            if self.service.scheduler.is_closed() {
                // A stopped run may be resumed on this port: its workers wait for it.
                let why = if self.service.scheduler.is_over() { loa_proto::RUN_OVER } else { "the master is stopping" };
                return self.end(Status::unavailable(why), None).await;
            }
            let waiting = self.wanted > 0;
            tokio::select! {
                message = inbound.message() => match message {
                    Ok(Some(message)) => next = Some(message),
                    Ok(None) => return self.service.take_off(self.worker, None),
                    Err(status) => {
                        // A message that does not decode (or is over the size limit) is the
                        // worker's fault; anything else is the connection's.
                        let reason = match status.code() {
                            Code::InvalidArgument | Code::OutOfRange | Code::ResourceExhausted => {
                                self.service.counters.invalid.fetch_add(1, Ordering::Relaxed);
                                DropReason::MalformedOutcome
                            }
                            _ => DropReason::ConnectionClosed,
                        };
                        return self.end(status, Some(reason)).await;
                    }
                },
                () = &mut arrived, if waiting => {}
                () = tokio::time::sleep(RECHECK), if waiting => {}
                () = self.gone.notified() => {
                    let _ = self.out.send(Err(unknown_worker())).await;
                    return;
                }
            }
        }
    }

    /// Ends the stream with `status`, taking the worker off (as dropped for `reason`, if any).
    async fn end(&self, status: Status, reason: Option<DropReason>) {
        self.service.take_off(self.worker, reason);
        let _ = self.out.send(Err(status)).await;
    }

    /// Takes a message from the worker: renews its leases, records its outcomes and adds what it
    /// wants. The receipt, if it carried outcomes; else what to end the stream with.
    fn take(&mut self, message: pb::WorkerMessage) -> Result<Option<pb::Receipt>, Status> {
        // A worker dropped while its message was on the way holds no lease: nothing it sends
        // counts, and it must register again.
        if !self.service.remote().contains_key(&self.worker) {
            return Err(unknown_worker());
        }
        if self.service.scheduler.is_quarantined(self.worker) {
            return Err(quarantined());
        }
        self.service.heard(self.worker);
        let invalid = |problem: String| self.service.invalid(problem);
        if message.worker_id != 0 && message.worker_id != self.wire_id {
            return Err(invalid(format!("worker_id: {} on the stream of worker {}", message.worker_id, self.wire_id)));
        }
        if message.outcomes.len() > MAX_TASKS_PER_MESSAGE {
            let n = message.outcomes.len();
            return Err(invalid(format!("outcomes: at most {MAX_TASKS_PER_MESSAGE} a message, got {n}")));
        }
        let wanted = self.wanted + u64::from(message.want);
        if wanted > MAX_WANTED {
            return Err(invalid(format!("want: at most {MAX_WANTED} tasks asked for and not yet sent, got {wanted}")));
        }
        self.wanted = wanted;
        if message.outcomes.is_empty() {
            return Ok(None);
        }
        let mut deliveries = Vec::with_capacity(message.outcomes.len());
        // Failures are claims the master checks, not outcomes: each with its sender and message.
        let mut failures = Vec::new();
        for (i, outcome) in message.outcomes.iter().enumerate() {
            let (id, leased_to, outcome) =
                outcome_from_proto(outcome).map_err(|e| invalid(e.within(&format!("outcomes[{i}]")).to_string()))?;
            // Leased under an earlier registration: on behalf of that worker if this master still
            // knows it, else of no registered worker, which the scheduler refuses.
            let worker = match leased_to {
                0 => self.worker,
                id => self.service.resolve(id).unwrap_or(WorkerId::MAX),
            };
            match outcome {
                Err(failure) => failures.push((worker, id, failure.wire_message())),
                outcome => deliveries.push(Delivery { worker, id, outcome }),
            }
        }
        let ids: Vec<TaskId> = deliveries.iter().map(|d| d.id).collect();
        let (completions, misfit) = self.service.scheduler.record(deliveries, fits);
        if let Some(why) = misfit {
            // A worker that sends outcomes that do not fit their tasks cannot be trusted with its
            // other tasks either.
            return Err(invalid(why));
        }
        let mut receipt = pb::Receipt::default();
        for (completion, id) in completions.into_iter().zip(ids) {
            tally(&mut receipt, completion, id);
        }
        for (worker, id, message) in failures {
            let completion = self.service.scheduler.claim_failure(worker, id);
            if completion == (Completion::Claimed { replay: true }) {
                self.service.replay(id, worker, message);
            }
            tally(&mut receipt, completion, id);
        }
        Ok(Some(receipt))
    }
}

/// How a quarantined worker's stream ends: UNAUTHENTICATED, at which a worker stops and says why.
pub(super) fn quarantined() -> Status {
    Status::unauthenticated(
        "quarantined: an outcome this worker sent differs from the master's own play of the task; this master \
         refuses it and its name until it exits. Check the worker's build and machine",
    )
}

/// Counts what became of the outcome of task `id` in `receipt`.
fn tally(receipt: &mut pb::Receipt, completion: Completion, id: TaskId) {
    match completion {
        // A claimed failure is taken: the task goes to another worker, and the master checks it.
        Completion::Accepted | Completion::Claimed { .. } => receipt.accepted += 1,
        Completion::Duplicate => receipt.duplicates += 1,
        Completion::Unknown => receipt.unknown += 1,
        Completion::NotLeased => receipt.refused.push(pb::Refusal {
            task_id: id,
            reason: format!("task {id} is not leased to this worker: outcome refused"),
        }),
        Completion::Unregistered => receipt.refused.push(pb::Refusal {
            task_id: id,
            reason: format!(
                "task {id} was leased under a worker id this master does not know (dropped, or issued by an \
                 earlier master process): outcome refused, a registered worker plays the task"
            ),
        }),
    }
}

/// Whether an outcome fits the task it answers (outcomes travel without their task).
fn fits(id: u64, task: &Task, outcome: &TaskResult) -> Result<(), String> {
    match outcome {
        Ok(m) => task.check_outcome(m).map_err(|e| format!("outcome of task {id}: {e}")),
        Err(_) => Ok(()),
    }
}
