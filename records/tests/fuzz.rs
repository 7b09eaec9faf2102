//! Randomised input testing of the metrics lines every reader parses (`generations.jsonl`,
//! `epochs.jsonl`, `validation.jsonl` and match-series lines): mutated real lines and arbitrary
//! text must parse or be refused with a message, within time and memory bounds
//! (`../engine/tests/support/fuzz.rs`); records must read back as written, floats to within a
//! unit in the last place: serde_json's default parser (the workspace's, which its
//! `float_roundtrip` feature would change for every crate, chromosome files included) rounds one
//! float in ten of those a run writes to a neighbour (and far smaller ones further).

#[path = "../../engine/tests/support/fuzz.rs"]
mod fuzz;

use fuzz::{Decoder, inputs};
use loa_records::jsonl::{self, JsonLines};
use loa_records::{EpochReport, GenerationRecord, MatchLine, ValidationRecord};
use proptest::prelude::*;
use serde::de::DeserializeOwned;
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Up to `n` lines at a time of the file at `path` (from the repository root), as seeds.
fn chunks(path: &str, n: usize) -> Vec<Vec<u8>> {
    let text = std::fs::read_to_string(repo().join(path)).expect("the test data");
    let lines: Vec<&str> = text.lines().collect();
    lines.chunks(n).take(8).map(|c| (c.join("\n") + "\n").into_bytes()).collect()
}

/// Every line of JSON text: objects, arrays, strings, numbers.
const JSON_TEXT: &str =
    "(\\{(\"[a-z_]{1,10}\":([0-9.eE+-]{1,12}|\"[a-z:]{0,8}\"|null|true|\\[\\]|\\{\\}),?){0,6}\\}?\n?){0,3}";

fn parse<T: DeserializeOwned>(bytes: &[u8]) -> Result<(), String> {
    jsonl::parse::<T>(bytes, Path::new("fuzzed.jsonl")).map(drop).map_err(|e| fuzz::message(&e))
}

#[test]
fn generation_lines() {
    let seeds = chunks("analysis/tests/data/quick/generations.jsonl", 2);
    Decoder::new("records: generations.jsonl").check(inputs(seeds, JSON_TEXT), parse::<GenerationRecord>);
}

#[test]
fn epoch_lines() {
    let seeds = chunks("analysis/tests/data/quick/epochs.jsonl", 2);
    Decoder::new("records: epochs.jsonl").check(inputs(seeds, JSON_TEXT), parse::<EpochReport>);
}

fn validation_line(epoch: u32, wins: u32, losses: u32, ties: u32, seconds: f64) -> ValidationRecord {
    let matches = wins + losses + ties;
    let rate = if matches == 0 { 0.0 } else { f64::from(wins) / f64::from(matches) };
    ValidationRecord {
        epoch,
        generation: u64::from(epoch) * 5,
        serial: 40 + u64::from(epoch),
        opponent: "aloa:3".into(),
        matches,
        wins,
        losses,
        ties,
        win_rate: rate,
        win_rate_low: rate / 2.0,
        win_rate_high: rate.midpoint(1.0),
        cpu_seconds: seconds,
        wall_seconds: seconds / 2.0,
    }
}

#[test]
fn validation_lines() {
    let lines: Vec<String> =
        (1..4).map(|e| jsonl::line(&validation_line(e, 3 * e, 2, 1, 1.5 * f64::from(e))).expect("a line")).collect();
    let seeds = vec![lines.join("\n").into_bytes(), lines[0].clone().into_bytes()];
    Decoder::new("records: validation.jsonl").check(inputs(seeds, JSON_TEXT), parse::<ValidationRecord>);
}

#[test]
fn match_series_lines() {
    let mut seeds = chunks("experiments/results/e2.jsonl", 2);
    seeds.extend(chunks("analysis/tests/data/rh-aloa-40.jsonl", 2));
    Decoder::new("records: match series jsonl").check(inputs(seeds, JSON_TEXT), parse::<MatchLine>);
}

/// `records` written as lines and parsed back.
fn read_back<T: serde::Serialize + DeserializeOwned>(records: &[T]) -> Result<Vec<T>, TestCaseError> {
    let text: String = records.iter().map(|r| jsonl::line(r).expect("a line") + "\n").collect();
    let JsonLines { records, torn } =
        jsonl::parse::<T>(text.as_bytes(), Path::new("x")).map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert_eq!(torn, None);
    Ok(records)
}

/// Whether `back` is `x` or one of its two neighbours.
fn near(back: f64, x: f64) -> bool {
    back == x || back.to_bits().abs_diff(x.to_bits()) == 1
}

/// Whether two values are equal but for floats a unit in the last place apart.
fn same(a: &serde_json::Value, b: &serde_json::Value) -> bool {
    use serde_json::Value;
    match (a, b) {
        (Value::Number(x), Value::Number(y)) if x.is_f64() || y.is_f64() => {
            x.as_f64().zip(y.as_f64()).is_some_and(|(x, y)| near(x, y))
        }
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y)),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

/// Asserts `records` read back as written (floats to within a unit in the last place).
fn reads_back<T: serde::Serialize + DeserializeOwned + std::fmt::Debug>(records: &[T]) -> Result<(), TestCaseError> {
    let back = read_back(records)?;
    let value = |r: &[T]| serde_json::to_value(r).expect("records serialise");
    prop_assert!(same(&value(&back), &value(records)), "{:?}\nread back as\n{:?}", records, back);
    Ok(())
}

#[test]
fn validation_records_read_back_as_written() {
    let record = (any::<u32>(), 0..1000u32, 0..1000u32, 0..1000u32, 0.0..1e9f64)
        .prop_map(|(epoch, w, l, t, s)| validation_line(epoch, w, l, t, s));
    Decoder::new("records: validation round trip")
        .round_trip(proptest::collection::vec(record, 0..8), |records| reads_back(&records));
}

#[test]
fn generation_records_read_back_as_written() {
    let text = std::fs::read(repo().join("analysis/tests/data/quick/generations.jsonl")).expect("the test data");
    let seeds = jsonl::parse::<GenerationRecord>(&text, Path::new("seed")).expect("parses").records;
    let change = (any::<prop::sample::Index>(), any::<u64>(), any::<u32>(), any::<u32>(), 0.0..1e7f64);
    Decoder::new("records: generations round trip").round_trip(
        change,
        move |(i, generation, epoch, games, seconds)| {
            let mut record = seeds[i.index(seeds.len())].clone();
            record.generation = generation;
            record.epoch = epoch;
            record.games = games;
            record.seconds = seconds;
            record.mean_plies = seconds / 3.0;
            reads_back(&[record])
        },
    );
}
