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
//!
//! The stubs take networks as their origins (issue 14) unless told not to, and with `--peers`
//! serve each other the chromosomes they hold, as workers started with `--peer-listen` do. They
//! run in a process of their own ([`stubs`]), so that their work does not count as the
//! master's; with `--pin` the master's gRPC threads also get a CPU of their own. The tasks are
//! handed out as a run hands them out: a generation at a time for the thesis's pattern, whose
//! networks are bred from the generation before.
//!
//! - [`workload`]: the tasks and the timed tournaments; [`stubs`]: the stub process;
//!   [`threads`]: CPU time and pinning of threads; [`scheduler`]: the scheduler's share, timed
//!   alone; [`encoding`]: the codec's share, a reply's encoding timed alone.

mod encoding;
mod scheduler;
mod stubs;
mod threads;
mod workload;

pub use stubs::run_stubs;

use super::{ClusterOptions, serve};
use crate::scheduler::Scheduler;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use stubs::StubCounts;
use threads::{pin_process_except, pin_threads, this_thread_cpu, threads_cpu};
use workload::{tasks_for, time_tournaments};

/// What the benchmark measured.
#[derive(Clone, Debug)]
pub struct DispatchFigures {
    /// What was run: the workload and how the stubs behaved.
    pub bench: DispatchBench,
    /// Tasks of the untimed warm-up step (0: none). The stubs' counts (calls, networks, bytes)
    /// include them; the timed figures do not.
    pub warmed_up: usize,
    /// Calls the stubs made: Lease, Complete and FetchChromosomes.
    pub calls: (u64, u64, u64),
    /// Wall time.
    pub seconds: f64,
    /// CPU time of the master's gRPC threads.
    pub master_cpu_seconds: f64,
    /// CPU time of the thread that submits each step and collects its outcomes (the run's own
    /// thread in a run: also the master's, but not part of [`DispatchFigures::cpu_per_task`],
    /// so that figure compares with builds that did not measure it).
    pub collector_cpu_seconds: f64,
    /// Mean time of one real tournament at the benchmark's depth.
    pub tournament_seconds: f64,
    /// The scheduler's own time a task, timed alone on one thread after the run (its calls for
    /// steps of the run's mean size, leased and delivered in the stubs' batches): the part of
    /// [`DispatchFigures::cpu_per_task`] that no protocol change can remove.
    pub scheduler_seconds_per_task: f64,
    /// The mean step size (tasks handed out together).
    pub step_size: usize,
    /// Seconds a task of encoding a reply of a batch's answers, timed alone on one thread after
    /// the run: with the codec's one pass, and with prost as the codec called it before.
    pub reply_encoding_seconds_per_task: (f64, f64),
    /// Milliseconds a call of the scheduler's counters takes (what every progress tick asks,
    /// twice) with the run's stubs holding a step of its mean size, half of it done.
    pub stats_milliseconds: f64,
    /// Backup copies of straggling tasks the master handed out (see the scheduler).
    pub backups: u64,
    /// The connections the stubs registered over, as the master saw them (their peer
    /// addresses).
    pub connections_seen: usize,
    /// Protobuf bytes of the lease replies' tasks (without HTTP/2 framing).
    pub lease_bytes: u64,
    /// Networks the master sent by id alone (the stub holds them).
    pub by_id: u64,
    /// Networks the master sent with their weights.
    pub with_weights: u64,
    /// Chromosomes the stubs had to fetch.
    pub fetched: u64,
    /// Networks the master sent as their origins.
    pub by_origin: u64,
    /// Networks the master sent by id with peers to fetch them from.
    pub from_peers: u64,
    /// Networks the stubs made from origins.
    pub made: u64,
    /// Chromosomes the stubs fetched from each other.
    pub peer_fetched: u64,
    /// Chromosomes asked of a stub that did not answer with them.
    pub peer_misses: u64,
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
    /// Every task a knockout of four networks never seen before and without an origin (as from
    /// files or evolution strategies): the cache's worst case.
    Fresh,
    /// The thesis's run (population 62 unless `--population` says otherwise, 10 generations an
    /// epoch): each generation one knockout a survivor, of that survivor of the generation before
    /// and three new networks bred from the survivors (two mutants and a child, with their
    /// origins), and after every tenth generation one benchmark task a survivor against ALoA. A stub can only hold a network if it played
    /// or fetched it before, so with many workers a cache alone saves little: new networks go as
    /// their origins, and their parents come from the stubs that hold them (`--peers`).
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
        self.bench.tasks as f64 / self.seconds
    }
    /// Master CPU per task.
    pub fn cpu_per_task(&self) -> f64 {
        self.master_cpu_seconds / self.bench.tasks as f64
    }
    /// Single-slot workers one master core keeps busy: a slot needs a task every
    /// `tournament_seconds`, and each costs the master `cpu_per_task`.
    pub fn workers_per_core(&self) -> f64 {
        self.tournament_seconds / self.cpu_per_task()
    }
}

impl std::fmt::Display for DispatchFigures {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "dispatch: {} tasks{}{} to {} stub workers over {} connection{} in {:.2} s",
            self.bench.tasks,
            if self.bench.steps > 1 { format!(" in {} steps", self.bench.steps) } else { String::new() },
            if self.warmed_up > 0 {
                format!(" after an untimed step of {} (counted in the stubs' figures)", self.warmed_up)
            } else {
                String::new()
            },
            self.bench.clients,
            self.connections_seen,
            if self.connections_seen == 1 { "" } else { "s" },
            self.seconds
        )?;
        writeln!(
            f,
            "  networks reused: {}; chromosome cache: {} per stub; weights as {}",
            self.bench.reuse.name(),
            if self.bench.cache == 0 { "none".to_owned() } else { self.bench.cache.to_string() },
            if self.bench.weight_bytes { "bytes" } else { "floats" }
        )?;
        writeln!(
            f,
            "  networks sent: {} by id, {} with weights; {} fetched; lease payload {:.0} bytes per task",
            self.by_id,
            self.with_weights,
            self.fetched,
            self.lease_bytes as f64 / (self.bench.tasks + self.warmed_up) as f64
        )?;
        if self.bench.origins && self.bench.light {
            writeln!(
                f,
                "  origins: {} networks sent as their origins, {} by id from peers{}; light stubs (nothing made \
                 or fetched)",
                self.by_origin,
                self.from_peers,
                if self.bench.peers { "" } else { "; the stubs serve no peers" }
            )?;
        } else if self.bench.origins {
            writeln!(
                f,
                "  origins: {} networks sent as their origins, {} by id from peers; the stubs made {}, fetched {} \
                 chromosomes from each other ({} asked in vain){}",
                self.by_origin,
                self.from_peers,
                self.made,
                self.peer_fetched,
                self.peer_misses,
                if self.bench.peers { "" } else { "; the stubs serve no peers" }
            )?;
        }
        let (lease, complete, fetch) = self.calls;
        // On a stream, outcomes are messages of one call per stub, not calls.
        let delivered = match (self.bench.protocol, self.bench.batch) {
            (Protocol::Stream, 1) => "Deliver messages",
            (Protocol::Stream, _) => "DeliverBatches messages",
            _ => "Complete",
        };
        let batch =
            if self.bench.batch > 1 { format!(", {} outcomes a message", self.bench.batch) } else { String::new() };
        writeln!(
            f,
            "  leasing: {}{batch}; calls: {lease} Lease, {complete} {delivered}, {fetch} FetchChromosomes ({:.2} a task)",
            self.bench.protocol.name(),
            (lease + complete + fetch) as f64 / (self.bench.tasks + self.warmed_up) as f64
        )?;
        if self.backups > 0 {
            writeln!(f, "  backup copies of straggling tasks: {} (their second outcomes duplicates)", self.backups)?;
        }
        writeln!(f, "  {:.0} tasks/s", self.tasks_per_second())?;
        let pinned = if self.bench.pin { " (its gRPC threads on a CPU of their own)" } else { "" };
        writeln!(f, "  master CPU {:.1} µs per task{pinned}", self.cpu_per_task() * 1e6)?;
        writeln!(
            f,
            "  the collecting thread (a run's own): {:.2} µs per task more",
            self.collector_cpu_seconds / self.bench.tasks as f64 * 1e6
        )?;
        writeln!(
            f,
            "  the scheduler alone (timed after, one thread, steps of {} tasks): {:.2} µs per task",
            self.step_size,
            self.scheduler_seconds_per_task * 1e6
        )?;
        let (one_pass, prost) = self.reply_encoding_seconds_per_task;
        writeln!(
            f,
            "  a reply's encoding alone (timed after, one thread, {} answers of a task by id): {:.3} µs per task, prost's {:.3}",
            self.bench.batch,
            one_pass * 1e6,
            prost * 1e6
        )?;
        writeln!(
            f,
            "  the scheduler's counters (each progress tick asks twice): {:.2} ms a call, {} workers holding {} tasks, half done",
            self.stats_milliseconds, self.bench.clients, self.step_size
        )?;
        writeln!(f, "  one {}-ply tournament: {:.1} ms", self.bench.depth, self.tournament_seconds * 1e3)?;
        write!(f, "  => one master core keeps about {:.0} single-slot workers busy", self.workers_per_core())
    }
}

/// What `master bench-dispatch` runs: the workload and how the stub workers behave.
#[derive(Clone, Debug)]
pub struct DispatchBench {
    /// Tasks to dispatch.
    pub tasks: usize,
    /// Concurrent stub workers.
    pub clients: usize,
    /// Real tournaments timed for the per-task time T.
    pub samples: u32,
    /// Their search depth.
    pub depth: u32,
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
    /// The chromosome cache each stub announces and keeps (0: none).
    pub cache: usize,
    /// The stubs read weights as bytes (else as floats, as older workers).
    pub weight_bytes: bool,
    /// How the stubs lease.
    pub protocol: Protocol,
    /// Tasks a stub leases at a time (above 1 only on the stream: `DeliverBatches`).
    pub batch: u32,
    /// The stubs take networks as their origins (issue 14), as workers do by default.
    pub origins: bool,
    /// Each stub serves its chromosomes to the others on loopback (`worker --peer-listen`).
    pub peers: bool,
    /// The master's gRPC threads on a CPU of their own (the first), the stubs on the others
    /// (Linux, 2 CPUs or more): the stubs then cannot preempt the master, whose CPU per task is
    /// what is measured, however much work they do (peers, origins).
    pub pin: bool,
    /// The stubs take every network as sent, without making or fetching anything (see
    /// the stub process's docs): the master's work is the same, and the stubs keep up with it.
    pub light: bool,
    /// TCP (HTTP/2) connections the stubs share in turn: real workers have one each; 1 is how
    /// the benchmark ran before it could be set.
    pub connections: usize,
}

/// The arguments of `master bench-dispatch-stubs` for `bench` against the master at `url`.
fn stub_arguments(url: &str, bench: &DispatchBench) -> Vec<String> {
    let mut args: Vec<String> = [
        ("--url", url.to_owned()),
        ("--clients", bench.clients.to_string()),
        ("--depth", bench.depth.to_string()),
        ("--chromosome-cache", bench.cache.to_string()),
        ("--protocol", bench.protocol.name().to_owned()),
        ("--batch", bench.batch.to_string()),
        ("--connections", bench.connections.to_string()),
    ]
    .into_iter()
    .flat_map(|(flag, value)| [flag.to_owned(), value])
    .collect();
    let flags = [
        (!bench.weight_bytes, "--float-weights"),
        (!bench.origins, "--no-origins"),
        (bench.peers, "--peers"),
        (bench.pin, "--pin"),
        (bench.light, "--light-stubs"),
    ];
    args.extend(flags.iter().filter(|(on, _)| *on).map(|(_, flag)| (*flag).to_owned()));
    args
}

/// What the master dropped, for the report of a failed run (stubs do not re-register, so a
/// drop ends the run): "; the master dropped N workers (M: REASON, ...), first NAME", or nothing.
fn dropped_by_master(counters: &super::Counters) -> String {
    let drops = counters.drops();
    let Some(first) = drops.first() else { return String::new() };
    let mut by_reason: Vec<(String, usize)> = Vec::new();
    for d in &drops {
        let reason = d.reason.to_string();
        match by_reason.iter_mut().find(|(r, _)| *r == reason) {
            Some((_, n)) => *n += 1,
            None => by_reason.push((reason, 1)),
        }
    }
    let reasons: Vec<String> = by_reason.iter().map(|(r, n)| format!("{n}: {r}")).collect();
    format!("; the master dropped {} workers ({}), first {}", drops.len(), reasons.join(", "), first.name)
}

/// Runs the service over loopback with `bench.clients` stub workers (in a process of their own,
/// this binary's `bench-dispatch-stubs`) that complete `bench.tasks` tasks instantly (each with
/// a real outcome), after timing `bench.samples` real tournaments at `bench.depth`. The tasks
/// reuse networks as `bench.reuse` says, and go out a step at a time (see [`Reuse`]); the stubs
/// keep a chromosome cache of `bench.cache`, resolve networks as workers do (ids, origins,
/// peers, fetches) and lease as `bench.protocol` says, `bench.batch` tasks at a time.
pub fn bench_dispatch(bench: &DispatchBench) -> Result<DispatchFigures, String> {
    let DispatchBench {
        tasks,
        clients,
        samples,
        depth,
        reuse,
        population,
        steps,
        warm_up,
        cache,
        protocol,
        batch,
        origins,
        peers,
        pin,
        ..
    } = *bench;
    if !(1..=crate::cluster::MAX_LEASE).contains(&batch) || (batch > 1 && protocol != Protocol::Stream) {
        return Err(format!(
            "--batch must be in 1..={} and above 1 only with --protocol stream",
            crate::cluster::MAX_LEASE
        ));
    }
    if peers && (!origins || cache == 0) {
        return Err("--peers needs origins and a chromosome cache".into());
    }
    if pin && std::thread::available_parallelism().map_or(1, |n| n.get()) < 2 {
        return Err("--pin needs 2 CPUs or more".into());
    }
    let (tournament_seconds, _) = time_tournaments(samples, depth)?;
    // Real tasks (2041 weights a network), so the payload is what workers really receive; their
    // chromosomes' ids are computed on first dispatch, as in a run.
    let steps = tasks_for(reuse, tasks, depth, population, steps)?;
    let warm_up = match (warm_up, steps.first()) {
        (false, _) => None,
        (true, _) if reuse == Reuse::Knockout => {
            return Err("--warm-up: the knockout workload's steps are its generations".into());
        }
        (true, first) => first.cloned(),
    };
    let scheduler = Arc::new(Scheduler::new(Duration::from_secs(60)));
    let server =
        serve(&scheduler, &ClusterOptions::new(([127, 0, 0, 1], 0).into(), None)).map_err(|e| e.to_string())?;
    // The master's gRPC threads on the first CPU, this thread (and the stubs) on the others.
    if pin && !(pin_process_except(0) && pin_threads("loa-rpc", 0)) {
        return Err("--pin: the kernel refused to pin the threads".into());
    }
    let me = std::env::current_exe().map_err(|e| format!("cannot find this binary: {e}"))?;
    let child = Command::new(&me)
        .arg("bench-dispatch-stubs")
        .args(stub_arguments(&format!("http://{}", server.addr()), bench))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start the stub workers ({}): {e}", me.display()))?;
    let child = Mutex::new(child);
    let exited = || child.lock().unwrap_or_else(|p| p.into_inner()).try_wait().ok().flatten().is_some();
    // Timed from when every stub has registered.
    let started = Instant::now();
    while scheduler.workers().len() < clients && !exited() {
        if started.elapsed() > Duration::from_secs(60) {
            break;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    // The service names each worker "NAME (N slots, PEER ADDRESS)".
    let peer = |name: &str| name.rsplit_once("slots, ").map(|(_, peer)| peer.trim_end_matches(')').to_owned());
    let connections_seen =
        scheduler.workers().iter().filter_map(|(_, w)| peer(&w.name)).collect::<std::collections::HashSet<_>>().len();
    // The untimed step, under the ids after the timed ones'.
    // Should the stubs fail in it, the timed steps are skipped and the count below says so.
    let warmed = warm_up.as_ref().map_or(0, Vec::len);
    let mut steps = steps;
    if let Some(step) = warm_up {
        let ids: Vec<u64> = (tasks as u64..(tasks + warmed) as u64).collect();
        scheduler.submit(ids.iter().copied().zip(step).collect());
        if scheduler.collect(&ids, exited, |_| {}).is_none() {
            steps.clear();
        }
    }
    let backups_before = scheduler.stats().backups;
    let (cpu_before, collector_before) = (threads_cpu("loa-rpc"), this_thread_cpu());
    let begun = Instant::now();
    // A step at a time, each once the one before is done, as a run hands them out. The step's
    // tasks are held here until their outcomes are in, as a run's plan holds its networks (so
    // the scheduler's drop of a finished task frees none: freeing them on the gRPC threads was
    // a sixth of their time, which a run does not pay there).
    let mut next_id = 0u64;
    let step_size = tasks / steps.len().max(1);
    for step in steps {
        let ids: Vec<u64> = (next_id..next_id + step.len() as u64).collect();
        next_id += step.len() as u64;
        let held = step.clone();
        scheduler.submit(ids.iter().copied().zip(step).collect());
        if scheduler.collect(&ids, exited, |_| {}).is_none() {
            break;
        }
        drop(held);
    }
    let seconds = begun.elapsed().as_secs_f64();
    let master_cpu_seconds = threads_cpu("loa-rpc") - cpu_before;
    let collector_cpu_seconds = this_thread_cpu() - collector_before;
    // The work is over: the stubs' standard input closes, then their waiting calls end.
    let mut child = child.into_inner().unwrap_or_else(|p| p.into_inner());
    drop(child.stdin.take());
    scheduler.close();
    let output = child.wait_with_output().map_err(|e| e.to_string())?;
    let (status, out, err) =
        (output.status, String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    let counters = server.counters_handle();
    server.shutdown();
    if !status.success() {
        return Err(format!("the stub workers failed ({status}): {}{}", err.trim(), dropped_by_master(&counters)));
    }
    let counts =
        out.lines().find_map(StubCounts::from_line).ok_or_else(|| format!("no counts from the stubs in {out:?}"))?;
    // Every task's outcome accepted once. The stubs may have played more: backup copies of
    // tasks whose lease looked like a straggler's (with thousands of connections on two cores,
    // some wait long enough), whose second outcomes count as duplicates.
    let stats = scheduler.stats();
    if stats.completed != (tasks + warmed) as u64 || counts.done < tasks + warmed {
        return Err(format!(
            "dispatched {} of {} tasks ({} outcomes from the stubs)",
            stats.completed,
            tasks + warmed,
            counts.done
        ));
    }
    let sent = |c: &std::sync::atomic::AtomicU64| c.load(std::sync::atomic::Ordering::Relaxed);
    let scheduler_seconds_per_task = scheduler::scheduler_seconds_per_task(step_size, clients, batch as usize);
    let stats_milliseconds = scheduler::stats_milliseconds(step_size, clients);
    let (one_pass, prost) = encoding::reply_microseconds_per_task(batch as usize, bench.depth)?;
    Ok(DispatchFigures {
        bench: bench.clone(),
        warmed_up: warmed,
        calls: (counts.lease_calls, counts.complete_calls, counts.fetch_calls),
        seconds,
        master_cpu_seconds,
        collector_cpu_seconds,
        tournament_seconds,
        scheduler_seconds_per_task,
        step_size,
        reply_encoding_seconds_per_task: (one_pass * 1e-6, prost * 1e-6),
        stats_milliseconds,
        backups: stats.backups - backups_before,
        connections_seen,
        lease_bytes: counts.lease_bytes,
        by_id: sent(&counters.sent_by_id),
        with_weights: sent(&counters.sent_with_weights),
        fetched: counts.fetched,
        by_origin: sent(&counters.sent_by_origin),
        from_peers: sent(&counters.sent_from_peers),
        made: counts.made,
        peer_fetched: counts.peer_fetched,
        peer_misses: counts.peer_misses,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::{Counters, DropReason};

    #[test]
    fn a_failed_run_names_what_the_master_dropped() {
        let counters = Counters::default();
        assert_eq!(dropped_by_master(&counters), "");
        counters.record_drop("stub-7 (1 slots, 127.0.0.1:5)".into(), DropReason::Silent);
        counters.record_drop("stub-9 (1 slots, 127.0.0.1:6)".into(), DropReason::ConnectionClosed);
        counters.record_drop("stub-3 (1 slots, 127.0.0.1:7)".into(), DropReason::Silent);
        assert_eq!(
            dropped_by_master(&counters),
            "; the master dropped 3 workers (2: silent for the lease time, 1: its connection closed), \
             first stub-7 (1 slots, 127.0.0.1:5)"
        );
    }
}
