//! Match tasks the master plays itself, on its own machine: those with an external engine
//! (`engine:CMD`) as a validation opponent, the benchmark's reference or a player of a match
//! experiment.
//!
//! A worker never runs a program the master names: a master (or whoever can write its
//! configuration) could otherwise run any program on every worker of the cluster. So a
//! [`MatchTask`] names no program. The engine's entrant in it is a [`stand_in`] that holds its
//! place, and the command stays beside the task in a [`LocalTask`], which has no way to the
//! scheduler: [`Work::Master`] tasks are played here, on threads of the master, with or
//! without workers (`--threads 0` too). Their outcomes are those of the same task with the
//! engine's player in the entrant's place, so results stay a function of configuration and seed.

use loa_engine::game::Player;
use loa_engine::players::{EngineFailure, ExternalEngine, FailureSlot, MOVE_TIMEOUT};
use loa_engine::tasks::{
    FixedPlayer, MatchEntrant, MatchTask, MatchTaskOutcome, Task, TaskError, play_match_task_with,
};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

/// The entrant that holds an external engine's place in a task: a fixed player that plays on
/// every board, so the task validates. It is never played ([`LocalTask::play`] puts the engine
/// there) and never sent ([`LocalTask`] keeps its task to itself).
pub fn stand_in(serial: u64) -> MatchEntrant {
    MatchEntrant::Fixed { serial, player: FixedPlayer::Random { depth: 1, salt: 0 } }
}

/// Why a task the master plays itself failed.
#[derive(Debug, thiserror::Error)]
pub enum LocalError {
    /// An external engine failed (it names its command, the position and what it said).
    #[error("{0}")]
    Engine(#[from] EngineFailure),
    /// The task itself is invalid.
    #[error("{0}")]
    Task(#[from] TaskError),
}

/// A match task with external engines in it: the master's to play.
#[derive(Clone, Debug)]
pub struct LocalTask {
    // Private, and no accessor hands it out: it cannot be submitted to the scheduler.
    task: MatchTask,
    engines: Vec<(usize, String)>,
}

impl LocalTask {
    /// Plays the task, the entrant at each index of `engines` played by its command's program
    /// (started for this task, stopped when it ends, each move within [`MOVE_TIMEOUT`]).
    pub fn play(&self) -> Result<MatchTaskOutcome, LocalError> {
        self.play_within(MOVE_TIMEOUT)
    }

    fn play_within(&self, timeout: Duration) -> Result<MatchTaskOutcome, LocalError> {
        let failure = FailureSlot::default();
        let outcome = play_match_task_with(&self.task, |i| {
            let (_, command) = self.engines.iter().find(|(at, _)| *at == i)?;
            Some(Box::new(ExternalEngine::start(command, timeout, failure.clone())) as Box<dyn Player>)
        })?;
        // The processes have been stopped: the players went with the call.
        match failure.lock().unwrap_or_else(|p| p.into_inner()).take() {
            // After a failure the engine played first legal moves: the games measure nothing.
            Some(failed) => Err(failed.into()),
            None => Ok(outcome),
        }
    }

    /// The engines' command lines, by entrant index.
    pub fn engines(&self) -> &[(usize, String)] {
        &self.engines
    }
}

/// A task as planned: for any worker, or for the master alone.
#[derive(Clone, Debug)]
pub enum Work {
    /// Names no program: the scheduler leases it to any worker.
    Worker(Task),
    /// Has an external engine: the master plays it.
    Master(LocalTask),
}

impl Work {
    /// The work of `task` whose entrants at the indices of `engines` (holding [`stand_in`]s)
    /// are played by those commands: the master's if there is any, else any worker's.
    pub fn of(task: MatchTask, engines: Vec<(usize, String)>) -> Work {
        match engines.is_empty() {
            true => Work::Worker(Task::Match(task)),
            false => Work::Master(LocalTask { task, engines }),
        }
    }
}

/// Plays `tasks` on `threads` threads of the master (at least one), in any order: their
/// outcomes in order, `None` if `stop` said so between two tasks. The first failure stops the
/// rest and is returned; `done` counts the tasks played.
pub fn play_all(
    tasks: &[&LocalTask],
    threads: usize,
    stop: &(dyn Fn() -> bool + Sync),
    done: &AtomicUsize,
) -> Result<Option<Vec<MatchTaskOutcome>>, LocalError> {
    let next = AtomicUsize::new(0);
    let given_up = AtomicBool::new(false);
    let outcomes: Mutex<Vec<Option<MatchTaskOutcome>>> = Mutex::new(vec![None; tasks.len()]);
    let failed: Mutex<Option<(usize, LocalError)>> = Mutex::new(None);
    std::thread::scope(|scope| {
        for _ in 0..threads.clamp(1, tasks.len().max(1)) {
            scope.spawn(|| {
                while !given_up.load(Ordering::Acquire) && !stop() {
                    let i = next.fetch_add(1, Ordering::AcqRel);
                    let Some(task) = tasks.get(i) else { return };
                    match task.play() {
                        Ok(outcome) => outcomes.lock().unwrap_or_else(|p| p.into_inner())[i] = Some(outcome),
                        Err(e) => {
                            let mut first = failed.lock().unwrap_or_else(|p| p.into_inner());
                            // The lowest task's failure, so the error does not depend on timing
                            // more than it must.
                            if first.as_ref().is_none_or(|(at, _)| i < *at) {
                                *first = Some((i, e));
                            }
                            given_up.store(true, Ordering::Release);
                        }
                    }
                    done.fetch_add(1, Ordering::AcqRel);
                }
            });
        }
    });
    if let Some((_, e)) = failed.into_inner().unwrap_or_else(|p| p.into_inner()) {
        return Err(e);
    }
    let outcomes = outcomes.into_inner().unwrap_or_else(|p| p.into_inner());
    Ok(outcomes.into_iter().collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use loa_engine::Rules;
    use loa_engine::tasks::{MatchFormat, Pairing};

    fn task(engine: &str) -> Work {
        let entrants =
            vec![MatchEntrant::Fixed { serial: 0, player: FixedPlayer::Random { depth: 1, salt: 3 } }, stand_in(1)];
        let pairs = vec![Pairing { a: 0, b: 1, seed: 9, opening_plies: 2 }];
        let task = MatchTask {
            entrants,
            network_depth: 1,
            rules: Rules { ply_cap: 20, ..Rules::default() },
            board: Default::default(),
            start: Default::default(),
            format: MatchFormat::Pairs(pairs),
        };
        Work::of(task, vec![(1, engine.to_owned())])
    }

    #[test]
    fn a_task_without_engines_is_any_workers_and_one_with_an_engine_the_masters() {
        let Work::Master(local) = task("loa engine") else { panic!("an engine's task went to the workers") };
        assert_eq!(local.engines(), [(1, "loa engine".to_owned())]);
        let Work::Worker(Task::Match(t)) = Work::of(local.task.clone(), Vec::new()) else { panic!("not a worker's") };
        assert_eq!(t, local.task);
    }

    #[test]
    fn a_failing_engine_is_an_error_naming_it_and_stops_the_rest() {
        let Work::Master(local) = task("/no/such/engine --x") else { panic!() };
        let e = local.play_within(Duration::from_millis(300)).unwrap_err().to_string();
        assert!(e.starts_with("engine `/no/such/engine --x`: cannot start /no/such/engine"), "{e}");
        let done = AtomicUsize::new(0);
        let tasks = [&local, &local, &local];
        let e = play_all(&tasks, 1, &|| false, &done).unwrap_err();
        assert!(matches!(e, LocalError::Engine(_)), "{e}");
        assert_eq!(done.load(Ordering::Acquire), 1, "the first failure stops the rest");
        assert!(play_all(&tasks, 2, &|| true, &done).unwrap().is_none(), "stopped");
        assert_eq!(play_all(&[], 2, &|| false, &done).unwrap(), Some(Vec::new()));
    }
}
