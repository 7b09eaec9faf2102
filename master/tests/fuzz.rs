//! Randomised input testing of what the master reads from files: checkpoints (every format the
//! test data holds, damaged as found and damaged under a recomputed checksum, so the decoding
//! behind the checksum is reached), run configurations and match-experiment configurations.
//! Each must load or be refused with a message, within time and memory bounds
//! (`../engine/tests/support/fuzz.rs`); states and configurations must read back as written.

#[path = "../../engine/tests/support/fuzz.rs"]
mod fuzz;

use fuzz::{Decoder, arbitrary_bytes, arbitrary_text, inputs, mutated};
use loa_engine::breeding::BreedingRng;
use loa_master::checkpoint::{MAX_EPOCH, MAX_GENERATION, MAX_SERIAL, RunState};
use loa_master::config::ExperimentConfig;
use loa_master::experiment::MatchExperiment;
use loa_master::population::SerialCounter;
use proptest::prelude::*;
use std::path::{Path, PathBuf};

/// The checkpoint header: magic (8 bytes), format (4), payload length (8), CRC-32 (4).
const HEADER: usize = 24;

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data")
}

/// Every file in the test data ending in `ext`, sorted.
fn files(dir: &Path, ext: &str) -> Vec<Vec<u8>> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("the test data")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect();
    paths.sort();
    paths.iter().map(|p| std::fs::read(p).expect("a readable file")).collect()
}

/// The checkpoints of the test data (formats old and current) and each re-encoded in today's.
fn checkpoints() -> Vec<Vec<u8>> {
    let mut seeds = files(&data(), "ckpt");
    let states: Vec<RunState> =
        seeds.iter().map(|b| RunState::decode(b, Path::new("seed")).expect("a test checkpoint loads")).collect();
    seeds.extend(states.iter().map(|s| s.encode().expect("a state encodes")));
    seeds
}

/// `bytes` with the header's length and checksum made to match what follows it.
fn resealed(mut bytes: Vec<u8>) -> Vec<u8> {
    if bytes.len() >= HEADER {
        let payload_len = (bytes.len() - HEADER) as u64;
        let crc = crc32fast::hash(&bytes[HEADER..]);
        bytes[12..20].copy_from_slice(&payload_len.to_le_bytes());
        bytes[20..24].copy_from_slice(&crc.to_le_bytes());
    }
    bytes
}

fn load_checkpoint(bytes: &[u8]) -> Result<(), String> {
    RunState::decode(bytes, Path::new("fuzzed.ckpt")).map(drop).map_err(|e| fuzz::message(&e))
}

#[test]
fn checkpoints_damaged_as_found() {
    let seeds = checkpoints();
    let strategy = prop_oneof![3 => mutated(seeds), 1 => arbitrary_bytes(512)];
    Decoder::new("master: checkpoint").check(strategy, load_checkpoint);
}

#[test]
fn checkpoints_damaged_under_a_matching_checksum() {
    let seeds = checkpoints();
    let strategy = mutated(seeds).prop_map(resealed);
    Decoder::new("master: checkpoint (checksum recomputed)").check(strategy, load_checkpoint);
}

#[test]
fn a_string_length_past_the_file_is_refused_without_allocating_it() {
    // The configuration's text announced as 768 MiB long in a file of 33 KiB: refused as cut
    // short, having allocated no more than a small multiple of the file's size.
    let mut bytes = checkpoints().pop().expect("a checkpoint");
    bytes.splice(HEADER..HEADER + 2, [0xfc, 0x00, 0x00, 0x00, 0x30]);
    let bytes = resealed(bytes);
    let (result, allocated) = fuzz::measure(|| load_checkpoint(&bytes));
    let why = result.expect_err("refused");
    assert!(why.contains("fuzzed.ckpt"), "{why}");
    let bound = 64 * bytes.len() + (256 << 10);
    assert!(allocated.largest <= bound, "{} bytes allocated for a {}-byte file", allocated.largest, bytes.len());
}

#[test]
fn states_read_back_as_written() {
    let states: Vec<RunState> =
        files(&data(), "ckpt").iter().map(|b| RunState::decode(b, Path::new("seed")).expect("loads")).collect();
    let counters = (any::<prop::sample::Index>(), 0..=MAX_GENERATION, 0..=MAX_SERIAL, any::<[u64; 4]>(), any::<u64>());
    Decoder::new("master: checkpoint round trip").round_trip(counters, move |(i, generation, serial, rng, e)| {
        let mut state = states[i.index(states.len())].clone();
        // Any epoch the generations allow, within the bound.
        let most = (generation / u64::from(state.config.generations_per_epoch)).min(u64::from(MAX_EPOCH));
        state.generation = generation;
        state.epoch = (e % (most + 1)) as u32;
        state.serials = SerialCounter::starting_at(serial);
        state.rng = BreedingRng::from_state(rng);
        let bytes = state.encode().map_err(|e| TestCaseError::fail(e.to_string()))?;
        let back = RunState::decode(&bytes, Path::new("x")).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert!(back == state, "the state read back differs");
        Ok(())
    });
}

/// Run configurations: the repository's experiments and the test data's.
fn run_configs() -> Vec<Vec<u8>> {
    let experiments = Path::new(env!("CARGO_MANIFEST_DIR")).join("../experiments");
    let mut seeds: Vec<Vec<u8>> = files(&experiments, "toml")
        .into_iter()
        .chain(files(&experiments.join("evolve"), "toml"))
        .chain(files(&data(), "toml"))
        .filter(|t| ExperimentConfig::from_toml(&String::from_utf8_lossy(t)).is_ok())
        .collect();
    seeds.truncate(40);
    assert!(seeds.len() >= 5, "the repository's run configurations load");
    seeds
}

const TOML_TEXT: &str =
    "([a-z_]{1,12} = ([0-9.e-]{1,12}|\"[a-z:0-9]{0,10}\"|true|\\[[0-9, ]{0,12}\\])\n|\\[[a-z.\\-]{1,30}\\]\n){0,8}";

#[test]
fn run_configurations() {
    Decoder::new("master: run config toml").check(inputs(run_configs(), TOML_TEXT), |bytes| {
        ExperimentConfig::from_toml(&String::from_utf8_lossy(bytes)).map(drop).map_err(|e| fuzz::message(&e))
    });
}

#[test]
fn run_configurations_read_back_as_written() {
    let configs: Vec<ExperimentConfig> = run_configs()
        .iter()
        .map(|t| ExperimentConfig::from_toml(&String::from_utf8_lossy(t)).expect("loads"))
        .collect();
    // Seeds are TOML integers: at most i64::MAX (the configuration refuses more).
    let changes = (any::<prop::sample::Index>(), 0..=i64::MAX as u64, 1..1000u32, 1..100u32);
    Decoder::new("master: run config round trip").round_trip(changes, move |(i, seed, epochs, per_epoch)| {
        let mut config = configs[i.index(configs.len())].clone();
        config.seed = seed;
        config.epochs = epochs;
        config.generations_per_epoch = per_epoch;
        let back = ExperimentConfig::from_toml(&config.to_toml()).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert!(back == config, "the configuration read back differs");
        Ok(())
    });
}

/// Match experiments: the repository's and a few written here.
fn match_experiments() -> Vec<Vec<u8>> {
    let experiments = Path::new(env!("CARGO_MANIFEST_DIR")).join("../experiments");
    let mut seeds: Vec<Vec<u8>> = files(&experiments, "toml")
        .into_iter()
        .filter(|t| MatchExperiment::from_toml(&String::from_utf8_lossy(t)).is_ok())
        .collect();
    seeds.push(b"a = \"aloa:2\"\nb = \"random:1:7\"\nmatches = 40\nseed = 9\nopening_plies = 4\n".to_vec());
    seeds.push(b"a = \"run:3:runs/e1:epochs=0-20/2\"\nb = \"randomann:3\"\nmatches = 2\nswap_colours = true\nmax_matches = 100000\n".to_vec());
    seeds.push(
        b"a = \"net:2:x.json\"\nb = \"aloa-normal:1\"\nmatches = 8\nmatches_per_task = 2\n[rules]\nply_cap = 100\n"
            .to_vec(),
    );
    seeds
}

#[test]
fn match_experiment_configurations() {
    Decoder::new("master: experiment config toml").check(inputs(match_experiments(), TOML_TEXT), |bytes| {
        let config = MatchExperiment::from_toml(&String::from_utf8_lossy(bytes)).map_err(|e| fuzz::message(&e))?;
        config.validate().map_err(|e| fuzz::message(&e))?;
        config.players().map_err(|e| fuzz::message(&e))?;
        let _ = config.planned_matches(16);
        Ok(())
    });
}

#[test]
fn arbitrary_text_never_loads_as_a_checkpoint() {
    // Text can never start with the checkpoint's magic and format: every case is refused.
    Decoder::new("master: checkpoint from text").check(arbitrary_text("\\PC{0,64}"), |bytes| {
        match load_checkpoint(bytes) {
            Ok(()) => Err(String::new()),
            Err(why) => Err(why),
        }
    });
}
