use super::*;
use loa_engine::aloa::AloaKind;
use loa_engine::tasks::{FixedPlayer, MatchEntrant, MatchFormat, MatchTask, Pairing};
use loa_engine::{BothConnected, NoMoves, Rules};

/// The seed of the task [`panics_on_a_seed`] panics on.
const POISON: u64 = 666;

/// Two fixed players, one match with `seed`.
fn task(seed: u64) -> Task {
    let aloa =
        |serial| MatchEntrant::Fixed { serial, player: FixedPlayer::Aloa { evaluator: AloaKind::Quad, depth: 1 } };
    Task::Match(MatchTask {
        entrants: vec![aloa(1), aloa(2)],
        network_depth: 1,
        rules: Rules { both_connected: BothConnected::Draw, no_moves: NoMoves::Loses, ply_cap: 20 },
        board: Default::default(),
        start: Default::default(),
        format: MatchFormat::Pairs(vec![Pairing { a: 0, b: 1, seed, opening_plies: 4 }]),
    })
}

/// Plays a task like a worker, but panics on the one with the [`POISON`] seed.
fn panics_on_a_seed(task: &Task) -> TaskResult {
    let Some(MatchFormat::Pairs(pairings)) = task.as_match().map(|m| &m.format) else { unreachable!() };
    if pairings[0].seed == POISON {
        panic!("poisoned task, seed {POISON}");
    }
    task.run().map_err(TaskFailure::Invalid)
}

#[test]
fn a_panicking_task_fails_with_its_message_and_the_thread_plays_the_next() {
    let local = Arc::new(Local::default());
    let (out, mut results) = tokio::sync::mpsc::unbounded_channel();
    let (control, done) = (Control::default(), Arc::new(AtomicBool::new(false)));
    // One slot: the task after the poisoned one is played by the very thread that panicked.
    let threads = spawn_playing(1, &local, &out, &control, &done, panics_on_a_seed).unwrap();
    local.push([(1, 7, Ok(task(POISON))), (2, 7, Ok(task(5)))]);

    let (id, leased_as, first) = results.blocking_recv().unwrap();
    assert_eq!((id, leased_as), (1, 7));
    assert_eq!(first, Err(TaskFailure::Panicked(format!("poisoned task, seed {POISON}"))));
    let (id, _, second) = results.blocking_recv().unwrap();
    assert_eq!(id, 2);
    assert_eq!(second, Ok(task(5).run().unwrap()));
    // The failure travels as a message that says what happened.
    assert_eq!(first.unwrap_err().wire_message(), format!("playing it panicked: poisoned task, seed {POISON}"));

    done.store(true, Ordering::Release);
    for thread in threads {
        thread.join().expect("the player thread survived the panic");
    }
    assert_eq!(local.played.load(Ordering::Relaxed), 2);
}
