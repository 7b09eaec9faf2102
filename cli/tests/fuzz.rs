//! Randomised input testing of what `loa` reads from its users: engine-protocol lines (from a
//! GUI or a person on stdin) and player specs. Mutated valid lines and arbitrary text must parse
//! or be refused with a message, within time and memory bounds (`../engine/tests/support/fuzz.rs`).

#[path = "../../engine/tests/support/fuzz.rs"]
mod fuzz;

use fuzz::{Decoder, inputs};
use loa_cli::engine::command::parse;
use loa_engine::START_TEXT;
use loa_engine::spec::{Accepts, PlayerSpec};

fn seeds(lines: &[&str]) -> Vec<Vec<u8>> {
    lines.iter().map(|l| l.as_bytes().to_vec()).collect()
}

#[test]
fn engine_protocol_lines() {
    let fen = format!("position fen {START_TEXT} moves b1-b3 h2-f2");
    let seeds = seeds(&[
        "uci",
        "isready",
        "ucinewgame",
        "quit",
        "stop",
        "setoption name Player value random:2:3",
        "setoption name Seed value 17",
        "setoption name Colour value black",
        "position startpos moves b1-b3 h2-f2 c1xc3",
        &fen,
        "go movetime 50",
        "go depth 3",
        "go",
    ]);
    let words = "(uci|go|position|setoption|name|value|startpos|fen|moves|depth|movetime|[a-h][1-8][-x][a-h][1-8]|[bw./]{1,20}|[0-9]{1,22}| )*";
    Decoder::new("cli: engine protocol line").check(inputs(seeds, words), |bytes| {
        parse(&String::from_utf8_lossy(bytes)).map(drop).map_err(|e| fuzz::message(&e))
    });
}

#[test]
fn player_specs() {
    let seeds =
        seeds(&["aloa:3", "aloa-normal:2", "random:2:7", "randomann:3:9", "randomann:1", "net:2:/no/such.json"]);
    Decoder::new("cli: player spec").check(inputs(seeds, "[a-z\\-]{0,12}(:[0-9a-z/.]{0,22}){0,3}"), |bytes| {
        PlayerSpec::parse_in(&String::from_utf8_lossy(bytes), Accepts::Playable)
            .map(drop)
            .map_err(|e| fuzz::message(&e))
    });
}
