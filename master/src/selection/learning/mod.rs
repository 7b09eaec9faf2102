//! What methods that step weights by gradients share: a network of any shape in f64 with the
//! gradient of its output ([`Model`]), the TD(λ) and TD-Leaf(λ) update of a self-play game
//! ([`add_update`]), and the moving average of the weights ([`fold_in`]).

mod average;
mod model;
mod temporal;

pub use average::fold_in;
pub use model::{Model, ModelError};
pub use temporal::{Game, Prediction, UpdateStats, add_update};
