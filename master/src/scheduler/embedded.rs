//! Embedded workers: threads of the master process that pull tasks from the scheduler like any
//! remote worker.

use super::{Delivery, Scheduler, unchecked};
use loa_engine::tasks::{Task, TaskFailure, TaskResult, play_caught};
use std::sync::Arc;
use std::time::Duration;

/// How an embedded worker plays a task.
type Play = fn(&Task) -> TaskResult;

/// Runs `threads` in-process workers that pull tasks until the scheduler closes. A task whose
/// playing panics fails with the panic's message, and its thread plays on.
pub fn spawn_embedded_workers(
    scheduler: &Arc<Scheduler>,
    threads: usize,
) -> std::io::Result<Vec<std::thread::JoinHandle<()>>> {
    spawn_playing(scheduler, threads, |t| t.run().map_err(TaskFailure::Invalid))
}

/// [`spawn_embedded_workers`], tasks played by `play` (tests give one that panics).
fn spawn_playing(
    scheduler: &Arc<Scheduler>,
    threads: usize,
    play: Play,
) -> std::io::Result<Vec<std::thread::JoinHandle<()>>> {
    (0..threads.max(1))
        .map(|i| {
            let scheduler = Arc::clone(scheduler);
            std::thread::Builder::new().name(format!("worker-{i}")).spawn(move || {
                let id = scheduler.register(format!("embedded-{i}"), 1);
                while !scheduler.is_closed() {
                    for (task_id, task) in scheduler.lease_wait(id, 1, Duration::from_millis(200)) {
                        let outcome = play_caught(&task, play);
                        let delivery = Delivery { worker: id, id: task_id, outcome };
                        let _ = scheduler.record([delivery], unchecked);
                    }
                }
                scheduler.unregister(id);
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use loa_engine::aloa::AloaKind;
    use loa_engine::tasks::{FixedPlayer, MatchEntrant, MatchFormat, MatchTask, Pairing};
    use loa_engine::{BothConnected, NoMoves, Rules};

    /// Two fixed players, one match whose opening is `plies` long.
    fn task(plies: u32) -> Task {
        let aloa =
            |serial| MatchEntrant::Fixed { serial, player: FixedPlayer::Aloa { evaluator: AloaKind::Quad, depth: 1 } };
        Task::Match(MatchTask {
            entrants: vec![aloa(1), aloa(2)],
            network_depth: 1,
            rules: Rules { both_connected: BothConnected::Draw, no_moves: NoMoves::Loses, ply_cap: 20 },
            board: Default::default(),
            start: Default::default(),
            format: MatchFormat::Pairs(vec![Pairing { a: 0, b: 1, seed: 3, opening_plies: plies }]),
        })
    }

    /// Plays like an embedded worker, but panics on a task with no opening.
    fn panics_without_opening(task: &Task) -> TaskResult {
        let Some(MatchFormat::Pairs(pairings)) = task.as_match().map(|m| &m.format) else { unreachable!() };
        assert_ne!(pairings[0].opening_plies, 0, "poisoned task");
        task.run().map_err(TaskFailure::Invalid)
    }

    #[test]
    fn a_panicking_task_fails_with_its_message_and_the_thread_plays_the_next() {
        let scheduler = Arc::new(Scheduler::new(Duration::from_secs(60)));
        // One thread: the second task is played by the thread that panicked on the first.
        let threads = spawn_playing(&scheduler, 1, panics_without_opening).unwrap();
        scheduler.submit(vec![(0, task(0)), (1, task(4))]);
        let results = scheduler.collect(&[0, 1], || false, |_| {}).unwrap();
        let Err(TaskFailure::Panicked(message)) = &results[0] else { panic!("{:?}", results[0]) };
        assert!(message.contains("poisoned task"), "{message}");
        assert_eq!(results[1], Ok(task(4).run().unwrap()));
        scheduler.close();
        for thread in threads {
            thread.join().expect("the embedded worker survived the panic");
        }
    }
}
