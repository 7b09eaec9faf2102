//! The network in f64 and its training: exact forward and backward passes, minibatch Adam.

use super::ImitateError;
use super::positions::Sample;
use loa_engine::network::symmetry::{Tying, WeightTying};
use loa_engine::network::{Chromosome, ChromosomeError, INPUTS, MAX_ABS_WEIGHT, SplitMix64, Topology};
use loa_engine::random::derive_seed;

/// Hidden units of the default topology.
const HIDDEN: usize = loa_engine::network::HIDDEN;
/// Chromosome length of the default topology.
const WEIGHTS: usize = INPUTS * HIDDEN + HIDDEN + HIDDEN + 1;

/// The network in f64, weights in the chromosome layout (docs/spec.md §3): `W1[h][i]` at `100·h + i`,
/// then the hidden biases, the output weights, the output bias.
#[derive(Clone, Debug, PartialEq)]
pub struct Params {
    /// The 2041 weights.
    pub w: Vec<f64>,
}

const HIDDEN_BIAS: usize = INPUTS * HIDDEN;
const OUTPUT_WEIGHT: usize = HIDDEN_BIAS + HIDDEN;
const OUTPUT_BIAS: usize = OUTPUT_WEIGHT + HIDDEN;

/// What the forward pass keeps for the backward pass.
struct Activations {
    hidden: [f64; HIDDEN],
    output: f64,
}

impl Params {
    /// Small random weights: input weights uniform in ±1/√100 · 0.5 (the inputs are of order
    /// one and mostly positive, so larger ones would saturate the hidden units), output
    /// weights uniform in ±0.5, biases 0.
    pub fn init(seed: u64) -> Params {
        let mut rng = SplitMix64::new(seed);
        let mut uniform = |r: f64| ((rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0) * r;
        let mut w = vec![0.0; WEIGHTS];
        for v in &mut w[..HIDDEN_BIAS] {
            *v = uniform(0.05);
        }
        for v in &mut w[OUTPUT_WEIGHT..OUTPUT_BIAS] {
            *v = uniform(0.5);
        }
        Params { w }
    }

    /// The weights of a chromosome of the default topology.
    pub fn from_chromosome(chromosome: &Chromosome) -> Result<Params, ImitateError> {
        if chromosome.topology() != Topology::THESIS {
            return Err(ImitateError::Topology(chromosome.topology()));
        }
        Ok(Params { w: chromosome.weights().iter().map(|&v| f64::from(v)).collect() })
    }

    /// The chromosome with these weights rounded to f32 and clamped within the chromosome
    /// bound (never reached in practice; the clamp keeps the file valid whatever happens).
    pub fn to_chromosome(&self) -> Result<Chromosome, ChromosomeError> {
        let bound = f64::from(MAX_ABS_WEIGHT);
        let weights = self.w.iter().map(|&v| if v.is_finite() { v.clamp(-bound, bound) as f32 } else { 0.0 }).collect();
        Chromosome::new(Topology::THESIS, weights)
    }

    fn activations(&self, x: &[f32; INPUTS]) -> Activations {
        let w = &self.w;
        let mut hidden = [0.0; HIDDEN];
        for (h, a) in hidden.iter_mut().enumerate() {
            let row = &w[h * INPUTS..(h + 1) * INPUTS];
            let mut sum = w[HIDDEN_BIAS + h];
            for (wi, xi) in row.iter().zip(x) {
                sum += wi * f64::from(*xi);
            }
            *a = sum.tanh();
        }
        let mut z = w[OUTPUT_BIAS];
        for (v, a) in w[OUTPUT_WEIGHT..OUTPUT_BIAS].iter().zip(&hidden) {
            z += v * a;
        }
        Activations { hidden, output: z.tanh() }
    }

    /// The network's output for inputs `x`: `tanh(b_o + Σ_h V_h·tanh(b_h + Σ_i W1[h][i]·x_i))`,
    /// the function [`loa_engine::network::Network::evaluate_plain`] computes in f32.
    pub fn forward(&self, x: &[f32; INPUTS]) -> f64 {
        self.activations(x).output
    }

    /// Adds `scale ×` the gradient of `(output − y)²` for one sample to `grad`; returns the
    /// squared error.
    pub fn accumulate_gradient(&self, sample: &Sample, scale: f64, grad: &mut [f64]) -> f64 {
        let act = self.activations(&sample.x);
        let err = act.output - sample.y;
        // d(err²)/dz through the output tanh.
        let dz = scale * 2.0 * err * (1.0 - act.output * act.output);
        grad[OUTPUT_BIAS] += dz;
        for h in 0..HIDDEN {
            let a = act.hidden[h];
            grad[OUTPUT_WEIGHT + h] += dz * a;
            let dpre = dz * self.w[OUTPUT_WEIGHT + h] * (1.0 - a * a);
            grad[HIDDEN_BIAS + h] += dpre;
            for (g, xi) in grad[h * INPUTS..(h + 1) * INPUTS].iter_mut().zip(&sample.x) {
                *g += dpre * f64::from(*xi);
            }
        }
        err * err
    }

    /// Mean squared error over `samples` (0 for none).
    pub fn mse(&self, samples: &[Sample]) -> f64 {
        if samples.is_empty() {
            return 0.0;
        }
        samples.iter().map(|s| (self.forward(&s.x) - s.y).powi(2)).sum::<f64>() / samples.len() as f64
    }

    /// Pearson correlation between the outputs and the labels over `samples` (0 if either is
    /// constant).
    pub fn correlation(&self, samples: &[Sample]) -> f64 {
        let pairs: Vec<(f64, f64)> = samples.iter().map(|s| (self.forward(&s.x), s.y)).collect();
        pearson(&pairs)
    }
}

/// Pearson's correlation of the pairs, 0 when either variable is constant or there are none.
pub fn pearson(pairs: &[(f64, f64)]) -> f64 {
    if pairs.is_empty() {
        return 0.0;
    }
    let n = pairs.len() as f64;
    let (mx, my) = (pairs.iter().map(|p| p.0).sum::<f64>() / n, pairs.iter().map(|p| p.1).sum::<f64>() / n);
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (x, y) in pairs {
        sxy += (x - mx) * (y - my);
        sxx += (x - mx) * (x - mx);
        syy += (y - my) * (y - my);
    }
    if sxx == 0.0 || syy == 0.0 { 0.0 } else { sxy / (sxx * syy).sqrt() }
}

/// How the network is trained.
#[derive(Clone, Copy, Debug)]
pub struct TrainConfig {
    /// Passes over the training set.
    pub epochs: u32,
    /// Samples per Adam step.
    pub batch: usize,
    /// Adam's step size at the start; it decays along a half cosine to a tenth of it, so the
    /// last epochs settle instead of bouncing around the minimum.
    pub learning_rate: f64,
    /// Seed of the initial weights and the shuffles.
    pub seed: u64,
    /// Weights tied by the board's symmetries: the initial weights are averaged over each
    /// class and every step gives a class's members its summed gradient, so they stay equal
    /// (the same network evolution strategies search with `symmetry`).
    pub tying: WeightTying,
}

/// One epoch's figures.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EpochReport {
    /// 1-based epoch.
    pub epoch: u32,
    /// Mean squared error on the training set after the epoch.
    pub train_mse: f64,
    /// The figures on the validation set; `None` when it is empty.
    pub validation: Option<Validation>,
}

/// How the network does on the validation set.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Validation {
    /// Mean squared error.
    pub mse: f64,
    /// Correlation of outputs and labels.
    pub correlation: f64,
}

impl Validation {
    /// The figures of `params` on `samples`; `None` for no samples, which have no figures.
    pub fn of(params: &Params, samples: &[Sample]) -> Option<Validation> {
        (!samples.is_empty()).then(|| Validation { mse: params.mse(samples), correlation: params.correlation(samples) })
    }
}

/// "train MSE ..., validation MSE ..., validation correlation ..." (the validation figures left
/// out when there are none, rather than printed as zeros).
pub(super) fn figures(train_mse: f64, validation: Option<Validation>) -> String {
    match validation {
        Some(v) => format!(
            "train MSE {train_mse:.5}, validation MSE {:.5}, validation correlation {:.4}",
            v.mse, v.correlation
        ),
        None => format!("train MSE {train_mse:.5}"),
    }
}

/// Minibatch Adam (β₁ 0.9, β₂ 0.999, ε 1e-8) over the squared error of the network.
pub struct Trainer {
    /// The current weights.
    pub params: Params,
    tying: Option<Tying>,
    m: Vec<f64>,
    v: Vec<f64>,
    steps: i32,
    rng: SplitMix64,
    config: TrainConfig,
}

impl Trainer {
    /// A trainer starting from [`Params::init`]`(seed)`.
    pub fn new(config: TrainConfig) -> Trainer {
        Trainer::from_params(Params::init(config.seed), config)
    }

    /// A trainer starting from given weights (tied first if the config ties them).
    pub fn from_params(mut params: Params, config: TrainConfig) -> Trainer {
        let tying = (config.tying != WeightTying::None).then(|| Tying::new(config.tying));
        if let Some(tying) = &tying {
            tying.average_classes(&mut params.w);
        }
        Trainer {
            params,
            tying,
            m: vec![0.0; WEIGHTS],
            v: vec![0.0; WEIGHTS],
            steps: 0,
            rng: SplitMix64::new(derive_seed(config.seed, 0x5348_5546)),
            config,
        }
    }

    /// The step size in epoch `epoch` (0-based).
    fn rate(&self, epoch: u32) -> f64 {
        let progress = f64::from(epoch) / f64::from(self.config.epochs.max(1));
        let cosine = 0.5 * (1.0 + (std::f64::consts::PI * progress).cos());
        self.config.learning_rate * (0.1 + 0.9 * cosine)
    }

    /// One pass over `train` in a seeded random order (epoch `epoch`, 0-based).
    pub fn epoch(&mut self, train: &[Sample], epoch: u32) {
        let mut order: Vec<usize> = (0..train.len()).collect();
        for i in (1..order.len()).rev() {
            let j = (self.rng.next_u64() % (i as u64 + 1)) as usize;
            order.swap(i, j);
        }
        let rate = self.rate(epoch);
        let mut grad = vec![0.0; WEIGHTS];
        for batch in order.chunks(self.config.batch.max(1)) {
            grad.iter_mut().for_each(|g| *g = 0.0);
            let scale = 1.0 / batch.len() as f64;
            for &i in batch {
                self.params.accumulate_gradient(&train[i], scale, &mut grad);
            }
            if let Some(tying) = &self.tying {
                tying.sum_classes(&mut grad);
            }
            self.step(&grad, rate);
        }
    }

    fn step(&mut self, grad: &[f64], rate: f64) {
        const B1: f64 = 0.9;
        const B2: f64 = 0.999;
        self.steps = self.steps.saturating_add(1);
        let (c1, c2) = (1.0 - B1.powi(self.steps), 1.0 - B2.powi(self.steps));
        let bound = f64::from(MAX_ABS_WEIGHT);
        for (((w, m), v), g) in self.params.w.iter_mut().zip(&mut self.m).zip(&mut self.v).zip(grad) {
            *m = B1 * *m + (1.0 - B1) * g;
            *v = B2 * *v + (1.0 - B2) * g * g;
            *w -= rate * (*m / c1) / ((*v / c2).sqrt() + 1e-8);
            *w = w.clamp(-bound, bound);
        }
    }

    /// Trains for the configured epochs, calling `report` after each.
    pub fn train(&mut self, train: &[Sample], validation: &[Sample], mut report: impl FnMut(EpochReport)) {
        for e in 0..self.config.epochs {
            self.epoch(train, e);
            report(EpochReport {
                epoch: e + 1,
                train_mse: self.params.mse(train),
                validation: Validation::of(&self.params, validation),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::imitate::positions::{Seen, samples};
    use loa_engine::aloa::Aloa;
    use loa_engine::network::{Network, inputs, random_uniform};
    use loa_engine::openings::sample_positions;
    use loa_engine::{Color, Rules};

    fn few_samples(count: usize, seed: u64) -> Vec<Sample> {
        let aloa = Aloa::quad();
        let rules = Rules::default();
        let seen: Vec<Seen> =
            sample_positions(count, seed).into_iter().map(|pos| Seen { pos, pov: pos.side_to_move() }).collect();
        samples(&aloa, &seen, 300.0, &rules)
    }

    #[test]
    fn forward_matches_the_engines_plain_evaluation() {
        let chromosome = random_uniform(7);
        let net = Network::new(&chromosome);
        let params = Params::from_chromosome(&chromosome).expect("default topology");
        for pos in sample_positions(200, 9) {
            for pov in Color::ALL {
                let ours = params.forward(&inputs(&pos, pov));
                let engine = f64::from(net.evaluate_plain(&pos, pov));
                assert!((ours - engine).abs() < 1e-5, "{ours} vs {engine}");
            }
        }
        // And after a round trip through the chromosome file's form.
        let trained = Params::init(3).to_chromosome().expect("valid");
        let again = Params::from_chromosome(&trained).expect("default topology");
        let net = Network::new(&trained);
        for pos in sample_positions(50, 10) {
            let (a, b) = (again.forward(&inputs(&pos, Color::White)), net.evaluate_plain(&pos, Color::White));
            assert!((a - f64::from(b)).abs() < 1e-5);
        }
    }

    #[test]
    fn gradient_matches_finite_differences() {
        let samples = few_samples(5, 4);
        // Random weights of order one, so no unit is trivially saturated or linear.
        let mut params = Params::from_chromosome(&random_uniform(5)).expect("default topology");
        params.w.iter_mut().for_each(|w| *w *= 0.2);
        let loss = |p: &Params| samples.iter().map(|s| (p.forward(&s.x) - s.y).powi(2)).sum::<f64>();
        let mut grad = vec![0.0; WEIGHTS];
        for s in &samples {
            params.accumulate_gradient(s, 1.0, &mut grad);
        }
        for &k in &[0, 57, 64 + 3, 1999, HIDDEN_BIAS + 4, OUTPUT_WEIGHT, OUTPUT_WEIGHT + 19, OUTPUT_BIAS] {
            let h = 1e-6;
            let (mut plus, mut minus) = (params.clone(), params.clone());
            plus.w[k] += h;
            minus.w[k] -= h;
            let numeric = (loss(&plus) - loss(&minus)) / (2.0 * h);
            assert!(
                (numeric - grad[k]).abs() <= 1e-6 * (1.0 + numeric.abs()),
                "weight {k}: analytic {} vs numeric {numeric}",
                grad[k]
            );
            assert!(grad[k] != 0.0, "weight {k} has a zero gradient: the check would prove nothing");
        }
    }

    #[test]
    fn fitting_a_small_target_lowers_the_loss() {
        let train = few_samples(300, 6);
        let config = TrainConfig { epochs: 30, batch: 16, learning_rate: 3e-3, seed: 1, tying: WeightTying::None };
        let mut trainer = Trainer::new(config);
        let before = trainer.params.mse(&train);
        let mut last = None;
        trainer.train(&train, &train, |r| last = Some(r));
        let last = last.expect("epochs ran");
        assert!(last.train_mse < 0.5 * before, "{before} -> {}", last.train_mse);
        assert!(last.validation.is_some_and(|v| v.correlation > 0.8), "{last:?}");
        // Deterministic from the seed.
        let mut again = Trainer::new(config);
        again.train(&train, &train, |_| {});
        assert_eq!(again.params, trainer.params);
    }

    #[test]
    fn tied_fitting_lowers_the_loss_and_keeps_the_weights_tied() {
        let train = few_samples(300, 6);
        let config =
            TrainConfig { epochs: 30, batch: 16, learning_rate: 3e-3, seed: 1, tying: WeightTying::Equivariant };
        let mut trainer = Trainer::new(config);
        let before = trainer.params.mse(&train);
        trainer.train(&train, &train, |_| {});
        let after = trainer.params.mse(&train);
        assert!(after < 0.7 * before, "{before} -> {after}");
        let tying = Tying::new(WeightTying::Equivariant);
        let chromosome = trainer.params.to_chromosome().unwrap();
        assert_eq!(tying.project(chromosome.weights()), chromosome.weights(), "tied after training");
    }
}
