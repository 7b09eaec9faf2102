//! `loa-bench`: benchmarks of the loa-evolve master (see the library's docs).

use clap::{Args, Parser, Subcommand};
use loa_bench::BenchError;
use loa_bench::dispatch::{DispatchBench, Reuse, StubOptions, bench_dispatch, stubs::run_stubs};
use loa_bench::faultproxy::{FaultProxy, ProxyOptions};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

/// The production master binary's allocator, so that the master measured in this process
/// allocates as it does there: the dispatch path is mostly small protobuf messages made and
/// freed on two threads.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's `mi_option_purge_delay` (its place in the `mi_option_e` enum of the header
/// libmimalloc-sys builds), as the master binary sets it.
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// Keeps freed memory for reuse instead of returning it to the OS, as the master binary does, so
/// a step's tasks and outcomes do not fault their pages in again each step.
fn keep_freed_memory() {
    // SAFETY: sets an option of the allocator, which mimalloc allows at any time.
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, -1) }
}

#[derive(Parser)]
#[command(name = "loa-bench", version, about = "Benchmarks of the loa-evolve master")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Self-play games a second: a TD run's first games on 1 and 2 embedded threads, then on 1
    /// and 2 remote single-slot workers over loopback, one after another in this process; each
    /// final checkpoint must equal the first's.
    Selfplay {
        /// The TD run (a master configuration of the td method).
        #[arg(long, default_value = "experiments/td/8x8.toml")]
        config: PathBuf,
        /// Games to play each way (a multiple of the batch).
        #[arg(long, default_value_t = 400)]
        games: u64,
    },
    /// Measure the master's cluster service: stub workers on loopback that answer at once.
    Dispatch {
        /// Tasks to dispatch.
        #[arg(long, default_value_t = 20_000)]
        tasks: usize,
        /// Concurrent stub workers.
        #[arg(long, default_value_t = 64)]
        clients: usize,
        /// Real tournaments to time for the per-task time T.
        #[arg(long, default_value_t = 20)]
        samples: u32,
        /// Their search depth.
        #[arg(long, default_value_t = 3)]
        depth: u32,
        /// How the tasks reuse networks: fresh (every network new), knockout (the thesis's
        /// generations: one survivor and three new networks a task, a benchmark every tenth
        /// generation) or repeat (the same four networks in every task).
        #[arg(long, value_enum, default_value_t = Reuse::Knockout)]
        reuse: Reuse,
        /// Survivors a generation with --reuse knockout (a generation's tasks go out together,
        /// each generation once the one before is done): 62 as the thesis, more for a cluster.
        #[arg(long, default_value_t = 62)]
        population: usize,
        /// With --reuse repeat or fresh: hand the tasks out in this many equal steps, each once
        /// the one before is done, as a run hands out generation after generation; 1: all at
        /// once.
        #[arg(long, default_value_t = 1)]
        steps: usize,
        /// With --reuse repeat or fresh: first hand out one more step of the same size, untimed,
        /// so the timed steps find the tables and memory a long run has warmed; the stubs'
        /// counts include it.
        #[arg(long)]
        warm_up: bool,
        #[command(flatten)]
        stubs: StubFlags,
        /// Side by side with another build: a loa-bench binary, or a master binary that still
        /// carries `bench-dispatch`. Both run the benchmark as child processes, alternately,
        /// with the same workload flags, and the medians and best figures are compared.
        #[arg(long)]
        baseline: Option<PathBuf>,
        /// Rounds of the side-by-side comparison (each runs both builds once).
        #[arg(long, default_value_t = 3, requires = "baseline")]
        rounds: u32,
        /// More arguments for the baseline's runs alone (split at spaces).
        #[arg(long, requires = "baseline", allow_hyphen_values = true)]
        baseline_args: Option<String>,
    },
    /// A fault-injecting TCP proxy between workers and a master on this machine: forwards
    /// --listen to --upstream and takes commands, a line each, on --control (latency MS
    /// [JITTER_MS], bandwidth BYTES_PER_SECOND, stall on|off, partition SECONDS, heal,
    /// resets PER_SECOND, clear, status). Runs until killed.
    Proxy {
        /// Where workers connect, e.g. 127.0.0.1:50052.
        #[arg(long)]
        listen: SocketAddr,
        /// The master's address, e.g. 127.0.0.1:50051.
        #[arg(long)]
        upstream: SocketAddr,
        /// Where the control interface listens, e.g. 127.0.0.1:50053.
        #[arg(long)]
        control: SocketAddr,
        /// Seeds the jitter and the reset draws.
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// The stub workers of `dispatch`, which starts this in a process of its own (not for use
    /// by hand): they work until standard input closes, then print their counts.
    #[command(hide = true)]
    DispatchStubs {
        #[arg(long)]
        url: String,
        #[arg(long)]
        clients: usize,
        #[arg(long)]
        depth: u32,
        #[command(flatten)]
        stubs: StubFlags,
    },
}

/// How the stub workers behave (shared by `dispatch` and the stub process it starts).
#[derive(Args, Clone, Debug)]
struct StubFlags {
    /// The chromosome cache each stub worker announces and keeps (0: none, every task carries
    /// its weights).
    #[arg(long, default_value_t = loa_proto::cache::DEFAULT_CAPACITY)]
    chromosome_cache: usize,
    /// Tasks a stub worker asks for at a time, and so the most outcomes it sends in one message
    /// (1 to 64).
    #[arg(long, default_value_t = 1)]
    batch: u32,
    /// Each stub worker serves the chromosomes it holds to the others on loopback, as workers
    /// started with --peer-listen do: new networks then go as their origins and their parents
    /// come from the stubs, not the master.
    #[arg(long)]
    peers: bool,
    /// Pin the master's gRPC threads to the first CPU and the stub workers to the others
    /// (Linux, 2 CPUs or more), so the stubs' work cannot preempt the master's.
    #[arg(long)]
    pin: bool,
    /// The stub workers take every network as sent, making and fetching nothing: the master's
    /// work is the same, and the stubs keep up with it on the same machine.
    #[arg(long)]
    light_stubs: bool,
    /// TCP connections the stub workers share, in turn (each an HTTP/2 connection carrying its
    /// stubs' streams). Real workers have one each (--connections equal to --clients).
    #[arg(long, default_value_t = 1)]
    connections: usize,
}

impl StubFlags {
    fn options(&self, clients: usize, depth: u32) -> StubOptions {
        StubOptions {
            clients,
            depth,
            cache: self.chromosome_cache,
            batch: self.batch,
            peers: self.peers,
            pin: self.pin,
            light: self.light_stubs,
            connections: self.connections,
        }
    }
}

fn run(cli: Cli) -> Result<(), BenchError> {
    let me = std::env::current_exe().map_err(|source| BenchError::Spawn { program: "loa-bench".into(), source })?;
    match cli.command {
        Command::Selfplay { config, games } => {
            use loa_bench::selfplay::{Way, bench_selfplay, cut};
            let config = loa_master::config::ExperimentConfig::read(&config)
                .map_err(|e| BenchError::Flag { flag: "--config", problem: e.to_string() })?;
            let config = cut(&config, games)?;
            let dir = std::env::temp_dir().join(format!("loa-bench-selfplay-{}", std::process::id()));
            let ways = [Way::Embedded(1), Way::Embedded(2), Way::Remote(1), Way::Remote(2)];
            let figures = bench_selfplay(&config, &ways, &dir);
            let _ = std::fs::remove_dir_all(&dir);
            let figures = figures?;
            println!("{:<32} {:>7} {:>9} {:>8} {:>8}  checkpoint", "way", "games", "seconds", "games/s", "scaling");
            for f in &figures {
                let single = figures.iter().find(|g| std::mem::discriminant(&g.way) == std::mem::discriminant(&f.way));
                let scaling = single.map_or(1.0, |s| f.rate() / s.rate());
                let same = if f.identical { "identical" } else { "DIFFERS" };
                println!(
                    "{:<32} {:>7} {:>9.2} {:>8.1} {:>7.2}x  {same}",
                    f.way.to_string(),
                    f.games,
                    f.seconds,
                    f.rate(),
                    scaling
                );
            }
            if figures.iter().any(|f| !f.identical) {
                return Err(BenchError::Engine("a way's checkpoint differs from the first's".into()));
            }
        }
        Command::Dispatch {
            tasks,
            clients,
            samples,
            depth,
            reuse,
            population,
            steps,
            warm_up,
            stubs,
            baseline,
            rounds,
            baseline_args,
        } => {
            let bench = DispatchBench {
                tasks,
                samples,
                reuse,
                population,
                steps,
                warm_up,
                stubs: stubs.options(clients, depth),
            };
            match baseline {
                Some(baseline) => {
                    bench.stubs.check()?;
                    let extra: Vec<String> =
                        baseline_args.as_deref().unwrap_or("").split_whitespace().map(str::to_owned).collect();
                    let compared =
                        loa_bench::compare::compare_dispatch(&baseline, &me, &bench.arguments(), &extra, rounds)?;
                    println!("{compared}");
                }
                None => println!("{}", bench_dispatch(&bench, &me)?),
            }
        }
        Command::Proxy { listen, upstream, control, seed } => {
            let options = ProxyOptions { listen, upstream, control: Some(control), seed };
            let proxy = FaultProxy::start(&options)?;
            // Scripts wait for this line before they connect.
            println!("proxy: {} -> {upstream}, control on {}", proxy.addr(), proxy.control_addr().unwrap_or(control));
            proxy.serve_forever();
        }
        Command::DispatchStubs { url, clients, depth, stubs } => {
            println!("{}", run_stubs(&url, &stubs.options(clients, depth))?.to_line());
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    keep_freed_memory();
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("loa-bench: error: {e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn purge_delay_option_is_the_one_set() {
        // SAFETY: reads an option of the allocator.
        let get = |option| unsafe { libmimalloc_sys::mi_option_get(option) };
        // 1000 ms is purge_delay's default; its neighbours in the enum default to 1 and 0, so a
        // shifted enum would not read 1000.
        assert_eq!(get(MI_OPTION_PURGE_DELAY), 1000);
        keep_freed_memory();
        assert_eq!(get(MI_OPTION_PURGE_DELAY), -1);
    }
}
