//! The median of a batch's task times from a bounded sample: the straggler rule asks for it on
//! every progress tick and backup scan, under the scheduler's lock.

use std::time::Duration;

/// Most durations kept: up to this many the median is exact.
pub(super) const SAMPLE: usize = 4096;

/// The lower median of the durations pushed since the last clear, or of every `stride`-th once
/// there are more than [`SAMPLE`] (when the sample fills, every second one goes and the stride
/// doubles): enough for the straggler rule, on which no result depends.
#[derive(Debug, Default)]
pub(super) struct SampledMedian {
    sample: Vec<Duration>,
    /// Keep one duration in this many (1 until the sample first fills).
    stride: u64,
    /// Durations pushed since the last clear.
    pushed: u64,
}

impl SampledMedian {
    /// Adds a duration.
    pub(super) fn push(&mut self, d: Duration) {
        let stride = self.stride.max(1);
        if self.pushed.is_multiple_of(stride) {
            if self.sample.len() == SAMPLE {
                let mut i = 0;
                self.sample.retain(|_| {
                    i += 1;
                    i % 2 == 1
                });
                self.stride = stride * 2;
            }
            if self.pushed.is_multiple_of(self.stride.max(1)) {
                self.sample.push(d);
            }
        }
        self.pushed += 1;
    }

    /// The (lower) median of the sample, if any duration was pushed.
    pub(super) fn median(&self) -> Option<Duration> {
        if self.sample.is_empty() {
            return None;
        }
        let mut d = self.sample.clone();
        let mid = (d.len() - 1) / 2;
        Some(*d.select_nth_unstable(mid).1)
    }

    /// Forgets every duration (a new batch).
    pub(super) fn clear(&mut self) {
        self.sample.clear();
        self.stride = 1;
        self.pushed = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn up_to_the_sample_the_median_is_the_sorted_middle() {
        // Against sorting, for sequences with ties, runs up and down, and pseudo-random values.
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut random = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % 50
        };
        let sequences: Vec<Vec<u64>> = vec![
            (0..40).collect(),
            (0..40).rev().collect(),
            vec![5; 9],
            vec![3, 1, 3, 1, 2, 2, 9, 0],
            (0..200).map(|_| random()).collect(),
        ];
        for values in sequences {
            let mut m = SampledMedian::default();
            assert_eq!(m.median(), None);
            for (n, &v) in values.iter().enumerate() {
                m.push(Duration::from_millis(v));
                let mut sorted: Vec<u64> = values[..=n].to_vec();
                sorted.sort_unstable();
                assert_eq!(m.median(), Some(Duration::from_millis(sorted[n / 2])), "after {:?}", &values[..=n]);
            }
            m.clear();
            assert_eq!(m.median(), None);
        }
    }

    #[test]
    fn beyond_the_sample_it_keeps_a_bounded_even_sample() {
        // 100 000 durations of 0..100 000 ms, rising, then falling: the true median is 49 999.5;
        // an even sample of 2 048 to 4 096 of them lands within a percent of it.
        for values in [(0..100_000u64).collect::<Vec<_>>(), (0..100_000u64).rev().collect()] {
            let mut m = SampledMedian::default();
            for &v in &values {
                m.push(Duration::from_millis(v));
            }
            assert!(m.sample.len() <= SAMPLE && m.sample.len() > SAMPLE / 2, "{}", m.sample.len());
            let median = m.median().map(|d| d.as_millis()).unwrap_or_default();
            assert!((49_000..=51_000).contains(&median), "{median}");
        }
        // With one value an hour late among steady ones, the median stays the steady value.
        let mut m = SampledMedian::default();
        for i in 0..50_000u64 {
            m.push(Duration::from_millis(if i == 7 { 3_600_000 } else { 20 }));
        }
        assert_eq!(m.median(), Some(Duration::from_millis(20)));
    }
}
