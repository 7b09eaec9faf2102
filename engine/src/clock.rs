//! The CPU time a process has spent: what runs measure their compute in (a master run's and a
//! TD run's CPU seconds, summed over their sessions).

/// This process's CPU seconds so far (user + system, all threads); 0 where it cannot be read.
pub fn process_cpu_seconds() -> f64 {
    #[cfg(unix)]
    {
        let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
        // SAFETY: `getrusage` writes a `rusage` into the pointer it is given, which points to
        // one; the value is read only if the call succeeded.
        let usage = unsafe {
            if libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr()) != 0 {
                return 0.0;
            }
            usage.assume_init()
        };
        let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
        seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
    #[cfg(not(unix))]
    {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spinning_adds_cpu_time() {
        let before = process_cpu_seconds();
        let start = std::time::Instant::now();
        let mut x = 0u64;
        while start.elapsed().as_millis() < 50 {
            x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
        }
        let spent = process_cpu_seconds() - before;
        // At least part of 50 ms of spinning shows, however loaded the machine.
        assert!(spent > 0.001 && spent < 60.0, "{spent}");
    }
}
