//! Randomised input testing of the engine's decoders: position text, move text (with and
//! without a position), chromosome JSON and player specs. Mutated valid inputs and arbitrary ones
//! must decode or be refused with a message, within time and memory bounds (see
//! `support/fuzz.rs`); valid values must read back as written.

#[path = "support/fuzz.rs"]
mod fuzz;

use fuzz::{Decoder, inputs};
use loa_engine::network::{Chromosome, Topology};
use loa_engine::openings::sample_positions;
use loa_engine::spec::PlayerSpec;
use loa_engine::tasks::FixedPlayer;
use loa_engine::{Move, Position, START_TEXT};
use proptest::prelude::*;

/// Positions from random playouts, the start among them.
fn positions() -> Vec<Position> {
    let mut all = vec![START_TEXT.parse().expect("the start position parses")];
    all.extend(sample_positions(40, 7));
    all
}

fn text_seeds<T: ToString>(items: impl IntoIterator<Item = T>) -> Vec<Vec<u8>> {
    items.into_iter().map(|i| i.to_string().into_bytes()).collect()
}

#[test]
fn position_text() {
    Decoder::new("engine: position text").check(inputs(text_seeds(positions()), "[bw./ \t\n1-9a-z]{0,80}"), |bytes| {
        String::from_utf8_lossy(bytes).parse::<Position>().map(drop).map_err(|e| fuzz::message(&e))
    });
}

#[test]
fn positions_read_back_as_written() {
    Decoder::new("engine: position text round trip").round_trip((0..u64::MAX, 0..60usize), |(seed, at)| {
        let all = sample_positions(at + 1, seed);
        let position = all[at];
        let text = position.to_string();
        prop_assert_eq!(text.parse::<Position>().map_err(|e| fuzz::message(&e)), Ok(position));
        Ok(())
    });
}

#[test]
fn move_text() {
    let positions = positions();
    let moves: Vec<String> =
        positions.iter().flat_map(|p| p.legal_moves().as_slice().to_vec()).map(|m| m.to_string()).collect();
    let mut seeds = text_seeds(moves);
    seeds.push(b"pass".to_vec());
    Decoder::new("engine: move text").check(inputs(seeds, "[a-i0-9x\\- ]{0,8}|pass|PASS"), |bytes| {
        let text = String::from_utf8_lossy(bytes);
        // Without a position, then against a few: each must parse or say why.
        let _: Option<Move> = match text.parse::<Move>() {
            Ok(m) => Some(m),
            Err(why) if why.is_empty() => return Err(String::new()),
            Err(_) => None,
        };
        for position in positions.iter().take(4) {
            if let Err(why) = position.parse_move(&text) {
                let why = why.to_string();
                if why.trim().is_empty() {
                    return Err(why);
                }
            }
        }
        Ok(())
    });
}

#[test]
fn legal_moves_read_back_as_written() {
    Decoder::new("engine: move text round trip").round_trip(
        (0..u64::MAX, 0..60usize, any::<prop::sample::Index>()),
        |(seed, at, i)| {
            let position = sample_positions(at + 1, seed)[at];
            let moves = position.legal_moves();
            prop_assume!(!moves.as_slice().is_empty());
            let mv = moves.as_slice()[i.index(moves.as_slice().len())];
            let text = mv.to_string();
            prop_assert_eq!(text.parse::<Move>(), Ok(mv));
            prop_assert_eq!(position.parse_move(&text).map_err(|e| fuzz::message(&e)), Ok(mv));
            Ok(())
        },
    );
}

/// Shapes the chromosome decoders are fuzzed with: the thesis's, a small one and a deep one with
/// every input.
fn shapes() -> Vec<Topology> {
    ["board-nonad-100-20-1", "5x5-board-25-12-1", "6x6-board-printed-nonad-pieces-quads-euler-62-32-16-1"]
        .map(|name| name.parse().unwrap())
        .to_vec()
}

/// Chromosomes of those shapes with weights from a fixed generator.
fn chromosomes() -> Vec<Chromosome> {
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        state
    };
    shapes().into_iter().map(|t| Chromosome::random(t, &mut next)).collect()
}

#[test]
fn chromosome_json() {
    let seeds: Vec<Vec<u8>> = chromosomes().iter().map(|c| c.to_json().into_bytes()).collect();
    let short = "\\{\"topology\": \"board-nonad-100-20-1\", \"weights\": \\[[0-9eE., -]{0,60}\\]\\}";
    Decoder::new("engine: chromosome json").check(inputs(seeds, short), |bytes| {
        Chromosome::from_json(&String::from_utf8_lossy(bytes)).map(drop).map_err(|e| fuzz::message(&e))
    });
}

#[test]
fn chromosomes_read_back_as_written() {
    let topologies = shapes();
    Decoder::new("engine: chromosome json round trip").round_trip(
        (any::<prop::sample::Index>(), any::<u64>()),
        move |(t, seed)| {
            let mut state = seed;
            let next = move || {
                state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                state
            };
            let chromosome = Chromosome::random(topologies[t.index(topologies.len())], next);
            let back = Chromosome::from_json(&chromosome.to_json()).map_err(|e| fuzz::message(&e));
            prop_assert!(back.as_ref() == Ok(&chromosome), "the chromosome read back differs");
            Ok(())
        },
    );
}

#[test]
fn network_shape_names() {
    let seeds = text_seeds(shapes());
    let names = "([5-9]x[0-9]-)?((board|printed|nonad|pieces|quads|euler|x)-){0,4}([0-9]{1,3}-){0,4}[0-9]{0,20}";
    Decoder::new("engine: network shape name").check(inputs(seeds, names), |bytes| {
        let text = String::from_utf8_lossy(bytes);
        let shape = text.parse::<Topology>().map_err(|e| fuzz::message(&e))?;
        assert_eq!(shape.to_string(), text, "a name that parses is the shape's one spelling");
        Ok(())
    });
}

#[test]
fn player_specs() {
    let seeds = text_seeds([
        "aloa:3",
        "aloa-normal:2",
        "random:2:7",
        "randomann:3:9",
        "randomann-printed:2",
        "net:2:a.json",
        "run:3:x",
    ]);
    Decoder::new("engine: player spec").check(inputs(seeds, "[a-z\\-]{0,12}(:[0-9]{0,22}){0,3}"), |bytes| {
        let text = String::from_utf8_lossy(bytes);
        let spec = text.parse::<PlayerSpec>().map_err(|e| fuzz::message(&e))?;
        // What is written parses back to the same spec.
        assert_eq!(spec.to_string().parse::<PlayerSpec>().ok().as_ref(), Some(&spec), "{text}");
        text.parse::<FixedPlayer>().map(drop).map_err(|e| fuzz::message(&e))
    });
}
