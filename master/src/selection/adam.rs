//! Adam (Kingma and Ba, 2015), the optimiser OpenAI's ES feeds its gradient estimate to: each
//! weight steps by its gradient's running mean over the root of its running mean square, so about
//! α where the estimate keeps its sign, whatever its scale. The state keeps βᵗ as a running
//! product rather than calling `powi`, so the bits are the same on every target and a resumed run
//! continues them exactly.

use serde::{Deserialize, Serialize};

/// Decay of the gradient's running mean (the paper's and OpenAI's ES's value).
pub const BETA_1: f64 = 0.9;
/// Decay of the gradient's running mean square.
pub const BETA_2: f64 = 0.999;
/// Added to the root mean square, so a weight that never saw a gradient does not divide by 0.
pub const EPSILON: f64 = 1e-8;

/// Why Adam's state cannot step a gradient, or cannot be a network's.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum AdamError {
    /// The moments are not one per weight.
    #[error("Adam's moments: {first} and {second} moments for {weights} weights")]
    Size {
        /// First moments held.
        first: usize,
        /// Second moments held.
        second: usize,
        /// Weights of the gradient or the network.
        weights: usize,
    },
    /// Moments without any update.
    #[error("Adam's moments: moments but no updates")]
    NoUpdates,
    /// The running powers of β are out of range.
    #[error("Adam's moments: bias corrections out of range: beta powers {beta_1} and {beta_2}")]
    Powers {
        /// β₁ to the power of the updates.
        beta_1: f64,
        /// β₂ to the power of the updates.
        beta_2: f64,
    },
    /// A moment is not finite, or a second moment is negative.
    #[error("Adam's moments: not finite, or a second moment is negative")]
    Moments,
}

/// What Adam remembers between updates: one first and second moment per weight.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AdamState {
    /// Updates made so far.
    pub updates: u64,
    /// `BETA_1` to the power `updates`.
    pub beta_1_power: f64,
    /// `BETA_2` to the power `updates`.
    pub beta_2_power: f64,
    /// Each weight's running mean of its gradient (empty before the first update).
    pub first: Vec<f64>,
    /// Each weight's running mean of its squared gradient (empty before the first update).
    pub second: Vec<f64>,
}

impl AdamState {
    /// The step of each weight for gradient `gradient` (ascent: add it to the weights) with step
    /// size `alpha`, updating the moments. The first update sizes the state to the gradient.
    pub fn step(&mut self, gradient: &[f64], alpha: f64) -> Result<Vec<f64>, AdamError> {
        if self.updates == 0 {
            let zeros = vec![0.0; gradient.len()];
            *self = AdamState { updates: 0, beta_1_power: 1.0, beta_2_power: 1.0, first: zeros.clone(), second: zeros };
        }
        if self.first.len() != gradient.len() || self.second.len() != gradient.len() {
            return Err(self.size(gradient.len()));
        }
        // Only ever compared with 0: a count stuck at its largest value (from a loaded state) is as good.
        self.updates = self.updates.saturating_add(1);
        self.beta_1_power *= BETA_1;
        self.beta_2_power *= BETA_2;
        let (correct_1, correct_2) = (1.0 - self.beta_1_power, 1.0 - self.beta_2_power);
        let moments = self.first.iter_mut().zip(self.second.iter_mut());
        Ok(moments
            .zip(gradient)
            .map(|((m, v), &g)| {
                *m = BETA_1 * *m + (1.0 - BETA_1) * g;
                *v = BETA_2 * *v + (1.0 - BETA_2) * g * g;
                alpha * (*m / correct_1) / ((*v / correct_2).sqrt() + EPSILON)
            })
            .collect())
    }

    /// Why this state (read from a checkpoint) cannot be Adam's for `weights` weights, if so.
    pub fn check(&self, weights: usize) -> Result<(), AdamError> {
        let finite = |x: &[f64]| x.iter().all(|v| v.is_finite());
        if self.updates == 0 {
            let empty = self.first.is_empty() && self.second.is_empty();
            return if empty { Ok(()) } else { Err(AdamError::NoUpdates) };
        }
        if self.first.len() != weights || self.second.len() != weights {
            return Err(self.size(weights));
        }
        let powers_in_range = |p: f64, beta: f64| p > 0.0 && p <= beta;
        if !powers_in_range(self.beta_1_power, BETA_1) || !powers_in_range(self.beta_2_power, BETA_2) {
            return Err(AdamError::Powers { beta_1: self.beta_1_power, beta_2: self.beta_2_power });
        }
        if !finite(&self.first) || !finite(&self.second) || self.second.iter().any(|&v| v < 0.0) {
            return Err(AdamError::Moments);
        }
        Ok(())
    }

    fn size(&self, weights: usize) -> AdamError {
        AdamError::Size { first: self.first.len(), second: self.second.len(), weights }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Adam's steps written out from the paper's algorithm 1 (with `powi` for βᵗ), for one
    /// weight and a sequence of gradients.
    fn by_the_paper(gradients: &[f64], alpha: f64) -> Vec<f64> {
        let (mut m, mut v) = (0.0f64, 0.0f64);
        let mut steps = Vec::new();
        for (t, &g) in gradients.iter().enumerate() {
            let t = t as i32 + 1;
            m = 0.9 * m + 0.1 * g;
            v = 0.999 * v + 0.001 * g * g;
            let m_hat = m / (1.0 - 0.9f64.powi(t));
            let v_hat = v / (1.0 - 0.999f64.powi(t));
            steps.push(alpha * m_hat / (v_hat.sqrt() + 1e-8));
        }
        steps
    }

    #[test]
    fn steps_follow_the_paper_and_the_first_is_alpha_times_the_sign() {
        let gradients = [0.3, -1.2, 0.05, 2.0, 2.0, -0.7];
        let expected = by_the_paper(&gradients, 0.01);
        let mut state = AdamState::default();
        for (i, &g) in gradients.iter().enumerate() {
            let step = state.step(&[g, -g, 0.0], 0.01).unwrap();
            // Running products and powi may differ in the last bits.
            assert!((step[0] - expected[i]).abs() <= 1e-15, "update {i}: {} against {}", step[0], expected[i]);
            assert_eq!(step[1], -step[0], "update {i}: a negated gradient steps the other way");
            assert_eq!(step[2], 0.0, "update {i}: no gradient, no step");
        }
        // The first step is m̂/√v̂ = g/|g|: α times the sign, whatever the gradient's scale.
        let first = AdamState::default().step(&[1e-3, -50.0], 0.02).unwrap();
        // (ε = 1e-8 against |g| = 1e-3 takes 1e-5 of it off.)
        assert!((first[0] - 0.02).abs() < 1e-6 && (first[1] + 0.02).abs() < 1e-10, "{first:?}");
        assert_eq!(state.updates, 6);
        assert!(state.check(3).is_ok());
    }

    #[test]
    fn a_mismatched_or_corrupt_state_is_refused_by_name() {
        let mut state = AdamState::default();
        state.step(&[1.0, 2.0], 0.1).unwrap();
        assert_eq!(state.step(&[1.0], 0.1).unwrap_err(), AdamError::Size { first: 2, second: 2, weights: 1 });
        assert!(state.check(2).is_ok());
        assert!(state.check(3).unwrap_err().to_string().contains("2 and 2 moments for 3 weights"));
        let negative = AdamState { second: vec![0.1, -1.0], ..state.clone() };
        assert!(negative.check(2).unwrap_err().to_string().contains("negative"));
        let powers = AdamState { beta_1_power: 1.0, ..state.clone() };
        assert!(powers.check(2).unwrap_err().to_string().contains("bias corrections"));
        let early = AdamState { updates: 0, ..state };
        assert_eq!(early.check(2).unwrap_err(), AdamError::NoUpdates);
        assert!(AdamState::default().check(2041).is_ok());
    }
}
