//! What the stub workers count, and the line the stub process prints it as for the benchmark
//! to read (`stubs: sent=4000 accepted=4000 ...`).

/// What the stubs counted, summed over all of them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StubCounts {
    /// Outcomes sent.
    pub sent: u64,
    /// Outcomes the master's receipts accepted.
    pub accepted: u64,
    /// Outcomes the receipts counted as duplicates (the second copy of a task given twice).
    pub duplicates: u64,
    /// Outcomes the receipts refused or did not know.
    pub refused: u64,
    /// Tasks dropped unplayed: their chromosomes were not to be had (the task was done).
    pub abandoned: u64,
    /// Messages the stubs sent on their streams.
    pub messages_out: u64,
    /// Messages the master sent them.
    pub messages_in: u64,
    /// `FetchChromosomes` calls.
    pub fetch_calls: u64,
    /// Chromosomes fetched from the master.
    pub fetched: u64,
    /// Networks made from their origins.
    pub made: u64,
    /// Chromosomes fetched from other stubs.
    pub peer_fetched: u64,
    /// Chromosomes asked of a stub that did not answer with them.
    pub peer_misses: u64,
}

/// The line's fields, in order.
const FIELDS: [&str; 12] = [
    "sent",
    "accepted",
    "duplicates",
    "refused",
    "abandoned",
    "messages_out",
    "messages_in",
    "fetch_calls",
    "fetched",
    "made",
    "peer_fetched",
    "peer_misses",
];

impl StubCounts {
    fn fields(&mut self) -> [&mut u64; 12] {
        [
            &mut self.sent,
            &mut self.accepted,
            &mut self.duplicates,
            &mut self.refused,
            &mut self.abandoned,
            &mut self.messages_out,
            &mut self.messages_in,
            &mut self.fetch_calls,
            &mut self.fetched,
            &mut self.made,
            &mut self.peer_fetched,
            &mut self.peer_misses,
        ]
    }

    /// Adds `other`'s counts to these.
    pub fn add(&mut self, other: &StubCounts) {
        let mut other = other.clone();
        for (mine, theirs) in self.fields().into_iter().zip(other.fields()) {
            *mine += *theirs;
        }
    }

    /// The counts as the stub process prints them.
    pub fn to_line(&self) -> String {
        let mut counts = self.clone();
        let fields: Vec<String> = FIELDS.iter().zip(counts.fields()).map(|(k, v)| format!("{k}={v}")).collect();
        format!("stubs: {}", fields.join(" "))
    }

    /// The counts of a line [`StubCounts::to_line`] printed; `None` for any other line.
    pub fn from_line(line: &str) -> Option<StubCounts> {
        let rest = line.trim().strip_prefix("stubs: ")?;
        let pairs: Vec<(&str, &str)> = rest.split(' ').filter_map(|p| p.split_once('=')).collect();
        if pairs.len() != FIELDS.len() {
            return None;
        }
        let mut counts = StubCounts::default();
        for ((key, value), (want, slot)) in pairs.into_iter().zip(FIELDS.iter().zip(counts.fields())) {
            if key != *want {
                return None;
            }
            *slot = value.parse().ok()?;
        }
        Some(counts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_reads_back() {
        let mut counts = StubCounts { sent: 4000, accepted: 3999, duplicates: 1, peer_misses: 7, ..Default::default() };
        counts.add(&StubCounts { sent: 2, fetched: 5, ..Default::default() });
        let line = counts.to_line();
        assert!(line.starts_with("stubs: sent=4002 accepted=3999 duplicates=1 "), "{line}");
        assert_eq!(StubCounts::from_line(&line), Some(counts));
        assert_eq!(StubCounts::from_line("stubs: sent=1"), None);
        assert_eq!(StubCounts::from_line(&line.replace("made", "mode")), None);
        assert_eq!(StubCounts::from_line(&line.replace("=5", "=x")), None);
    }
}
