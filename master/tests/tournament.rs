//! A tournament-selection run on tiny settings: the same checkpoints on one and three worker
//! threads and across a resume from an epoch checkpoint, its hall of fame and its metrics.

use loa_master::checkpoint::RunState;
use loa_master::config::ExperimentConfig;
use loa_master::run::{RunDir, RunOptions, resume, start};
use loa_master::selection::SchemeState;
use loa_master::selection::tournament::State;
use loa_records::{EpochReport, GenerationRecord};
use std::path::Path;

/// Four individuals, tournaments of 2, one elite, judged by one drawn opponent, a champion and
/// a fixed player, with crossover half the time.
fn tournament(epochs: u32) -> ExperimentConfig {
    let text = "seed = 17\npopulation = 4\ngenerations_per_epoch = 2\nnetwork_depth = 1\n\
                [benchmark]\ndepth = 1\n[rules]\nply_cap = 40\n\
                [mutation]\nprobability = 1.0\n[mutation.operator.gaussian]\nsigma = 0.1\n\
                [crossover]\noperator = \"per-neuron\"\n\
                [selection.scheme.tournament]\nsize = 2\nelitism = 1\ncrossover_rate = 0.5\nopponents = 1\n\
                hall_of_fame = 1\nfixed_opponents = [\"random:1\"]\n";
    ExperimentConfig { epochs, ..ExperimentConfig::from_toml(text).unwrap() }
}

fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn a_tournament_run_is_the_same_on_one_and_three_threads_and_across_a_resume() {
    let tmp = tempfile::tempdir().unwrap();
    let (one, three, resumed) = (tmp.path().join("one"), tmp.path().join("three"), tmp.path().join("resumed"));
    let summary = start(tournament(3), &one, &RunOptions::embedded(1)).unwrap();
    assert_eq!((summary.epoch, summary.generation), (3, 6));
    start(tournament(3), &three, &RunOptions::embedded(3)).unwrap();
    // Two epochs, then again from the end of epoch 1 for two more: epochs 2 and 3 replayed
    // from a checkpoint whose hall of fame holds the champions of epochs 0 and 1.
    start(tournament(2), &resumed, &RunOptions::embedded(3)).unwrap();
    resume(&resumed, Some(1), Some(2), &RunOptions::embedded(1)).unwrap();
    let (a, b, c) = (RunDir::new(&one), RunDir::new(&three), RunDir::new(&resumed));
    for epoch in 0..=3 {
        assert!(read(&a.epoch_checkpoint(epoch)) == read(&b.epoch_checkpoint(epoch)), "threads, epoch {epoch}");
    }
    // Checkpoints hold the target epoch count: the resumed run's equal the straight one's from
    // the resume on.
    for epoch in 2..=3 {
        assert!(read(&a.epoch_checkpoint(epoch)) == read(&c.epoch_checkpoint(epoch)), "resumed, epoch {epoch}");
    }
    assert!(read(&a.latest_checkpoint()) == read(&c.latest_checkpoint()), "latest");
    assert!(read(&a.epochs()) == read(&c.epochs()), "epochs.jsonl");
    // The hall of fame holds each epoch's champion once (the best benchmarked survivor, the
    // older on a tie), and the state the fitness of the population it judged last.
    let state = RunState::load(&a.latest_checkpoint()).unwrap();
    let scheme = State::load(&state.scheme_state).unwrap();
    let epochs = loa_records::jsonl::read::<EpochReport>(&a.epochs()).unwrap().records;
    let mut champions: Vec<u64> = Vec::new();
    for report in &epochs {
        let best = report.entries.iter().min_by_key(|e| (std::cmp::Reverse(e.combined), e.serial)).unwrap();
        if !champions.contains(&best.serial) {
            champions.push(best.serial);
        }
    }
    assert_eq!(scheme.judged.hall_of_fame.iter().map(|h| h.serial).collect::<Vec<_>>(), champions);
    let population: Vec<u64> = state.population.iter().map(|i| i.serial).collect();
    assert_eq!(scheme.fitness.iter().map(|f| f.0).collect::<Vec<_>>(), population);
    // Generation 1 judges the initial population; every later one keeps its elite and breeds
    // three children, so serials 4, 5, 6, then 7, 8, 9, ... and 4 + 3 × 5 = 19 serials in all.
    let generations = loa_records::jsonl::read::<GenerationRecord>(&a.generations()).unwrap().records;
    let kept: Vec<u32> = generations.iter().map(|g| g.survivors_kept).collect();
    assert_eq!(kept, [4, 1, 1, 1, 1, 1]);
    assert_eq!(state.serials.peek(), 19);
    assert!(population.iter().filter(|&&s| s >= 16).count() == 3, "{population:?}");
    for g in &generations {
        let figures = g.figures.as_ref().unwrap();
        assert_eq!(figures.text("unit"), Some("points"));
        let (best, mean) = (figures.number("best").unwrap(), figures.number("mean").unwrap());
        assert!((0.0..=1.0).contains(&mean) && best >= mean, "{figures:?}");
        assert!(figures.number("vs_fixed").is_some_and(|v| (0.0..=1.0).contains(&v)));
        // 4 candidates each host a drawn opponent and the fixed player, and from generation 1
        // on (epoch 0's champion inducted) a champion unless it sits in the task already.
        assert!((8 * 2..=12 * 2).contains(&g.games), "{} games", g.games);
    }
}
