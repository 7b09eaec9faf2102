//! `loa td`: TD(λ) self-play, the classic rival of evolution (TD-Gammon; Pollack and Blair's
//! "Why did TD-Gammon work?"), on the same networks, boards and opponents as evolution, and
//! measured the same way: `validation.jsonl`, which `analysis validation` charts beside master
//! runs. It runs on the local machine's threads; a run is defined by its configuration alone
//! (its seed included), whatever the number of threads, and resumes to the bit.
//!
//! - [`TdConfig`], [`TdValidation`]: the run's TOML, checked.
//! - [`Model`]: a network of any shape in f64, with its gradient.
//! - [`self_play`]: one self-play game at the configured depth from a seeded random opening.
//! - [`add_update`]: TD(λ)'s weight change for one game, from both sides' points of view.
//! - [`fold_in`]: the moving average of the weights, the network measured if a run keeps one.
//! - [`TdState`]: the saved state, atomic and checked on load.
//! - [`start`], [`resume`]: the training loop and its files.

mod average;
mod config;
mod learn;
mod model;
mod run;
mod selfplay;
mod state;
mod validation;

pub use average::fold_in;
pub use config::{MAX_BATCH, MAX_GAMES, TdConfig, TdValidation};
pub use learn::{UpdateStats, add_update};
pub use model::Model;
pub use run::{BatchRecord, TdOptions, TdSummary, resume, start};
pub use selfplay::{SelfPlayGame, self_play};
pub use state::TdState;
pub use validation::validate;
