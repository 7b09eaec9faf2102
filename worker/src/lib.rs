//! The worker: joins a master over gRPC and plays the tournaments it is given.
//!
//! Not built yet: this crate is filled in by issue 5 (distributed workers).
