//! Single-point crossover: the thesis's (docs/spec.md §5).

use crate::breeding::{Operator, any_shape};

/// Two parents: alleles before a cut from the first, from the cut on from the second; the cut
/// is uniform in `1..len−1`, so both contribute. The child is as long as the shorter parent.
pub const OPERATOR: Operator = Operator {
    name: "single-point",
    parents: 2,
    parameters: &[],
    apply: |_, _, [survivor, partner], rng| {
        let len = survivor.len().min(partner.len());
        let cut = if len >= 2 { 1 + rng.below(len - 1) } else { len };
        survivor[..cut].iter().chain(&partner[cut..len]).copied().collect()
    },
    fits: any_shape,
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::breeding::BreedingRng;

    #[test]
    fn takes_a_prefix_and_a_suffix_with_every_cut() {
        let a = vec![1.0f32; 10];
        let b = vec![2.0f32; 10];
        let crossing = OPERATOR.with(&[]).unwrap();
        let mut rng = BreedingRng::from_seed(5);
        let mut cuts = std::collections::BTreeSet::new();
        for _ in 0..500 {
            let c = crossing.apply(10, &[&a, &b], &mut rng);
            let cut = c.iter().position(|&x| x == 2.0).expect("partner contributes");
            assert!(c[..cut].iter().all(|&x| x == 1.0) && c[cut..].iter().all(|&x| x == 2.0));
            cuts.insert(cut);
        }
        assert_eq!(cuts, (1..10).collect(), "every cut in 1..len-1 occurs");
        assert_eq!(crossing.apply(0, &[&a[..3], &b], &mut rng).len(), 3, "as long as the shorter parent");
    }
}
