//! `loa imitate`: fit the docs/spec.md §3 network to ALoA's static evaluation by supervised learning
//! (a diagnostic: can this architecture represent a player as strong as ALoA(3)?).
//!
//! 1. [`collect_positions`]: positions from seeded games (ALoA(2) against ALoA(2), ALoA(2)
//!    against the random heuristic(2), random(2) against random(2), each from a few random
//!    opening plies), split by game into training and validation sets.
//! 2. [`label`]: ALoA's evaluation of a position from a point of view, squashed by
//!    `tanh(score / scale)`; finished games ±1 (0 for a draw).
//! 3. [`Trainer`]: the network's exact forward function in f64 (the inputs of
//!    [`loa_engine::network::inputs`], tanh hidden units, tanh output, weights in the chromosome
//!    layout), mean squared error, minibatch Adam on one thread, deterministic from the seed.
//!
//! Every position gives two samples, one from each side's point of view: the network has no
//! side-to-move input and ALoA's evaluation is exactly antisymmetric (own total minus the
//! opponent's, no tempo term), so both orientations are true statements about the same
//! function, and the 3-ply search evaluates its leaves from the root player's side, which at
//! an odd depth is the side *not* to move.

use loa_engine::aloa::Aloa;
use loa_engine::game::{Player, play_game};
use loa_engine::network::symmetry::{Tying, WeightTying};
use loa_engine::network::{Chromosome, INPUTS, MAX_ABS_WEIGHT, SplitMix64, Topology, inputs};
use loa_engine::openings::random_opening;
use loa_engine::players::{RandomPlayer, SearchPlayer};
use loa_engine::random::derive_seed;
use loa_engine::{Color, Outcome, Position, Rules};
use std::collections::HashSet;

/// Hidden units of the default topology.
const HIDDEN: usize = loa_engine::network::HIDDEN;
/// Chromosome length of the default topology.
const WEIGHTS: usize = INPUTS * HIDDEN + HIDDEN + HIDDEN + 1;

/// How positions are collected.
#[derive(Clone, Copy, Debug)]
pub struct PositionConfig {
    /// Distinct positions to collect (each gives two samples).
    pub positions: usize,
    /// Fraction of games held out for validation (0 ≤ f < 1).
    pub validation: f64,
    /// Seed of the games and the split.
    pub seed: u64,
}

/// One training sample: the inputs of a position from a point of view and its label.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    /// The network's 100 inputs ([`inputs`]).
    pub x: [f32; INPUTS],
    /// The target in [-1, 1].
    pub y: f64,
}

/// A position and the point of view its label is taken from, before labelling.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Seen {
    /// The position (side to move included).
    pub pos: Position,
    /// The network's "self".
    pub pov: Color,
}

/// The collected positions, split by game.
#[derive(Clone, Debug, Default)]
pub struct PositionSet {
    /// Training positions, each from both points of view.
    pub train: Vec<Seen>,
    /// Validation positions (from games none of whose positions are in `train`).
    pub validation: Vec<Seen>,
    /// Games played.
    pub games: u64,
}

/// The kind of game `index` is: half ALoA(2) self-play, a quarter ALoA(2) against the random
/// heuristic(2) (ALoA winning positions, lopsided boards), a quarter random against random
/// (scattered, unusual boards), so the net sees more than ALoA's own style.
fn game_players(index: u64) -> (Box<dyn Player>, Box<dyn Player>) {
    let aloa = || Box::new(SearchPlayer { eval: Aloa::quad(), depth: 2 }) as Box<dyn Player>;
    let random = |salt| Box::new(RandomPlayer { depth: 2, salt }) as Box<dyn Player>;
    match index % 4 {
        0 | 1 => (aloa(), aloa()),
        2 if index % 8 == 2 => (aloa(), random(0)),
        2 => (random(0), aloa()),
        _ => (random(0), random(1)),
    }
}

/// Plays seeded games until `config.positions` distinct positions are collected. Game `g` has
/// seed `derive_seed(seed, g)`, starts after 2 to 8 random plies (more variety than the
/// evaluation's 4), and goes to validation when a hash of its seed falls below the fraction.
/// Positions already seen (in either set) are skipped, so no position is in both sets.
pub fn collect_positions(config: &PositionConfig) -> PositionSet {
    let rules = Rules::default();
    let mut seen = HashSet::new();
    let mut set = PositionSet::default();
    let mut collected = 0;
    while collected < config.positions {
        let g = set.games;
        set.games += 1;
        let seed = derive_seed(config.seed, g);
        let plies = 2 + (derive_seed(seed, 1) % 7) as u32;
        let start = random_opening(plies, derive_seed(seed, 2), &rules);
        let (black, white) = game_players(g);
        let record = play_game(&*black, &*white, &rules, start, seed);
        let held_out =
            (derive_seed(seed, 3) >> 11) as f64 / (1u64 << 53) as f64 <= config.validation && config.validation > 0.0;
        let mut pos = start;
        let mut along = vec![pos];
        for mv in &record.moves {
            pos = pos.play(*mv);
            along.push(pos);
        }
        for pos in along {
            if collected == config.positions {
                break;
            }
            if !seen.insert((pos.pieces(Color::Black).0, pos.pieces(Color::White).0, pos.side_to_move())) {
                continue;
            }
            collected += 1;
            let target = if held_out { &mut set.validation } else { &mut set.train };
            for pov in Color::ALL {
                target.push(Seen { pos, pov });
            }
        }
    }
    set
}

/// ALoA's raw evaluation of `pos` for `pov` (own total minus the opponent's), or `None` if the
/// game is over there.
pub fn raw_score(aloa: &Aloa, pos: &Position, pov: Color, rules: &Rules) -> Option<i32> {
    match pos.game_end(rules) {
        Some(_) => None,
        None => Some(aloa.score(pos, pov)),
    }
}

/// The label of `pos` for `pov`: `tanh(score / scale)` with ALoA's score from `pov`'s side,
/// or the result of a finished game: +1 won by `pov`, −1 lost, 0 drawn.
pub fn label(aloa: &Aloa, pos: &Position, pov: Color, scale: f64, rules: &Rules) -> f64 {
    match pos.game_end(rules) {
        Some(end) => match end.outcome {
            Outcome::Win(c) if c == pov => 1.0,
            Outcome::Win(_) => -1.0,
            Outcome::Draw => 0.0,
        },
        None => (f64::from(aloa.score(pos, pov)) / scale).tanh(),
    }
}

/// The scale of the labels: the standard deviation of ALoA's raw scores over the running
/// positions. One standard deviation maps to tanh(1) = 0.76 and three to 0.995, so the bulk of
/// the labels lies in the tanh's informative range and few saturate; tanh is increasing, so the
/// labels order positions exactly as ALoA does (a perfect fit would choose ALoA's moves).
/// Never below 1 (an all-equal set of scores).
pub fn label_scale(aloa: &Aloa, positions: &[Seen], rules: &Rules) -> f64 {
    let scores: Vec<f64> =
        positions.iter().filter_map(|s| raw_score(aloa, &s.pos, s.pov, rules)).map(f64::from).collect();
    if scores.is_empty() {
        return 1.0;
    }
    let n = scores.len() as f64;
    let mean = scores.iter().sum::<f64>() / n;
    let var = scores.iter().map(|s| (s - mean) * (s - mean)).sum::<f64>() / n;
    var.sqrt().max(1.0)
}

/// The samples of `positions`, labelled with `scale`.
pub fn samples(aloa: &Aloa, positions: &[Seen], scale: f64, rules: &Rules) -> Vec<Sample> {
    positions.iter().map(|s| Sample { x: inputs(&s.pos, s.pov), y: label(aloa, &s.pos, s.pov, scale, rules) }).collect()
}

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
    pub fn from_chromosome(chromosome: &Chromosome) -> Result<Params, String> {
        if chromosome.topology() != Topology::BoardNonad100_20_1 {
            return Err(format!("topology {} is not {}", chromosome.topology(), Topology::BoardNonad100_20_1));
        }
        Ok(Params { w: chromosome.weights().iter().map(|&v| f64::from(v)).collect() })
    }

    /// The chromosome with these weights rounded to f32 and clamped within the chromosome
    /// bound (never reached in practice; the clamp keeps the file valid whatever happens).
    pub fn to_chromosome(&self) -> Result<Chromosome, String> {
        let bound = f64::from(MAX_ABS_WEIGHT);
        let weights = self.w.iter().map(|&v| if v.is_finite() { v.clamp(-bound, bound) as f32 } else { 0.0 }).collect();
        Chromosome::new(Topology::BoardNonad100_20_1, weights).map_err(|e| e.to_string())
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
    /// Mean squared error on the validation set.
    pub validation_mse: f64,
    /// Correlation of outputs and labels on the validation set.
    pub validation_correlation: f64,
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
                validation_mse: self.params.mse(validation),
                validation_correlation: self.params.correlation(validation),
            });
        }
    }
}

/// Everything `loa imitate` needs.
#[derive(Clone, Debug)]
pub struct ImitateConfig {
    /// Positions and their split.
    pub positions: PositionConfig,
    /// Training.
    pub train: TrainConfig,
    /// The label scale; `None` for [`label_scale`] of the training positions.
    pub scale: Option<f64>,
}

impl ImitateConfig {
    /// Checks the ranges, naming the flag at fault.
    pub fn validate(&self) -> Result<(), String> {
        let p = &self.positions;
        if !(100..=2_000_000).contains(&p.positions) {
            return Err(format!("--positions must be 100..=2000000 (memory: 800 bytes each), not {}", p.positions));
        }
        if !(0.0..0.9).contains(&p.validation) {
            return Err(format!("--validation must be at least 0 and below 0.9, not {}", p.validation));
        }
        let t = &self.train;
        if !(1..=100_000).contains(&t.epochs) {
            return Err(format!("--epochs must be 1..=100000, not {}", t.epochs));
        }
        if !(1..=1_000_000).contains(&t.batch) {
            return Err(format!("--batch must be 1..=1000000, not {}", t.batch));
        }
        if !(t.learning_rate > 0.0 && t.learning_rate <= 1.0) {
            return Err(format!("--learning-rate must be in (0, 1], not {}", t.learning_rate));
        }
        if let Some(s) = self.scale
            && !(s.is_finite() && s > 0.0)
        {
            return Err(format!("--scale must be a positive number, not {s}"));
        }
        Ok(())
    }
}

/// What a run of `loa imitate` reached.
#[derive(Clone, Debug)]
pub struct ImitateSummary {
    /// The fitted weights.
    pub chromosome: Chromosome,
    /// Games played to collect the positions.
    pub games: u64,
    /// Training and validation samples (two per position).
    pub train_samples: usize,
    /// Validation samples.
    pub validation_samples: usize,
    /// The label scale used.
    pub scale: f64,
    /// The last epoch's figures.
    pub last: Option<EpochReport>,
}

/// Collects and labels the positions, trains, and returns the fitted chromosome; `say` gets
/// one line per stage and per epoch.
pub fn imitate(config: &ImitateConfig, mut say: impl FnMut(String)) -> Result<ImitateSummary, String> {
    config.validate()?;
    let start = std::time::Instant::now();
    let aloa = Aloa::quad();
    let rules = Rules::default();
    let set = collect_positions(&config.positions);
    say(format!(
        "positions: {} training and {} validation samples (two points of view per position) from {} games in {:.1} s",
        set.train.len(),
        set.validation.len(),
        set.games,
        start.elapsed().as_secs_f64()
    ));
    let scale = config.scale.unwrap_or_else(|| label_scale(&aloa, &set.train, &rules));
    let (train, validation) =
        (samples(&aloa, &set.train, scale, &rules), samples(&aloa, &set.validation, scale, &rules));
    let terminal = set.train.iter().filter(|s| s.pos.game_end(&rules).is_some()).count();
    let label_var = |xs: &[Sample]| {
        let n = xs.len().max(1) as f64;
        let mean = xs.iter().map(|s| s.y).sum::<f64>() / n;
        xs.iter().map(|s| (s.y - mean).powi(2)).sum::<f64>() / n
    };
    say(format!(
        "labels: tanh(ALoA score / {scale:.1}) ({}), {terminal} training samples of finished games at ±1; label variance (the MSE of a constant) train {:.4}, validation {:.4}",
        if config.scale.is_some() { "--scale" } else { "the scores' standard deviation" },
        label_var(&train),
        label_var(&validation)
    ));
    let mut trainer = Trainer::new(config.train);
    say(format!(
        "epoch 0: train MSE {:.5}, validation MSE {:.5}, validation correlation {:.4}",
        trainer.params.mse(&train),
        trainer.params.mse(&validation),
        trainer.params.correlation(&validation)
    ));
    let mut last = None;
    let clock = std::time::Instant::now();
    trainer.train(&train, &validation, |r| {
        last = Some(r);
        say(format!(
            "epoch {}: train MSE {:.5}, validation MSE {:.5}, validation correlation {:.4} ({:.0} s)",
            r.epoch,
            r.train_mse,
            r.validation_mse,
            r.validation_correlation,
            clock.elapsed().as_secs_f64()
        ));
    });
    Ok(ImitateSummary {
        chromosome: trainer.params.to_chromosome()?,
        games: set.games,
        train_samples: train.len(),
        validation_samples: validation.len(),
        scale,
        last,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use loa_engine::Bitboard;
    use loa_engine::network::{Network, random_uniform};
    use loa_engine::openings::sample_positions;

    fn bits(squares: &[&str]) -> Bitboard {
        let mut b = Bitboard::EMPTY;
        for s in squares {
            let sq = loa_engine::Square::parse(s).expect("square");
            b = Bitboard(b.0 | sq.bit());
        }
        b
    }

    fn few_samples(count: usize, seed: u64) -> Vec<Sample> {
        let aloa = Aloa::quad();
        let rules = Rules::default();
        let seen: Vec<Seen> =
            sample_positions(count, seed).into_iter().map(|pos| Seen { pos, pov: pos.side_to_move() }).collect();
        samples(&aloa, &seen, 300.0, &rules)
    }

    /// Hand-worked (docs/spec.md §4 terms, default weights 300/4/3/10/10/10):
    /// Black d4 e4 d5 e5 a1 (n 5, Σx = Σy = 14): distances ×5 are 1, 6, 6, 6, 14 = 33, minimum
    /// 19, excess 14: concentration −300·14/25 = −168; centre of mass off by |28 − 35| = 7:
    /// −⌊4·7/10⌋ = −2; rings 3·4 = 12: +36; one edge piece: −10; the d4 block is a Q4 whose
    /// centre is within 2 of the centre of mass: +10. Total −134.
    /// White a8 h1 h8 (n 3, Σx = Σy = 14): distances ×3 are 14, 14, 7 = 35, minimum 5, excess
    /// 30: −300·30/9 = −1000; centre of mass off by 7: −⌊28/6⌋ = −4; rings 0; three edge
    /// pieces: −30. Total −1034.
    /// So ALoA scores the position +900 for Black and −900 for White.
    #[test]
    fn labels_are_aloa_from_the_networks_point_of_view() {
        let black = bits(&["d4", "e4", "d5", "e5", "a1"]);
        let white = bits(&["a8", "h1", "h8"]);
        let rules = Rules::default();
        let aloa = Aloa::quad();
        for side in Color::ALL {
            let pos = Position::from_pieces(black, white, side).expect("position");
            assert!(pos.game_end(&rules).is_none());
            assert_eq!(raw_score(&aloa, &pos, Color::Black, &rules), Some(900));
            assert_eq!(raw_score(&aloa, &pos, Color::White, &rules), Some(-900));
            let b = label(&aloa, &pos, Color::Black, 900.0, &rules);
            assert!((b - 1f64.tanh()).abs() < 1e-12);
            assert!((label(&aloa, &pos, Color::White, 900.0, &rules) + b).abs() < 1e-12);
            // The network's inputs for the same point of view: Black's pieces are "own" (0.75).
            let x = inputs(&pos, Color::Black);
            assert_eq!(x[loa_engine::network::board_input_index(loa_engine::Square::parse("d4").expect("sq"))], 0.75);
            assert_eq!(x[loa_engine::network::board_input_index(loa_engine::Square::parse("h8").expect("sq"))], 0.25);
        }
        // A finished game: White to move, Black connected (the 2×2 block alone) → Black won.
        let pos = Position::from_pieces(bits(&["d4", "e4", "d5", "e5"]), white, Color::White).expect("position");
        assert_eq!(label(&aloa, &pos, Color::Black, 900.0, &rules), 1.0);
        assert_eq!(label(&aloa, &pos, Color::White, 900.0, &rules), -1.0);
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
        assert!(last.validation_correlation > 0.8, "{last:?}");
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

    #[test]
    fn positions_are_deterministic_distinct_and_split_by_game() {
        let config = PositionConfig { positions: 600, validation: 0.25, seed: 3 };
        let a = collect_positions(&config);
        let b = collect_positions(&config);
        assert_eq!(a.train, b.train);
        assert_eq!(a.validation, b.validation);
        assert_eq!(a.train.len() + a.validation.len(), 2 * 600);
        assert!(!a.validation.is_empty() && a.validation.len() < a.train.len());
        let train: HashSet<_> = a.train.iter().map(|s| s.pos).collect();
        assert!(a.validation.iter().all(|s| !train.contains(&s.pos)));
        let scale = label_scale(&Aloa::quad(), &a.train, &Rules::default());
        assert!(scale > 1.0);
    }
}
