//! Each worker's leases in the order granted, each marked when it ends, so that its oldest open
//! lease (what the straggler rule judges) and its lapsed ones (what expiry takes back) are at the
//! front, rather than found by a scan of every open task under the scheduler's lock.

use std::collections::VecDeque;
use std::time::Instant;

/// One worker's leases, granted in time order: each has a sequence number, kept in its
/// [`super::Lease`], by which it is marked ended; ended leases at the front are dropped.
#[derive(Debug, Default)]
pub(super) struct LeaseLog {
    /// The sequence number of the front lease.
    first: u64,
    /// When each lease was granted, its task, and whether it has ended.
    leases: VecDeque<(Instant, u64, bool)>,
}

impl LeaseLog {
    /// Records a lease of task `task` granted at `since` (not before the last one); returns its
    /// number.
    pub(super) fn grant(&mut self, since: Instant, task: u64) -> u64 {
        self.leases.push_back((since, task, false));
        self.first + self.leases.len() as u64 - 1
    }

    /// Marks lease `seq` ended (an outcome, expiry, its worker gone); unknown numbers are
    /// ignored.
    pub(super) fn end(&mut self, seq: u64) {
        let place = seq.checked_sub(self.first).and_then(|i| usize::try_from(i).ok());
        if let Some(lease) = place.and_then(|i| self.leases.get_mut(i)) {
            lease.2 = true;
        }
        while self.leases.front().is_some_and(|&(_, _, ended)| ended) {
            self.leases.pop_front();
            self.first += 1;
        }
    }

    /// When the oldest lease still open was granted.
    pub(super) fn oldest(&self) -> Option<Instant> {
        self.leases.front().map(|&(since, _, _)| since)
    }

    /// The tasks of the open leases granted at or before `until`, oldest first: the first of
    /// the log, since it is in grant order.
    pub(super) fn granted_up_to(&self, until: Instant) -> impl Iterator<Item = u64> + '_ {
        let granted = self.leases.iter().take_while(move |&&(since, _, _)| since <= until);
        granted.filter(|&&(_, _, ended)| !ended).map(|&(_, task, _)| task)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn the_oldest_open_lease_is_at_the_front_whatever_order_they_end_in() {
        let t0 = Instant::now();
        let at = |ms| t0 + Duration::from_millis(ms);
        let mut log = LeaseLog::default();
        assert_eq!(log.oldest(), None);
        let seqs: Vec<u64> = [0, 10, 20, 30].into_iter().map(|ms| log.grant(at(ms), ms + 100)).collect();
        assert_eq!(seqs, [0, 1, 2, 3]);
        log.end(2); // out of order: the front stays
        assert_eq!(log.oldest(), Some(at(0)));
        let up_to = |log: &LeaseLog, ms| log.granted_up_to(at(ms)).collect::<Vec<_>>();
        assert_eq!(up_to(&log, 25), [100, 110], "the ended lease of task 120 left out");
        assert_eq!(up_to(&log, 30), [100, 110, 130]);
        assert_eq!(up_to(&log, 9), [100]);
        log.end(0);
        assert_eq!(log.oldest(), Some(at(10)));
        log.end(1); // 2 had ended: both go
        assert_eq!(log.oldest(), Some(at(30)));
        log.end(1); // again, and numbers never granted: nothing changes
        log.end(99);
        assert_eq!(log.oldest(), Some(at(30)));
        assert_eq!(log.grant(at(40), 140), 4);
        assert_eq!(up_to(&log, 1000), [130, 140]);
        log.end(3);
        assert_eq!(log.oldest(), Some(at(40)));
        log.end(4);
        assert_eq!(log.oldest(), None);
        assert_eq!(up_to(&log, 1000), Vec::<u64>::new());
        assert_eq!(log.grant(at(50), 150), 5, "numbers go on after the log empties");
    }
}
