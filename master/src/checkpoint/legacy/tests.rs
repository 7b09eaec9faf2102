//! What the legacy reader writes is what the live schemes read: each frozen state, saved, loads
//! with its scheme's live type into the state it stands for, and while the scheme's state is at
//! version 1 it is the very bytes the scheme saves.

use super::state::{self, names};
use crate::population::Individual;
use crate::selection::adam::AdamState;
use crate::selection::judging::JudgingState;
use crate::selection::{SchemeState, evolution_strategies, knockout, mu_plus_lambda};
use loa_engine::network::{Chromosome, Topology};
use std::sync::Arc;

/// A champion of the thesis's network with weights that are not all alike.
fn champion(serial: u64) -> (state::Individual, Individual) {
    let topology = Topology::default();
    let weights: Vec<f32> = (0..topology.weight_count()).map(|i| (i as f32 * 0.37 + serial as f32).sin()).collect();
    let frozen = state::Individual { serial, topology: topology.name(), weights: weights.clone() };
    let live = Individual { serial, chromosome: Arc::new(Chromosome::new(topology, weights).unwrap()) };
    (frozen, live)
}

/// A hall of fame of two champions on rung 1, frozen and live.
fn judged() -> (state::Judging, JudgingState) {
    let ((a, live_a), (b, live_b)) = (champion(4), champion(11));
    (state::Judging { hall_of_fame: vec![a, b], rung: 1 }, JudgingState { hall_of_fame: vec![live_a, live_b], rung: 1 })
}

#[test]
fn the_names_are_the_schemes() {
    assert_eq!(
        [names::KNOCKOUT, names::MU_PLUS_LAMBDA, names::EVOLUTION_STRATEGIES],
        [knockout::NAME, mu_plus_lambda::NAME, evolution_strategies::NAME]
    );
}

#[test]
fn a_mu_plus_lambda_state_is_the_live_schemes_version_1() {
    let ((frozen, live), steps) = (judged(), vec![(4, 0.05), (11, 0.125)]);
    let bytes = state::save(&state::MuPlusLambda { judged: frozen, steps: steps.clone() }).unwrap();
    let expected = mu_plus_lambda::State { judged: live, steps };
    assert_eq!(mu_plus_lambda::State::load(&bytes).unwrap(), expected);
    if mu_plus_lambda::State::VERSION == state::VERSION {
        assert_eq!(bytes, expected.save().unwrap(), "the very bytes the scheme saves");
    }
    let empty =
        state::save(&state::MuPlusLambda { judged: state::Judging { hall_of_fame: vec![], rung: 0 }, steps: vec![] });
    assert_eq!(mu_plus_lambda::State::load(&empty.unwrap()).unwrap(), mu_plus_lambda::State::default());
}

#[test]
fn an_evolution_strategies_state_is_the_live_schemes_version_1() {
    let (frozen, live) = judged();
    let moments = state::Adam {
        updates: 3,
        beta_1_power: 0.729,
        beta_2_power: 0.997_002_999,
        first: vec![0.5, -0.25],
        second: vec![0.125, 1e-9],
    };
    let adam = AdamState {
        updates: 3,
        beta_1_power: 0.729,
        beta_2_power: 0.997_002_999,
        first: vec![0.5, -0.25],
        second: vec![0.125, 1e-9],
    };
    for (moments, adam) in [(moments, adam), (state::Adam::default(), AdamState::default())] {
        let bytes = state::save(&state::EvolutionStrategies { judged: frozen.clone(), adam: moments }).unwrap();
        let expected = evolution_strategies::State { judged: live.clone(), adam };
        assert_eq!(evolution_strategies::State::load(&bytes).unwrap(), expected);
        if evolution_strategies::State::VERSION == state::VERSION {
            assert_eq!(bytes, expected.save().unwrap(), "the very bytes the scheme saves");
        }
    }
}
