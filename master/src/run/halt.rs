//! Fault injection: stop a run at a chosen phase boundary ([`HaltPoint`], which says what is on
//! disk there), as a crash there would, so tests can check that `resume` then reaches the result
//! of an uninterrupted run. With [`Halt::abort`] (the `master` binary's `LOA_HALT_AT`) it is a real
//! crash at a deterministic place: no destructor runs, nothing is flushed.

/// A phase boundary of a run, and what is on disk there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HaltPoint {
    /// After `config.toml` and the initial population's `latest.ckpt`, before the epoch-0 benchmark.
    BeforeFirstBenchmark,
    /// Half-way through the benchmark that ends this epoch (outcomes are never stored).
    MidBenchmark(u32),
    /// Half-way through the validation of this epoch's best network (after its benchmark,
    /// before anything of the epoch is recorded).
    MidValidation(u32),
    /// After this epoch's `epochs.jsonl` line (and validation lines), before its checkpoints.
    AfterEpochLine(u32),
    /// After this epoch's `epoch-N.ckpt`, before `latest.ckpt`.
    AfterEpochCheckpoint(u32),
    /// Half-way through this generation's tournaments.
    MidGeneration(u64),
    /// After this generation's `generations.jsonl` line, before `latest.ckpt`.
    AfterGenerationLine(u64),
    /// After this generation's `latest.ckpt` (an epoch's last: its benchmark is pending).
    AfterGeneration(u64),
}

impl std::fmt::Display for HaltPoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HaltPoint::BeforeFirstBenchmark => write!(f, "before-first-benchmark"),
            HaltPoint::MidBenchmark(e) => write!(f, "mid-benchmark:{e}"),
            HaltPoint::MidValidation(e) => write!(f, "mid-validation:{e}"),
            HaltPoint::AfterEpochLine(e) => write!(f, "after-epoch-line:{e}"),
            HaltPoint::AfterEpochCheckpoint(e) => write!(f, "after-epoch-checkpoint:{e}"),
            HaltPoint::MidGeneration(g) => write!(f, "mid-generation:{g}"),
            HaltPoint::AfterGenerationLine(g) => write!(f, "after-generation-line:{g}"),
            HaltPoint::AfterGeneration(g) => write!(f, "after-generation:{g}"),
        }
    }
}

/// Why a halt point does not parse.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("halt point `{text}`: {why}")]
pub struct HaltPointError {
    /// The text.
    pub text: String,
    /// What is wrong.
    pub why: &'static str,
}

impl std::str::FromStr for HaltPoint {
    type Err = HaltPointError;

    /// Parses the form [`HaltPoint`]'s `Display` prints, e.g. `after-generation-line:3`.
    fn from_str(text: &str) -> Result<HaltPoint, HaltPointError> {
        let bad = |why| HaltPointError { text: text.to_owned(), why };
        let (name, number) = text.split_once(':').unwrap_or((text, ""));
        let n = || number.parse::<u64>().map_err(|_| bad("expected NAME:NUMBER"));
        let epoch = || n().and_then(|v| u32::try_from(v).map_err(|_| bad("epoch too large")));
        Ok(match name {
            "before-first-benchmark" if number.is_empty() => HaltPoint::BeforeFirstBenchmark,
            "mid-benchmark" => HaltPoint::MidBenchmark(epoch()?),
            "mid-validation" => HaltPoint::MidValidation(epoch()?),
            "after-epoch-line" => HaltPoint::AfterEpochLine(epoch()?),
            "after-epoch-checkpoint" => HaltPoint::AfterEpochCheckpoint(epoch()?),
            "mid-generation" => HaltPoint::MidGeneration(n()?),
            "after-generation-line" => HaltPoint::AfterGenerationLine(n()?),
            "after-generation" => HaltPoint::AfterGeneration(n()?),
            _ => return Err(bad("unknown name")),
        })
    }
}

/// Where to halt a run, and how.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Halt {
    /// The boundary.
    pub point: HaltPoint,
    /// Abort the process there instead of returning [`super::RunError::Halted`].
    pub abort: bool,
}

impl Halt {
    /// Stops the run if `reached` is this halt's point: aborts the process, or returns the error.
    pub(crate) fn check(halt: Option<&Halt>, reached: HaltPoint) -> Result<(), super::RunError> {
        match halt {
            Some(h) if h.point == reached => {
                if h.abort {
                    std::process::abort();
                }
                Err(super::RunError::Halted(reached))
            }
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_print_and_parse() {
        for p in [
            HaltPoint::BeforeFirstBenchmark,
            HaltPoint::MidBenchmark(0),
            HaltPoint::MidValidation(3),
            HaltPoint::AfterEpochLine(2),
            HaltPoint::AfterEpochCheckpoint(1),
            HaltPoint::MidGeneration(3),
            HaltPoint::AfterGenerationLine(4),
            HaltPoint::AfterGeneration(5),
        ] {
            assert_eq!(p.to_string().parse::<HaltPoint>(), Ok(p));
        }
        assert!("after-generation:x".parse::<HaltPoint>().unwrap_err().to_string().contains("NAME:NUMBER"));
        assert!("explode:1".parse::<HaltPoint>().unwrap_err().to_string().contains("`explode:1`: unknown name"));
    }
}
