//! Frozen copies of the types formats 1 to 6 were the bincode of, field for field in their order
//! (bincode writes a struct as its fields in order and an enum as its variant's index and
//! fields). They serialise to the configuration's TOML, whose keys are their field names. They
//! must never change: they are what old files hold.

use serde::{Deserialize, Serialize};

/// The configuration's fields before its selection scheme.
#[derive(Serialize, Deserialize)]
pub struct ConfigHead {
    pub seed: u64,
    pub epochs: u32,
    pub population: u64,
    pub generations_per_epoch: u32,
    pub network_depth: u32,
    pub mutation: Mutation,
    pub crossover: Crossover,
}

#[derive(Serialize, Deserialize)]
pub struct Mutation {
    pub operator: MutationOperator,
    pub probability: f64,
    pub mutants_per_survivor: u32,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MutationOperator {
    UniformReset,
    Gaussian { sigma: f64, decay: f64 },
    SelfAdaptive { sigma: f64, tau: f64 },
}

#[derive(Serialize, Deserialize)]
pub struct Crossover {
    pub operator: CrossoverOperator,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CrossoverOperator {
    SinglePoint,
    Uniform,
    PerNeuron,
}

/// The selection scheme's variant indices.
pub const KNOCKOUT: u32 = 0;
pub const MU_PLUS_LAMBDA: u32 = 1;
pub const EVOLUTION_STRATEGIES: u32 = 2;

#[derive(Clone, Copy, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Fitness {
    Points,
    BenchmarkScore,
}

/// (μ + λ)'s settings, formats 2 to 6.
#[derive(Serialize, Deserialize)]
pub struct MuPlusLambda {
    pub offspring: u32,
    pub opponents: u32,
    pub crossover_rate: f64,
    pub fixed_opponents: Vec<String>,
    pub fitness: Fitness,
    pub opening_plies: u32,
    pub fixed_matches: u32,
    pub hall_of_fame: u32,
    pub groups: u32,
    pub ladder: Vec<String>,
    pub promote_at: f64,
    pub elitism: Option<u32>,
}

/// Evolution strategies' settings in format 2.
#[derive(Serialize, Deserialize)]
pub struct Es2 {
    pub sigma: f64,
    pub learning_rate: f64,
    pub opponents: u32,
    pub fixed_opponents: Vec<String>,
    pub fitness: Fitness,
    pub opening_plies: u32,
    pub fixed_matches: u32,
    pub hall_of_fame: u32,
    pub groups: u32,
    pub ladder: Vec<String>,
    pub promote_at: f64,
}

/// What format 3 added.
#[derive(Serialize, Deserialize)]
pub struct Added3 {
    pub learning_rate_half_life: u32,
    pub weight_decay: f64,
}

/// What format 4 added.
#[derive(Serialize, Deserialize)]
pub struct Added4 {
    pub initial_network: String,
}

/// What format 5 added.
#[derive(Serialize, Deserialize)]
pub struct Added5 {
    pub symmetry: WeightTying,
    pub sigma_half_life: u32,
}

/// What format 6 added.
#[derive(Serialize, Deserialize)]
pub struct Added6 {
    pub optimizer: EsOptimizer,
}

#[derive(Clone, Copy, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WeightTying {
    None,
    Invariant,
    Equivariant,
}

#[derive(Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EsOptimizer {
    Plain,
    Adam,
}

/// The configuration's fields after its selection scheme.
#[derive(Serialize, Deserialize)]
pub struct Benchmark {
    pub reference: Reference,
    pub depth: u32,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Reference {
    Aloa,
    AloaNormal,
    Random,
}

#[derive(Serialize, Deserialize)]
pub struct Rules {
    pub both_connected: BothConnected,
    pub no_moves: NoMoves,
    pub ply_cap: u32,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BothConnected {
    Draw,
    MoverWins,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum NoMoves {
    Loses,
    Passes,
}

/// The run's state after the configuration.
#[derive(Deserialize)]
pub struct StateTail {
    pub generation: u64,
    pub epoch: u32,
    pub next_serial: u64,
    pub rng: [u64; 4],
    pub population: Vec<Individual>,
    pub epochs: Vec<loa_records::EpochReport>,
}

#[derive(Clone, Deserialize)]
pub struct Individual {
    pub serial: u64,
    pub topology: String,
    pub weights: Vec<f32>,
}

/// What (μ + λ) and ES remembered, formats 2 to 6.
#[derive(Deserialize)]
pub struct Memory {
    pub hall_of_fame: Vec<Individual>,
    pub rung: u32,
}

/// Adam's moments, format 6.
#[derive(Deserialize)]
pub struct Adam {
    pub updates: u64,
    pub beta_1_power: f64,
    pub beta_2_power: f64,
    pub first: Vec<f64>,
    pub second: Vec<f64>,
}
