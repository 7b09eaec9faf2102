//! The `loa` command's library: what only the command line needs on top of the engine. Players
//! are named by the engine's specs ([`loa_engine::spec`]), of the forms `loa` plays
//! ([`loa_engine::spec::Accepts::Playable`]).
//!
//! - [`apply`]: moves applied to a position, each checked (`loa apply`, `loa engine`).
//! - [`engine`]: `loa engine`, a player behind a line protocol in the style of UCI.
//! - [`matches`](mod@matches): `loa match`'s flags, progress and printed totals.
//! - [`series`]: a series of games in parallel, as `loa match` plays them.
//! - [`match_file`]: the JSON-lines file `loa match --out` writes (one line per game).
//! - [`replay`]: a game of a match file played again, each move checked (`loa replay`).
//! - [`interactive`]: a person against a player (`loa play`).
//! - [`describe`]: the text `loa show` prints.
//! - [`imitate`]: `loa imitate`, the network fitted to ALoA's evaluation by supervised learning.
//! - [`bench`](mod@bench): the speed figures `loa bench` prints.

#![warn(missing_docs)]

pub mod apply;
pub mod bench;
pub mod describe;
pub mod engine;
pub mod imitate;
pub mod interactive;
pub mod match_file;
pub mod matches;
pub mod replay;
pub mod series;
