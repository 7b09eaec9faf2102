//! The gRPC service: each call is a thin, validated wrapper around a [`Scheduler`] call.
//! `Deliver` is `Complete` as a stream (issue 14): each request on it is answered, in order, by
//! the same code as the unary call, its refusals included. `DeliverBatches` is the same with
//! several requests a message, each answered as on `Deliver`; that code is in [`complete`],
//! which answers a worker's run of outcomes under one scheduler lock.
//!
//! Remote workers are dropped (their leases go back to the queue, or to the backup copy's
//! holder) as soon as the master knows they are gone: when their connection closes
//! ([`MasterService::connection_closed`], called by the server for every closed connection),
//! when they are silent for the lease time ([`MasterService::reap_forever`]), or when they send
//! a malformed outcome. Each drop is counted and named in [`Counters::drops`].
//!
//! **Chromosome caching** (issue 14; the protocol is in [`loa_proto::cache`]): for each remote
//! worker that announced a chromosome cache, the service keeps a mirror of it (an LRU of ids,
//! [`MAX_MIRROR`] at most) and sends a network's id alone when the mirror holds it, its weights
//! otherwise. A worker that lacks an id anyway fetches the weights with `FetchChromosomes`, served
//! from the open tasks that name it. Embedded workers share the tasks' `Arc`s and need none of it.
//!
//! **Origins and peers** (issue 14; see [`loa_proto::peers`]): a network the worker lacks goes,
//! in this order of preference, as its origin when the mirror holds all its parents (the worker
//! makes it), by id with peers that hold it ([`Directory`]), as its origin with peers that hold
//! the parents the mirror lacks, and only then with its weights. Origins go only to workers that
//! announced they make them, and peers are named only among workers that serve them.

use super::directory::Directory;
use super::{Counters, DropReason, MAX_LEASE};
use crate::scheduler::{Leased, Scheduler, WorkerId};
use loa_engine::network::{Chromosome, ChromosomeId};
use loa_proto::cache::Mirror;
use loa_proto::convert::{Sending, check_peer_address, chromosome_to_proto, id_from_proto, task_to_proto_sending};
use loa_proto::pb;
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};
use tokio_stream::{Stream, StreamExt};
use tonic::{Request, Response, Status};

/// Longest a worker's name may be (it only shows in displays).
const MAX_NAME: usize = 200;
/// Longest a lease call may wait for work.
const MAX_WAIT: Duration = Duration::from_secs(10);
/// How often a waiting lease call looks for a straggler's task to take a backup copy of (a
/// task is a straggler's after 1 s at least, so this adds at most a quarter to that).
const RECHECK: Duration = Duration::from_millis(250);
/// The largest mirror of a worker's chromosome cache the master keeps, whatever the worker
/// announced: about 60 bytes an id (slot and index entry), so 60 KiB per worker and 600 MiB for
/// 10 000 workers at worst. A mirror smaller than the cache is still right: an LRU holds the last distinct ids it
/// was given, so the mirror's ids are the most recent of the cache's (see [`loa_proto::cache`]).
/// It only misses reuse further back than this many chromosomes sent to one worker.
pub const MAX_MIRROR: usize = 1024;

/// How a remote worker takes networks.
struct Wire {
    /// The ids its chromosome cache holds, as far as the master knows (`None`: it keeps none).
    mirror: Option<Mutex<Mirror>>,
    /// It reads weights as bytes (`Entrant.weights_le`).
    weight_bytes: bool,
    /// It makes networks from their origins (`Entrant.origin`).
    origins: bool,
}

/// The master's side of the service.
#[derive(Clone)]
pub struct MasterService {
    scheduler: Arc<Scheduler>,
    lease_time: Duration,
    counters: Arc<Counters>,
    /// Remote workers and when each was last heard from. Embedded workers are not here: they
    /// cannot go silent.
    remote: Arc<Mutex<HashMap<WorkerId, Instant>>>,
    /// The workers registered over each connection (by the peer's address), so they can be
    /// dropped when it closes.
    peers: Arc<Mutex<HashMap<SocketAddr, Vec<WorkerId>>>>,
    /// Put in the high bits of the worker ids this process hands out, so ids issued by an
    /// earlier master process are not mistaken for this one's after a restart.
    session: u64,
    /// How each remote worker takes networks: the mirror of its chromosome cache, and the form of
    /// weights it reads.
    wires: Arc<Mutex<HashMap<WorkerId, Arc<Wire>>>>,
    /// Whether `Complete` leases the tasks a worker asks for with its outcome (issue 14); `false`
    /// serves as a master older than that (see [`super::ClusterOptions::complete_leases`]).
    pub complete_leases: bool,
    /// Whether registration offers `Deliver` (issue 14); `false` serves as a master older than
    /// that (see [`super::ClusterOptions::delivery_stream`]). The stream is served either way.
    pub delivery_stream: bool,
    /// Whether registration offers `DeliverBatches` (issue 14); `false` serves as a master older
    /// than that (see [`super::ClusterOptions::batch_delivery`]). It is served either way.
    pub batch_delivery: bool,
    /// Whether networks go as their origins, and from peers, to workers that take them (issue
    /// 14); `false` serves as a master older than that (see [`super::ClusterOptions::origins`]).
    pub origins: bool,
    /// Which serving workers hold which chromosomes. Locked after a mirror, never before.
    directory: Arc<Mutex<Directory>>,
    /// The token workers present to each other's `Peer` service: random, this process's own.
    peer_token: Arc<str>,
}

/// A random token for the workers' `Peer` services (128 bits from the operating system; if it
/// fails, from the process's randomly keyed hasher and the clock, which are still unknown to
/// anyone outside).
fn peer_token() -> String {
    let mut bytes = [0u8; 16];
    if getrandom::fill(&mut bytes).is_err() {
        use std::hash::BuildHasher;
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        let (a, b) = (std::collections::hash_map::RandomState::new(), std::collections::hash_map::RandomState::new());
        bytes[..8].copy_from_slice(&a.hash_one(nanos).to_le_bytes());
        bytes[8..].copy_from_slice(&b.hash_one(std::process::id()).to_le_bytes());
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn session_tag() -> u64 {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
    let mixed = loa_engine::random::derive_seed(u64::from(nanos), u64::from(std::process::id()));
    (mixed & 0x7fff_ffff) | 1 // never 0, so no remote id is a small number
}

fn unknown_worker() -> Status {
    Status::not_found("unknown worker: re-register")
}

impl MasterService {
    /// A service over `scheduler`; remote workers silent for `lease_time` are dropped.
    pub fn new(scheduler: Arc<Scheduler>, lease_time: Duration, counters: Arc<Counters>) -> MasterService {
        MasterService {
            scheduler,
            lease_time,
            counters,
            remote: Arc::default(),
            peers: Arc::default(),
            session: session_tag(),
            wires: Arc::default(),
            complete_leases: true,
            delivery_stream: true,
            batch_delivery: true,
            origins: true,
            directory: Arc::default(),
            peer_token: peer_token().into(),
        }
    }

    fn wire(&self, worker: WorkerId) -> Option<Arc<Wire>> {
        self.wires.lock().unwrap_or_else(|p| p.into_inner()).get(&worker).cloned()
    }

    /// A wait a worker asked for (in ms), within the bounds: at most MAX_WAIT, and well within
    /// the lease time, so a waiting worker never counts as silent.
    fn wait_bound(&self, wait_ms: u32) -> Duration {
        Duration::from_millis(u64::from(wait_ms)).min(MAX_WAIT).min(self.lease_time / 2)
    }

    /// Leases up to `max` tasks to `worker`, waiting up to `wait` for some to be queued.
    ///
    /// It waits on the scheduler's notification rather than its condition variable (a blocked
    /// call would hold a runtime thread, and a thousand idle workers would need a thousand
    /// threads), and rather than polling (issue 14: between generations every worker waits, and
    /// ten thousand polling calls cost the master more than the tasks). It wakes when tasks are
    /// queued, and also looks again every RECHECK, for a straggler's task to take a backup copy
    /// of (which nothing notifies).
    async fn lease_waiting(&self, worker: WorkerId, max: usize, wait: Duration) -> Vec<Leased> {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            let arrived = self.scheduler.work_arrived().notified();
            tokio::pin!(arrived);
            // Registered before looking, so tasks queued in between are not missed.
            arrived.as_mut().enable();
            let leased = self.scheduler.lease(worker, max);
            let now = tokio::time::Instant::now();
            if !leased.is_empty() || self.scheduler.is_closed() || now >= deadline {
                return leased;
            }
            tokio::select! {
                () = &mut arrived => {}
                () = tokio::time::sleep_until(deadline.min(now + RECHECK)) => {}
            }
        }
    }

    /// Tasks leased to `worker` as the wire carries them, for each list of `leased` (a reply's):
    /// each network by id alone where the mirror of the worker's chromosome cache holds it, else
    /// as the module docs say (by origin, from peers, or with its weights, in the form the worker
    /// reads). The mirror is fed in reply order, which is the order the worker meets the ids in:
    /// it asks for tasks with one call or message at a time (Lease, Complete, a batch) and
    /// resolves each reply before its next. The mirror is locked once for all the lists.
    fn to_wire_each(&self, worker: WorkerId, leased: &[&[Leased]]) -> Vec<Vec<pb::Task>> {
        if leased.iter().all(|l| l.is_empty()) {
            return leased.iter().map(|_| Vec::new()).collect();
        }
        let mut counts = [0u64; 4];
        let wire = self.wire(worker);
        let weight_bytes = wire.as_ref().is_some_and(|w| w.weight_bytes);
        let origins = self.origins && wire.as_ref().is_some_and(|w| w.origins);
        let encode = |decide: &mut dyn FnMut(&Chromosome) -> Sending| -> Vec<Vec<pb::Task>> {
            let each = |list: &&[Leased]| {
                list.iter().map(|(id, task)| task_to_proto_sending(*id, task, &mut *decide, weight_bytes)).collect()
            };
            leased.iter().map(each).collect()
        };
        let tasks = match wire.as_ref().and_then(|w| w.mirror.as_ref()) {
            Some(mirror) => {
                // Held across the whole reply: the worker meets its ids in this order.
                let mut mirror = mirror.lock().unwrap_or_else(|p| p.into_inner());
                let mut directory = self.directory.lock().unwrap_or_else(|p| p.into_inner());
                encode(&mut |c: &Chromosome| {
                    let sending = sending(c, worker, origins, &mut mirror, &mut directory);
                    counts[match sending {
                        Sending::Id => 0,
                        Sending::Origin(_) => 1,
                        Sending::Sources(_) => 2,
                        Sending::Weights => 3,
                    }] += 1;
                    sending
                })
            }
            None => encode(&mut |_: &Chromosome| {
                counts[3] += 1;
                Sending::Weights
            }),
        };
        let [by_id, by_origin, from_peers, with_weights] = counts;
        self.counters.sent_by_id.fetch_add(by_id, Ordering::Relaxed);
        self.counters.sent_by_origin.fetch_add(by_origin, Ordering::Relaxed);
        self.counters.sent_from_peers.fetch_add(from_peers, Ordering::Relaxed);
        self.counters.sent_with_weights.fetch_add(with_weights, Ordering::Relaxed);
        let bytes: usize = tasks.iter().flatten().map(prost::Message::encoded_len).sum();
        self.counters.task_bytes.fetch_add(bytes as u64, Ordering::Relaxed);
        tasks
    }

    fn forget_wire(&self, worker: WorkerId) {
        let wire = self.wires.lock().unwrap_or_else(|p| p.into_inner()).remove(&worker);
        // The worker is no source any more (its mirror first, then the directory: the lock order).
        let mirror = wire.as_ref().and_then(|w| w.mirror.as_ref());
        let held: Vec<ChromosomeId> =
            mirror.map(|m| m.lock().unwrap_or_else(|p| p.into_inner()).keys().copied().collect()).unwrap_or_default();
        self.directory.lock().unwrap_or_else(|p| p.into_inner()).forget(worker, held);
    }

    fn remote(&self) -> MutexGuard<'_, HashMap<WorkerId, Instant>> {
        // Every update of the map is a single insert or remove, so a poisoned map is consistent.
        self.remote.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The scheduler's id for the wire id `id`, if this process issued it and still knows it;
    /// marks the worker as heard from.
    fn resolve(&self, id: u64) -> Option<WorkerId> {
        if id >> 32 != self.session {
            return None;
        }
        let worker = id & 0xffff_ffff;
        let mut remote = self.remote();
        let last = remote.get_mut(&worker)?;
        *last = Instant::now();
        Some(worker)
    }

    /// Drops a remote worker this process knows: its leases go back to the queue.
    fn drop_worker(&self, worker: WorkerId, reason: DropReason) {
        if self.remote().remove(&worker).is_none() {
            return;
        }
        self.forget_wire(worker);
        let name = self.scheduler.unregister(worker).map_or_else(|| format!("worker {worker}"), |w| w.name);
        self.counters.record_drop(name, reason);
    }

    /// Drops the workers registered over the connection from `peer`, which just closed: a worker
    /// that crashed or lost the network is known to be gone at once, not after the lease time.
    pub fn connection_closed(&self, peer: SocketAddr) {
        let workers = self.peers.lock().unwrap_or_else(|p| p.into_inner()).remove(&peer).unwrap_or_default();
        for worker in workers {
            self.drop_worker(worker, DropReason::ConnectionClosed);
        }
    }

    fn invalid(&self, message: String) -> Status {
        self.counters.invalid.fetch_add(1, Ordering::Relaxed);
        Status::invalid_argument(message)
    }

    /// Drops remote workers silent for longer than the lease time, so their tasks go back to the
    /// queue, until the runtime stops.
    pub async fn reap_forever(&self) {
        let period = (self.lease_time / 4).max(Duration::from_millis(50));
        loop {
            tokio::time::sleep(period).await;
            let now = Instant::now();
            let silent: Vec<WorkerId> = self
                .remote()
                .iter()
                .filter(|(_, last)| now.saturating_duration_since(**last) > self.lease_time)
                .map(|(w, _)| *w)
                .collect();
            for worker in silent {
                self.drop_worker(worker, DropReason::Silent);
            }
        }
    }
}

/// How network `c` goes to `worker` (see the module docs), and what that makes the worker hold:
/// its mirror and the directory are fed as the worker will feed its cache (the parents it uses,
/// in order, then the network).
fn sending(c: &Chromosome, worker: WorkerId, origins: bool, mirror: &mut Mirror, directory: &mut Directory) -> Sending {
    let id = c.id();
    // The worker will hold `key`: the mirror says so, and forgets what that evicts.
    let touch = |mirror: &mut Mirror, directory: &mut Directory, key: ChromosomeId| {
        if let (_, Some(evicted)) = mirror.touch_evicting(key) {
            directory.evicted(evicted, worker);
        }
    };
    // Held: made the most recent (one lookup); the directory has listed it since it was sent.
    if mirror.get(&id).is_some() {
        return Sending::Id;
    }
    let origin = c.origin().filter(|_| origins);
    let mut sources = Vec::new();
    let sent = match origin {
        Some(o) if o.parents().iter().all(|p| mirror.contains(p)) => Sending::Origin(sources),
        _ if origins && directory.sources(id, worker, &mut sources) => Sending::Sources(sources),
        Some(o) if o.parents().iter().all(|&p| mirror.contains(&p) || directory.sources(p, worker, &mut sources)) => {
            Sending::Origin(sources)
        }
        _ => Sending::Weights,
    };
    if let (Sending::Origin(_), Some(o)) = (&sent, origin) {
        // The worker will hold the parents, but is not listed as their source: their first
        // holders serve them (a survivor's few fetches a generation), and the directory does
        // half the work.
        for &p in o.parents() {
            touch(mirror, directory, p);
        }
    }
    touch(mirror, directory, id);
    directory.holds(id, worker);
    sent
}

#[tonic::async_trait]
impl pb::master_server::Master for MasterService {
    async fn register(&self, request: Request<pb::RegisterRequest>) -> Result<Response<pb::RegisterReply>, Status> {
        let address = request.remote_addr();
        let peer = address.map_or_else(|| "?".to_owned(), |a| a.to_string());
        let r = request.into_inner();
        if r.name.len() > MAX_NAME {
            return Err(self.invalid(format!("name: longer than {MAX_NAME} bytes")));
        }
        if r.slots == 0 {
            return Err(self.invalid("slots: must be at least 1".into()));
        }
        // Where other workers reach its Peer service, if it serves one (checked before anything
        // is registered, so a refused call changes nothing).
        let serving = match (r.peer_port, r.peer_host.as_str()) {
            (0, "") => None,
            (0, _) => return Err(self.invalid("peer_host: given without a peer_port".into())),
            (port, _) if port > u32::from(u16::MAX) => {
                return Err(self.invalid(format!("peer_port: {port} is not a port")));
            }
            (port, "") => address.map(|a| std::net::SocketAddr::new(a.ip(), port as u16).to_string()),
            (port, host) => Some(format!("{host}:{port}")),
        };
        if let Some(serving) = &serving
            && let Err(why) = check_peer_address(serving)
        {
            return Err(self.invalid(format!("peer_host: {why}")));
        }
        let name = format!("{} ({} slots, {peer})", r.name, r.slots);
        let worker = self.scheduler.register_with_slots(name, r.slots as usize);
        if worker > 0xffff_ffff {
            return Err(Status::resource_exhausted("worker ids exhausted: restart the master"));
        }
        self.remote().insert(worker, Instant::now());
        let capacity = (r.chromosome_cache as usize).min(MAX_MIRROR);
        let mirror = (capacity > 0).then(|| Mutex::new(Mirror::new(capacity)));
        let wire = Arc::new(Wire { mirror, weight_bytes: r.weight_bytes, origins: r.origins });
        self.wires.lock().unwrap_or_else(|p| p.into_inner()).insert(worker, wire);
        if let Some(serving) = serving
            && self.origins
            && capacity > 0
        {
            self.directory.lock().unwrap_or_else(|p| p.into_inner()).serve(worker, serving.into());
        }
        if let Some(address) = address {
            self.peers.lock().unwrap_or_else(|p| p.into_inner()).entry(address).or_default().push(worker);
        }
        Ok(Response::new(pb::RegisterReply {
            worker_id: (self.session << 32) | worker,
            lease_seconds: self.lease_time.as_secs().clamp(1, u64::from(u32::MAX)) as u32,
            complete_leases: self.complete_leases,
            delivery_stream: self.delivery_stream,
            batch_delivery: self.batch_delivery,
            peer_token: if self.origins { self.peer_token.to_string() } else { String::new() },
        }))
    }

    async fn lease(&self, request: Request<pb::LeaseRequest>) -> Result<Response<pb::LeaseReply>, Status> {
        let r = request.into_inner();
        let worker = self.resolve(r.worker_id).ok_or_else(unknown_worker)?;
        let max = r.max_tasks.clamp(1, MAX_LEASE) as usize;
        // A waiting call must end well before the worker counts as silent.
        let leased = self.lease_waiting(worker, max, self.wait_bound(r.wait_ms)).await;
        let tasks = self.to_wire_each(worker, &[&leased]).into_iter().flatten().collect();
        Ok(Response::new(pb::LeaseReply { tasks }))
    }

    async fn complete(&self, request: Request<pb::CompleteRequest>) -> Result<Response<pb::CompleteReply>, Status> {
        self.answer_one(request.into_inner()).map(Response::new)
    }

    type DeliverStream = std::pin::Pin<Box<dyn Stream<Item = Result<pb::DeliverReply, Status>> + Send>>;

    async fn deliver(
        &self,
        request: Request<tonic::Streaming<pb::CompleteRequest>>,
    ) -> Result<Response<Self::DeliverStream>, Status> {
        let service = self.clone();
        // One answer per request, in order; a request that fails gets its status as an answer
        // and the stream goes on. A broken stream (the worker or the network gone) ends it.
        let answers = request.into_inner().map(move |request| Ok(service.answer(request?)));
        Ok(Response::new(Box::pin(answers)))
    }

    type DeliverBatchesStream = std::pin::Pin<Box<dyn Stream<Item = Result<pb::DeliveryBatchReply, Status>> + Send>>;

    async fn deliver_batches(
        &self,
        request: Request<tonic::Streaming<pb::DeliveryBatch>>,
    ) -> Result<Response<Self::DeliverBatchesStream>, Status> {
        let service = self.clone();
        // As Deliver, a batch a message: one reply per batch, in order (a reply that waits for
        // the next step's tasks holds the ones after it, but its worker then has none to send).
        let answers = request.into_inner().then(move |batch| {
            let service = service.clone();
            async move { Ok(service.answer_batch_waiting(batch?).await) }
        });
        Ok(Response::new(Box::pin(answers)))
    }

    async fn heartbeat(&self, request: Request<pb::HeartbeatRequest>) -> Result<Response<pb::HeartbeatReply>, Status> {
        let worker = self.resolve(request.into_inner().worker_id).ok_or_else(unknown_worker)?;
        self.scheduler.renew(worker);
        Ok(Response::new(pb::HeartbeatReply {}))
    }

    async fn leave(&self, request: Request<pb::LeaveRequest>) -> Result<Response<pb::LeaveReply>, Status> {
        // Leaving twice, or after being dropped, is fine: the worker is gone either way.
        if let Some(worker) = self.resolve(request.into_inner().worker_id) {
            self.remote().remove(&worker);
            self.forget_wire(worker);
            self.scheduler.unregister(worker);
        }
        Ok(Response::new(pb::LeaveReply {}))
    }

    async fn fetch_chromosomes(
        &self,
        request: Request<pb::FetchChromosomesRequest>,
    ) -> Result<Response<pb::FetchChromosomesReply>, Status> {
        let r = request.into_inner();
        let max_ids = MAX_LEASE as usize * loa_engine::tasks::MAX_ENTRANTS;
        if r.task_ids.len() > MAX_LEASE as usize || r.ids.len() > max_ids {
            return Err(self.invalid(format!(
                "fetch: at most {MAX_LEASE} tasks and {max_ids} ids, got {} and {}",
                r.task_ids.len(),
                r.ids.len()
            )));
        }
        let mut wanted: Vec<ChromosomeId> = r.ids.iter().map(id_from_proto).collect();
        let mut chromosomes = Vec::new();
        // From the open tasks named: a task that is not open is done (or unknown here), and its
        // worker drops it; nobody waits for it.
        for task_id in r.task_ids {
            let Some(task) = self.scheduler.task(task_id) else { continue };
            for chromosome in task.chromosomes() {
                if let Some(i) = wanted.iter().position(|&id| id == chromosome.id()) {
                    wanted.swap_remove(i);
                    // As bytes: only workers that read them fetch (they came with the field).
                    chromosomes.push(chromosome_to_proto(chromosome, true));
                }
            }
        }
        self.counters.fetched.fetch_add(chromosomes.len() as u64, Ordering::Relaxed);
        Ok(Response::new(pb::FetchChromosomesReply { chromosomes }))
    }
}

mod complete;
#[cfg(test)]
mod tests;
