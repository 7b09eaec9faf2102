//! What a dispatch benchmark measured, and its report. The report's lines that the side-by-side
//! comparison reads (`N tasks/s`, `master CPU X µs per task`, `the collecting thread ...`, `one
//! D-ply tournament: T ms`) keep the form every build of the benchmark has printed them in.

use super::DispatchBench;
use super::counts::StubCounts;

/// What the benchmark measured.
#[derive(Clone, Debug)]
pub struct DispatchFigures {
    /// What was run.
    pub bench: DispatchBench,
    /// Tasks of the untimed warm-up step (0: none). The stubs' counts and the networks sent
    /// include them; the timed figures do not.
    pub warmed_up: usize,
    /// What the stubs counted.
    pub counts: StubCounts,
    /// Wall time.
    pub seconds: f64,
    /// CPU time of the master's gRPC threads.
    pub master_cpu_seconds: f64,
    /// CPU time of the thread that submits each step and collects its outcomes (in a run, the
    /// run's own thread: the master's too, but kept apart from
    /// [`DispatchFigures::cpu_per_task`], which is the service's alone).
    pub collector_cpu_seconds: f64,
    /// Mean time of one real tournament at the benchmark's depth (T).
    pub tournament_seconds: f64,
    /// The scheduler's own time a task, timed alone on one thread after the run, in steps of the
    /// run's mean size and the stubs' batches: the part of [`DispatchFigures::cpu_per_task`]
    /// that no change of the protocol can remove.
    pub scheduler_seconds_per_task: f64,
    /// The mean step size (tasks handed out together).
    pub step_size: usize,
    /// Backup copies of straggling tasks the master handed out (see the scheduler).
    pub backups: u64,
    /// The connections the stubs registered over, as the master saw them.
    pub connections_seen: usize,
    /// Protobuf bytes of the tasks the master sent (without gRPC and HTTP/2 framing).
    pub task_bytes: u64,
    /// Networks the master sent by id alone (the stub holds them).
    pub by_id: u64,
    /// Networks the master sent with their weights.
    pub with_weights: u64,
    /// Networks the master sent as their origins.
    pub by_origin: u64,
    /// Networks the master sent by id with peers to fetch them from.
    pub from_peers: u64,
}

impl DispatchFigures {
    /// Tasks per second.
    pub fn tasks_per_second(&self) -> f64 {
        self.bench.tasks as f64 / self.seconds
    }

    /// Master CPU (its gRPC threads') per task.
    pub fn cpu_per_task(&self) -> f64 {
        self.master_cpu_seconds / self.bench.tasks as f64
    }

    /// Single-slot workers one master core keeps busy: a slot needs a task every
    /// `tournament_seconds`, and each costs the master `cpu_per_task`.
    pub fn workers_per_core(&self) -> f64 {
        self.tournament_seconds / self.cpu_per_task()
    }

    /// Tasks handed out in all, the warm-up's included.
    fn all_tasks(&self) -> f64 {
        (self.bench.tasks + self.warmed_up) as f64
    }
}

impl std::fmt::Display for DispatchFigures {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (bench, stubs, counts) = (&self.bench, &self.bench.stubs, &self.counts);
        writeln!(
            f,
            "dispatch: {} tasks{}{} to {} stub workers over {} connection{} in {:.2} s",
            bench.tasks,
            if bench.steps > 1 { format!(" in {} steps", bench.steps) } else { String::new() },
            if self.warmed_up > 0 {
                format!(" after an untimed step of {} (counted in the stubs' figures)", self.warmed_up)
            } else {
                String::new()
            },
            stubs.clients,
            self.connections_seen,
            if self.connections_seen == 1 { "" } else { "s" },
            self.seconds
        )?;
        writeln!(
            f,
            "  networks reused: {}; chromosome cache: {} per stub",
            bench.reuse.name(),
            if stubs.cache == 0 { "none".to_owned() } else { stubs.cache.to_string() },
        )?;
        writeln!(
            f,
            "  networks sent: {} by id, {} with weights; {} fetched; tasks {:.0} bytes each",
            self.by_id,
            self.with_weights,
            counts.fetched,
            self.task_bytes as f64 / self.all_tasks()
        )?;
        let serving = if stubs.peers { "" } else { "; the stubs serve no peers" };
        if stubs.cache > 0 && stubs.light {
            writeln!(
                f,
                "  origins: {} networks sent as their origins, {} by id from peers{serving}; light stubs (nothing \
                 made or fetched)",
                self.by_origin, self.from_peers,
            )?;
        } else if stubs.cache > 0 {
            writeln!(
                f,
                "  origins: {} networks sent as their origins, {} by id from peers; the stubs made {}, fetched {} \
                 chromosomes from each other ({} asked in vain){serving}",
                self.by_origin, self.from_peers, counts.made, counts.peer_fetched, counts.peer_misses,
            )?;
        }
        writeln!(
            f,
            "  messages: {} from the stubs (at most {} outcomes each), {} from the master, {} FetchChromosomes \
             ({:.2} a task)",
            counts.messages_out,
            stubs.batch,
            counts.messages_in,
            counts.fetch_calls,
            (counts.messages_out + counts.messages_in + counts.fetch_calls) as f64 / self.all_tasks()
        )?;
        if self.backups > 0 || counts.duplicates > 0 || counts.abandoned > 0 {
            writeln!(
                f,
                "  backup copies of straggling tasks: {} (their second outcomes {} duplicates, {} copies dropped \
                 unplayed)",
                self.backups, counts.duplicates, counts.abandoned
            )?;
        }
        if counts.refused > 0 {
            writeln!(f, "  outcomes the master refused or did not know: {}", counts.refused)?;
        }
        writeln!(f, "  {:.0} tasks/s", self.tasks_per_second())?;
        let pinned = if stubs.pin { " (its gRPC threads on a CPU of their own)" } else { "" };
        writeln!(f, "  master CPU {:.1} µs per task{pinned}", self.cpu_per_task() * 1e6)?;
        writeln!(
            f,
            "  the collecting thread (a run's own): {:.2} µs per task more",
            self.collector_cpu_seconds / bench.tasks as f64 * 1e6
        )?;
        writeln!(
            f,
            "  the scheduler alone (timed after, one thread, steps of {} tasks, {} a message): {:.2} µs per task",
            self.step_size,
            stubs.batch,
            self.scheduler_seconds_per_task * 1e6
        )?;
        writeln!(f, "  one {}-ply tournament: {:.1} ms", stubs.depth, self.tournament_seconds * 1e3)?;
        write!(f, "  => one master core keeps about {:.0} single-slot workers busy", self.workers_per_core())
    }
}
