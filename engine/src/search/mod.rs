//! Fixed-depth alpha-beta search (SPEC §4) and the plain minimax it must agree with.

mod evaluator;

pub use evaluator::{EVAL_LIMIT, Evaluator};
