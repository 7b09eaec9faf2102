//! Evaluation speed of ALoA, for `loa bench`.

use super::{Figure, sample_positions};
use loa_engine::Color;
use loa_engine::aloa::Aloa;
use std::hint::black_box;
use std::time::{Duration, Instant};

/// Evaluations per second of both kinds over 100 000 playout positions, best of `repeats`.
pub fn aloa_figures(repeats: u32) -> Vec<Figure> {
    let positions = sample_positions(100_000, 11);
    let n = positions.len() as f64;
    let mut figures = Vec::new();
    for (name, evaluator) in [("ALoA quad evaluator", Aloa::quad()), ("ALoA normal evaluator", Aloa::normal())] {
        let mut best = Duration::MAX;
        let mut checksum = 0f64;
        for _ in 0..repeats.max(1) {
            let start = Instant::now();
            let mut sum = 0f32;
            for (i, pos) in positions.iter().enumerate() {
                let pov = if i % 2 == 0 { Color::Black } else { Color::White };
                sum += evaluator.score(black_box(pos), black_box(pov)) as f32;
            }
            best = best.min(start.elapsed());
            checksum = f64::from(black_box(sum));
        }
        figures.push(Figure {
            name: name.to_string(),
            per_second: n / best.as_secs_f64(),
            unit: "evals/s",
            detail: format!("{:.1} ns each, checksum {checksum}", best.as_secs_f64() * 1e9 / n),
        });
    }
    figures
}
