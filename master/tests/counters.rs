//! Checkpoints crafted with counters at their largest values: refused on load with the counter
//! named, or, at the very edge of what loads, a clear error once the run would pass it; never an
//! overflow.

use loa_master::checkpoint::{MAX_EPOCH, MAX_GENERATION, RunState};
use loa_master::config::ExperimentConfig;
use loa_master::population::SerialCounter;
use loa_master::run::{RunDir, RunOptions, resume, start};

fn tiny() -> ExperimentConfig {
    let mut c = ExperimentConfig {
        seed: 7,
        epochs: 1,
        population: 4,
        generations_per_epoch: 2,
        network_depth: 1,
        ..Default::default()
    };
    c.benchmark.depth = 1;
    c.rules.ply_cap = 20;
    c
}

#[test]
fn counters_beyond_any_run_are_refused_on_load_by_name() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    start(tiny(), &run, &RunOptions::embedded(1)).unwrap();
    let path = RunDir::new(&run).epoch_checkpoint(1);
    let good = RunState::load(&path).unwrap();
    assert_eq!((good.generation, good.epoch), (2, 1));

    let crafted: [(&str, RunState); 4] = [
        ("generation 18446744073709551615 is beyond 1099511627775", RunState { generation: u64::MAX, ..good.clone() }),
        (
            "next serial 18446744073709551615 is beyond 4611686018427387904",
            RunState { serials: SerialCounter::starting_at(u64::MAX), ..good.clone() },
        ),
        ("epoch 4294967295 is beyond 4294967294", RunState { epoch: u32::MAX, ..good.clone() }),
        // Within its bound, but ahead of the 2 generations played.
        ("epoch 2 at generation 2, 2 generations an epoch", RunState { epoch: 2, ..good.clone() }),
    ];
    for (why, state) in crafted {
        state.save(&path).unwrap();
        let err = RunState::load(&path).unwrap_err().to_string();
        assert!(err.contains("epoch-00001.ckpt") && err.contains(why), "{err}");
        assert!(err.contains("corrupt or crafted (resume from an earlier epoch's checkpoint)"), "{err}");
        let err = resume(&run, Some(1), Some(1), &RunOptions::embedded(1)).unwrap_err().to_string();
        assert!(err.contains(why), "{err}");
    }
}

#[test]
fn a_run_at_the_last_generation_stops_with_a_clear_error() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    start(tiny(), &run, &RunOptions::embedded(1)).unwrap();
    let path = RunDir::new(&run).epoch_checkpoint(1);
    let mut state = RunState::load(&path).unwrap();
    // The last generation that loads, its epoch done, so the next step is a generation.
    state.config.generations_per_epoch = 1 << 20;
    state.generation = MAX_GENERATION;
    state.epoch = (MAX_GENERATION >> 20) as u32;
    assert!(state.epoch < MAX_EPOCH);
    state.save(&path).unwrap();
    assert_eq!(RunState::load(&path).unwrap().generation, MAX_GENERATION);
    let err = resume(&run, Some(1), Some(1), &RunOptions::embedded(1)).unwrap_err().to_string();
    assert!(err.contains("the run has reached its last generation (1099511627775) and cannot go on"), "{err}");
}
