//! Uniform reset: the thesis's mutation.

use crate::breeding::{BreedingRng, Operator, PROBABILITY, Variation, any_shape};

/// One parent: each allele replaced, with `probability`, by a fresh uniform value in [-1, 1).
pub const OPERATOR: Operator = Operator {
    name: "uniform-reset",
    parents: 1,
    parameters: &[PROBABILITY],
    apply: |values, _, [parent, _], rng| reset_uniformly(parent, values[0], rng),
    fits: any_shape,
};

/// The operator with its probability.
pub fn variation(probability: f64) -> Variation {
    Variation::unchecked(&OPERATOR, &[probability])
}

/// Each allele replaced, with `probability`, by a fresh uniform value in [-1, 1).
fn reset_uniformly(parent: &[f32], probability: f64, rng: &mut BreedingRng) -> Vec<f32> {
    parent.iter().map(|&allele| if rng.chance(probability) { rng.weight() } else { allele }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_about_p_of_the_alleles_with_fresh_values() {
        let parent = vec![5.0f32; 2041];
        let mut rng = BreedingRng::from_seed(4);
        let mut changed = 0;
        for _ in 0..20 {
            let child = variation(0.15).apply(2041, &[&parent], &mut rng);
            assert_eq!(child.len(), 2041);
            for &a in &child {
                if a != 5.0 {
                    assert!((-1.0..1.0).contains(&a));
                    changed += 1;
                }
            }
        }
        // Binomial(2041, 0.15) per child: mean 306, standard deviation 16, so 20 children's
        // mean is within 21 (over 5 standard errors) of 306.
        let mean = changed as f64 / 20.0;
        assert!((285.0..327.0).contains(&mean), "mean changed alleles {mean} (expected about 306)");
        assert_eq!(variation(0.0).apply(2041, &[&parent], &mut rng), parent);
    }
}
