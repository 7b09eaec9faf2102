//! Checks the hand-worked positions of `data/hand_worked.txt`: the move lists, perft(1), groups,
//! Euler numbers, connectedness and the end of the game.

use loa_engine::connect::{group_count, is_connected};
use loa_engine::perft::perft;
use loa_engine::quads::QuadCounts;
use loa_engine::{Color, Position, Rules};
use std::collections::HashMap;

fn records() -> Vec<HashMap<String, String>> {
    let text = include_str!("data/hand_worked.txt");
    let mut out = Vec::new();
    let mut current = HashMap::new();
    for line in text.lines().map(str::trim).filter(|l| !l.starts_with('#')) {
        if line.is_empty() {
            if !current.is_empty() {
                out.push(std::mem::take(&mut current));
            }
            continue;
        }
        let (key, value) = line.split_once(": ").expect("key: value");
        current.insert(key.to_string(), value.to_string());
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

fn side_summary(pos: &Position, color: Color) -> String {
    let pieces = pos.pieces(color);
    format!(
        "groups={} euler={} connected={}",
        group_count(pieces),
        QuadCounts::of(pieces).euler(),
        if is_connected(pieces) { "yes" } else { "no" }
    )
}

fn end_summary(pos: &Position) -> String {
    match pos.game_end(&Rules::default()) {
        None => "none".to_string(),
        Some(end) => {
            let who = end.outcome.winner().map_or("draw".to_string(), |c| c.to_string());
            let why = serde_json::to_string(&end.reason).unwrap().trim_matches('"').to_string();
            format!("{who} {why}")
        }
    }
}

#[test]
fn hand_worked_positions() {
    let records = records();
    assert_eq!(records.len(), 8, "every record parsed");
    for r in &records {
        let name = &r["name"];
        let pos: Position = r["position"].parse().unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(pos.to_string(), r["position"], "{name}: position text round trip");
        let moves: Vec<String> = pos.legal_moves().iter().map(|m| m.to_string()).collect();
        let expected: Vec<String> = match r["moves"].as_str() {
            "none" => vec![],
            list => list.split_whitespace().map(String::from).collect(),
        };
        assert_eq!(moves, expected, "{name}: moves");
        assert_eq!(perft(&pos, 1), expected.len() as u64, "{name}: perft 1");
        assert_eq!(side_summary(&pos, Color::Black), r["black"], "{name}: black");
        assert_eq!(side_summary(&pos, Color::White), r["white"], "{name}: white");
        assert_eq!(end_summary(&pos), r["end"], "{name}: end");
    }
}
