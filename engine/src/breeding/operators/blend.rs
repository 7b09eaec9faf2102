//! BLX-α blend crossover (Eshelman and Schaffer, 1993): each allele drawn between the parents'
//! and a little beyond, so children explore around their parents rather than only recombine
//! the values they already hold.

use crate::breeding::{BreedingRng, Operator, Parameter, any_shape};
use crate::network::MAX_ABS_WEIGHT;

/// Two parents: each allele uniform on `[lo − α·d, hi + α·d]`, where `lo` and `hi` are the
/// parents' alleles in order and `d = hi − lo`, kept within ±[`MAX_ABS_WEIGHT`]. The child is
/// as long as the shorter parent.
pub const OPERATOR: Operator = Operator {
    name: "blend",
    parents: 2,
    parameters: &[Parameter {
        name: "alpha",
        doc: "how far beyond the parents' interval a child's allele may fall, as a share of its width, on each side",
        range: 0.0..=1.0,
        default: Some(0.5),
    }],
    apply: |values, _, [survivor, partner], rng| blend(survivor, partner, values[0], rng),
    fits: any_shape,
};

/// Each allele uniform on the parents' interval widened by `alpha` of its width on each side.
fn blend(survivor: &[f32], partner: &[f32], alpha: f64, rng: &mut BreedingRng) -> Vec<f32> {
    let bound = f64::from(MAX_ABS_WEIGHT);
    survivor
        .iter()
        .zip(partner)
        .map(|(&a, &b)| {
            let (lo, hi) = (f64::from(a.min(b)), f64::from(a.max(b)));
            let width = (1.0 + 2.0 * alpha) * (hi - lo);
            // Uniform in [0, 1) on 53 random bits, drawn for every allele so the stream does
            // not depend on the parents' values.
            let u = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
            (lo - alpha * (hi - lo) + u * width).clamp(-bound, bound) as f32
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Where a child's allele fell.
    struct Position {
        /// Its place in the widened interval, as a share of its width: 0 at `lo − α·d`, 1 at
        /// `hi + α·d`.
        t: f64,
        /// Whether it is outside the parents' own interval `[lo, hi]`.
        outside: bool,
        /// Whether it is in the widened interval, give or take the f32 rounding of the child's
        /// allele (one f32 epsilon of the interval's larger end).
        supported: bool,
    }

    /// Every allele of `children` children of random parents (alleles uniform in [-1, 1)) but
    /// those whose parents agree.
    fn positions(alpha: f64, children: usize) -> Vec<Position> {
        let variation = OPERATOR.with(&[alpha]).unwrap();
        let (mut parents, mut rng) = (BreedingRng::from_seed(11), BreedingRng::from_seed(12));
        let mut out = Vec::new();
        for _ in 0..children {
            let a: Vec<f32> = (0..2041).map(|_| parents.weight()).collect();
            let b: Vec<f32> = (0..2041).map(|_| parents.weight()).collect();
            let child = variation.apply(2041, &[&a, &b], &mut rng);
            for ((&x, &y), &c) in a.iter().zip(&b).zip(&child) {
                let (lo, hi, c) = (f64::from(x.min(y)), f64::from(x.max(y)), f64::from(c));
                if hi > lo {
                    let (start, end) = (lo - alpha * (hi - lo), hi + alpha * (hi - lo));
                    let rounding = f64::from(f32::EPSILON) * start.abs().max(end.abs());
                    out.push(Position {
                        t: (c - start) / (end - start),
                        outside: c < lo || c > hi,
                        supported: c >= start - rounding && c <= end + rounding,
                    });
                }
            }
        }
        out
    }

    #[test]
    fn alleles_are_uniform_on_the_parents_interval_widened_by_alpha() {
        for alpha in [0.5, 0.25, 0.0] {
            let found = positions(alpha, 20);
            let n = found.len() as f64;
            // 2041 × 20 alleles, but the few whose parents agree (a chance of 2⁻²³ each).
            assert!(n > 40_800.0, "{n}");
            // Fact 1, the support: every allele is in [lo − α·d, hi + α·d].
            assert!(found.iter().all(|p| p.supported), "α {alpha}: an allele outside the widened interval");
            // Fact 2, uniform on an interval of width (1 + 2α)·d that holds the parents' own, of
            // width d: the share outside [lo, hi] is 2α / (1 + 2α). Its binomial standard error
            // √(p(1 − p) / n) is at most 0.0025 for n > 40 000; 4 of them (none for α = 0,
            // where a child's allele is rounded from within [lo, hi] and lo and hi are f32s).
            let p = 2.0 * alpha / (1.0 + 2.0 * alpha);
            let se = (p * (1.0 - p) / n).sqrt();
            let outside = found.iter().filter(|p| p.outside).count() as f64 / n;
            assert!((outside - p).abs() <= 4.0 * se, "α {alpha}: {outside} outside [lo, hi], expected {p}");
            // Fact 3, symmetry: the share below lo is half of that, p / 2.
            let below = found.iter().filter(|p| p.outside && p.t < 0.5).count() as f64 / n;
            let se = (p / 2.0 * (1.0 - p / 2.0) / n).sqrt();
            assert!((below - p / 2.0).abs() <= 4.0 * se, "α {alpha}: {below} below lo, expected {}", p / 2.0);
            // Fact 4, a uniform variable's mean is its interval's middle and its variance the
            // width² / 12: t has mean ½ and variance 1/12. Standard errors for n > 40 000: the
            // mean's √(1/12 / n) < 0.0015, the sample variance's √((1/80 − 1/144) / n) < 0.0004
            // (1/80 is the fourth central moment of a unit uniform); 4 of each.
            let mean = found.iter().map(|p| p.t).sum::<f64>() / n;
            let variance = found.iter().map(|p| (p.t - mean).powi(2)).sum::<f64>() / (n - 1.0);
            assert!((mean - 0.5).abs() < 4.0 * (1.0 / 12.0 / n).sqrt(), "α {alpha}: mean {mean}");
            let se = ((1.0 / 80.0 - 1.0 / 144.0) / n).sqrt();
            assert!((variance - 1.0 / 12.0).abs() < 4.0 * se, "α {alpha}: variance {variance}, expected 1/12");
        }
    }

    #[test]
    fn children_stay_within_the_bound_and_equal_parents_breed_true() {
        let variation = OPERATOR.with(&[1.0]).unwrap();
        let mut rng = BreedingRng::from_seed(13);
        // Parents at both bounds: the widened interval is [−3·10⁶, 3·10⁶], a third of it beyond
        // each bound, so about a third of the alleles are clamped to each.
        let (top, bottom) = (vec![MAX_ABS_WEIGHT; 3000], vec![-MAX_ABS_WEIGHT; 3000]);
        let child = variation.apply(0, &[&top, &bottom], &mut rng);
        assert!(child.iter().all(|a| a.abs() <= MAX_ABS_WEIGHT));
        // Binomial(3000, ⅓): 1000 ± 26, so within 4 standard deviations.
        let at_top = child.iter().filter(|&&a| a == MAX_ABS_WEIGHT).count();
        assert!((896..1104).contains(&at_top), "{at_top} of 3000 at the upper bound");
        // No width, no variation: a child of two equal parents is them.
        let same = vec![0.375f32; 50];
        assert_eq!(variation.apply(0, &[&same, &same], &mut rng), same);
        // As long as the shorter parent.
        assert_eq!(variation.apply(0, &[&same[..7], &top], &mut rng).len(), 7);
    }
}
