//! The worker's network side: registering, leasing ahead, reporting and heartbeats, as three
//! concurrent loops on one small runtime.
//!
//! **Leases ride on outcomes** (issue 14): when the master offers it, the delivery of an outcome
//! asks for the tasks that bring the worker back to its target (`CompleteRequest.max_tasks`), so
//! a task costs the master one call instead of a Lease and a Complete. The lease loop then only
//! fills what no delivery can: the start, and the gaps when a reply brought nothing (the queue
//! was empty). Calls that lease (a Lease, or a Complete asking for tasks) take turns: at most one
//! is in flight, and its reply is resolved against the chromosome cache before the next is sent,
//! so the cache meets ids in the order the master's mirror of it was fed. A delivery that finds
//! another lease in flight sends its outcome alone rather than wait.
//!
//! **Outcomes on one stream** (issue 14): when the master offers `Deliver`, outcomes go as
//! messages on one long-lived stream instead of a `Complete` call each (no HTTP/2 stream, headers
//! and trailers a task at the master). The stream answers in order, so deliveries take turns on
//! it; one that breaks is dropped and the next delivery opens another.
//!
//! **Outcomes in batches** (issue 14, `WorkerOptions::batch` above 1, when the master offers
//! `DeliverBatches`): finished outcomes wait until there are `batch` of them or no unstarted task
//! is left, then go in one message, the last asking for the tasks that replace them. The worker
//! holds `batch − 1` tasks more than without, so its players play on while a batch travels.
//! Every batch asks the master to hold its reply for up to `LEASE_WAIT_MS` should it lease
//! nothing to a worker left with no task (`DeliveryBatch.wait_ms`): between a run's steps the
//! next step's tasks then come in that reply, without a Lease call (a unary call costs the
//! master several times a stream message). A master that predates the field answers at once,
//! and the lease loop fills the gap as before.

use crate::client::{Backoff, Client};
use crate::players::Leased;
use crate::players::{Finished, Local};
use crate::{Control, WorkerOptions, WorkerReport};
use loa_engine::tasks::TaskFailure;
use loa_proto::cache::{ChromosomeCache, resolve_entrants};
use loa_proto::convert::{id_to_proto, result_to_proto, task_from_proto_with};
use loa_proto::delivery::{self, Answer, BatchStream, DeliveryStream};
use loa_proto::pb;
use loa_proto::peers::{PeerToken, Peers};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::mpsc::UnboundedReceiver;
use tonic::Code;

/// How long a lease call may wait at the master for work to appear.
const LEASE_WAIT_MS: u32 = 1000;
/// How long a stopping worker keeps trying to deliver finished outcomes to an absent master.
const FLUSH_LIMIT: Duration = Duration::from_secs(10);

/// What the loops share.
pub struct Session {
    pub client: Client,
    pub options: WorkerOptions,
    pub control: Control,
    pub local: Arc<Local>,
    /// The id the master gave us; 0 while not registered.
    pub worker: AtomicU64,
    /// Heartbeat period (a third of the master's lease time).
    pub heartbeat: Mutex<Duration>,
    /// When the master last answered.
    pub last_contact: Mutex<Instant>,
    pub report: Mutex<WorkerReport>,
    pub salt: u64,
    /// Chromosomes kept between tasks (issue 14; see `loa_proto::cache`). Only calls that lease
    /// use it (the lease loop's, and deliveries asking for tasks), one at a time under
    /// [`Session::leasing`], reply after reply, in the order the master mirrors. The peer
    /// service reads it without reordering it.
    pub cache: Arc<Mutex<ChromosomeCache>>,
    /// Other workers to fetch chromosomes from (issue 14), with the master's peer token.
    pub peers: Peers,
    /// The peer token the master gave at registration, shared with the peer service.
    pub peer_token: PeerToken,
    /// The port this worker's peer service listens on, 0 if it serves none.
    pub peer_port: u16,
    /// One permit: the turn of the one call that leases (see the module docs).
    pub leasing: tokio::sync::Semaphore,
    /// The master we registered with leases in Complete replies, and the options allow it.
    pub complete_leases: AtomicBool,
    /// The master we registered with serves `Deliver`, and the options allow it.
    pub delivery_stream: AtomicBool,
    /// The master we registered with serves `DeliverBatches`, and the options ask for batches.
    pub batch_delivery: AtomicBool,
    /// The open `Deliver` stream, if any (opened by the first delivery that needs it). Held for
    /// a request and its answer: the stream answers in order.
    pub stream: tokio::sync::Mutex<Option<DeliveryStream>>,
    /// The open `DeliverBatches` stream, if any, as `stream`.
    pub batches: tokio::sync::Mutex<Option<BatchStream>>,
}

/// Why the session ended early.
pub enum Ended {
    /// Asked to stop (Ctrl-C) or killed.
    Stopped,
    /// The master refused our token: retrying will not help.
    Refused(String),
    /// The master's TLS certificate is not signed by our CA: retrying will not help.
    Untrusted(String),
    /// The master has been unreachable for longer than the worker's patience.
    MasterGone,
}

impl Session {
    fn contact(&self) {
        *self.last_contact.lock().unwrap_or_else(|p| p.into_inner()) = Instant::now();
    }

    fn record(&self, f: impl FnOnce(&mut WorkerReport)) {
        f(&mut self.report.lock().unwrap_or_else(|p| p.into_inner()));
    }

    /// Classifies a failed call: `Err` ends the session, `Ok` means pause and retry.
    fn failed(&self, status: &tonic::Status) -> Result<(), Ended> {
        if status.code() == Code::Unauthenticated {
            return Err(Ended::Refused(status.message().to_owned()));
        }
        if let Some(why) = crate::client::certificate_refused(status) {
            return Err(Ended::Untrusted(why));
        }
        if status.code() == Code::NotFound {
            // The master forgot us (we were silent too long, or it restarted): register again.
            self.worker.store(0, Ordering::Release);
            self.contact();
            return Ok(());
        }
        if let Some(patience) = self.options.give_up_after {
            let since = self.last_contact.lock().unwrap_or_else(|p| p.into_inner()).elapsed();
            if since > patience {
                return Err(Ended::MasterGone);
            }
        }
        Ok(())
    }

    async fn register(&self, backoff: &mut Backoff) -> Result<u64, Ended> {
        loop {
            if self.control.stopping() {
                return Err(Ended::Stopped);
            }
            let announced = self.options.announced_cache.unwrap_or(self.options.chromosome_cache);
            let request = pb::RegisterRequest {
                name: self.options.name.clone(),
                slots: self.options.slots as u32,
                chromosome_cache: u32::try_from(announced).unwrap_or(u32::MAX),
                weight_bytes: true,
                origins: self.options.origins,
                peer_port: u32::from(self.peer_port),
                peer_host: if self.peer_port > 0 {
                    self.options.peer_host.clone().unwrap_or_default()
                } else {
                    String::new()
                },
            };
            match self.client.clone().register(request).await {
                Ok(reply) => {
                    let reply = reply.into_inner();
                    let lease = Duration::from_secs(u64::from(reply.lease_seconds.max(1)));
                    *self.heartbeat.lock().unwrap_or_else(|p| p.into_inner()) = lease / 3;
                    let combined = self.options.complete_leases && reply.complete_leases;
                    self.complete_leases.store(combined, Ordering::Release);
                    let stream = self.options.delivery_stream && reply.delivery_stream;
                    self.delivery_stream.store(stream, Ordering::Release);
                    let batches = self.options.delivery_stream && self.options.batch > 1 && reply.batch_delivery;
                    self.batch_delivery.store(batches, Ordering::Release);
                    self.peer_token.set(&reply.peer_token);
                    self.worker.store(reply.worker_id, Ordering::Release);
                    self.contact();
                    self.record(|r| r.registrations += 1);
                    backoff.reset();
                    return Ok(reply.worker_id);
                }
                Err(status) => {
                    self.failed(&status)?;
                    tokio::time::sleep(backoff.pause()).await;
                }
            }
        }
    }

    /// Outcomes to deliver together: `batch` when the master takes batches, else 1.
    fn batch(&self) -> usize {
        if self.batch_delivery.load(Ordering::Acquire) { self.options.batch } else { 1 }
    }

    /// Tasks to hold: `slots × ahead`, and `batch − 1` more while outcomes wait for a batch.
    fn target(&self) -> usize {
        self.options.slots * self.options.ahead.max(1) + self.batch() - 1
    }

    /// Keeps [`Session::target`] tasks held, so a player never waits for a round trip.
    pub async fn lease_loop(&self) -> Ended {
        let mut backoff = Backoff::new(self.options.max_backoff, self.salt);
        loop {
            let target = self.target();
            if self.control.stopping() {
                return Ended::Stopped;
            }
            let worker = match self.worker.load(Ordering::Acquire) {
                0 => match self.register(&mut backoff).await {
                    Ok(id) => id,
                    Err(end) => return end,
                },
                id => id,
            };
            let want = target.saturating_sub(self.local.held());
            // A result on its way asks for the tasks that replace it: leasing now as well would
            // cost the master the call the combined one saves.
            let refill_coming = self.complete_leases.load(Ordering::Acquire) && self.local.unreported() > 0;
            if want == 0 || refill_coming {
                tokio::time::sleep(Duration::from_millis(5)).await;
                continue;
            }
            // Our turn to lease; the count is taken again, since a delivery may have leased.
            let Ok(_turn) = self.leasing.acquire().await else { return Ended::Stopped };
            let want = target.saturating_sub(self.local.held()).min(loa_proto::MAX_TASKS_PER_CALL as usize);
            if want == 0 {
                continue;
            }
            let request = pb::LeaseRequest { worker_id: worker, max_tasks: want as u32, wait_ms: LEASE_WAIT_MS };
            match self.client.clone().lease(request).await {
                Ok(reply) => {
                    self.contact();
                    backoff.reset();
                    match self.receive(worker, reply.into_inner().tasks, &mut backoff).await {
                        Ok(tasks) => self.local.push(tasks),
                        Err(end) => return end,
                    }
                }
                Err(status) => {
                    if let Err(end) = self.failed(&status) {
                        return end;
                    }
                    if status.code() != Code::NotFound {
                        tokio::time::sleep(backoff.pause()).await;
                    }
                }
            }
        }
    }

    /// Turns a lease reply's tasks into tasks to play: networks named by id are found in the
    /// cache, those sent as origins are made from their parents (fetched from peers if the
    /// master named some), and what is still lacking is fetched from the master (the fallback,
    /// retried while the master is away). A task that fails validation is kept as its failure,
    /// to be reported; a task whose chromosomes the master no longer has is dropped (its outcome
    /// is in already).
    async fn receive(
        &self,
        worker: u64,
        mut tasks: Vec<pb::Task>,
        backoff: &mut Backoff,
    ) -> Result<Vec<Leased>, Ended> {
        let mut resolved = resolve_entrants(&mut tasks, &mut self.cache.lock().unwrap_or_else(|p| p.into_inner()));
        resolved.fetch_from_peers(&self.peers, &self.cache).await;
        let mut fetch_error = None;
        if !resolved.missing.is_empty() {
            let request = pb::FetchChromosomesRequest {
                task_ids: resolved.needing.clone(),
                ids: resolved.missing.iter().map(|&id| id_to_proto(id)).collect(),
            };
            loop {
                if self.control.stopping() {
                    return Err(Ended::Stopped);
                }
                match self.client.clone().fetch_chromosomes(request.clone()).await {
                    Ok(reply) => {
                        self.contact();
                        let mut cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
                        match resolved.accept_fetched(reply.into_inner().chromosomes, &mut cache) {
                            Ok(n) => self.record(|r| r.fetched += n as u64),
                            Err(e) => fetch_error = Some(format!("the master's chromosomes: {e}")),
                        }
                        break;
                    }
                    Err(status) if matches!(status.code(), Code::InvalidArgument | Code::Unimplemented) => {
                        // A bug or version skew that retrying cannot fix: the tasks fail, loudly.
                        fetch_error = Some(format!("fetching chromosomes: {}", status.message()));
                        break;
                    }
                    Err(status) => {
                        self.failed(&status)?;
                        tokio::time::sleep(backoff.pause()).await;
                    }
                }
            }
        }
        let mut abandoned = 0;
        let leased = tasks
            .into_iter()
            .filter_map(|mut t| {
                let id = t.id;
                if !resolved.complete(&mut t) {
                    let Some(e) = &fetch_error else {
                        abandoned += 1;
                        return None;
                    };
                    return Some((id, worker, Err(TaskFailure::Malformed(e.clone()))));
                }
                let task = task_from_proto_with(t, &|c| resolved.chromosome(c))
                    .map(|(_, task)| task)
                    .map_err(|e| TaskFailure::Malformed(e.to_string()));
                Some((id, worker, task))
            })
            .collect();
        self.record(|r| {
            r.received += resolved.received;
            r.cache_hits += resolved.hits;
            r.abandoned += abandoned;
            r.made += resolved.made;
            r.from_peers += resolved.from_peers;
            r.peer_misses += resolved.peer_misses;
            r.unusable += resolved.unusable;
        });
        Ok(leased)
    }

    /// Renews our leases a few times per lease time.
    pub async fn heartbeat_loop(&self) {
        loop {
            let period = *self.heartbeat.lock().unwrap_or_else(|p| p.into_inner());
            tokio::time::sleep(period.max(Duration::from_millis(100))).await;
            let worker = self.worker.load(Ordering::Acquire);
            if worker == 0 {
                continue;
            }
            match self.client.clone().heartbeat(pb::HeartbeatRequest { worker_id: worker }).await {
                Ok(_) => self.contact(),
                Err(status) if status.code() == Code::NotFound => {
                    // Only forget the id the master refused, not one registered since.
                    let _ = self.worker.compare_exchange(worker, 0, Ordering::AcqRel, Ordering::Acquire);
                }
                Err(_) => {} // the lease loop backs off and decides when to give up
            }
        }
    }

    /// The turn to lease with the outcome of a task leased as `leased_as`, and how many tasks to
    /// ask for; `None` when the master does not offer it, we are stopping, the task was leased
    /// under an earlier registration, another lease is in flight, or we hold enough.
    fn lease_with_outcome(&self, leased_as: u64) -> Option<(tokio::sync::SemaphorePermit<'_>, u32)> {
        if !self.complete_leases.load(Ordering::Acquire)
            || self.control.stopping()
            || self.worker.load(Ordering::Acquire) != leased_as
        {
            return None;
        }
        let turn = self.leasing.try_acquire().ok()?;
        // Taken with the turn held, so no other lease changes it meanwhile.
        let want = self.target().saturating_sub(self.local.held()).min(loa_proto::MAX_TASKS_PER_CALL as usize);
        (want > 0).then_some((turn, want as u32))
    }

    /// Delivers finished outcomes (one, or a batch on `DeliverBatches`), retrying while the
    /// master is away (a restarted master still accepts them: task ids do not change), and takes
    /// the tasks the reply leases (the last outcome asks for them). Gives up after `limit` if
    /// given. A retry after a broken stream may deliver an outcome twice: the master counts the
    /// second as a duplicate.
    async fn deliver(&self, finished: &[Finished], limit: Option<Instant>) {
        let Some(&(last_id, leased_as, _)) = finished.last() else { return };
        let mut backoff = Backoff::new(self.options.max_backoff, self.salt ^ last_id);
        let bodies: Vec<_> =
            finished.iter().map(|(id, worker, result)| (*id, *worker, result_to_proto(result))).collect();
        loop {
            if self.control.killed() {
                return;
            }
            // Asked for again on every attempt: the turn is not held across a back-off.
            let turn = self.lease_with_outcome(leased_as);
            let max_tasks = turn.as_ref().map_or(0, |(_, want)| *want);
            let last = bodies.len() - 1;
            let requests = bodies
                .iter()
                .enumerate()
                .map(|(i, (id, worker, body))| pb::CompleteRequest {
                    worker_id: *worker,
                    task_id: *id,
                    result: Some(body.clone()),
                    max_tasks: if i == last { max_tasks } else { 0 },
                })
                .collect();
            match self.complete(requests).await {
                Ok(answers) => {
                    self.contact();
                    let mut leased = Vec::new();
                    for (answer, (id, ..)) in answers.into_iter().zip(&bodies) {
                        match answer {
                            Ok(reply) => {
                                let completion = pb::Completion::try_from(reply.completion);
                                self.record(|r| match completion {
                                    Ok(pb::Completion::Accepted) => r.accepted += 1,
                                    Ok(pb::Completion::Duplicate) => r.duplicates += 1,
                                    _ => r.unknown += 1,
                                });
                                leased.extend(reply.tasks);
                            }
                            Err(status) => {
                                // Our own outcome refused: a bug (or version skew) that retrying
                                // cannot fix.
                                eprintln!("worker: the master refused the outcome of task {id}: {}", status.message());
                                self.record(|r| r.undelivered += 1);
                            }
                        }
                    }
                    if !leased.is_empty() {
                        let count = leased.len() as u64;
                        // Resolved before the turn ends (it drops after this): the cache's order.
                        // An error means we are stopping or the master refuses us; the tasks'
                        // leases then lapse or go back when we leave, as with a Lease reply.
                        if let Ok(tasks) = self.receive(leased_as, leased, &mut backoff).await {
                            self.record(|r| r.leased_with_outcomes += count);
                            self.local.push(tasks);
                        }
                    }
                    drop(turn);
                    return;
                }
                Err(status) => {
                    let gone = self.failed(&status).is_err();
                    if gone || limit.is_some_and(|l| Instant::now() >= l) {
                        self.record(|r| r.undelivered += bodies.len() as u64);
                        return;
                    }
                    tokio::time::sleep(backoff.pause()).await;
                }
            }
        }
    }

    /// Sends outcomes and returns each one's answer (`Complete`'s reply, or its refusal); an
    /// error is a failure of the call or stream, worth retrying. Several go as one message on the
    /// `DeliverBatches` stream; one goes on the `Deliver` stream when the master serves it (each
    /// opened by the first delivery that needs it), else as a unary call. A broken stream is
    /// dropped, so the next attempt opens another; its error is the call's.
    async fn complete(&self, mut requests: Vec<pb::CompleteRequest>) -> Result<Vec<Answer>, tonic::Status> {
        let refusal = |status: &tonic::Status| matches!(status.code(), Code::InvalidArgument | Code::PermissionDenied);
        if requests.len() > 1 {
            let count = requests.len() as u64;
            let mut stream = self.batches.lock().await;
            let open = match &mut *stream {
                Some(open) => open,
                None => {
                    let (sender, outbound) = delivery::request_channel();
                    let answers = self.client.clone().deliver_batches(outbound).await?.into_inner();
                    stream.insert(BatchStream::new(sender, answers))
                }
            };
            return match open.complete_all(requests, LEASE_WAIT_MS).await {
                Ok(answers) => {
                    self.record(|r| {
                        r.streamed += count;
                        r.batched += count;
                    });
                    Ok(answers)
                }
                Err(broken) => {
                    *stream = None;
                    Err(broken)
                }
            };
        }
        let Some(request) = requests.pop() else { return Ok(Vec::new()) };
        if !self.delivery_stream.load(Ordering::Acquire) {
            return match self.client.clone().complete(request).await {
                Ok(reply) => Ok(vec![Ok(reply.into_inner())]),
                Err(status) if refusal(&status) => Ok(vec![Err(status)]),
                Err(status) => Err(status),
            };
        }
        let mut stream = self.stream.lock().await;
        let open = match &mut *stream {
            Some(open) => open,
            None => {
                let (sender, outbound) = delivery::request_channel();
                let answers = self.client.clone().deliver(outbound).await?.into_inner();
                stream.insert(DeliveryStream::new(sender, answers))
            }
        };
        match open.complete(request).await {
            Ok(answer) => {
                self.record(|r| r.streamed += 1);
                match answer {
                    Err(status) if !refusal(&status) => Err(status),
                    answer => Ok(vec![answer]),
                }
            }
            Err(broken) => {
                *stream = None;
                Err(broken)
            }
        }
    }

    /// Delivers outcomes as the players finish them, each delivery in its own task so a slow call
    /// does not hold up the others; with batches, holds finished outcomes until there are
    /// `batch` of them or no unstarted task is left. Ends when the players are gone, after a
    /// bounded flush.
    pub async fn report_loop(self: Arc<Self>, mut results: UnboundedReceiver<Finished>) {
        let mut sending = tokio::task::JoinSet::new();
        let mut flush_deadline = None;
        let mut waiting: Vec<Finished> = Vec::new();
        loop {
            tokio::select! {
                next = results.recv() => match next {
                    Some(finished) => {
                        waiting.push(finished);
                        // With no unstarted task left, the next outcome may be a task's time
                        // away (or never come): send what there is.
                        let hold = waiting.len() < self.batch() && self.local.queued() > 0 && !self.control.stopping();
                        if !hold {
                            let session = Arc::clone(&self);
                            let batch = std::mem::take(&mut waiting);
                            sending.spawn(async move {
                                session.deliver(&batch, flush_deadline).await;
                                batch.iter().for_each(|_| session.local.reported());
                            });
                        }
                    }
                    None => break,
                },
                Some(_) = sending.join_next(), if !sending.is_empty() => {}
            }
            if flush_deadline.is_none() && self.control.stopping() {
                flush_deadline = Some(Instant::now() + FLUSH_LIMIT);
            }
        }
        if !waiting.is_empty() {
            let session = Arc::clone(&self);
            sending.spawn(async move {
                session.deliver(&waiting, Some(Instant::now() + FLUSH_LIMIT)).await;
                waiting.iter().for_each(|_| session.local.reported());
            });
        }
        let limit = Instant::now() + FLUSH_LIMIT;
        while !sending.is_empty() {
            if self.control.killed() || tokio::time::timeout_at(limit.into(), sending.join_next()).await.is_err() {
                sending.abort_all();
                return;
            }
        }
    }

    /// Tells the master we are leaving, so it leases our unstarted tasks again at once.
    pub async fn leave(&self) {
        let worker = self.worker.swap(0, Ordering::AcqRel);
        if worker != 0 {
            let mut client = self.client.clone();
            let call = client.leave(pb::LeaveRequest { worker_id: worker });
            let _ = tokio::time::timeout(Duration::from_secs(2), call).await;
        }
    }
}
