//! Generation lines as runs wrote them read and written again: the same text, the method's
//! figures (`fitness`) in their order, with their whole numbers, `1.0`s, nulls and groups.
//! Floats come back to within a unit in the last place: serde_json's default parser (the
//! workspace's; its `float_roundtrip` feature would change every crate's parsing, chromosome
//! files' included) reads about one float in ten of those a run writes as a neighbour, which is
//! then written as the neighbour's digits.

use loa_records::{Figure, GenerationRecord, jsonl};
use std::path::Path;

/// CMA-ES's lines (its search as a group; the generation that restarted it, with the
/// criterion's text), evolution strategies' on a ladder with the noise reported (a whole rung),
/// (μ + λ)'s with its mean step, and evolution strategies' without fixed opponents (a null).
const LINES: [&str; 5] = [
    r#"{"format":1,"generation":1,"epoch":1,"tournaments":[],"survivors_kept":0,"games":256,"mean_plies":2.0,"seconds":0.036916662,"games_per_second":6934.538122650417,"workers":2,"fitness":{"unit":"points","best":0.5,"mean":0.5,"vs_fixed":0.5,"search":{"sigma":0.2836345437327161,"lambda":128,"restarts":0}}}"#,
    r#"{"format":1,"generation":75,"epoch":1,"tournaments":[],"survivors_kept":0,"games":256,"mean_plies":2.0,"seconds":0.055053028,"games_per_second":4650.062118290751,"workers":2,"fitness":{"unit":"points","best":0.5,"mean":0.5,"vs_fixed":0.5,"search":{"sigma":0.3,"lambda":256,"restarts":1,"restart":"TolFun"}}}"#,
    r#"{"format":1,"generation":1,"epoch":1,"tournaments":[],"survivors_kept":0,"games":48,"mean_plies":35.645833333333336,"seconds":0.007879627,"games_per_second":6091.658907204617,"workers":2,"fitness":{"unit":"benchmark-score","best":159.2,"mean":112.15238095238095,"vs_fixed":112.25,"rung":0,"vs_rung":0.5833333333333334,"noise_sd":9.924285682356073,"signal_sd":35.42939707179263,"reliability":0.9215359011035212}}"#,
    r#"{"format":1,"generation":1,"epoch":1,"tournaments":[],"survivors_kept":2,"games":110,"mean_plies":38.95454545454545,"seconds":0.036733199,"games_per_second":2994.5663049929303,"workers":2,"fitness":{"unit":"benchmark-score","best":125.375,"mean":101.146875,"vs_fixed":102.625,"rung":0,"vs_rung":0.515625,"mean_step":0.051165670406448066,"noise_sd":4.454725095224127,"signal_sd":10.248923615085495,"reliability":0.8110767951083296}}"#,
    r#"{"format":1,"generation":1,"epoch":1,"tournaments":[],"survivors_kept":0,"games":16,"mean_plies":40.0,"seconds":0.001606625,"games_per_second":9958.764490780362,"workers":2,"fitness":{"unit":"points","best":0.5,"mean":0.5,"vs_fixed":null}}"#,
];

/// Whether JSON texts `a` and `b` are the same text but for floats that differ in their last
/// place; names, their order, integers, `1.0`, nulls and texts must be equal.
fn same_but_float_rounding(a: &str, b: &str) -> bool {
    let (ta, tb) = (tokens(a), tokens(b));
    let float = |t: &str| t.contains(['.', 'e', 'E']).then(|| t.parse::<f64>().ok()).flatten();
    ta.len() == tb.len()
        && ta.iter().zip(&tb).all(|(x, y)| {
            x == y || matches!((float(x), float(y)), (Some(x), Some(y)) if x.to_bits().abs_diff(y.to_bits()) <= 1)
        })
}

/// `text` cut into its numbers outside strings and the runs of other characters between them.
fn tokens(text: &str) -> Vec<String> {
    let (mut out, mut current, mut in_string, mut in_number) = (Vec::new(), String::new(), false, false);
    for c in text.chars() {
        let number_char = !in_string && (c.is_ascii_digit() || "+-.eE".contains(c));
        let starts_number = !in_string && !in_number && (c.is_ascii_digit() || c == '-');
        if (in_number && !number_char) || starts_number {
            out.push(std::mem::take(&mut current));
            in_number = starts_number;
        }
        if c == '"' {
            in_string = !in_string;
        }
        current.push(c);
    }
    out.push(current);
    out
}

#[test]
fn only_a_float_read_as_its_neighbour_passes_for_the_same_text() {
    let line = r#"{"a-b":112.15238095238095,"n":1,"x":1.0,"t":"-2"}"#;
    assert!(same_but_float_rounding(line, &line.replace("095,", "097,")));
    for other in ["112.15238095238099,", "112.2,", "1.1523809523809e2,"] {
        assert!(!same_but_float_rounding(line, &line.replace("112.15238095238095,", other)), "{other}");
    }
    for (from, to) in [(":1,", ":1.0,"), ("1.0", "1"), ("\"-2\"", "\"-3\""), ("\"n\"", "\"m\"")] {
        assert!(!same_but_float_rounding(line, &line.replace(from, to)), "{from} -> {to}");
    }
}

#[test]
fn generation_lines_read_and_written_again_are_the_same_text() {
    let text = LINES.join("\n") + "\n";
    let read = jsonl::parse::<GenerationRecord>(text.as_bytes(), Path::new("generations.jsonl")).unwrap();
    let again: Vec<String> = read.records.iter().map(|r| jsonl::line(r).unwrap()).collect();
    for (again, line) in again.iter().zip(LINES) {
        assert!(same_but_float_rounding(again, line), "{again}\n{line}");
    }
    // Their floats serde_json reads exactly: the very text, the figures' key order included
    // (a serde_json::Value would have sorted it).
    assert_eq!(again[..2], LINES[..2]);
    assert_eq!(again[4], LINES[4]);
    let figures = |i: usize| read.records[i].figures.clone().unwrap();
    assert_eq!(figures(1).text("search.restart"), Some("TolFun"));
    assert_eq!(figures(1).get("search.lambda"), Some(&Figure::Whole(256)));
    assert_eq!(figures(2).whole("rung"), Some(0));
    assert_eq!(figures(4).get("vs_fixed"), Some(&Figure::Absent));
}
