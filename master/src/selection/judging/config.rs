//! The judging settings and their checks.

use crate::config::{ConfigError, fixed_players};
use loa_engine::BoardSize;
use loa_engine::openings::max_opening_plies;
use serde::{Deserialize, Serialize};

/// How a game scores for a candidate.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Fitness {
    /// Win 1, draw ½, loss 0 per game.
    #[default]
    Points,
    /// The benchmark's score per game (a win in m plies 200 − m, a loss m, a draw 100): losing
    /// later scores more, so candidates that all lose to a strong opponent are still ordered.
    BenchmarkScore,
}

/// How the champions a candidate meets are drawn from the hall of fame.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum HallOfFameDraw {
    /// Each candidate draws its own champions and meets each in one match from openings of its
    /// own.
    #[default]
    PerCandidate,
    /// The champions are drawn once per generation and every candidate meets each of them in
    /// `fixed_matches` matches from the same openings (common random numbers), so differences
    /// between candidates are not differences between their opponents.
    Common,
}

/// The judging settings, flattened into the tables of the schemes that judge.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct JudgingConfig {
    /// Two-game matches each candidate hosts against others drawn uniformly (0 with `groups`).
    pub opponents: u32,
    /// Fixed players (specs such as `aloa:D`) each candidate plays `fixed_matches` matches
    /// against; they score nothing themselves (a curriculum).
    pub fixed_opponents: Vec<String>,
    /// How a game scores.
    pub fitness: Fitness,
    /// Random plies before every game; against fixed opponents and the rung the openings of a
    /// generation are the same for every candidate (common random numbers). 0: the start position.
    pub opening_plies: u32,
    /// Two-game matches against each fixed opponent, the rung and (drawn in common) each
    /// champion per generation (above 1 only with `opening_plies`: games from the start position
    /// against a fixed player repeat).
    pub fixed_matches: u32,
    /// Champions each candidate meets, drawn from the hall of fame (the best benchmarked network
    /// of every epoch so far: for evolution strategies and CMA-ES, the centre or mean).
    pub hall_of_fame: u32,
    /// How the champions are drawn.
    pub hall_of_fame_draw: HallOfFameDraw,
    /// Above 0: champions are drawn from the most recent this many only (the first champions of
    /// a run from random weights are weak). 0: from all.
    pub hall_of_fame_window: u32,
    /// Above 0: candidates shuffled into groups of this size (within one) that each play a round
    /// robin, in place of drawn `opponents`.
    pub groups: u32,
    /// Fixed players in rising strength, met one rung at a time like a fixed opponent.
    pub ladder: Vec<String>,
    /// Mean points per game (win 1, draw ½) against the current rung that move the ladder up.
    pub promote_at: f64,
    /// Whether each generation's line in `generations.jsonl` reports the fitness's noise
    /// against its signal ([`Scores::noise`](super::Scores::noise)).
    pub report_noise: bool,
}

impl Default for JudgingConfig {
    fn default() -> Self {
        JudgingConfig {
            opponents: 4,
            fixed_opponents: Vec::new(),
            fitness: Fitness::Points,
            opening_plies: 0,
            fixed_matches: 1,
            hall_of_fame: 0,
            hall_of_fame_draw: HallOfFameDraw::PerCandidate,
            hall_of_fame_window: 0,
            groups: 0,
            ladder: Vec::new(),
            promote_at: 0.5,
            report_noise: false,
        }
    }
}

// The bounds of one task (the proto's): entrants, matches (random opening plies: by board).
pub(super) const MAX_ENTRANTS: usize = 16;
const MAX_MATCHES: usize = 256;
/// At most this many rungs.
const MAX_RUNGS: usize = 16;

impl JudgingConfig {
    /// Two-game matches a candidate plays against each champion it meets.
    pub fn matches_per_champion(&self) -> u32 {
        match self.hall_of_fame_draw {
            HallOfFameDraw::PerCandidate => 1,
            HallOfFameDraw::Common => self.fixed_matches,
        }
    }

    /// Checks the settings of the scheme whose table is `key` for `candidates` candidates per
    /// generation on `board`, against the bounds of one task.
    pub fn validate(&self, key: &str, candidates: usize, board: BoardSize) -> Result<(), ConfigError> {
        let j = self;
        let bad = |field: &str, why: String| Err(ConfigError::Invalid { key: format!("{key}.{field}"), why });
        for (field, specs) in [("fixed_opponents", &j.fixed_opponents), ("ladder", &j.ladder)] {
            for (spec, player) in specs.iter().zip(fixed_players(&format!("{key}.{field}"), specs)?) {
                if let Err(e) = player.plays_on(board) {
                    return bad(field, format!("`{spec}`: {e}"));
                }
            }
        }
        if j.groups > 0 {
            if j.opponents > 0 {
                return bad("groups", "round robin in groups replaces drawn opponents: set opponents = 0".into());
            }
            if j.groups < 2 || j.groups as usize > MAX_ENTRANTS || j.groups as usize > candidates {
                let why =
                    format!("must be 2..={MAX_ENTRANTS} and at most the {candidates} candidates, got {}", j.groups);
                return bad("groups", why);
            }
            if candidates / candidates.div_ceil(j.groups as usize) < 2 {
                return bad("groups", format!("{candidates} candidates in groups of {} leave one alone", j.groups));
            }
        } else if j.opponents as usize >= candidates {
            return bad("opponents", format!("must be below the {candidates} candidates, got {}", j.opponents));
        }
        let drawn = if j.groups > 0 { 0 } else { j.opponents as usize };
        let rung = usize::from(!j.ladder.is_empty());
        let entrants = 1 + drawn + j.hall_of_fame as usize + j.fixed_opponents.len() + rung;
        if entrants > MAX_ENTRANTS {
            let why = format!(
                "a candidate's task would have {entrants} entrants (itself, opponents, hall of fame, fixed \
                 opponents): at most {MAX_ENTRANTS}"
            );
            return bad("opponents", why);
        }
        let champion_matches = j.hall_of_fame as usize * j.matches_per_champion() as usize;
        let matches = drawn + champion_matches + (j.fixed_opponents.len() + rung) * j.fixed_matches as usize;
        if matches > MAX_MATCHES {
            let why = format!("a candidate's task would have {matches} matches: at most {MAX_MATCHES}");
            return bad("fixed_matches", why);
        }
        if j.fixed_matches == 0 || (j.fixed_matches > 1 && j.opening_plies == 0) {
            let why = format!(
                "must be at least 1, and above 1 only with opening_plies (games from the start position against \
                 a fixed player repeat), got {}",
                j.fixed_matches
            );
            return bad("fixed_matches", why);
        }
        let unused = |field: &str| {
            let why = "has no effect with hall_of_fame = 0: set hall_of_fame above 0 or leave this out".into();
            bad(field, why)
        };
        if j.hall_of_fame == 0 && j.hall_of_fame_draw != HallOfFameDraw::PerCandidate {
            return unused("hall_of_fame_draw");
        }
        if j.hall_of_fame == 0 && j.hall_of_fame_window > 0 {
            return unused("hall_of_fame_window");
        }
        if j.hall_of_fame_window > 0 && j.hall_of_fame_window < j.hall_of_fame {
            let why = format!(
                "must be 0 (all champions) or at least hall_of_fame ({}) so that many can be drawn, got {}",
                j.hall_of_fame, j.hall_of_fame_window
            );
            return bad("hall_of_fame_window", why);
        }
        let most = max_opening_plies(board);
        if j.opening_plies > most {
            return bad(
                "opening_plies",
                format!("must be at most {most} on the {board} board, got {}", j.opening_plies),
            );
        }
        if !(j.promote_at > 0.0 && j.promote_at <= 1.0) {
            return bad("promote_at", format!("must be in (0, 1] points per game, got {}", j.promote_at));
        }
        if j.ladder.len() > MAX_RUNGS {
            return bad("ladder", format!("at most {MAX_RUNGS} rungs, got {}", j.ladder.len()));
        }
        if drawn == 0 && j.groups == 0 && j.fixed_opponents.is_empty() && j.hall_of_fame == 0 && j.ladder.is_empty() {
            let why = "needs opponents, groups, fixed_opponents, hall_of_fame or a ladder: nothing would judge the \
                       candidates";
            return Err(ConfigError::Invalid { key: key.into(), why: why.into() });
        }
        Ok(())
    }
}
