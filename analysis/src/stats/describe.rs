//! Descriptive statistics and centred smoothing.

/// The arithmetic mean; NaN for no values.
pub fn mean(values: &[f64]) -> f64 {
    if values.is_empty() { f64::NAN } else { values.iter().sum::<f64>() / values.len() as f64 }
}

/// The median: the middle value, or the mean of the two middle values for an even count; NaN for
/// no values (NaN values sort last).
pub fn median(values: &[f64]) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    match n {
        0 => f64::NAN,
        _ if n % 2 == 1 => v[n / 2],
        _ => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

/// The sample standard deviation (divisor n − 1); NaN for fewer than two values.
pub fn sample_sd(values: &[f64]) -> f64 {
    let n = values.len();
    if n < 2 {
        return f64::NAN;
    }
    let m = mean(values);
    (values.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (n - 1) as f64).sqrt()
}

/// Mean, median, extremes and sample standard deviation of a set of scores.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Summary {
    /// How many values.
    pub n: usize,
    /// Their mean (NaN for none).
    pub mean: f64,
    /// Their median (NaN for none).
    pub median: f64,
    /// The smallest (NaN for none).
    pub min: f64,
    /// The largest (NaN for none).
    pub max: f64,
    /// The sample standard deviation (NaN for fewer than two).
    pub sd: f64,
}

impl Summary {
    /// The summary of `values`.
    pub fn of(values: &[f64]) -> Summary {
        let fold = |init: f64, f: fn(f64, f64) -> f64| {
            if values.is_empty() { f64::NAN } else { values.iter().copied().fold(init, f) }
        };
        Summary {
            n: values.len(),
            mean: mean(values),
            median: median(values),
            min: fold(f64::INFINITY, f64::min),
            max: fold(f64::NEG_INFINITY, f64::max),
            sd: sample_sd(values),
        }
    }
}

/// The centred moving average over `2·half + 1` points (the thesis's "5-smoothing" is
/// `half = 2`: each epoch with the two before and the two after).
///
/// Edges: the window shrinks to the points that exist (it is cut, not padded or mirrored), so
/// the first value is the mean of the first `half + 1` values, the second of the first
/// `half + 2`, and so on; the output has as many values as the input. NaN values are skipped.
pub fn smooth_centred(values: &[f64], half: usize) -> Vec<f64> {
    (0..values.len())
        .map(|i| {
            let lo = i.saturating_sub(half);
            let hi = (i + half + 1).min(values.len());
            let window: Vec<f64> = values[lo..hi].iter().copied().filter(|v| !v.is_nan()).collect();
            mean(&window)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn textbook_mean_median_and_sample_sd() {
        // The classic example {2, 4, 4, 4, 5, 5, 7, 9}: mean 5, population sd 2, sample sd
        // √(32/7) = 2.138089935299395 (hand-worked: squared deviations sum to 32).
        let v = [2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0];
        let s = Summary::of(&v);
        assert_eq!((s.n, s.mean, s.median, s.min, s.max), (8, 5.0, 4.5, 2.0, 9.0));
        assert!((s.sd - 2.138_089_935_299_395).abs() < 1e-12, "{}", s.sd);
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert!(Summary::of(&[]).mean.is_nan() && Summary::of(&[1.0]).sd.is_nan());
        assert_eq!(Summary::of(&[1.0]).max, 1.0);
    }

    #[test]
    fn smoothing_cuts_the_window_at_the_edges() {
        // Hand-worked with a 5-point window:
        // i=0: (1+2+4)/3, i=1: (1+2+4+8)/4, i=2: (1+2+4+8+16)/5, i=3: (2+4+8+16)/4,
        // i=4: (4+8+16)/3.
        let s = smooth_centred(&[1.0, 2.0, 4.0, 8.0, 16.0], 2);
        let want = [7.0 / 3.0, 15.0 / 4.0, 31.0 / 5.0, 30.0 / 4.0, 28.0 / 3.0];
        for (a, b) in s.iter().zip(want) {
            assert!((a - b).abs() < 1e-12, "{s:?}");
        }
        // The middle of a longer series is a plain 5-point mean; two points: each is their mean.
        let s = smooth_centred(&[0.0, 0.0, 5.0, 10.0, 5.0, 0.0, 0.0], 2);
        assert_eq!(s[3], 4.0);
        assert_eq!(smooth_centred(&[1.0, 3.0], 2), [2.0, 2.0]);
        assert!(smooth_centred(&[], 2).is_empty());
    }
}
