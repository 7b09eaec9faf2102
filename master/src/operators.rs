//! The genetic operators. Each takes the generator explicitly, so a run is a function of its
//! seed, and is an enum variant chosen by the configuration, so new operators slot in beside
//! the thesis's. The configuration picks one of the engine's [`Variation`]s, which hold the one
//! implementation (issue 14: workers apply them too, to make a chromosome again from its
//! origin).

use crate::config::{CrossoverOperator, MAX_STEP, MIN_STEP, MutationConfig, MutationOperator};
use crate::rng::GaRng;
use loa_engine::breeding::{self, Crossover, Variation};

/// The variation a mutation applies in generation `generation` (1-based; the Gaussian operator's
/// step shrinks with it). A self-adaptive operator without an individual's own step (which
/// (μ + λ) passes to [`perturb`] itself) uses the initial one.
pub fn mutation(config: &MutationConfig, generation: u64) -> Variation {
    let probability = config.probability;
    match config.operator {
        MutationOperator::UniformReset => Variation::UniformReset { probability },
        MutationOperator::Gaussian { sigma, decay } => {
            let steps = i32::try_from(generation.saturating_sub(1)).unwrap_or(i32::MAX);
            Variation::Gaussian { step: sigma * decay.powi(steps), probability }
        }
        MutationOperator::SelfAdaptive { sigma, .. } => Variation::Gaussian { step: sigma, probability },
    }
}

/// The variation a crossover applies.
pub fn crossing(operator: CrossoverOperator) -> Variation {
    Variation::Crossover(match operator {
        CrossoverOperator::SinglePoint => Crossover::SinglePoint,
        CrossoverOperator::Uniform => Crossover::Uniform,
        CrossoverOperator::PerNeuron => Crossover::PerNeuron,
    })
}

/// Makes a mutant's alleles from a parent's, in generation `generation` (see [`mutation`]).
/// Alleles stay within the chromosome files' bound.
pub fn mutate(config: &MutationConfig, parent: &[f32], generation: u64, rng: &mut GaRng) -> Vec<f32> {
    mutation(config, generation).apply(parent.len(), &[parent], rng)
}

/// Adds Gaussian noise of standard deviation `step` to each allele with probability
/// `probability` (the self-adaptive operator, once the child's step is drawn).
pub fn perturb(parent: &[f32], step: f64, probability: f64, rng: &mut GaRng) -> Vec<f32> {
    breeding::perturb(parent, step, probability, rng)
}

/// A child's self-adaptive step: the parent's times `exp(tau · N(0, 1))`, kept in
/// [`MIN_STEP`, `MAX_STEP`] (log-normal, so doubling and halving are equally likely).
pub fn child_step(parent: f64, tau: f64, rng: &mut GaRng) -> f64 {
    (parent * (tau * rng.normal()).exp()).clamp(MIN_STEP, MAX_STEP)
}

/// Makes a child's alleles from a survivor and its partner.
pub fn crossover(operator: CrossoverOperator, survivor: &[f32], partner: &[f32], rng: &mut GaRng) -> Vec<f32> {
    crossing(operator).apply(survivor.len(), &[survivor, partner], rng)
}

#[cfg(test)]
mod tests {
    use super::*;
    use loa_engine::network::{HIDDEN, INPUTS};

    #[test]
    fn uniform_reset_replaces_about_p_of_the_alleles_with_fresh_values() {
        let parent = vec![5.0f32; 2041];
        let config = MutationConfig { probability: 0.15, ..MutationConfig::default() };
        let mut rng = GaRng::from_seed(4);
        let mut changed = 0;
        for _ in 0..20 {
            let child = mutate(&config, &parent, 1, &mut rng);
            assert_eq!(child.len(), 2041);
            for &a in &child {
                if a != 5.0 {
                    assert!((-1.0..1.0).contains(&a));
                    changed += 1;
                }
            }
        }
        let mean = changed as f64 / 20.0;
        assert!((285.0..327.0).contains(&mean), "mean changed alleles {mean} (expected about 306)");
        let none = MutationConfig { probability: 0.0, ..MutationConfig::default() };
        assert_eq!(mutate(&none, &parent, 1, &mut rng), parent);
    }

    #[test]
    fn single_point_takes_a_prefix_and_a_suffix() {
        let a = vec![1.0f32; 10];
        let b = vec![2.0f32; 10];
        let mut rng = GaRng::from_seed(5);
        let mut cuts = std::collections::BTreeSet::new();
        for _ in 0..500 {
            let c = crossover(CrossoverOperator::SinglePoint, &a, &b, &mut rng);
            let cut = c.iter().position(|&x| x == 2.0).expect("partner contributes");
            assert!(c[..cut].iter().all(|&x| x == 1.0) && c[cut..].iter().all(|&x| x == 2.0));
            cuts.insert(cut);
        }
        assert_eq!(cuts, (1..10).collect(), "every cut in 1..len-1 occurs");
    }

    #[test]
    fn gaussian_steps_have_the_asked_spread_and_shrink_with_the_generations() {
        let parent = vec![0.25f32; 2041];
        let config = MutationConfig {
            operator: MutationOperator::Gaussian { sigma: 0.1, decay: 0.5 },
            probability: 1.0,
            ..MutationConfig::default()
        };
        let mut rng = GaRng::from_seed(6);
        let spread = |child: &[f32]| {
            let d: Vec<f64> = child.iter().map(|&c| f64::from(c) - 0.25).collect();
            let mean = d.iter().sum::<f64>() / d.len() as f64;
            (mean, (d.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (d.len() - 1) as f64).sqrt())
        };
        // 2041 samples: the mean is within 4 standard errors of 0, the deviation within 5 %.
        let (mean, sd) = spread(&mutate(&config, &parent, 1, &mut rng));
        assert!(mean.abs() < 4.0 * 0.1 / 2041f64.sqrt() && (sd - 0.1).abs() < 0.005, "{mean} {sd}");
        let (_, sd) = spread(&mutate(&config, &parent, 3, &mut rng));
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
        // perturb adds noise of exactly the given step to the alleles it touches.
        let parent = vec![0.0f32; 2041];
        let child = perturb(&parent, 0.2, 1.0, &mut rng);
        let sd = (child.iter().map(|&c| f64::from(c).powi(2)).sum::<f64>() / 2041.0).sqrt();
        assert!((sd - 0.2).abs() < 0.01, "{sd}");
        let untouched = perturb(&parent, 0.2, 0.0, &mut rng);
        assert_eq!(untouched, parent);
    }

    #[test]
    fn uniform_and_per_neuron_crossover_mix_alleles_and_hidden_units() {
        let (a, b) = (vec![1.0f32; 2041], vec![2.0f32; 2041]);
        let mut rng = GaRng::from_seed(7);
        let c = crossover(CrossoverOperator::Uniform, &a, &b, &mut rng);
        let from_b = c.iter().filter(|&&x| x == 2.0).count();
        assert!((900..1141).contains(&from_b), "about half from each parent: {from_b}");
        let c = crossover(CrossoverOperator::PerNeuron, &a, &b, &mut rng);
        let mut units_from_b = 0;
        for h in 0..HIDDEN {
            let v = c[INPUTS * h];
            assert!(c[INPUTS * h..INPUTS * (h + 1)].iter().all(|&x| x == v), "unit {h}'s inputs travel together");
            assert_eq!((c[2000 + h], c[2020 + h]), (v, v), "unit {h}'s bias and output weight go with it");
            units_from_b += usize::from(v == 2.0);
        }
        assert!((3..=17).contains(&units_from_b), "{units_from_b} of 20 units from the partner");
        assert_eq!(c[2040], 1.0, "the output bias is the survivor's");
    }
}
