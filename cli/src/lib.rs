//! The `loa` command's library: what only the command line needs on top of the engine.
//!
//! - [`spec`]: player specs (`aloa:5`, `random:3`, `randomann:3:SEED`, `net:3:FILE`) and the
//!   players they make.
//! - [`series`]: a series of games in parallel, as `loa match` plays them.
//! - [`match_file`]: the JSON-lines file `loa match --out` writes (one line per game).
//! - [`interactive`]: a person against a player (`loa play`).
//! - [`describe`]: the text `loa show` prints.
//! - [`imitate`]: `loa imitate`, the network fitted to ALoA's evaluation by supervised learning.
//! - [`mod@bench`]: the speed figures `loa bench` prints.

#![warn(missing_docs)]

pub mod bench;
pub mod describe;
pub mod imitate;
pub mod interactive;
pub mod match_file;
pub mod series;
pub mod spec;
