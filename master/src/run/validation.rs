//! Held-out validation: the epoch's best network against each opponent of `[validation]`, as
//! match tasks like the benchmark's. Opening `j` (0-based) has the seed `derive_seed(seed, j)`,
//! the same for every opponent and every validation, so successive validations differ only by
//! the network; each opening is played twice, the network A in the first match and B in the
//! second. Tasks take [`OPENINGS_PER_TASK`] consecutive openings of one opponent.

use super::RunError;
use crate::config::{ExperimentConfig, ValidationConfig};
use crate::local::Work;
use crate::population::Individual;
use loa_engine::game::Criterion;
use loa_engine::random::derive_seed;
use loa_engine::tasks::{MatchFormat, MatchTaskOutcome, Pairing};
use loa_records::ValidationRecord;

/// Openings per task (each played with the network as A and as B). Results do not depend on it.
pub const OPENINGS_PER_TASK: u32 = 2;

/// The tasks of a validation of `net`: for each opponent in order, its openings in order; those
/// of an external engine are the master's to play ([`Work::Master`]).
pub fn tasks(config: &ExperimentConfig, validation: &ValidationConfig, net: &Individual) -> Vec<Work> {
    let players = validation.players().unwrap_or_default();
    let openings = validation.matches / 2;
    let mut tasks = Vec::new();
    for player in players {
        let (opponent, engine) = player.entrant(u64::MAX);
        let engines: Vec<(usize, String)> = engine.map(|command| (1, command.to_owned())).into_iter().collect();
        let entrants = vec![net.entrant(), opponent];
        for first in (0..openings).step_by(OPENINGS_PER_TASK as usize) {
            let pairs = (first..openings.min(first + OPENINGS_PER_TASK))
                .flat_map(|j| {
                    let seed = derive_seed(validation.seed, u64::from(j));
                    let opening_plies = validation.opening_plies;
                    [Pairing { a: 0, b: 1, seed, opening_plies }, Pairing { a: 1, b: 0, seed, opening_plies }]
                })
                .collect();
            let mut task = config.task(entrants.clone(), MatchFormat::Pairs(pairs));
            task.network_depth = validation.network_depth.unwrap_or(task.network_depth);
            tasks.push(Work::of(task, engines.clone()));
        }
    }
    tasks
}

/// The network's wins, losses and ties (criterion 4 a tie) against each opponent, from the
/// outcomes of [`tasks`] in their order.
pub fn tally(validation: &ValidationConfig, outcomes: &[MatchTaskOutcome]) -> Result<Vec<[u32; 3]>, RunError> {
    let opponents = validation.opponents.len();
    let per_opponent = validation.matches.div_ceil(2 * OPENINGS_PER_TASK) as usize;
    if outcomes.len() != opponents * per_opponent {
        let why = format!("{} validation outcomes for {} tasks", outcomes.len(), opponents * per_opponent);
        return Err(RunError::Outcome(why));
    }
    let mut counts = vec![[0u32; 3]; opponents];
    for (i, outcome) in outcomes.iter().enumerate() {
        for m in &outcome.matches {
            let slot = match (m.criterion, m.winner_index()) {
                (Criterion::DefaultToA, _) => 2,
                (_, 0) => 0,
                _ => 1,
            };
            counts[i / per_opponent][slot] += 1;
        }
    }
    if let Some(short) = counts.iter().find(|c| c.iter().sum::<u32>() != validation.matches) {
        let why = format!("{} validation matches instead of {}", short.iter().sum::<u32>(), validation.matches);
        return Err(RunError::Outcome(why));
    }
    Ok(counts)
}

/// The records of a validation at `epoch` (after `generation` generations) of the network with
/// `serial`, one per opponent, without their timing.
pub fn records(
    validation: &ValidationConfig,
    epoch: u32,
    generation: u64,
    serial: u64,
    counts: &[[u32; 3]],
) -> Vec<ValidationRecord> {
    validation
        .opponents
        .iter()
        .zip(counts)
        .map(|(opponent, &count)| ValidationRecord::new(epoch, generation, serial, opponent, count))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use loa_engine::game::MatchSide;
    use loa_engine::tasks::{GameSummary, MatchEntrant, MatchSummary, MatchTask, Task};
    use loa_proto::convert::Sending;

    fn validation(matches: u32) -> ValidationConfig {
        let opponents = vec!["aloa:1".into(), "random:1".into()];
        ValidationConfig { opponents, matches, seed: 5, ..ValidationConfig::default() }
    }

    fn net() -> Individual {
        let config = ExperimentConfig { population: 2, ..ExperimentConfig::default() };
        let (mut rng, mut serials) = (crate::rng::GaRng::from_seed(1), crate::population::SerialCounter::default());
        let population = crate::generation::initial_population(
            &config,
            loa_engine::network::Topology::default(),
            &mut rng,
            &mut serials,
        )
        .unwrap();
        population[0].clone()
    }

    /// The tasks of a validation, every one a worker's.
    fn worker_tasks(config: &ExperimentConfig, v: &ValidationConfig) -> Vec<MatchTask> {
        let to_worker = |w: Work| match w {
            Work::Worker(Task::Match(t)) => t,
            other => panic!("not a worker's match task: {other:?}"),
        };
        tasks(config, v, &net()).into_iter().map(to_worker).collect()
    }

    #[test]
    fn an_engines_tasks_are_the_masters_and_no_task_on_the_wire_names_its_program() {
        let command = "/opt/engines/secret-engine --player aloa:1";
        let mut v = validation(8);
        v.opponents.insert(1, format!("engine:{command}"));
        let work = tasks(&ExperimentConfig::default(), &v, &net());
        assert_eq!(work.len(), 6, "2 tasks for each of 3 opponents");
        for (i, w) in work.iter().enumerate() {
            match (i / 2, w) {
                (1, Work::Master(local)) => assert_eq!(local.engines(), [(1, command.to_owned())]),
                (0 | 2, Work::Worker(task)) => {
                    // What a remote worker would be sent: no program in it.
                    let wire = loa_proto::convert::task_to_proto(i as u64, task, &mut |_| Sending::Weights);
                    let bytes = prost::Message::encode_to_vec(&wire);
                    assert!(!bytes.windows(13).any(|w| w == b"secret-engine"), "task {i} names the program");
                    assert!(!format!("{task:?}").contains("secret-engine"), "task {i}");
                }
                (_, w) => panic!("task {i} is played by the wrong hands: {w:?}"),
            }
        }
    }

    #[test]
    fn every_opening_is_played_with_the_network_as_a_and_as_b_and_the_openings_are_shared() {
        let v = validation(6);
        let tasks = worker_tasks(&ExperimentConfig::default(), &v);
        // 3 openings per opponent, 2 a task: tasks of 2 and 1 openings, for each opponent.
        assert_eq!(tasks.len(), 4);
        let pairs = |t: &MatchTask| match &t.format {
            MatchFormat::Pairs(p) => p.clone(),
            MatchFormat::Knockout { .. } => panic!("a knockout"),
        };
        let seeds = |t: &MatchTask| pairs(t).iter().map(|p| (p.a, p.b, p.seed, p.opening_plies)).collect::<Vec<_>>();
        let s = |j| derive_seed(5, j);
        assert_eq!(seeds(&tasks[0]), [(0, 1, s(0), 4), (1, 0, s(0), 4), (0, 1, s(1), 4), (1, 0, s(1), 4)]);
        assert_eq!(seeds(&tasks[1]), [(0, 1, s(2), 4), (1, 0, s(2), 4)]);
        // The second opponent meets the same openings.
        assert_eq!(seeds(&tasks[2]), seeds(&tasks[0]));
        assert!(matches!(
            tasks[2].entrants[1],
            MatchEntrant::Fixed { player: loa_engine::tasks::FixedPlayer::Random { .. }, .. }
        ));
        assert!(matches!(tasks[0].entrants[0], MatchEntrant::Network { .. }));
    }

    #[test]
    fn the_network_searches_at_the_validation_depth_when_one_is_given() {
        let config = ExperimentConfig { network_depth: 1, ..ExperimentConfig::default() };
        let depths =
            |v: &ValidationConfig| worker_tasks(&config, v).iter().map(|t| t.network_depth).collect::<Vec<_>>();
        assert_eq!(depths(&validation(4)), [1, 1]);
        assert_eq!(depths(&ValidationConfig { network_depth: Some(3), ..validation(4) }), [3, 3]);
    }

    #[test]
    fn criterion_4_is_a_tie_and_wins_are_the_networks_as_a_or_b() {
        let game = GameSummary { outcome: loa_engine::Outcome::Draw, reason: loa_engine::EndReason::PlyCap, plies: 9 };
        let m = |a, b, winner, criterion| MatchSummary { a, b, winner, criterion, games: [game, game] };
        let outcome = |matches| MatchTaskOutcome { matches };
        let v = ValidationConfig { opponents: vec!["aloa:1".into()], matches: 6, ..ValidationConfig::default() };
        let outcomes = [
            // The net (0) wins as A, loses as B (its opponent A wins), ties as A by criterion 4.
            outcome(vec![
                m(0, 1, MatchSide::A, Criterion::WonBoth),
                m(1, 0, MatchSide::A, Criterion::FasterWin),
                m(0, 1, MatchSide::A, Criterion::DefaultToA),
                m(1, 0, MatchSide::B, Criterion::WonAndDrew),
            ]),
            outcome(vec![m(0, 1, MatchSide::B, Criterion::WonBoth), m(1, 0, MatchSide::A, Criterion::DefaultToA)]),
        ];
        assert_eq!(tally(&v, &outcomes).unwrap(), [[2, 2, 2]]);
        assert!(tally(&v, &outcomes[..1]).unwrap_err().to_string().contains("1 validation outcomes for 2 tasks"));
        let short = [outcomes[0].clone(), outcome(vec![m(0, 1, MatchSide::B, Criterion::WonBoth)])];
        assert!(tally(&v, &short).unwrap_err().to_string().contains("5 validation matches instead of 6"));
    }
}
