//! Randomised input testing of decoders, shared by each crate's `tests/fuzz.rs` (included with
//! `#[path]`, so no crate is needed for it).
//!
//! [`Decoder::check`] runs a decoder on valid inputs mutated ([`mutated`]: byte flips,
//! truncation, insertion, duplicated spans, numbers replaced with extremes) and on arbitrary ones,
//! and fails a case if the decoder panics, returns an error with an empty message, takes longer
//! than [`CASE_LIMIT`], or allocates more than its memory bound for the input's length. A case
//! that runs past [`HANG_LIMIT`] aborts the whole test binary, naming the decoder and the input,
//! so a hang is a failure rather than a stalled CI job.
//!
//! Memory is measured, not assumed: this module is the test binary's global allocator, counting
//! per thread the bytes live and the largest single request while a case decodes.
//!
//! Cases per decoder: `LOA_FUZZ_CASES` (default [`CI_CASES`]). Each run prints one line,
//! `fuzz: decoder=… cases=… failures=… max_case_us=… peak_alloc_bytes=… largest_alloc_bytes=…`,
//! which `experiments/fuzz/million.sh` gathers into a table.

#![allow(dead_code)]

use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::{Config, TestCaseError, TestError, TestRunner};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Cases per decoder in a normal `cargo test` run.
pub const CI_CASES: u32 = 10_000;

/// A case slower than this fails (decoders here take microseconds to milliseconds).
pub const CASE_LIMIT: Duration = Duration::from_secs(2);

/// A case still running after this long aborts the test binary: it is taken to hang.
pub const HANG_LIMIT: Duration = Duration::from_secs(60);

/// Cases per decoder: `LOA_FUZZ_CASES`, else [`CI_CASES`].
pub fn cases() -> u32 {
    match std::env::var("LOA_FUZZ_CASES") {
        Ok(text) => text.trim().parse().unwrap_or_else(|_| panic!("LOA_FUZZ_CASES={text:?}: give a whole number")),
        Err(_) => CI_CASES,
    }
}

// ---------------------------------------------------------------------------------------------
// Allocation counting.

thread_local! {
    static LIVE: Cell<usize> = const { Cell::new(0) };
    static PEAK: Cell<usize> = const { Cell::new(0) };
    static LARGEST: Cell<usize> = const { Cell::new(0) };
}

/// The system allocator, counting each thread's live bytes, their peak and the largest request.
struct Counting;

fn grew(size: usize) {
    let _ = LIVE.try_with(|live| {
        let now = live.get().saturating_add(size);
        live.set(now);
        let _ = PEAK.try_with(|peak| peak.set(peak.get().max(now)));
    });
    let _ = LARGEST.try_with(|largest| largest.set(largest.get().max(size)));
}

fn shrank(size: usize) {
    // Memory freed on another thread than it was allocated on saturates at zero.
    let _ = LIVE.try_with(|live| live.set(live.get().saturating_sub(size)));
}

// SAFETY: every call goes to `System` unchanged; the counting touches only const-initialised
// thread-locals without destructors, which never allocate.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        shrank(layout.size());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            shrank(layout.size());
            grew(new_size);
        }
        p
    }
}

#[global_allocator]
static COUNTING: Counting = Counting;

/// What one call allocated on this thread: the peak of live bytes above those live before it,
/// and the largest single request.
#[derive(Clone, Copy, Debug, Default)]
pub struct Allocated {
    /// Peak live bytes above the start.
    pub peak: usize,
    /// Largest single allocation (or reallocation's new size).
    pub largest: usize,
}

/// `f`'s result and what it allocated.
pub fn measure<R>(f: impl FnOnce() -> R) -> (R, Allocated) {
    let start = LIVE.with(Cell::get);
    PEAK.with(|p| p.set(start));
    LARGEST.with(|l| l.set(0));
    let result = f();
    let peak = PEAK.with(Cell::get).saturating_sub(start);
    (result, Allocated { peak, largest: LARGEST.with(Cell::get) })
}

// ---------------------------------------------------------------------------------------------
// Mutations.

/// Numbers a text decoder may meet where a small one belongs.
pub const EXTREME_NUMBERS: &[&str] = &[
    "0",
    "-0",
    "-1",
    "4294967295",
    "4294967296",
    "9223372036854775807",
    "-9223372036854775808",
    "18446744073709551615",
    "18446744073709551616",
    "340282366920938463463374607431768211456",
    "99999999999999999999999999999999999999999",
    "1e308",
    "-1e308",
    "1e999",
    "1e-400",
    "3.4028236e38",
    "nan",
    "inf",
    "-inf",
    "0x7fffffff",
    "1_000",
];

/// Bytes a binary decoder may meet where a small count belongs: bincode's varint markers with
/// large values after them, prost's ten-byte varints, raw little-endian maxima.
pub const EXTREME_BYTES: &[&[u8]] = &[
    &[0xff],
    &[0x80],
    &[0xfb, 0xff, 0xff],
    &[0xfc, 0xff, 0xff, 0xff, 0x7f],
    &[0xfc, 0x00, 0x00, 0x00, 0x30],
    &[0xfd, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff],
    &[0xfd, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00],
    &[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01],
    &[0x80, 0x80, 0x80, 0x80, 0x08],
    &[0xff, 0xff, 0xff, 0x3f],
    &[0xff, 0xff, 0xff, 0xff],
    &[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff],
];

/// One change to an input.
#[derive(Clone, Debug)]
pub enum Mutation {
    /// Flip one bit.
    Flip(Index, u8),
    /// Set one byte.
    Set(Index, u8),
    /// Cut the input at a point.
    Truncate(Index),
    /// Insert bytes.
    Insert(Index, Vec<u8>),
    /// Remove up to this many bytes.
    Delete(Index, u8),
    /// Copy a span (up to 64 bytes) to another place: a field or line given twice.
    Duplicate(Index, u8, Index),
    /// Replace a run of ASCII digits with an extreme number.
    ExtremeNumber(Index, Index),
    /// Overwrite bytes with an extreme binary count.
    ExtremeBytes(Index, Index),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        3 => (any::<Index>(), 0..8u8).prop_map(|(i, bit)| Mutation::Flip(i, bit)),
        2 => (any::<Index>(), any::<u8>()).prop_map(|(i, b)| Mutation::Set(i, b)),
        1 => any::<Index>().prop_map(Mutation::Truncate),
        2 => (any::<Index>(), proptest::collection::vec(any::<u8>(), 1..16)).prop_map(|(i, b)| Mutation::Insert(i, b)),
        1 => (any::<Index>(), 1..32u8).prop_map(|(i, n)| Mutation::Delete(i, n)),
        2 => (any::<Index>(), 1..64u8, any::<Index>()).prop_map(|(i, n, to)| Mutation::Duplicate(i, n, to)),
        3 => (any::<Index>(), any::<Index>()).prop_map(|(i, e)| Mutation::ExtremeNumber(i, e)),
        3 => (any::<Index>(), any::<Index>()).prop_map(|(i, e)| Mutation::ExtremeBytes(i, e)),
    ]
}

/// `input` with `m` applied.
pub fn apply(input: &mut Vec<u8>, m: &Mutation) {
    let at = |i: &Index, len: usize| if len == 0 { 0 } else { i.index(len) };
    match m {
        Mutation::Flip(i, bit) if !input.is_empty() => {
            let p = at(i, input.len());
            input[p] ^= 1 << bit;
        }
        Mutation::Set(i, byte) if !input.is_empty() => {
            let p = at(i, input.len());
            input[p] = *byte;
        }
        Mutation::Truncate(i) => input.truncate(at(i, input.len() + 1)),
        Mutation::Insert(i, bytes) => {
            let p = at(i, input.len() + 1);
            input.splice(p..p, bytes.iter().copied());
        }
        Mutation::Delete(i, n) if !input.is_empty() => {
            let p = at(i, input.len());
            let end = (p + usize::from(*n)).min(input.len());
            input.drain(p..end);
        }
        Mutation::Duplicate(i, n, to) if !input.is_empty() => {
            let p = at(i, input.len());
            let span: Vec<u8> = input[p..(p + usize::from(*n)).min(input.len())].to_vec();
            let q = at(to, input.len() + 1);
            input.splice(q..q, span);
        }
        Mutation::ExtremeNumber(i, e) => {
            let runs = digit_runs(input);
            if let Some(&(start, end)) = runs.get(at(i, runs.len())) {
                let number = EXTREME_NUMBERS[e.index(EXTREME_NUMBERS.len())];
                input.splice(start..end, number.bytes());
            }
        }
        Mutation::ExtremeBytes(i, e) => {
            let bytes = EXTREME_BYTES[e.index(EXTREME_BYTES.len())];
            let p = at(i, input.len() + 1);
            let end = (p + bytes.len()).min(input.len());
            input.splice(p..end, bytes.iter().copied());
        }
        _ => {}
    }
}

/// Where runs of ASCII digits (with a leading `-`) start and end.
fn digit_runs(input: &[u8]) -> Vec<(usize, usize)> {
    let mut runs = Vec::new();
    let mut i = 0;
    while i < input.len() {
        if input[i].is_ascii_digit() {
            let start = if i > 0 && input[i - 1] == b'-' { i - 1 } else { i };
            let mut end = i;
            while end < input.len() && (input[end].is_ascii_digit() || input[end] == b'.') {
                end += 1;
            }
            runs.push((start, end));
            i = end;
        } else {
            i += 1;
        }
    }
    runs
}

/// One of `seeds` with one to four mutations applied.
pub fn mutated(seeds: Vec<Vec<u8>>) -> impl Strategy<Value = Vec<u8>> {
    assert!(!seeds.is_empty(), "mutating needs at least one valid input");
    let seeds = Arc::new(seeds);
    (any::<Index>(), proptest::collection::vec(mutation(), 1..5)).prop_map(move |(seed, ms)| {
        let mut input = seeds[seed.index(seeds.len())].clone();
        for m in &ms {
            apply(&mut input, m);
        }
        input
    })
}

/// Arbitrary bytes, up to `max` of them.
pub fn arbitrary_bytes(max: usize) -> impl Strategy<Value = Vec<u8>> {
    proptest::collection::vec(any::<u8>(), 0..=max)
}

/// Arbitrary text matching `regex` (a format's own alphabet, so the decoder gets past its
/// first check), as bytes.
pub fn arbitrary_text(regex: &'static str) -> impl Strategy<Value = Vec<u8>> {
    proptest::string::string_regex(regex).expect("a valid regex").prop_map(String::into_bytes)
}

/// Mutated `seeds` (three in five cases), arbitrary bytes (one in five) and arbitrary text of
/// the format's alphabet `regex` (one in five).
pub fn inputs(seeds: Vec<Vec<u8>>, regex: &'static str) -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![3 => mutated(seeds), 1 => arbitrary_bytes(512), 1 => arbitrary_text(regex)]
}

// ---------------------------------------------------------------------------------------------
// Running.

/// `error`'s message, or an empty one if it or any error in its source chain says nothing (a
/// wrapper's text alone, such as a file name, does not say what is wrong).
pub fn message(error: &dyn std::error::Error) -> String {
    let mut link = Some(error);
    while let Some(e) = link {
        if e.to_string().trim().is_empty() {
            return String::new();
        }
        link = e.source();
    }
    error.to_string()
}

/// A decoder under test: its name and how much it may allocate for an input of a given length.
pub struct Decoder {
    name: &'static str,
    per_byte: usize,
    fixed: usize,
}

/// What a run saw, printed as one line.
#[derive(Debug, Default)]
struct Stats {
    cases: u64,
    max_case: Duration,
    peak: usize,
    largest: usize,
}

impl Decoder {
    /// A decoder allowed 16 bytes of peak allocation per input byte plus 2 MiB (serde's
    /// cautious preallocation of a sequence is at most 1 MiB).
    pub fn new(name: &'static str) -> Decoder {
        Decoder { name, per_byte: 16, fixed: 2 << 20 }
    }

    /// Allows `per_byte` bytes per input byte plus `fixed` bytes of peak allocation.
    pub fn memory(self, per_byte: usize, fixed: usize) -> Decoder {
        Decoder { per_byte, fixed, ..self }
    }

    /// Runs `decode` on [`cases`] inputs from `strategy`; panics with the smallest failing
    /// input if a case panics, hangs, is slow, allocates past the bound or returns an empty
    /// error message.
    pub fn check<S>(&self, strategy: S, decode: impl Fn(&[u8]) -> Result<(), String>)
    where
        S: Strategy<Value = Vec<u8>>,
    {
        self.run(strategy, |input| {
            let limit = self.per_byte.saturating_mul(input.len()).saturating_add(self.fixed);
            let (result, allocated) = measure(|| decode(input));
            if let Err(message) = &result {
                prop_assert!(!message.trim().is_empty(), "an error with an empty message");
            }
            prop_assert!(
                allocated.peak <= limit,
                "{} bytes allocated at the peak for {} bytes of input (bound {limit})",
                allocated.peak,
                input.len()
            );
            Ok(allocated)
        });
    }

    /// Runs `property` on [`cases`] values from `strategy` (round trips of generated values).
    pub fn round_trip<S>(&self, strategy: S, property: impl Fn(S::Value) -> Result<(), TestCaseError>)
    where
        S: Strategy,
        S::Value: Clone + std::fmt::Debug + Send + 'static,
    {
        self.run_values(strategy, |value| measure(|| property(value)).0.map(|()| Allocated::default()));
    }

    fn run<S>(&self, strategy: S, case: impl Fn(&[u8]) -> Result<Allocated, TestCaseError>)
    where
        S: Strategy<Value = Vec<u8>>,
    {
        self.run_values(strategy, |input: Vec<u8>| case(&input));
    }

    fn run_values<S>(&self, strategy: S, case: impl Fn(S::Value) -> Result<Allocated, TestCaseError>)
    where
        S: Strategy,
        S::Value: Clone + std::fmt::Debug + Send + 'static,
    {
        let cases = cases();
        // Rejections (a generated value a property skips) scale with the cases, so a million-case
        // run is not aborted by a count meant for hundreds.
        let config = Config {
            cases,
            failure_persistence: None,
            max_shrink_iters: 2048,
            max_global_rejects: (cases / 10).max(1024),
            ..Config::default()
        };
        let mut runner = TestRunner::new(config);
        let stats = Mutex::new(Stats::default());
        let watchdog = Watchdog::start(self.name);
        let result = runner.run(&strategy, |value| {
            watchdog.begin(&value);
            let started = Instant::now();
            let allocated = case(value);
            let took = started.elapsed();
            watchdog.end();
            let mut s = stats.lock().unwrap_or_else(|e| e.into_inner());
            s.cases += 1;
            s.max_case = s.max_case.max(took);
            let allocated = allocated?;
            s.peak = s.peak.max(allocated.peak);
            s.largest = s.largest.max(allocated.largest);
            prop_assert!(took <= CASE_LIMIT, "a case took {took:?}, over {CASE_LIMIT:?}");
            Ok(())
        });
        watchdog.stop();
        let s = stats.into_inner().unwrap_or_else(|e| e.into_inner());
        let failures = u32::from(result.is_err());
        println!(
            "fuzz: decoder={} cases={} failures={failures} max_case_us={} peak_alloc_bytes={} largest_alloc_bytes={}",
            self.name,
            s.cases,
            s.max_case.as_micros(),
            s.peak,
            s.largest
        );
        match result {
            Ok(()) => {}
            Err(TestError::Fail(why, input)) => panic!("{}: {why}\nminimal failing input: {input:?}", self.name),
            Err(TestError::Abort(why)) => panic!("{}: aborted: {why}", self.name),
        }
    }
}

/// Aborts the process if a case runs past [`HANG_LIMIT`], printing the decoder and the input.
struct Watchdog {
    started_ms: Arc<AtomicU64>,
    input: Arc<Mutex<Option<Box<dyn std::fmt::Debug + Send>>>>,
    done: Arc<AtomicBool>,
    epoch: Instant,
}

impl Watchdog {
    /// Starts the thread that watches this run's cases.
    fn start(name: &'static str) -> Watchdog {
        let w = Watchdog {
            started_ms: Arc::new(AtomicU64::new(0)),
            input: Arc::new(Mutex::new(None)),
            done: Arc::new(AtomicBool::new(false)),
            epoch: Instant::now(),
        };
        let (started, input, done, epoch) = (w.started_ms.clone(), w.input.clone(), w.done.clone(), w.epoch);
        std::thread::spawn(move || {
            while !done.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(200));
                let at = started.load(Ordering::Relaxed);
                let now = epoch.elapsed().as_millis() as u64;
                if at != 0 && now.saturating_sub(at) > HANG_LIMIT.as_millis() as u64 {
                    let input = input.lock().map(|i| format!("{:?}", i)).unwrap_or_default();
                    eprintln!("{name}: a case ran past {HANG_LIMIT:?}, taken to hang; its input: {input}");
                    std::process::abort();
                }
            }
        });
        w
    }

    /// Notes a case starting; its input is kept (not formatted) to be printed only on a hang.
    fn begin<V: Clone + std::fmt::Debug + Send + 'static>(&self, value: &V) {
        if let Ok(mut input) = self.input.lock() {
            *input = Some(Box::new(value.clone()));
        }
        self.started_ms.store((self.epoch.elapsed().as_millis() as u64).max(1), Ordering::Relaxed);
    }

    /// Notes the case ended.
    fn end(&self) {
        self.started_ms.store(0, Ordering::Relaxed);
    }

    /// Ends the watching thread.
    fn stop(&self) {
        self.done.store(true, Ordering::Relaxed);
    }
}
