//! CMA-ES, the covariance matrix adaptation evolution strategy, written against Hansen's "The CMA
//! Evolution Strategy: A Tutorial" (its default parameters, positive recombination weights only),
//! as an ask-and-tell optimiser that minimises. [`Covariance::Diagonal`] is sep-CMA-ES (Ros and
//! Hansen, 2008): the covariance's diagonal alone, learnt (n + 2) / 3 times faster, for
//! dimensions where a full matrix is too slow. Restarts follow IPOP (Auger and Hansen, 2005): when
//! the search stalls, it starts again from where its mean stands with twice the population.
//!
//! It knows nothing of games: [`Cma::ask`] draws candidates from the caller's generator and
//! changes nothing, [`Cma::tell`] moves the state on from their fitnesses; the state is plain
//! serde data, so a run saved between generations goes on bit for bit.

pub mod eigen;
#[cfg(test)]
mod tests;

use crate::rng::GaRng;
use serde::{Deserialize, Serialize};

/// Which covariance the search distribution adapts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Covariance {
    /// The full n × n matrix, eigen-decomposed every few generations.
    #[default]
    Full,
    /// Its diagonal alone (sep-CMA-ES): linear cost in the dimension.
    Diagonal,
}

/// Why CMA-ES cannot take up fitnesses or a saved state.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum CmaError {
    /// Not one fitness per candidate, or candidates of another dimension.
    #[error("CMA-ES was told {found} fitnesses or coordinates where it asked for {expected}")]
    Count {
        /// Values handed back.
        found: usize,
        /// Values expected.
        expected: usize,
    },
    /// A mean learning rate outside (0, 1].
    #[error("CMA-ES's mean learning rate must be in (0, 1], got {0}")]
    MeanRate(f64),
    /// A fitness that is not a number.
    #[error("CMA-ES was told a fitness that is not a number")]
    NotANumber,
    /// A saved state that cannot be CMA-ES's for this problem.
    #[error("CMA-ES's state: {0}")]
    State(String),
}

/// Why a restart happened (the criteria of Hansen's tutorial, with its default tolerances).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Restart {
    /// Every coordinate's standard deviation and path fell below 10⁻¹² σ₀.
    TolX,
    /// The best fitnesses of the last 10 + ⌈30n/λ⌉ generations and the whole last generation
    /// lie within 10⁻¹².
    TolFun,
    /// The covariance's condition number passed 10¹⁴.
    Condition,
}

impl Restart {
    /// The criterion's name, as the tutorial calls it.
    pub fn name(self) -> &'static str {
        match self {
            Restart::TolX => "TolX",
            Restart::TolFun => "TolFun",
            Restart::Condition => "ConditionCov",
        }
    }
}

/// The tutorial's default parameters for dimension n and population λ.
#[derive(Clone, Debug, PartialEq)]
pub struct Params {
    /// μ = ⌊λ/2⌋ parents.
    pub mu: usize,
    /// Their weights, ∝ ln((λ + 1)/2) − ln i, summing to 1.
    pub weights: Vec<f64>,
    /// The variance effective selection mass 1 / Σ wᵢ².
    pub mueff: f64,
    /// Learning rates of the covariance path, the step-size path, rank-one and rank-μ updates.
    pub cc: f64,
    /// See `cc`.
    pub cs: f64,
    /// See `cc`.
    pub c1: f64,
    /// See `cc`.
    pub cmu: f64,
    /// The step size's damping.
    pub damps: f64,
    /// E‖N(0, I)‖.
    pub chi_n: f64,
}

impl Params {
    /// The defaults for `n` coordinates, `lambda` candidates and `covariance`.
    pub fn new(n: usize, lambda: usize, covariance: Covariance) -> Params {
        let (nf, mu) = (n as f64, (lambda / 2).max(1));
        let raw: Vec<f64> = (1..=mu).map(|i| ((lambda as f64 + 1.0) / 2.0).ln() - (i as f64).ln()).collect();
        let sum: f64 = raw.iter().sum();
        let weights: Vec<f64> = raw.iter().map(|w| w / sum).collect();
        let mueff = 1.0 / weights.iter().map(|w| w * w).sum::<f64>();
        let cc = (4.0 + mueff / nf) / (nf + 4.0 + 2.0 * mueff / nf);
        let cs = (mueff + 2.0) / (nf + mueff + 5.0);
        let mut c1 = 2.0 / ((nf + 1.3).powi(2) + mueff);
        let mut cmu = (1.0 - c1).min(2.0 * (mueff - 2.0 + 1.0 / mueff) / ((nf + 2.0).powi(2) + mueff));
        if covariance == Covariance::Diagonal {
            let faster = (nf + 2.0) / 3.0;
            c1 = (c1 * faster).min(1.0);
            cmu = (cmu * faster).min(1.0 - c1);
        }
        let damps = 1.0 + 2.0 * (((mueff - 1.0) / (nf + 1.0)).sqrt() - 1.0).max(0.0) + cs;
        let chi_n = nf.sqrt() * (1.0 - 1.0 / (4.0 * nf) + 1.0 / (21.0 * nf * nf));
        Params { mu, weights, mueff, cc, cs, c1, cmu, damps, chi_n }
    }
}

/// The optimiser's whole state.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Cma {
    covariance: Covariance,
    /// Candidates per generation (doubled by each restart).
    lambda: usize,
    sigma0: f64,
    max_restarts: u32,
    restarts: u32,
    mean: Vec<f64>,
    sigma: f64,
    /// The step-size and covariance evolution paths.
    ps: Vec<f64>,
    pc: Vec<f64>,
    /// C, row-major n × n (full) or its diagonal.
    c: Vec<f64>,
    /// The eigenvectors of C at its last decomposition, as columns (full; empty for diagonal).
    b: Vec<f64>,
    /// The roots of C's eigenvalues (full) or of its diagonal.
    d: Vec<f64>,
    /// Generations since the last (re)start, and the one of the last decomposition.
    generation: u64,
    eigen_at: u64,
    /// Fitnesses evaluated, over all restarts.
    evaluations: u64,
    /// The best fitness of each recent generation, for [`Restart::TolFun`].
    best: Vec<f64>,
}

impl Cma {
    /// A search from `mean` with step size `sigma0`, `lambda` candidates per generation and at
    /// most `max_restarts` restarts.
    pub fn new(mean: Vec<f64>, sigma0: f64, lambda: usize, covariance: Covariance, max_restarts: u32) -> Cma {
        let n = mean.len();
        let mut cma = Cma {
            covariance,
            lambda,
            sigma0,
            max_restarts,
            restarts: 0,
            mean,
            sigma: sigma0,
            ps: Vec::new(),
            pc: Vec::new(),
            c: Vec::new(),
            b: Vec::new(),
            d: Vec::new(),
            generation: 0,
            eigen_at: 0,
            evaluations: 0,
            best: Vec::new(),
        };
        cma.reset(n);
        cma
    }

    /// Back to σ₀ and C = I with empty paths, keeping the mean.
    fn reset(&mut self, n: usize) {
        let identity = |n: usize| (0..n * n).map(|i| f64::from(u8::from(i % (n + 1) == 0))).collect::<Vec<f64>>();
        self.sigma = self.sigma0;
        self.ps = vec![0.0; n];
        self.pc = vec![0.0; n];
        (self.c, self.b) = match self.covariance {
            Covariance::Full => (identity(n), identity(n)),
            Covariance::Diagonal => (vec![1.0; n], Vec::new()),
        };
        self.d = vec![1.0; n];
        self.generation = 0;
        self.eigen_at = 0;
        self.best.clear();
    }

    /// The distribution's mean: the search's current estimate.
    pub fn mean(&self) -> &[f64] {
        &self.mean
    }

    /// The step size σ.
    pub fn sigma(&self) -> f64 {
        self.sigma
    }

    /// Candidates per generation now.
    pub fn lambda(&self) -> usize {
        self.lambda
    }

    /// Restarts so far.
    pub fn restarts(&self) -> u32 {
        self.restarts
    }

    /// Fitnesses evaluated so far.
    pub fn evaluations(&self) -> u64 {
        self.evaluations
    }

    /// Which covariance it adapts.
    pub fn covariance(&self) -> Covariance {
        self.covariance
    }

    /// λ candidates m + σ B D z, z standard normal, drawn from `rng` coordinate by coordinate.
    pub fn ask(&self, rng: &mut GaRng) -> Vec<Vec<f64>> {
        let n = self.mean.len();
        (0..self.lambda)
            .map(|_| {
                let scaled: Vec<f64> = self.d.iter().map(|d| d * rng.normal()).collect();
                let y = match self.covariance {
                    Covariance::Full => times(&self.b, n, &scaled),
                    Covariance::Diagonal => scaled,
                };
                self.mean.iter().zip(&y).map(|(m, y)| m + self.sigma * y).collect()
            })
            .collect()
    }

    /// Moves the distribution on from the fitnesses (lower is better) of the candidates
    /// [`Cma::ask`] gave, and restarts it if the search stalled (and restarts are left). The
    /// mean moves all the way to the best half's weighted mean (c_m = 1).
    pub fn tell(&mut self, candidates: &[Vec<f64>], fitness: &[f64]) -> Result<Option<Restart>, CmaError> {
        self.tell_at(candidates, fitness, 1.0)
    }

    /// [`Cma::tell`] with the mean's learning rate c_m in (0, 1]: the mean moves by
    /// c_m σ ⟨y⟩_w, the fraction c_m of the way to the best half's weighted mean. The paths, the
    /// covariance and σ learn from ⟨y⟩_w as with c_m = 1 (the tutorial feeds them
    /// (m′ − m) / (c_m σ), which is ⟨y⟩_w, and leaves its damping alone), so a smaller c_m
    /// averages the mean's noisy steps over more generations while σ adapts as before.
    pub fn tell_at(&mut self, candidates: &[Vec<f64>], fitness: &[f64], c_m: f64) -> Result<Option<Restart>, CmaError> {
        let n = self.mean.len();
        if !(c_m > 0.0 && c_m <= 1.0) {
            return Err(CmaError::MeanRate(c_m));
        }
        if fitness.len() != self.lambda || candidates.len() != self.lambda {
            return Err(CmaError::Count { found: fitness.len().min(candidates.len()), expected: self.lambda });
        }
        if let Some(x) = candidates.iter().find(|x| x.len() != n) {
            return Err(CmaError::Count { found: x.len(), expected: n });
        }
        if fitness.iter().any(|f| f.is_nan()) {
            return Err(CmaError::NotANumber);
        }
        let p = Params::new(n, self.lambda, self.covariance);
        let mut order: Vec<usize> = (0..self.lambda).collect();
        order.sort_by(|&i, &j| fitness[i].total_cmp(&fitness[j]));
        let ys: Vec<Vec<f64>> = order[..p.mu]
            .iter()
            .map(|&i| candidates[i].iter().zip(&self.mean).map(|(x, m)| (x - m) / self.sigma).collect())
            .collect();
        let mut yw = vec![0.0; n];
        for (w, y) in p.weights.iter().zip(&ys) {
            yw.iter_mut().zip(y).for_each(|(s, y)| *s += w * y);
        }
        let step = c_m * self.sigma;
        self.mean.iter_mut().zip(&yw).for_each(|(m, y)| *m += step * y);
        // C^(−1/2) y_w, from the last decomposition.
        let whitened = match self.covariance {
            Covariance::Full => {
                let rotated: Vec<f64> = (0..n).map(|j| (0..n).map(|i| self.b[i * n + j] * yw[i]).sum()).collect();
                let scaled: Vec<f64> = rotated.iter().zip(&self.d).map(|(r, d)| r / d).collect();
                times(&self.b, n, &scaled)
            }
            Covariance::Diagonal => yw.iter().zip(&self.d).map(|(y, d)| y / d).collect(),
        };
        let ks = (p.cs * (2.0 - p.cs) * p.mueff).sqrt();
        self.ps.iter_mut().zip(&whitened).for_each(|(ps, w)| *ps = (1.0 - p.cs) * *ps + ks * w);
        let norm = self.ps.iter().map(|x| x * x).sum::<f64>().sqrt();
        let generations = (self.generation + 1) as f64;
        let hsig =
            norm / (1.0 - (1.0 - p.cs).powf(2.0 * generations)).sqrt() < (1.4 + 2.0 / (n as f64 + 1.0)) * p.chi_n;
        let kc = if hsig { (p.cc * (2.0 - p.cc) * p.mueff).sqrt() } else { 0.0 };
        self.pc.iter_mut().zip(&yw).for_each(|(pc, y)| *pc = (1.0 - p.cc) * *pc + kc * y);
        // Without h_σ the rank-one update loses the variance the path did not gather.
        let lost = if hsig { 0.0 } else { p.cc * (2.0 - p.cc) };
        let keep = 1.0 - p.c1 - p.cmu + p.c1 * lost;
        match self.covariance {
            Covariance::Full => {
                for i in 0..n {
                    for j in i..n {
                        let rank_mu: f64 = p.weights.iter().zip(&ys).map(|(w, y)| w * y[i] * y[j]).sum();
                        let value = keep * self.c[i * n + j] + p.c1 * self.pc[i] * self.pc[j] + p.cmu * rank_mu;
                        self.c[i * n + j] = value;
                        self.c[j * n + i] = value;
                    }
                }
            }
            Covariance::Diagonal => {
                for i in 0..n {
                    let rank_mu: f64 = p.weights.iter().zip(&ys).map(|(w, y)| w * y[i] * y[i]).sum();
                    self.c[i] = keep * self.c[i] + p.c1 * self.pc[i] * self.pc[i] + p.cmu * rank_mu;
                }
            }
        }
        self.sigma *= ((p.cs / p.damps) * (norm / p.chi_n - 1.0)).exp();
        self.generation += 1;
        self.evaluations += self.lambda as u64;
        self.decompose(&p);
        let best = fitness.iter().copied().fold(f64::INFINITY, f64::min);
        let window = 10 + (30 * n).div_ceil(self.lambda);
        self.best.push(best);
        if self.best.len() > window {
            self.best.remove(0);
        }
        let stalled = self.stalled(fitness, window);
        if let Some(why) = stalled
            && self.restarts < self.max_restarts
        {
            self.restarts += 1;
            self.lambda *= 2;
            self.reset(n);
            return Ok(Some(why));
        }
        Ok(None)
    }

    /// B and D from C: every generation for the diagonal, every 1 / (10 n (c₁ + c_μ))
    /// generations (the tutorial's lazy update) for the full matrix.
    fn decompose(&mut self, p: &Params) {
        let n = self.mean.len();
        match self.covariance {
            Covariance::Diagonal => self.d = self.c.iter().map(|c| c.max(0.0).sqrt()).collect(),
            Covariance::Full => {
                let gap = 1.0 / (10.0 * n as f64 * (p.c1 + p.cmu));
                if ((self.generation - self.eigen_at) as f64) < gap {
                    return;
                }
                let (values, vectors) = eigen::symmetric(&self.c, n);
                self.b = vectors;
                // Rounding can leave a tiny negative value; the condition criterion restarts
                // long before it matters.
                self.d = values.iter().map(|v| v.max(1e-300).sqrt()).collect();
                self.eigen_at = self.generation;
            }
        }
    }

    /// Why the search should restart, if it should.
    fn stalled(&self, fitness: &[f64], window: usize) -> Option<Restart> {
        let tol_x = 1e-12 * self.sigma0;
        let sd = |i: usize| match self.covariance {
            Covariance::Full => self.c[i * self.mean.len() + i].sqrt(),
            Covariance::Diagonal => self.c[i].sqrt(),
        };
        if (0..self.mean.len()).all(|i| self.sigma * self.pc[i].abs().max(sd(i)) < tol_x) {
            return Some(Restart::TolX);
        }
        let all = self.best.iter().chain(fitness);
        let (low, high) = all.fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), &f| (l.min(f), h.max(f)));
        if self.best.len() >= window && high - low < 1e-12 {
            return Some(Restart::TolFun);
        }
        let (dmin, dmax) = self.d.iter().fold((f64::INFINITY, 0.0f64), |(l, h), &d| (l.min(d), h.max(d)));
        if (dmax / dmin).powi(2) > 1e14 {
            return Some(Restart::Condition);
        }
        None
    }

    /// Why this state (read from a checkpoint) cannot be a search over `n` coordinates with
    /// `covariance`, if so.
    pub fn check(&self, n: usize, covariance: Covariance) -> Result<(), CmaError> {
        let bad = |why: String| Err(CmaError::State(why));
        if self.covariance != covariance {
            return bad(format!("a {:?} covariance where the run adapts a {covariance:?} one", self.covariance));
        }
        let (square, b) = match covariance {
            Covariance::Full => (n * n, n * n),
            Covariance::Diagonal => (n, 0),
        };
        let sizes = [self.mean.len(), self.ps.len(), self.pc.len(), self.d.len(), self.c.len(), self.b.len()];
        if sizes != [n, n, n, n, square, b] {
            return bad(format!("sizes {sizes:?} for {n} coordinates"));
        }
        let finite = [&self.mean, &self.ps, &self.pc, &self.c, &self.b, &self.d, &self.best];
        if finite.iter().any(|v| v.iter().any(|x| !x.is_finite())) || !self.sigma.is_finite() {
            return bad("a value that is not finite".into());
        }
        if !(self.sigma > 0.0 && self.sigma0 > 0.0) || self.lambda < 2 || self.eigen_at > self.generation {
            return bad(format!("σ {}, σ₀ {}, λ {}", self.sigma, self.sigma0, self.lambda));
        }
        if self.restarts > self.max_restarts {
            return bad(format!("{} restarts of at most {}", self.restarts, self.max_restarts));
        }
        Ok(())
    }
}

/// The row-major n × n matrix `m` times `x`.
fn times(m: &[f64], n: usize, x: &[f64]) -> Vec<f64> {
    (0..n).map(|i| m[i * n..(i + 1) * n].iter().zip(x).map(|(a, b)| a * b).sum()).collect()
}
