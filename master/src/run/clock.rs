//! The compute a run has spent: CPU seconds of the master's process (user + system, its
//! embedded worker threads included) and wall-clock seconds, summed over every session of the
//! run. Checkpoints of runs that validate carry the totals ([`RunClock`]), so a resumed run goes
//! on counting from its checkpoint; the time a crash loses is not counted, as the resumed run
//! redoes that work and counts it then.

use crate::checkpoint::RunClock;
use std::time::Instant;

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

/// A session of a run (from its start or a resume): the totals it began with, and when.
#[derive(Clone, Copy, Debug)]
pub struct SessionClock {
    base: RunClock,
    started: Instant,
    cpu_at_start: f64,
}

impl SessionClock {
    /// A session starting now from the totals `base` (a checkpoint's).
    pub fn start(base: RunClock) -> SessionClock {
        SessionClock { base, started: Instant::now(), cpu_at_start: process_cpu_seconds() }
    }

    /// The run's totals now.
    pub fn now(&self) -> RunClock {
        RunClock {
            cpu_seconds: self.base.cpu_seconds + (process_cpu_seconds() - self.cpu_at_start).max(0.0),
            wall_seconds: self.base.wall_seconds + self.started.elapsed().as_secs_f64(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_adds_what_it_spends_to_the_totals_it_began_with() {
        let clock = SessionClock::start(RunClock { cpu_seconds: 100.0, wall_seconds: 200.0 });
        // Spend some CPU: a busy loop the optimiser cannot remove.
        let mut x = 0u64;
        let begun = Instant::now();
        while begun.elapsed().as_millis() < 50 {
            x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(7));
        }
        let now = clock.now();
        assert!(now.wall_seconds >= 200.05 && now.wall_seconds < 260.0, "{now:?}");
        if cfg!(unix) {
            assert!(now.cpu_seconds > 100.0 && now.cpu_seconds < 160.0, "{now:?}");
        }
    }
}
