//! Uniform crossover.

use crate::breeding::{Operator, any_shape};

/// Two parents: each allele from either with probability ½. The child is as long as the
/// shorter parent.
pub const OPERATOR: Operator = Operator {
    name: "uniform",
    parents: 2,
    parameters: &[],
    apply: |_, _, [survivor, partner], rng| {
        survivor.iter().zip(partner).map(|(&s, &p)| if rng.below(2) == 0 { s } else { p }).collect()
    },
    fits: any_shape,
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::breeding::BreedingRng;

    #[test]
    fn takes_about_half_the_alleles_from_each_parent() {
        let (a, b) = (vec![1.0f32; 2041], vec![2.0f32; 2041]);
        let mut rng = BreedingRng::from_seed(7);
        let c = OPERATOR.with(&[]).unwrap().apply(2041, &[&a, &b], &mut rng);
        // Binomial(2041, ½): 1020 ± 23, so within 5 standard deviations.
        let from_b = c.iter().filter(|&&x| x == 2.0).count();
        assert!((900..1141).contains(&from_b), "about half from each parent: {from_b}");
        assert!(c.iter().all(|&x| x == 1.0 || x == 2.0));
    }
}
