//! Which openings of a measuring series a TD run also trained from, by chance.
//!
//! TD's game `g` of seed `T` starts from `random_opening(plies, derive_seed(derive_seed(T, g),
//! OPENING_SEED_LABEL))`, and so do a validation's opening `j` (seed 35) and `loa match --seed S`'s
//! pair `j`. Different seeds do not keep them apart: there are few distinct 4-ply positions.
//!
//! ```sh
//! cargo run --release -p loa-engine --example opening_overlap -- TRAIN_SEED GAMES SERIES_SEED PAIRS [PLIES]
//! ```
//!
//! prints a summary on standard error and, on standard output, each series pair whose opening
//! the run's first `GAMES` training games met (one index a line), so a `loa match --out` record
//! can be split by it.

use loa_engine::openings::random_opening;
use loa_engine::random::derive_seed;
use loa_engine::tasks::OPENING_SEED_LABEL;
use loa_engine::{Position, Rules};
use std::collections::HashSet;
use std::process::ExitCode;

fn opening(seed: u64, index: u64, plies: u32, rules: &Rules) -> Position {
    random_opening(plies, derive_seed(derive_seed(seed, index), OPENING_SEED_LABEL), rules)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let numbers: Result<Vec<u64>, _> = args.iter().map(|a| a.parse::<u64>()).collect();
    let (train, games, series, pairs, plies) = match numbers.as_deref() {
        Ok([t, g, s, p]) => (*t, *g, *s, *p, 4),
        Ok([t, g, s, p, o]) if *o <= 40 => (*t, *g, *s, *p, *o as u32),
        _ => {
            eprintln!("usage: opening_overlap TRAIN_SEED GAMES SERIES_SEED PAIRS [PLIES, at most 40; default 4]");
            return ExitCode::from(2);
        }
    };
    let rules = Rules::default();
    let trained: HashSet<Position> = (0..games).map(|g| opening(train, g, plies, &rules)).collect();
    let mut met = 0u64;
    for pair in 0..pairs {
        if trained.contains(&opening(series, pair, plies, &rules)) {
            met += 1;
            println!("{pair}");
        }
    }
    eprintln!(
        "seed {train}'s first {games} training games start from {} distinct {plies}-ply openings; \
         {met} of the {pairs} openings of series seed {series} are among them",
        trained.len()
    );
    ExitCode::SUCCESS
}
