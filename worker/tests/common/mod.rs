//! What the cluster tests share: tiny configurations, masters serving on ephemeral loopback
//! ports, in-process workers, raw gRPC clients and run comparisons.
#![allow(dead_code)] // each test file uses its own part

use loa_master::cluster::{ClusterOptions, TlsIdentity};
use loa_master::config::ExperimentConfig;
use loa_master::run::{RunDir, RunOptions, RunSummary, WorkOptions, start};
use loa_proto::pb;
use loa_proto::pb::master_client::MasterClient;
use loa_records::GenerationRecord;
use loa_worker::{WorkerHandle, WorkerOptions, spawn};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

pub const TOKEN: &str = "s3cret";

/// 4 survivors, short games; `depth` sets how long a task takes.
pub fn tiny(epochs: u32, depth: u32) -> ExperimentConfig {
    let mut c = ExperimentConfig {
        seed: 4242,
        epochs,
        population: 4,
        generations_per_epoch: 2,
        network_depth: depth,
        ..Default::default()
    };
    c.benchmark.depth = 1;
    c.rules.ply_cap = 40;
    c
}

pub fn embedded(config: &ExperimentConfig, out: &Path) -> RunSummary {
    let options = RunOptions::embedded(1);
    start(config.clone(), out, &options).unwrap()
}

/// A master serving on an ephemeral port, running in the background.
pub struct Master {
    pub addr: SocketAddr,
    pub stop: Arc<AtomicBool>,
    pub thread: std::thread::JoinHandle<RunSummary>,
}

pub fn master(config: &ExperimentConfig, out: &Path, lease: Duration) -> Master {
    master_tls(config, out, lease, None)
}

pub fn master_tls(config: &ExperimentConfig, out: &Path, lease: Duration, tls: Option<TlsIdentity>) -> Master {
    let (config, out) = (config.clone(), out.to_path_buf());
    let listen = "127.0.0.1:0".parse().unwrap();
    master_on(listen, lease, tls, move |options| start(config, &out, &options).unwrap())
}

/// A master on `listen` that runs `run` (a start or a resume) with its options, in the background.
pub fn master_on(
    listen: SocketAddr,
    lease: Duration,
    tls: Option<TlsIdentity>,
    run: impl FnOnce(RunOptions) -> RunSummary + Send + 'static,
) -> Master {
    let mut cluster = ClusterOptions::new(listen, Some(TOKEN.into()));
    cluster.lease_time = lease;
    cluster.tls = tls;
    // Verification plays a random share of the tasks twice: off, so the tests can count the
    // work (tests/verify.rs tests it).
    cluster.verify = loa_master::scheduler::VerifyRate::OFF;
    master_with(cluster, run)
}

/// A master serving with `cluster` that runs `run` with its options, in the background.
pub fn master_with(cluster: ClusterOptions, run: impl FnOnce(RunOptions) -> RunSummary + Send + 'static) -> Master {
    let bound = Arc::clone(&cluster.bound);
    let stop = Arc::new(AtomicBool::new(false));
    let work = WorkOptions { stop: Arc::clone(&stop), cluster: Some(cluster), ..WorkOptions::embedded(0) };
    let options = RunOptions { work, ..RunOptions::default() };
    let thread = std::thread::spawn(move || run(options));
    let started = Instant::now();
    let addr = loop {
        if let Some(addr) = bound.get() {
            break *addr;
        }
        assert!(started.elapsed() < Duration::from_secs(10), "the master did not start listening");
        std::thread::sleep(Duration::from_millis(5));
    };
    Master { addr, stop, thread }
}

pub fn worker(addr: SocketAddr, name: &str, token: &str) -> WorkerHandle {
    worker_at(&format!("http://{addr}"), name, token, None)
}

pub fn worker_at(url: &str, name: &str, token: &str, tls_ca: Option<&str>) -> WorkerHandle {
    spawn(worker_options(url, name, token, tls_ca)).unwrap()
}

/// The options of a test worker: one slot, retrying at most every 200 ms.
pub fn worker_options(url: &str, name: &str, token: &str, tls_ca: Option<&str>) -> WorkerOptions {
    let mut options = WorkerOptions::new(url).unwrap();
    options.tls_ca = tls_ca.map(|pem| pem.as_bytes().to_vec());
    options.slots = 1;
    options.token = Some(token.into());
    options.name = name.into();
    options.max_backoff = Duration::from_millis(200);
    options
}

pub fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

pub fn same_run(a: &Path, b: &Path, epochs: u32) {
    let (a, b) = (RunDir::new(a), RunDir::new(b));
    for epoch in 0..=epochs {
        assert_eq!(read(&a.epoch_checkpoint(epoch)), read(&b.epoch_checkpoint(epoch)), "epoch {epoch}");
    }
    assert_eq!(read(&a.latest_checkpoint()), read(&b.latest_checkpoint()));
    assert_eq!(read(&a.epochs()), read(&b.epochs()));
}

pub fn dirs() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = (tmp.path().join("embedded"), tmp.path().join("cluster"));
    (tmp, a, b)
}

pub type Raw = MasterClient<
    tonic::service::interceptor::InterceptedService<
        tonic::transport::Channel,
        Box<dyn FnMut(tonic::Request<()>) -> Result<tonic::Request<()>, tonic::Status> + Send>,
    >,
>;

pub async fn raw(addr: SocketAddr, token: Option<&'static str>) -> Raw {
    raw_from(addr, token, "127.0.0.1".parse().unwrap()).await
}

/// [`raw`], connecting from the local address `from` (any of 127.0.0.0/8 on loopback).
pub async fn raw_from(addr: SocketAddr, token: Option<&'static str>, from: std::net::IpAddr) -> Raw {
    let endpoint = tonic::transport::Endpoint::from_shared(format!("http://{addr}")).unwrap();
    let channel = endpoint.local_address(Some(from)).connect().await.unwrap();
    MasterClient::with_interceptor(
        channel,
        Box::new(move |mut request: tonic::Request<()>| {
            if let Some(t) = token {
                request.metadata_mut().insert("authorization", loa_proto::bearer(t).parse().unwrap());
            }
            Ok(request)
        }),
    )
}

/// The deterministic part of every line of `generations.jsonl` (see
/// [`GenerationRecord::deterministic_part`]).
pub fn generation_lines(dir: &RunDir) -> Vec<GenerationRecord> {
    let lines = loa_records::jsonl::read::<GenerationRecord>(&dir.generations()).unwrap();
    lines.records.iter().map(GenerationRecord::deterministic_part).collect()
}

/// A knockout task of four random networks (seeds `seeds`, serials 0-3) at depth 1.
pub fn knockout(seeds: [u64; 4]) -> loa_engine::tasks::Task {
    use loa_engine::tasks::{MatchEntrant, MatchFormat, MatchTask, Task};
    Task::Match(MatchTask {
        entrants: seeds
            .iter()
            .enumerate()
            .map(|(i, &s)| MatchEntrant::Network {
                serial: i as u64,
                chromosome: Arc::new(loa_engine::network::random_uniform(s)),
            })
            .collect(),
        network_depth: 1,
        rules: loa_engine::Rules::default(),
        board: Default::default(),
        start: Default::default(),
        format: MatchFormat::Knockout { seed: 1 },
    })
}

/// A registration request of protocol version 2 for a worker named `name` with one slot.
pub fn registration(name: &str, chromosome_cache: u32) -> pb::RegisterRequest {
    pb::RegisterRequest {
        protocol: loa_proto::PROTOCOL_VERSION,
        name: name.into(),
        slots: 1,
        chromosome_cache,
        ..Default::default()
    }
}

/// A worker's `Work` stream, driven by hand.
pub struct RawStream {
    /// The worker id the stream names.
    pub id: u64,
    /// The credential it was opened with.
    pub credential: String,
    out: tokio::sync::mpsc::Sender<pb::WorkerMessage>,
    inbound: tonic::Streaming<pb::MasterMessage>,
    /// Tasks that came with receipts, not yet taken by [`RawStream::tasks`].
    pub tasks: Vec<pb::Task>,
}

impl RawStream {
    /// Opens the stream of worker `id` with `credential` and a first message asking for `want`
    /// tasks.
    pub async fn open(c: &mut Raw, id: u64, credential: &str, want: u32) -> Result<RawStream, tonic::Status> {
        let (out, outbound) = tokio::sync::mpsc::channel(16);
        out.send(pb::WorkerMessage { worker_id: id, outcomes: vec![], want }).await.unwrap();
        let request = loa_proto::with_credential(tokio_stream::wrappers::ReceiverStream::new(outbound), credential);
        let inbound = c.work(request).await?.into_inner();
        Ok(RawStream { id, credential: credential.to_owned(), out, inbound, tasks: Vec::new() })
    }

    /// Registers `request` and opens its stream asking for `want` tasks.
    pub async fn register(c: &mut Raw, request: pb::RegisterRequest, want: u32) -> RawStream {
        let reply = c.register(request).await.unwrap().into_inner();
        RawStream::open(c, reply.worker_id, &reply.credential, want).await.unwrap()
    }

    /// Sends a message.
    pub async fn send(&self, message: pb::WorkerMessage) {
        self.out.send(message).await.unwrap();
    }

    /// The master's next message, or how the stream ended.
    pub async fn next(&mut self) -> Result<Option<pb::MasterMessage>, tonic::Status> {
        self.inbound.message().await
    }

    /// Waits until `n` tasks came (asked for before), and takes them.
    pub async fn tasks(&mut self, n: usize) -> Vec<pb::Task> {
        while self.tasks.len() < n {
            let message = self.next().await.unwrap().expect("the stream ended");
            self.tasks.extend(message.tasks);
        }
        self.tasks.drain(..n).collect()
    }

    /// Sends `outcomes` (asking for `want` more tasks) and waits for their receipt, or for the
    /// status the stream ends with. Tasks that come meanwhile are kept for [`RawStream::tasks`].
    pub async fn deliver(&mut self, outcomes: Vec<pb::Outcome>, want: u32) -> Result<pb::Receipt, tonic::Status> {
        self.send(pb::WorkerMessage { worker_id: 0, outcomes, want }).await;
        loop {
            match self.next().await? {
                Some(message) => {
                    self.tasks.extend(message.tasks);
                    if let Some(receipt) = message.receipt {
                        return Ok(receipt);
                    }
                }
                None => return Err(tonic::Status::unavailable("the master ended the stream")),
            }
        }
    }

    /// Ends the stream (the worker leaves) and waits for the master to end its side.
    pub async fn leave(mut self) {
        drop(self.out);
        while let Ok(Some(_)) = self.inbound.message().await {}
    }
}
