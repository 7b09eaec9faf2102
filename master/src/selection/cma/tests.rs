//! CMA-ES against its published behaviour on the tutorial's test functions.

use super::*;

fn sphere(x: &[f64]) -> f64 {
    x.iter().map(|x| x * x).sum()
}

/// Σ 10^(6(i−1)/(n−1)) xᵢ²: condition number 10⁶.
fn ellipsoid(x: &[f64]) -> f64 {
    let n = x.len() as f64;
    x.iter().enumerate().map(|(i, x)| 10f64.powf(6.0 * i as f64 / (n - 1.0)) * x * x).sum()
}

fn rosenbrock(x: &[f64]) -> f64 {
    x.windows(2).map(|w| 100.0 * (w[0] * w[0] - w[1]).powi(2) + (1.0 - w[0]).powi(2)).sum()
}

/// A random rotation of n coordinates (Gram-Schmidt on normal vectors), row-major.
fn rotation(n: usize, seed: u64) -> Vec<f64> {
    let mut rng = GaRng::from_seed(seed);
    let mut rows: Vec<Vec<f64>> = Vec::new();
    while rows.len() < n {
        let mut v: Vec<f64> = (0..n).map(|_| rng.normal()).collect();
        for r in &rows {
            let dot: f64 = r.iter().zip(&v).map(|(a, b)| a * b).sum();
            v.iter_mut().zip(r).for_each(|(x, r)| *x -= dot * r);
        }
        let norm = v.iter().map(|x| x * x).sum::<f64>().sqrt();
        rows.push(v.iter().map(|x| x / norm).collect());
    }
    rows.concat()
}

/// A search from `x0` with the tutorial's default population 4 + ⌊3 ln n⌋.
fn search(x0: Vec<f64>, sigma0: f64, covariance: Covariance, max_restarts: u32) -> Cma {
    let lambda = 4 + (3.0 * (x0.len() as f64).ln()) as usize;
    Cma::new(x0, sigma0, lambda, covariance, max_restarts)
}

/// Runs `cma` on `f` until f < `target` or `budget` evaluations: the evaluations used (None if
/// the target was not reached) and the optimiser.
fn minimise(f: &dyn Fn(&[f64]) -> f64, mut cma: Cma, target: f64, budget: u64, seed: u64) -> (Option<u64>, Cma) {
    let mut rng = GaRng::from_seed(seed);
    while cma.evaluations() < budget {
        let xs = cma.ask(&mut rng);
        let fs: Vec<f64> = xs.iter().map(|x| f(x)).collect();
        let reached = fs.iter().any(|&v| v < target);
        let used = cma.evaluations() + xs.len() as u64;
        cma.tell(&xs, &fs).unwrap();
        if reached {
            return (Some(used), cma);
        }
    }
    (None, cma)
}

#[test]
fn the_default_parameters_are_the_tutorials() {
    // n = 10: λ = 4 + ⌊3 ln 10⌋ = 10, μ = 5, and the tutorial's formulas by hand.
    let p = Params::new(10, 10, Covariance::Full);
    assert_eq!((p.mu, p.weights.len()), (5, 5));
    assert!((p.weights.iter().sum::<f64>() - 1.0).abs() < 1e-15);
    assert!(p.weights.windows(2).all(|w| w[0] > w[1]));
    // w ∝ ln 5.5 − ln i: μ_eff = (Σw)² / Σw² ≈ 3.1672.
    assert!((p.mueff - 3.1672).abs() < 1e-3, "{}", p.mueff);
    assert!((p.cs - 5.1672 / 18.1672).abs() < 1e-4);
    assert!((p.c1 - 2.0 / (11.3f64.powi(2) + 3.1672)).abs() < 1e-6);
    assert!((p.chi_n - 3.0843).abs() < 1e-3, "E|N(0, I)| in 10 dimensions");
    // sep-CMA-ES learns the diagonal (n + 2)/3 = 4 times faster.
    let sep = Params::new(10, 10, Covariance::Diagonal);
    assert!((sep.c1 - 4.0 * p.c1).abs() < 1e-15 && (sep.cmu - 4.0 * p.cmu).abs() < 1e-15);
}

#[test]
fn the_sphere_in_ten_dimensions_is_solved_within_the_published_evaluations() {
    // The tutorial's sphere from x0 = 1 with σ0 = 0.5 reaches 1e-10 in about 1 000 to 2 000
    // evaluations; every seed must, within 2 500.
    for seed in 1..=5 {
        let (used, cma) = minimise(&sphere, search(vec![1.0; 10], 0.5, Covariance::Full, 0), 1e-10, 10_000, seed);
        let used = used.unwrap_or_else(|| panic!("seed {seed}: f > 1e-10 after 10 000 evaluations"));
        assert!((1_000..=2_500).contains(&used), "seed {seed}: {used} evaluations");
        assert_eq!(cma.restarts(), 0);
    }
}

#[test]
fn full_cma_learns_a_rotated_ellipsoid_that_the_diagonal_cannot() {
    let n = 10;
    let r = rotation(n, 9);
    let rotated = |x: &[f64]| ellipsoid(&super::times(&r, n, x));
    let (full, _) = minimise(&rotated, search(vec![1.0; n], 0.5, Covariance::Full, 0), 1e-10, 30_000, 4);
    let full = full.expect("full CMA-ES solves the rotated ellipsoid");
    // Full CMA-ES is rotation invariant: about 6 000 evaluations on either ellipsoid in 10-D.
    assert!(full < 12_000, "{full}");
    let (sep, _) = minimise(&rotated, search(vec![1.0; n], 0.5, Covariance::Diagonal, 0), 1e-10, 3 * full, 4);
    assert!(sep.is_none(), "sep-CMA-ES on the rotated ellipsoid in {sep:?} evaluations, full in {full}");
    // On the separable ellipsoid the diagonal is all there is to learn, and learnt faster.
    let (separable, _) = minimise(&ellipsoid, search(vec![1.0; n], 0.5, Covariance::Diagonal, 0), 1e-10, 30_000, 4);
    let separable = separable.expect("sep-CMA-ES solves the separable ellipsoid");
    assert!(separable < full, "sep on the separable ellipsoid {separable}, full on the rotated {full}");
}

#[test]
fn rosenbrock_in_ten_dimensions_is_solved_with_restarts() {
    for seed in 1..=5 {
        let (used, cma) = minimise(&rosenbrock, search(vec![0.0; 10], 0.5, Covariance::Full, 6), 1e-8, 200_000, seed);
        assert!(used.is_some(), "seed {seed}: f > 1e-8 after {} restarts", cma.restarts());
        // About 6 000 evaluations without a restart (the tutorial's figure).
        assert!(used.unwrap() < 100_000, "seed {seed}: {used:?}");
    }
}

#[test]
fn a_flat_function_restarts_with_twice_the_population_until_the_limit() {
    let (used, cma) = minimise(&|_: &[f64]| 1.0, search(vec![0.0; 5], 0.3, Covariance::Diagonal, 2), -1.0, 20_000, 1);
    assert_eq!(used, None);
    // λ = 4 + ⌊3 ln 5⌋ = 8, doubled twice.
    assert_eq!((cma.restarts(), cma.lambda()), (2, 32));
    let mut cma = Cma::new(vec![0.0; 5], 0.3, 8, Covariance::Diagonal, 1);
    let mut rng = GaRng::from_seed(2);
    // The first restart comes after the TolFun window of 10 + ⌈30 · 5 / 8⌉ = 29 generations.
    for generation in 1..=29 {
        let xs = cma.ask(&mut rng);
        let restarted = cma.tell(&xs, &[1.0; 8]).unwrap();
        assert_eq!(restarted.is_some(), generation == 29, "generation {generation}");
    }
    assert_eq!((cma.sigma(), cma.lambda()), (0.3, 16), "σ₀ again, twice the population");
}

#[test]
fn the_same_seed_gives_the_same_trajectory_and_a_saved_state_goes_on_the_same() {
    let run = |seed: u64, covariance: Covariance, generations: usize, from: Option<(Cma, GaRng)>| {
        let (mut cma, mut rng) =
            from.unwrap_or_else(|| (Cma::new(vec![0.5; 8], 0.3, 12, covariance, 3), GaRng::from_seed(seed)));
        for _ in 0..generations {
            let xs = cma.ask(&mut rng);
            let fs: Vec<f64> = xs.iter().map(|x| rosenbrock(x)).collect();
            cma.tell(&xs, &fs).unwrap();
        }
        (cma, rng)
    };
    for covariance in [Covariance::Full, Covariance::Diagonal] {
        let (straight, _) = run(7, covariance, 40, None);
        assert_eq!(run(7, covariance, 40, None).0, straight);
        assert_ne!(run(8, covariance, 40, None).0.mean(), straight.mean());
        // Saved after 15 generations, read back and run for 25 more.
        let (half, rng) = run(7, covariance, 15, None);
        let bytes = crate::codec::encode(&half).unwrap();
        let restored: Cma = crate::codec::decode(&bytes).unwrap();
        assert_eq!(restored, half);
        restored.check(8, covariance).unwrap();
        let (resumed, _) = run(7, covariance, 25, Some((restored, rng)));
        assert_eq!(resumed, straight, "{covariance:?}");
        assert!(straight.check(8, covariance).is_ok());
        let other = if covariance == Covariance::Full { Covariance::Diagonal } else { Covariance::Full };
        assert!(straight.check(8, other).unwrap_err().to_string().contains("covariance"));
        assert!(straight.check(9, covariance).unwrap_err().to_string().contains("9 coordinates"));
    }
}

#[test]
fn wrong_counts_and_nan_fitnesses_are_refused() {
    let mut cma = Cma::new(vec![0.0; 3], 0.3, 6, Covariance::Full, 0);
    let xs = cma.ask(&mut GaRng::from_seed(1));
    assert_eq!(cma.tell(&xs, &[1.0; 5]), Err(CmaError::Count { found: 5, expected: 6 }));
    let mut fs = [1.0; 6];
    fs[2] = f64::NAN;
    assert_eq!(cma.tell(&xs, &fs), Err(CmaError::NotANumber));
    assert_eq!(cma.evaluations(), 0, "nothing moved");
}

/// FNV-1a, 64 bits, of `bytes`.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3))
}

#[test]
fn a_mean_learning_rate_of_one_is_the_update_as_it_was() {
    // The digests of the whole state after 60 generations on Rosenbrock, as the build before
    // the mean learning rate computed them with `tell`.
    for (covariance, digest) in
        [(Covariance::Full, 0x5cee_8601_de85_3c20), (Covariance::Diagonal, 0x956a_f3d5_6ee9_5168)]
    {
        let mut cma = Cma::new(vec![0.5; 8], 0.3, 12, covariance, 3);
        let mut rng = GaRng::from_seed(11);
        for _ in 0..60 {
            let xs = cma.ask(&mut rng);
            let fs: Vec<f64> = xs.iter().map(|x| rosenbrock(x)).collect();
            cma.tell_at(&xs, &fs, 1.0).unwrap();
        }
        assert_eq!(fnv1a(&crate::codec::encode(&cma).unwrap()), digest, "{covariance:?}");
    }
}

#[test]
fn the_mean_moves_a_fraction_c_m_of_the_way_and_the_rest_learns_as_before() {
    let start = Cma::new(vec![0.2, -0.1, 0.4, 0.0], 0.3, 8, Covariance::Full, 0);
    let xs = start.ask(&mut GaRng::from_seed(3));
    let fs: Vec<f64> = xs.iter().map(|x| sphere(x)).collect();
    // The best half's weighted mean, from the tutorial's weights and the sorted candidates.
    let p = Params::new(4, 8, Covariance::Full);
    let mut order: Vec<usize> = (0..8).collect();
    order.sort_by(|&i, &j| fs[i].total_cmp(&fs[j]));
    let target: Vec<f64> = (0..4).map(|k| p.weights.iter().zip(&order).map(|(w, &i)| w * xs[i][k]).sum()).collect();
    let mut told = Vec::new();
    for c_m in [1.0, 0.3] {
        let mut cma = start.clone();
        cma.tell_at(&xs, &fs, c_m).unwrap();
        for (k, (m, t)) in cma.mean().iter().zip(&target).enumerate() {
            let expected = start.mean()[k] + c_m * (t - start.mean()[k]);
            assert!((m - expected).abs() < 1e-12, "c_m {c_m}, coordinate {k}: {m} against {expected}");
        }
        told.push(cma);
    }
    // The paths, C and σ learn from ⟨y⟩_w whatever c_m (the tutorial's (m′ − m) / (c_m σ)).
    let (one, slow) = (&told[0], &told[1]);
    assert_ne!(one.mean(), slow.mean());
    assert_eq!((&one.ps, &one.pc, &one.c, one.sigma), (&slow.ps, &slow.pc, &slow.c, slow.sigma));
    let mut cma = start.clone();
    for bad in [0.0, -0.5, 1.5, f64::NAN] {
        assert!(matches!(cma.tell_at(&xs, &fs, bad), Err(CmaError::MeanRate(_))), "{bad}");
    }
    assert_eq!(cma, start, "nothing moved");
}

#[test]
fn on_a_noisy_sphere_a_smaller_mean_learning_rate_ends_closer() {
    // Sphere plus Gaussian noise of sd 1 in 10-D from x0 = 1 (f = 10), 3 000 evaluations: with
    // c_m = 1 the mean wanders where the noise outweighs the differences it selects on; with
    // c_m = 0.3 it averages the noisy steps and settles nearer the optimum (Hansen's tutorial:
    // c_m < 1 can help on noisy functions).
    let end = |c_m: f64, seed: u64| {
        let mut cma = search(vec![1.0; 10], 0.5, Covariance::Full, 0);
        let (mut rng, mut noise) = (GaRng::from_seed(seed), GaRng::from_seed(1_000 + seed));
        while cma.evaluations() < 3_000 {
            let xs = cma.ask(&mut rng);
            let fs: Vec<f64> = xs.iter().map(|x| sphere(x) + noise.normal()).collect();
            cma.tell_at(&xs, &fs, c_m).unwrap();
        }
        sphere(cma.mean())
    };
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        (v[4] + v[5]) / 2.0
    };
    let fast: Vec<f64> = (1..=10).map(|seed| end(1.0, seed)).collect();
    let slow: Vec<f64> = (1..=10).map(|seed| end(0.3, seed)).collect();
    let closer = fast.iter().zip(&slow).filter(|(f, s)| s < f).count();
    assert!(closer >= 8, "c_m 0.3 closer on {closer} of 10 seeds: {slow:?} against {fast:?}");
    let (fast, slow) = (median(fast), median(slow));
    assert!(slow < fast / 2.0, "median f of the mean: c_m 0.3 {slow:.3}, c_m 1 {fast:.3}");
    // Both ended far below the start and far above what the noise-free sphere reaches.
    assert!(fast < 5.0 && slow > 1e-4, "{fast} {slow}");
}
