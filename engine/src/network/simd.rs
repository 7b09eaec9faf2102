//! The network's vector paths, and the one place that chooses among them.
//!
//! A [`Path`] is a set of instructions the batched kernels (the exact evaluation and the bounds
//! of a group of accumulators, and [`tanh_many`](super::tanh_many)) are compiled for:
//! [`Path::Avx512`] (16 f32 lanes a vector), [`Path::Avx2`] (8 lanes; x86-64-v3) and
//! [`Path::Portable`] (plain Rust, no intrinsics, for any processor). Each kernel is written once,
//! as a `Kernel` generic over an `Isa`, the operations whose instructions differ.
//!
//! The rule: the kernels run on the widest path the processor supports, detected once per process
//! at run time ([`Supported::detected`]). The AVX paths' instances are compiled with their
//! instructions enabled (`#[target_feature]`) whatever the build target; the portable one with the
//! build target's alone. Code no kernel dispatch reaches (one accumulator's evaluation, inlined
//! into the search; [`tanh`](super::tanh)) is compiled for the build target, whose path is
//! `Build`; the batched kernels are tested against it.
//!
//! Every path gives the same bits. Each lane does the scalar code's IEEE operations in its order;
//! the AVX paths fuse a multiply and an add (`mul_add`) only where the product is exact, so the one
//! rounding is that of the add alone; the transposes and the packed sums move and add exactly what
//! their scalar twins do. The twins are tested bit for bit: the intrinsics by this module's unit
//! tests, and each path the processor supports against the scalar code by `engine/tests/simd.rs`.

mod isa;
mod transpose;

pub(super) use isa::{Build, Isa, Portable, output_sum};

/// Hidden units padded to whole 8-lane vectors (3 × 8 f32); padding lanes stay 0.
pub(super) const LANES: usize = 24;

/// Accumulators the batched kernels take together (a unit-major vector holds one unit of each).
pub(super) const GROUP: usize = 8;

/// One row of hidden-unit values, aligned for vector loads.
#[derive(Clone, Copy, PartialEq)]
#[repr(C, align(32))]
pub(super) struct Lanes(pub(super) [f32; LANES]);

impl Lanes {
    pub(super) const ZERO: Lanes = Lanes([0.0; LANES]);

    #[inline(always)]
    pub(super) fn add(&mut self, row: &Lanes) {
        for (a, b) in self.0.iter_mut().zip(&row.0) {
            *a += b;
        }
    }

    #[inline(always)]
    pub(super) fn sub(&mut self, row: &Lanes) {
        for (a, b) in self.0.iter_mut().zip(&row.0) {
            *a -= b;
        }
    }
}

/// One hidden unit of each accumulator of a group (a vector), aligned for vector loads.
#[derive(Clone, Copy)]
#[repr(C, align(32))]
pub(super) struct UnitLanes(pub(super) [f32; GROUP]);

/// A set of instructions the kernels are compiled for, widest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Path {
    /// AVX-512F with AVX2 and FMA: 16 lanes a vector.
    Avx512,
    /// AVX2 with FMA (x86-64-v3): 8 lanes a vector.
    Avx2,
    /// Plain Rust, no intrinsics and no fused multiply-add: any processor (the compiler vectorises
    /// it for the build target).
    Portable,
}

impl Path {
    /// Every path, widest first.
    pub const ALL: [Path; 3] = [Path::Avx512, Path::Avx2, Path::Portable];

    /// The path if this processor can run it.
    pub fn supported(self) -> Option<Supported> {
        let yes = match self {
            Path::Avx512 => has_avx512(),
            Path::Avx2 => has_avx2_fma(),
            Path::Portable => true,
        };
        yes.then_some(Supported(self))
    }
}

impl std::fmt::Display for Path {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Path::Avx512 => "AVX-512 (avx512f, avx2, fma)",
            Path::Avx2 => "AVX2 (avx2, fma)",
            Path::Portable => "portable",
        })
    }
}

fn has_avx2_fma() -> bool {
    #[cfg(target_arch = "x86_64")]
    return std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma");
    #[cfg(not(target_arch = "x86_64"))]
    false
}

fn has_avx512() -> bool {
    #[cfg(target_arch = "x86_64")]
    return std::arch::is_x86_feature_detected!("avx512f") && has_avx2_fma();
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// A [`Path`] this processor supports: made only by [`Path::supported`], so running a kernel on
/// it is safe.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Supported(Path);

impl Supported {
    /// The portable path, which every processor supports.
    pub const PORTABLE: Supported = Supported(Path::Portable);

    /// The widest path this processor supports, detected on first use; what the network's batched
    /// evaluations and bounds run on.
    #[inline]
    pub fn detected() -> Supported {
        static DETECTED: std::sync::LazyLock<Supported> =
            std::sync::LazyLock::new(|| Path::ALL.into_iter().find_map(Path::supported).unwrap_or(Supported::PORTABLE));
        *DETECTED
    }

    /// The path.
    pub fn path(self) -> Path {
        self.0
    }

    /// Runs `kernel` compiled for this path's instructions.
    #[inline]
    pub(super) fn run<K: Kernel>(self, kernel: K) -> K::Output {
        match self.0 {
            Path::Portable => kernel.run::<Portable, 8>(Portable::new()),
            // SAFETY (both): a `Supported` is made only for a path the processor supports.
            #[cfg(target_arch = "x86_64")]
            Path::Avx2 => unsafe { run_avx2(kernel) },
            #[cfg(target_arch = "x86_64")]
            Path::Avx512 => unsafe { run_avx512(kernel) },
            #[cfg(not(target_arch = "x86_64"))]
            Path::Avx2 | Path::Avx512 => unreachable!("no x86 path is supported on this architecture"),
        }
    }
}

/// A computation written once, generic over a path's [`Isa`] and its vector width `W` (f32
/// lanes), that [`Supported::run`] compiles for each path. Its `run` is `#[inline(always)]`, so
/// its body is compiled into each path's `#[target_feature]` function, with its instructions.
pub(super) trait Kernel {
    /// What the computation returns.
    type Output;

    /// The computation on the path of `isa`, `W` lanes at a time.
    fn run<I: Isa, const W: usize>(self, isa: I) -> Self::Output;
}

/// [`Supported::run`] on the AVX2 path: the kernel's body compiled with AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
#[inline]
fn run_avx2<K: Kernel>(kernel: K) -> K::Output {
    // SAFETY: this function has AVX2 and FMA, so the processor running it has them.
    kernel.run::<isa::Avx2, 8>(unsafe { isa::Avx2::new() })
}

/// [`Supported::run`] on the AVX-512 path: the kernel's body compiled with AVX-512F, AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx2,fma")]
#[inline]
fn run_avx512<K: Kernel>(kernel: K) -> K::Output {
    // SAFETY: this function has AVX-512F, AVX2 and FMA, so the processor running it has them.
    kernel.run::<isa::Avx512, 16>(unsafe { isa::Avx512::new() })
}
