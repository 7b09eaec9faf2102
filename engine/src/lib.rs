//! Lines of Action: the game core every other part of loa-evolve stands on.
//!
//! - [`Square`], [`Color`], [`Bitboard`]: the board's small types (docs/spec.md §1 indices).
//! - [`BoardSize`]: 5×5 to 8×8 boards, embedded in the 8×8 bitboards; [`Start`]: the start
//!   positions (the usual one on every size, Scrambled Eggs on 8×8).
//! - [`Move`], [`MoveList`]: moves and allocation-free move lists in canonical order.
//! - [`Position`]: pieces and side to move; copy-make with [`Position::play`].
//! - [`movegen`]: legal move generation ([`Position::generate_moves`], [`Position::count_moves`]).
//! - [`notation`]: position text and move text with typed errors ([`PositionError`], [`MoveError`]).
//! - [`rules`]: the end of a game and the rules variants ([`Rules`], [`GameEnd`]).
//! - [`connect`]: 8-connected groups by bitboard flood fill.
//! - [`quads`]: quad counts and the Euler number, from scratch and incremental.
//! - [`perft`]: move-tree leaf counts.
//! - [`search`]: alpha-beta and minimax over any [`search::Evaluator`].
//! - [`random`]: the random heuristic and portable seed derivation.
//! - [`network`]: the network evaluator, of any configured shape (the thesis's has 2041
//!   weights), and chromosome files.
//! - [`breeding`]: the variation operators and the generator they draw from, and a chromosome's
//!   [`breeding::Origin`], from which anyone holding its parents makes it again.
//! - [`aloa`]: the ALoA reference evaluator (quad and normal).
//! - [`files`]: reading files a user names, bounded in size.
//! - [`clock`]: the CPU seconds the process has spent, which runs measure compute in.
//! - [`game`]: games, two-game matches, the match criteria and the benchmark score.
//! - [`openings`]: seeded random openings and playout positions (for matches, tests, benches).
//! - [`players`]: the thesis's players: network, ALoA and random-heuristic searchers, and the
//!   network and ALoA players that remember the positions they have searched.
//! - [`spec`]: the text that names a player (`aloa:5`, `net:3:FILE`): parsed, checked against
//!   a board, written back and built, for every place that takes one.
//! - [`tasks`]: the master's units of work: tournaments, benchmark matches and generic match
//!   tasks (pairs or a knockout over networks and fixed players).
//!
//! The `loa` command and what only it uses (series, `loa play`, `loa bench`) live in the
//! `loa-cli` crate.

#![warn(missing_docs)]

pub mod aloa;
mod bitboard;
mod board_size;
pub mod breeding;
pub mod clock;
pub mod connect;
pub mod files;
pub mod game;
pub mod movegen;
mod moves;
pub mod network;
pub mod notation;
pub mod openings;
pub mod perft;
pub mod players;
mod position;
pub mod quads;
pub mod random;
pub mod rules;
pub mod search;
pub mod spec;
mod square;
mod start;
mod tables;
pub mod tasks;

pub use bitboard::Bitboard;
pub use board_size::{BoardSize, BoardSizeError};
pub use moves::{MAX_MOVES, Move, MoveList};
pub use notation::{IllegalReason, MoveError, PositionError};
pub use position::{MAX_PIECES, Position, START_TEXT};
pub use rules::{BothConnected, EndReason, GameEnd, NoMoves, Outcome, Rules};
pub use square::{Color, Square};
pub use start::{Start, StartError};

/// Restores the default action for SIGPIPE, which Rust programs ignore: then a command whose
/// output goes to a pipe that closes early (`loa moves ... | head -1`) ends quietly, as Unix
/// tools do, instead of panicking in `println!`. Call it first thing in `main`, and only in a
/// program that does not talk over sockets: writes to a socket whose peer went away (hyper's
/// `writev`) then kill the process instead of failing with EPIPE.
pub fn restore_sigpipe() {
    #[cfg(unix)]
    // SAFETY: setting a signal's disposition to SIG_DFL at start-up, before any thread exists,
    // has no preconditions.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}
