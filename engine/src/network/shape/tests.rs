use super::*;

fn shape(name: &str) -> Topology {
    name.parse().unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn error(name: &str) -> ShapeError {
    name.parse::<Topology>().expect_err(name)
}

#[test]
fn input_counts_follow_the_definition_on_every_board() {
    // (side, N², (N − 2)²) written out: the issue's 36 nonads on 8×8, 16 on 6×6, 9 on 5×5.
    for (side, cells, nonads) in [(5, 25, 9), (6, 36, 16), (7, 49, 25), (8, 64, 36)] {
        let all = Inputs { pieces: true, quads: true, euler: true, ..Inputs::THESIS };
        let t = Topology::new(side, all, &[20]).unwrap();
        assert_eq!((t.board_input_count(), t.nonad_input_count(), t.feature_input_count()), (cells, nonads, 10));
        assert_eq!(t.input_count(), cells + nonads + 10);
        let board_only = Topology::new(side, Inputs::BOARD, &[20]).unwrap();
        assert_eq!(board_only.input_count(), cells);
    }
}

#[test]
fn weight_counts_and_layout_by_hand() {
    assert_eq!(Topology::THESIS.weight_count(), 2041);
    // 5×5 board alone, 12 hidden: 25·12 + 12 biases + 12 output weights + 1.
    let small = shape("5x5-board-25-12-1");
    assert_eq!(small.weight_count(), 25 * 12 + 12 + 12 + 1);
    // Two layers: 100·32 + 32, then 32·16 + 16, then 16 + 1.
    let deep = shape("board-nonad-100-32-16-1");
    assert_eq!(deep.weight_count(), 3232 + 528 + 17);
    assert_eq!(deep.input_weight_index(1, 0), 100);
    assert_eq!(deep.hidden_bias_index(0), 3200);
    assert_eq!(deep.layer_weight_index(1, 0, 0), 3232);
    assert_eq!(deep.layer_weight_index(1, 2, 5), 3232 + 64 + 5);
    assert_eq!(deep.layer_bias_index(1, 15), 3232 + 512 + 15);
    assert_eq!(deep.output_weight_index(0), 3760);
    assert_eq!(deep.output_bias_index(), 3776);
    // One layer: the thesis's indices (docs/spec.md §3).
    let t = Topology::THESIS;
    assert_eq!((t.layer_weight_index(1, 0, 19), t.layer_bias_index(1, 0)), (2039, 2040));
}

#[test]
fn names_round_trip() {
    assert_eq!(Topology::THESIS.to_string(), "board-nonad-100-20-1");
    assert_eq!(shape("board-nonad-100-20-1"), Topology::THESIS);
    assert_eq!(Topology::from_name("board-nonad-100-20-1"), Some(Topology::default()));
    let small = shape("5x5-board-25-12-1");
    assert_eq!((small.side(), small.inputs(), small.hidden().collect::<Vec<_>>()), (5, Inputs::BOARD, vec![12]));
    for name in [
        "5x5-board-25-12-1",
        "6x6-nonad-16-40-1",
        "7x7-board-printed-nonad-74-32-16-1",
        "board-printed-nonad-100-20-1",
        "pieces-quads-euler-10-4-4-4-1",
        "6x6-board-nonad-pieces-quads-euler-62-64-1",
    ] {
        assert_eq!(shape(name).to_string(), name);
    }
}

#[test]
fn bad_names_say_what_is_wrong() {
    let name = |s: &str| s.to_string();
    assert_eq!(
        error("board-nonad-99-20-1"),
        ShapeError::NameInputCount { name: name("board-nonad-99-20-1"), written: 99, actual: 100 }
    );
    assert_eq!(
        error("8x8-board-nonad-100-20-1"),
        ShapeError::NotCanonical { name: name("8x8-board-nonad-100-20-1"), canonical: name("board-nonad-100-20-1") }
    );
    assert_eq!(error("nonad-board-100-20-1"), ShapeError::NameOrder { name: name("nonad-board-100-20-1") });
    assert_eq!(error("board-board-128-20-1"), ShapeError::NameOrder { name: name("board-board-128-20-1") });
    assert_eq!(error("board-nonad-100-1"), ShapeError::LayerCount { count: 0 });
    assert_eq!(error("board-nonad-100-20-2"), ShapeError::NameLayers { name: name("board-nonad-100-20-2") });
    assert_eq!(error("board-nonad"), ShapeError::NameLayers { name: name("board-nonad") });
    assert_eq!(error("9x9-board-81-20-1"), ShapeError::BoardSide { side: 9 });
    assert_eq!(error("4x4-board-16-20-1"), ShapeError::BoardSide { side: 4 });
    assert_eq!(error("board-nonad-100-65-1"), ShapeError::LayerSize { layer: 0, units: 65 });
    assert_eq!(error("board-nonad-100-8-0-1"), ShapeError::LayerSize { layer: 1, units: 0 });
    assert_eq!(error("board-nonad-100-9-9-9-9-1"), ShapeError::LayerCount { count: 4 });
    assert_eq!(error("printed-nonad-36-20-1"), ShapeError::PrintedWithoutBoard);
    assert_eq!(error("20-1"), ShapeError::NoInputs);
    assert!(matches!(error("5x6-board-30-12-1"), ShapeError::NameToken { token, .. } if token == "5x6"));
    assert!(matches!(error("rows-16-20-1"), ShapeError::NameToken { token, .. } if token == "rows"));
    assert!(matches!(error("board-64-2a-1"), ShapeError::NameToken { token, .. } if token == "2a"));
    assert!(matches!(error("board-64-+2-1"), ShapeError::NameToken { token, .. } if token == "+2"));
    let message = error("board-nonad-99-20-1").to_string();
    assert!(message.contains("board-nonad-99-20-1") && message.contains("write 100"), "{message}");
}

#[test]
fn thesis_layout_is_the_fast_networks() {
    assert!(Topology::THESIS.is_thesis_layout());
    assert!(shape("board-printed-nonad-100-20-1").is_thesis_layout());
    for other in ["board-nonad-100-21-1", "7x7-board-nonad-74-20-1", "board-nonad-pieces-102-20-1", "board-64-20-1"] {
        assert!(!shape(other).is_thesis_layout(), "{other}");
    }
}

#[test]
fn tables_and_names_read_through_serde() {
    let read = |json: &str| serde_json::from_str::<Topology>(json);
    assert_eq!(read("{}").unwrap(), Topology::THESIS);
    assert_eq!(read(r#"{"board_side": 5, "inputs": ["board"], "hidden": [12]}"#).unwrap(), shape("5x5-board-25-12-1"));
    assert_eq!(
        read(r#"{"inputs": ["nonad", "board", "euler"], "encoding": "printed", "hidden": [32, 16]}"#).unwrap(),
        shape("board-printed-nonad-euler-102-32-16-1")
    );
    assert_eq!(read(r#""5x5-board-25-12-1""#).unwrap(), shape("5x5-board-25-12-1"));
    assert_eq!(serde_json::to_string(&Topology::THESIS).unwrap(), r#""board-nonad-100-20-1""#);
    let message = |json: &str| read(json).unwrap_err().to_string();
    assert!(message(r#"{"layers": [20]}"#).contains("unknown field `layers`"), "{}", message(r#"{"layers": [20]}"#));
    assert!(message(r#"{"board_side": 9}"#).contains("board_side 9"));
    assert!(message(r#"{"board_side": 300}"#).contains("board_side 300"));
    assert!(message(r#"{"hidden": []}"#).starts_with("hidden: 0 hidden layers"));
    assert!(message(r#"{"hidden": [20, 100]}"#).starts_with("hidden: layer 2 has 100 units"));
    assert!(message(r#"{"inputs": []}"#).starts_with("inputs: "));
    assert!(message(r#"{"inputs": ["rows"]}"#).contains("unknown variant `rows`"));
    assert!(message(r#"{"encoding": "blind"}"#).contains("unknown variant `blind`"));
    assert!(message(r#""board-nonad-99-20-1""#).contains("write 100"));
}

#[test]
fn every_name_fits_the_wire_bound_of_64_bytes() {
    // `MatchTask::wire_size_bound` counts a shape's name at 64 bytes: the longest names have
    // every input and three layers of 64 units, on each board side.
    let all = Inputs { encoding: Encoding::Printed, pieces: true, quads: true, euler: true, ..Inputs::THESIS };
    for side in MIN_SIDE..=MAX_SIDE {
        let name = Topology::new(side, all, &[MAX_UNITS; MAX_LAYERS]).unwrap().to_string();
        assert!(name.len() <= 64, "{name}: {} bytes", name.len());
    }
}
