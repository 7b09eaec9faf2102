//! Outcomes in: `Complete`, each request on a `Deliver` stream, and the requests of a
//! `DeliverBatches` message, all answered by [`MasterService::answer_requests`].
//!
//! A batch is answered exactly as its requests one after another would be, refusals and drops
//! included, but each run of requests from one worker costs one lookup of the worker, one
//! scheduler lock ([`Scheduler::complete_each`](crate::scheduler::Scheduler::complete_each)) and
//! one pass over the worker's mirror for the tasks it leases (issue 14: a master's cost per
//! outcome at ten thousand workers).

use super::MasterService;
use crate::cluster::{DropReason, MAX_LEASE};
use crate::scheduler::{Completion, Delivery, Leased, WorkerId};
use loa_engine::tasks::{Task, TaskOutcome, TaskResult};
use loa_proto::convert::result_from_proto;
use loa_proto::pb;
use tonic::Status;

/// A request read and validated on its own, before any state is touched.
enum Read {
    /// Refused for a bad field: changes nothing.
    Refused(Status),
    /// Its outcome does not decode: the worker is dropped.
    Malformed(String),
    /// To be recorded.
    Outcome(Delivery),
}

impl MasterService {
    /// The answers to `requests`, in order, each what a `Complete` call with it would return.
    pub(super) fn answer_requests(&self, requests: Vec<pb::CompleteRequest>) -> Vec<Result<pb::CompleteReply, Status>> {
        let mut answers: Vec<Option<Result<pb::CompleteReply, Status>>> = (0..requests.len()).map(|_| None).collect();
        let mut read = Vec::with_capacity(requests.len());
        for (i, r) in requests.into_iter().enumerate() {
            match self.read(r) {
                (_, Read::Refused(status)) => answers[i] = Some(Err(status)),
                (wire_id, read_request) => read.push((i, wire_id, read_request)),
            }
        }
        let mut read = read.into_iter().peekable();
        while let Some(&(_, wire_id, _)) = read.peek() {
            // A run: this worker's outcomes in a row, up to the first it must be dropped for.
            // An outcome from a worker this process does not know (e.g. leased from the master
            // before a restart) is still the outcome of that task id: recorded on behalf of
            // nobody, and nobody gets tasks.
            let worker = self.resolve(wire_id);
            let on_behalf_of = worker.unwrap_or(WorkerId::MAX);
            let mut places = Vec::new();
            let mut outcomes = std::iter::from_fn(|| {
                let (i, _, read_request) = read.next_if(|(_, w, r)| *w == wire_id && matches!(r, Read::Outcome(_)))?;
                match read_request {
                    Read::Outcome(delivery) => {
                        places.push((i, delivery.id));
                        Some(delivery)
                    }
                    Read::Refused(_) | Read::Malformed(_) => None,
                }
            });
            let (recorded, refused) = self.scheduler.complete_each(on_behalf_of, &mut outcomes, fits);
            // The refused outcome is the one after those recorded.
            let mut failure = refused.and_then(|e| places.get(recorded.len()).map(|&(i, _)| (i, e)));
            if failure.is_none()
                && let Some((i, _, Read::Malformed(e))) =
                    read.next_if(|(_, w, r)| *w == wire_id && matches!(r, Read::Malformed(_)))
            {
                failure = Some((i, e));
            }
            // Tasks in reply order, the order the worker meets their ids in.
            let leased: Vec<&[Leased]> = recorded.iter().map(|(_, leased)| &leased[..]).collect();
            let mut tasks = self.to_wire_each(on_behalf_of, &leased).into_iter();
            for (&(i, task_id), (completion, _)) in places.iter().zip(&recorded) {
                answers[i] = Some(reply(*completion, tasks.next().unwrap_or_default(), task_id));
            }
            if let Some((i, e)) = failure {
                // A worker that sends garbage cannot be trusted with its other tasks either:
                // drop it, so its leases go back to the queue (it may register again).
                if let Some(worker) = worker {
                    self.drop_worker(worker, DropReason::MalformedOutcome);
                }
                answers[i] = Some(Err(self.invalid(e)));
            }
        }
        answers.into_iter().map(|a| a.unwrap_or_else(|| Err(Status::internal("request not answered")))).collect()
    }

    /// A request's wire worker id and what it asks, checked on its own.
    fn read(&self, r: pb::CompleteRequest) -> (u64, Read) {
        // Checked before the outcome is looked at, so a refused call changes nothing. A master
        // serving as an older one ignores the field, as those do (they cannot read it).
        let max_tasks = if self.complete_leases { r.max_tasks } else { 0 };
        if max_tasks > MAX_LEASE {
            let status = self.invalid(format!("max_tasks: at most {MAX_LEASE} tasks a call, got {}", r.max_tasks));
            return (r.worker_id, Read::Refused(status));
        }
        let read = match result_from_proto(r.result.as_ref()) {
            Ok(outcome) => Read::Outcome(Delivery { id: r.task_id, outcome, max: max_tasks as usize }),
            Err(e) => Read::Malformed(e.to_string()),
        };
        (r.worker_id, read)
    }

    /// One request's answer: what the unary `Complete` returns.
    pub(super) fn answer_one(&self, request: pb::CompleteRequest) -> Result<pb::CompleteReply, Status> {
        self.answer_requests(vec![request]).pop().unwrap_or_else(|| Err(Status::internal("no answer")))
    }

    /// `Complete`'s answer on a stream: its reply, or the status it failed with.
    pub(super) fn answer(&self, request: pb::CompleteRequest) -> pb::DeliverReply {
        deliver_reply(self.answer_one(request))
    }

    /// [`MasterService::answer_batch`], then, if the batch asks to wait (`wait_ms`) and its last
    /// reply leased nothing to a worker that holds no other task, the tasks leased to it within
    /// that wait, in that reply (see `DeliveryBatch` in the proto).
    pub(super) async fn answer_batch_waiting(&self, batch: pb::DeliveryBatch) -> pb::DeliveryBatchReply {
        let wait = self.wait_bound(batch.wait_ms);
        let last = batch.requests.last().map(|r| (r.worker_id, r.max_tasks));
        let mut reply = self.answer_batch(batch);
        let Some((wire_id, max)) = last else { return reply };
        let Some(pb::DeliverReply { answer: Some(pb::deliver_reply::Answer::Reply(last)) }) = reply.answers.last_mut()
        else {
            return reply;
        };
        if wait.is_zero() || max == 0 || !last.tasks.is_empty() {
            return reply;
        }
        let Some(worker) = self.resolve(wire_id) else { return reply };
        // A worker with a task in play may yet deliver on this stream: its reply must not wait.
        if self.scheduler.holds_lease(worker) {
            return reply;
        }
        let leased = self.lease_waiting(worker, (max as usize).min(MAX_LEASE as usize), wait).await;
        last.tasks = self.to_wire_each(worker, &[&leased]).into_iter().flatten().collect();
        reply
    }

    /// The answers to a `DeliverBatches` message: each request's, in order, as on `Deliver`. A
    /// batch over its bounds ([`MAX_LEASE`] requests, [`MAX_LEASE`] tasks asked for in all) has
    /// every request refused, and changes nothing.
    pub(super) fn answer_batch(&self, batch: pb::DeliveryBatch) -> pb::DeliveryBatchReply {
        let requests = batch.requests.len();
        let asked: u64 = batch.requests.iter().map(|r| u64::from(r.max_tasks)).sum();
        if requests > MAX_LEASE as usize || asked > u64::from(MAX_LEASE) {
            let status = self.invalid(format!(
                "a batch holds at most {MAX_LEASE} outcomes asking for at most {MAX_LEASE} tasks in all, \
                 got {requests} asking for {asked}"
            ));
            let refused = deliver_reply(Err(status));
            return pb::DeliveryBatchReply { answers: vec![refused; requests] };
        }
        pb::DeliveryBatchReply {
            answers: self.answer_requests(batch.requests).into_iter().map(deliver_reply).collect(),
        }
    }
}

/// Whether an outcome fits the task it answers (the wire cannot tell: outcomes travel without
/// their task), asked with the task still open, under the lock that records the outcome.
fn fits(id: u64, task: &Task, outcome: &TaskResult) -> Result<(), String> {
    match (task, outcome) {
        (Task::Match(task), Ok(TaskOutcome::Match(m))) => {
            task.check_outcome(m).map_err(|e| format!("outcome of task {id}: {e}"))
        }
        (Task::Match(_), Ok(_)) => Err(format!("outcome of task {id}: not a match outcome")),
        _ => Ok(()),
    }
}

/// `Complete`'s reply for a recorded outcome, with the tasks leased after it.
fn reply(completion: Completion, tasks: Vec<pb::Task>, task_id: u64) -> Result<pb::CompleteReply, Status> {
    let completion = match completion {
        Completion::Accepted => pb::Completion::Accepted,
        Completion::Duplicate => pb::Completion::Duplicate,
        Completion::Unknown => pb::Completion::Unknown,
        Completion::NotLeased => {
            return Err(Status::permission_denied(format!(
                "task {task_id} is not leased to this worker: outcome refused"
            )));
        }
    };
    Ok(pb::CompleteReply { completion: completion as i32, tasks })
}

/// An answer as a stream carries it: the reply, or the status the call failed with.
fn deliver_reply(answer: Result<pb::CompleteReply, Status>) -> pb::DeliverReply {
    let answer = match answer {
        Ok(reply) => pb::deliver_reply::Answer::Reply(reply),
        Err(status) => pb::deliver_reply::Answer::Error(pb::CallError {
            code: status.code() as i32,
            message: status.message().to_owned(),
        }),
    };
    pb::DeliverReply { answer: Some(answer) }
}

#[cfg(test)]
mod tests;
