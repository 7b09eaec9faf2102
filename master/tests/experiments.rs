//! Match experiments: the same file for any number of worker threads, a run's
//! survivors by epoch, files `analysis` can read, and the command line end to end.

use loa_master::config::ExperimentConfig;
use loa_master::experiment::{ExperimentOptions, MatchExperiment, epoch_path, run};
use loa_master::run::{RunOptions, start};
use loa_records::{MatchLine, jsonl};
use std::path::Path;
use std::process::Command;

fn experiment(text: &str) -> MatchExperiment {
    MatchExperiment::from_toml(text).unwrap()
}

fn lines(path: &Path) -> Vec<MatchLine> {
    jsonl::read::<MatchLine>(path).unwrap().records
}

#[test]
fn one_thread_and_two_threads_write_the_same_bytes() {
    let tmp = tempfile::tempdir().unwrap();
    let config = experiment(
        "a = \"randomann:1\"\nb = \"random:1\"\nmatches = 5\nseed = 9\nswap_colours = true\n\
         matches_per_task = 2\nopening_plies = 2\n[rules]\nply_cap = 40\n",
    );
    let (one, two) = (tmp.path().join("one.jsonl"), tmp.path().join("two.jsonl"));
    let r1 = run(&config, &one, &ExperimentOptions::embedded(1)).unwrap();
    let r2 = run(&config, &two, &ExperimentOptions::embedded(2)).unwrap();
    assert_eq!(std::fs::read(&one).unwrap(), std::fs::read(&two).unwrap());
    assert_eq!(r1.total, r2.total);
    assert_eq!((r1.total.series.matches, r1.tasks), (10, 5));
    // Swapped pairs: the first player is White in game 0 of every second match, and both
    // matches of a swapped pair start from the same position with the same game seeds.
    let games: Vec<_> = lines(&one)
        .into_iter()
        .filter_map(|l| match l {
            MatchLine::Game(g) => Some(g),
            MatchLine::Summary(_) => None,
        })
        .collect();
    assert_eq!(games.len(), 20);
    assert_eq!(games[0].first_color, loa_records::Color::Black);
    assert_eq!(games[2].first_color, loa_records::Color::White);
    assert_eq!((games[0].start.clone(), games[0].seed), (games[2].start.clone(), games[2].seed));
    assert!(games.iter().all(|g| g.black == "randomann:1" || g.white == "randomann:1"));
    let t = r1.total;
    assert_eq!(t.series.sides[0].matches_won + t.series.sides[1].matches_won, t.series.matches);
    assert_eq!(t.decided[0] + t.decided[1] + t.ties, t.series.matches);
}

#[test]
fn a_runs_survivors_play_by_epoch_and_get_their_own_files() {
    let tmp = tempfile::tempdir().unwrap();
    let run_dir = tmp.path().join("run");
    let ga = ExperimentConfig::from_toml(
        "epochs = 1\npopulation = 4\ngenerations_per_epoch = 1\nnetwork_depth = 1\n\
         [benchmark]\nreference = \"random\"\ndepth = 1\n[rules]\nply_cap = 30\n",
    )
    .unwrap();
    start(ga, &run_dir, &RunOptions::embedded(2)).unwrap();
    let config = experiment(&format!(
        "a = \"run:1:{}:epochs=0-1\"\nb = \"random:1\"\nmatches = 1\nswap_colours = true\n[rules]\nply_cap = 30\n",
        run_dir.display()
    ));
    let out = tmp.path().join("e.jsonl");
    let report = run(&config, &out, &ExperimentOptions::embedded(2)).unwrap();
    assert_eq!(report.total.series.matches, 16);
    assert_eq!(report.by_epoch.iter().map(|(e, t, _)| (*e, t.series.matches)).collect::<Vec<_>>(), [(0, 8), (1, 8)]);
    for epoch in [0, 1] {
        let path = epoch_path(&out, epoch);
        assert_eq!(path.file_name().unwrap().to_str().unwrap(), format!("e.epoch-0000{epoch}.jsonl"));
        assert_eq!(lines(&path).len(), 17);
    }
    // A missing epoch names its checkpoint.
    let missing = experiment(&format!("a = \"run:1:{}:epochs=7\"\nb = \"random:1\"\nmatches = 1\n", run_dir.display()));
    let err = run(&missing, &tmp.path().join("x.jsonl"), &ExperimentOptions::embedded(1)).unwrap_err().to_string();
    assert!(err.contains("player `a`") && err.contains("epoch-00007"), "{err}");
    // A plan over its bound is refused before it is built, and nothing is written: the 16
    // matches above against a bound of 15, and 8 survivors × 10⁶ matches × 2 against the default.
    let a = format!("a = \"run:1:{}:epochs=0-1\"\nb = \"random:1\"\nswap_colours = true\n", run_dir.display());
    for (extra, planned, max) in
        [("matches = 1\nmax_matches = 15\n", 16, 15), ("matches = 1000000\n", 16_000_000, 10_000_000)]
    {
        let out = tmp.path().join("big.jsonl");
        let err = run(&experiment(&format!("{a}{extra}")), &out, &ExperimentOptions::embedded(1)).unwrap_err();
        let expected = format!("the experiment plans {planned} two-game matches, more than max_matches = {max}");
        assert!(err.to_string().starts_with(&expected), "{err}");
        assert!(err.to_string().contains("raise `max_matches`"), "{err}");
        assert!(!out.exists());
    }
}

#[test]
fn the_command_writes_the_file_and_names_bad_configs() {
    let tmp = tempfile::tempdir().unwrap();
    let config = tmp.path().join("e.toml");
    std::fs::write(&config, "title = \"tiny\"\na = \"random:1\"\nb = \"random:1:1\"\nmatches = 3\n").unwrap();
    let out = tmp.path().join("out/e.jsonl");
    let o = Command::new(env!("CARGO_BIN_EXE_master"))
        .args(["experiment", "--config", config.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains("tiny") && stdout.contains("criterion 4 as a tie"), "{stdout}");
    assert_eq!(lines(&out).len(), 7);
    std::fs::write(&config, "a = \"random:1\"\nb = \"random:1\"\nmatches = 3\nsead = 4\n").unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_master"))
        .args(["experiment", "--config", config.to_str().unwrap(), "--out", out.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("sead"));
}

#[test]
fn an_experiment_on_a_small_board_plays_there_and_refuses_networks_of_another() {
    use loa_engine::game::play_match;
    use loa_engine::network::{Chromosome, ShapedNetwork, Topology};
    use loa_engine::players::SearchPlayer;
    let tmp = tempfile::tempdir().unwrap();
    let shape = Topology::from_name("5x5-board-25-12-1").unwrap();
    let mut state = 17u64;
    let chromosome = Chromosome::random(shape, || {
        state = loa_engine::random::mix64(state);
        state
    });
    let net = tmp.path().join("net.json");
    chromosome.write(&net).unwrap();
    let text = format!(
        "a = \"net:2:{}\"\nb = \"aloa:2\"\nmatches = 6\nseed = 4\nopening_plies = 4\nboard = \"5x5\"\n",
        net.display()
    );
    let out = tmp.path().join("games.jsonl");
    run(&experiment(&text), &out, &ExperimentOptions::embedded(2)).unwrap();
    let games: Vec<_> = lines(&out)
        .into_iter()
        .filter_map(|l| match l {
            MatchLine::Game(g) => Some(g),
            MatchLine::Summary(_) => None,
        })
        .collect();
    assert_eq!(games.len(), 12);
    let (a, b) = (
        SearchPlayer { eval: std::sync::Arc::new(ShapedNetwork::new(&chromosome)), depth: 2 },
        SearchPlayer { eval: loa_engine::aloa::Aloa::quad(), depth: 2 },
    );
    let rules = loa_engine::Rules::default();
    for pair in games.chunks(2) {
        // The recorded start is a 5×5 position, and the match played directly from it agrees.
        let start: loa_engine::Position = pair[0].start.parse().unwrap();
        assert_eq!((start.size().side(), pair[0].start.split('/').count()), (5, 5), "{}", pair[0].start);
        let seed = loa_engine::random::derive_seed(4, pair[0].pair);
        assert_eq!(pair[0].seed, loa_engine::random::derive_seed(seed, 0));
        let record = play_match(&a, &b, &rules, start, seed);
        for (game, played) in pair.iter().zip(&record.games) {
            let black = loa_engine::game::benchmark_score(played.outcome, played.plies, loa_engine::Color::Black);
            assert_eq!((game.plies, game.black_score), (played.plies, black));
        }
    }
    let thesis = tmp.path().join("thesis.json");
    loa_engine::network::random_uniform(1).write(&thesis).unwrap();
    let wrong = format!("a = \"net:2:{}\"\nb = \"aloa:2\"\nmatches = 1\nboard = \"5x5\"\n", thesis.display());
    let err = run(&experiment(&wrong), &tmp.path().join("wrong.jsonl"), &ExperimentOptions::embedded(1)).unwrap_err();
    assert!(err.to_string().starts_with("player `a`: the network board-nonad-100-20-1 reads the 8x8 board"), "{err}");
}
