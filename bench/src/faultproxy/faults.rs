//! The faults a proxy injects, and the control commands that switch them.

use super::ProxyError;
use std::time::{Duration, Instant};

/// The faults in force, shared by every connection of a proxy and read again whenever they
/// change.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Faults {
    /// Every chunk of bytes is held this long before it is passed on.
    pub latency: Duration,
    /// Plus a uniform extra delay in `[0, jitter]` (never reordering bytes: a later chunk
    /// waits for an earlier one, as TCP delivers in order).
    pub jitter: Duration,
    /// Bytes a second each direction of each connection may carry; `None`: no cap.
    pub bandwidth: Option<u64>,
    /// Connections stay open and no bytes pass, until switched off.
    pub stalled: bool,
    /// A partition until this instant: open connections pass no bytes, new ones are refused
    /// (reset at once, the nearest a proxy in user space comes to a dropped SYN).
    pub partition_until: Option<Instant>,
    /// Each open connection is reset (RST both ways) at this rate, per second.
    pub resets_per_second: f64,
}

impl Faults {
    /// Whether a partition holds at `now`.
    pub fn partitioned(&self, now: Instant) -> bool {
        self.partition_until.is_some_and(|until| now < until)
    }

    /// Whether bytes are held at `now` (a stall or a partition).
    pub fn holding(&self, now: Instant) -> bool {
        self.stalled || self.partitioned(now)
    }

    /// The faults as one line, as the `status` command prints them.
    pub fn describe(&self, now: Instant) -> String {
        let bandwidth = self.bandwidth.map_or_else(|| "off".to_owned(), |b| format!("{b} B/s"));
        let partition = match self.partition_until {
            Some(until) if now < until => format!("{:.1} s left", (until - now).as_secs_f64()),
            _ => "off".to_owned(),
        };
        format!(
            "latency {} ms jitter {} ms, bandwidth {bandwidth}, stall {}, partition {partition}, resets {}/s",
            self.latency.as_millis(),
            self.jitter.as_millis(),
            if self.stalled { "on" } else { "off" },
            self.resets_per_second
        )
    }
}

/// A command of the control interface, one a line:
/// `latency MS [JITTER_MS]`, `bandwidth BYTES_PER_SECOND` (0: off), `stall on|off`,
/// `partition SECONDS`, `heal`, `resets PER_SECOND` (0: off), `clear`, `status`.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    /// Sets the latency and jitter.
    Latency {
        /// The fixed delay.
        latency: Duration,
        /// The most extra delay.
        jitter: Duration,
    },
    /// Caps the bandwidth; `None` lifts the cap.
    Bandwidth(Option<u64>),
    /// Stalls every connection, or lets bytes pass again.
    Stall(bool),
    /// A partition that heals by itself after this long.
    Partition(Duration),
    /// Ends a partition and a stall now.
    Heal,
    /// Resets connections at this rate per second; 0: never.
    Resets(f64),
    /// Switches every fault off.
    Clear,
    /// Asks for the faults in force and the counts.
    Status,
}

/// What the control interface accepts, for error messages.
pub const COMMANDS: &str = "latency MS [JITTER_MS], bandwidth BYTES_PER_SECOND (0: off), stall on|off, \
                            partition SECONDS, heal, resets PER_SECOND (0: off), clear, status";

/// The longest latency, jitter or partition a command may set, in seconds: an hour.
const LONGEST: f64 = 3600.0;
/// The largest number a command takes (a bandwidth of a petabyte a second is no cap at all).
const LARGEST: f64 = 1e15;

impl Command {
    /// Applies the command to `faults` (at `now`, for a partition's end); `Status` changes nothing.
    pub fn apply(&self, faults: &mut Faults, now: Instant) {
        match *self {
            Command::Latency { latency, jitter } => (faults.latency, faults.jitter) = (latency, jitter),
            Command::Bandwidth(cap) => faults.bandwidth = cap,
            Command::Stall(on) => faults.stalled = on,
            Command::Partition(length) => faults.partition_until = Some(now + length),
            Command::Heal => (faults.stalled, faults.partition_until) = (false, None),
            Command::Resets(rate) => faults.resets_per_second = rate,
            Command::Clear => *faults = Faults::default(),
            Command::Status => {}
        }
    }
}

impl std::str::FromStr for Command {
    type Err = ProxyError;

    fn from_str(line: &str) -> Result<Command, ProxyError> {
        let bad = |problem: String| ProxyError::Command { line: line.trim().to_owned(), problem };
        let words: Vec<&str> = line.split_whitespace().collect();
        let number = |i: usize, what: &str| -> Result<f64, ProxyError> {
            let word = words.get(i).ok_or_else(|| bad(format!("{what} is missing")))?;
            match word.parse::<f64>() {
                Ok(n) if (0.0..=LARGEST).contains(&n) => Ok(n),
                _ => Err(bad(format!("{what} must be a number from 0 to {LARGEST:e}, not {word:?}"))),
            }
        };
        let millis = |i: usize, what: &str| -> Result<Duration, ProxyError> {
            let ms = number(i, what)?;
            if ms > LONGEST * 1000.0 {
                return Err(bad(format!("{what} must be at most an hour")));
            }
            Ok(Duration::from_secs_f64(ms / 1000.0))
        };
        let arity = |most: usize| match words.len() > most {
            true => Err(bad(format!("takes at most {} argument(s)", most - 1))),
            false => Ok(()),
        };
        let command = match words.first().copied() {
            Some("latency") => {
                arity(3)?;
                let jitter = if words.len() > 2 { millis(2, "the jitter (ms)")? } else { Duration::ZERO };
                Command::Latency { latency: millis(1, "the latency (ms)")?, jitter }
            }
            Some("bandwidth") => {
                arity(2)?;
                let cap = number(1, "the bandwidth (bytes a second)")?;
                if cap != cap.trunc() {
                    return Err(bad("the bandwidth must be whole bytes a second".into()));
                }
                Command::Bandwidth(Some(cap as u64).filter(|&b| b > 0))
            }
            Some("stall") => {
                arity(2)?;
                match words.get(1).copied() {
                    Some("on") => Command::Stall(true),
                    Some("off") => Command::Stall(false),
                    other => return Err(bad(format!("stall takes on or off, not {other:?}"))),
                }
            }
            Some("partition") => {
                arity(2)?;
                let seconds = number(1, "the partition's length (seconds)")?;
                if seconds > LONGEST {
                    return Err(bad("a partition heals within an hour here: give fewer seconds".into()));
                }
                Command::Partition(Duration::from_secs_f64(seconds))
            }
            Some("resets") => {
                arity(2)?;
                Command::Resets(number(1, "the reset rate (per second)")?)
            }
            Some("heal") => arity(1).map(|()| Command::Heal)?,
            Some("clear") => arity(1).map(|()| Command::Clear)?,
            Some("status") => arity(1).map(|()| Command::Status)?,
            Some(other) => return Err(bad(format!("no command {other:?}"))),
            None => return Err(bad("an empty line".into())),
        };
        Ok(command)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &str) -> Result<Command, String> {
        line.parse::<Command>().map_err(|e| e.to_string())
    }

    #[test]
    fn commands_parse_to_what_they_name() {
        let ms = Duration::from_millis;
        assert_eq!(parse("latency 200 50"), Ok(Command::Latency { latency: ms(200), jitter: ms(50) }));
        assert_eq!(parse(" latency 5 "), Ok(Command::Latency { latency: ms(5), jitter: ms(0) }));
        assert_eq!(parse("bandwidth 65536"), Ok(Command::Bandwidth(Some(65536))));
        assert_eq!(parse("bandwidth 0"), Ok(Command::Bandwidth(None)));
        assert_eq!(parse("stall on"), Ok(Command::Stall(true)));
        assert_eq!(parse("partition 1.5"), Ok(Command::Partition(ms(1500))));
        assert_eq!(parse("resets 0.25"), Ok(Command::Resets(0.25)));
        assert_eq!(parse("heal"), Ok(Command::Heal));
    }

    #[test]
    fn bad_commands_say_what_is_wrong_and_what_is_accepted() {
        for (line, expected) in [
            ("latency", "the latency (ms) is missing"),
            ("latency -3", "must be a number from 0 to 1e15"),
            ("latency NaN", "must be a number from 0 to 1e15"),
            ("bandwidth 1e16", "must be a number from 0 to 1e15"),
            ("latency 1 2 3", "at most 2 argument"),
            ("latency 99999999", "at most an hour"),
            ("bandwidth 1.5", "whole bytes"),
            ("stall maybe", "on or off"),
            ("partition 7200", "within an hour"),
            ("reboot", "no command \"reboot\""),
            ("", "an empty line"),
        ] {
            let e = parse(line).unwrap_err();
            assert!(e.contains(expected), "{line:?}: {e}");
            assert!(e.contains("stall on|off"), "{line:?} does not list the commands: {e}");
        }
    }

    #[test]
    fn a_partition_heals_by_itself_and_clear_ends_every_fault() {
        let now = Instant::now();
        let mut faults = Faults::default();
        Command::Partition(Duration::from_secs(2)).apply(&mut faults, now);
        Command::Resets(1.0).apply(&mut faults, now);
        assert!(faults.holding(now + Duration::from_secs(1)));
        assert!(!faults.holding(now + Duration::from_secs(2)));
        Command::Stall(true).apply(&mut faults, now);
        assert!(faults.holding(now + Duration::from_secs(5)));
        Command::Clear.apply(&mut faults, now);
        assert_eq!(faults, Faults::default());
    }
}
