//! The peer service and fetching from peers, over loopback: the token, the bounds, a cache read
//! without being reordered, and networks waiting for parents that peers hold.

use super::*;
use crate::cache::resolve_entrants;
use crate::cache::resolve_tests::{knockout_of, mutant, wire};
use crate::convert::match_only::task_from_proto;
use crate::convert::source_to_proto;
use loa_engine::network::random_uniform;
use tonic::Code;

/// A peer service over `cache` on a free loopback port, answering `token`: its address.
async fn serve(cache: &Arc<Mutex<ChromosomeCache>>, token: &PeerToken) -> String {
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0)).await.unwrap();
    let address = listener.local_addr().unwrap().to_string();
    let service = PeerService::new(Arc::clone(cache), token.clone());
    tokio::spawn(service.serve(listener, std::future::pending()));
    address
}

fn cache_of(chromosomes: &[&Arc<Chromosome>], capacity: usize) -> Arc<Mutex<ChromosomeCache>> {
    let mut cache = ChromosomeCache::new(capacity);
    for c in chromosomes {
        cache.insert(c.id(), Arc::clone(c));
    }
    Arc::new(Mutex::new(cache))
}

/// Network entrant `i` of a match task on the wire.
fn network(task: &mut pb::Task, i: usize) -> &mut pb::Entrant {
    let m = task;
    let Some(pb::match_entrant::Kind::Network(n)) = &mut m.entrants[i].kind else { panic!("a network") };
    n
}

fn token(t: &str) -> PeerToken {
    let token = PeerToken::default();
    token.set(t);
    token
}

/// One raw call for `ids` with `token`.
async fn ask(address: &str, token: Option<&str>, ids: &[ChromosomeId]) -> Result<Vec<pb::Entrant>, Status> {
    let mut client = PeerClient::connect(format!("http://{address}")).await.unwrap();
    let mut request = Request::new(pb::PeerRequest { ids: ids.iter().map(|&id| id_to_proto(id)).collect() });
    if let Some(t) = token {
        request.metadata_mut().insert(crate::TOKEN_HEADER, crate::bearer(t).parse().unwrap());
    }
    client.chromosomes(request).await.map(|r| r.into_inner().chromosomes)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_peer_serves_what_it_holds_to_token_holders_without_reordering_its_cache() {
    let (a, b, c) = (Arc::new(random_uniform(1)), Arc::new(random_uniform(2)), Arc::new(random_uniform(3)));
    let cache = cache_of(&[&a, &b], 2);
    let unset = PeerToken::default();
    let address = serve(&cache, &unset).await;
    // Before the worker has a token from its master, everyone is refused.
    let refused = ask(&address, Some(""), &[a.id()]).await.unwrap_err();
    assert_eq!(refused.code(), Code::Unauthenticated);
    unset.set("t0k3n");
    assert_eq!(ask(&address, None, &[a.id()]).await.unwrap_err().code(), Code::Unauthenticated);
    assert_eq!(ask(&address, Some("other"), &[a.id()]).await.unwrap_err().code(), Code::Unauthenticated);
    let too_many = vec![a.id(); MAX_PEER_IDS + 1];
    assert_eq!(ask(&address, Some("t0k3n"), &too_many).await.unwrap_err().code(), Code::InvalidArgument);
    // What it holds, each with its id; what it lacks is left out.
    let got = ask(&address, Some("t0k3n"), &[c.id(), a.id()]).await.unwrap();
    assert_eq!(got.len(), 1);
    assert_eq!(crate::convert::chromosome_from_proto(&got[0]).unwrap(), *a);
    // Reading a did not make it the most recent: c evicts a, as the master's mirror expects.
    cache.lock().unwrap().insert(c.id(), Arc::clone(&c));
    assert!(!cache.lock().unwrap().contains(&a.id()) && cache.lock().unwrap().contains(&b.id()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fetches_go_to_the_next_peer_when_one_fails_and_take_only_what_was_asked() {
    let (a, b, c) = (Arc::new(random_uniform(1)), Arc::new(random_uniform(2)), Arc::new(random_uniform(3)));
    let good = serve(&cache_of(&[&a, &b, &c], 8), &token("k")).await;
    let lacking = serve(&cache_of(&[&c], 8), &token("k")).await;
    let other_token = serve(&cache_of(&[&a, &b], 8), &token("j")).await;
    // A port nobody listens on.
    let closed = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().to_string()
    };
    let peers = Peers::new(token("k"));
    let wanted = vec![
        (a.id(), vec![closed.clone(), good.clone()]),
        (b.id(), vec![other_token, lacking.clone(), good.clone()]),
        (c.id(), vec![lacking]),
        (random_uniform(9).id(), vec![good]),
    ];
    let (got, misses) = peers.fetch(&wanted).await;
    let mut got: Vec<ChromosomeId> = got.iter().map(|g| g.id()).collect();
    got.sort_unstable();
    let mut expected = vec![a.id(), b.id(), c.id()];
    expected.sort_unstable();
    assert_eq!(got, expected);
    // a: the closed port; b: the wrong token, then a peer without it; the last id: nobody has it.
    assert_eq!(misses, 1 + 2 + 1);
    // The closed port and the wrong token failed their calls: they are skipped for a while (a
    // dead or firewalled peer costs a deadline once, not every task); a peer that only lacked
    // something is not.
    assert!(peers.is_failing(&closed) && peers.is_failing(&wanted[1].1[0]) && !peers.is_failing(&wanted[2].1[0]));
    // Even once something serves there again, until the pause is over.
    let listener = tokio::net::TcpListener::bind(&closed).await.unwrap();
    let service = PeerService::new(cache_of(&[&a], 8), token("k"));
    tokio::spawn(service.serve(listener, std::future::pending()));
    let again = vec![(a.id(), vec![closed.clone(), wanted[0].1[1].clone()])];
    let (got, misses) = peers.fetch(&again).await;
    assert_eq!((got.len(), misses), (1, 1), "a from the second peer, the first skipped");
    let fresh = Peers::new(token("k"));
    assert_eq!(fresh.fetch(&again).await.1, 0, "a new client asks the first peer, which now serves");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn networks_wait_for_parents_from_peers_then_are_made() {
    let (p, q) = (Arc::new(random_uniform(1)), Arc::new(random_uniform(2)));
    let holder = serve(&cache_of(&[&p, &q], 8), &token("k")).await;
    // Two networks need p, but the master names its source once a reply, with the first; q
    // itself comes from the peer by id.
    let task = knockout_of(&[Arc::clone(&q), mutant(&p, 5), mutant(&p, 6), mutant(&q, 7)]);
    let empty = ChromosomeCache::new(16);
    let mut sent = wire(&task, &empty, &[]);
    network(&mut sent, 1).sources = vec![source_to_proto(p.id(), &holder)];
    assert!(network(&mut sent, 2).sources.is_empty());
    let survivor = network(&mut sent, 0);
    survivor.weights.clear();
    survivor.topology.clear();
    survivor.sources = vec![source_to_proto(q.id(), &holder)];
    network(&mut sent, 3).sources = vec![source_to_proto(q.id(), &holder)];
    let cache = Mutex::new(ChromosomeCache::new(16));
    let mut tasks = vec![sent];
    let mut resolved = resolve_entrants(&mut tasks, &mut cache.lock().unwrap());
    assert!(!resolved.waiting.is_empty() && resolved.missing.is_empty(), "{resolved:?}");
    resolved.fetch_from_peers(&Peers::new(token("k")), &cache).await;
    assert_eq!((resolved.from_peers, resolved.made, resolved.peer_misses), (2, 3, 0));
    assert!(resolved.missing.is_empty());
    let (_, back) = task_from_proto(tasks.remove(0), &|id| resolved.chromosome(id)).unwrap();
    assert_eq!(back, task);
    assert_eq!(cache.lock().unwrap().keys().count(), 5, "the parents and the made networks are cached");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_network_whose_peers_fail_is_left_to_the_master() {
    let p = Arc::new(random_uniform(1));
    let refusing = serve(&cache_of(&[&p], 8), &token("other")).await;
    let task = knockout_of(&[mutant(&p, 5), mutant(&p, 6), mutant(&p, 7), mutant(&p, 8)]);
    let mut tasks = vec![wire(&task, &ChromosomeCache::new(1), &[source_to_proto(p.id(), &refusing)])];
    let cache = Mutex::new(ChromosomeCache::new(16));
    let mut resolved = resolve_entrants(&mut tasks, &mut cache.lock().unwrap());
    resolved.fetch_from_peers(&Peers::new(token("k")), &cache).await;
    assert_eq!((resolved.from_peers, resolved.made, resolved.peer_misses), (0, 0, 1));
    let ids: Vec<ChromosomeId> = task.chromosomes().map(|c| c.id()).collect();
    assert_eq!((resolved.missing.clone(), resolved.needing.clone()), (ids, vec![7]));
}
