//! `master bench-dispatch`: how many tasks per second the cluster service can hand out and take
//! back, measured with stub workers that answer at once over loopback, and so how many real
//! workers one master can keep busy.
//!
//! The stubs keep a chromosome cache as real workers do (issue 14): they announce it, resolve the
//! networks their tasks name by id, and fetch what they lack. How much the cache saves depends on
//! how often a stub meets a network again, so the tasks follow one of three patterns
//! ([`Reuse`]): every network new, the thesis's generations, or the same four networks throughout.
//!
//! The stubs lease as workers do ([`Protocol`]): by default they deliver outcomes on one
//! `Deliver` stream each, every outcome carrying the next lease (one message each way a task,
//! issue 14); `combined` makes them call `Complete` once a task instead, and `separate` call
//! `Lease` after every `Complete`, as workers before issue 14 did.

use super::{ClusterOptions, serve};
use crate::scheduler::Scheduler;
use loa_engine::Rules;
use loa_engine::aloa::AloaKind;
use loa_engine::network::{Chromosome, random_uniform};
use loa_engine::random::derive_seed;
use loa_engine::tasks::{
    FixedPlayer, MatchEntrant, MatchFormat, MatchTask, MatchTaskOutcome, Pairing, Task, TaskOutcome,
};
use loa_proto::cache::{ChromosomeCache, resolve_entrants};
use loa_proto::convert::{id_to_proto, result_to_proto};
use loa_proto::delivery::{BatchStream, DeliveryStream};
use loa_proto::pb;
use loa_proto::pb::master_client::MasterClient;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What the benchmark measured.
#[derive(Clone, Debug)]
pub struct DispatchFigures {
    /// Tasks dispatched.
    pub tasks: usize,
    /// How the stubs leased.
    pub protocol: Protocol,
    /// Outcomes a stub delivered in one message (tasks it leased at a time); above 1 on
    /// `DeliverBatches`.
    pub batch: u32,
    /// Calls the stubs made: Lease, Complete and FetchChromosomes.
    pub calls: (u64, u64, u64),
    /// Concurrent stub workers.
    pub clients: usize,
    /// Wall time.
    pub seconds: f64,
    /// CPU time of the master's gRPC threads.
    pub master_cpu_seconds: f64,
    /// Mean time of one real tournament at the benchmark's depth.
    pub tournament_seconds: f64,
    /// The depth of that tournament.
    pub depth: u32,
    /// How the tasks reuse networks.
    pub reuse: Reuse,
    /// The chromosome cache each stub announced and kept (0: none).
    pub cache: usize,
    /// The stubs read weights as bytes (else as floats).
    pub weight_bytes: bool,
    /// Protobuf bytes of the lease replies' tasks (without HTTP/2 framing).
    pub lease_bytes: u64,
    /// Networks the tasks carried, sent by id alone.
    pub by_id: u64,
    /// Networks the tasks carried, sent with their weights.
    pub with_weights: u64,
    /// Chromosomes the stubs had to fetch.
    pub fetched: u64,
}

/// How the stub workers lease their tasks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Protocol {
    /// As `combined`, but each outcome a message on one `Deliver` stream per stub instead of a
    /// `Complete` call (issue 14).
    Stream,
    /// Each `Complete` asks for the next task (`CompleteRequest.max_tasks`): one call a task;
    /// `Lease` only when a reply brought none (issue 14).
    Combined,
    /// A `Lease` and a `Complete` a task, as workers before issue 14 did.
    Separate,
}

impl Protocol {
    /// The name `--protocol` takes.
    pub fn name(self) -> &'static str {
        match self {
            Protocol::Stream => "stream",
            Protocol::Combined => "combined",
            Protocol::Separate => "separate",
        }
    }
}

/// How the benchmark's tasks reuse networks, which decides what a chromosome cache can save.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Reuse {
    /// Every task a knockout of four networks never seen before: the cache's worst case.
    Fresh,
    /// The thesis's run (population 62, 10 generations an epoch): each generation 62 knockouts of
    /// one survivor of the generation before and three new networks, and after every tenth
    /// generation 62 benchmark tasks of one survivor against ALoA. A stub can only have a network
    /// again if it played that network's group before, so with many workers there is little to
    /// save: this is the realistic figure for the thesis's scheme.
    Knockout,
    /// The same four networks in every task, as in a match experiment of fixed networks: the
    /// cache's best case (and the pattern of this benchmark before issue 14).
    Repeat,
}

impl Reuse {
    /// The name `--reuse` takes.
    pub fn name(self) -> &'static str {
        match self {
            Reuse::Fresh => "fresh",
            Reuse::Knockout => "knockout",
            Reuse::Repeat => "repeat",
        }
    }
}

impl DispatchFigures {
    /// Tasks (each its calls' round trips) per second.
    pub fn tasks_per_second(&self) -> f64 {
        self.tasks as f64 / self.seconds
    }
    /// Master CPU per task.
    pub fn cpu_per_task(&self) -> f64 {
        self.master_cpu_seconds / self.tasks as f64
    }
    /// Single-slot workers one master core keeps busy: a slot needs a task every
    /// `tournament_seconds`, and each costs the master `cpu_per_task`.
    pub fn workers_per_core(&self) -> f64 {
        self.tournament_seconds / self.cpu_per_task()
    }
}

impl std::fmt::Display for DispatchFigures {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "dispatch: {} tasks to {} stub workers in {:.2} s", self.tasks, self.clients, self.seconds)?;
        writeln!(
            f,
            "  networks reused: {}; chromosome cache: {} per stub; weights as {}",
            self.reuse.name(),
            if self.cache == 0 { "none".to_owned() } else { self.cache.to_string() },
            if self.weight_bytes { "bytes" } else { "floats" }
        )?;
        writeln!(
            f,
            "  networks sent: {} by id, {} with weights; {} fetched; lease payload {:.0} bytes per task",
            self.by_id,
            self.with_weights,
            self.fetched,
            self.lease_bytes as f64 / self.tasks as f64
        )?;
        let (lease, complete, fetch) = self.calls;
        // On a stream, outcomes are messages of one call per stub, not calls.
        let delivered = match (self.protocol, self.batch) {
            (Protocol::Stream, 1) => "Deliver messages",
            (Protocol::Stream, _) => "DeliverBatches messages",
            _ => "Complete",
        };
        let batch = if self.batch > 1 { format!(", {} outcomes a message", self.batch) } else { String::new() };
        writeln!(
            f,
            "  leasing: {}{batch}; calls: {lease} Lease, {complete} {delivered}, {fetch} FetchChromosomes ({:.2} a task)",
            self.protocol.name(),
            (lease + complete + fetch) as f64 / self.tasks as f64
        )?;
        writeln!(f, "  {:.0} tasks/s", self.tasks_per_second())?;
        writeln!(f, "  master CPU {:.1} µs per task", self.cpu_per_task() * 1e6)?;
        writeln!(f, "  one {}-ply tournament: {:.1} ms", self.depth, self.tournament_seconds * 1e3)?;
        write!(f, "  => one master core keeps about {:.0} single-slot workers busy", self.workers_per_core())
    }
}

/// CPU time (on-CPU nanoseconds from `/proc/self/task/*/schedstat`) of this process's threads
/// whose name starts with `prefix`. Linux only; 0 elsewhere.
fn threads_cpu(prefix: &str) -> f64 {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else { return 0.0 };
    let mut nanos = 0u64;
    for task in tasks.flatten() {
        let name = std::fs::read_to_string(task.path().join("comm")).unwrap_or_default();
        if !name.trim_end().starts_with(prefix) {
            continue;
        }
        let stat = std::fs::read_to_string(task.path().join("schedstat")).unwrap_or_default();
        nanos += stat.split_whitespace().next().and_then(|n| n.parse::<u64>().ok()).unwrap_or(0);
    }
    nanos as f64 * 1e-9
}

/// A knockout of four random networks, as a generation's task is.
fn tournament(seed: u64, depth: u32) -> Task {
    let entrants = (0..4)
        .map(|i| MatchEntrant::Network { serial: i, chromosome: Arc::new(random_uniform(seed * 4 + i)) })
        .collect();
    Task::Match(MatchTask {
        entrants,
        network_depth: depth,
        rules: Rules::default(),
        format: MatchFormat::Knockout { seed },
    })
}

/// Times `samples` real tournaments at `depth` on this thread.
fn time_tournaments(samples: u32, depth: u32) -> Result<(f64, TaskOutcome), String> {
    let begun = Instant::now();
    let mut last = None;
    for s in 0..samples.max(1) {
        last = Some(tournament(u64::from(s), depth).run().map_err(|e| e.to_string())?);
    }
    let outcome = last.ok_or("no tournament played")?;
    Ok((begun.elapsed().as_secs_f64() / f64::from(samples.max(1)), outcome))
}

/// The tasks of the benchmark, by `reuse` (see [`Reuse`]).
fn tasks_for(reuse: Reuse, count: usize, depth: u32) -> Vec<Task> {
    let knockout = |entrants: Vec<(u64, Arc<Chromosome>)>, seed: u64| {
        Task::Match(MatchTask {
            entrants: entrants
                .into_iter()
                .map(|(serial, chromosome)| MatchEntrant::Network { serial, chromosome })
                .collect(),
            network_depth: depth,
            rules: Rules::default(),
            format: MatchFormat::Knockout { seed },
        })
    };
    let mut next_serial = 0u64;
    let mut new_network = || {
        next_serial += 1;
        (next_serial, Arc::new(random_uniform(derive_seed(0xBE, next_serial))))
    };
    match reuse {
        Reuse::Repeat => {
            let task = tournament(0, depth);
            vec![task; count]
        }
        Reuse::Fresh => (0..count).map(|t| knockout((0..4).map(|_| new_network()).collect(), t as u64)).collect(),
        Reuse::Knockout => {
            const POPULATION: usize = 62;
            const GENERATIONS_PER_EPOCH: usize = 10;
            let mut survivors: Vec<(u64, Arc<Chromosome>)> = (0..POPULATION).map(|_| new_network()).collect();
            let mut tasks = Vec::with_capacity(count);
            let mut generation = 0u64;
            while tasks.len() < count {
                // Survivors are shuffled into the groups; each group's winner survives (which
                // entrant wins is arbitrary here: the stubs do not play).
                let mut groups = Vec::with_capacity(POPULATION);
                for g in 0..POPULATION {
                    let pick = derive_seed(generation, g as u64) as usize % (POPULATION - g);
                    survivors.swap(g, g + pick);
                    // The survivor is the oldest: the lowest serial, entrant 0.
                    let mut members = vec![survivors[g].clone()];
                    members.extend((0..3).map(|_| new_network()));
                    groups.push(members);
                }
                for (g, members) in groups.iter().enumerate() {
                    tasks.push(knockout(members.clone(), derive_seed(generation, g as u64)));
                }
                survivors = groups
                    .iter()
                    .enumerate()
                    .map(|(g, m)| m[derive_seed(generation ^ 0x5, g as u64) as usize % 4].clone())
                    .collect();
                generation += 1;
                if generation.is_multiple_of(GENERATIONS_PER_EPOCH as u64) {
                    let aloa = FixedPlayer::Aloa { evaluator: AloaKind::Quad, depth: 5 };
                    tasks.extend(survivors.iter().enumerate().map(|(i, (serial, chromosome))| {
                        Task::Match(MatchTask {
                            entrants: vec![
                                MatchEntrant::Network { serial: *serial, chromosome: Arc::clone(chromosome) },
                                MatchEntrant::Fixed { serial: u64::MAX, player: aloa },
                            ],
                            network_depth: depth,
                            rules: Rules::default(),
                            format: MatchFormat::Pairs(vec![Pairing { a: 0, b: 1, seed: i as u64, opening_plies: 0 }]),
                        })
                    }));
                }
            }
            tasks.truncate(count);
            tasks
        }
    }
}

/// What a stub counted.
#[derive(Default)]
struct StubCounts {
    done: usize,
    lease_bytes: u64,
    by_id: u64,
    with_weights: u64,
    fetched: u64,
    lease_calls: u64,
    complete_calls: u64,
    fetch_calls: u64,
}

/// Runs the service over loopback with `clients` stub workers that complete `tasks` tasks
/// instantly (each with a real outcome), after timing `samples` real tournaments at `depth`.
/// The tasks reuse networks as `reuse` says; each stub keeps a chromosome cache of `cache` and,
/// with `weight_bytes`, reads weights as bytes (as workers do), else as floats (older workers).
/// The stubs lease as `protocol` says, `batch` tasks at a time (above 1 only on the stream,
/// whose stubs then deliver a lease's outcomes in one `DeliverBatches` message).
#[allow(clippy::too_many_arguments)] // each is a figure's condition, named at the one caller
pub fn bench_dispatch(
    tasks: usize,
    clients: usize,
    samples: u32,
    depth: u32,
    reuse: Reuse,
    cache: usize,
    weight_bytes: bool,
    protocol: Protocol,
    batch: u32,
) -> Result<DispatchFigures, String> {
    if !(1..=crate::cluster::MAX_LEASE).contains(&batch) || (batch > 1 && protocol != Protocol::Stream) {
        return Err(format!(
            "--batch must be in 1..={} and above 1 only with --protocol stream",
            crate::cluster::MAX_LEASE
        ));
    }
    let (tournament_seconds, outcome) = time_tournaments(samples, depth)?;
    let scheduler = Arc::new(Scheduler::new(Duration::from_secs(60)));
    let server =
        serve(&scheduler, &ClusterOptions::new(([127, 0, 0, 1], 0).into(), None)).map_err(|e| e.to_string())?;
    // Real tasks (2041 weights a network), so the payload is what workers really receive; their
    // chromosomes' ids are computed on first dispatch, as in a run.
    scheduler.submit(tasks_for(reuse, tasks, depth).into_iter().enumerate().map(|(id, t)| (id as u64, t)).collect());
    let url = format!("http://{}", server.addr());
    // A knockout's outcome, and a benchmark task's (its one match: the knockout's first, 0 v 1).
    let knockout_body = result_to_proto(&Ok(outcome.clone()));
    let TaskOutcome::Match(knockout) = &outcome else { return Err("the timed tournament is not a match task".into()) };
    let first = knockout.matches.first().copied().ok_or("the timed tournament played no match")?;
    let pairs_body = result_to_proto(&Ok(TaskOutcome::Match(MatchTaskOutcome { matches: vec![first] })));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("stub")
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let cpu_before = threads_cpu("loa-rpc");
    let begun = Instant::now();
    let dispatched: Result<StubCounts, String> = runtime.block_on(async {
        let channel = tonic::transport::Endpoint::from_shared(url)
            .map_err(|e| e.to_string())?
            .initial_stream_window_size(1 << 20)
            .initial_connection_window_size(8 << 20)
            .connect()
            .await
            .map_err(|e| e.to_string())?;
        let mut stubs = tokio::task::JoinSet::new();
        for c in 0..clients {
            let mut client = MasterClient::new(channel.clone()).max_decoding_message_size(32 << 20);
            let (knockout_body, pairs_body) = (knockout_body.clone(), pairs_body.clone());
            stubs.spawn(async move {
                let name = format!("stub-{c}");
                let announce = u32::try_from(cache).unwrap_or(u32::MAX);
                let request = pb::RegisterRequest {
                    name,
                    slots: 1,
                    chromosome_cache: announce,
                    weight_bytes,
                    ..Default::default()
                };
                let id = client.register(request).await?.into_inner().worker_id;
                let mut chromosomes = ChromosomeCache::new(cache);
                let mut counts = StubCounts::default();
                let lease = pb::LeaseRequest { worker_id: id, max_tasks: batch, wait_ms: 0 };
                counts.lease_calls += 1;
                let mut leased = client.lease(lease).await?.into_inner().tasks;
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
                        return Ok::<StubCounts, tonic::Status>(counts);
                    }
                    counts.lease_bytes += leased.iter().map(prost::Message::encoded_len).sum::<usize>() as u64;
                    // What a worker does with a reply (its cache, and the fallback).
                    let mut resolved = resolve_entrants(&mut leased, &mut chromosomes);
                    counts.by_id += resolved.hits + resolved.missing.len() as u64;
                    counts.with_weights += resolved.received;
                    if !resolved.missing.is_empty() {
                        let request = pb::FetchChromosomesRequest {
                            task_ids: resolved.needing.clone(),
                            ids: resolved.missing.iter().map(|&id| id_to_proto(id)).collect(),
                        };
                        counts.fetch_calls += 1;
                        let reply = client.fetch_chromosomes(request).await?.into_inner();
                        counts.fetched += resolved
                            .accept_fetched(reply.chromosomes, &mut chromosomes)
                            .map_err(|e| tonic::Status::internal(e.to_string()))?
                            as u64;
                    }
                    let mut next = Vec::new();
                    let last = leased.len() - 1;
                    let mut outcomes = Vec::new();
                    for (i, mut t) in leased.into_iter().enumerate() {
                        if !resolved.complete(&mut t) {
                            return Err(tonic::Status::internal(format!("task {}: chromosomes missing", t.id)));
                        }
                        let body = match &t.kind {
                            Some(pb::task::Kind::Match(m))
                                if matches!(m.format, Some(pb::match_task::Format::Pairs(_))) =>
                            {
                                pairs_body.clone()
                            }
                            _ => knockout_body.clone(),
                        };
                        // A single-slot worker: the last outcome of a reply asks for the next task
                        // (or batch).
                        let max_tasks = if protocol != Protocol::Separate && i == last { batch } else { 0 };
                        let request =
                            pb::CompleteRequest { worker_id: id, task_id: t.id, result: Some(body), max_tasks };
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
                        for answer in batches.complete_all(outcomes).await? {
                            next.extend(answer?.tasks);
                            counts.done += 1;
                        }
                    }
                    // A reply that brought nothing (or none asked): ask Lease, as a worker's lease
                    // loop does; an empty answer means the queue is done.
                    if next.is_empty() {
                        counts.lease_calls += 1;
                        next = client.lease(lease).await?.into_inner().tasks;
                    }
                    leased = next;
                }
            });
        }
        let mut total = StubCounts::default();
        while let Some(joined) = stubs.join_next().await {
            let c = joined.map_err(|e| e.to_string())?.map_err(|e| e.to_string())?;
            total.done += c.done;
            total.lease_bytes += c.lease_bytes;
            total.by_id += c.by_id;
            total.with_weights += c.with_weights;
            total.fetched += c.fetched;
            total.lease_calls += c.lease_calls;
            total.complete_calls += c.complete_calls;
            total.fetch_calls += c.fetch_calls;
        }
        Ok(total)
    });
    let seconds = begun.elapsed().as_secs_f64();
    let master_cpu_seconds = threads_cpu("loa-rpc") - cpu_before;
    let counts = dispatched?;
    scheduler.close();
    server.shutdown();
    if counts.done != tasks || scheduler.stats().completed != tasks as u64 {
        return Err(format!("dispatched {} of {tasks} tasks", counts.done));
    }
    Ok(DispatchFigures {
        tasks,
        protocol,
        batch,
        calls: (counts.lease_calls, counts.complete_calls, counts.fetch_calls),
        clients,
        seconds,
        master_cpu_seconds,
        tournament_seconds,
        depth,
        reuse,
        cache,
        weight_bytes,
        lease_bytes: counts.lease_bytes,
        by_id: counts.by_id,
        with_weights: counts.with_weights,
        fetched: counts.fetched,
    })
}
