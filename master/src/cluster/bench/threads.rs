//! This process's threads: their CPU time, and pinning them to CPUs (Linux).

/// CPU time (on-CPU nanoseconds from `/proc/self/task/*/schedstat`) of this process's threads
/// whose name starts with `prefix`. Linux only; 0 elsewhere.
pub(super) fn threads_cpu(prefix: &str) -> f64 {
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

/// Pins this process's threads whose name starts with `prefix` to CPU `cpu` (or, with
/// `except`, to every CPU but it). Linux only; elsewhere (or if the kernel refuses) nothing
/// changes, and the bench says so.
pub(super) fn pin_threads(prefix: &str, cpu: usize, except: bool) -> bool {
    #[cfg(target_os = "linux")]
    {
        let Ok(tasks) = std::fs::read_dir("/proc/self/task") else { return false };
        let cpus = online_cpus();
        // SAFETY: cpu_set_t is plain data; CPU_ZERO and CPU_SET only write within it.
        let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        for c in 0..cpus {
            if (c == cpu) != except {
                // SAFETY: c is below the number of CPUs, within the set's capacity.
                unsafe { libc::CPU_SET(c, &mut set) };
            }
        }
        let mut pinned = true;
        for task in tasks.flatten() {
            let name = std::fs::read_to_string(task.path().join("comm")).unwrap_or_default();
            let Some(tid) = task.file_name().to_str().and_then(|t| t.parse::<libc::pid_t>().ok()) else { continue };
            if name.trim_end().starts_with(prefix) {
                // SAFETY: the set is initialised and its size passed; tid is one of our threads.
                let r = unsafe { libc::sched_setaffinity(tid, std::mem::size_of::<libc::cpu_set_t>(), &set) };
                pinned &= r == 0;
            }
        }
        pinned
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (prefix, cpu, except);
        false
    }
}

/// Pins the whole calling process (every thread it has and will start) to every CPU but `cpu`.
/// Linux only; false elsewhere or if the kernel refuses.
pub(super) fn pin_process_except(cpu: usize) -> bool {
    #[cfg(target_os = "linux")]
    {
        let cpus = online_cpus();
        // SAFETY: cpu_set_t is plain data; CPU_SET only writes within it.
        let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        for c in (0..cpus).filter(|&c| c != cpu) {
            // SAFETY: c is below the number of CPUs, within the set's capacity.
            unsafe { libc::CPU_SET(c, &mut set) };
        }
        // SAFETY: the set is initialised and its size passed; 0 is the calling thread, whose
        // mask the threads it starts later inherit.
        unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) == 0 }
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = cpu;
        false
    }
}

/// The CPUs online, whatever this thread's affinity (which `available_parallelism` counts).
#[cfg(target_os = "linux")]
fn online_cpus() -> usize {
    // SAFETY: sysconf has no preconditions.
    let n = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) };
    usize::try_from(n).unwrap_or(1).clamp(1, libc::CPU_SETSIZE as usize)
}
