//! The `Master` service: registration, each worker's stream ([`stream`]) and fetches of
//! chromosomes, validated wrappers around [`Scheduler`] calls; [`sending`] decides how networks
//! travel. Protocol version 1's service is served only to refuse its workers by name. A worker
//! is dropped, its leases going back, as soon as the master knows it is gone ([`DropReason`],
//! each drop named in [`Counters::drops`]); one that ends its stream has left, without a drop.

use super::directory::Directory;
use super::{Counters, DropReason, Dropped, lock};
use crate::scheduler::{Scheduler, WorkerId};
use loa_engine::network::ChromosomeId;
use loa_proto::cache::Mirror;
use loa_proto::convert::{check_peer_address, chromosome_to_proto, id_from_proto};
use loa_proto::{MAX_TASKS_PER_MESSAGE, PROTOCOL_VERSION, pb, v1};
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};
use tokio::sync::Notify;
use tonic::{Request, Response, Status};

mod replay;
pub mod sending;
pub mod stream;

/// Longest a worker's name may be (it only shows in displays).
const MAX_NAME: usize = 200;
/// Most player threads a worker may announce.
const MAX_SLOTS: u32 = 1024;
/// The largest mirror of a worker's cache the master keeps (about 60 bytes an id). A smaller
/// mirror than the cache is still right: it only misses reuse further back.
const MAX_MIRROR: usize = 1024;

/// What the master knows of a remote worker.
struct Remote {
    /// When it last sent a message (or registered).
    heard: Instant,
    /// The ids its chromosome cache holds, as far as the master knows (`None`: it keeps none).
    mirror: Option<Arc<Mutex<Mirror>>>,
    /// Notified when the worker is dropped, so its stream ends.
    gone: Arc<Notify>,
    /// Whether a stream is attached.
    streaming: bool,
    /// The secret half of its credential (hex), which every call after registration carries.
    secret: String,
}

/// The master's side of the service.
#[derive(Clone)]
pub struct MasterService {
    scheduler: Arc<Scheduler>,
    lease_time: Duration,
    counters: Arc<Counters>,
    /// Remote workers by id. Embedded workers are not here: they cannot go silent.
    remote: Arc<Mutex<HashMap<WorkerId, Remote>>>,
    /// Put in the high bits of the worker ids this process hands out, so ids issued by an
    /// earlier master process are not mistaken for this one's after a restart.
    session: u64,
    /// Which serving workers hold which chromosomes. Locked after a mirror, never before.
    directory: Arc<Mutex<Directory>>,
    /// The token workers present to each other's `Peer` service: random, this process's own.
    peer_token: Arc<str>,
    /// The worker names that may register (`None`: any).
    allowed: Option<Arc<std::collections::BTreeSet<String>>>,
}

/// `N` random bytes from the operating system.
fn random<const N: usize>() -> std::io::Result<[u8; N]> {
    let mut bytes = [0u8; N];
    getrandom::fill(&mut bytes).map_err(|e| std::io::Error::other(format!("no randomness for the master: {e}")))?;
    Ok(bytes)
}

/// The `loa.v1.Master` service: every registration refused.
pub struct RefuseVersionOne {
    /// Where refusals are counted.
    pub counters: Arc<Counters>,
}

/// Why a worker of another protocol version cannot join.
fn version_refused(worker: u32) -> String {
    format!(
        "this master speaks loa protocol v{PROTOCOL_VERSION} and the worker v{worker}: run a worker built from the \
         master's version"
    )
}

fn unknown_worker() -> Status {
    Status::not_found("unknown worker: re-register")
}

/// Hex digits of a credential's worker id, which come before its secret.
const CREDENTIAL_ID_DIGITS: usize = 16;

impl MasterService {
    /// A service over `scheduler`; remote workers silent for `lease_time` are dropped.
    pub fn new(scheduler: Arc<Scheduler>, lease_time: Duration, counters: Arc<Counters>) -> std::io::Result<Self> {
        // Never 0, so no remote id is a small number.
        let session = u64::from(u32::from_le_bytes(random()?) & 0x7fff_ffff) | 1;
        let peer_token = random::<16>()?.iter().map(|b| format!("{b:02x}")).collect::<String>().into();
        Ok(MasterService {
            scheduler,
            lease_time,
            counters,
            remote: Arc::default(),
            session,
            directory: Arc::default(),
            peer_token,
            allowed: None,
        })
    }

    /// Refuses the registration of any worker whose name is not in `names` (`None`: none refused).
    pub fn allow_workers(mut self, names: Option<std::collections::BTreeSet<String>>) -> Self {
        self.allowed = names.map(Arc::new);
        self
    }

    fn remote(&self) -> MutexGuard<'_, HashMap<WorkerId, Remote>> {
        lock(&self.remote)
    }

    /// The scheduler's id for the wire id `id`, if this process issued it and still knows it.
    fn resolve(&self, id: u64) -> Option<WorkerId> {
        let worker = id & 0xffff_ffff;
        (id >> 32 == self.session && self.remote().contains_key(&worker)).then_some(worker)
    }

    /// Marks `worker` as heard from now and renews its leases.
    fn heard(&self, worker: WorkerId) {
        if let Some(r) = self.remote().get_mut(&worker) {
            r.heard = Instant::now();
        }
        self.scheduler.renew(worker);
    }

    /// Takes a remote worker off: its leases go back, it is no source of chromosomes any more,
    /// and its stream ends. `reason` is recorded as a drop; `None` means it left.
    fn take_off(&self, worker: WorkerId, reason: Option<DropReason>) {
        let Some(remote) = self.remote().remove(&worker) else { return };
        remote.gone.notify_one();
        // Its mirror first, then the directory: the lock order.
        let held: Vec<ChromosomeId> = remote.mirror.map(|m| lock(&m).keys().copied().collect()).unwrap_or_default();
        lock(&self.directory).forget(worker, held);
        let info = self.scheduler.unregister(worker);
        if let Some(reason) = reason {
            let name = info.map_or_else(|| format!("worker {worker}"), |w| w.name);
            lock(&self.counters.drops).push(Dropped { name, reason });
        }
    }

    /// The worker whose credential `request` carries, if the master issued it and has not
    /// revoked it: a quarantined worker's is refused as such, a dropped worker's is unknown (it
    /// registers again), and a wrong one is refused and counted.
    fn authenticate<T>(&self, request: &Request<T>) -> Result<WorkerId, Status> {
        let given = request.metadata().get(loa_proto::CREDENTIAL_HEADER).map(|v| v.as_bytes());
        let given = given.ok_or_else(|| Status::unauthenticated("no worker credential: register first"))?;
        let refused = || {
            self.counters.refused.fetch_add(1, Ordering::Relaxed);
            Status::unauthenticated("wrong worker credential")
        };
        let (id, secret) = given.split_at_checked(CREDENTIAL_ID_DIGITS).ok_or_else(refused)?;
        let id = std::str::from_utf8(id).ok().and_then(|id| u64::from_str_radix(id, 16).ok()).ok_or_else(refused)?;
        let worker = id & 0xffff_ffff;
        if id >> 32 != self.session {
            return Err(unknown_worker());
        }
        if self.scheduler.is_quarantined(worker) {
            return Err(stream::quarantined());
        }
        let remote = self.remote();
        let r = remote.get(&worker).ok_or_else(unknown_worker)?;
        if !loa_proto::same_token(secret, r.secret.as_bytes()) {
            drop(remote);
            return Err(refused());
        }
        Ok(worker)
    }

    fn invalid(&self, message: String) -> Status {
        self.counters.invalid.fetch_add(1, Ordering::Relaxed);
        Status::invalid_argument(message)
    }

    /// Drops remote workers silent for longer than the lease time, until the runtime stops.
    pub async fn reap_forever(&self) {
        let period = (self.lease_time / 4).max(Duration::from_millis(50));
        loop {
            tokio::time::sleep(period).await;
            let now = Instant::now();
            let silent: Vec<WorkerId> = self
                .remote()
                .iter()
                .filter(|(_, r)| now.saturating_duration_since(r.heard) > self.lease_time)
                .map(|(w, _)| *w)
                .collect();
            for worker in silent {
                self.take_off(worker, Some(DropReason::Silent));
            }
        }
    }

    /// Where the worker registering from `address` serves its peers, checked, if it does.
    fn peer_address(&self, r: &pb::RegisterRequest, address: Option<SocketAddr>) -> Result<Option<String>, Status> {
        let serving = match (r.peer_port, r.peer_host.as_str()) {
            (0, "") => return Ok(None),
            (0, _) => return Err(self.invalid("peer_host: given without a peer_port".into())),
            (port, _) if port > u32::from(u16::MAX) => {
                return Err(self.invalid(format!("peer_port: {port} is not a port")));
            }
            (port, "") => match address {
                Some(a) => SocketAddr::new(a.ip(), port as u16).to_string(),
                None => return Ok(None),
            },
            (port, host) => format!("{host}:{port}"),
        };
        check_peer_address("peer_host", &serving).map_err(|e| self.invalid(e.to_string()))?;
        Ok(Some(serving))
    }
}

#[tonic::async_trait]
impl pb::master_server::Master for MasterService {
    async fn register(&self, request: Request<pb::RegisterRequest>) -> Result<Response<pb::RegisterReply>, Status> {
        let address = request.remote_addr();
        let peer = address.map_or_else(|| "?".to_owned(), |a| a.to_string());
        let r = request.into_inner();
        if r.protocol != PROTOCOL_VERSION {
            self.counters.invalid.fetch_add(1, Ordering::Relaxed);
            return Err(Status::failed_precondition(version_refused(r.protocol)));
        }
        if r.name.len() > MAX_NAME {
            return Err(self.invalid(format!("name: longer than {MAX_NAME} bytes")));
        }
        if !(1..=MAX_SLOTS).contains(&r.slots) {
            return Err(self.invalid(format!("slots: must be 1 to {MAX_SLOTS}, got {}", r.slots)));
        }
        if let Some(allowed) = &self.allowed
            && !allowed.contains(&r.name)
        {
            eprintln!("master: refused worker {:?} from {peer}: not a name --allow-workers lists", r.name);
            // UNAUTHENTICATED: the worker stops and prints why; another try would be refused too.
            return Err(Status::unauthenticated(format!(
                "worker name {:?} is not one the master allows (--allow-workers): start the worker with one of \
                 those --name values, or add its name to the master's list",
                r.name
            )));
        }
        // Checked before anything is registered, so a refused call changes nothing.
        let serving = self.peer_address(&r, address)?;
        let name = format!("{} ({} slots, {peer})", r.name, r.slots);
        // UNAUTHENTICATED: a worker stops at it and prints why, rather than retry for ever.
        let worker = self
            .scheduler
            .register_remote_at(name.clone(), &r.name, r.slots as usize, address.map(|a| a.ip()))
            .map_err(|refused| Status::unauthenticated(refused.to_string()))?;
        if worker > 0xffff_ffff {
            self.scheduler.unregister(worker);
            return Err(Status::resource_exhausted("worker ids exhausted: restart the master"));
        }
        lock(&self.counters.joins).push(name);
        let capacity = (r.chromosome_cache as usize).min(MAX_MIRROR);
        let mirror = (capacity > 0).then(|| Arc::new(Mutex::new(Mirror::new(capacity))));
        let secret: String =
            random::<16>().map_err(|e| Status::internal(e.to_string()))?.iter().map(|b| format!("{b:02x}")).collect();
        let wire_id = (self.session << 32) | worker;
        let credential = format!("{wire_id:0width$x}{secret}", width = CREDENTIAL_ID_DIGITS);
        let remote = Remote { heard: Instant::now(), mirror, gone: Arc::default(), streaming: false, secret };
        self.remote().insert(worker, remote);
        if let Some(serving) = serving
            && capacity > 0
        {
            lock(&self.directory).serve(worker, serving.into());
        }
        Ok(Response::new(pb::RegisterReply {
            worker_id: wire_id,
            lease_seconds: self.lease_time.as_secs().clamp(1, u64::from(u32::MAX)) as u32,
            peer_token: self.peer_token.to_string(),
            credential,
        }))
    }

    type WorkStream = tokio_stream::wrappers::ReceiverStream<Result<pb::MasterMessage, Status>>;

    async fn work(
        &self,
        request: Request<tonic::Streaming<pb::WorkerMessage>>,
    ) -> Result<Response<Self::WorkStream>, Status> {
        let worker = self.authenticate(&request)?;
        let mut inbound = request.into_inner();
        let first =
            inbound.message().await?.ok_or_else(|| self.invalid("the stream ended before its first message".into()))?;
        match self.resolve(first.worker_id) {
            None => return Err(unknown_worker()),
            Some(named) if named != worker => {
                return Err(
                    self.invalid(format!("worker_id: {} is not the worker of this credential", first.worker_id))
                );
            }
            Some(_) => {}
        }
        let gone = {
            let mut remote = self.remote();
            let r = remote.get_mut(&worker).ok_or_else(unknown_worker)?;
            if r.streaming {
                return Err(Status::failed_precondition("this worker already has a stream: register again"));
            }
            r.streaming = true;
            self.counters.streams.fetch_add(1, Ordering::Relaxed);
            Arc::clone(&r.gone)
        };
        // Two messages ahead: the stream's loop leases again as soon as one is on its way.
        let (out, answers) = tokio::sync::mpsc::channel(2);
        let stream =
            stream::WorkerStream { service: self.clone(), worker, wire_id: first.worker_id, out, gone, wanted: 0 };
        tokio::spawn(stream.run(first, inbound));
        Ok(Response::new(tokio_stream::wrappers::ReceiverStream::new(answers)))
    }

    async fn fetch_chromosomes(
        &self,
        request: Request<pb::FetchChromosomesRequest>,
    ) -> Result<Response<pb::FetchChromosomesReply>, Status> {
        self.authenticate(&request)?;
        let r = request.into_inner();
        let max_ids = MAX_TASKS_PER_MESSAGE * loa_engine::tasks::MAX_ENTRANTS;
        if r.task_ids.len() > MAX_TASKS_PER_MESSAGE || r.ids.len() > max_ids {
            return Err(self.invalid(format!(
                "fetch: at most {MAX_TASKS_PER_MESSAGE} tasks and {max_ids} ids, got {} and {}",
                r.task_ids.len(),
                r.ids.len()
            )));
        }
        let mut wanted: Vec<ChromosomeId> = r.ids.iter().map(id_from_proto).collect();
        let mut chromosomes = Vec::new();
        // From the open tasks named: one not open is done, and nobody waits for it.
        for task_id in r.task_ids {
            let Some(task) = self.scheduler.task(task_id) else { continue };
            for chromosome in task.chromosomes() {
                if let Some(i) = wanted.iter().position(|&id| id == chromosome.id()) {
                    wanted.swap_remove(i);
                    chromosomes.push(chromosome_to_proto(chromosome));
                }
            }
        }
        self.counters.fetched.fetch_add(chromosomes.len() as u64, Ordering::Relaxed);
        Ok(Response::new(pb::FetchChromosomesReply { chromosomes }))
    }
}

#[tonic::async_trait]
impl v1::master_server::Master for RefuseVersionOne {
    async fn register(&self, request: Request<v1::RegisterRequest>) -> Result<Response<v1::RegisterReply>, Status> {
        self.counters.invalid.fetch_add(1, Ordering::Relaxed);
        let peer = request.remote_addr().map_or_else(|| "unknown peer".to_owned(), |a| a.to_string());
        eprintln!("master: refused worker {:?} from {peer}: it speaks loa protocol v1", request.get_ref().name);
        // UNAUTHENTICATED: the one refusal a worker of version 1 does not retry; it stops and
        // prints the message.
        Err(Status::unauthenticated(version_refused(1)))
    }
}
