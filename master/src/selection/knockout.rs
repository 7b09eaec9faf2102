//! The thesis's selection (SPEC §5): each survivor makes two mutants and a child, everyone is
//! shuffled into groups of one survivor, two mutants and one child, and each group plays a
//! knockout of four; the group winners survive.

use super::{Scheme, Selected};
use crate::config::ExperimentConfig;
use crate::generation::{Group, breed};
use crate::metrics::match_summary;
use crate::population::{Individual, SerialCounter};
use crate::rng::GaRng;
use loa_engine::random::derive_seed;
use loa_engine::tasks::{MatchFormat, MatchTask, MatchTaskOutcome};
use loa_records::TournamentRecord;

/// The thesis's knockout groups of four.
#[derive(Clone, Copy, Debug, Default)]
pub struct Knockout;

impl Scheme for Knockout {
    type Plan = Vec<Group>;

    fn plan(
        &self,
        survivors: &[Individual],
        _memory: &super::Memory,
        config: &ExperimentConfig,
        generation: u64,
        rng: &mut GaRng,
        serials: &mut SerialCounter,
    ) -> Result<(Vec<Group>, Vec<MatchTask>), String> {
        // Each survivor's child has a partner among the others (and a checkpoint's population,
        // checked on load, always has the configured size).
        if survivors.len() < 2 {
            return Err(format!("knockout: {} survivors, and breeding needs at least 2", survivors.len()));
        }
        let groups = breed(survivors, config, generation, rng, serials).map_err(|e| e.to_string())?;
        let tasks = groups
            .iter()
            .enumerate()
            .map(|(g, group)| MatchTask {
                entrants: group.members.iter().map(Individual::entrant).collect(),
                network_depth: config.network_depth,
                rules: config.rules,
                format: MatchFormat::Knockout { seed: derive_seed(derive_seed(config.seed, generation), g as u64) },
            })
            .collect();
        Ok((groups, tasks))
    }

    fn select(&self, groups: Vec<Group>, outcomes: &[MatchTaskOutcome]) -> Result<Selected, String> {
        if outcomes.len() != groups.len() {
            return Err(format!("{} outcomes for {} knockout groups", outcomes.len(), groups.len()));
        }
        let mut next = Vec::with_capacity(groups.len());
        let mut tournaments = Vec::with_capacity(groups.len());
        let mut survivors_kept = 0;
        for (g, (group, outcome)) in groups.iter().zip(outcomes).enumerate() {
            let [semi1, semi2, last] = outcome.matches.as_slice() else {
                return Err(format!("knockout {g}: {} matches instead of 3", outcome.matches.len()));
            };
            let winner = last.winner_index();
            let Some(member) = group.members.get(winner) else {
                return Err(format!("knockout {g}: winner {winner} is not an entrant"));
            };
            survivors_kept += u32::from(winner == 0);
            next.push(member.clone());
            tournaments.push(TournamentRecord {
                serials: std::array::from_fn(|i| group.members[i].serial),
                winner: member.serial,
                matches: [semi1, semi2, last].map(match_summary),
            });
        }
        Ok(Selected { next, tournaments, survivors_kept, fitness: None, steps: Vec::new(), adam: Default::default() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generation::initial_population;
    use loa_engine::game::{Criterion, MatchSide};
    use loa_engine::network::Topology;
    use loa_engine::tasks::{GameSummary, MatchSummary};

    fn summary(a: usize, b: usize, winner: MatchSide) -> MatchSummary {
        let game =
            GameSummary { outcome: loa_engine::Outcome::Draw, reason: loa_engine::EndReason::PlyCap, plies: 100 };
        MatchSummary { a, b, winner, criterion: Criterion::DefaultToA, games: [game; 2] }
    }

    #[test]
    fn group_winners_survive_with_their_serials_and_records_name_them() {
        let config = ExperimentConfig { population: 3, ..ExperimentConfig::default() };
        let (mut rng, mut serials) = (GaRng::from_seed(8), SerialCounter::new());
        let survivors = initial_population(&config, Topology::default(), &mut rng, &mut serials).unwrap();
        let (groups, tasks) = Knockout
            .plan(&survivors, &crate::selection::Memory::default(), &config, 1, &mut rng, &mut serials)
            .unwrap();
        assert_eq!(tasks.len(), 3);
        assert!(tasks.iter().all(|t| t.entrants.len() == 4 && matches!(t.format, MatchFormat::Knockout { .. })));
        // Winners: group 0 its survivor (entrant 0), group 1 entrant 3 (the child), group 2
        // entrant 1 (a mutant).
        let outcome = |w| MatchTaskOutcome {
            matches: vec![summary(0, 1, MatchSide::A), summary(2, 3, MatchSide::A), summary(0, w, MatchSide::B)],
        };
        let selected = Knockout.select(groups.clone(), &[outcome(0), outcome(3), outcome(1)]);
        // The final's winner is its B side: entrants 0, 3 and 1.
        let selected = selected.unwrap();
        assert_eq!(selected.next[0], groups[0].members[0], "the survivor that won persists unchanged");
        assert_eq!(selected.next[1].serial, groups[1].members[3].serial);
        assert_eq!(selected.next[2].serial, groups[2].members[1].serial);
        assert_eq!(selected.survivors_kept, 1);
        assert_eq!(selected.tournaments[1].winner, groups[1].members[3].serial);
        // An outcome that does not fit is refused, naming the group.
        let short = MatchTaskOutcome { matches: vec![summary(0, 1, MatchSide::A)] };
        let err = Knockout.select(groups, &[outcome(0), short, outcome(1)]).unwrap_err();
        assert!(err.contains("knockout 1"), "{err}");
    }

    #[test]
    fn fewer_than_two_survivors_are_refused_not_bred() {
        let config = ExperimentConfig { population: 2, ..ExperimentConfig::default() };
        let (mut rng, mut serials) = (GaRng::from_seed(8), SerialCounter::new());
        let survivors = initial_population(&config, Topology::default(), &mut rng, &mut serials).unwrap();
        for alone in [&survivors[..1], &[]] {
            let memory = crate::selection::Memory::default();
            let err = Knockout.plan(alone, &memory, &config, 1, &mut rng, &mut serials).unwrap_err();
            assert!(err.contains(&format!("{} survivors", alone.len())), "{err}");
        }
    }
}
