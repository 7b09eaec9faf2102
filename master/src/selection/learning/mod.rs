//! What methods that step weights by gradients share: a network of any shape in f64 with the
//! gradient of its output ([`Model`]), the TD(λ) and TD-Leaf(λ) update of a self-play game
//! ([`add_update`]), the moving average of the weights ([`fold_in`]), and a TD learner made of
//! them ([`Learner`]): its self-play tasks and its batches learnt from.

mod average;
mod learner;
mod model;
mod temporal;

pub use average::fold_in;
pub use learner::{Batch, Learner, LearnerError, Play, SavedLearner, Step};
pub use model::{Model, ModelError};
pub use temporal::{Game, Prediction, UpdateStats, add_update};
