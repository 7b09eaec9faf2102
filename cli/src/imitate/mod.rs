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

mod positions;
mod train;

pub use positions::{
    PositionConfig, PositionSet, Sample, Seen, collect_positions, label, label_scale, raw_score, samples,
};
pub use train::{EpochReport, Params, TrainConfig, Trainer, Validation, pearson};

use loa_engine::Rules;
use loa_engine::aloa::Aloa;
use loa_engine::network::{Chromosome, ChromosomeError, Topology};

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

/// Why `loa imitate` refused its flags or could not write its network.
#[derive(Debug, thiserror::Error)]
pub enum ImitateError {
    /// A flag out of range: the flag, the range it must be in, and the value given.
    #[error("{flag} must be {range}, not {value}")]
    Flag {
        /// The flag, e.g. `--epochs`.
        flag: &'static str,
        /// What it must be, e.g. `1..=100000`.
        range: &'static str,
        /// The value given.
        value: String,
    },
    /// A chromosome of another shape than the thesis's, which the trainer fits.
    #[error("topology {0} is not {thesis}", thesis = Topology::THESIS)]
    Topology(Topology),
    /// The fitted weights do not make a chromosome.
    #[error("{0}")]
    Chromosome(#[from] ChromosomeError),
}

impl ImitateConfig {
    /// Checks the ranges, naming the flag at fault.
    pub fn validate(&self) -> Result<(), ImitateError> {
        let bad = |flag, range, value: &dyn std::fmt::Display| {
            Err(ImitateError::Flag { flag, range, value: value.to_string() })
        };
        let p = &self.positions;
        if !(100..=2_000_000).contains(&p.positions) {
            return bad("--positions", "100..=2000000 (memory: 800 bytes each)", &p.positions);
        }
        if !(0.0..0.9).contains(&p.validation) {
            return bad("--validation", "at least 0 and below 0.9", &p.validation);
        }
        let t = &self.train;
        if !(1..=100_000).contains(&t.epochs) {
            return bad("--epochs", "1..=100000", &t.epochs);
        }
        if !(1..=1_000_000).contains(&t.batch) {
            return bad("--batch", "1..=1000000", &t.batch);
        }
        if !(t.learning_rate > 0.0 && t.learning_rate <= 1.0) {
            return bad("--learning-rate", "in (0, 1]", &t.learning_rate);
        }
        if let Some(s) = self.scale
            && !(s.is_finite() && s > 0.0)
        {
            return bad("--scale", "a positive number", &s);
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

/// Why there is no validation set, and how to get one.
fn no_validation_note(config: &PositionConfig, games: u64) -> String {
    if config.validation == 0.0 {
        return "validation: none (--validation 0): only training figures are printed".to_string();
    }
    format!(
        "validation: none: the set is held out by game, and none of the {games} games fell in the held-out \
         fraction {}; only training figures are printed (raise --positions or --validation for a validation set)",
        config.validation
    )
}

/// Collects and labels the positions, trains, and returns the fitted chromosome; `say` gets
/// one line per stage and per epoch.
pub fn imitate(config: &ImitateConfig, mut say: impl FnMut(String)) -> Result<ImitateSummary, ImitateError> {
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
    if set.validation.is_empty() {
        say(no_validation_note(&config.positions, set.games));
    }
    let scale = config.scale.unwrap_or_else(|| label_scale(&aloa, &set.train, &rules));
    let (train, validation) =
        (samples(&aloa, &set.train, scale, &rules), samples(&aloa, &set.validation, scale, &rules));
    let terminal = set.train.iter().filter(|s| s.pos.game_end(&rules).is_some()).count();
    let label_var = |xs: &[Sample]| {
        let n = xs.len().max(1) as f64;
        let mean = xs.iter().map(|s| s.y).sum::<f64>() / n;
        xs.iter().map(|s| (s.y - mean).powi(2)).sum::<f64>() / n
    };
    let validation_var =
        if validation.is_empty() { String::new() } else { format!(", validation {:.4}", label_var(&validation)) };
    say(format!(
        "labels: tanh(ALoA score / {scale:.1}) ({}), {terminal} training samples of finished games at ±1; label variance (the MSE of a constant) train {:.4}{validation_var}",
        if config.scale.is_some() { "--scale" } else { "the scores' standard deviation" },
        label_var(&train),
    ));
    let mut trainer = Trainer::new(config.train);
    say(format!(
        "epoch 0: {}",
        train::figures(trainer.params.mse(&train), Validation::of(&trainer.params, &validation))
    ));
    let mut last = None;
    let clock = std::time::Instant::now();
    trainer.train(&train, &validation, |r| {
        last = Some(r);
        say(format!(
            "epoch {}: {} ({:.0} s)",
            r.epoch,
            train::figures(r.train_mse, r.validation),
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
