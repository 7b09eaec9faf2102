//! Analysis of finished runs: per-epoch performance charts and the thesis's
//! comparison tables.
//!
//! Not built yet: it reads the metrics files the master writes (issue 4).
