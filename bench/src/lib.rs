//! Benchmarks of the loa-evolve master that the production `master` binary does not carry: they
//! drive the master through its public API (its scheduler and cluster service) from a binary of
//! their own, `loa-bench`.
//!
//! - [`dispatch`]: how many tasks a second the cluster service hands out and takes back, and
//!   what each costs the master's CPU, with stub workers in a process of their own.
//! - [`compare`]: that benchmark side by side with another build's, interleaved.
//! - [`faultproxy`]: a TCP proxy that injects network faults between workers and the master.
//! - [`selfplay`]: self-play games a second on embedded threads and remote workers.
//! - [`BenchError`]: what can go wrong, named.

#![warn(missing_docs)]

pub mod compare;
pub mod dispatch;
mod error;
pub mod faultproxy;
pub mod selfplay;

pub use error::BenchError;
