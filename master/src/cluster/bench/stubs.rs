//! The stub workers of `master bench-dispatch`, in a process of their own
//! (`master bench-dispatch-stubs`, which the benchmark starts): so their work (making networks
//! from origins, serving and fetching peers' chromosomes, their memory allocator) does not mix
//! with the master's, whose CPU per task is what is measured.
//!
//! Each stub does with a lease reply what a worker does (its chromosome cache, origins, peers,
//! the fallback), answers each task at once with a real outcome, and leases as the
//! [`Protocol`] says. *Light* stubs skip the first part: they take every network as the master
//! sent it, without making or fetching anything. The master's work is the same either way (it
//! never sees what workers do between themselves), and light stubs keep up with it on the same
//! two cores, where making networks and serving peers would not: then the master is as busy as
//! with many real workers, rather than woken for each message. The stubs stop when the parent closes their standard input (every step
//! done) and the master's queue is empty; the process prints what they counted as one line
//! ([`StubCounts`]) for the parent to read.

use super::workload::time_tournaments;
use super::{DispatchBench, Protocol};
use loa_engine::tasks::{MatchTaskOutcome, TaskOutcome};
use loa_proto::cache::{ChromosomeCache, Resolved, resolve_entrants};
use loa_proto::convert::{id_to_proto, result_to_proto};
use loa_proto::delivery::{BatchStream, DeliveryStream};
use loa_proto::pb;
use loa_proto::pb::master_client::MasterClient;
use loa_proto::peers::{PeerService, PeerToken, Peers};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use tonic::transport::Channel;

/// What the stubs counted.
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct StubCounts {
    pub done: usize,
    pub lease_bytes: u64,
    pub fetched: u64,
    pub made: u64,
    pub peer_fetched: u64,
    pub peer_misses: u64,
    pub lease_calls: u64,
    pub complete_calls: u64,
    pub fetch_calls: u64,
}

impl StubCounts {
    fn add(&mut self, c: &StubCounts) {
        self.done += c.done;
        self.lease_bytes += c.lease_bytes;
        self.fetched += c.fetched;
        self.made += c.made;
        self.peer_fetched += c.peer_fetched;
        self.peer_misses += c.peer_misses;
        self.lease_calls += c.lease_calls;
        self.complete_calls += c.complete_calls;
        self.fetch_calls += c.fetch_calls;
    }
}

/// The line's fields, in order.
const FIELDS: [&str; 9] = [
    "done",
    "lease_bytes",
    "fetched",
    "made",
    "peer_fetched",
    "peer_misses",
    "lease_calls",
    "complete_calls",
    "fetch_calls",
];

impl StubCounts {
    fn values(&self) -> [u64; 9] {
        [
            self.done as u64,
            self.lease_bytes,
            self.fetched,
            self.made,
            self.peer_fetched,
            self.peer_misses,
            self.lease_calls,
            self.complete_calls,
            self.fetch_calls,
        ]
    }

    /// The counts as the stub process prints them: `stubs: done=4000 lease_bytes=...`.
    pub(super) fn to_line(&self) -> String {
        let fields: Vec<String> = FIELDS.iter().zip(self.values()).map(|(k, v)| format!("{k}={v}")).collect();
        format!("stubs: {}", fields.join(" "))
    }

    /// The counts in a line [`StubCounts::to_line`] printed.
    pub(super) fn from_line(line: &str) -> Option<StubCounts> {
        let rest = line.trim().strip_prefix("stubs: ")?;
        let mut v = [0u64; 9];
        let pairs: Vec<(&str, &str)> = rest.split(' ').filter_map(|p| p.split_once('=')).collect();
        if pairs.len() != FIELDS.len() {
            return None;
        }
        for ((key, value), (want, slot)) in pairs.into_iter().zip(FIELDS.iter().zip(v.iter_mut())) {
            if key != *want {
                return None;
            }
            *slot = value.parse().ok()?;
        }
        let [done, lease_bytes, fetched, made, peer_fetched, peer_misses, lease_calls, complete_calls, fetch_calls] = v;
        Some(StubCounts {
            done: usize::try_from(done).ok()?,
            lease_bytes,
            fetched,
            made,
            peer_fetched,
            peer_misses,
            lease_calls,
            complete_calls,
            fetch_calls,
        })
    }
}

/// A stub's peer service on loopback: its port; it stops when `stop` says so.
async fn serve_peers(
    cache: &Arc<std::sync::Mutex<ChromosomeCache>>,
    token: &PeerToken,
    mut stop: tokio::sync::watch::Receiver<bool>,
) -> Result<u16, tonic::Status> {
    let listener =
        tokio::net::TcpListener::bind(("127.0.0.1", 0)).await.map_err(|e| tonic::Status::internal(e.to_string()))?;
    let port = listener.local_addr().map_err(|e| tonic::Status::internal(e.to_string()))?.port();
    let service = PeerService::new(Arc::clone(cache), token.clone());
    tokio::spawn(async move {
        let _ = service
            .serve(listener, async move {
                let _ = stop.wait_for(|s| *s).await;
            })
            .await;
    });
    Ok(port)
}

/// The port light stubs announce for their (absent) peer service: nobody calls it.
const LIGHT_PEER_PORT: u16 = 9;

/// What every stub shares.
struct Shared {
    bench: DispatchBench,
    /// A knockout's outcome, and a benchmark task's (its one match: the knockout's first, 0 v 1).
    knockout_body: pb::complete_request::Result,
    pairs_body: pb::complete_request::Result,
    /// The parent closed standard input: no more steps will come.
    done: Arc<AtomicBool>,
}

/// Runs `bench.clients` stubs against the master at `url` until the parent closes standard
/// input and the queue is empty; what they counted, as the line to print. With `bench.pin`, the
/// process runs on every CPU but the first (the master's).
pub fn run_stubs(url: &str, bench: &DispatchBench) -> Result<String, String> {
    if bench.pin && !super::threads::pin_process_except(0) {
        return Err("--pin: the kernel refused to pin the stubs".into());
    }
    let (_, outcome) = time_tournaments(1, bench.depth)?;
    let TaskOutcome::Match(knockout) = &outcome else { return Err("the timed tournament is not a match task".into()) };
    let first = knockout.matches.first().copied().ok_or("the timed tournament played no match")?;
    let done = Arc::new(AtomicBool::new(false));
    {
        let done = Arc::clone(&done);
        std::thread::Builder::new()
            .name("stub-stdin".into())
            .spawn(move || {
                let _ = std::io::copy(&mut std::io::stdin().lock(), &mut std::io::sink());
                done.store(true, Ordering::Release);
            })
            .map_err(|e| e.to_string())?;
    }
    let shared = Arc::new(Shared {
        bench: bench.clone(),
        knockout_body: result_to_proto(&Ok(outcome.clone())),
        pairs_body: result_to_proto(&Ok(TaskOutcome::Match(MatchTaskOutcome { matches: vec![first] }))),
        done,
    });
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("stub")
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let counts: Result<StubCounts, String> = runtime.block_on(async {
        let endpoint = tonic::transport::Endpoint::from_shared(url.to_owned())
            .map_err(|e| e.to_string())?
            .initial_stream_window_size(1 << 20)
            .initial_connection_window_size(8 << 20);
        // One after another, as workers joining do, rather than thousands of handshakes at once.
        let mut channels = Vec::with_capacity(shared.bench.connections.max(1));
        for _ in 0..shared.bench.connections.clamp(1, shared.bench.clients.max(1)) {
            channels.push(endpoint.connect().await.map_err(|e| e.to_string())?);
        }
        // The stubs' peer services stop once every stub is done, so none misses a late fetch.
        let (stop_peers, peers_stopped) = tokio::sync::watch::channel(false);
        let mut stubs = tokio::task::JoinSet::new();
        for c in 0..shared.bench.clients {
            let channel = channels[c % channels.len()].clone();
            let client = MasterClient::new(channel).max_decoding_message_size(32 << 20);
            stubs.spawn(stub(c, client, Arc::clone(&shared), peers_stopped.clone()));
        }
        let mut total = StubCounts::default();
        let mut error = None;
        while let Some(joined) = stubs.join_next().await {
            match joined.map_err(|e| e.to_string()).and_then(|c| c.map_err(|e| e.to_string())) {
                Ok(c) => total.add(&c),
                Err(e) => error = error.or(Some(e)),
            }
        }
        let _ = stop_peers.send(true);
        error.map_or(Ok(total), Err)
    });
    Ok(counts?.to_line())
}

/// Stub `c`: registers, then leases, resolves and answers tasks until the work is over.
async fn stub(
    c: usize,
    mut client: MasterClient<Channel>,
    shared: Arc<Shared>,
    peers_stopped: tokio::sync::watch::Receiver<bool>,
) -> Result<StubCounts, tonic::Status> {
    let DispatchBench { cache, weight_bytes, protocol, batch, origins, peers, light, .. } = shared.bench;
    let (knockout_body, pairs_body, done) = (&shared.knockout_body, &shared.pairs_body, &shared.done);
    let chromosomes = Arc::new(std::sync::Mutex::new(ChromosomeCache::new(cache)));
    let token = PeerToken::default();
    // Light stubs are named as sources but never asked (none fetches): a port is all they need.
    let peer_port = match (peers, light) {
        (false, _) => 0,
        (true, false) => serve_peers(&chromosomes, &token, peers_stopped).await?,
        (true, true) => LIGHT_PEER_PORT,
    };
    let request = pb::RegisterRequest {
        name: format!("stub-{c}"),
        slots: 1,
        chromosome_cache: u32::try_from(cache).unwrap_or(u32::MAX),
        weight_bytes,
        origins,
        peer_port: u32::from(peer_port),
        peer_host: String::new(),
    };
    let registered = client.register(request).await?.into_inner();
    token.set(&registered.peer_token);
    let (id, peer_clients) = (registered.worker_id, Peers::new(token));
    let mut counts = StubCounts::default();
    let wait = pb::LeaseRequest { worker_id: id, max_tasks: batch, wait_ms: 1000 };
    let mut leased = Vec::new();
    while leased.is_empty() && !done.load(Ordering::Acquire) {
        counts.lease_calls += 1;
        leased = client.lease(wait).await?.into_inner().tasks;
    }
    let mut stream = match protocol {
        Protocol::Stream if batch == 1 => {
            let (requests, outbound) = loa_proto::delivery::request_channel();
            let answers = client.deliver(outbound).await?.into_inner();
            Some(DeliveryStream::new(requests, answers))
        }
        Protocol::Stream | Protocol::Combined | Protocol::Separate => None,
    };
    let mut batches = if batch > 1 {
        let (requests, outbound) = loa_proto::delivery::request_channel();
        let answers = client.deliver_batches(outbound).await?.into_inner();
        Some(BatchStream::new(requests, answers))
    } else {
        None
    };
    loop {
        if leased.is_empty() {
            return Ok(counts);
        }
        counts.lease_bytes += leased.iter().map(prost::Message::encoded_len).sum::<usize>() as u64;
        // What a worker does with a reply: its cache, origins and peers, and the fallback. Light
        // stubs take every network as given (they answer without playing), so nothing is made,
        // fetched or missing.
        let mut resolved = if light {
            Resolved::default()
        } else {
            resolve_entrants(&mut leased, &mut chromosomes.lock().unwrap_or_else(|p| p.into_inner()))
        };
        resolved.fetch_from_peers(&peer_clients, &chromosomes).await;
        counts.made += resolved.made;
        counts.peer_fetched += resolved.from_peers;
        counts.peer_misses += resolved.peer_misses;
        if !resolved.missing.is_empty() {
            let request = pb::FetchChromosomesRequest {
                task_ids: resolved.needing.clone(),
                ids: resolved.missing.iter().map(|&id| id_to_proto(id)).collect(),
            };
            counts.fetch_calls += 1;
            let reply = client.fetch_chromosomes(request).await?.into_inner();
            let mut cache = chromosomes.lock().unwrap_or_else(|p| p.into_inner());
            counts.fetched += resolved
                .accept_fetched(reply.chromosomes, &mut cache)
                .map_err(|e| tonic::Status::internal(e.to_string()))? as u64;
        }
        let mut next = Vec::new();
        let last = leased.len() - 1;
        let mut outcomes = Vec::new();
        for (i, mut t) in leased.into_iter().enumerate() {
            if !light && !resolved.complete(&mut t) {
                return Err(tonic::Status::internal(format!("task {}: chromosomes missing", t.id)));
            }
            let body = match &t.kind {
                Some(pb::task::Kind::Match(m)) if matches!(m.format, Some(pb::match_task::Format::Pairs(_))) => {
                    pairs_body.clone()
                }
                _ => knockout_body.clone(),
            };
            // A single-slot worker: the last outcome of a reply asks for the next task
            // (or batch).
            let max_tasks = if protocol != Protocol::Separate && i == last { batch } else { 0 };
            let request = pb::CompleteRequest { worker_id: id, task_id: t.id, result: Some(body), max_tasks };
            if batches.is_some() {
                outcomes.push(request);
                continue;
            }
            counts.complete_calls += 1;
            let reply = match &mut stream {
                Some(stream) => stream.complete(request).await??,
                None => client.complete(request).await?.into_inner(),
            };
            next.extend(reply.tasks);
            counts.done += 1;
        }
        if let Some(batches) = &mut batches {
            counts.complete_calls += 1;
            for answer in batches.complete_all(outcomes, wait.wait_ms).await? {
                next.extend(answer?.tasks);
                counts.done += 1;
            }
        }
        // A batch asks the master to wait for the next step's tasks, as a worker's does. A reply
        // that still brought nothing (or none asked): ask Lease, waiting for the next step if
        // need be, as a worker's lease loop does, until the parent says the work is over.
        while next.is_empty() && !done.load(Ordering::Acquire) {
            counts.lease_calls += 1;
            next = client.lease(wait).await?.into_inner().tasks;
        }
        leased = next;
    }
}
