//! `loa-bench dispatch`: how many tasks per second the master's cluster service hands out and
//! takes back, and what each costs the master's CPU, measured with stub workers that answer at
//! once over loopback; and so how many real workers one master can keep busy.
//!
//! The master is the production one, through its public API: [`loa_master::cluster::serve`]
//! over a [`Scheduler`], handed the tasks a step at a time as a run hands them out. The stubs
//! ([`stubs`]) run in a process of their own, so their work does not count as the master's; with
//! `--pin` the master's gRPC threads also get a CPU of their own. They keep a chromosome cache as
//! workers do: how much it saves depends on how often a stub meets a network again, so the tasks
//! follow one of three patterns ([`Reuse`]).
//!
//! - [`workload`]: the tasks and the timed tournaments; [`stubs`]: the stub process and
//!   [`counts`] what it reports; [`threads`]: CPU time and pinning of threads; [`scheduler`]:
//!   the scheduler's share, timed alone; [`figures`]: what a run measured, and its report.

pub mod counts;
pub mod figures;
pub mod scheduler;
pub mod stubs;
pub mod threads;
pub mod workload;

pub use figures::DispatchFigures;
pub use workload::Reuse;

use crate::BenchError;
use counts::StubCounts;
use loa_engine::tasks::Task;
use loa_master::cluster::{ClusterOptions, Dropped, serve};
use loa_master::scheduler::Scheduler;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};
use threads::{pin_process_except, pin_threads, this_thread_cpu, threads_cpu};
use workload::{tasks_for, time_tournaments};

/// The prefix of the names of the master's gRPC threads (its tokio runtime's): their CPU time
/// is the master CPU measured.
const RPC_THREADS: &str = "loa-rpc";

/// How long the stubs have to register before the benchmark starts without the rest.
const REGISTRATION_PATIENCE: Duration = Duration::from_secs(60);

/// How the stub workers behave: what the stub process is told.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StubOptions {
    /// Concurrent stub workers.
    pub clients: usize,
    /// The search depth of the tournament whose outcome they answer with.
    pub depth: u32,
    /// The chromosome cache each stub announces and keeps (0: none, every network with weights).
    pub cache: usize,
    /// Tasks a stub asks for at a time, and so the most outcomes of one of its messages.
    pub batch: u32,
    /// Each stub serves its chromosomes to the others on loopback (`worker --peer-listen`).
    pub peers: bool,
    /// The master's gRPC threads on a CPU of their own (the first), the stubs on the others
    /// (Linux, 2 CPUs or more): the stubs then cannot preempt the master, whose CPU per task is
    /// what is measured, however much work they do (peers, origins).
    pub pin: bool,
    /// The stubs take every network as sent, without making or fetching anything (see
    /// [`stubs`]): the master's work is the same, and the stubs keep up with it.
    pub light: bool,
    /// TCP (HTTP/2) connections the stubs share in turn: real workers have one each.
    pub connections: usize,
}

impl StubOptions {
    /// The arguments of `loa-bench dispatch-stubs` for these options against the master at
    /// `url`.
    pub fn arguments(&self, url: &str) -> Vec<String> {
        let mut args: Vec<String> = [
            ("--url", url.to_owned()),
            ("--clients", self.clients.to_string()),
            ("--depth", self.depth.to_string()),
            ("--chromosome-cache", self.cache.to_string()),
            ("--batch", self.batch.to_string()),
            ("--connections", self.connections.to_string()),
        ]
        .into_iter()
        .flat_map(|(flag, value)| [flag.to_owned(), value])
        .collect();
        let flags = [(self.peers, "--peers"), (self.pin, "--pin"), (self.light, "--light-stubs")];
        args.extend(flags.iter().filter(|(on, _)| *on).map(|(_, flag)| (*flag).to_owned()));
        args
    }

    /// Checks the options, naming the flag that is wrong.
    pub fn check(&self) -> Result<(), BenchError> {
        if self.clients == 0 {
            return Err(BenchError::flag("--clients", "must be at least 1"));
        }
        if !(1..=loa_engine::players::MAX_DEPTH).contains(&self.depth) {
            return Err(BenchError::flag("--depth", format!("must be in 1..={}", loa_engine::players::MAX_DEPTH)));
        }
        let most = loa_proto::MAX_TASKS_PER_MESSAGE as u32;
        if !(1..=most).contains(&self.batch) {
            return Err(BenchError::flag("--batch", format!("must be in 1..={most} (the most tasks of a message)")));
        }
        if self.connections == 0 {
            return Err(BenchError::flag("--connections", "must be at least 1"));
        }
        if self.peers && self.cache == 0 {
            return Err(BenchError::flag("--peers", "needs a chromosome cache (--chromosome-cache above 0)"));
        }
        if self.pin && std::thread::available_parallelism().map_or(1, |n| n.get()) < 2 {
            return Err(BenchError::flag("--pin", "needs 2 CPUs or more"));
        }
        Ok(())
    }
}

/// What `loa-bench dispatch` runs: the workload and how the stub workers behave.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DispatchBench {
    /// Tasks to dispatch (timed).
    pub tasks: usize,
    /// Real tournaments timed for the per-task time T.
    pub samples: u32,
    /// How the tasks reuse networks.
    pub reuse: Reuse,
    /// Survivors a generation in the thesis's pattern ([`Reuse::Knockout`]; 62 in the thesis):
    /// the tasks of a generation, handed out together.
    pub population: usize,
    /// Steps the repeat and fresh workloads go out in, each once the one before is done (the
    /// knockout workload's steps are its generations, so it takes 1).
    pub steps: usize,
    /// One more step of the same size first, untimed, so the timed steps run on warmed tables
    /// and memory, as a long run's generations do (repeat and fresh workloads only).
    pub warm_up: bool,
    /// The stub workers.
    pub stubs: StubOptions,
}

impl DispatchBench {
    /// The arguments of `loa-bench dispatch` that run this benchmark: every workload flag,
    /// given, so that another build with other defaults runs the same.
    pub fn arguments(&self) -> Vec<String> {
        let s = &self.stubs;
        let mut args: Vec<String> = [
            ("--tasks", self.tasks.to_string()),
            ("--clients", s.clients.to_string()),
            ("--samples", self.samples.to_string()),
            ("--depth", s.depth.to_string()),
            ("--reuse", self.reuse.name().to_owned()),
            ("--population", self.population.to_string()),
            ("--steps", self.steps.to_string()),
            ("--chromosome-cache", s.cache.to_string()),
            ("--batch", s.batch.to_string()),
            ("--connections", s.connections.to_string()),
        ]
        .into_iter()
        .flat_map(|(flag, value)| [flag.to_owned(), value])
        .collect();
        let flags = [(self.warm_up, "--warm-up"), (s.peers, "--peers"), (s.pin, "--pin"), (s.light, "--light-stubs")];
        args.extend(flags.iter().filter(|(on, _)| *on).map(|(_, flag)| (*flag).to_owned()));
        args
    }
}

/// A failed run's account of what the master dropped (stubs do not register again, so a drop
/// ends the run): "; the master dropped N workers (M: REASON, ...), first NAME", or nothing.
fn dropped_by_master(drops: &[Dropped]) -> String {
    let Some(first) = drops.first() else { return String::new() };
    let mut by_reason: Vec<(String, usize)> = Vec::new();
    for d in drops {
        let reason = d.reason.to_string();
        match by_reason.iter_mut().find(|(r, _)| *r == reason) {
            Some((_, n)) => *n += 1,
            None => by_reason.push((reason, 1)),
        }
    }
    let reasons: Vec<String> = by_reason.iter().map(|(r, n)| format!("{n}: {r}")).collect();
    format!("; the master dropped {} workers ({}), first {}", drops.len(), reasons.join(", "), first.name)
}

/// Runs the master's service over loopback with `bench.stubs.clients` stub workers (in a
/// process of their own: `stub_program dispatch-stubs`, normally this binary) that answer
/// `bench.tasks` tasks at once, each with a real outcome, after timing `bench.samples` real
/// tournaments. The tasks reuse networks as `bench.reuse` says and go out a step at a time.
pub fn bench_dispatch(bench: &DispatchBench, stub_program: &Path) -> Result<DispatchFigures, BenchError> {
    let DispatchBench { tasks, samples, reuse, population, steps, warm_up, ref stubs } = *bench;
    stubs.check()?;
    if tasks == 0 {
        return Err(BenchError::flag("--tasks", "must be at least 1"));
    }
    let (tournament_seconds, _) = time_tournaments(samples, stubs.depth)?;
    // Real tasks (2041 weights a network), so the payload is what workers really receive; their
    // chromosomes' ids are computed on first dispatch, as in a run.
    let mut steps = tasks_for(reuse, tasks, stubs.depth, population, steps)?;
    let warm_up = match (warm_up, steps.first()) {
        (false, _) => None,
        (true, _) if reuse == Reuse::Knockout => {
            return Err(BenchError::flag("--warm-up", "the knockout workload's steps are its generations"));
        }
        (true, first) => first.cloned(),
    };
    let scheduler = std::sync::Arc::new(Scheduler::new(Duration::from_secs(60)));
    let server =
        serve(&scheduler, &ClusterOptions::new(([127, 0, 0, 1], 0).into(), None)).map_err(BenchError::Serve)?;
    // The master's gRPC threads on the first CPU, this thread (and the stubs) on the others.
    if stubs.pin && !(pin_process_except(0) && pin_threads(RPC_THREADS, 0)) {
        return Err(BenchError::Pin("the master's threads"));
    }
    let child = Command::new(stub_program)
        .arg("dispatch-stubs")
        .args(stubs.arguments(&format!("http://{}", server.addr)))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|source| BenchError::Spawn { program: stub_program.to_owned(), source })?;
    let child = Mutex::new(child);
    let exited = || child.lock().unwrap_or_else(|p| p.into_inner()).try_wait().ok().flatten().is_some();
    let started = Instant::now();
    // Registered and streaming: a stub that has not opened its stream yet would leave the first
    // step's tasks to the others, and a loaded machine can hold it back for a whole step.
    let streaming = || server.counters.streams.load(Ordering::Relaxed) as usize >= stubs.clients;
    while (scheduler.workers().len() < stubs.clients || !streaming())
        && !exited()
        && started.elapsed() < REGISTRATION_PATIENCE
    {
        std::thread::sleep(Duration::from_millis(2));
    }
    // The service names each worker "NAME (N slots, PEER ADDRESS)".
    let peer = |name: &str| name.rsplit_once("slots, ").map(|(_, peer)| peer.trim_end_matches(')').to_owned());
    let connections_seen =
        scheduler.workers().iter().filter_map(|(_, w)| peer(&w.name)).collect::<std::collections::HashSet<_>>().len();
    // The untimed step, under the ids after the timed ones'. Should the stubs fail in it, the
    // timed steps are skipped and the count below says so.
    let warmed = warm_up.as_ref().map_or(0, Vec::len);
    if let Some(step) = warm_up {
        let ids: Vec<u64> = (tasks as u64..(tasks + warmed) as u64).collect();
        scheduler.submit(ids.iter().copied().zip(step.into_iter().map(Task::Match)).collect());
        if scheduler.collect(&ids, exited, |_| {}).is_none() {
            steps.clear();
        }
    }
    let backups_before = scheduler.stats().backups;
    let step_size = tasks / steps.len().max(1);
    let (cpu_before, collector_before) = (threads_cpu(RPC_THREADS), this_thread_cpu());
    let begun = Instant::now();
    // A step at a time, each once the one before is done, as a run hands them out. The step's
    // tasks are held here until their outcomes are in, as a run's plan holds its networks, so
    // the scheduler's drop of a finished task frees no network on the gRPC threads, which a run
    // does not pay there either.
    let mut next_id = 0u64;
    for step in steps {
        let ids: Vec<u64> = (next_id..next_id + step.len() as u64).collect();
        next_id += step.len() as u64;
        let held = step.clone();
        scheduler.submit(ids.iter().copied().zip(step.into_iter().map(Task::Match)).collect());
        if scheduler.collect(&ids, exited, |_| {}).is_none() {
            break;
        }
        drop(held);
    }
    let seconds = begun.elapsed().as_secs_f64();
    let master_cpu_seconds = threads_cpu(RPC_THREADS) - cpu_before;
    let collector_cpu_seconds = this_thread_cpu() - collector_before;
    let counts = finish(child.into_inner().unwrap_or_else(|p| p.into_inner()), &server.counters.drops())?;
    scheduler.close();
    let counters = std::sync::Arc::clone(&server.counters);
    drop(server);
    let stats = scheduler.stats();
    if stats.completed != (tasks + warmed) as u64 || counts.sent < (tasks + warmed) as u64 {
        return Err(BenchError::Incomplete { accepted: stats.completed, tasks: tasks + warmed, sent: counts.sent });
    }
    let task = workload::tournament(0, stubs.depth);
    let load = |c: &AtomicU64| c.load(Ordering::Relaxed);
    Ok(DispatchFigures {
        bench: bench.clone(),
        warmed_up: warmed,
        counts,
        seconds,
        master_cpu_seconds,
        collector_cpu_seconds,
        tournament_seconds,
        scheduler_seconds_per_task: scheduler::scheduler_seconds_per_task(
            &task,
            step_size,
            stubs.clients,
            stubs.batch as usize,
        ),
        step_size,
        backups: stats.backups - backups_before,
        connections_seen,
        task_bytes: load(&counters.task_bytes),
        by_id: load(&counters.sent_by_id),
        with_weights: load(&counters.sent_with_weights),
        by_origin: load(&counters.sent_by_origin),
        from_peers: load(&counters.sent_from_peers),
    })
}

/// Tells the stub process the work is over (its standard input closes, and the stubs end their
/// streams), waits for it and reads its counts. `drops` are the master's, for the report of a
/// failed run.
fn finish(mut child: Child, drops: &[Dropped]) -> Result<StubCounts, BenchError> {
    drop(child.stdin.take());
    let output =
        child.wait_with_output().map_err(|source| BenchError::Spawn { program: "the stub workers".into(), source })?;
    let (out, err) = (String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    if !output.status.success() {
        return Err(BenchError::Stubs(format!("{}: {}{}", output.status, err.trim(), dropped_by_master(drops))));
    }
    out.lines().find_map(StubCounts::from_line).ok_or_else(|| BenchError::Stubs(format!("no counts in {out:?}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use loa_master::cluster::DropReason;

    #[test]
    fn a_failed_run_names_what_the_master_dropped() {
        assert_eq!(dropped_by_master(&[]), "");
        let dropped = |name: &str, reason| Dropped { name: name.into(), reason };
        let drops = [
            dropped("stub-7 (1 slots, 127.0.0.1:5)", DropReason::Silent),
            dropped("stub-9 (1 slots, 127.0.0.1:6)", DropReason::ConnectionClosed),
            dropped("stub-3 (1 slots, 127.0.0.1:7)", DropReason::Silent),
        ];
        assert_eq!(
            dropped_by_master(&drops),
            "; the master dropped 3 workers (2: silent for the lease time, 1: its stream broke), \
             first stub-7 (1 slots, 127.0.0.1:5)"
        );
    }

    #[test]
    fn the_stub_process_gets_every_option_and_wrong_ones_are_named() {
        let options = StubOptions {
            clients: 3,
            depth: 2,
            cache: 0,
            batch: 64,
            peers: false,
            pin: false,
            light: true,
            connections: 2,
        };
        assert_eq!(
            options.arguments("http://x").join(" "),
            "--url http://x --clients 3 --depth 2 --chromosome-cache 0 --batch 64 --connections 2 --light-stubs"
        );
        assert!(options.check().is_ok());
        let wrong = |o: StubOptions| o.check().unwrap_err().to_string();
        assert!(wrong(StubOptions { batch: 65, ..options.clone() }).starts_with("--batch: must be in 1..=64"));
        assert!(wrong(StubOptions { batch: 0, ..options.clone() }).starts_with("--batch"));
        assert!(wrong(StubOptions { peers: true, ..options.clone() }).starts_with("--peers: needs a chromosome"));
        assert!(wrong(StubOptions { depth: 13, ..options.clone() }).starts_with("--depth"));
        assert!(wrong(StubOptions { clients: 0, ..options.clone() }).starts_with("--clients"));
        assert!(wrong(StubOptions { connections: 0, ..options }).starts_with("--connections"));
    }
}
