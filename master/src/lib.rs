//! The master: runs the genetic algorithm, hands tournaments to workers and
//! checkpoints every epoch.
//!
//! Not built yet: this crate is filled in by issue 4 (the GA, epochs,
//! checkpoints and the embedded default run).
