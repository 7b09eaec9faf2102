//! The text that names a player, one type for every place that takes one: `loa`'s flags and
//! `loa engine`'s `Player` option, a master run's validation opponents, judging's fixed
//! opponents and ladder, the benchmark's reference and the players of match experiments. [`FORMS`] is the list of forms, the one that error messages and docs use.
//!
//! - [`PlayerSpec`]: a spec parsed ([`PlayerSpec::parse_in`], `FromStr`), written back
//!   (`Display`), checked against a board ([`PlayerSpec::plays_on`]) and, where it is the same
//!   in every match, turned into the [`FixedPlayer`] a task carries ([`PlayerSpec::fixed`]).
//! - [`PreparedPlayer`]: a spec with its file read, making the player of each match.
//! - [`SpecError`]: why a spec was refused, naming it, and the forms the place takes.
//! - [`parse_epochs`]: the epoch list of a `run:` spec, which the master expands into the run's
//!   survivors (the engine parses and writes `run:` but cannot build it).

mod build;
mod epochs;
mod error;

pub use build::{FRESH_ANN_LABEL, PreparedPlayer};
pub use epochs::{EpochListError, MAX_EPOCHS, parse_epochs};
pub use error::{SpecError, SpecProblem};

use crate::BoardSize;
use crate::aloa::AloaKind;
use crate::network::{Chromosome, Topology};
use crate::players::{MAX_DEPTH, network_plays_on};
use crate::tasks::FixedPlayer;
use std::fmt;
use std::path::PathBuf;

/// One form of player spec: how it is written, and where it is taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Form {
    /// The form, e.g. `random:D[:SALT]` (`D` is the search depth, 1 to [`MAX_DEPTH`]).
    pub text: &'static str,
    /// The form that is a fixed player (the same in every match: what a task carries), if any.
    pub fixed: Option<&'static str>,
    /// Whether `loa` plays it: only `master experiment` expands a run's survivors.
    pub playable: bool,
    /// Whether it is a program in another process (`engine:`): it runs on the machine that
    /// reads the spec, never on a worker, so the master plays its matches itself. It is taken
    /// where fixed players are as a held-out opponent ([`Accepts::Opponent`]).
    pub external: bool,
    /// The player it names.
    pub player: &'static str,
}

/// Every form of player spec.
pub const FORMS: [Form; 8] = [
    Form {
        text: "aloa:D",
        fixed: Some("aloa:D"),
        playable: true,
        external: false,
        player: "ALoA, the reference player (Winands' evaluator with the quad term)",
    },
    Form {
        text: "aloa-normal:D",
        fixed: Some("aloa-normal:D"),
        playable: true,
        external: false,
        player: "ALoA with Winands' normal evaluator",
    },
    Form {
        text: "random:D[:SALT]",
        fixed: Some("random:D[:SALT]"),
        playable: true,
        external: false,
        player: "the random heuristic, keyed by the game's seed and SALT (default 0)",
    },
    Form {
        text: "randomann:D[:SEED]",
        fixed: Some("randomann:D:SEED"),
        playable: true,
        external: false,
        player: "a network with weights uniform in [-1, 1) drawn from SEED; without one, a fresh network for \
                 every match, drawn from the match's seed",
    },
    Form {
        text: "randomann-printed:D[:SEED]",
        fixed: Some("randomann-printed:D:SEED"),
        playable: true,
        external: false,
        player: "the same, reading the board with the thesis's printed encoding (docs/spec.md §3)",
    },
    Form {
        text: "net:D:FILE",
        fixed: None,
        playable: true,
        external: false,
        player: "the network in a chromosome JSON file",
    },
    Form {
        text: "run:D:DIR:epochs=LIST",
        fixed: None,
        playable: false,
        external: false,
        player: "every survivor of each listed epoch of the run in DIR, from its epoch checkpoints (`master \
                 experiment` only); LIST is epochs or ranges FIRST-LAST[/STEP] separated by commas",
    },
    Form {
        text: "engine:CMD",
        fixed: None,
        playable: true,
        external: true,
        player: "a program that speaks `loa engine`'s protocol (docs/engine-protocol.md), CMD its command line \
                 with its arguments, e.g. `engine:target/release/loa engine --player aloa:1`; in a run or an \
                 experiment the master plays its matches itself, never a worker",
    },
];

/// Which specs a place takes: the forms its errors list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Accepts {
    /// Every form: the players of a match experiment.
    Every,
    /// Every form `loa` plays: all but `run:`.
    Playable,
    /// Fixed players and external engines: a run's validation opponents and the benchmark's
    /// reference, whose matches with an engine the master plays itself.
    Opponent,
    /// Fixed players only: judging's opponents and ladder, whose games are training's and go to
    /// the workers.
    Fixed,
}

impl Accepts {
    /// The forms taken, as a list to put in a message: `a, b or c`.
    pub fn forms(self) -> String {
        let taken: Vec<&str> = FORMS
            .iter()
            .filter_map(|form| match self {
                Accepts::Every => Some(form.text),
                Accepts::Playable => form.playable.then_some(form.text),
                Accepts::Opponent => form.fixed.or(form.external.then_some(form.text)),
                Accepts::Fixed => form.fixed,
            })
            .collect();
        match taken.split_last() {
            Some((last, [])) => (*last).to_owned(),
            Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
            None => String::new(),
        }
    }
}

/// A player spec, parsed, before any file is read. Its `Display` writes a spec that parses back
/// to it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlayerSpec {
    /// A player that is the same in every match: `aloa:D`, `aloa-normal:D`, `random:D[:SALT]`,
    /// `randomann:D:SEED`, `randomann-printed:D:SEED`.
    Fixed(FixedPlayer),
    /// `randomann:D` / `randomann-printed:D` without a seed: a fresh RandomANN for every match,
    /// its weights drawn from the match's seed.
    FreshRandomAnn {
        /// Search depth.
        depth: u32,
        /// Whether it reads the board with the thesis's printed encoding.
        printed: bool,
    },
    /// `net:D:FILE`: the network in a chromosome JSON file.
    Net {
        /// Search depth.
        depth: u32,
        /// The chromosome file.
        path: PathBuf,
    },
    /// `engine:CMD`: a program in another process that speaks `loa engine`'s protocol, `CMD`
    /// its command line (a program and its arguments, separated by spaces).
    Engine {
        /// The command line, as given.
        command: String,
    },
    /// `run:D:DIR:epochs=LIST`: every survivor of each listed epoch of the run in `DIR`, which
    /// the master expands from the run's epoch checkpoints.
    Run {
        /// Search depth.
        depth: u32,
        /// The run directory.
        dir: PathBuf,
        /// The epochs, in the order given, each once (at most [`MAX_EPOCHS`]).
        epochs: Vec<u32>,
    },
}

impl PlayerSpec {
    /// Parses `text` for a place that takes `accepts`: a form it does not take is refused like a
    /// bad spec, and every error lists the forms it takes.
    pub fn parse_in(text: &str, accepts: Accepts) -> Result<PlayerSpec, SpecError> {
        let spec = parse(text).map_err(|problem| SpecError { spec: text.to_owned(), accepts, problem })?;
        spec.taken_in(accepts).map_err(|e| SpecError { spec: text.to_owned(), ..e })?;
        Ok(spec)
    }

    /// Whether a place that takes `accepts` takes this spec: an error naming the place's
    /// forms if not.
    pub fn taken_in(&self, accepts: Accepts) -> Result<(), SpecError> {
        let problem = match (self, accepts) {
            (PlayerSpec::Run { .. }, Accepts::Playable) => SpecProblem::RunOutsideExperiment,
            (PlayerSpec::Fixed(_) | PlayerSpec::Engine { .. }, Accepts::Opponent)
            | (PlayerSpec::Fixed(_), Accepts::Fixed)
            | (_, Accepts::Every | Accepts::Playable) => return Ok(()),
            (_, Accepts::Fixed | Accepts::Opponent) => SpecProblem::NotFixed,
        };
        Err(SpecError { spec: self.to_string(), accepts, problem })
    }

    /// The search depth the spec names (0 for an external engine, whose program chooses).
    pub fn depth(&self) -> u32 {
        match self {
            PlayerSpec::Engine { .. } => 0,
            PlayerSpec::Fixed(player) => player.depth(),
            PlayerSpec::FreshRandomAnn { depth, .. }
            | PlayerSpec::Net { depth, .. }
            | PlayerSpec::Run { depth, .. } => *depth,
        }
    }

    /// The same player searching `depth` plies (an external engine as it is).
    pub fn with_depth(&self, depth: u32) -> PlayerSpec {
        let mut spec = self.clone();
        match &mut spec {
            PlayerSpec::Fixed(
                FixedPlayer::Aloa { depth: d, .. }
                | FixedPlayer::Random { depth: d, .. }
                | FixedPlayer::RandomAnn { depth: d, .. }
                | FixedPlayer::RandomAnnPrinted { depth: d, .. },
            )
            | PlayerSpec::FreshRandomAnn { depth: d, .. }
            | PlayerSpec::Net { depth: d, .. }
            | PlayerSpec::Run { depth: d, .. } => *d = depth,
            PlayerSpec::Engine { .. } => {}
        }
        spec
    }

    /// The search depth of a network spec (`net:`, `run:`), which a task shares between all its
    /// networks; `None` for the others (they carry their own).
    pub fn network_depth(&self) -> Option<u32> {
        match self {
            PlayerSpec::Net { depth, .. } | PlayerSpec::Run { depth, .. } => Some(*depth),
            PlayerSpec::Fixed(_) | PlayerSpec::FreshRandomAnn { .. } | PlayerSpec::Engine { .. } => None,
        }
    }

    /// Whether the player's moves depend on the game's or the match's seed: the random
    /// heuristic's values and a fresh RandomANN's weights do. ALoA, a network file and a seeded
    /// RandomANN play the same move in the same position every time, so two of them replay
    /// the same game from the same start.
    pub fn uses_seed(&self) -> bool {
        // An external engine is told the seed and may use it.
        matches!(
            self,
            PlayerSpec::Fixed(FixedPlayer::Random { .. })
                | PlayerSpec::FreshRandomAnn { .. }
                | PlayerSpec::Engine { .. }
        )
    }

    /// The fixed player the spec names, if it is one (the same in every match).
    pub fn fixed(&self) -> Option<FixedPlayer> {
        match self {
            PlayerSpec::Fixed(player) => Some(*player),
            _ => None,
        }
    }

    /// Whether the player can play on the `size` board: ALoA and the random heuristic play every
    /// board, a network only the board its shape reads (a RandomANN has the thesis's, 8×8; a
    /// file's network is read to know; an external engine's program answers for itself). A
    /// `run:` spec is refused: its networks are the master's to read.
    pub fn plays_on(&self, size: BoardSize) -> Result<(), SpecError> {
        let shape = match self {
            PlayerSpec::Engine { .. } => return Ok(()),
            PlayerSpec::Fixed(player) => return player.plays_on(size).map_err(|e| self.error(SpecProblem::Board(e))),
            PlayerSpec::FreshRandomAnn { .. } => Topology::THESIS,
            PlayerSpec::Net { .. } => self.read_chromosome()?.topology(),
            PlayerSpec::Run { .. } => return Err(self.error(SpecProblem::RunOutsideExperiment)),
        };
        network_plays_on(shape, size).map_err(|e| self.error(SpecProblem::Board(e)))
    }

    /// The chromosome file of a `net:` spec, read (an error naming the spec otherwise).
    pub fn read_chromosome(&self) -> Result<Chromosome, SpecError> {
        match self {
            PlayerSpec::Net { path, .. } => Chromosome::read(path).map_err(|e| self.error(SpecProblem::Chromosome(e))),
            _ => Err(self.error(SpecProblem::NotANetFile)),
        }
    }

    /// An error about this spec (as its `Display` writes it) met in checking or building it,
    /// which the forms that are built answer.
    fn error(&self, problem: SpecProblem) -> SpecError {
        SpecError { spec: self.to_string(), accepts: Accepts::Playable, problem }
    }
}

/// Every form: errors list them all (see [`PlayerSpec::parse_in`] for a place that takes fewer).
impl std::str::FromStr for PlayerSpec {
    type Err = SpecError;

    fn from_str(text: &str) -> Result<PlayerSpec, SpecError> {
        PlayerSpec::parse_in(text, Accepts::Every)
    }
}

/// A fixed player from its spec, e.g. `aloa:3` or `random:2:7` (the form [`FixedPlayer`]'s
/// `Display` writes is one of them); other players (`net:`, an unseeded `randomann:`) are
/// refused, naming the spec.
impl std::str::FromStr for FixedPlayer {
    type Err = SpecError;

    fn from_str(text: &str) -> Result<FixedPlayer, SpecError> {
        let spec = PlayerSpec::parse_in(text, Accepts::Fixed)?;
        spec.fixed().ok_or_else(|| SpecError {
            spec: text.to_owned(),
            accepts: Accepts::Fixed,
            problem: SpecProblem::NotFixed,
        })
    }
}

impl fmt::Display for PlayerSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            // The salt a user leaves out is left out (`loa match` names its players so).
            PlayerSpec::Fixed(FixedPlayer::Random { depth, salt: 0 }) => write!(f, "random:{depth}"),
            PlayerSpec::Fixed(player) => write!(f, "{player}"),
            PlayerSpec::FreshRandomAnn { depth, printed: false } => write!(f, "randomann:{depth}"),
            PlayerSpec::FreshRandomAnn { depth, printed: true } => write!(f, "randomann-printed:{depth}"),
            PlayerSpec::Net { depth, path } => write!(f, "net:{depth}:{}", path.display()),
            PlayerSpec::Engine { command } => write!(f, "engine:{command}"),
            PlayerSpec::Run { depth, dir, epochs } => {
                write!(f, "run:{depth}:{}:epochs={}", dir.display(), epochs::write_epochs(epochs))
            }
        }
    }
}

/// The spec `text` names, of any form.
fn parse(text: &str) -> Result<PlayerSpec, SpecProblem> {
    if text.is_empty() {
        return Err(SpecProblem::Empty);
    }
    // The command line is the rest, colons and spaces included: it has no depth.
    if let Some(command) = text.strip_prefix("engine:") {
        if command.trim().is_empty() {
            return Err(SpecProblem::MissingCommand);
        }
        return Ok(PlayerSpec::Engine { command: command.to_owned() });
    }
    let mut parts = text.splitn(3, ':');
    let kind = parts.next().unwrap_or_default();
    if !FORMS.iter().any(|form| form.text.split(':').next() == Some(kind)) {
        return Err(SpecProblem::UnknownKind(kind.to_owned()));
    }
    let depth: u32 = match parts.next() {
        Some(d) => d.parse().map_err(|_| SpecProblem::DepthNotANumber)?,
        None => return Err(SpecProblem::MissingDepth),
    };
    if depth == 0 || depth > MAX_DEPTH {
        return Err(SpecProblem::DepthOutOfRange);
    }
    let extra = parts.next();
    let number = |what: &'static str| -> Result<Option<u64>, SpecProblem> {
        extra.map(|s| s.parse::<u64>().map_err(|_| SpecProblem::NotANumber(what))).transpose()
    };
    let alone = |player: FixedPlayer| match extra {
        Some(_) => Err(SpecProblem::UnexpectedText),
        None => Ok(PlayerSpec::Fixed(player)),
    };
    let ann = |printed: bool| -> Result<PlayerSpec, SpecProblem> {
        Ok(match number("seed")? {
            Some(seed) if printed => PlayerSpec::Fixed(FixedPlayer::RandomAnnPrinted { depth, seed }),
            Some(seed) => PlayerSpec::Fixed(FixedPlayer::RandomAnn { depth, seed }),
            None => PlayerSpec::FreshRandomAnn { depth, printed },
        })
    };
    match kind {
        "aloa" => alone(FixedPlayer::Aloa { evaluator: AloaKind::Quad, depth }),
        "aloa-normal" => alone(FixedPlayer::Aloa { evaluator: AloaKind::Normal, depth }),
        "random" => Ok(PlayerSpec::Fixed(FixedPlayer::Random { depth, salt: number("salt")?.unwrap_or(0) })),
        "randomann" => ann(false),
        "randomann-printed" => ann(true),
        "net" => match extra {
            Some(path) if !path.is_empty() => Ok(PlayerSpec::Net { depth, path: PathBuf::from(path) }),
            _ => Err(SpecProblem::MissingChromosomeFile),
        },
        "run" => {
            let rest = extra.filter(|r| !r.is_empty()).ok_or(SpecProblem::MissingRunDir)?;
            // The directory may hold colons; the list is what follows the last `:epochs=`.
            let (dir, list) = rest.rsplit_once(":epochs=").ok_or(SpecProblem::MissingEpochs)?;
            if dir.is_empty() {
                return Err(SpecProblem::MissingRunDir);
            }
            let epochs = parse_epochs(list).map_err(SpecProblem::Epochs)?;
            Ok(PlayerSpec::Run { depth, dir: PathBuf::from(dir), epochs })
        }
        other => Err(SpecProblem::UnknownKind(other.to_owned())),
    }
}

#[cfg(test)]
mod tests;
