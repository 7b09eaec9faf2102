//! Player specs of an experiment: `loa`'s specs (`aloa:D`, `aloa-normal:D`, `random:D[:SALT]`,
//! `randomann:D[:SEED]`, `net:D:FILE`), plus `randomann-printed:D[:SEED]` (a RandomANN reading
//! the board with the thesis's printed encoding, E7) and `run:D:DIR:epochs=LIST` (every survivor
//! of the named epochs of a run, from its epoch checkpoints: E3 and E8), `LIST` being epochs or
//! ranges `FIRST-LAST[/STEP]` separated by commas, e.g. `epochs=0-30/10` or `epochs=0,5,10`.

use crate::checkpoint::RunState;
use loa_engine::network::Chromosome;
use loa_engine::spec::{PlayerText, parse_player};
use loa_engine::tasks::FixedPlayer;
use loa_records::RunDir;
use std::path::PathBuf;
use std::sync::Arc;

/// Most epochs one `run:` spec may name.
pub const MAX_EPOCHS: usize = 10_000;

/// A player named in an experiment configuration, before any file is read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlayerSpec {
    /// A player that is the same in every match (ALoA, the random heuristic, a seeded RandomANN).
    Fixed(FixedPlayer),
    /// `randomann:D` / `randomann-printed:D` without a seed: a fresh RandomANN for every match,
    /// its weights drawn from the match seed (as `loa match` does).
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
    /// `run:D:DIR:epochs=LIST`: every survivor of each listed epoch of the run in `DIR`.
    Run {
        /// Search depth.
        depth: u32,
        /// The run directory.
        dir: PathBuf,
        /// The epochs, in the order given (duplicates removed).
        epochs: Vec<u32>,
    },
}

/// Why a player spec was rejected or its files could not be used.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct SpecError(pub String);

const FORMS: &str = "aloa:D, aloa-normal:D, random:D[:SALT], randomann:D[:SEED], randomann-printed:D[:SEED], \
                     net:D:FILE or run:D:DIR:epochs=LIST";

/// Why an epoch list does not parse.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
enum EpochListError {
    /// An item is not an epoch number.
    #[error("`{0}` is not an epoch number")]
    NotANumber(String),
    /// A range's step is 0.
    #[error("a range's step must be at least 1")]
    ZeroStep,
    /// A range ends before it starts.
    #[error("the range {0}-{1} is empty")]
    Empty(u32, u32),
    /// More epochs than [`MAX_EPOCHS`].
    #[error("at most {MAX_EPOCHS} epochs")]
    TooMany,
}

fn parse_epochs(list: &str) -> Result<Vec<u32>, EpochListError> {
    let mut epochs: Vec<u32> = Vec::new();
    for item in list.split(',') {
        let number = |s: &str| s.trim().parse::<u32>().map_err(|_| EpochListError::NotANumber(s.to_owned()));
        let (range, step) = match item.split_once('/') {
            Some((r, s)) => (r, number(s)?),
            None => (item, 1),
        };
        if step == 0 {
            return Err(EpochListError::ZeroStep);
        }
        let (first, last) = range.split_once('-').unwrap_or((range, range));
        let (first, last) = (number(first)?, number(last)?);
        if last < first {
            return Err(EpochListError::Empty(first, last));
        }
        for e in (first..=last).step_by(step as usize) {
            if !epochs.contains(&e) {
                epochs.push(e);
            }
            if epochs.len() > MAX_EPOCHS {
                return Err(EpochListError::TooMany);
            }
        }
    }
    Ok(epochs)
}

impl std::str::FromStr for PlayerSpec {
    type Err = SpecError;

    fn from_str(text: &str) -> Result<PlayerSpec, SpecError> {
        let err = |why: &str| SpecError(format!("bad player `{text}`: {why} (use {FORMS})"));
        Ok(match parse_player(text).map_err(|why| err(&why))? {
            PlayerText::Fixed(p) => PlayerSpec::Fixed(p),
            PlayerText::FreshRandomAnn { depth, printed } => PlayerSpec::FreshRandomAnn { depth, printed },
            PlayerText::Net { depth, path } => PlayerSpec::Net { depth, path },
            PlayerText::Other { kind, depth, rest } if kind == "run" => {
                let rest = rest.ok_or_else(|| err("missing the run directory"))?;
                let (dir, list) = rest.rsplit_once(":epochs=").ok_or_else(|| err("missing `:epochs=LIST`"))?;
                if dir.is_empty() {
                    return Err(err("missing the run directory"));
                }
                let epochs = parse_epochs(list).map_err(|why| err(&why.to_string()))?;
                PlayerSpec::Run { depth, dir: PathBuf::from(dir), epochs }
            }
            PlayerText::Other { kind, .. } => return Err(err(&format!("unknown player kind `{kind}`"))),
        })
    }
}

impl PlayerSpec {
    /// The search depth of a network spec (`net:`, `run:`), which a task shares between all its
    /// networks; `None` for the others (they carry their own).
    pub fn network_depth(&self) -> Option<u32> {
        match self {
            PlayerSpec::Net { depth, .. } | PlayerSpec::Run { depth, .. } => Some(*depth),
            PlayerSpec::Fixed(_) | PlayerSpec::FreshRandomAnn { .. } => None,
        }
    }

    /// Reads the files the spec names.
    pub fn prepare(&self) -> Result<Side, SpecError> {
        let nets = match self {
            PlayerSpec::Fixed(_) | PlayerSpec::FreshRandomAnn { .. } => Vec::new(),
            PlayerSpec::Net { path, .. } => {
                let chromosome = Chromosome::read(path).map_err(|e| SpecError(format!("{}: {e}", path.display())))?;
                vec![PreparedNet { epoch: None, chromosome: Arc::new(chromosome) }]
            }
            PlayerSpec::Run { dir, epochs, .. } => {
                let run = RunDir::new(dir);
                let mut nets = Vec::new();
                for &epoch in epochs {
                    let path = run.epoch_checkpoint(epoch);
                    let state = RunState::load(&path).map_err(|e| SpecError(e.to_string()))?;
                    let individuals = state.individuals().map_err(|e| SpecError(format!("{}: {e}", path.display())))?;
                    nets.extend(
                        individuals.into_iter().map(|i| PreparedNet { epoch: Some(epoch), chromosome: i.chromosome }),
                    );
                }
                if nets.is_empty() {
                    return Err(SpecError(format!("{}: the epochs named hold no survivors", dir.display())));
                }
                nets
            }
        };
        Ok(Side { spec: self.clone(), nets })
    }
}

/// One network of a `net:` or `run:` spec.
#[derive(Clone, Debug)]
pub struct PreparedNet {
    /// The epoch it survived (`run:` specs).
    pub epoch: Option<u32>,
    /// Its weights.
    pub chromosome: Arc<Chromosome>,
}

/// A spec with its files read: what the matches of one side are played with.
#[derive(Clone, Debug)]
pub struct Side {
    /// The spec.
    pub spec: PlayerSpec,
    /// The networks of a `net:` or `run:` spec (its entrants); none for the other players.
    pub nets: Vec<PreparedNet>,
}

impl Side {
    /// Whether every player of the side plays on `board`: each network's shape reads it (a
    /// RandomANN has the thesis's shape).
    pub fn plays_on(&self, board: loa_engine::BoardSize) -> Result<(), SpecError> {
        use loa_engine::network::Topology;
        use loa_engine::players::network_plays_on;
        let fits = match &self.spec {
            PlayerSpec::Fixed(player) => player.plays_on(board),
            PlayerSpec::FreshRandomAnn { .. } => network_plays_on(Topology::THESIS, board),
            PlayerSpec::Net { .. } | PlayerSpec::Run { .. } => {
                self.nets.iter().try_for_each(|n| network_plays_on(n.chromosome.topology(), board))
            }
        };
        fits.map_err(|e| SpecError(e.to_string()))
    }

    /// How many entrants the side has: the networks of a `net:`/`run:` spec, else 1.
    pub fn entrants(&self) -> usize {
        self.nets.len().max(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use loa_engine::aloa::AloaKind;

    #[test]
    fn specs_parse() {
        let p = |t: &str| t.parse::<PlayerSpec>().unwrap();
        assert_eq!(p("aloa:5"), PlayerSpec::Fixed(FixedPlayer::Aloa { evaluator: AloaKind::Quad, depth: 5 }));
        assert_eq!(p("random:3:7"), PlayerSpec::Fixed(FixedPlayer::Random { depth: 3, salt: 7 }));
        assert_eq!(p("randomann:3"), PlayerSpec::FreshRandomAnn { depth: 3, printed: false });
        assert_eq!(p("randomann-printed:3:9"), PlayerSpec::Fixed(FixedPlayer::RandomAnnPrinted { depth: 3, seed: 9 }));
        assert_eq!(p("net:2:a:b.json"), PlayerSpec::Net { depth: 2, path: "a:b.json".into() });
        assert_eq!(
            p("run:3:runs/x:y:epochs=0-30/10,5,10"),
            PlayerSpec::Run { depth: 3, dir: "runs/x:y".into(), epochs: vec![0, 10, 20, 30, 5] }
        );
    }

    #[test]
    fn bad_specs_are_named() {
        let msg = |t: &str| t.parse::<PlayerSpec>().unwrap_err().to_string();
        assert!(msg("aloa").contains("missing the search depth"));
        assert!(msg("aloa:13").contains("1..=12"));
        assert!(msg("aloa:5:3").contains("unexpected text"));
        assert!(msg("chess:3").contains("unknown player kind `chess`"));
        assert!(msg("run:3:dir").contains("epochs=LIST"));
        assert!(msg("run:3:dir:epochs=5-1").contains("empty"));
        assert!(msg("run:3:dir:epochs=0-9/0").contains("step"));
        assert!(msg("run:3:dir:epochs=x").contains("not an epoch"));
        assert!(msg("run:3:dir:epochs=0-4294967295").contains("at most"));
        assert!(msg("randomann-printed:3:s").contains("seed must be a whole number"));
    }
}
