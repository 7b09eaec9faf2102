//! Runs whose candidates meet a hall of fame drawn in common (the same champions, from the same
//! openings, for every candidate of a generation) from a window of recent champions, and report
//! their fitness's noise: deterministic across threads, resumed bit for bit, and the champions
//! are the centres (evolution strategies) or means (CMA-ES) of past epochs.

use loa_master::checkpoint::RunState;
use loa_master::config::ExperimentConfig;
use loa_master::run::{RunDir, RunOptions, resume, start};
use loa_master::selection::{SchemeState, cma_es, evolution_strategies};
use loa_records::{EpochReport, GenerationRecord};
use std::path::Path;

const HALL: &str = "hall_of_fame = 1\nhall_of_fame_draw = \"common\"\nhall_of_fame_window = 2\n\
                    report_noise = true\nfixed_matches = 2\nopening_plies = 2\n";

/// A small run of `scheme` (`evolution-strategies` or `cma-es`) with `settings`, against a
/// ladder of one rung and the hall of fame.
fn config(scheme: &str, settings: &str, epochs: u32) -> ExperimentConfig {
    let text = format!(
        "seed = 8\nepochs = {epochs}\npopulation = 4\ngenerations_per_epoch = 2\nnetwork_depth = 1\n\
         [benchmark]\nreference = \"random\"\ndepth = 1\n[rules]\nply_cap = 40\n\
         [selection.scheme.{scheme}]\nsigma = 0.1\nopponents = 1\nladder = [\"random:1\"]\n{HALL}{settings}"
    );
    ExperimentConfig::from_toml(&text).unwrap()
}

fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn generations(dir: &RunDir) -> Vec<GenerationRecord> {
    let records = loa_records::jsonl::read::<GenerationRecord>(&dir.generations()).unwrap().records;
    records.iter().map(GenerationRecord::deterministic_part).collect()
}

/// The serials a run's epochs inducted: epoch 0's best benchmarked network, then each epoch's
/// population, which is the centre alone.
fn centres(dir: &RunDir) -> Vec<u64> {
    let epochs = loa_records::jsonl::read::<EpochReport>(&dir.epochs()).unwrap().records;
    let mut serials = vec![epochs[0].champion().unwrap().serial];
    for report in &epochs[1..] {
        assert_eq!(report.entries.len(), 1, "epoch {}: the centre alone", report.epoch);
        serials.push(report.entries[0].serial);
    }
    serials
}

#[test]
fn an_evolution_strategies_run_with_a_common_hall_of_fame_is_deterministic_and_resumes() {
    let settings = "learning_rate = 0.05\n";
    let tmp = tempfile::tempdir().unwrap();
    let (one, two, resumed) = (tmp.path().join("one"), tmp.path().join("two"), tmp.path().join("resumed"));
    start(config("evolution-strategies", settings, 3), &one, &RunOptions::embedded(1)).unwrap();
    start(config("evolution-strategies", settings, 3), &two, &RunOptions::embedded(2)).unwrap();
    start(config("evolution-strategies", settings, 1), &resumed, &RunOptions::embedded(2)).unwrap();
    resume(&resumed, None, Some(2), &RunOptions::embedded(1)).unwrap();
    let (a, b, c) = (RunDir::new(&one), RunDir::new(&two), RunDir::new(&resumed));
    for epoch in 0..=3 {
        assert!(read(&a.epoch_checkpoint(epoch)) == read(&b.epoch_checkpoint(epoch)), "threads, epoch {epoch}");
    }
    for epoch in 2..=3 {
        assert!(read(&a.epoch_checkpoint(epoch)) == read(&c.epoch_checkpoint(epoch)), "resumed, epoch {epoch}");
    }
    assert_eq!(read(&a.epochs()), read(&c.epochs()));
    assert_eq!(generations(&a), generations(&c));
    // Every centre joined the hall of fame.
    let state = RunState::load(&a.epoch_checkpoint(3)).unwrap();
    let scheme = evolution_strategies::State::load(&state.scheme_state).unwrap();
    let hall: Vec<u64> = scheme.judged.hall_of_fame.iter().map(|h| h.serial).collect();
    assert_eq!(hall, centres(&a));
    // Each of 4 candidates hosts 1 drawn match, 2 against the rung and, from generation 1 on
    // (epoch 0's champion inducted), 2 against one champion: 20 matches of 2 games.
    let lines = generations(&a);
    assert!(lines.iter().all(|g| g.games == 40), "{lines:?}");
    for g in &lines {
        let f = g.figures.as_ref().unwrap();
        let (noise, signal) = (f.number("noise_sd").unwrap(), f.number("signal_sd").unwrap());
        assert!(noise >= 0.0 && signal >= 0.0, "{f:?}");
        if let Some(r) = f.number("reliability") {
            let expected = (signal.powi(2) - noise.powi(2)).max(0.0) / signal.powi(2);
            assert!((0.0..=1.0).contains(&r) && (r - expected).abs() < 1e-9, "{f:?}");
        }
    }
}

#[test]
fn cma_es_inducts_its_mean_into_the_hall_of_fame() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("cma");
    start(config("cma-es", "", 3), &out, &RunOptions::embedded(2)).unwrap();
    let dir = RunDir::new(&out);
    let state = RunState::load(&dir.epoch_checkpoint(3)).unwrap();
    let scheme = cma_es::State::load(&state.scheme_state).unwrap();
    let hall: Vec<u64> = scheme.judged.hall_of_fame.iter().map(|h| h.serial).collect();
    assert_eq!(hall, centres(&dir));
    assert!(generations(&dir).iter().all(|g| g.figures.as_ref().is_some_and(|f| f.number("noise_sd").is_some())));
    // run.log's generation lines say it too.
    let log = std::fs::read_to_string(dir.log()).unwrap();
    let lines: Vec<&str> = log.lines().filter(|l| l.contains(" games, ")).collect();
    assert!(lines.len() == 6 && lines.iter().all(|l| l.contains(", noise_sd ") && l.contains(", signal_sd ")), "{log}");
}
