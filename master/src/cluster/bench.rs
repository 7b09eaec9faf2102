//! `master bench-dispatch`: how many tasks per second the cluster service can hand out and take
//! back, measured with stub workers that answer at once over loopback, and so how many real
//! workers one master can keep busy.

use super::{ClusterOptions, serve};
use crate::scheduler::Scheduler;
use loa_engine::Rules;
use loa_engine::network::random_uniform;
use loa_engine::tasks::{MatchEntrant, MatchFormat, MatchTask, Task, TaskOutcome};
use loa_proto::convert::result_to_proto;
use loa_proto::pb;
use loa_proto::pb::master_client::MasterClient;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What the benchmark measured.
#[derive(Clone, Debug)]
pub struct DispatchFigures {
    /// Tasks dispatched (each one lease call and one complete call).
    pub tasks: usize,
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
}

impl DispatchFigures {
    /// Tasks (lease + complete round trips) per second.
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
        writeln!(f, "  {:.0} tasks/s (each a lease and a complete round trip)", self.tasks_per_second())?;
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

/// Runs the service over loopback with `clients` stub workers that complete `tasks` tasks
/// instantly (each with a real outcome), after timing `samples` real tournaments at `depth`.
pub fn bench_dispatch(tasks: usize, clients: usize, samples: u32, depth: u32) -> Result<DispatchFigures, String> {
    let (tournament_seconds, outcome) = time_tournaments(samples, depth)?;
    let scheduler = Arc::new(Scheduler::new(Duration::from_secs(60)));
    let server =
        serve(&scheduler, &ClusterOptions::new(([127, 0, 0, 1], 0).into(), None)).map_err(|e| e.to_string())?;
    // Real tasks (4 × 2041 weights each), so the payload is what workers really receive.
    let task = tournament(0, depth);
    scheduler.submit((0..tasks as u64).map(|id| (id, task.clone())).collect());
    let url = format!("http://{}", server.addr());
    let body = result_to_proto(&Ok(outcome));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("stub")
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let cpu_before = threads_cpu("loa-rpc");
    let begun = Instant::now();
    let dispatched: Result<usize, String> = runtime.block_on(async {
        let channel = tonic::transport::Endpoint::from_shared(url)
            .map_err(|e| e.to_string())?
            .initial_stream_window_size(1 << 20)
            .initial_connection_window_size(8 << 20)
            .connect()
            .await
            .map_err(|e| e.to_string())?;
        let mut stubs = tokio::task::JoinSet::new();
        for c in 0..clients {
            let (mut client, body) = (MasterClient::new(channel.clone()), body.clone());
            stubs.spawn(async move {
                let name = format!("stub-{c}");
                let id = client
                    .register(pb::RegisterRequest { name, slots: 1, chromosome_cache: 0 })
                    .await?
                    .into_inner()
                    .worker_id;
                let mut done = 0;
                loop {
                    let request = pb::LeaseRequest { worker_id: id, max_tasks: 1, wait_ms: 0 };
                    let leased = client.lease(request).await?.into_inner().tasks;
                    if leased.is_empty() {
                        return Ok::<usize, tonic::Status>(done);
                    }
                    for t in leased {
                        let request = pb::CompleteRequest { worker_id: id, task_id: t.id, result: Some(body.clone()) };
                        client.complete(request).await?;
                        done += 1;
                    }
                }
            });
        }
        let mut total = 0;
        while let Some(joined) = stubs.join_next().await {
            total += joined.map_err(|e| e.to_string())?.map_err(|e| e.to_string())?;
        }
        Ok(total)
    });
    let seconds = begun.elapsed().as_secs_f64();
    let master_cpu_seconds = threads_cpu("loa-rpc") - cpu_before;
    let dispatched = dispatched?;
    scheduler.close();
    server.shutdown();
    if dispatched != tasks || scheduler.stats().completed != tasks as u64 {
        return Err(format!("dispatched {dispatched} of {tasks} tasks"));
    }
    Ok(DispatchFigures { tasks, clients, seconds, master_cpu_seconds, tournament_seconds, depth })
}
