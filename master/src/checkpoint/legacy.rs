//! Reading evolution-strategies checkpoints of format 2 (builds up to commit 63a23ae) as format 3.
//!
//! Format 3 added two settings at the end of [`EsConfig`] (`learning_rate_half_life`,
//! `weight_decay`) and changed nothing else. Their defaults (a constant learning rate, no weight
//! decay) are exactly what the older build did, so an old file is the new file without those
//! settings' bytes: splicing their default encoding in after the old settings gives the bytes
//! the new build would have written for the same run. Resuming it continues the run as the old
//! build would have.
//!
//! [`EsConfig`]: crate::config::EsConfig

use crate::config::{CrossoverConfig, Fitness, MutationConfig};
use serde::Deserialize;

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

/// The settings format 3 added, at their defaults, in [`EsConfig`](crate::config::EsConfig)'s
/// field order.
#[derive(serde::Serialize)]
struct AddedInFormat3 {
    learning_rate_half_life: u32,
    weight_decay: f64,
}

/// `SelectionScheme::EvolutionStrategies`'s variant index (Knockout 0, MuPlusLambda 1).
const EVOLUTION_STRATEGIES: u32 = 2;

/// Where the scheme's settings start and which scheme it is, if the payload's head decodes.
fn scheme_at(payload: &[u8]) -> Option<(usize, u32)> {
    let standard = bincode::config::standard();
    let (_, head): (ConfigHead, usize) = bincode::serde::decode_from_slice(payload, standard).ok()?;
    let (variant, tag): (u32, usize) = bincode::serde::decode_from_slice(payload.get(head..)?, standard).ok()?;
    Some((head + tag, variant))
}

/// Whether a format-2 payload holds an evolution-strategies run.
pub(super) fn is_evolution_strategies(payload: &[u8]) -> bool {
    matches!(scheme_at(payload), Some((_, EVOLUTION_STRATEGIES)))
}

/// The format-3 payload of a format-2 evolution-strategies payload.
pub(super) fn upgrade_es_format_2(payload: &[u8]) -> Result<Vec<u8>, String> {
    let standard = bincode::config::standard();
    let start = match scheme_at(payload) {
        Some((start, EVOLUTION_STRATEGIES)) => start,
        _ => return Err("not an evolution-strategies run of format 2".into()),
    };
    let (_, settings): (EsConfigFormat2, usize) = bincode::serde::decode_from_slice(&payload[start..], standard)
        .map_err(|e| format!("format-2 evolution-strategies settings: {e}"))?;
    let added =
        bincode::serde::encode_to_vec(AddedInFormat3 { learning_rate_half_life: 0, weight_decay: 0.0 }, standard)
            .map_err(|e| e.to_string())?;
    let end = start + settings;
    let mut upgraded = Vec::with_capacity(payload.len() + added.len());
    upgraded.extend_from_slice(&payload[..end]);
    upgraded.extend_from_slice(&added);
    upgraded.extend_from_slice(&payload[end..]);
    Ok(upgraded)
}
