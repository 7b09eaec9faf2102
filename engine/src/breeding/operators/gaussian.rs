//! Gaussian noise: a small step in weight space.

use crate::breeding::{BreedingRng, Operator, PROBABILITY, Parameter, Variation, any_shape};
use crate::network::MAX_ABS_WEIGHT;

/// One parent: each allele, with `probability`, gets Gaussian noise of standard deviation
/// `step`, the sum kept within ±[`MAX_ABS_WEIGHT`].
pub const OPERATOR: Operator = Operator {
    name: "gaussian",
    parents: 1,
    parameters: &[
        Parameter {
            name: "step",
            doc: "the noise's standard deviation",
            range: 0.0..=MAX_ABS_WEIGHT as f64,
            default: None,
        },
        PROBABILITY,
    ],
    apply: |values, _, [parent, _], rng| perturb(parent, values[0], values[1], rng),
    fits: any_shape,
};

/// The operator with its step and probability.
pub fn variation(step: f64, probability: f64) -> Variation {
    Variation::unchecked(&OPERATOR, &[step, probability])
}

/// Adds Gaussian noise of standard deviation `step` to each allele with probability
/// `probability`, keeping alleles within ±[`MAX_ABS_WEIGHT`].
fn perturb(parent: &[f32], step: f64, probability: f64, rng: &mut BreedingRng) -> Vec<f32> {
    let bound = f64::from(MAX_ABS_WEIGHT);
    parent
        .iter()
        .map(|&allele| {
            if rng.chance(probability) {
                (f64::from(allele) + step * rng.normal()).clamp(-bound, bound) as f32
            } else {
                allele
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The mean and the sample standard deviation of `child`'s alleles minus `from`.
    fn spread(child: &[f32], from: f64) -> (f64, f64) {
        let d: Vec<f64> = child.iter().map(|&c| f64::from(c) - from).collect();
        let mean = d.iter().sum::<f64>() / d.len() as f64;
        (mean, (d.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (d.len() - 1) as f64).sqrt())
    }

    #[test]
    fn noise_has_the_asked_spread_and_only_where_drawn() {
        let parent = vec![0.25f32; 2041];
        let mut rng = BreedingRng::from_seed(6);
        // 2041 samples: the mean is within 4 standard errors of 0, the deviation within 5 %
        // (its standard error is about 1.6 %).
        let (mean, sd) = spread(&variation(0.1, 1.0).apply(2041, &[&parent], &mut rng), 0.25);
        assert!(mean.abs() < 4.0 * 0.1 / 2041f64.sqrt() && (sd - 0.1).abs() < 0.005, "{mean} {sd}");
        let zero = vec![0.0f32; 2041];
        let (_, sd) = spread(&variation(0.2, 1.0).apply(2041, &[&zero], &mut rng), 0.0);
        assert!((sd - 0.2).abs() < 0.01, "{sd}");
        assert_eq!(variation(0.2, 0.0).apply(2041, &[&zero], &mut rng), zero);
        // About half the alleles get noise with probability ½ (Binomial(2041, ½): 1020 ± 23).
        let touched = variation(0.2, 0.5).apply(2041, &[&zero], &mut rng).iter().filter(|&&a| a != 0.0).count();
        assert!((928..1113).contains(&touched), "{touched}");
    }

    #[test]
    fn alleles_stay_within_the_bound() {
        let parent = vec![MAX_ABS_WEIGHT, -MAX_ABS_WEIGHT];
        let mut rng = BreedingRng::from_seed(9);
        for _ in 0..50 {
            let child = variation(MAX_ABS_WEIGHT as f64, 1.0).apply(2, &[&parent], &mut rng);
            assert!(child.iter().all(|a| a.abs() <= MAX_ABS_WEIGHT), "{child:?}");
        }
    }
}
