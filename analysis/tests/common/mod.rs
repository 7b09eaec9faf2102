//! A small synthetic run and match series, written through loa-records as the master and
//! `loa match --out` write them.

#![allow(dead_code)]

use loa_records::{
    BenchmarkEntry, Color, Criterion, EndReason, EpochReport, GameSummary, GenerationRecord, MatchGameRecord,
    MatchLine, MatchSide, MatchSummary, Outcome, TournamentRecord, jsonl,
};
use std::path::Path;

/// A game of `plies` plies won by `winner` (or a tie at the cap).
pub fn game(winner: Option<Color>, plies: u32) -> GameSummary {
    match winner {
        Some(c) => GameSummary { outcome: Outcome::Win(c), reason: EndReason::Connected, plies },
        None => GameSummary { outcome: Outcome::Draw, reason: EndReason::PlyCap, plies: 100 },
    }
}

/// A benchmark entry: the network loses both games in `b` and `w` plies, except every 7th
/// network, which wins as Black.
pub fn entry(serial: u64, b: u32, w: u32) -> BenchmarkEntry {
    let g0 = if serial.is_multiple_of(7) { game(Some(Color::Black), b) } else { game(Some(Color::White), b) };
    let g1 = if serial.is_multiple_of(11) { game(None, 100) } else { game(Some(Color::Black), w) };
    let games = [g0, g1];
    BenchmarkEntry::new(serial, [g0.score(Color::Black), g1.score(Color::White)], games)
}

/// Writes a run of `epochs + 1` epoch reports (6 survivors each) and 2 generations per epoch
/// into `dir`, with a `config.toml`.
pub fn write_run(dir: &Path, epochs: u32) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(
        dir.join("config.toml"),
        "seed = 1\nepochs = 3\npopulation = 6\ngenerations_per_epoch = 2\nnetwork_depth = 3\n\n[benchmark]\nreference = \"aloa\"\ndepth = 5\n\n[rules]\nply_cap = 100\n",
    )
    .unwrap();
    for e in 0..=epochs {
        let entries = (0..6u64)
            .map(|i| {
                let serial = u64::from(e) * 100 + i;
                entry(serial, 20 + (e * 3 + i as u32 * 5) % 30, 18 + (e * 7 + i as u32 * 3) % 25)
            })
            .collect();
        jsonl::append_line(&dir.join("epochs.jsonl"), &EpochReport::new(e, u64::from(e) * 2, entries)).unwrap();
    }
    for g in 1..=u64::from(epochs) * 2 {
        let m = MatchSummary {
            a: 0,
            b: 1,
            winner: MatchSide::A,
            criterion: Criterion::WonBoth,
            games: [game(Some(Color::Black), 40 + g as u32), game(None, 100)],
        };
        let t = TournamentRecord { serials: [0, 1, 2, 3], winner: 0, matches: [m; 3] };
        let record = GenerationRecord {
            generation: g,
            epoch: g.div_ceil(2) as u32,
            tournaments: vec![t; 6],
            survivors_kept: (g % 4) as u32,
            games: 36,
            mean_plies: 70.0 + g as f64,
            seconds: 1.5,
            games_per_second: 24.0 + g as f64,
            workers: 2,
            worker_detail: Vec::new(),
            figures: None,
        };
        jsonl::append_line(&dir.join("generations.jsonl"), &record).unwrap();
    }
}

/// Writes a `loa match --out` file of `pairs` pairs between `first` and `second`, where the
/// first player wins game `i` when `wins(i)`.
pub fn write_matches(path: &Path, first: &str, second: &str, pairs: u64, wins: &dyn Fn(u64) -> bool) {
    let mut lines = Vec::new();
    for p in 0..pairs {
        for g in 0..2u32 {
            let i = 2 * p + u64::from(g);
            let first_color = if g == 0 { Color::Black } else { Color::White };
            let plies = 30 + (i % 17) as u32;
            let winner = if wins(i) { first_color } else { first_color.opponent() };
            let summary = game(Some(winner), plies);
            let (black, white) = if g == 0 { (first, second) } else { (second, first) };
            lines.push(MatchLine::Game(MatchGameRecord {
                pair: p,
                game: g,
                black: black.into(),
                white: white.into(),
                first_color,
                outcome: summary.outcome,
                reason: summary.reason,
                plies,
                black_score: summary.score(Color::Black),
                white_score: summary.score(Color::White),
                seed: i,
                start: "start".into(),
                moves: Vec::new(),
            }));
        }
    }
    jsonl::write_lines(path, &lines).unwrap();
}

/// Checks that `path` is a decodable PNG of at least `min_bytes` bytes with dark pixels (text)
/// in its title band and several colours; returns its size.
pub fn check_png(path: &Path, min_bytes: u64) -> (u32, u32) {
    let bytes = std::fs::read(path).unwrap();
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "{path:?} is not a PNG");
    assert!(bytes.len() as u64 >= min_bytes, "{path:?} is only {} bytes", bytes.len());
    let img = image::load_from_memory_with_format(&bytes, image::ImageFormat::Png).unwrap().to_rgb8();
    let (w, h) = img.dimensions();
    let dark_in_title = (0..w)
        .flat_map(|x| (0..45).map(move |y| (x, y)))
        .filter(|&(x, y)| img.get_pixel(x, y).0.iter().all(|&c| c < 100))
        .count();
    assert!(dark_in_title > 200, "{path:?}: no title text drawn ({dark_in_title} dark pixels)");
    let mut colours: Vec<[u8; 3]> = img.pixels().map(|p| p.0).collect();
    colours.sort_unstable();
    colours.dedup();
    assert!(colours.len() > 20, "{path:?}: only {} colours", colours.len());
    (w, h)
}

/// Checks that `path` is an SVG with text elements containing `needle`.
pub fn check_svg(path: &Path, needle: &str) {
    let text = std::fs::read_to_string(path).unwrap();
    assert!(text.starts_with("<svg") || text.contains("<svg"), "{path:?} is not SVG");
    assert!(text.contains("<text") && text.contains(needle), "{path:?}: no text `{needle}`");
    assert!(text.trim_end().ends_with("</svg>"), "{path:?} is cut off");
}
