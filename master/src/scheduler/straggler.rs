//! The straggler rule: a worker whose oldest open lease is much older than the batch's typical
//! task time. Stragglers are shown, and idle workers take backup copies of their tasks.

use std::time::Duration;

/// A worker is a straggler when its oldest lease is older than this many median task times...
pub const STRAGGLER_FACTOR: u32 = 3;
/// ...and older than this, so that millisecond tasks do not flag every worker that blinks.
pub const STRAGGLER_FLOOR: Duration = Duration::from_secs(1);

/// Whether a worker whose oldest open lease is `age` old is a straggler, given the median
/// lease-to-outcome time of the current batch (`None`: nothing completed yet, so no judgement).
pub fn is_straggler(age: Duration, median: Option<Duration>) -> bool {
    median.is_some_and(|m| age > (m * STRAGGLER_FACTOR).max(STRAGGLER_FLOOR))
}
