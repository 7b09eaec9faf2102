//! A TD run's held-out validation, scored as a master run's (`master/src/run/validation.rs`):
//! opening `j` has the seed `derive_seed(seed, j)` and is played twice, the network A in the
//! first match and B in the second; criterion 4 (equal lengths or two draws) is a tie. On the
//! standard 8×8 start the openings are those of a master run's validation with the same seed,
//! so the two kinds of run are measured on the same games.

use super::config::{TdConfig, TdValidation};
use loa_engine::game::{Criterion, MatchSide, Player, play_match};
use loa_engine::network::Chromosome;
use loa_engine::openings::random_opening_from;
use loa_engine::players::ShapedPlayer;
use loa_engine::random::derive_seed;
use loa_engine::spec::PreparedPlayer;
use loa_engine::tasks::OPENING_SEED_LABEL;
use loa_engine::{Position, Rules};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The network's wins, losses and ties against each opponent of `v`, on `threads` threads.
pub fn validate(
    chromosome: &Chromosome,
    config: &TdConfig,
    v: &TdValidation,
    threads: usize,
) -> Result<Vec<[u32; 3]>, String> {
    let board = config.board();
    let opponents: Vec<PreparedPlayer> = v
        .players()?
        .iter()
        .map(|spec| spec.prepare_on(board).map_err(|e| format!("validation.opponents: {e}")))
        .collect::<Result<_, _>>()?;
    let start = config.start_position()?;
    let rules = Rules::default();
    let depth = v.depth.unwrap_or(config.depth);
    let openings = (v.matches / 2) as usize;
    // One job per opponent and opening: both of its matches.
    let jobs = opponents.len() * openings;
    let next = AtomicUsize::new(0);
    let results: Vec<Vec<(usize, [u32; 3])>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads.max(1))
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let job = next.fetch_add(1, Ordering::Relaxed);
                        if job >= jobs {
                            return done;
                        }
                        let (opponent, j) = (job / openings, job % openings);
                        let seed = derive_seed(v.seed, j as u64);
                        let opening = opening(&start, v.opening_plies, seed, &rules);
                        let net = ShapedPlayer::new(chromosome, depth);
                        let other = opponents[opponent].for_match(seed);
                        done.push((opponent, both_matches(&net, &*other, &rules, opening, seed)));
                    }
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap_or_default()).collect()
    });
    let mut counts = vec![[0u32; 3]; opponents.len()];
    for (opponent, c) in results.into_iter().flatten() {
        for k in 0..3 {
            counts[opponent][k] += c[k];
        }
    }
    if let Some(short) = counts.iter().find(|c| c.iter().sum::<u32>() != v.matches) {
        return Err(format!(
            "validation: {} matches played of {} (a thread failed)",
            short.iter().sum::<u32>(),
            v.matches
        ));
    }
    Ok(counts)
}

/// The opening of the match pair with seed `seed`.
fn opening(start: &Position, plies: u32, seed: u64, rules: &Rules) -> Position {
    random_opening_from(start, plies, derive_seed(seed, OPENING_SEED_LABEL), rules)
}

/// The network's [wins, losses, ties] in the two matches from `opening`: as A, then as B.
fn both_matches(net: &dyn Player, other: &dyn Player, rules: &Rules, opening: Position, seed: u64) -> [u32; 3] {
    let mut counts = [0u32; 3];
    for net_side in [MatchSide::A, MatchSide::B] {
        let record = match net_side {
            MatchSide::A => play_match(net, other, rules, opening, seed),
            MatchSide::B => play_match(other, net, rules, opening, seed),
        };
        let slot = match record.criterion {
            Criterion::DefaultToA => 2,
            _ if record.winner == net_side => 0,
            _ => 1,
        };
        counts[slot] += 1;
    }
    counts
}
