//! The worker's network side: register, then one `Work` stream for as long as the master keeps
//! it; register again and open another when it breaks (`docs/protocol.md`). Outcomes go out in
//! batches of up to `batch`, sooner when no unstarted task is left, each message asking for as
//! many tasks as it frees; they are kept until their receipt comes, and sent again on the next
//! stream if this one breaks. The master's messages are resolved in the order they come, the
//! order in which the master mirrors the worker's chromosome cache.

use crate::client::{Backoff, Client};
use crate::players::{Finished, Leased, Local};
use crate::{Control, WorkerError, WorkerOptions, WorkerReport};
use loa_engine::tasks::TaskFailure;
use loa_proto::bounds::MAX_REQUEST_BYTES;
use loa_proto::cache::{ChromosomeCache, Resolved, resolve_entrants};
use loa_proto::convert::{id_to_proto, outcome_size_bound, outcome_to_proto, task_from_proto};
use loa_proto::peers::{PeerToken, Peers};
use loa_proto::{MAX_TASKS_PER_MESSAGE, PROTOCOL_VERSION, pb};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::mpsc::UnboundedReceiver;
use tonic::Code;

/// How long a stopping worker keeps trying to deliver finished outcomes to an absent master.
const FLUSH_LIMIT: Duration = Duration::from_secs(10);
/// How long a call waits for the master's answer before it counts as failed and is retried: a
/// master behind a stalled connection accepts and never answers.
const ANSWER_LIMIT: Duration = Duration::from_secs(30);
/// How often a call that waits checks whether the worker was stopped.
const STOP_CHECK: Duration = Duration::from_millis(100);
/// How often a worker that cannot reach the master says so again.
const SAY_EVERY: Duration = Duration::from_secs(30);
/// Tasks held per slot (one playing, the rest waiting), so players never wait for a round trip.
const AHEAD: usize = 2;

/// What the network side shares with the rest of the worker.
pub struct Session {
    pub client: Client,
    pub options: WorkerOptions,
    pub control: Control,
    pub local: Arc<Local>,
    /// When the master last answered.
    pub last_contact: Mutex<Instant>,
    /// When the worker last said it cannot reach the master (`None` since it registered).
    pub told_unreachable: Mutex<Option<Instant>>,
    pub report: Mutex<WorkerReport>,
    /// Varies the back-off's jitter per worker.
    pub salt: u64,
    /// Chromosomes kept between tasks, fed in the order the master's messages come; the peer
    /// service reads it without reordering it.
    pub cache: Arc<Mutex<ChromosomeCache>>,
    /// Other workers to fetch chromosomes from.
    pub peers: Peers,
    /// The peer token the master gave at registration, shared with the peer service.
    pub peer_token: PeerToken,
    /// The port this worker's peer service listens on, 0 if it serves none.
    pub peer_port: u16,
    /// Once stopping: when the worker gives up delivering what it finished.
    pub flush_deadline: Mutex<Option<Instant>>,
    /// The credential of the last registration, which every later call carries.
    pub credential: Mutex<String>,
}

/// Why the session ended.
pub enum Ended {
    /// Asked to stop, or killed.
    Stopped,
    /// The master has been unreachable for longer than `give_up_after`.
    MasterGone,
    /// Retrying cannot help (a wrong token, an untrusted certificate, another protocol version),
    /// or a master never reached in `give_up_after`.
    Failed(WorkerError),
}

/// Outcomes sent on the stream and not yet acknowledged, message by message.
type Unacknowledged = VecDeque<Vec<Finished>>;

/// Why sending failed: the stream closed.
fn closed<T>(_: T) -> tonic::Status {
    tonic::Status::unavailable("the stream closed")
}

impl Session {
    fn contact(&self) {
        *self.last_contact.lock().unwrap_or_else(|p| p.into_inner()) = Instant::now();
    }

    fn record(&self, f: impl FnOnce(&mut WorkerReport)) {
        f(&mut self.report.lock().unwrap_or_else(|p| p.into_inner()));
    }

    fn registrations(&self) -> u64 {
        self.report.lock().unwrap_or_else(|p| p.into_inner()).registrations
    }

    /// Whether the worker is killed, or stopping and has tried to deliver what it finished for
    /// [`FLUSH_LIMIT`].
    fn gave_up(&self) -> bool {
        let flushed_long_enough = || {
            let mut deadline = self.flush_deadline.lock().unwrap_or_else(|p| p.into_inner());
            Instant::now() >= *deadline.get_or_insert_with(|| Instant::now() + FLUSH_LIMIT)
        };
        self.control.killed() || (self.control.stopping() && flushed_long_enough())
    }

    /// The credential of the last registration.
    fn credential(&self) -> String {
        self.credential.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Resolves once [`Session::gave_up`]: what a call that may never be answered races.
    async fn until_given_up(&self) {
        while !self.gave_up() {
            tokio::time::sleep(STOP_CHECK).await;
        }
    }

    /// Classifies a failed call: `Err` ends the session, `Ok(pause)` means retry after `pause`.
    fn failed(&self, status: &tonic::Status, backoff: &mut Backoff) -> Result<Duration, Ended> {
        if status.code() == Code::Unauthenticated {
            return Err(Ended::Failed(WorkerError::Refused(status.message().to_owned())));
        }
        if let Some(why) = crate::client::certificate_refused(status) {
            return Err(Ended::Failed(WorkerError::Untrusted(why)));
        }
        if status.code() == Code::Unavailable && status.message() == loa_proto::RUN_OVER {
            eprintln!("worker: the master at {} says the run is over: leaving", self.options.master);
            return Err(Ended::Stopped);
        }
        if status.code() == Code::NotFound {
            // The master forgot us (silent too long, or restarted): register again at once.
            self.contact();
            return Ok(Duration::ZERO);
        }
        let since = self.last_contact.lock().unwrap_or_else(|p| p.into_inner()).elapsed();
        let (reason, registered) = (crate::client::reason(status), self.registrations() > 0);
        if let Some(patience) = self.options.give_up_after.filter(|&patience| since > patience) {
            let (master, waited) = (self.options.master.clone(), patience.as_secs());
            return Err(if registered {
                Ended::MasterGone
            } else {
                Ended::Failed(WorkerError::NeverReached { master, waited, reason })
            });
        }
        self.tell_unreachable(&reason, since, registered);
        Ok(backoff.pause())
    }

    /// Says that the master cannot be reached, why and for how long the worker keeps trying: at
    /// the first failure since it registered, and every [`SAY_EVERY`] while failures go on.
    fn tell_unreachable(&self, reason: &str, since: Duration, registered: bool) {
        let mut told = self.told_unreachable.lock().unwrap_or_else(|p| p.into_inner());
        if told.is_some_and(|t| t.elapsed() < SAY_EVERY) {
            return;
        }
        let master = &self.options.master;
        let what = match (*told, registered) {
            (Some(_), _) => format!("still cannot reach the master at {master} after {} s", since.as_secs()),
            (None, true) => format!("lost the master at {master}"),
            (None, false) => format!("cannot reach the master at {master}"),
        };
        let plan = match self.options.give_up_after {
            _ if self.control.stopping() => {
                format!("for {} s at most to deliver what it finished", FLUSH_LIMIT.as_secs())
            }
            Some(p) => format!("for {:.0} s more (--give-up-after)", p.saturating_sub(since).as_secs_f64()),
            None => "until it answers (--give-up-after SECONDS sets a limit)".to_owned(),
        };
        eprintln!("worker: {what}: {reason}; retrying {plan}");
        *told = Some(Instant::now());
    }

    /// Registers; returns the worker id and the heartbeat period (a third of the lease time).
    async fn register(&self, backoff: &mut Backoff) -> Result<(u64, Duration), Ended> {
        loop {
            if self.gave_up() {
                return Err(Ended::Stopped);
            }
            let request = pb::RegisterRequest {
                protocol: PROTOCOL_VERSION,
                name: self.options.name.clone(),
                slots: self.options.slots as u32,
                chromosome_cache: u32::try_from(self.options.chromosome_cache).unwrap_or(u32::MAX),
                peer_port: u32::from(self.peer_port),
                peer_host: self.options.peer_host.clone().filter(|_| self.peer_port > 0).unwrap_or_default(),
            };
            let mut client = self.client.clone();
            let answer = tokio::time::timeout(ANSWER_LIMIT, client.register(request));
            let answer = tokio::select! {
                answer = answer => answer.unwrap_or_else(|_| {
                    Err(tonic::Status::deadline_exceeded(format!("no answer in {} s", ANSWER_LIMIT.as_secs())))
                }),
                () = self.until_given_up() => return Err(Ended::Stopped),
            };
            match answer {
                Ok(reply) => {
                    let reply = reply.into_inner();
                    self.peer_token.set(&reply.peer_token);
                    *self.credential.lock().unwrap_or_else(|p| p.into_inner()) = reply.credential.clone();
                    self.contact();
                    self.record(|r| r.registrations += 1);
                    *self.told_unreachable.lock().unwrap_or_else(|p| p.into_inner()) = None;
                    let again = if self.registrations() > 1 { " again" } else { "" };
                    let (master, id, slots) = (&self.options.master, reply.worker_id, crate::slots(self.options.slots));
                    eprintln!("worker: registered{again} with {master} as worker {id}, {slots}");
                    backoff.reset();
                    let lease = Duration::from_secs(u64::from(reply.lease_seconds.max(1)));
                    return Ok((reply.worker_id, lease / 3));
                }
                // A master of version 1 does not know the call; one of another version says why.
                Err(status) if status.code() == Code::Unimplemented => {
                    return Err(Ended::Failed(WorkerError::Version(format!(
                        "this worker speaks loa protocol v{PROTOCOL_VERSION} and the master does not (a master of \
                         protocol v1?): run a worker built from the master's version"
                    ))));
                }
                Err(status) if status.code() == Code::FailedPrecondition => {
                    return Err(Ended::Failed(WorkerError::Version(status.message().to_owned())));
                }
                Err(status) => tokio::time::sleep(self.failed(&status, backoff)?).await,
            }
        }
    }

    /// The worker's life on the network: streams until stopped, refused, or the master is gone.
    /// Outcomes come from the players on `results`, which closes when they are done.
    pub async fn run(&self, mut results: UnboundedReceiver<Finished>) -> Ended {
        let mut backoff = Backoff::new(self.options.max_backoff, self.salt);
        // Finished outcomes not yet acknowledged: sent again on the next stream.
        let mut pending = Unacknowledged::new();
        let end = loop {
            if self.control.killed() {
                return Ended::Stopped;
            }
            if self.control.stopping() {
                // The players finish the tasks in hand: with none of theirs to deliver, there is
                // nothing to register for.
                while let Some(finished) = results.recv().await {
                    pending.push_back(vec![finished]);
                }
                if pending.is_empty() {
                    return Ended::Stopped;
                }
            }
            let (worker, heartbeat) = match self.register(&mut backoff).await {
                Ok(registered) => registered,
                Err(end) => break end,
            };
            match self.stream(worker, heartbeat, &mut results, &mut pending).await {
                Ok(()) => break Ended::Stopped,
                Err(status) => match self.failed(&status, &mut backoff) {
                    Ok(pause) => tokio::time::sleep(pause).await,
                    Err(end) => break end,
                },
            }
        };
        self.record(|r| r.undelivered += pending.iter().map(Vec::len).sum::<usize>() as u64);
        end
    }

    /// One stream under worker id `worker`, until it ends: outcomes and heartbeats out, tasks and
    /// receipts in. `unacknowledged` holds outcomes to send first (from a stream that broke), and
    /// on return those not acknowledged. `Ok` once the worker is done, or why the stream broke
    /// (register again).
    async fn stream(
        &self,
        worker: u64,
        heartbeat: Duration,
        results: &mut UnboundedReceiver<Finished>,
        unacknowledged: &mut Unacknowledged,
    ) -> Result<(), tonic::Status> {
        let (out, outbound) = tokio::sync::mpsc::channel::<pb::WorkerMessage>(4);
        // Tasks to hold: `slots × AHEAD`, and `batch − 1` more while outcomes wait for a batch.
        let target = self.options.slots * AHEAD + self.options.batch - 1;
        let want = if self.control.stopping() { 0 } else { target.saturating_sub(self.local.held()) };
        // The first message names the worker.
        let _ = out.try_send(pb::WorkerMessage { worker_id: worker, outcomes: Vec::new(), want: want as u32 });
        let request =
            loa_proto::with_credential(tokio_stream::wrappers::ReceiverStream::new(outbound), &self.credential());
        let mut inbound = self.client.clone().work(request).await?.into_inner();
        self.contact();
        // What a broken stream left unacknowledged goes first, asking for nothing more.
        let mut left: Vec<Finished> = unacknowledged.drain(..).flatten().collect();
        while !left.is_empty() {
            let chunk = left.drain(..fitting(&left)).collect();
            unacknowledged.push_back(chunk);
        }
        for chunk in unacknowledged.iter() {
            if out.send(message(chunk, 0, worker)).await.is_err() {
                break;
            }
        }
        let mut waiting: Vec<Finished> = Vec::new();
        let mut players_done = false;
        let mut last_sent = tokio::time::Instant::now();
        loop {
            if self.control.killed() {
                return Ok(());
            }
            let stopping = self.control.stopping();
            if stopping && self.gave_up() {
                // The master does not take our outcomes: give up on them.
                unacknowledged.push_back(waiting);
                return Ok(());
            }
            // A full batch, or whatever there is when no unstarted task is left (the next outcome
            // may be a task's time away) or the worker is stopping.
            let send_now = !waiting.is_empty()
                && (waiting.len() >= self.options.batch || self.local.queued() == 0 || stopping || players_done);
            if send_now {
                let batch: Vec<Finished> = waiting.drain(..fitting(&waiting)).collect();
                let want = if stopping { 0 } else { batch.len() as u32 };
                let sent = out.send(message(&batch, want, worker)).await;
                unacknowledged.push_back(batch);
                sent.map_err(closed)?;
                last_sent = tokio::time::Instant::now();
                continue;
            }
            if players_done && waiting.is_empty() && unacknowledged.is_empty() {
                // Everything is through: ending the stream is leaving.
                return Ok(());
            }
            tokio::select! {
                message = inbound.message() => {
                    let Some(message) = message? else {
                        return Err(tonic::Status::unavailable("the master ended the stream"));
                    };
                    self.contact();
                    let abandoned = self.take(worker, message, unacknowledged).await;
                    // Tasks dropped unplayed leave room for as many others.
                    if abandoned > 0 && !stopping {
                        out.send(pb::WorkerMessage { want: abandoned, ..Default::default() }).await.map_err(closed)?;
                    }
                }
                finished = results.recv(), if !players_done => match finished {
                    Some(finished) => waiting.push(finished),
                    None => players_done = true,
                },
                () = tokio::time::sleep_until(last_sent + heartbeat.max(Duration::from_millis(100))) => {
                    out.send(pb::WorkerMessage::default()).await.map_err(closed)?;
                    last_sent = tokio::time::Instant::now();
                }
                // While stopping, look at the flush deadline now and then.
                () = tokio::time::sleep(Duration::from_millis(100)), if stopping => {}
            }
        }
    }

    /// Takes a message from the master: its receipt acknowledges the oldest unacknowledged
    /// outcomes, and its tasks are resolved and queued for the players. Returns how many tasks
    /// were dropped unplayed (see [`Session::receive`]).
    async fn take(&self, worker: u64, message: pb::MasterMessage, unacknowledged: &mut Unacknowledged) -> u32 {
        if let Some(receipt) = message.receipt {
            unacknowledged.pop_front();
            for refusal in &receipt.refused {
                eprintln!("worker: the master refused the outcome of task {}: {}", refusal.task_id, refusal.reason);
            }
            self.record(|r| {
                r.accepted += u64::from(receipt.accepted);
                r.duplicates += u64::from(receipt.duplicates);
                r.unknown += u64::from(receipt.unknown);
                r.undelivered += receipt.refused.len() as u64;
            });
        }
        let sent = message.tasks.len();
        if sent == 0 {
            return 0;
        }
        let tasks = self.receive(worker, message.tasks).await;
        let abandoned = sent - tasks.len();
        self.local.push(tasks);
        abandoned as u32
    }

    /// Turns a message's tasks into tasks to play: networks are found in the cache, made from
    /// their origins, fetched from peers or else from the master. A task that fails validation
    /// is kept as its failure, to be reported; one whose chromosomes the master no longer has is
    /// dropped (its outcome is in already).
    async fn receive(&self, worker: u64, mut tasks: Vec<pb::Task>) -> Vec<Leased> {
        let mut resolved = resolve_entrants(&mut tasks, &mut self.cache.lock().unwrap_or_else(|p| p.into_inner()));
        resolved.fetch_from_peers(&self.peers, &self.cache).await;
        let fetch_error = if resolved.missing.is_empty() { None } else { self.fetch(&mut resolved).await };
        let mut abandoned = 0;
        let leased = tasks
            .into_iter()
            .filter_map(|mut t| {
                let id = t.id;
                let task = if resolved.complete(&mut t) {
                    task_from_proto(t, &|c| resolved.chromosome(c)).map(|(_, task)| task).map_err(|e| e.to_string())
                } else if let Some(e) = &fetch_error {
                    Err(e.clone())
                } else {
                    abandoned += 1;
                    return None;
                };
                Some((id, worker, task.map_err(TaskFailure::Malformed)))
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
        leased
    }

    /// Fetches the chromosomes `resolved` lacks from the master, retrying while it is away; why
    /// they could not be had, if so (the tasks that need them then fail).
    async fn fetch(&self, resolved: &mut Resolved) -> Option<String> {
        let request = pb::FetchChromosomesRequest {
            task_ids: resolved.needing.clone(),
            ids: resolved.missing.iter().map(|&id| id_to_proto(id)).collect(),
        };
        let mut backoff = Backoff::new(self.options.max_backoff, self.salt);
        loop {
            if self.control.stopping() {
                return Some("stopping before the chromosomes came".to_owned());
            }
            match self
                .client
                .clone()
                .fetch_chromosomes(loa_proto::with_credential(request.clone(), &self.credential()))
                .await
            {
                Ok(reply) => {
                    self.contact();
                    let mut cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
                    return match resolved.accept_fetched(reply.into_inner().chromosomes, &mut cache) {
                        Ok(n) => {
                            self.record(|r| r.fetched += n as u64);
                            None
                        }
                        Err(e) => Some(format!("the master's chromosomes: {e}")),
                    };
                }
                Err(status) => {
                    // An invalid argument is a bug that retrying cannot fix: the tasks fail, loudly.
                    let retry = status.code() != Code::InvalidArgument;
                    match self.failed(&status, &mut backoff) {
                        Ok(pause) if retry => tokio::time::sleep(pause).await,
                        _ => return Some(format!("fetching chromosomes: {}", status.message())),
                    }
                }
            }
        }
    }
}

/// How many of the first `outcomes` one message takes: at most [`MAX_TASKS_PER_MESSAGE`], and
/// within the master's request limit (self-play games are large), but always at least one.
fn fitting(outcomes: &[Finished]) -> usize {
    let mut bytes = 0;
    let fit = outcomes
        .iter()
        .take(MAX_TASKS_PER_MESSAGE)
        .take_while(|(_, _, result)| {
            bytes += outcome_size_bound(result);
            bytes + 64 <= MAX_REQUEST_BYTES
        })
        .count();
    fit.max(1).min(outcomes.len())
}

/// A message with `outcomes` and `want`; outcomes leased under another id than `worker` (an
/// earlier registration's) name it.
fn message(outcomes: &[Finished], want: u32, worker: u64) -> pb::WorkerMessage {
    let outcomes = outcomes
        .iter()
        .map(|(id, leased_to, result)| outcome_to_proto(*id, result, if *leased_to == worker { 0 } else { *leased_to }))
        .collect();
    pb::WorkerMessage { worker_id: 0, outcomes, want }
}
