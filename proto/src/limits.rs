//! How much one message may carry: the protocol's limits, which the conversion, the bounds
//! checked on the wire, the chromosome cache and the peers share (so none of them imports
//! another for a number).

/// Most tasks one message carries, and most outcomes one message may carry.
pub const MAX_TASKS_PER_MESSAGE: usize = 64;

/// The largest message either side sends (64 of the largest tasks are about 4 MiB).
pub const MAX_MESSAGE_BYTES: usize = 16 << 20;

/// Most tasks a worker may ask for and not yet have been sent (`WorkerMessage.want`, summed).
pub const MAX_WANTED: u64 = 1024;

/// Longest failure message a worker sends (bytes): longer ones are cut (see
/// [`crate::convert::outcome_to_proto`]), and the master refuses longer ones.
pub const MAX_FAILURE_BYTES: usize = 4096;

/// Most chromosomes one `Peer.Chromosomes` call asks for.
pub const MAX_PEER_IDS: usize = 16;
