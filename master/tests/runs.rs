//! Whole runs on tiny settings: determinism across thread counts and resumes, checkpoint
//! corruption detection, refusal to overwrite, export.

use loa_master::config::ExperimentConfig;
use loa_master::run::{Pick, RunDir, RunOptions, WorkOptions, export, resume, start};
use loa_master::selection::SchemeState;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

/// A configuration small enough for a test: 4 survivors, 1-ply players, short games.
fn tiny(epochs: u32) -> ExperimentConfig {
    let mut c = ExperimentConfig {
        seed: 12345,
        epochs,
        population: 4,
        generations_per_epoch: 2,
        network_depth: 1,
        ..Default::default()
    };
    c.benchmark.depth = 1;
    c.rules.ply_cap = 40;
    c
}

fn options(threads: usize) -> RunOptions {
    RunOptions::embedded(threads)
}

fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn same_seed_same_checkpoints_with_one_or_two_threads() {
    let tmp = tempfile::tempdir().unwrap();
    let (one, two) = (tmp.path().join("one"), tmp.path().join("two"));
    let a = start(tiny(2), &one, &options(1)).unwrap();
    let b = start(tiny(2), &two, &options(2)).unwrap();
    assert_eq!((a.epoch, a.generation, a.stopped), (2, 4, false));
    assert_eq!(a, b);
    let (d1, d2) = (RunDir::new(&one), RunDir::new(&two));
    for epoch in 0..=2 {
        assert_eq!(read(&d1.epoch_checkpoint(epoch)), read(&d2.epoch_checkpoint(epoch)), "epoch {epoch}");
    }
    assert_eq!(read(&d1.latest_checkpoint()), read(&d2.latest_checkpoint()));
    assert_eq!(read(&d1.epochs()), read(&d2.epochs()));
    // Another seed gives another run.
    let three = tmp.path().join("three");
    start(ExperimentConfig { seed: 999, ..tiny(1) }, &three, &options(2)).unwrap();
    assert_ne!(read(&d1.epoch_checkpoint(1)), read(&RunDir::new(&three).epoch_checkpoint(1)));
}

#[test]
fn three_epochs_equal_two_resumed_for_one_more() {
    let tmp = tempfile::tempdir().unwrap();
    let (straight, resumed) = (tmp.path().join("straight"), tmp.path().join("resumed"));
    start(tiny(3), &straight, &options(2)).unwrap();
    start(tiny(2), &resumed, &options(1)).unwrap();
    let r = resume(&resumed, None, Some(1), &options(2)).unwrap();
    assert_eq!((r.epoch, r.generation), (3, 6));
    let (a, b) = (RunDir::new(&straight), RunDir::new(&resumed));
    assert_eq!(read(&a.epoch_checkpoint(3)), read(&b.epoch_checkpoint(3)));
    assert_eq!(read(&a.epochs()), read(&b.epochs()));
    // Resuming from an earlier epoch replays the same future and rewrites the metrics.
    let r = resume(&resumed, Some(1), Some(2), &options(1)).unwrap();
    assert_eq!(r.epoch, 3);
    assert_eq!(read(&a.epoch_checkpoint(3)), read(&b.epoch_checkpoint(3)));
    assert_eq!(read(&a.epochs()), read(&b.epochs()));
    let generations = String::from_utf8(read(&b.generations())).unwrap();
    assert_eq!(generations.lines().count(), 6, "one line per generation after the resume");
}

#[test]
fn corrupted_or_truncated_checkpoints_are_named_on_resume() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    start(tiny(1), &run, &options(1)).unwrap();
    let dir = RunDir::new(&run);
    let path = dir.epoch_checkpoint(1);
    let good = read(&path);
    // No more epochs, or more than the epoch number holds: refused before anything is written
    // (the sum was saved in every later checkpoint, which no resume could then read).
    for more in [0, u32::MAX] {
        let err = resume(&run, Some(1), Some(more), &options(1)).unwrap_err().to_string();
        assert!(err.contains("--epochs"), "{more}: {err}");
    }
    assert_eq!(read(&path), good);
    let mut bad = good.clone();
    let middle = bad.len() / 2;
    bad[middle] ^= 0x40;
    std::fs::write(&path, &bad).unwrap();
    let err = resume(&run, Some(1), Some(1), &options(1)).unwrap_err().to_string();
    assert!(err.contains("epoch-00001.ckpt") && err.contains("corrupted"), "{err}");
    std::fs::write(&path, &good[..good.len() - 100]).unwrap();
    let err = resume(&run, Some(1), Some(1), &options(1)).unwrap_err().to_string();
    assert!(err.contains("epoch-00001.ckpt") && err.contains("truncated"), "{err}");
    std::fs::write(&path, b"hello").unwrap();
    let err = resume(&run, Some(1), Some(1), &options(1)).unwrap_err().to_string();
    assert!(err.contains("not a loa-evolve checkpoint"), "{err}");
    let err = resume(&run, Some(7), None, &options(1)).unwrap_err().to_string();
    assert!(err.contains("epoch 7 has no checkpoint") && err.contains("epochs with checkpoints: 0, 1"), "{err}");
}

#[test]
fn run_refuses_to_overwrite_and_export_writes_chromosomes() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    start(tiny(1), &run, &options(1)).unwrap();
    let err = start(tiny(1), &run, &options(1)).unwrap_err().to_string();
    assert!(err.contains("already holds a run"), "{err}");
    let json = export(&run, 1, Pick::Index(3)).unwrap().json;
    let chromosome = loa_engine::network::Chromosome::from_json(&json).unwrap();
    assert_eq!(chromosome.weights().len(), 2041);
    let err = export(&run, 1, Pick::Index(4)).unwrap_err().to_string();
    assert!(err.contains("no individual 4"), "{err}");
}

#[test]
fn a_run_stopped_mid_epoch_resumes_to_the_same_result() {
    let tmp = tempfile::tempdir().unwrap();
    let (run, straight) = (tmp.path().join("run"), tmp.path().join("straight"));
    let config = ExperimentConfig { network_depth: 2, ..tiny(3) };
    let stop = Arc::new(AtomicBool::new(false));
    let latest = RunDir::new(&run).latest_checkpoint();
    let summary = std::thread::scope(|s| {
        let handle = s.spawn(|| {
            start(
                config.clone(),
                &run,
                &RunOptions {
                    work: WorkOptions { stop: stop.clone(), ..WorkOptions::embedded(2) },
                    ..Default::default()
                },
            )
        });
        // Stop as soon as the first generation is checkpointed (the benchmark of epoch 0 writes
        // the first checkpoint, the first generation the second).
        let started = std::time::Instant::now();
        while started.elapsed().as_secs() < 60 {
            if latest.exists() && loa_master::checkpoint::RunState::load(&latest).is_ok_and(|s| s.generation >= 1) {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        stop.store(true, std::sync::atomic::Ordering::Release);
        handle.join().unwrap().unwrap()
    });
    eprintln!("stopped at generation {} (stopped: {})", summary.generation, summary.stopped);
    let resumed = resume(&run, None, None, &options(1)).unwrap();
    assert_eq!((resumed.epoch, resumed.stopped), (3, false));
    start(config, &straight, &options(2)).unwrap();
    let (a, b) = (RunDir::new(&run), RunDir::new(&straight));
    assert_eq!(read(&a.epoch_checkpoint(3)), read(&b.epoch_checkpoint(3)));
    assert_eq!(read(&a.epochs()), read(&b.epochs()));
}

/// (μ + λ) with Gaussian mutation and per-neuron crossover against a fixed opponent.
fn mu_plus_lambda(epochs: u32) -> ExperimentConfig {
    let text = "seed = 31\npopulation = 4\ngenerations_per_epoch = 2\nnetwork_depth = 1\n\
                [benchmark]\ndepth = 1\n[rules]\nply_cap = 40\n\
                [mutation]\nprobability = 1.0\n[mutation.operator.gaussian]\nsigma = 0.1\n\
                [crossover]\noperator = \"per-neuron\"\n\
                [selection.scheme.mu-plus-lambda]\noffspring = 1\nopponents = 3\nfixed_opponents = [\"random:1\"]\n";
    ExperimentConfig { epochs, ..ExperimentConfig::from_toml(text).unwrap() }
}

#[test]
fn a_mu_plus_lambda_run_is_deterministic_across_threads_and_resumes() {
    let tmp = tempfile::tempdir().unwrap();
    let (one, two, resumed) = (tmp.path().join("one"), tmp.path().join("two"), tmp.path().join("resumed"));
    start(mu_plus_lambda(2), &one, &options(1)).unwrap();
    start(mu_plus_lambda(2), &two, &options(2)).unwrap();
    start(mu_plus_lambda(1), &resumed, &options(2)).unwrap();
    resume(&resumed, None, Some(1), &options(1)).unwrap();
    let (a, b, c) = (RunDir::new(&one), RunDir::new(&two), RunDir::new(&resumed));
    for epoch in 0..=2 {
        assert!(read(&a.epoch_checkpoint(epoch)) == read(&b.epoch_checkpoint(epoch)), "threads, epoch {epoch}");
    }
    // Checkpoints hold the target epoch count: the resumed run's equals the straight one's from
    // the resume on.
    assert!(read(&a.epoch_checkpoint(2)) == read(&c.epoch_checkpoint(2)), "resumed epoch 2");
    assert!(read(&a.epochs()) == read(&c.epochs()), "epochs.jsonl");
    // Each generation: 8 candidates host 3 network matches and 1 against the fixed player.
    let generations = String::from_utf8(read(&a.generations())).unwrap();
    let first: serde_json::Value = serde_json::from_str(generations.lines().next().unwrap()).unwrap();
    assert_eq!(first["games"], 8 * 4 * 2);
    assert!(first["survivors_kept"].as_u64().unwrap() <= 4);
}

/// Runs a small two-epoch ES configuration (with `extra` settings of the scheme) with one and
/// with two threads, checks that their checkpoints are the same, and returns the first run.
fn small_es_run_on_one_and_two_threads(tmp: &Path, extra: &str) -> RunDir {
    let text = format!(
        "seed = 8\nepochs = 2\npopulation = 4\ngenerations_per_epoch = 2\nnetwork_depth = 1\n\
         [benchmark]\ndepth = 1\n[rules]\nply_cap = 40\n\
         [selection.scheme.evolution-strategies]\nsigma = 0.05\nlearning_rate = 0.02\nopponents = 1\n\
         fixed_opponents = [\"random:1\"]\n{extra}"
    );
    let config = ExperimentConfig::from_toml(&text).unwrap();
    let (one, two) = (tmp.join("one"), tmp.join("two"));
    start(config.clone(), &one, &options(1)).unwrap();
    start(config, &two, &options(2)).unwrap();
    let (a, b) = (RunDir::new(&one), RunDir::new(&two));
    for epoch in 0..=2 {
        assert!(read(&a.epoch_checkpoint(epoch)) == read(&b.epoch_checkpoint(epoch)), "epoch {epoch}");
    }
    a
}

#[test]
fn an_evolution_strategies_run_is_deterministic_and_benchmarks_its_centre() {
    let tmp = tempfile::tempdir().unwrap();
    let a = small_es_run_on_one_and_two_threads(tmp.path(), "");
    // Epoch 0 benchmarks the 4 random networks, later epochs the centre alone.
    let epochs = String::from_utf8(read(&a.epochs())).unwrap();
    let sizes: Vec<usize> = epochs
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["entries"].as_array().unwrap().len())
        .collect();
    assert_eq!(sizes, [4, 1, 1]);
}

/// Tied weights (`symmetry`): the same checkpoints with one or two threads, and every stored
/// centre tied (each weight equal to its class's mean), so its evaluation is the same for a
/// position and its seven images.
#[test]
fn a_tied_evolution_strategies_run_is_deterministic_and_keeps_its_centre_tied() {
    use loa_engine::network::symmetry::{Tying, WeightTying};
    use loa_master::checkpoint::RunState;
    let tmp = tempfile::tempdir().unwrap();
    let a = small_es_run_on_one_and_two_threads(tmp.path(), "symmetry = \"equivariant\"\n");
    let tying = Tying::new(WeightTying::Equivariant);
    let first = RunState::load(&a.epoch_checkpoint(0)).unwrap().individuals().unwrap();
    assert_ne!(tying.project(first[0].chromosome.weights()), first[0].chromosome.weights(), "a random start");
    for epoch in 1..=2 {
        let centre = RunState::load(&a.epoch_checkpoint(epoch)).unwrap().individuals().unwrap();
        let weights = centre[0].chromosome.weights();
        assert_eq!(tying.project(weights), weights, "epoch {epoch}'s centre is tied");
    }
}

#[test]
fn an_evolution_strategies_run_starts_from_a_given_network_and_resumes_without_its_file() {
    let tmp = tempfile::tempdir().unwrap();
    // The imitation diagnostic's network: it wins games, so the perturbations' scores
    // differ and the centre moves (a degenerate network draws every short game and never moves).
    let committed = Path::new(env!("CARGO_MANIFEST_DIR")).join("../experiments/nets/imitation-aloa.json");
    let given = loa_engine::network::Chromosome::read(&committed).unwrap();
    let weights = given.weights().to_vec();
    let net = tmp.path().join("start.json");
    given.write(&net).unwrap();
    let text = format!(
        "seed = 8\nepochs = 2\npopulation = 4\ngenerations_per_epoch = 2\nnetwork_depth = 1\n\
         [benchmark]\ndepth = 1\n[rules]\nply_cap = 40\n\
         [selection.scheme.evolution-strategies]\nsigma = 0.05\nlearning_rate = 0.02\nopponents = 1\n\
         fixed_opponents = [\"random:1\"]\ninitial_network = {:?}\n",
        net.to_str().unwrap()
    );
    let config = ExperimentConfig::from_toml(&text).unwrap();
    let (one, two, cut) = (tmp.path().join("one"), tmp.path().join("two"), tmp.path().join("cut"));
    start(config.clone(), &one, &options(1)).unwrap();
    // The epoch-0 population is the given network alone, and it is the exported individual.
    let (a, b) = (RunDir::new(&one), RunDir::new(&two));
    let first = loa_master::checkpoint::RunState::load(&a.epoch_checkpoint(0)).unwrap();
    assert_eq!(first.population.len(), 1);
    assert!(first.individuals().unwrap()[0].chromosome.weights() == &weights[..]);
    let exported = loa_engine::network::Chromosome::from_json(&export(&one, 0, Pick::Index(0)).unwrap().json).unwrap();
    assert!(exported.weights() == &weights[..]);
    // The updates move the centre off it.
    let moved = loa_master::checkpoint::RunState::load(&a.epoch_checkpoint(1)).unwrap();
    assert!(moved.individuals().unwrap()[0].chromosome.weights() != &weights[..]);

    // Deterministic across threads; a resume needs the checkpoint, not the file.
    start(config.clone(), &two, &options(2)).unwrap();
    for epoch in 0..=2 {
        assert!(read(&a.epoch_checkpoint(epoch)) == read(&b.epoch_checkpoint(epoch)), "epoch {epoch}");
    }
    std::fs::remove_file(&net).unwrap();
    let c = RunDir::new(&cut);
    std::fs::create_dir_all(c.checkpoints()).unwrap();
    std::fs::copy(a.epoch_checkpoint(1), c.epoch_checkpoint(1)).unwrap();
    resume(&cut, Some(1), None, &options(2)).unwrap();
    assert!(read(&a.epoch_checkpoint(2)) == read(&c.epoch_checkpoint(2)), "resumed epoch 2");

    // Without the file, or with a file that is not a network of the run's shape, the run does
    // not start, and the error names the key and the file.
    let err = start(config.clone(), &tmp.path().join("missing"), &options(1)).unwrap_err().to_string();
    assert!(err.contains("initial_network") && err.contains("start.json"), "{err}");
    assert!(!tmp.path().join("missing").exists(), "a run that cannot start writes nothing");
    let json = given.to_json();
    let cut_short = format!("{}]}}", &json[..json.rfind(',').unwrap()]);
    std::fs::write(&net, cut_short).unwrap();
    let err = start(config, &tmp.path().join("short"), &options(1)).unwrap_err().to_string();
    assert!(err.contains("initial_network") && err.contains("start.json") && err.contains("2040"), "{err}");
}

/// (μ, λ) with one elite, round robin in groups of 3, a hall of fame, the benchmark score as
/// fitness and two matches from common random openings against a fixed opponent.
fn judged(epochs: u32) -> ExperimentConfig {
    let text = "seed = 5\npopulation = 3\ngenerations_per_epoch = 2\nnetwork_depth = 1\n\
                [benchmark]\ndepth = 1\n[rules]\nply_cap = 40\n\
                [mutation]\nprobability = 1.0\n[mutation.operator.gaussian]\nsigma = 0.1\n\
                [selection.scheme.mu-plus-lambda]\noffspring = 2\nopponents = 0\ngroups = 3\nelitism = 1\n\
                hall_of_fame = 1\nfitness = \"benchmark-score\"\nopening_plies = 2\nfixed_matches = 2\n\
                fixed_opponents = [\"random:1\"]\n";
    ExperimentConfig { epochs, ..ExperimentConfig::from_toml(text).unwrap() }
}

#[test]
fn a_run_with_groups_a_hall_of_fame_and_elitism_is_deterministic_and_resumes() {
    use loa_master::checkpoint::RunState;
    let tmp = tempfile::tempdir().unwrap();
    let (one, two, resumed) = (tmp.path().join("one"), tmp.path().join("two"), tmp.path().join("resumed"));
    start(judged(3), &one, &options(1)).unwrap();
    start(judged(3), &two, &options(2)).unwrap();
    start(judged(1), &resumed, &options(2)).unwrap();
    resume(&resumed, None, Some(2), &options(1)).unwrap();
    let (a, b, c) = (RunDir::new(&one), RunDir::new(&two), RunDir::new(&resumed));
    for epoch in 0..=3 {
        assert!(read(&a.epoch_checkpoint(epoch)) == read(&b.epoch_checkpoint(epoch)), "threads, epoch {epoch}");
    }
    for epoch in 2..=3 {
        assert!(read(&a.epoch_checkpoint(epoch)) == read(&c.epoch_checkpoint(epoch)), "resumed, epoch {epoch}");
    }
    assert!(read(&a.epochs()) == read(&c.epochs()), "epochs.jsonl");
    // Format 7, and the hall of fame holds each epoch's champion once: the best benchmarked
    // survivor of each epoch, as epochs.jsonl names it.
    let bytes = read(&a.epoch_checkpoint(3));
    assert_eq!(bytes[8..12], 7u32.to_le_bytes());
    let state = RunState::decode(&bytes, &a.epoch_checkpoint(3)).unwrap();
    let epochs = loa_records::jsonl::read::<loa_records::EpochReport>(&a.epochs()).unwrap().records;
    let mut champions: Vec<u64> = Vec::new();
    for report in &epochs {
        let best = report.entries.iter().min_by_key(|e| (std::cmp::Reverse(e.combined), e.serial)).unwrap();
        if !champions.contains(&best.serial) {
            champions.push(best.serial);
        }
    }
    let scheme = loa_master::selection::mu_plus_lambda::State::load(&state.scheme_state).unwrap();
    let hall: Vec<u64> = scheme.judged.hall_of_fame.iter().map(|h| h.serial).collect();
    assert_eq!(hall, champions);
    // Generation 1: 9 candidates in 3 groups of 3 (3 matches each); each candidate hosts 2
    // matches against the fixed player and 1 against epoch 0's champion, except the champion
    // itself (a parent): 9 + 18 + 8 matches of 2 games.
    let generations = loa_records::jsonl::read::<loa_records::GenerationRecord>(&a.generations()).unwrap().records;
    assert_eq!(generations[0].games, (9 + 18 + 8) * 2);
    let figures = generations[0].figures.as_ref().unwrap();
    assert_eq!(figures.text("unit"), Some("benchmark-score"));
    let (best, mean) = (figures.number("best").unwrap(), figures.number("mean").unwrap());
    assert!(figures.number("vs_fixed").is_some_and(|v| (0.0..=200.0).contains(&v)) && best >= mean);
    // (μ, λ) with one elite keeps at most one parent.
    assert!(generations.iter().all(|g| g.survivors_kept <= 1), "{generations:?}");
}

#[test]
fn a_ladder_moves_up_when_the_candidates_score_enough_and_resumes_on_its_rung() {
    let text = "seed = 3\npopulation = 4\ngenerations_per_epoch = 2\nnetwork_depth = 1\n\
                [benchmark]\ndepth = 1\n[rules]\nply_cap = 40\n\
                [selection.scheme.evolution-strategies]\nsigma = 0.1\nlearning_rate = 0.05\nopponents = 0\n\
                ladder = [\"random:1\", \"random:1:7\", \"aloa:1\"]\npromote_at = 0.3\nopening_plies = 2\n\
                fixed_matches = 2\n";
    let config = |epochs| ExperimentConfig { epochs, ..ExperimentConfig::from_toml(text).unwrap() };
    let tmp = tempfile::tempdir().unwrap();
    let (straight, resumed) = (tmp.path().join("straight"), tmp.path().join("resumed"));
    start(config(3), &straight, &options(2)).unwrap();
    start(config(1), &resumed, &options(1)).unwrap();
    resume(&resumed, None, Some(2), &options(2)).unwrap();
    let (a, b) = (RunDir::new(&straight), RunDir::new(&resumed));
    assert!(read(&a.epoch_checkpoint(3)) == read(&b.epoch_checkpoint(3)), "resumed");
    // Each generation met rung r and scored p points per game against it; the next meets r + 1
    // exactly when p reached 0.3 (and a rung is left to climb).
    let lines = loa_records::jsonl::read::<loa_records::GenerationRecord>(&a.generations()).unwrap().records;
    let rung = |g: &loa_records::GenerationRecord| {
        let f = g.figures.as_ref().unwrap();
        (u32::try_from(f.whole("rung").unwrap()).unwrap(), f.number("vs_rung").unwrap())
    };
    let rungs: Vec<(u32, f64)> = lines.iter().map(rung).collect();
    assert_eq!(rungs[0].0, 0);
    for pair in rungs.windows(2) {
        let ((r, p), (next, _)) = (pair[0], pair[1]);
        let expected = if p >= 0.3 && r < 2 { r + 1 } else { r };
        assert_eq!(next, expected, "{rungs:?}");
    }
    assert!(rungs.iter().any(|&(r, _)| r > 0), "the ladder never moved: {rungs:?}");
    // Games per generation: 4 perturbations, 2 matches against the rung.
    assert!(lines.iter().all(|g| g.games == 4 * 2 * 2));
    let state = loa_master::checkpoint::RunState::load(&a.latest_checkpoint()).unwrap();
    let scheme = loa_master::selection::evolution_strategies::State::load(&state.scheme_state).unwrap();
    assert_eq!(scheme.judged.rung, rungs.last().map(|&(r, p)| if p >= 0.3 && r < 2 { r + 1 } else { r }).unwrap());
}

#[test]
fn self_adaptive_steps_are_kept_per_survivor_and_survive_a_resume() {
    use loa_master::checkpoint::RunState;
    let text = "seed = 21\npopulation = 4\ngenerations_per_epoch = 2\nnetwork_depth = 1\n\
                [benchmark]\ndepth = 1\n[rules]\nply_cap = 40\n\
                [mutation]\nprobability = 1.0\n[mutation.operator.self-adaptive]\nsigma = 0.05\ntau = 0.3\n\
                [selection.scheme.mu-plus-lambda]\noffspring = 2\nopponents = 2\nfixed_opponents = [\"random:1\"]\n";
    let config = |epochs| ExperimentConfig { epochs, ..ExperimentConfig::from_toml(text).unwrap() };
    let tmp = tempfile::tempdir().unwrap();
    let (straight, resumed) = (tmp.path().join("straight"), tmp.path().join("resumed"));
    start(config(2), &straight, &options(2)).unwrap();
    start(config(1), &resumed, &options(1)).unwrap();
    resume(&resumed, None, Some(1), &options(2)).unwrap();
    let (a, b) = (RunDir::new(&straight), RunDir::new(&resumed));
    assert!(read(&a.epoch_checkpoint(2)) == read(&b.epoch_checkpoint(2)), "resumed");
    // One step per survivor, by serial; they have moved away from the initial 0.05.
    let state = RunState::load(&a.latest_checkpoint()).unwrap();
    let serials: Vec<u64> = state.population.iter().map(|i| i.serial).collect();
    let steps = loa_master::selection::mu_plus_lambda::State::load(&state.scheme_state).unwrap().steps;
    let stepped: Vec<u64> = steps.iter().map(|&(s, _)| s).collect();
    assert_eq!(stepped, serials);
    assert!(steps.iter().any(|&(_, s)| s != 0.05), "{steps:?}");
    let lines = loa_records::jsonl::read::<loa_records::GenerationRecord>(&a.generations()).unwrap().records;
    for (line, g) in lines.iter().zip(1..) {
        let step = line.figures.as_ref().and_then(|f| f.number("mean_step")).unwrap();
        assert!(step > 0.0 && step < 1.0, "generation {g}: {step}");
    }
    // The operator needs (mu + lambda).
    let es = text.replace("mu-plus-lambda]\noffspring = 2\n", "evolution-strategies]\n");
    let err = start(ExperimentConfig::from_toml(&es).unwrap(), &tmp.path().join("es"), &options(1));
    let err = err.unwrap_err().to_string();
    assert!(err.contains("self-adaptive steps need a scheme that keeps each individual's step"), "{err}");
    assert!(!tmp.path().join("es").exists(), "a run that cannot start writes nothing");
}

/// A small CMA-ES run of `epochs` epochs with `extra` settings of the scheme.
fn cma_es(epochs: u32, extra: &str) -> ExperimentConfig {
    let text = format!(
        "seed = 21\nepochs = {epochs}\npopulation = 4\ngenerations_per_epoch = 6\nnetwork_depth = 1\n\
         [benchmark]\ndepth = 1\n[rules]\nply_cap = 40\n\
         [selection.scheme.cma-es]\nsigma = 0.2\nopponents = 1\nfixed_opponents = [\"random:1\"]\n{extra}"
    );
    ExperimentConfig::from_toml(&text).unwrap()
}

/// CMA-ES, tied with a full covariance and untied with the diagonal: the same checkpoints with
/// one or two threads, and three epochs straight equal two resumed for a third, bit for bit (the
/// optimiser's mean, σ, paths and covariance live in the checkpoint). With 277 parameters and 4
/// candidates the full covariance is decomposed every 10 generations, so the resume at
/// generation 12 goes on from a saved eigenbasis.
#[test]
fn a_cma_es_run_is_deterministic_across_threads_and_resumes_bit_for_bit() {
    use loa_engine::network::symmetry::{Tying, WeightTying};
    use loa_master::checkpoint::RunState;
    use loa_master::selection::cma_es;
    for extra in ["", "symmetry = \"none\"\ncovariance = \"diagonal\"\n"] {
        let tmp = tempfile::tempdir().unwrap();
        let (one, two, resumed) = (tmp.path().join("one"), tmp.path().join("two"), tmp.path().join("resumed"));
        start(cma_es(3, extra), &one, &options(1)).unwrap();
        start(cma_es(3, extra), &two, &options(2)).unwrap();
        start(cma_es(2, extra), &resumed, &options(2)).unwrap();
        let r = resume(&resumed, None, Some(1), &options(1)).unwrap();
        assert_eq!((r.epoch, r.generation), (3, 18));
        let (a, b, c) = (RunDir::new(&one), RunDir::new(&two), RunDir::new(&resumed));
        for epoch in 0..=3 {
            assert!(read(&a.epoch_checkpoint(epoch)) == read(&b.epoch_checkpoint(epoch)), "{extra}epoch {epoch}");
        }
        assert!(read(&a.epoch_checkpoint(3)) == read(&c.epoch_checkpoint(3)), "{extra}: resumed");
        assert_eq!(read(&a.epochs()), read(&c.epochs()));
        let state = RunState::load(&a.epoch_checkpoint(3)).unwrap();
        let scheme = cma_es::State::load(&state.scheme_state).unwrap();
        let cma = scheme.cma.expect("the optimiser is saved");
        // 18 generations of 4 candidates; the stored population is the mean alone.
        assert_eq!((cma.evaluations(), cma.lambda()), (72, 4), "{extra}");
        let mean = state.individuals().unwrap();
        assert_eq!(mean.len(), 1);
        if extra.is_empty() {
            let tying = Tying::new(WeightTying::Equivariant);
            assert_eq!(cma.mean().len(), 277);
            assert_eq!(tying.project(mean[0].chromosome.weights()), mean[0].chromosome.weights(), "the mean is tied");
        } else {
            assert_eq!(cma.mean().len(), 2041);
        }
    }
}

/// Every generation line of a CMA-ES run says where its search stands (σ, candidates,
/// restarts), the last one as the checkpoint holds it, and `master show` prints the same.
#[test]
fn a_cma_es_run_reports_its_search_each_generation_and_in_show() {
    use loa_master::checkpoint::RunState;
    use loa_master::selection::cma_es;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("cma");
    start(cma_es(1, "mean_learning_rate = 0.5\n"), &dir, &options(1)).unwrap();
    let run = RunDir::new(&dir);
    let lines = loa_records::jsonl::read::<loa_records::GenerationRecord>(&run.generations()).unwrap().records;
    assert_eq!(lines.len(), 6);
    let searches: Vec<loa_records::Figures> =
        lines.iter().map(|l| l.figures.as_ref().and_then(|f| f.get("search")).cloned()).map(group).collect();
    let at = |s: &loa_records::Figures| (s.whole("lambda"), s.whole("restarts"), s.get("restart").cloned());
    assert!(searches.iter().all(|s| at(s) == (Some(4), Some(0), None)), "{searches:?}");
    assert!(
        searches.iter().all(|s| s.number("sigma") != Some(0.2)),
        "σ adapts from σ₀ = 0.2 every generation: {searches:?}"
    );
    let state = RunState::load(&run.latest_checkpoint()).unwrap();
    let cma = cma_es::State::load(&state.scheme_state).unwrap().cma.unwrap();
    assert_eq!(searches[5].number("sigma"), Some(cma.sigma()), "the last line is the saved search");
    let shown = loa_master::run::show(&dir).unwrap();
    assert_eq!(shown.figures.get("search"), Some(&loa_records::Figure::Group(searches[5].clone())));
    let sigma = loa_records::Figure::Number(cma.sigma());
    let text = shown.to_string();
    assert!(text.contains(&format!("cma-es now: search.sigma {sigma}, search.lambda 4, search.restarts 0")), "{text}");
    let log = std::fs::read_to_string(run.log()).unwrap();
    assert!(log.contains(&format!("search.sigma {sigma}, search.lambda 4, search.restarts 0")), "{log}");
}

/// The group a figure is.
fn group(figure: Option<loa_records::Figure>) -> loa_records::Figures {
    match figure {
        Some(loa_records::Figure::Group(inner)) => inner,
        other => panic!("not a group: {other:?}"),
    }
}
