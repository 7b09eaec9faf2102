//! Checkpoints written and read back, bad ones refused by name, and the clock of runs that
//! validate.

use super::*;
use crate::config::SchemeConfig;
use crate::generation::initial_population;
use crate::selection::{SchemeState, evolution_strategies};
use loa_engine::network::Topology;

/// A state at generation 0 of a run whose `[selection]` is `selection`, on 2 individuals.
fn state(selection: &str) -> RunState {
    let text = format!("population = 2\n{selection}");
    let config = selection::normalized(&ExperimentConfig::from_toml(&text).unwrap()).unwrap();
    let (mut rng, mut serials) = (GaRng::from_seed(4), SerialCounter::default());
    let population = initial_population(&config, Topology::default(), &mut rng, &mut serials).unwrap();
    let scheme_state = selection::build(&config).unwrap().save().unwrap();
    RunState {
        config,
        generation: 0,
        epoch: 0,
        serials,
        rng,
        population: population.iter().cloned().map(StoredIndividual::from).collect(),
        epochs: Vec::new(),
        scheme_state,
        clock: RunClock::default(),
    }
}

/// `payload` under a header of format `version`.
fn rewrap(version: u32, payload: &[u8]) -> Vec<u8> {
    let mut out = MAGIC.to_vec();
    out.extend_from_slice(&version.to_le_bytes());
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(&crc32fast::hash(payload).to_le_bytes());
    out.extend_from_slice(payload);
    out
}

const ES_ADAM: &str = "[selection.scheme.evolution-strategies]\nopponents = 1\noptimizer = \"adam\"\n\
                       hall_of_fame = 1\nladder = [\"random:1\", \"aloa:1\"]\n";

#[test]
fn every_scheme_writes_format_7_and_reads_it_back() {
    let mu = "[selection.scheme.mu-plus-lambda]\nopponents = 2\n";
    for selection in ["", mu, ES_ADAM] {
        let s = state(selection);
        let bytes = s.encode().unwrap();
        assert_eq!(bytes[8..12], 7u32.to_le_bytes(), "{selection}");
        assert_eq!(RunState::decode(&bytes, Path::new("x")).unwrap(), s, "{selection}");
    }
}

#[test]
fn the_config_is_kept_as_its_toml_text_and_the_scheme_state_as_tagged_bytes() {
    let mut s = state(ES_ADAM);
    let mut scheme = evolution_strategies::State::load(&s.scheme_state).unwrap();
    let gradient: Vec<f64> = (0..2041).map(|i| f64::from(i) - 1000.0).collect();
    scheme.adam.step(&gradient, 0.01).unwrap();
    scheme.judged.rung = 1;
    s.scheme_state = scheme.save().unwrap();
    let bytes = s.encode().unwrap();
    let ((config, layout), used): ((String, u32), usize) = codec::decode_prefix(&bytes[HEADER..]).unwrap();
    assert_eq!((ExperimentConfig::from_toml(&config).unwrap(), layout), (s.config.clone(), 1));
    assert!(config.contains("[selection.scheme.evolution-strategies]") && config.contains("optimizer = \"adam\""));
    let stored: Stored = codec::decode(&bytes[HEADER + used..]).unwrap();
    assert_eq!((stored.scheme.as_str(), &stored.scheme_state), ("evolution-strategies", &s.scheme_state));
    let back = RunState::decode(&bytes, Path::new("x")).unwrap();
    assert_eq!(evolution_strategies::State::load(&back.scheme_state).unwrap(), scheme);
}

#[test]
fn bad_states_are_refused_naming_the_file_and_the_problem() {
    let named = |s: &RunState, file: &str| {
        let err = RunState::decode(&s.encode().unwrap(), Path::new(file)).unwrap_err().to_string();
        assert!(err.contains(file), "{err}");
        err
    };
    // A knockout population of another size than configured: breeding one survivor found
    // no partner for its child.
    for keep in [0, 1] {
        let mut s = state("");
        s.population.truncate(keep);
        let err = named(&s, "size.ckpt");
        assert!(err.contains(&format!("population of {keep} individuals")), "{err}");
    }
    // A scheme's state under another scheme's configuration.
    let mut s = state("");
    s.config.selection.scheme = state(ES_ADAM).config.selection.scheme;
    s.scheme_state = state(ES_ADAM).scheme_state;
    let mut bytes = s.encode().unwrap();
    let mut knockout = state("");
    knockout.scheme_state = s.scheme_state.clone();
    assert!(named(&knockout, "tail.ckpt").contains("does not decode"));
    // Tag the ES state as the knockout's.
    let text = toml::to_string(&s.config).unwrap();
    let stored = Stored { scheme: "knockout".into(), ..decode_payload(&bytes[HEADER..], Path::new("x")).unwrap().1 };
    let payload = codec::encode(&(text, STATE_LAYOUT, stored)).unwrap();
    let err = RunState::decode(&rewrap(7, &payload), Path::new("tag.ckpt")).unwrap_err().to_string();
    assert!(err.contains("the state of scheme `knockout` for a run of scheme `evolution-strategies`"), "{err}");
    // Adam's moments for another network.
    let mut scheme = evolution_strategies::State::load(&s.scheme_state).unwrap();
    scheme.adam.step(&[1.0; 2040], 0.01).unwrap();
    s.scheme_state = scheme.save().unwrap();
    assert!(named(&s, "odd.ckpt").contains("2040 and 2040 moments for 2041 weights"));
    // A rung beyond the ladder.
    scheme = evolution_strategies::State::load(&state(ES_ADAM).scheme_state).unwrap();
    scheme.judged.rung = 2;
    s.scheme_state = scheme.save().unwrap();
    assert!(named(&s, "rung.ckpt").contains("ladder rung 2 of a ladder of 2 rungs"));
    // An unknown state layout, and an unknown format.
    bytes = state("").encode().unwrap();
    let ((config, _), used): ((String, u32), usize) = codec::decode_prefix(&bytes[HEADER..]).unwrap();
    let mut payload = codec::encode(&(config, 2u32)).unwrap();
    payload.extend_from_slice(&bytes[HEADER + used..]);
    let err = RunState::decode(&rewrap(7, &payload), Path::new("new.ckpt")).unwrap_err().to_string();
    assert!(err.contains("new.ckpt: state layout 2, this build reads layout 1"), "{err}");
    let err = RunState::decode(&rewrap(8, &bytes[HEADER..]), Path::new("new.ckpt")).unwrap_err().to_string();
    assert!(err.contains("format version 8, this build reads 1 to 7"), "{err}");
}

#[test]
fn only_runs_that_validate_store_their_clock_and_a_payload_without_one_reads_as_zero() {
    let clock = RunClock { cpu_seconds: 12.5, wall_seconds: 7.25 };
    // Without validation the clock is not stored: the bytes are those of a zero clock.
    let plain = RunState { clock, ..state("") };
    let bytes = plain.encode().unwrap();
    assert_eq!(bytes, state("").encode().unwrap());
    assert_eq!(RunState::decode(&bytes, Path::new("x")).unwrap().clock, RunClock::default());
    // With validation it follows the state, and reads back.
    let mut validating = RunState { clock, ..state("") };
    validating.config.validation =
        Some(crate::config::ValidationConfig { opponents: vec!["aloa:1".into()], ..Default::default() });
    let bytes = validating.encode().unwrap();
    assert_eq!(RunState::decode(&bytes, Path::new("x")).unwrap(), validating);
    // A format-7 checkpoint without the clock (as older builds wrote) reads with a zero one.
    let without = RunState { clock: RunClock::default(), ..validating.clone() };
    let cut = &bytes[HEADER..bytes.len() - codec::encode(&clock).unwrap().len()];
    assert_eq!(RunState::decode(&rewrap(7, cut), Path::new("x")).unwrap(), without);
    // Bytes after the clock are refused.
    let mut padded = bytes[HEADER..].to_vec();
    padded.push(0);
    let err = RunState::decode(&rewrap(7, &padded), Path::new("pad.ckpt")).unwrap_err().to_string();
    assert!(err.contains("pad.ckpt: cannot decode") && err.contains("left over"), "{err}");
}

#[test]
fn a_length_misread_from_a_file_is_refused_without_allocating_it() {
    // The configuration's length says 2^62 bytes (a varint of 9 bytes, tag 255).
    let mut payload = vec![255];
    payload.extend_from_slice(&(1u64 << 62).to_le_bytes());
    payload.extend_from_slice(&[0; 64]);
    let err = RunState::decode(&rewrap(7, &payload), Path::new("huge.ckpt")).unwrap_err().to_string();
    assert!(err.contains("huge.ckpt: cannot decode"), "{err}");
}

#[test]
fn an_invalid_configuration_is_refused_by_name() {
    let mut s = state("");
    s.config.seed = u64::MAX;
    let err = RunState::decode(&s.encode().unwrap(), Path::new("seed.ckpt")).unwrap_err().to_string();
    assert!(err.contains("seed.ckpt: configuration") && err.contains("seed"), "{err}");
    s.config.seed = 1;
    s.config.selection.scheme = SchemeConfig::new("no-such-scheme", toml::Table::new());
    let err = RunState::decode(&s.encode().unwrap(), Path::new("name.ckpt")).unwrap_err().to_string();
    assert!(err.contains("name.ckpt") && err.contains("unknown scheme `no-such-scheme`"), "{err}");
}
