//! Frozen copies of the scheme states format 7 holds, each at version 1 of its layout, as
//! `selection::SchemeState::save` writes them: the version (u32), then the state's fields in
//! order. Legacy checkpoints become these bytes, so a scheme may move its live state to a new
//! version (reading version 1 beside it) without a change here. They must never change.

use crate::codec::{self, CodecError};
use serde::Serialize;

/// The layout version every state here is.
pub const VERSION: u32 = 1;

/// The names the configuration gives the schemes formats 1 to 6 held.
pub mod names {
    /// The thesis's knockout.
    pub const KNOCKOUT: &str = "knockout";
    /// (μ + λ).
    pub const MU_PLUS_LAMBDA: &str = "mu-plus-lambda";
    /// Evolution strategies.
    pub const EVOLUTION_STRATEGIES: &str = "evolution-strategies";
}

/// An individual of a state: serial, topology name, weights (`population::StoredIndividual`'s
/// fields, which `population::Individual` is stored as).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Individual {
    pub serial: u64,
    pub topology: String,
    pub weights: Vec<f32>,
}

/// What judging remembers (`selection::judging::JudgingState`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Judging {
    pub hall_of_fame: Vec<Individual>,
    pub rung: u32,
}

/// (μ + λ)'s state (`selection::mu_plus_lambda::State`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MuPlusLambda {
    pub judged: Judging,
    /// Each survivor's self-adaptive step, by serial.
    pub steps: Vec<(u64, f64)>,
}

/// Adam's moments (`selection::adam::AdamState`); all zero and empty with plain steps.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Adam {
    pub updates: u64,
    pub beta_1_power: f64,
    pub beta_2_power: f64,
    pub first: Vec<f64>,
    pub second: Vec<f64>,
}

/// Evolution strategies' state (`selection::evolution_strategies::State`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EvolutionStrategies {
    pub judged: Judging,
    pub adam: Adam,
}

/// `state`'s bytes as its scheme saves version 1 of it.
pub fn save<T: Serialize>(state: &T) -> Result<Vec<u8>, CodecError> {
    codec::encode(&(VERSION, state))
}
