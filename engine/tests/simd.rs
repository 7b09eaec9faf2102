//! Every vector path of the network against its scalar twin, bit for bit: each path this
//! processor supports is forced in turn; a path it lacks is skipped, and the test says so (run
//! with `--nocapture` to see it).

use loa_engine::Position;
use loa_engine::network::simd::{Path, Supported};
use loa_engine::network::{Accumulator, Chromosome, Network, Topology, random_uniform, tanh_many, tanh_unfused};

/// The paths this processor supports, each named; the others reported as skipped.
fn supported_paths(test: &str) -> Vec<Supported> {
    Path::ALL
        .into_iter()
        .filter_map(|path| {
            let supported = path.supported();
            if supported.is_none() {
                println!("{test}: skipped the {path} path: this processor lacks its instructions");
            }
            supported
        })
        .collect()
}

/// Every incremental child of playout positions: random networks' hidden units saturate, so
/// their pre-activations cover tanh's range from near zero to beyond its clamp.
fn children(network: &Network, positions: &[Position]) -> Vec<Accumulator> {
    let mut accs = Vec::new();
    for p in positions {
        let acc = network.accumulator(p, p.side_to_move());
        accs.extend(p.legal_moves().iter().map(|&mv| network.update(&acc, p, mv)));
    }
    accs
}

fn bits(values: &[f32]) -> Vec<u32> {
    values.iter().map(|v| v.to_bits()).collect()
}

#[test]
fn the_detected_path_is_the_widest_supported() {
    let detected = Supported::detected();
    println!("detected path: {}", detected.path());
    assert_eq!(Some(detected), Path::ALL.into_iter().find_map(Path::supported));
    assert_eq!(Path::Portable.supported(), Some(Supported::PORTABLE));
    // The default build targets x86-64-v3, so any processor running it has AVX2 and FMA.
    if cfg!(all(target_arch = "x86_64", target_feature = "avx2", target_feature = "fma")) {
        assert_ne!(detected.path(), Path::Portable);
    }
}

#[test]
fn every_path_evaluates_as_the_scalar_evaluation_does() {
    let positions = loa_engine::openings::sample_positions(300, 31);
    for seed in [1u64, 9] {
        let network = Network::new(&random_uniform(seed));
        let accs = children(&network, &positions);
        let scalar: Vec<u32> = accs.iter().map(|a| network.evaluate_accumulator(a).to_bits()).collect();
        for path in supported_paths("evaluate") {
            for len in [1usize, 2, 3, 5, 7, 8, 9, 13, 16] {
                for (start, chunk) in accs.chunks(len).enumerate() {
                    let mut values = vec![f32::NAN; chunk.len()];
                    network.evaluate_accumulators_on(path, chunk, &mut values);
                    let expected = &scalar[start * len..start * len + chunk.len()];
                    assert_eq!(bits(&values), expected, "{}, seed {seed}, length {len}", path.path());
                }
            }
        }
    }
}

#[test]
fn every_path_bounds_as_the_scalar_bounds_do() {
    let positions = loa_engine::openings::sample_positions(150, 37);
    for seed in [2u64, 5] {
        // Scaled weights: nearly linear (0.01) to saturated (1 000).
        for scale in [0.01f32, 1.0, 1000.0] {
            let weights: Vec<f32> = random_uniform(seed).weights().iter().map(|w| w * scale).collect();
            let network = Network::new(&Chromosome::new(Topology::default(), weights).unwrap());
            let accs = children(&network, &positions);
            // One accumulator at a time is the scalar bound (no group).
            let scalar: Vec<(u32, u32)> = accs
                .iter()
                .map(|acc| {
                    let (mut lo, mut hi) = ([0.0f32], [0.0f32]);
                    network.bound_accumulators(std::slice::from_ref(acc), &mut lo, &mut hi);
                    (lo[0].to_bits(), hi[0].to_bits())
                })
                .collect();
            for path in supported_paths("bounds") {
                for len in [1usize, 3, 8, 13] {
                    for (start, chunk) in accs.chunks(len).enumerate() {
                        let (mut lo, mut hi) = (vec![f32::NAN; chunk.len()], vec![f32::NAN; chunk.len()]);
                        network.bound_accumulators_on(path, chunk, &mut lo, &mut hi);
                        let found: Vec<(u32, u32)> = bits(&lo).into_iter().zip(bits(&hi)).collect();
                        let expected = &scalar[start * len..start * len + chunk.len()];
                        assert_eq!(found, expected, "{}, seed {seed}, scale {scale}, length {len}", path.path());
                    }
                }
            }
        }
    }
}

/// Each path's tanh (vectorised, fused where the path has FMA) against the portable path's (the
/// unfused steps), on every f32 bit pattern (NaNs and infinities included), split over the
/// available threads. The portable path itself is checked against the unfused steps done one
/// value at a time in `the_portable_tanh_is_the_scalar_one`.
#[test]
fn every_path_computes_tanh_as_the_portable_path_does_for_every_f32() {
    const CHUNK: usize = 4096;
    let paths: Vec<Supported> = supported_paths("tanh").into_iter().filter(|p| *p != Supported::PORTABLE).collect();
    // The first input in `start..end` whose bits differ, as (path, x, its tanh, portable tanh).
    let first_difference = |start: u64, end: u64| {
        let (mut xs, mut out, mut portable) = ([0.0f32; CHUNK], [0.0f32; CHUNK], [0.0f32; CHUNK]);
        for base in (start..end).step_by(CHUNK) {
            for (i, x) in xs.iter_mut().enumerate() {
                *x = f32::from_bits((base + i as u64) as u32);
            }
            tanh_many(Supported::PORTABLE, &xs, &mut portable);
            for &path in &paths {
                tanh_many(path, &xs, &mut out);
                if let Some(i) = (0..CHUNK).find(|&i| out[i].to_bits() != portable[i].to_bits()) {
                    return Some((path.path(), xs[i].to_bits(), out[i].to_bits(), portable[i].to_bits()));
                }
            }
        }
        None
    };
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()) as u64;
    let per_thread = (1u64 << 32) / threads / CHUNK as u64 * CHUNK as u64;
    let first = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let end = if t + 1 == threads { 1u64 << 32 } else { (t + 1) * per_thread };
                scope.spawn(move || first_difference(t * per_thread, end))
            })
            .collect();
        handles.into_iter().filter_map(|h| h.join().unwrap()).next()
    });
    assert_eq!(first, None, "first (path, x, its tanh, portable tanh) bits that differ");
}

/// The portable path's tanh, vectorised by the compiler for the build target, against the
/// unfused steps one value at a time (through an opaque function pointer), on every 97th f32
/// bit pattern.
#[test]
fn the_portable_tanh_is_the_scalar_one() {
    let scalar: fn(f32) -> f32 = std::hint::black_box(tanh_unfused);
    let xs: Vec<f32> = (0..=u32::MAX).step_by(97).map(f32::from_bits).collect();
    let mut out = vec![0.0f32; xs.len()];
    tanh_many(Supported::PORTABLE, &xs, &mut out);
    for (x, y) in xs.iter().zip(&out) {
        assert_eq!(y.to_bits(), scalar(*x).to_bits(), "tanh({x:e})");
    }
}

#[test]
fn tanh_many_computes_a_remainder_shorter_than_a_vector() {
    let xs: Vec<f32> = (0..37).map(|i| i as f32 * 0.37 - 6.0).collect();
    for path in supported_paths("tanh remainder") {
        let mut out = vec![f32::NAN; xs.len()];
        tanh_many(path, &xs, &mut out);
        let expected: Vec<u32> = xs.iter().map(|x| tanh_unfused(*x).to_bits()).collect();
        assert_eq!(bits(&out), expected, "{}", path.path());
    }
}
