//! The `[mutation]` table: a one-parent operator of the engine's registry
//! ([`super::operators`]), whose `probability` is `[mutation] probability`, or one of the two
//! schedules of the engine's `gaussian` operator, `gaussian` and `self-adaptive`
//! ([`MutationOperator`]). Either way a mutant's origin records a `gaussian` variation, which a
//! worker applies as any other.

use super::operators::{check_variation, interval, operator, values, variation};
use super::{ConfigError, Named};
use crate::rng::GaRng;
use loa_engine::breeding::operators::{gaussian, uniform_reset};
use loa_engine::breeding::{PROBABILITY, Variation};
use serde::{Deserialize, Serialize};

/// The chance that an allele mutates where `[mutation] probability` is left out (the thesis's).
pub const DEFAULT_PROBABILITY: f64 = 0.15;

/// The smallest self-adaptive step: below it a lineage would stop moving.
pub const MIN_STEP: f64 = 1e-4;
/// The largest self-adaptive step (the weights' own range).
pub const MAX_STEP: f64 = 10.0;

/// The name of the Gaussian schedule's table.
const GAUSSIAN: &str = "gaussian";
/// The name of the self-adaptive form's table.
const SELF_ADAPTIVE: &str = "self-adaptive";

/// Mutation settings, `[mutation]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "MutationTable", into = "MutationTable")]
pub struct MutationConfig {
    /// The operator, with its parameters.
    pub operator: MutationOperator,
    /// Mutants each survivor makes (the thesis: 2, which with the survivor and one child makes
    /// groups of four).
    pub mutants_per_survivor: u32,
}

/// How mutants are made.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum MutationOperator {
    /// A one-parent operator of the engine's with fixed parameters (the thesis: `uniform-reset`
    /// with probability 0.15).
    Fixed(Variation),
    /// Gaussian noise on each allele with probability `probability`, of standard deviation
    /// `sigma × decay^(generation − 1)`.
    Gaussian {
        /// The standard deviation at generation 1.
        sigma: f64,
        /// The factor the standard deviation shrinks by each generation (1: constant).
        decay: f64,
        /// The chance that an allele gets noise.
        probability: f64,
    },
    /// Self-adaptive Gaussian steps (Schwefel's, one step per individual, [`child_step`]): steps
    /// that produce good children survive with them, so the step size evolves instead of being
    /// scheduled. Only for schemes that keep each individual's step, in their state.
    SelfAdaptive {
        /// The step of the initial population.
        sigma: f64,
        /// The step's learning rate (about 1/√(weights) is usual: 0.022 for 2 041 weights).
        tau: f64,
        /// The chance that an allele gets noise.
        probability: f64,
    },
}

impl MutationOperator {
    /// The variation a mutation applies in generation `generation` (1-based); the self-adaptive
    /// form's with its initial step.
    pub fn variation(&self, generation: u64) -> Variation {
        match *self {
            MutationOperator::Fixed(variation) => variation,
            MutationOperator::Gaussian { sigma, decay, probability } => {
                let steps = i32::try_from(generation.saturating_sub(1)).unwrap_or(i32::MAX);
                gaussian::variation(sigma * decay.powi(steps), probability)
            }
            MutationOperator::SelfAdaptive { sigma, probability, .. } => gaussian::variation(sigma, probability),
        }
    }

    /// The chance that an allele mutates, if the operator takes one.
    pub fn probability(&self) -> Option<f64> {
        match *self {
            MutationOperator::Fixed(variation) => variation.parameter(PROBABILITY.name),
            MutationOperator::Gaussian { probability, .. } | MutationOperator::SelfAdaptive { probability, .. } => {
                Some(probability)
            }
        }
    }
}

/// A child's self-adaptive step: the parent's times `exp(tau · N(0, 1))`, kept in
/// [`MIN_STEP`, `MAX_STEP`] (log-normal, so doubling and halving are equally likely).
pub fn child_step(parent: f64, tau: f64, rng: &mut GaRng) -> f64 {
    (parent * (tau * rng.normal()).exp()).clamp(MIN_STEP, MAX_STEP)
}

impl Default for MutationConfig {
    /// The thesis's: uniform reset with probability 0.15, two mutants per survivor.
    fn default() -> Self {
        let operator = MutationOperator::Fixed(uniform_reset::variation(DEFAULT_PROBABILITY));
        MutationConfig { operator, mutants_per_survivor: 2 }
    }
}

impl MutationConfig {
    /// Checks the operator's parameters' ranges (errors name the key: `mutation.probability`
    /// for the probability).
    pub fn check(&self) -> Result<(), ConfigError> {
        let bad = |key: &str, why: String| Err(ConfigError::Invalid { key: key.into(), why });
        if let Some(p) = self.operator.probability()
            && !PROBABILITY.range.contains(&p)
        {
            return bad("mutation.probability", format!("must be in {}, got {p}", interval(&PROBABILITY)));
        }
        match self.operator {
            MutationOperator::Fixed(variation) => {
                check_variation("mutation", &variation, 1, "a mutation takes one", &[PROBABILITY.name])
            }
            MutationOperator::Gaussian { sigma, decay, .. } => {
                if !(sigma > 0.0 && sigma <= 10.0) {
                    return bad("mutation.operator.gaussian.sigma", format!("must be in (0, 10], got {sigma}"));
                }
                if !(decay > 0.0 && decay <= 1.0) {
                    return bad("mutation.operator.gaussian.decay", format!("must be in (0, 1], got {decay}"));
                }
                Ok(())
            }
            MutationOperator::SelfAdaptive { sigma, tau, .. } => {
                if !(MIN_STEP..=MAX_STEP).contains(&sigma) {
                    let why = format!("must be in [{MIN_STEP}, {MAX_STEP}], got {sigma}");
                    return bad("mutation.operator.self-adaptive.sigma", why);
                }
                if !(tau > 0.0 && tau <= 1.0) {
                    return bad("mutation.operator.self-adaptive.tau", format!("must be in (0, 1], got {tau}"));
                }
                Ok(())
            }
        }
    }
}

/// The `[mutation]` table as written.
#[derive(Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct MutationTable {
    operator: Named,
    #[serde(skip_serializing_if = "Option::is_none")]
    probability: Option<f64>,
    mutants_per_survivor: u32,
}

impl Default for MutationTable {
    /// The default configuration's, but with no probability written: an operator that takes none
    /// must not see one.
    fn default() -> Self {
        MutationTable { probability: None, ..MutationConfig::default().into() }
    }
}

impl TryFrom<MutationTable> for MutationConfig {
    type Error = ConfigError;

    fn try_from(table: MutationTable) -> Result<MutationConfig, ConfigError> {
        let MutationTable { operator: Named { name, settings }, probability: written, mutants_per_survivor } = table;
        let probability = written.unwrap_or(DEFAULT_PROBABILITY);
        let none = |_: &str| None;
        let operator = match name.as_str() {
            GAUSSIAN => {
                let v = values("mutation", &name, &[("sigma", None), ("decay", Some(1.0))], &settings, none)?;
                MutationOperator::Gaussian { sigma: v[0], decay: v[1], probability }
            }
            SELF_ADAPTIVE => {
                let v = values("mutation", &name, &[("sigma", None), ("tau", None)], &settings, none)?;
                MutationOperator::SelfAdaptive { sigma: v[0], tau: v[1], probability }
            }
            name => {
                let operator = operator("mutation", name, 1, &[SELF_ADAPTIVE])?;
                let given = |p: &str| (p == PROBABILITY.name).then_some(probability);
                MutationOperator::Fixed(variation("mutation", operator, &settings, given)?)
            }
        };
        if written.is_some() && operator.probability().is_none() {
            let why = format!("`{name}` takes no probability");
            return Err(ConfigError::Invalid { key: "mutation.probability".into(), why });
        }
        Ok(MutationConfig { operator, mutants_per_survivor })
    }
}

impl From<MutationConfig> for MutationTable {
    fn from(config: MutationConfig) -> MutationTable {
        let named = |name: &str, parameters: [(&str, f64); 2]| {
            Named::new(name, parameters.into_iter().map(|(k, v)| (k.to_owned(), toml::Value::Float(v))).collect())
        };
        let operator = match config.operator {
            MutationOperator::Fixed(variation) => Named::of(&variation, |p| p == PROBABILITY.name),
            MutationOperator::Gaussian { sigma, decay, .. } => named(GAUSSIAN, [("sigma", sigma), ("decay", decay)]),
            MutationOperator::SelfAdaptive { sigma, tau, .. } => named(SELF_ADAPTIVE, [("sigma", sigma), ("tau", tau)]),
        };
        let probability = config.operator.probability();
        MutationTable { operator, probability, mutants_per_survivor: config.mutants_per_survivor }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ExperimentConfig;

    fn mutation(text: &str) -> Result<MutationConfig, String> {
        ExperimentConfig::from_toml(text).map(|c| c.mutation).map_err(|e| e.to_string())
    }

    #[test]
    fn gaussian_steps_have_the_asked_spread_and_shrink_with_the_generations() {
        let parent = vec![0.25f32; 2041];
        let operator = MutationOperator::Gaussian { sigma: 0.1, decay: 0.5, probability: 1.0 };
        // The schedule, computed as σ · decay^(g − 1) in f64, exactly.
        assert_eq!(operator.variation(1), gaussian::variation(0.1, 1.0));
        assert_eq!(operator.variation(3), gaussian::variation(0.1 * 0.5f64.powi(2), 1.0));
        let mut rng = GaRng::from_seed(6);
        let spread = |child: &[f32]| {
            let d: Vec<f64> = child.iter().map(|&c| f64::from(c) - 0.25).collect();
            let mean = d.iter().sum::<f64>() / d.len() as f64;
            (mean, (d.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (d.len() - 1) as f64).sqrt())
        };
        // 2041 samples: the mean is within 4 standard errors of 0, the deviation within 5 %.
        let (mean, sd) = spread(&operator.variation(1).apply(2041, &[&parent], &mut rng));
        assert!(mean.abs() < 4.0 * 0.1 / 2041f64.sqrt() && (sd - 0.1).abs() < 0.005, "{mean} {sd}");
        let (_, sd) = spread(&operator.variation(3).apply(2041, &[&parent], &mut rng));
        assert!((sd - 0.025).abs() < 0.00125, "generation 3: σ × 0.5² = 0.025, got {sd}");
    }

    #[test]
    fn self_adaptive_steps_are_log_normal_around_the_parent_and_bounded() {
        let mut rng = GaRng::from_seed(8);
        let n = 4000;
        // ln(child / parent) / tau is standard normal: mean within 4 standard errors of 0,
        // standard deviation within 5 % of 1.
        let logs: Vec<f64> = (0..n).map(|_| (child_step(0.05, 0.1, &mut rng) / 0.05).ln() / 0.1).collect();
        let mean = logs.iter().sum::<f64>() / n as f64;
        let sd = (logs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt();
        assert!(mean.abs() < 4.0 / (n as f64).sqrt() && (sd - 1.0).abs() < 0.05, "{mean} {sd}");
        // A huge tau hits both bounds, and never passes them.
        let steps: Vec<f64> = (0..200).map(|_| child_step(1.0, 1.0e3, &mut rng)).collect();
        assert!(steps.contains(&MIN_STEP) && steps.contains(&MAX_STEP));
        assert!(steps.iter().all(|s| (MIN_STEP..=MAX_STEP).contains(s)));
        // Without an individual's step, the initial one.
        let operator = MutationOperator::SelfAdaptive { sigma: 0.05, tau: 0.1, probability: 0.5 };
        assert_eq!(operator.variation(7), gaussian::variation(0.05, 0.5));
    }

    #[test]
    fn every_written_form_parses_to_its_operator_and_round_trips() {
        let cases = [
            ("", MutationOperator::Fixed(uniform_reset::variation(0.15))),
            (
                "[mutation]\noperator = \"uniform-reset\"\nprobability = 0.3",
                MutationOperator::Fixed(uniform_reset::variation(0.3)),
            ),
            (
                "[mutation]\nprobability = 1.0\n[mutation.operator.gaussian]\nsigma = 0.05\ndecay = 0.999",
                MutationOperator::Gaussian { sigma: 0.05, decay: 0.999, probability: 1.0 },
            ),
            (
                "[mutation.operator.gaussian]\nsigma = 1",
                MutationOperator::Gaussian { sigma: 1.0, decay: 1.0, probability: 0.15 },
            ),
            (
                "[mutation]\nprobability = 0.5\n[mutation.operator.self-adaptive]\nsigma = 0.05\ntau = 0.1",
                MutationOperator::SelfAdaptive { sigma: 0.05, tau: 0.1, probability: 0.5 },
            ),
        ];
        for (text, operator) in cases {
            let config = ExperimentConfig::from_toml(text).unwrap();
            assert_eq!(config.mutation.operator, operator, "{text}");
            assert_eq!(ExperimentConfig::from_toml(&config.to_toml()).unwrap(), config, "{text}");
        }
        // A table that leaves `probability` out writes none (an operator without one would
        // refuse it), and the operator gets the default.
        assert_eq!(MutationTable::default().probability, None);
        let config = ExperimentConfig::from_toml("[mutation.operator.uniform-reset]").unwrap();
        assert_eq!(config.mutation.operator, MutationOperator::Fixed(uniform_reset::variation(0.15)));
        // The default's TOML is the thesis's, as checkpoints have always held it.
        let text = ExperimentConfig::default().to_toml();
        assert!(text.contains("[mutation]\noperator = \"uniform-reset\"\nprobability = 0.15\n"), "{text}");
    }

    #[test]
    fn bad_mutations_are_named() {
        let err = |text: &str| mutation(text).unwrap_err();
        let unknown = err("[mutation]\noperator = \"gausian\"");
        assert!(
            unknown.contains("`mutation.operator`") && unknown.contains("use uniform-reset, gaussian"),
            "{unknown}"
        );
        assert!(unknown.contains("self-adaptive"), "{unknown}");
        let crossing = err("[mutation]\noperator = \"uniform\"");
        assert!(crossing.contains("`uniform` takes 2 parents, not 1"), "{crossing}");
        assert!(
            err("[mutation.operator.gaussian]\ndecay = 0.9").contains("`mutation.operator.gaussian.sigma`: missing")
        );
        assert!(
            err("[mutation.operator.gaussian]\nsigma = 0.1\nstep = 0.9").contains("`mutation.operator.gaussian.step`")
        );
        assert!(
            err("[mutation.operator.self-adaptive]\nsigma = 0.1").contains("`mutation.operator.self-adaptive.tau`")
        );
        let twice = err("[mutation.operator.uniform-reset]\nprobability = 0.1");
        assert!(twice.contains("`mutation.operator.uniform-reset.probability`: is given by `mutation.probability`"));
        assert!(err("[mutation.operator.gaussian]\nsigma = \"big\"").contains("must be a number"));
        assert!(err("[mutation.operator.self-adaptive]\nsigma = 20\ntau = 0.1").contains("self-adaptive.sigma`"));
        assert!(err("[mutation.operator.self-adaptive]\nsigma = 0.1\ntau = 0").contains("self-adaptive.tau`"));
        assert!(
            err("[mutation]\nprobability = -0.5\n[mutation.operator.gaussian]\nsigma = 0.1")
                .contains("`mutation.probability`")
        );
        // Programmatic configurations are checked too.
        let crossing = MutationConfig {
            operator: MutationOperator::Fixed(loa_engine::breeding::operators::uniform::OPERATOR.example()),
            ..MutationConfig::default()
        };
        assert!(crossing.check().unwrap_err().to_string().contains("`mutation.operator`"));
        let wide = MutationConfig {
            operator: MutationOperator::Fixed(uniform_reset::variation(1.5)),
            ..MutationConfig::default()
        };
        assert!(wide.check().unwrap_err().to_string().contains("`mutation.probability`: must be in [0, 1], got 1.5"));
    }
}
