//! This process's threads: their CPU time, and pinning them to CPUs (Linux).

/// This process's threads whose name starts with `prefix`: their ids and `/proc` directories.
fn threads_named(prefix: &str) -> Vec<(String, std::path::PathBuf)> {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else { return Vec::new() };
    tasks
        .flatten()
        .filter(|t| std::fs::read_to_string(t.path().join("comm")).is_ok_and(|n| n.trim_end().starts_with(prefix)))
        .map(|t| (t.file_name().to_string_lossy().into_owned(), t.path()))
        .collect()
}

/// CPU time (on-CPU nanoseconds from `/proc/self/task/*/schedstat`) of this process's threads
/// whose name starts with `prefix`. Linux only; 0 elsewhere.
pub(crate) fn threads_cpu(prefix: &str) -> f64 {
    let nanos: u64 = threads_named(prefix)
        .iter()
        .filter_map(|(_, path)| {
            let stat = std::fs::read_to_string(path.join("schedstat")).ok()?;
            stat.split_whitespace().next()?.parse::<u64>().ok()
        })
        .sum();
    nanos as f64 * 1e-9
}

/// CPU time of the calling thread (from `/proc/thread-self/schedstat`). Linux only; 0 elsewhere.
pub(crate) fn this_thread_cpu() -> f64 {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").unwrap_or_default();
    stat.split_whitespace().next().and_then(|n| n.parse::<u64>().ok()).unwrap_or(0) as f64 * 1e-9
}

/// Pins this process's threads whose name starts with `prefix` to CPU `cpu`. Linux only; false
/// elsewhere or if the kernel refuses.
pub(crate) fn pin_threads(prefix: &str, cpu: usize) -> bool {
    let threads = threads_named(prefix);
    !threads.is_empty() && threads.iter().all(|(tid, _)| tid.parse().is_ok_and(|tid| set_affinity(tid, cpu, false)))
}

/// Pins the whole calling process (the calling thread, and every thread it starts later, which
/// inherit its mask) to every CPU but `cpu`. Linux only; false elsewhere or if the kernel
/// refuses.
pub(crate) fn pin_process_except(cpu: usize) -> bool {
    set_affinity(0, cpu, true)
}

/// Sets thread `tid`'s (0: the calling thread's) CPUs to `cpu`, or with `except` to every online
/// CPU but it.
#[cfg(target_os = "linux")]
fn set_affinity(tid: libc::pid_t, cpu: usize, except: bool) -> bool {
    // SAFETY: sysconf has no preconditions.
    let online = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) };
    // Online CPUs, not this thread's (which `available_parallelism` counts, and may be pinned).
    let cpus = usize::try_from(online).unwrap_or(1).clamp(1, libc::CPU_SETSIZE as usize);
    // SAFETY: cpu_set_t is plain data, for which all zeros is the empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    for c in (0..cpus).filter(|&c| (c == cpu) != except) {
        // SAFETY: c is below CPU_SETSIZE, within the set.
        unsafe { libc::CPU_SET(c, &mut set) };
    }
    // SAFETY: the set is initialised and its size passed; tid is 0 or one of our threads.
    unsafe { libc::sched_setaffinity(tid, std::mem::size_of::<libc::cpu_set_t>(), &set) == 0 }
}

#[cfg(not(target_os = "linux"))]
fn set_affinity(_tid: i32, _cpu: usize, _except: bool) -> bool {
    false
}
