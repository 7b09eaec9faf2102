//! What the master's service refuses before trusting anyone: a blank token, undecodable
//! requests (INVALID_ARGUMENT, counted), calls without a worker's own credential, and
//! connections past the caps or idle past the handshake time or keep-alive. The connections are
//! the test's own, down to raw TCP sockets.

use loa_master::cluster::{self, ClusterOptions, Server};
use loa_master::scheduler::Scheduler;
use loa_proto::admit::ConnectionLimits;
use loa_proto::pb::{self, master_client::MasterClient};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;
use std::time::{Duration, Instant};
use tonic::Code;

const TOKEN: &str = "a-token-for-the-tests";

/// A master serving an empty scheduler on loopback with `limits`.
fn serving(limits: ConnectionLimits) -> (Arc<Scheduler>, Server) {
    let scheduler = Arc::new(Scheduler::new(Duration::from_secs(30)));
    let mut options = ClusterOptions::new("127.0.0.1:0".parse().unwrap(), Some(TOKEN.into()));
    options.connections = limits;
    let server = cluster::serve(&scheduler, &options).unwrap();
    (scheduler, server)
}

/// Generous limits, except as a test sets them.
fn limits() -> ConnectionLimits {
    ConnectionLimits { handshake: Duration::from_secs(600), keepalive: None, ..ConnectionLimits::default() }
}

#[test]
fn a_blank_token_is_refused_before_anything_listens() {
    let scheduler = Arc::new(Scheduler::new(Duration::from_secs(30)));
    for blank in ["", " ", "\t"] {
        let options = ClusterOptions::new("127.0.0.1:0".parse().unwrap(), Some(blank.into()));
        let err = cluster::serve(&scheduler, &options).err().expect("refused");
        assert!(err.to_string().contains("empty"), "{blank:?}: {err}");
        assert!(options.bound.get().is_none(), "nothing listened");
    }
}

/// A gRPC codec that sends the bytes it is given and reads back whatever comes.
#[derive(Clone, Default)]
struct Bytes;

impl tonic::codec::Codec for Bytes {
    type Encode = Vec<u8>;
    type Decode = Vec<u8>;
    type Encoder = Bytes;
    type Decoder = Bytes;
    fn encoder(&mut self) -> Bytes {
        Bytes
    }
    fn decoder(&mut self) -> Bytes {
        Bytes
    }
}

impl tonic::codec::Encoder for Bytes {
    type Item = Vec<u8>;
    type Error = tonic::Status;
    fn encode(&mut self, item: Vec<u8>, buf: &mut tonic::codec::EncodeBuf<'_>) -> Result<(), tonic::Status> {
        prost::bytes::BufMut::put_slice(buf, &item);
        Ok(())
    }
}

impl tonic::codec::Decoder for Bytes {
    type Item = Vec<u8>;
    type Error = tonic::Status;
    fn decode(&mut self, buf: &mut tonic::codec::DecodeBuf<'_>) -> Result<Option<Vec<u8>>, tonic::Status> {
        let n = prost::bytes::Buf::remaining(buf);
        Ok(Some(prost::bytes::Buf::copy_to_bytes(buf, n).to_vec()))
    }
}

/// A plain gRPC channel to the master at `addr`.
async fn channel(addr: SocketAddr) -> tonic::transport::Channel {
    tonic::transport::Endpoint::from_shared(format!("http://{addr}")).unwrap().connect().await.unwrap()
}

#[test]
fn undecodable_requests_are_invalid_arguments_and_counted() {
    let (scheduler, server) = serving(limits());
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let channel = channel(server.addr).await;
        let mut grpc = tonic::client::Grpc::new(channel);
        // Field 1 length-delimited, claiming 16 bytes where 1 follows.
        for method in ["/loa.v2.Master/Register", "/loa.v2.Master/FetchChromosomes"] {
            let mut request = tonic::Request::new(vec![0x0a, 0x10, 0x01]);
            request.metadata_mut().insert("authorization", loa_proto::bearer(TOKEN).parse().unwrap());
            grpc.ready().await.unwrap();
            let path = tonic::codegen::http::uri::PathAndQuery::from_static(method);
            let status = grpc.unary(request, path, Bytes).await.unwrap_err();
            assert_eq!(status.code(), Code::InvalidArgument, "{method}: {status:?}");
            assert!(status.message().contains("does not decode"), "{method}: {status:?}");
        }
    });
    assert_eq!(server.counters.invalid.load(Relaxed), 2, "both counted as malformed");
    let line = cluster::summary(&scheduler.stats(), &server.counters);
    assert!(line.contains(" 2 malformed requests"), "{line}");
    scheduler.close();
}

#[test]
fn calls_after_registration_need_the_workers_own_credential() {
    let (scheduler, server) = serving(limits());
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let channel = channel(server.addr).await;
        let mut client = MasterClient::with_interceptor(channel, |mut request: tonic::Request<()>| {
            request.metadata_mut().insert("authorization", loa_proto::bearer(TOKEN).parse().unwrap());
            Ok(request)
        });
        let registration = pb::RegisterRequest {
            protocol: loa_proto::PROTOCOL_VERSION,
            name: "w".into(),
            slots: 1,
            ..Default::default()
        };
        let reply = client.register(registration).await.unwrap().into_inner();
        assert_eq!(reply.credential.len(), 48, "{reply:?}");
        let fetch = || pb::FetchChromosomesRequest::default();
        // The shared token alone: refused.
        let status = client.fetch_chromosomes(fetch()).await.unwrap_err();
        assert_eq!(status.code(), Code::Unauthenticated, "{status:?}");
        // Its own id with another secret, or another's id: refused, and counted.
        let before = server.counters.refused.load(Relaxed);
        let mut forged = reply.credential.clone();
        forged.replace_range(20..21, if &forged[20..21] == "0" { "1" } else { "0" });
        let status = client.fetch_chromosomes(loa_proto::with_credential(fetch(), &forged)).await.unwrap_err();
        assert_eq!((status.code(), status.message()), (Code::Unauthenticated, "wrong worker credential"));
        assert_eq!(server.counters.refused.load(Relaxed), before + 1);
        let (outbound, stream) = tokio::sync::mpsc::channel(1);
        outbound.send(pb::WorkerMessage { worker_id: reply.worker_id, ..Default::default() }).await.unwrap();
        let stream = tokio_stream::wrappers::ReceiverStream::new(stream);
        let status = client.work(stream).await.unwrap_err();
        assert_eq!(status.code(), Code::Unauthenticated, "a stream without it: {status:?}");
        // With it: served.
        let credited = loa_proto::with_credential(fetch(), &reply.credential);
        assert!(client.fetch_chromosomes(credited).await.is_ok());
    });
    scheduler.close();
}

/// Whether the master closes `socket` within `within`: it reads until the end (or a reset).
fn closed_within(socket: &mut TcpStream, within: Duration) -> bool {
    socket.set_read_timeout(Some(within)).unwrap();
    let started = Instant::now();
    let mut buf = [0u8; 4096];
    loop {
        match socket.read(&mut buf) {
            Ok(0) => return true,
            Ok(_) => {} // the server's SETTINGS and the like
            Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => {
                return false;
            }
            Err(_) => return true, // reset
        }
        if started.elapsed() > within {
            return false;
        }
    }
}

fn connect(addr: SocketAddr) -> TcpStream {
    TcpStream::connect(addr).unwrap()
}

/// The HTTP/2 client preface: the magic and an empty SETTINGS frame.
const PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00\x00\x04\x00\x00\x00\x00\x00";

#[test]
fn connections_that_make_no_call_are_closed_after_the_handshake_time() {
    let handshake = Duration::from_secs(2);
    let (scheduler, server) = serving(ConnectionLimits { handshake, ..limits() });
    let started = Instant::now();
    let mut silent = connect(server.addr);
    let mut half = connect(server.addr);
    half.write_all(&PREFACE[..12]).unwrap();
    let mut whole = connect(server.addr);
    whole.write_all(PREFACE).unwrap();
    // Generous: the machine may be loaded; without the deadline they stay open for good.
    for (what, socket) in [("silent", &mut silent), ("half a preface", &mut half), ("a preface", &mut whole)] {
        assert!(closed_within(socket, Duration::from_secs(60)), "{what}: still open");
    }
    assert!(started.elapsed() >= handshake - Duration::from_millis(100), "closed before the handshake time");
    let admission = server.counters.admission.get().expect("serving");
    assert_eq!(admission.no_call.load(Relaxed), 3);
    scheduler.close();
}

#[test]
fn a_peer_that_stops_answering_pings_is_closed() {
    // The handshake time out of the way: only keep-alive can close this connection.
    let keepalive = ConnectionLimits {
        keepalive: Some(Duration::from_secs(1)),
        keepalive_timeout: Duration::from_secs(1),
        ..limits()
    };
    let (scheduler, server) = serving(keepalive);
    let mut mute = connect(server.addr);
    mute.write_all(PREFACE).unwrap();
    // Never answers the master's PING (nor anything else).
    assert!(closed_within(&mut mute, Duration::from_secs(60)), "still open without answering pings");
    scheduler.close();
}

#[test]
fn connections_over_the_caps_are_closed_at_once_and_the_others_kept() {
    let (scheduler, server) = serving(ConnectionLimits { per_address: 2, total: 3, ..limits() });
    let admission = Arc::clone(server.counters.admission.get().expect("serving"));
    let wait_open = |n: usize| {
        let started = Instant::now();
        while admission.open_now() != n {
            assert!(started.elapsed() < Duration::from_secs(60), "{} open, not {n}", admission.open_now());
            std::thread::sleep(Duration::from_millis(10));
        }
    };
    // Two from 127.0.0.1, then a third from it: over the address's cap.
    let mut kept: Vec<TcpStream> = (0..2).map(|_| connect(server.addr)).collect();
    wait_open(2);
    let mut third = connect(server.addr);
    assert!(closed_within(&mut third, Duration::from_secs(30)), "a third from one address");
    // Another address: within its cap, the total's third; a fourth from it is over the total.
    let from = |ip: &str| {
        let socket = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None).unwrap();
        socket.bind(&SocketAddr::new(ip.parse().unwrap(), 0).into()).unwrap();
        socket.connect(&server.addr.into()).unwrap();
        TcpStream::from(socket)
    };
    kept.push(from("127.0.0.2"));
    wait_open(3);
    let mut fourth = from("127.0.0.2");
    assert!(closed_within(&mut fourth, Duration::from_secs(30)), "a fourth in all");
    assert_eq!(admission.over_cap.load(Relaxed), 2);
    // The kept ones are open (within the handshake time), and a place freed is taken again.
    for socket in &mut kept {
        assert!(!closed_within(socket, Duration::from_millis(300)), "a connection within the caps was closed");
    }
    drop(kept.remove(0));
    wait_open(2);
    let mut again = connect(server.addr);
    assert!(!closed_within(&mut again, Duration::from_millis(300)));
    assert_eq!(admission.over_cap.load(Relaxed), 2);
    scheduler.close();
}

#[test]
fn with_an_allow_list_only_the_names_on_it_register() {
    let scheduler = Arc::new(Scheduler::new(Duration::from_secs(30)));
    let mut options = ClusterOptions::new("127.0.0.1:0".parse().unwrap(), Some(TOKEN.into()));
    options.allowed_workers = Some(["node1".to_owned(), "node2".to_owned()].into());
    let server = cluster::serve(&scheduler, &options).unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let channel = channel(server.addr).await;
        let mut client = MasterClient::with_interceptor(channel, |mut request: tonic::Request<()>| {
            request.metadata_mut().insert("authorization", loa_proto::bearer(TOKEN).parse().unwrap());
            Ok(request)
        });
        let registration = |name: &str| pb::RegisterRequest {
            protocol: loa_proto::PROTOCOL_VERSION,
            name: name.into(),
            slots: 1,
            ..Default::default()
        };
        assert!(client.register(registration("node1")).await.is_ok());
        // Not on the list, a prefix of a name on it, another case: refused, as a worker stops at.
        for name in ["intruder", "node", "NODE2", ""] {
            let status = client.register(registration(name)).await.unwrap_err();
            assert_eq!(status.code(), Code::Unauthenticated, "{name:?}: {status:?}");
            assert!(status.message().contains(&format!("{name:?}")), "{status:?}");
            assert!(status.message().contains("--allow-workers"), "{status:?}");
        }
        assert!(client.register(registration("node2")).await.is_ok());
    });
    let joined: Vec<String> = server.counters.joins().iter().map(|j| j.split(' ').next().unwrap().to_owned()).collect();
    assert_eq!(joined, ["node1", "node2"]);
    scheduler.close();
}
