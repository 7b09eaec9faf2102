//! Reading evolution-strategies checkpoints of formats 2 to 5 as format 6.
//!
//! Each of those formats only added settings at the end of [`EsConfig`] and changed nothing else:
//! format 3 added `learning_rate_half_life` and `weight_decay` (builds up to commit 63a23ae wrote
//! format 2), format 4 added `initial_network` (builds up to commit 48c7dde wrote format 3), format
//! 5 added `symmetry` and `sigma_half_life` (builds up to commit 02600be wrote format 4), format 6
//! added `optimizer` (builds up to commit bbaac1f wrote format 5). The added settings' defaults
//! (a constant learning rate, no weight decay, a random first centre, no tied weights, a constant
//! σ, plain steps) are exactly what the older builds did, so an old file is the new file
//! without those settings' bytes: splicing their default encoding in after the old settings gives
//! the bytes the new build would have written for the same run. Resuming it continues the run as
//! the old build would have. (`initial_network` only acts when a run starts, so an old run's file
//! needs no other change.)
//!
//! [`EsConfig`]: crate::config::EsConfig

use crate::config::{CrossoverConfig, EsOptimizer, Fitness, MutationConfig};
use loa_engine::network::symmetry::WeightTying;
use serde::{Deserialize, Serialize};

/// The fields of [`ExperimentConfig`](crate::config::ExperimentConfig) before its selection, in
/// order: bincode writes a struct as its fields one after another, so decoding this reads
/// exactly their bytes.
#[derive(Deserialize)]
#[allow(dead_code)] // Read only for their length.
struct ConfigHead {
    seed: u64,
    epochs: u32,
    population: usize,
    generations_per_epoch: u32,
    network_depth: u32,
    mutation: MutationConfig,
    crossover: CrossoverConfig,
}

/// [`EsConfig`](crate::config::EsConfig) as format 2 wrote it.
#[derive(Deserialize)]
#[allow(dead_code)] // Read only for their length.
struct EsConfigFormat2 {
    sigma: f64,
    learning_rate: f64,
    opponents: u32,
    fixed_opponents: Vec<String>,
    fitness: Fitness,
    opening_plies: u32,
    fixed_matches: u32,
    hall_of_fame: u32,
    groups: u32,
    ladder: Vec<String>,
    promote_at: f64,
}

/// The settings format 3 added, in [`EsConfig`](crate::config::EsConfig)'s field order.
#[derive(Serialize, Deserialize)]
struct AddedInFormat3 {
    learning_rate_half_life: u32,
    weight_decay: f64,
}

/// [`EsConfig`](crate::config::EsConfig) as format 3 wrote it.
#[derive(Deserialize)]
#[allow(dead_code)] // Read only for their length.
struct EsConfigFormat3 {
    format_2: EsConfigFormat2,
    added: AddedInFormat3,
}

/// The setting format 4 added.
#[derive(Serialize, Deserialize)]
struct AddedInFormat4 {
    initial_network: String,
}

/// [`EsConfig`](crate::config::EsConfig) as format 4 wrote it.
#[derive(Deserialize)]
#[allow(dead_code)] // Read only for their length.
struct EsConfigFormat4 {
    format_3: EsConfigFormat3,
    added: AddedInFormat4,
}

/// The settings format 5 added.
#[derive(Serialize, Deserialize)]
struct AddedInFormat5 {
    symmetry: WeightTying,
    sigma_half_life: u32,
}

/// [`EsConfig`](crate::config::EsConfig) as format 5 wrote it.
#[derive(Deserialize)]
#[allow(dead_code)] // Read only for their length.
struct EsConfigFormat5 {
    format_4: EsConfigFormat4,
    added: AddedInFormat5,
}

/// The setting format 6 added.
#[derive(Serialize)]
struct AddedInFormat6 {
    optimizer: EsOptimizer,
}

/// `SelectionScheme::EvolutionStrategies`'s variant index (Knockout 0, MuPlusLambda 1).
const EVOLUTION_STRATEGIES: u32 = 2;

/// Where the scheme's settings start and which scheme it is, if the payload's head decodes.
fn scheme_at(payload: &[u8]) -> Option<(usize, u32)> {
    let standard = super::reading();
    let (_, head): (ConfigHead, usize) = bincode::serde::decode_from_slice(payload, standard).ok()?;
    let (variant, tag): (u32, usize) = bincode::serde::decode_from_slice(payload.get(head..)?, standard).ok()?;
    Some((head + tag, variant))
}

/// Whether a format-2 to -5 payload holds an evolution-strategies run.
pub(super) fn is_evolution_strategies(payload: &[u8]) -> bool {
    matches!(scheme_at(payload), Some((_, EVOLUTION_STRATEGIES)))
}

/// The format-6 payload of a format-2 to -5 evolution-strategies payload.
pub(super) fn upgrade_es(payload: &[u8], format: u32) -> Result<Vec<u8>, String> {
    let (standard, writing) = (super::reading(), bincode::config::standard());
    let start = match scheme_at(payload) {
        Some((start, EVOLUTION_STRATEGIES)) => start,
        _ => return Err(format!("not an evolution-strategies run of format {format}")),
    };
    let settings = &payload[start..];
    let invalid = |e: bincode::error::DecodeError| format!("format-{format} evolution-strategies settings: {e}");
    let encode = |e: bincode::error::EncodeError| e.to_string();
    let mut added = Vec::new();
    let end = match format {
        2 => {
            let (_, used): (EsConfigFormat2, usize) =
                bincode::serde::decode_from_slice(settings, standard).map_err(invalid)?;
            let defaults = AddedInFormat3 { learning_rate_half_life: 0, weight_decay: 0.0 };
            added.extend(bincode::serde::encode_to_vec(defaults, writing).map_err(encode)?);
            used
        }
        3 => {
            let (_, used): (EsConfigFormat3, usize) =
                bincode::serde::decode_from_slice(settings, standard).map_err(invalid)?;
            used
        }
        4 => {
            let (_, used): (EsConfigFormat4, usize) =
                bincode::serde::decode_from_slice(settings, standard).map_err(invalid)?;
            used
        }
        5 => {
            let (_, used): (EsConfigFormat5, usize) =
                bincode::serde::decode_from_slice(settings, standard).map_err(invalid)?;
            used
        }
        _ => return Err(format!("no upgrade of evolution strategies' format {format}")),
    };
    if format < 4 {
        let defaults = AddedInFormat4 { initial_network: String::new() };
        added.extend(bincode::serde::encode_to_vec(defaults, writing).map_err(encode)?);
    }
    if format < 5 {
        let defaults = AddedInFormat5 { symmetry: WeightTying::None, sigma_half_life: 0 };
        added.extend(bincode::serde::encode_to_vec(defaults, writing).map_err(encode)?);
    }
    let defaults = AddedInFormat6 { optimizer: EsOptimizer::Plain };
    added.extend(bincode::serde::encode_to_vec(defaults, writing).map_err(encode)?);
    let end = start + end;
    let mut upgraded = Vec::with_capacity(payload.len() + added.len());
    upgraded.extend_from_slice(&payload[..end]);
    upgraded.extend_from_slice(&added);
    upgraded.extend_from_slice(&payload[end..]);
    Ok(upgraded)
}
