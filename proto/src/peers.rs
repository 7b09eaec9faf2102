//! Workers serving each other the chromosomes they hold, so new networks travel as their origins
//! and their parents come from peers rather than the master: [`PeerService`] serves a worker's
//! cache, [`Peers`] asks other workers. A peer can fail a fetch but never change a game: every
//! chromosome is checked against its id. Calls carry the master's peer token, never the run's.

use crate::cache::ChromosomeCache;
use crate::convert::{chromosome_from_proto, chromosome_to_proto, id_from_proto, id_to_proto};
use crate::limits::MAX_PEER_IDS;
use crate::pb;
use crate::pb::peer_client::PeerClient;
use loa_engine::network::{Chromosome, ChromosomeId};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;
use tonic::transport::{Channel, Endpoint};
use tonic::{Request, Response, Status};

/// Largest request a peer accepts (16 ids are under 1 KiB).
const MAX_PEER_REQUEST: usize = 64 << 10;
/// Largest reply a peer sends or accepts (16 chromosomes of 8 KiB).
const MAX_PEER_REPLY: usize = 1 << 20;
/// How long a fetch from one peer may take, connecting included (a worker waits for it).
const PEER_DEADLINE: Duration = Duration::from_secs(1);
/// How long a peer that failed a call is skipped, so a dead peer the master still names costs
/// one deadline a while, not one a task.
const FAILED_PEER_PAUSE: Duration = Duration::from_secs(30);
/// Most peer connections a worker keeps open; past it they are all dropped and made again as
/// needed (a long run meets every peer).
const MAX_CONNECTIONS: usize = 256;

/// The token peers present to each other, set when the worker registers; until then every call
/// is refused.
#[derive(Clone, Debug, Default)]
pub struct PeerToken(Arc<RwLock<Option<String>>>);

impl PeerToken {
    /// Takes `token` (from `RegisterReply.peer_token`; empty: none, peers are refused).
    pub fn set(&self, token: &str) {
        *self.0.write().unwrap_or_else(|p| p.into_inner()) = (!token.is_empty()).then(|| token.to_owned());
    }

    /// The token, if the worker has one.
    pub fn get(&self) -> Option<String> {
        self.0.read().unwrap_or_else(|p| p.into_inner()).clone()
    }
}

/// A worker's `Peer` service: the chromosomes its cache holds, for calls carrying the peer
/// token. Reading does not reorder the cache (the master's mirror of it does not see peers).
#[derive(Clone)]
pub struct PeerService {
    cache: Arc<Mutex<ChromosomeCache>>,
    token: PeerToken,
}

impl PeerService {
    /// The service over `cache`, answering calls that carry `token`.
    pub fn new(cache: Arc<Mutex<ChromosomeCache>>, token: PeerToken) -> PeerService {
        PeerService { cache, token }
    }

    /// Serves the peers that connect to `listener` until `shutdown` completes, with
    /// `TCP_NODELAY`: a peer waits for each reply, which Nagle's algorithm would hold back.
    pub async fn serve(
        self,
        listener: tokio::net::TcpListener,
        shutdown: impl std::future::Future<Output = ()>,
    ) -> Result<(), tonic::transport::Error> {
        crate::accept::raise_open_files_limit();
        let accepting = crate::accept::Accepting::new(listener, Default::default(), "worker's peer service");
        let incoming = tokio_stream::StreamExt::map(accepting, |c| {
            c.inspect(|stream| {
                let _ = stream.set_nodelay(true);
            })
        });
        tonic::transport::Server::builder()
            .add_service(
                pb::peer_server::PeerServer::new(self)
                    .max_decoding_message_size(MAX_PEER_REQUEST)
                    .max_encoding_message_size(MAX_PEER_REPLY),
            )
            .serve_with_incoming_shutdown(incoming, shutdown)
            .await
    }
}

#[tonic::async_trait]
impl pb::peer_server::Peer for PeerService {
    async fn chromosomes(
        &self,
        request: Request<pb::PeerRequest>,
    ) -> Result<Response<pb::FetchChromosomesReply>, Status> {
        let given = request.metadata().get(crate::TOKEN_HEADER).map(|v| v.as_bytes());
        let allowed =
            self.token.get().is_some_and(|t| given.is_some_and(|g| crate::same_token(g, crate::bearer(&t).as_bytes())));
        if !allowed {
            return Err(Status::unauthenticated("missing or wrong peer token"));
        }
        let ids = request.into_inner().ids;
        if ids.len() > MAX_PEER_IDS {
            return Err(Status::invalid_argument(format!("ids: at most {MAX_PEER_IDS} a call, got {}", ids.len())));
        }
        let held: Vec<Arc<Chromosome>> = {
            let cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
            ids.iter().filter_map(|id| cache.peek(&id_from_proto(id)).cloned()).collect()
        };
        let chromosomes = held.iter().map(|c| chromosome_to_proto(c)).collect();
        Ok(Response::new(pb::FetchChromosomesReply { chromosomes }))
    }
}

/// The client side: connections to peers, made as needed, the token to present, and the peers
/// skipped for a while after a failed call.
#[derive(Debug, Default)]
pub struct Peers {
    token: PeerToken,
    connections: Mutex<HashMap<String, PeerClient<Channel>>>,
    /// When each peer last failed a call.
    failed: Mutex<HashMap<String, std::time::Instant>>,
}

impl Peers {
    /// Peers called with `token`.
    pub fn new(token: PeerToken) -> Peers {
        Peers { token, connections: Mutex::default(), failed: Mutex::default() }
    }

    /// Whether `peer` failed a call in the last `FAILED_PEER_PAUSE` (it is skipped meanwhile).
    pub fn is_failing(&self, peer: &str) -> bool {
        let failed = self.failed.lock().unwrap_or_else(|p| p.into_inner());
        failed.get(peer).is_some_and(|at| at.elapsed() < FAILED_PEER_PAUSE)
    }

    fn failing(&self, peer: String) {
        let mut failed = self.failed.lock().unwrap_or_else(|p| p.into_inner());
        if failed.len() >= MAX_CONNECTIONS {
            failed.retain(|_, at| at.elapsed() < FAILED_PEER_PAUSE);
        }
        failed.insert(peer, std::time::Instant::now());
    }

    /// A client of the peer at `address` (`host:port`), connecting lazily.
    fn client(&self, address: &str) -> Option<PeerClient<Channel>> {
        let mut connections = self.connections.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(client) = connections.get(address) {
            return Some(client.clone());
        }
        if connections.len() >= MAX_CONNECTIONS {
            connections.clear();
        }
        let endpoint = Endpoint::from_shared(format!("http://{address}")).ok()?;
        let channel = endpoint.connect_timeout(PEER_DEADLINE).tcp_nodelay(true).connect_lazy();
        let client = PeerClient::new(channel).max_decoding_message_size(MAX_PEER_REPLY);
        connections.insert(address.to_owned(), client.clone());
        Some(client)
    }

    /// Asks peers for the chromosomes `wanted` (each with the peers that hold it, in order):
    /// every first peer at once, then the next peer of each chromosome still lacking, and so
    /// on, skipping peers that failed a call lately. Returns the chromosomes got, each checked
    /// against its id, and how many asks failed (a skipped peer's included).
    pub async fn fetch(&self, wanted: &[(ChromosomeId, Vec<String>)]) -> (Vec<Arc<Chromosome>>, u64) {
        let mut got: HashMap<ChromosomeId, Arc<Chromosome>> = HashMap::new();
        let mut misses = 0;
        let rounds = wanted.iter().map(|(_, peers)| peers.len()).max().unwrap_or(0);
        for round in 0..rounds {
            // This round's asks, by peer, at most MAX_PEER_IDS a call.
            let mut asks: Vec<(String, Vec<ChromosomeId>)> = Vec::new();
            for (id, peers) in wanted {
                let Some(peer) = peers.get(round) else { continue };
                if got.contains_key(id) {
                    continue;
                }
                match asks.iter_mut().find(|(p, ids)| p == peer && ids.len() < MAX_PEER_IDS) {
                    Some((_, ids)) => ids.push(*id),
                    None => asks.push((peer.clone(), vec![*id])),
                }
            }
            let mut calls = tokio::task::JoinSet::new();
            for (peer, ids) in asks {
                let client = if self.is_failing(&peer) { None } else { self.client(&peer) };
                let Some(mut client) = client else {
                    misses += ids.len() as u64;
                    continue;
                };
                let token = self.token.get();
                calls.spawn(async move {
                    let mut request =
                        Request::new(pb::PeerRequest { ids: ids.iter().map(|&id| id_to_proto(id)).collect() });
                    request.set_timeout(PEER_DEADLINE);
                    if let Some(value) = token.and_then(|t| crate::bearer(&t).parse().ok()) {
                        request.metadata_mut().insert(crate::TOKEN_HEADER, value);
                    }
                    let reply = tokio::time::timeout(PEER_DEADLINE, client.chromosomes(request)).await;
                    (peer, ids, reply.ok().and_then(Result::ok).map(|r| r.into_inner().chromosomes))
                });
            }
            while let Some(joined) = calls.join_next().await {
                let Ok((peer, ids, reply)) = joined else { continue };
                if reply.is_none() {
                    self.failing(peer);
                }
                let mut answered = 0;
                for sent in reply.unwrap_or_default() {
                    // Only what was asked of this peer, and only what hashes to the id it claims.
                    let Ok(chromosome) = chromosome_from_proto(&sent) else { continue };
                    let id = chromosome.id();
                    if ids.contains(&id) && !got.contains_key(&id) {
                        got.insert(id, Arc::new(chromosome));
                        answered += 1;
                    }
                }
                misses += ids.len().saturating_sub(answered) as u64;
            }
        }
        (got.into_values().collect(), misses)
    }
}

#[cfg(test)]
mod tests;
