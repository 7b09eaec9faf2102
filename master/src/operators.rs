//! The genetic operators. Each takes the generator explicitly, so a run is a function of its
//! seed, and is an enum variant chosen by the configuration, so new operators slot in beside
//! the thesis's.

use crate::config::{CrossoverOperator, MutationConfig, MutationOperator};
use crate::rng::GaRng;

/// Makes a mutant's alleles from a parent's.
pub fn mutate(config: &MutationConfig, parent: &[f32], rng: &mut GaRng) -> Vec<f32> {
    match config.operator {
        MutationOperator::UniformReset => {
            parent.iter().map(|&allele| if rng.chance(config.probability) { rng.weight() } else { allele }).collect()
        }
    }
}

/// Makes a child's alleles from a survivor and its partner.
pub fn crossover(operator: CrossoverOperator, survivor: &[f32], partner: &[f32], rng: &mut GaRng) -> Vec<f32> {
    match operator {
        CrossoverOperator::SinglePoint => {
            let len = survivor.len().min(partner.len());
            // Cut uniform in 1..len-1 (SPEC §5): both parents contribute at least one allele.
            let cut = if len >= 2 { 1 + rng.below(len - 1) } else { len };
            survivor[..cut].iter().chain(&partner[cut..len]).copied().collect()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uniform_reset_replaces_about_p_of_the_alleles_with_fresh_values() {
        let parent = vec![5.0f32; 2041];
        let config = MutationConfig { probability: 0.15, ..MutationConfig::default() };
        let mut rng = GaRng::from_seed(4);
        let mut changed = 0;
        for _ in 0..20 {
            let child = mutate(&config, &parent, &mut rng);
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
        assert_eq!(mutate(&none, &parent, &mut rng), parent);
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
}
