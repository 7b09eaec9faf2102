//! The stub workers, in a process of their own (`loa-bench dispatch-stubs`, which the
//! benchmark starts): so their work (making networks from origins, serving and fetching peers'
//! chromosomes, their memory allocator) does not mix with the master's, whose CPU per task is
//! what is measured.
//!
//! Each stub registers and keeps one `Work` stream, as a single-slot worker does. It asks for
//! `batch` tasks; with each message of tasks it does what a worker does (its chromosome cache,
//! origins, peers, fetches from the master), answers every task at once with a real outcome, and
//! sends those outcomes in one message that asks for as many tasks again. *Light* stubs skip the
//! first part: they take every network as the master sent it, without making or fetching
//! anything. The master's work is the same either way (it never sees what workers do between
//! themselves), and light stubs keep up with it on the same two cores, where making networks and
//! serving peers would not: then the master is as busy as with many real workers, rather than
//! woken for each message.
//!
//! The stubs end their streams when the parent closes their standard input (every step done);
//! the process then prints what they counted as one line ([`StubCounts`]).

use super::StubOptions;
use super::counts::StubCounts;
use super::threads::pin_process_except;
use super::workload::time_tournaments;
use crate::BenchError;
use loa_engine::tasks::MatchTaskOutcome;
use loa_proto::cache::{ChromosomeCache, Resolved, resolve_entrants};
use loa_proto::convert::{id_to_proto, outcome_to_proto};
use loa_proto::pb::master_client::MasterClient;
use loa_proto::peers::{PeerService, PeerToken, Peers};
use loa_proto::{PROTOCOL_VERSION, pb};
use std::sync::{Arc, Mutex};
use tokio::sync::{mpsc, watch};
use tonic::transport::Channel;

/// The port light stubs announce for their (absent) peer service: nobody calls it.
const LIGHT_PEER_PORT: u16 = 9;

/// What every stub shares.
struct Shared {
    options: StubOptions,
    /// A knockout's outcome, and a benchmark task's (its one match: the knockout's first, 0 v
    /// 1), each for task 0.
    knockout: pb::Outcome,
    pairs: pb::Outcome,
    /// Becomes true when the parent closes standard input: no more steps will come.
    done: watch::Receiver<bool>,
}

/// Runs `options.clients` stubs against the master at `url` until the parent closes standard
/// input; what they counted. With `options.pin`, the process runs on every CPU but the first
/// (the master's).
pub fn run_stubs(url: &str, options: &StubOptions) -> Result<StubCounts, BenchError> {
    if options.pin && !pin_process_except(0) {
        return Err(BenchError::Pin("the stub workers"));
    }
    let (_, outcome) = time_tournaments(1, options.depth)?;
    let first = *outcome.matches.first().ok_or_else(|| BenchError::Engine("a tournament played no match".into()))?;
    let (closed, done) = watch::channel(false);
    std::thread::Builder::new()
        .name("stub-stdin".into())
        .spawn(move || {
            let _ = std::io::copy(&mut std::io::stdin().lock(), &mut std::io::sink());
            let _ = closed.send(true);
        })
        .map_err(|source| BenchError::Spawn { program: "the stubs' standard input thread".into(), source })?;
    let shared = Arc::new(Shared {
        options: options.clone(),
        knockout: outcome_to_proto(0, &Ok(outcome.into()), 0),
        pairs: outcome_to_proto(0, &Ok(MatchTaskOutcome { matches: vec![first] }.into()), 0),
        done,
    });
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("stub")
        .enable_all()
        .build()
        .map_err(|source| BenchError::Spawn { program: "the stubs' runtime".into(), source })?;
    runtime.block_on(async {
        let endpoint = tonic::transport::Endpoint::from_shared(url.to_owned())
            .map_err(BenchError::Connect)?
            .initial_stream_window_size(1 << 20)
            .initial_connection_window_size(8 << 20);
        // One after another, as workers joining do, rather than thousands of handshakes at once.
        let connections = options.connections.clamp(1, options.clients.max(1));
        let mut channels = Vec::with_capacity(connections);
        for _ in 0..connections {
            channels.push(endpoint.connect().await.map_err(BenchError::Connect)?);
        }
        // The stubs' peer services stop once every stub is done, so none misses a late fetch.
        let (stop_peers, peers_stopped) = watch::channel(false);
        let mut stubs = tokio::task::JoinSet::new();
        for c in 0..options.clients {
            let client = MasterClient::new(channels[c % channels.len()].clone())
                .max_decoding_message_size(loa_proto::MAX_MESSAGE_BYTES);
            stubs.spawn(stub(c, client, Arc::clone(&shared), peers_stopped.clone()));
        }
        let mut total = StubCounts::default();
        let mut error = None;
        while let Some(joined) = stubs.join_next().await {
            match joined.map_err(|e| BenchError::Stubs(e.to_string())).and_then(|c| c) {
                Ok(c) => total.add(&c),
                Err(e) => error = error.or(Some(e)),
            }
        }
        let _ = stop_peers.send(true);
        error.map_or(Ok(total), Err)
    })
}

/// A stub's peer service on loopback: its port; it stops when `stop` says so.
async fn serve_peers(
    cache: &Arc<Mutex<ChromosomeCache>>,
    token: &PeerToken,
    mut stop: watch::Receiver<bool>,
) -> Result<u16, BenchError> {
    let io = |source| BenchError::Spawn { program: "a stub's peer service".into(), source };
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0)).await.map_err(io)?;
    let port = listener.local_addr().map_err(io)?.port();
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

/// One stub: its client, its chromosome cache and what it counted.
struct Stub {
    client: MasterClient<Channel>,
    shared: Arc<Shared>,
    cache: Arc<Mutex<ChromosomeCache>>,
    peers: Peers,
    counts: StubCounts,
    /// Its credential from the master, for every call after registering.
    credential: String,
}

/// Stub `c`: registers, then answers the tasks of its stream until the work is over.
async fn stub(
    c: usize,
    mut client: MasterClient<Channel>,
    shared: Arc<Shared>,
    peers_stopped: watch::Receiver<bool>,
) -> Result<StubCounts, BenchError> {
    let StubOptions { cache, batch, peers, light, .. } = shared.options;
    let chromosomes = Arc::new(Mutex::new(ChromosomeCache::new(cache)));
    let token = PeerToken::default();
    // Light stubs are named as sources but never asked (none fetches): a port is all they need.
    let peer_port = match (peers, light) {
        (false, _) => 0,
        (true, false) => serve_peers(&chromosomes, &token, peers_stopped).await?,
        (true, true) => LIGHT_PEER_PORT,
    };
    let request = pb::RegisterRequest {
        protocol: PROTOCOL_VERSION,
        name: format!("stub-{c}"),
        slots: 1,
        chromosome_cache: u32::try_from(cache).unwrap_or(u32::MAX),
        peer_port: u32::from(peer_port),
        peer_host: String::new(),
    };
    let registered = client.register(request).await.map_err(BenchError::rpc("registering"))?.into_inner();
    token.set(&registered.peer_token);
    let (out, outbound) = mpsc::channel(4);
    let first = pb::WorkerMessage { worker_id: registered.worker_id, outcomes: Vec::new(), want: batch };
    let _ = out.try_send(first);
    let credential = registered.credential.clone();
    let mut inbound = client
        .work(loa_proto::with_credential(tokio_stream::wrappers::ReceiverStream::new(outbound), &credential))
        .await
        .map_err(BenchError::rpc("opening its stream"))?
        .into_inner();
    let mut stub = Stub {
        client,
        shared: Arc::clone(&shared),
        cache: chromosomes,
        peers: Peers::new(token),
        counts: StubCounts { messages_out: 1, ..StubCounts::default() },
        credential,
    };
    let mut done = shared.done.clone();
    loop {
        let message = tokio::select! {
            message = inbound.message() => message,
            _ = done.wait_for(|d| *d) => break,
        };
        match message {
            Ok(Some(message)) => {
                stub.counts.messages_in += 1;
                if let Some(reply) = stub.answer(message).await? {
                    stub.counts.messages_out += 1;
                    if out.send(reply).await.is_err() {
                        return Err(BenchError::Stubs("a stream closed under its stub".into()));
                    }
                }
            }
            // The master ends streams only when the run is over.
            Ok(None) => break,
            Err(_) if *done.borrow() => break,
            Err(status) => return Err(BenchError::rpc("on its stream")(status)),
        }
    }
    // Ending the stream takes the stub off the master.
    drop(out);
    Ok(stub.counts)
}

impl Stub {
    /// Takes a message of the master's: counts its receipt, and answers its tasks, if any, with
    /// the message to send back.
    async fn answer(&mut self, message: pb::MasterMessage) -> Result<Option<pb::WorkerMessage>, BenchError> {
        if let Some(receipt) = message.receipt {
            self.counts.accepted += u64::from(receipt.accepted);
            self.counts.duplicates += u64::from(receipt.duplicates);
            self.counts.refused += u64::from(receipt.unknown) + receipt.refused.len() as u64;
        }
        let mut tasks = message.tasks;
        if tasks.is_empty() {
            return Ok(None);
        }
        let resolved = if self.shared.options.light { Resolved::default() } else { self.resolve(&mut tasks).await? };
        let mut outcomes = Vec::with_capacity(tasks.len());
        let mut abandoned = 0;
        for mut task in tasks {
            if !self.shared.options.light && !resolved.complete(&mut task) {
                // Its chromosomes are not to be had: its outcome is in already.
                abandoned += 1;
                continue;
            }
            let mut outcome = match task.format {
                Some(pb::task::Format::Pairs(_)) => self.shared.pairs.clone(),
                _ => self.shared.knockout.clone(),
            };
            outcome.task_id = task.id;
            outcomes.push(outcome);
        }
        self.counts.sent += outcomes.len() as u64;
        self.counts.abandoned += abandoned;
        // As many tasks again as this message took, as a single-slot worker asks.
        let want = (outcomes.len() as u64 + abandoned) as u32;
        Ok(Some(pb::WorkerMessage { worker_id: 0, outcomes, want }))
    }

    /// What a worker does with a message's tasks: its cache, origins and peers, then what is
    /// still lacking from the master.
    async fn resolve(&mut self, tasks: &mut [pb::Task]) -> Result<Resolved, BenchError> {
        let mut resolved = resolve_entrants(tasks, &mut self.cache.lock().unwrap_or_else(|p| p.into_inner()));
        resolved.fetch_from_peers(&self.peers, &self.cache).await;
        self.counts.made += resolved.made;
        self.counts.peer_fetched += resolved.from_peers;
        self.counts.peer_misses += resolved.peer_misses;
        if !resolved.missing.is_empty() {
            let request = pb::FetchChromosomesRequest {
                task_ids: resolved.needing.clone(),
                ids: resolved.missing.iter().map(|&id| id_to_proto(id)).collect(),
            };
            self.counts.fetch_calls += 1;
            let reply = self
                .client
                .fetch_chromosomes(loa_proto::with_credential(request, &self.credential))
                .await
                .map_err(BenchError::rpc("fetching chromosomes"))?
                .into_inner();
            let mut cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
            let fetched = resolved
                .accept_fetched(reply.chromosomes, &mut cache)
                .map_err(|e| BenchError::Stubs(format!("the master's chromosomes: {e}")))?;
            self.counts.fetched += fetched as u64;
        }
        Ok(resolved)
    }
}
