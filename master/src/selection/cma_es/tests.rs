//! The CMA-ES scheme: its settings, candidates, mean update, reported search and state.

use super::*;
use crate::rng::GaRng;
use loa_engine::game::{Criterion, MatchSide};
use crate::selection::{as_matches, outcomes_of};
use loa_engine::tasks::{GameSummary, MatchSummary, MatchTask, MatchTaskOutcome, TaskOutcome};
use loa_engine::{Color, Outcome};
use loa_records::Figure;

/// The configuration of `population` candidates with the scheme's `settings` (TOML lines),
/// or its error.
fn config(population: usize, settings: &str) -> Result<ExperimentConfig, String> {
    let text = format!("population = {population}\n[selection.scheme.cma-es]\n{settings}");
    let config = ExperimentConfig::from_toml(&text).map_err(|e| e.to_string())?;
    crate::selection::build(&config).map_err(|e| e.to_string())?;
    Ok(config)
}

/// Judged by one fixed opponent each.
const FIXED: &str = "opponents = 0\nfixed_opponents = [\"random:1\"]\n";

/// The scheme of `config`, a random first mean and its plan for generation 1 from `seed`.
fn planned(config: &ExperimentConfig, seed: u64) -> (CmaEs, Vec<Individual>, CmaPlan, Vec<MatchTask>) {
    let settings = parse_settings(NAME, &config.selection.scheme.settings).unwrap();
    let scheme = CmaEs { settings, state: State::default() };
    let (mut rng, mut serials) = (GaRng::from_seed(seed), SerialCounter::default());
    let start = crate::generation::initial_population(config, Topology::default(), &mut rng, &mut serials).unwrap()
        [..1]
        .to_vec();
    let mut b = Breeding { config, generation: 1, rng: &mut rng, serials: &mut serials };
    let (plan, tasks) = scheme.plan(&start, &mut b).unwrap();
    (scheme, start, own_plan(plan).unwrap(), as_matches(tasks))
}

/// Each candidate's one match against the fixed player: `winner` wins both games, the others
/// lose both.
fn outcomes(candidates: usize, winner: usize) -> Vec<TaskOutcome> {
    let game = |w| GameSummary { outcome: Outcome::Win(w), reason: loa_engine::EndReason::Connected, plies: 30 };
    outcomes_of((0..candidates).map(|c| {
            let (games, side) = match c == winner {
                true => ([game(Color::Black), game(Color::White)], MatchSide::A),
                false => ([game(Color::White), game(Color::Black)], MatchSide::B),
            };
            let summary = MatchSummary { a: 0, b: 1, winner: side, criterion: Criterion::WonBoth, games };
            MatchTaskOutcome { matches: vec![summary] }
        }))
}

#[test]
fn bad_settings_are_named_and_say_what_to_do() {
    assert!(config(62, "").is_ok(), "the defaults: tied weights, full covariance");
    let full = config(16, &format!("{FIXED}symmetry = \"none\"\n")).unwrap_err();
    assert!(full.contains("`selection.scheme.cma-es.covariance`") && full.contains("\"diagonal\""), "{full}");
    assert!(config(16, &format!("{FIXED}symmetry = \"none\"\ncovariance = \"diagonal\"\n")).is_ok());
    assert!(config(3, FIXED).unwrap_err().contains("`population`"));
    assert!(config(16, &format!("{FIXED}sigma = 0\n")).unwrap_err().contains("sigma"));
    assert!(config(16, &format!("{FIXED}max_restarts = 9\n")).unwrap_err().contains("max_restarts"));
    assert!(config(16, &format!("{FIXED}covariance = \"dense\"\n")).unwrap_err().contains("covariance"));
    assert!(config(16, &format!("{FIXED}learning_rate = 0.1\n")).unwrap_err().contains("learning_rate"));
    for bad in ["0", "-0.3", "1.5"] {
        let err = config(16, &format!("{FIXED}mean_learning_rate = {bad}\n")).unwrap_err();
        assert!(err.contains("`selection.scheme.cma-es.mean_learning_rate`") && err.contains("(0, 1]"), "{err}");
    }
    assert!(config(16, &format!("{FIXED}mean_learning_rate = 0.3\n")).is_ok());
}

#[test]
fn a_small_network_takes_a_full_covariance_untied_and_cannot_be_tied() {
    let small = |settings: &str| {
        let text =
            format!("population = 16\nnetwork = \"5x5-board-25-12-1\"\n[selection.scheme.cma-es]\n{FIXED}{settings}");
        let config = ExperimentConfig::from_toml(&text).map_err(|e| e.to_string())?;
        crate::selection::build(&config).map(|_| ()).map_err(|e| e.to_string())
    };
    assert_eq!(small("symmetry = \"none\"\n"), Ok(()), "325 weights");
    let tied = small("").unwrap_err();
    assert!(tied.contains("`selection.scheme.cma-es.symmetry`") && tied.contains("5x5-board-25-12-1"), "{tied}");
    let larger = "population = 16\n[network]\nboard_side = 6\nhidden = [20]\n[selection.scheme.cma-es]\n\
                  symmetry = \"none\"\nopponents = 0\nfixed_opponents = [\"random:1\"]\n";
    let config = ExperimentConfig::from_toml(larger).unwrap();
    let refusal = crate::selection::build(&config).err().unwrap().to_string();
    assert!(
        refusal.contains("all 1081 weights of 6x6-board-nonad-52-20-1") && refusal.contains("at most 400"),
        "{refusal}"
    );
}

#[test]
fn candidates_are_tied_drawn_from_the_runs_generator_and_judged_alike() {
    for symmetry in ["equivariant", "invariant"] {
        let config = config(6, &format!("{FIXED}symmetry = \"{symmetry}\"\n")).unwrap();
        let (_, start, plan, tasks) = planned(&config, 4);
        let tying = Tying::new(symmetry.parse().unwrap());
        assert_eq!((plan.judged.candidates.len(), tasks.len()), (6, 6), "λ is the population");
        assert_eq!(plan.asked[0].len(), tying.count());
        assert_eq!(plan.cma.mean(), &free(Some(&tying), start[0].chromosome.weights())[..]);
        for c in &plan.judged.candidates {
            let w = c.chromosome.weights();
            assert_eq!(tying.project(w), w, "{symmetry}: a candidate is tied");
        }
        // The same state and generator give the same candidates; another seed others.
        let (_, _, again, _) = planned(&config, 4);
        assert_eq!(again.asked, plan.asked);
        let (_, _, other, _) = planned(&config, 5);
        assert_ne!(other.asked, plan.asked);
    }
}

#[test]
fn the_mean_moves_to_the_weighted_mean_of_the_best_half() {
    let config = config(4, FIXED).unwrap();
    let (mut scheme, _, plan, _) = planned(&config, 4);
    let asked = plan.asked.clone();
    let next = scheme.select(Box::new(plan), &outcomes(4, 2)).unwrap().next;
    // λ = 4, μ = 2: weights ∝ ln 2.5 and ln 2.5 − ln 2, on the winner (candidate 2) and the
    // first of the tied losers (candidate 0); the new mean is their weighted mean (c_m = 1).
    let (w1, w2) = (2.5f64.ln(), 2.5f64.ln() - 2f64.ln());
    let expected: Vec<f64> = asked[2].iter().zip(&asked[0]).map(|(a, b)| (w1 * a + w2 * b) / (w1 + w2)).collect();
    let tying = Tying::new(WeightTying::Equivariant);
    let weights = next[0].chromosome.weights();
    for (j, &e) in tying.expand(&expected).iter().enumerate() {
        assert!((f64::from(weights[j]) - e).abs() < 1e-6, "weight {j}: {} against {e}", weights[j]);
    }
    assert_eq!(scheme.state.cma.as_ref().unwrap().evaluations(), 4);
}

#[test]
fn a_mean_learning_rate_moves_the_mean_that_fraction_of_the_way() {
    let (one, half) = (config(4, FIXED).unwrap(), config(4, &format!("{FIXED}mean_learning_rate = 0.5\n")).unwrap());
    let (mut full, start, plan, _) = planned(&one, 4);
    let (mut slow, _, slow_plan, _) = planned(&half, 4);
    assert_eq!(plan.asked, slow_plan.asked, "the same candidates");
    let to = full.select(Box::new(plan), &outcomes(4, 2)).unwrap().next;
    let halfway = slow.select(Box::new(slow_plan), &outcomes(4, 2)).unwrap().next;
    let weights = |i: &Individual| i.chromosome.weights().to_vec();
    // The first mean is the start's network tied.
    let first = Tying::new(WeightTying::Equivariant).project(&weights(&start[0]));
    for ((s, t), h) in first.iter().zip(weights(&to[0])).zip(weights(&halfway[0])) {
        let expected = (f64::from(*s) + f64::from(t)) / 2.0;
        assert!((f64::from(h) - expected).abs() < 1e-5, "{h} against {expected}");
    }
}

#[test]
fn a_restart_is_reported_in_the_generations_search() {
    // 16 candidates that all score the same: TolFun restarts the search once the best of
    // 10 + ⌈30 · 277 / 16⌉ = 530 generations lie within 10⁻¹².
    let config = config(16, &format!("{FIXED}covariance = \"diagonal\"\nmax_restarts = 1\n")).unwrap();
    let (mut scheme, _, mut plan, _) = planned(&config, 4);
    let (mut rng, mut serials) = (GaRng::from_seed(5), SerialCounter::default());
    for generation in 1..=530 {
        // usize::MAX: no candidate wins.
        let selected = scheme.select(Box::new(plan), &outcomes(16, usize::MAX)).unwrap();
        let figures = selected.figures.unwrap();
        let search = |name: &str| figures.get(&format!("search.{name}")).cloned();
        let survivors = selected.next;
        match generation {
            530 => {
                assert_eq!(
                    [search("sigma"), search("lambda"), search("restarts"), search("restart")],
                    [Some(Figure::Number(0.3)), Some(Figure::Whole(32)), Some(Figure::Whole(1)), Some("TolFun".into())],
                    "σ₀ again with twice the candidates"
                );
                assert_eq!(
                    selected.notes,
                    ["the search stalled (TolFun) and restarts from its mean with sigma 0.3 and 32 candidates per \
                      generation (restart 1)"]
                );
            }
            _ => {
                assert_eq!(
                    [search("lambda"), search("restarts"), search("restart")],
                    [Some(16u32.into()), Some(0u32.into()), None],
                    "{generation}"
                );
                assert!(selected.notes.is_empty(), "{generation}");
            }
        }
        let mut b = Breeding { config: &config, generation: generation + 1, rng: &mut rng, serials: &mut serials };
        plan = own_plan(scheme.plan(&survivors, &mut b).unwrap().0).unwrap();
    }
    assert_eq!(plan.asked.len(), 32);
}

#[test]
fn the_state_round_trips_and_one_of_another_run_is_refused() {
    let config = config(4, FIXED).unwrap();
    let (mut scheme, _, plan, _) = planned(&config, 4);
    assert!(scheme.state_figures().is_empty(), "no search before the first selection");
    let next = scheme.select(Box::new(plan), &outcomes(4, 1)).unwrap().next;
    let cma = scheme.state.cma.clone().unwrap();
    let shown = scheme.state_figures();
    assert_eq!(shown.number("search.sigma"), Some(cma.sigma()));
    assert_eq!((shown.number("search.lambda"), shown.number("search.restarts")), (Some(4.0), Some(0.0)));
    assert_eq!(shown.get("search.restart"), None, "no generation in hand to have restarted");
    let saved = scheme.save().unwrap();
    let mut restored = CmaEs { settings: scheme.settings.clone(), state: State::default() };
    restored.restore(&saved, &next, &config).unwrap();
    assert_eq!(restored.state, scheme.state);
    let diagonal = CmaEsConfig { covariance: Covariance::Diagonal, ..scheme.settings.clone() };
    let mut other = CmaEs { settings: diagonal, state: State::default() };
    let err = other.restore(&saved, &next, &config).unwrap_err().to_string();
    assert!(err.contains("covariance"), "{err}");
    let untied = CmaEsConfig { symmetry: WeightTying::Invariant, ..scheme.settings.clone() };
    let err = CmaEs { settings: untied, state: State::default() }.restore(&saved, &next, &config).unwrap_err();
    assert!(err.to_string().contains("361 coordinates"), "{err}");
}
