//! Per-neuron crossover: hidden units cross whole.

use crate::breeding::Operator;
use crate::network::{HIDDEN, INPUTS, Topology};

/// Two parents: each hidden unit (its input weights, bias and output weight) from either with
/// probability ½; the output bias from the first. A unit's job survives crossover, which a cut
/// through the row-major weight order (the thesis's diagnosis) does not guarantee. Only for the
/// default topology's layout (docs/spec.md §3): it fits the thesis's network only, and other
/// lengths are the first parent's alleles.
pub const OPERATOR: Operator = Operator {
    name: "per-neuron",
    parents: 2,
    parameters: &[],
    apply: |_, _, [survivor, partner], rng| {
        let mut child = survivor.to_vec();
        let (count, bias, out) = (
            Topology::default().weight_count(),
            Topology::default().hidden_bias_index(0),
            Topology::default().output_weight_index(0),
        );
        if child.len() == count && partner.len() == count {
            for h in 0..HIDDEN {
                if rng.below(2) == 1 {
                    child[INPUTS * h..INPUTS * (h + 1)].copy_from_slice(&partner[INPUTS * h..INPUTS * (h + 1)]);
                    child[bias + h] = partner[bias + h];
                    child[out + h] = partner[out + h];
                }
            }
        }
        child
    },
    fits: |topology| match topology.is_thesis_layout() {
        true => Ok(()),
        false => Err(format!(
            "crosses the hidden units of the thesis's network, not of {topology}: use single-point or uniform"
        )),
    },
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::breeding::BreedingRng;

    #[test]
    fn hidden_units_travel_whole() {
        let (a, b) = (vec![1.0f32; 2041], vec![2.0f32; 2041]);
        let mut rng = BreedingRng::from_seed(7);
        let c = OPERATOR.with(&[]).unwrap().apply(2041, &[&a, &b], &mut rng);
        let mut units_from_b = 0;
        for h in 0..HIDDEN {
            let v = c[INPUTS * h];
            assert!(c[INPUTS * h..INPUTS * (h + 1)].iter().all(|&x| x == v), "unit {h}'s inputs travel together");
            assert_eq!((c[2000 + h], c[2020 + h]), (v, v), "unit {h}'s bias and output weight go with it");
            units_from_b += usize::from(v == 2.0);
        }
        // Binomial(20, ½): 10 ± 2.2, so 3..=17 is more than 3 standard deviations either way.
        assert!((3..=17).contains(&units_from_b), "{units_from_b} of 20 units from the partner");
        assert_eq!(c[2040], 1.0, "the output bias is the survivor's");
        let short = vec![2.0f32; 10];
        assert_eq!(OPERATOR.with(&[]).unwrap().apply(0, &[&a[..10], &short], &mut rng), a[..10], "other layouts");
    }

    #[test]
    fn it_fits_the_thesis_network_alone_and_says_why() {
        assert_eq!((OPERATOR.fits)(Topology::THESIS), Ok(()));
        let small: Topology = "5x5-board-25-12-1".parse().unwrap();
        let why = (OPERATOR.fits)(small).unwrap_err();
        assert!(why.contains("thesis's network, not of 5x5-board-25-12-1"), "{why}");
    }
}
