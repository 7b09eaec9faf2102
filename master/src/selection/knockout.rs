//! The thesis's selection (docs/spec.md §5): each survivor makes two mutants and a child, everyone is
//! shuffled into groups of one survivor, two mutants and one child, and each group plays a
//! knockout of four; the group winners survive. It has no settings and no state.

use super::{Plan, Scheme, Selected, SelectionError, StateError, own_plan, parse_settings};
use crate::codec::CodecError;
use crate::config::{ConfigError, ExperimentConfig};
use crate::generation::{Breeding, Group, breed};
use crate::metrics::match_summary;
use crate::population::Individual;
use loa_engine::random::derive_seed;
use loa_engine::tasks::{MatchFormat, Task, TaskOutcome};
use loa_records::TournamentRecord;
use serde::{Deserialize, Serialize};

/// The scheme's name in the configuration.
pub const NAME: &str = "knockout";

/// The thesis's knockout groups of four.
#[derive(Clone, Copy, Debug, Default)]
pub struct Knockout;

/// The knockout's settings: none.
#[derive(Serialize, Deserialize)]
struct Settings {}

/// The knockout, from its (empty) settings.
pub fn build(settings: &toml::Table) -> Result<Box<dyn Scheme>, ConfigError> {
    let Settings {} = parse_settings(NAME, settings)?;
    Ok(Box::new(Knockout))
}

impl Scheme for Knockout {
    fn settings(&self) -> toml::Table {
        toml::Table::new()
    }

    fn validate(&self, config: &ExperimentConfig) -> Result<(), ConfigError> {
        let mutants = config.mutation.mutants_per_survivor;
        if mutants != 2 {
            let why = format!("must be 2: knockout groups are one survivor, two mutants and one child, got {mutants}");
            return Err(ConfigError::Invalid { key: "mutation.mutants_per_survivor".into(), why });
        }
        Ok(())
    }

    fn plan(&self, survivors: &[Individual], b: &mut Breeding) -> Result<(Plan, Vec<Task>), SelectionError> {
        // Each survivor's child needs a partner among the others.
        if survivors.len() < 2 {
            return Err(SelectionError::TooFewSurvivors { scheme: NAME, found: survivors.len(), needed: 2 });
        }
        let groups = breed(survivors, b)?;
        let (config, generation) = (b.config, b.generation);
        let tasks = groups
            .iter()
            .enumerate()
            .map(|(g, group)| {
                let seed = derive_seed(derive_seed(config.seed, generation), g as u64);
                config.task(group.iter().map(Individual::entrant).collect(), MatchFormat::Knockout { seed })
            })
            .collect();
        Ok((Box::new(groups), super::match_tasks(tasks)))
    }

    fn select(&mut self, plan: Plan, outcomes: &[TaskOutcome]) -> Result<Selected, SelectionError> {
        let outcomes = &super::match_outcomes(outcomes)?[..];
        let groups: Vec<Group> = own_plan(plan)?;
        if outcomes.len() != groups.len() {
            return Err(SelectionError::OutcomeCount { found: outcomes.len(), tasks: groups.len() });
        }
        let (mut next, mut tournaments, mut survivors_kept) = (Vec::new(), Vec::new(), 0);
        for (g, (group, outcome)) in groups.iter().zip(outcomes).enumerate() {
            let bad = |why: String| SelectionError::Outcome { task: g, why };
            let [semi1, semi2, last] = outcome.matches.as_slice() else {
                return Err(bad(format!("a knockout of {} matches instead of 3", outcome.matches.len())));
            };
            let winner = last.winner_index();
            let Some(member) = group.get(winner) else {
                return Err(bad(format!("knockout winner {winner} is not an entrant")));
            };
            survivors_kept += u32::from(winner == 0);
            next.push(member.clone());
            tournaments.push(TournamentRecord {
                serials: std::array::from_fn(|i| group[i].serial),
                winner: member.serial,
                matches: [semi1, semi2, last].map(match_summary),
            });
        }
        Ok(Selected { next, tournaments, survivors_kept, figures: None, notes: Vec::new() })
    }

    fn save(&self) -> Result<Vec<u8>, CodecError> {
        Ok(Vec::new())
    }

    fn restore(&mut self, saved: &[u8], survivors: &[Individual], config: &ExperimentConfig) -> Result<(), StateError> {
        if !saved.is_empty() {
            return Err(StateError::Decode(CodecError::Trailing(saved.len())));
        }
        // One winner a group and a group a survivor keep the size; breeding needs a partner.
        if survivors.len() != config.population {
            let expected = format!("the knockout keeps the configured {}", config.population);
            return Err(StateError::Population { found: survivors.len(), expected });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generation::initial_population;
    use crate::population::SerialCounter;
    use crate::rng::GaRng;
    use loa_engine::game::{Criterion, MatchSide};
    use loa_engine::network::Topology;
    use loa_engine::tasks::{GameSummary, MatchSummary, MatchTaskOutcome};

    fn summary(a: usize, b: usize, winner: MatchSide) -> MatchSummary {
        let game =
            GameSummary { outcome: loa_engine::Outcome::Draw, reason: loa_engine::EndReason::PlyCap, plies: 100 };
        MatchSummary { a, b, winner, criterion: Criterion::DefaultToA, games: [game; 2] }
    }

    #[test]
    fn group_winners_survive_with_their_serials_and_records_name_them() {
        let config = ExperimentConfig { population: 3, ..ExperimentConfig::default() };
        let (mut rng, mut serials) = (GaRng::from_seed(8), SerialCounter::default());
        let survivors = initial_population(&config, Topology::default(), &mut rng, &mut serials).unwrap();
        let (plan, tasks) = Knockout
            .plan(&survivors, &mut Breeding { config: &config, generation: 1, rng: &mut rng, serials: &mut serials })
            .unwrap();
        let groups: Vec<Group> = own_plan(plan).unwrap();
        assert_eq!(tasks.len(), 3);
        let tasks = crate::selection::as_matches(tasks);
        assert!(tasks.iter().all(|t| t.entrants.len() == 4 && matches!(t.format, MatchFormat::Knockout { .. })));
        // Winners: group 0 its survivor (entrant 0), group 1 entrant 3 (the child), group 2
        // entrant 1 (a mutant).
        let outcome = |w| {
            TaskOutcome::Match(MatchTaskOutcome {
                matches: vec![summary(0, 1, MatchSide::A), summary(2, 3, MatchSide::A), summary(0, w, MatchSide::B)],
            })
        };
        let selected = Knockout.select(Box::new(groups.clone()), &[outcome(0), outcome(3), outcome(1)]);
        // The final's winner is its B side: entrants 0, 3 and 1.
        let selected = selected.unwrap();
        assert_eq!(selected.next[0], groups[0][0], "the survivor that won persists unchanged");
        assert_eq!(selected.next[1].serial, groups[1][3].serial);
        assert_eq!(selected.next[2].serial, groups[2][1].serial);
        assert_eq!(selected.survivors_kept, 1);
        assert_eq!(selected.tournaments[1].winner, groups[1][3].serial);
        // An outcome that does not fit is refused, naming the group.
        let short = TaskOutcome::Match(MatchTaskOutcome { matches: vec![summary(0, 1, MatchSide::A)] });
        let err = Knockout.select(Box::new(groups), &[outcome(0), short, outcome(1)]).unwrap_err().to_string();
        assert!(err.contains("task 1: a knockout of 1 matches"), "{err}");
    }

    #[test]
    fn fewer_than_two_survivors_are_refused_not_bred() {
        let config = ExperimentConfig { population: 2, ..ExperimentConfig::default() };
        let (mut rng, mut serials) = (GaRng::from_seed(8), SerialCounter::default());
        let survivors = initial_population(&config, Topology::default(), &mut rng, &mut serials).unwrap();
        for alone in [&survivors[..1], &[]] {
            let err = Knockout
                .plan(alone, &mut Breeding { config: &config, generation: 1, rng: &mut rng, serials: &mut serials })
                .unwrap_err()
                .to_string();
            assert!(err.contains(&format!("{} survivors", alone.len())), "{err}");
        }
    }
}
